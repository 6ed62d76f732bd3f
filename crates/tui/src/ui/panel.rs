//! Draws the panels around the boards: the log below them and the side panel
//! (legend, fleets, ships to place, abilities, salvo and cursor notes).

use broadside_engine::{ActionKind, Cell, Mode, Phase, Size};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::widgets::{legend_lines, ship_name, text_width, truncate};
use crate::app::{due, Play};
use crate::words::action_name;

pub(super) fn draw_log(play: &Play, area: Rect, buf: &mut Buffer) {
    if area.height < 2 {
        return;
    }
    let block = Block::new()
        .borders(Borders::TOP)
        .title(format!(" {} ", play.lang.t("tab_log")))
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    block.render(area, buf);
    let count = inner.height as usize;
    let start = play.log.len().saturating_sub(count);
    let lines: Vec<Line> = play.log[start..]
        .iter()
        .map(|l| Line::from(format!(" {l}")))
        .collect();
    Paragraph::new(lines).render(inner, buf);
}

pub(super) fn draw_panel(play: &Play, area: Rect, buf: &mut Buffer) {
    let Some(view) = play.view.as_ref() else {
        return;
    };
    let block = Block::new()
        .borders(Borders::LEFT)
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    block.render(area, buf);
    let lang = play.lang;
    let mut lines: Vec<Line> = vec![Line::from(lang.t("tui.legend")).bold()];
    lines.extend(legend_lines(lang, "", 12));
    lines.push(Line::from(lang.t("tui.panel.fleets")).bold());
    for seat in &view.seats {
        let name = if Some(seat.seat) == play.me {
            lang.t("you")
        } else {
            play.names
                .get(seat.seat)
                .cloned()
                .unwrap_or_else(|| lang.fill("seat_n", &[("n", &(seat.seat + 1))]))
        };
        let style = if !seat.alive {
            Style::new().fg(Color::DarkGray)
        } else if view.to_move.contains(&seat.seat) {
            Style::new().fg(Color::Yellow)
        } else {
            Style::new()
        };
        // The rating beside the name, the name shortened to make room.
        let name = match play.ratings.get(seat.seat).cloned().flatten() {
            Some(rating) => format!(
                "{} {rating}",
                truncate(&name, 14usize.saturating_sub(rating.chars().count()))
            ),
            None => truncate(&name, 15),
        };
        lines.push(
            Line::from(format!(
                "{:<16}{:>3}/{:<3}",
                name, seat.ships_afloat, seat.ships_total
            ))
            .style(style),
        );
    }
    if let Some(placing) = &play.placing {
        lines.push(Line::from(lang.t("tui.panel.to_place")).bold());
        for (i, id) in placing.fleet.iter().enumerate() {
            if i >= placing.placed.len() {
                let marker = if i == placing.placed.len() { ">" } else { " " };
                lines.push(Line::from(format!("{marker} {}", ship_name(play, id))));
            }
        }
        if let Some(Err(reason)) = &placing.check {
            lines.push(Line::from(reason.clone()).fg(Color::LightRed));
        }
    } else if !view.abilities.is_empty() {
        lines.push(Line::from(lang.t("tui.panel.abilities")).bold());
        for (id, ability) in &view.abilities {
            let uses = ability
                .uses_left
                .map(|n| format!(" ×{n}"))
                .unwrap_or_default();
            let state = if ability.ready {
                lang.t("ability_ready")
            } else {
                lang.fill("tui.panel.from_round", &[("n", &ability.next_round)])
            };
            let chosen = play.action.is_some_and(|k| k.id() == id);
            // The name in a column of 16, shortened when the state needs the room.
            let state = format!("{state}{uses}");
            let room = (inner.width as usize).saturating_sub(1 + text_width(&state) + 1);
            let name = truncate(&action_name(lang, id), room.min(15));
            let pad = 16usize.min(room + 1).saturating_sub(text_width(&name));
            let text = format!("{}{name}{:pad$}{state}", if chosen { ">" } else { " " }, "");
            let style = if ability.ready {
                Style::new().fg(Color::Green)
            } else {
                Style::new().fg(Color::DarkGray)
            };
            lines.push(Line::from(text).style(style));
        }
        if play.action == Some(ActionKind::Laser) || play.action == Some(ActionKind::Bombard) {
            let what = if play.action == Some(ActionKind::Laser) {
                if play.laser_end == broadside_engine::End::Top {
                    "tui.panel.laser_top"
                } else {
                    "tui.panel.laser_bottom"
                }
            } else if play.bombard_column {
                "tui.panel.bombard_column"
            } else {
                "tui.panel.bombard_row"
            };
            lines.push(Line::from(lang.t(what)));
        }
    }
    if view.salvo_round && play.me.is_some_and(|me| view.to_move.contains(&me)) {
        if let Some(rules) = play.rules.as_ref() {
            let per = rules.shots_per_opponent;
            lines.push(Line::from(match rules.salvo {
                broadside_engine::SalvoMode::Spread => {
                    lang.fill("tui.panel.salvo_spread", &[("n", &per)])
                }
                broadside_engine::SalvoMode::Focus => {
                    let all = view.legal_targets.as_ref().map_or(0, |t| {
                        t.waters
                            .iter()
                            .filter_map(|w| w.shots_due)
                            .max()
                            .unwrap_or(0)
                    });
                    lang.fill("tui.panel.salvo_focus", &[("n", &all)])
                }
            }));
            if view.mode == Mode::SharedSea {
                lines.push(Line::from(lang.t("tui.panel.blocks_note")));
            }
        }
    }
    // What each opponent's waters need, and what is chosen there: the counts
    // are the engine's (the view's legal targets).
    let dues = due::dues(view, &play.picks);
    for d in &dues {
        let mut text = lang.fill(
            "tui.panel.due",
            &[
                ("waters", &play.waters_name(d)),
                ("k", &d.chosen),
                ("n", &d.due),
            ],
        );
        if d.due > 0 && d.open <= d.due {
            text.push(' ');
            text.push_str(&lang.plural("tui.panel.cells_left", u64::from(d.open), &[]));
        }
        let colour = if d.chosen == d.due {
            Color::Green
        } else {
            Color::Yellow
        };
        lines.push(Line::from(text).fg(colour));
    }
    if !play.picks.is_empty() && dues.is_empty() {
        let chosen = lang.plural("tui.panel.chosen", play.picks.len() as u64, &[]);
        lines.push(Line::from(chosen).fg(Color::Yellow));
    }
    if let Some(rules) = &play.rules {
        let cursor_label = broadside_engine::label(rules.letter_axis, play.cursor);
        if play.placing.is_none() && view.phase == Phase::Battle {
            let ch = view
                .boards
                .get(play.target)
                .map(|b| b.at(play.cursor))
                .unwrap_or(' ');
            let key = if ch == '~' || ch == '!' {
                "tui.panel.cursor_open"
            } else {
                "tui.panel.cursor_known"
            };
            lines.push(Line::from(lang.fill(key, &[("cell", &cursor_label)])));
        }
        for (origin, size) in own_blocks(play) {
            let last = Cell::new(origin.col + size.cols - 1, origin.row + size.rows - 1);
            lines.push(Line::from(lang.fill(
                "tui.panel.own_waters",
                &[
                    ("from", &broadside_engine::label(rules.letter_axis, origin)),
                    ("to", &broadside_engine::label(rules.letter_axis, last)),
                ],
            )));
        }
    }
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(inner, buf);
}

/// The blocks of the shared sea that belong to this seat's team (origin, size).
pub(super) fn own_blocks(play: &Play) -> Vec<(Cell, Size)> {
    let Some(view) = play.view.as_ref() else {
        return Vec::new();
    };
    let (Some(blocks), Some(me)) = (view.blocks.as_ref(), play.me) else {
        return Vec::new();
    };
    let team = view.seats.get(me).map(|s| s.team);
    blocks
        .iter()
        .filter(|b| {
            b.owner
                .is_some_and(|o| view.seats.get(o).map(|s| s.team) == team)
        })
        .map(|b| (b.origin, view.board_size))
        .collect()
}
