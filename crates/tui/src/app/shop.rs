//! Buying a space fleet in the shop.

use std::collections::BTreeMap;

use broadside_engine::Command;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::play::KeyResult;
use super::Play;

/// Buying a space fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shop {
    pub counts: BTreeMap<String, u32>,
    pub selected: usize,
}

impl Play {
    pub(super) fn shop_key(&mut self, key: KeyEvent) -> KeyResult {
        let Some(rules) = self.rules.as_ref() else {
            return Ok(None);
        };
        let types = rules.catalogue.len();
        let me = self.me.ok_or_else(|| self.lang.t("err.not_a_player"))?;
        let Some(shop) = self.shop.as_mut() else {
            return Ok(None);
        };
        let id = rules.catalogue[shop.selected.min(types - 1)].id.clone();
        match key.code {
            KeyCode::Up => shop.selected = (shop.selected + types - 1) % types,
            KeyCode::Down => shop.selected = (shop.selected + 1) % types,
            KeyCode::Right | KeyCode::Char('+') | KeyCode::Char(' ') => {
                *shop.counts.entry(id).or_insert(0) += 1
            }
            KeyCode::Left | KeyCode::Char('-') => {
                let count = shop.counts.entry(id.clone()).or_insert(0);
                *count = count.saturating_sub(1);
                if *count == 0 {
                    shop.counts.remove(&id);
                }
            }
            KeyCode::Char('d') => shop.counts = broadside_ai::default_purchase(rules),
            KeyCode::Char('c') => shop.counts.clear(),
            KeyCode::Enter => {
                let ships = shop.counts.clone();
                return self
                    .submit(Command::Buy { seat: me, ships })
                    .map(|_| Some(self.lang.t("tui.fleet_bought")));
            }
            _ => {}
        }
        Ok(None)
    }
}
