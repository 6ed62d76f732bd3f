//! Placing the fleet ship by ship, with the referee's verdict on each
//! position.

use broadside_engine::{Cell, Command, Mode, Placement, Size};
use broadside_protocol::ClientFrame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::play::KeyResult;
use super::{Play, Source};
use crate::words;

/// Placing the fleet, one ship after another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placing {
    /// Type ids of the whole fleet, largest first.
    pub fleet: Vec<String>,
    /// The ships laid so far (a prefix of `fleet`).
    pub placed: Vec<Placement>,
    /// Anchor and rotation of the ship being moved.
    pub at: Cell,
    pub rot: u8,
    /// The board and the part of it (origin, size) where the fleet goes.
    pub board: usize,
    pub origin: Cell,
    pub area: Size,
    /// The engine's (or the server's) verdict on `placed` + the moving ship;
    /// `None` while the server has not answered.
    pub check: Option<Result<(), String>>,
}

impl Play {
    pub(super) fn new_placing(&self) -> Option<Placing> {
        let view = self.view.as_ref()?;
        let rules = self.rules.as_ref()?;
        let me = self.me?;
        let fleet_counts = view.seats.get(me)?.fleet.clone()?;
        let mut fleet: Vec<String> = Vec::new();
        for (id, &count) in &fleet_counts {
            fleet.extend(std::iter::repeat_n(id.clone(), count as usize));
        }
        let size_of = |id: &String| {
            rules
                .type_index(id)
                .map(|t| rules.catalogue[t].shape.len())
                .unwrap_or(0)
        };
        fleet.sort_by(|a, b| size_of(b).cmp(&size_of(a)).then(a.cmp(b)));
        let (board, origin) = match view.mode {
            Mode::SharedSea => {
                let block = view.blocks.as_ref()?.iter().find(|b| b.owner == Some(me))?;
                (0, block.origin)
            }
            _ => (me, Cell::new(0, 0)),
        };
        Some(Placing {
            fleet,
            placed: Vec::new(),
            at: origin,
            rot: 0,
            board,
            origin,
            area: rules.board,
            check: None,
        })
    }

    /// Asks the referee whether the placed ships plus the moving one are legal.
    pub(super) fn recheck(&mut self) {
        let Some(me) = self.me else { return };
        let Some(placing) = self.placing.as_mut() else {
            return;
        };
        let mut ships = placing.placed.clone();
        if let Some(id) = placing.fleet.get(placing.placed.len()) {
            ships.push(Placement {
                ship_type: id.clone(),
                at: placing.at,
                rot: placing.rot,
            });
        }
        match &mut self.source {
            Source::Local(local) => {
                placing.check = Some(
                    local
                        .game
                        .check_ships_partial(me, &ships)
                        .map(|_| ())
                        .map_err(|e| words::rule_error(self.lang, &e)),
                );
            }
            Source::Remote(remote) => {
                placing.check = None;
                let frame = ClientFrame::CheckLayout { ships };
                let _ = remote.out.send(frame.to_text());
            }
        }
    }

    /// The cells of the moving ship, from the engine's shape geometry.
    pub fn moving_cells(&self) -> Vec<Cell> {
        let (Some(placing), Some(rules)) = (self.placing.as_ref(), self.rules.as_ref()) else {
            return Vec::new();
        };
        let Some(id) = placing.fleet.get(placing.placed.len()) else {
            return Vec::new();
        };
        let Some(t) = rules.type_index(id) else {
            return Vec::new();
        };
        rules.catalogue[t]
            .shape
            .place(placing.at, placing.rot)
            .into_iter()
            .filter(|&(c, r)| c >= 0 && r >= 0)
            .map(|(c, r)| Cell::new(c as u16, r as u16))
            .collect()
    }

