//! Draws the shop: the ship types with their cells, price, limit and special,
//! how many are bought, and the cost against the credits.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::widgets::text_width;
use crate::app::Play;
use crate::words::{self, action_name};

pub(super) fn draw_shop(play: &Play, shop: &crate::app::Shop, area: Rect, buf: &mut Buffer) {
    let Some(rules) = play.rules.as_ref() else {
        return;
    };
    let lang = play.lang;
    let mut lines = vec![
        Line::from(format!("  {}", lang.t("tui.shop.title"))).bold(),
        Line::from(""),
    ];
    let mut cost = 0;
    // One row of cells per ship type; the columns as wide as their widest cell.
    let rows: Vec<Vec<String>> = rules
        .catalogue
        .iter()
        .map(|ship| {
            let count = shop.counts.get(&ship.id).copied().unwrap_or(0);
            cost += count * ship.price;
            vec![
                words::ship_name(lang, rules, &ship.id),
                lang.plural("tui.shop.cells", ship.shape.len() as u64, &[]),
                lang.fill("tui.shop.price", &[("n", &ship.price)]),
                lang.fill("tui.shop.limit", &[("n", &ship.limit)]),
                if ship.capital {
                    lang.t("tui.shop.capital")
                } else {
                    String::new()
                },
                ship.ability
                    .map(|a| action_name(lang, a.id()))
                    .unwrap_or_default(),
                format!("× {count}"),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..7)
        .map(|column| {
            rows.iter()
                .map(|row| text_width(&row[column]))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let mut text = String::from(" ");
        for (cell, &width) in row.iter().zip(&widths) {
            let pad = width.saturating_sub(text_width(cell));
            text.push_str(&format!(" {cell}{:pad$} ", ""));
        }
        let line = Line::from(text.trim_end().to_string());
        lines.push(if i == shop.selected {
            line.style(Style::new().fg(Color::Black).bg(Color::White))
        } else {
            line
        });
    }
    lines.push(Line::from(""));
    let style = if cost > rules.credits {
        Style::new().fg(Color::LightRed)
    } else {
        Style::new().fg(Color::Green)
    };
    let total = lang.fill(
        "tui.shop.cost",
        &[("cost", &cost), ("credits", &rules.credits)],
    );
    lines.push(Line::from(format!("  {total}")).style(style));
    Paragraph::new(lines).render(area, buf);
}