    /// The cells of the ships already laid.
    pub fn placed_cells(&self) -> Vec<Cell> {
        let (Some(placing), Some(rules)) = (self.placing.as_ref(), self.rules.as_ref()) else {
            return Vec::new();
        };
        placing
            .placed
            .iter()
            .filter_map(|p| {
                rules
                    .type_index(&p.ship_type)
                    .map(|t| rules.catalogue[t].shape.place(p.at, p.rot))
            })
            .flatten()
            .filter(|&(c, r)| c >= 0 && r >= 0)
            .map(|(c, r)| Cell::new(c as u16, r as u16))
            .collect()
    }

    /// Keeps the moving ship's bounding box inside the placement area.
    pub(super) fn keep_inside(&mut self) {
        let Some(rules) = self.rules.as_ref() else {
            return;
        };
        let Some(placing) = self.placing.as_mut() else {
            return;
        };
        let Some(id) = placing.fleet.get(placing.placed.len()) else {
            return;
        };
        let Some(t) = rules.type_index(id) else {
            return;
        };
        let shape = rules.catalogue[t].shape.rotated(placing.rot);
        let max_col = placing.origin.col + placing.area.cols.saturating_sub(shape.width());
        let max_row = placing.origin.row + placing.area.rows.saturating_sub(shape.height());
        placing.at = Cell::new(
            placing.at.col.clamp(placing.origin.col, max_col),
            placing.at.row.clamp(placing.origin.row, max_row),
        );
    }

    pub(super) fn placing_key(&mut self, key: KeyEvent) -> KeyResult {
        let me = self.me.ok_or_else(|| self.lang.t("err.not_a_player"))?;
        let Some(placing) = self.placing.as_mut() else {
            return Ok(None);
        };
        let complete = placing.placed.len() == placing.fleet.len();
        match key.code {
            KeyCode::Left | KeyCode::Right | KeyCode::Up | KeyCode::Down if !complete => {
                let (dc, dr): (i32, i32) = match key.code {
                    KeyCode::Left => (-1, 0),
                    KeyCode::Right => (1, 0),
                    KeyCode::Up => (0, -1),
                    _ => (0, 1),
                };
                placing.at = Cell::new(
                    (placing.at.col as i32 + dc).max(0) as u16,
                    (placing.at.row as i32 + dr).max(0) as u16,
                );
            }
            KeyCode::Char('r') | KeyCode::Char('R') if !complete => {
                placing.rot = (placing.rot + 1) % 4
            }
            KeyCode::Backspace | KeyCode::Char('u') => {
                if let Some(last) = placing.placed.pop() {
                    placing.at = last.at;
                    placing.rot = last.rot;
                }
            }
            KeyCode::Char(' ') => {
                let fixed = placing.placed.clone();
                match &mut self.source {
                    Source::Local(local) => {
                        match local.game.random_completion(me, &fixed, &mut local.rng) {
                            Ok(layout) => placing.placed = layout,
                            Err(e) => return Err(words::rule_error(self.lang, &e)),
                        }
                    }
                    Source::Remote(remote) => {
                        let frame = ClientFrame::RandomLayout { fixed };
                        let _ = remote.out.send(frame.to_text());
                    }
                }
                self.recheck();
                return Ok(Some(self.lang.t("tui.placed_at_random")));
            }
            KeyCode::Enter if complete => {
                let ships = placing.placed.clone();
                return self
                    .submit(Command::Place { seat: me, ships })
                    .map(|_| Some(self.lang.t("fleet_ready")));
            }
            KeyCode::Enter => match placing.check.clone() {
                Some(Ok(())) => {
                    if let Some(id) = placing.fleet.get(placing.placed.len()).cloned() {
                        placing.placed.push(Placement {
                            ship_type: id,
                            at: placing.at,
                            rot: placing.rot,
                        });
                    }
                }
                Some(Err(reason)) => {
                    return Err(self.lang.fill("tui.cannot_place", &[("reason", &reason)]))
                }
                None => return Err(self.lang.t("checking")),
            },
            _ => return Ok(None),
        }
        self.keep_inside();
        self.recheck();
        Ok(None)
    }
}
