//! Draws the panels around the boards: the log below them and the side panel
//! (legend, fleets, ships to place, abilities, salvo and cursor notes).

use broadside_engine::{AbilityView, ActionKind, Cell, Mode, Phase, Size};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::widgets::{legend_lines, ship_name, text_width, truncate, wrap, Mark};
use crate::app::{due, Play};
use crate::words::action_name;

pub(super) fn draw_log(play: &Play, area: Rect, buf: &mut Buffer) {
    if area.height < 2 {
        return;
    }
    let lang = play.lang;
    let count = (area.height - 1) as usize;
    // Scrolled back (PgUp) no further than the oldest page.
    let scroll = play
        .log_scroll
        .get()
        .min(play.log.len().saturating_sub(count));
    play.log_scroll.set(scroll);
    let title = if scroll > 0 {
        let above = play.log.len().saturating_sub(count + scroll);
        format!(
            " {} · {} ",
            lang.t("tab_log"),
            lang.plural("tui.log_scrolled", scroll as u64, &[("above", &above)])
        )
    } else if play.log.len() > count {
        format!(" {} · {} ", lang.t("tab_log"), lang.t("tui.log_older"))
    } else {
        format!(" {} ", lang.t("tab_log"))
    };
    let block = Block::new()
        .borders(Borders::TOP)
        .title(title)
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    block.render(area, buf);
    let end = play.log.len() - scroll;
    let start = end.saturating_sub(count);
    let lines: Vec<Line> = play.log[start..end]
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
    // The terminal's own marks of the moment: the ship being placed, or
    // the cells chosen for a salvo or a volley.
    let extra: &[Mark] = if play.placing.is_some() {
        &[Mark::Fits, Mark::DoesNotFit]
    } else if view.phase == Phase::Battle {
        &[Mark::Chosen]
    } else {
        &[]
    };
    lines.extend(legend_lines(lang, "", 12, extra));
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
        // A seat out of the game with ships still afloat (it resigned) says
        // so in words: "10/10" beside "Your fleet is lost" would lie. A sunk
        // fleet's "0/10" is true as it stands.
        let count = if seat.alive || seat.ships_afloat == 0 {
            format!("{:>3}/{:<3}", seat.ships_afloat, seat.ships_total)
        } else {
            format!(" {}", lang.t("tui.panel.out"))
        };
        lines.push(Line::from(format!("{name:<16}{count}")).style(style));
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
        let width = inner.width as usize;
        for (id, ability) in &view.abilities {
            let chosen = play.action.is_some_and(|k| k.id() == id);
            let style = if ability.ready {
                Style::new().fg(Color::Green)
            } else {
                Style::new().fg(Color::DarkGray)
            };
            let marker = if chosen { ">" } else { " " };
            let state = ability_state(play, ability);
            let name = action_name(lang, id);
            // The name, and its state at the right edge; a name too long for
            // both (Italian "Colpo ad ampio raggio") is wrapped whole, with its
            // state on a line of its own below, so that nothing is cut.
            let used = 1 + text_width(&name) + 1 + text_width(&state);
            if used <= width {
                let pad = 1 + width - used;
                lines.push(Line::from(format!("{marker}{name}{:pad$}{state}", "")).style(style));
            } else {
                for (i, part) in wrap(&name, width.saturating_sub(1)).into_iter().enumerate() {
                    let marker = if i == 0 { marker } else { " " };
                    lines.push(Line::from(format!("{marker}{part}")).style(style));
                }
                let pad = width.saturating_sub(text_width(&state)).max(3);
                lines.push(Line::from(format!("{:pad$}{state}", "")).style(style));
            }
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

/// The state of an ability in words: ready (with the uses left), used up,
/// recharging until a round of the player's own, or out of reach
/// because the ship that carries it is sunk.
fn ability_state(play: &Play, ability: &AbilityView) -> String {
    let lang = play.lang;
    let uses = ability
        .uses_left
        .filter(|&n| n > 0)
        .map(|n| format!(" ×{n}"))
        .unwrap_or_default();
    let round = play.view.as_ref().and_then(|v| v.round).unwrap_or(0);
    let battle = play.view.as_ref().is_some_and(|v| v.phase == Phase::Battle);
    let state = if ability.ready {
        lang.t("ability_ready")
    } else if ability.uses_left == Some(0) {
        // A spent special's next round only follows the clock: no number.
        return lang.t("tui.panel.spent");
    } else if ability.next_round > round {
        lang.fill("tui.panel.recharging", &[("n", &ability.next_round)])
    } else if battle && ability.uses_left.is_none() {
        return lang.t("tui.panel.ship_lost");
    } else {
        lang.t("tui.panel.not_now")
    };
    format!("{state}{uses}")
}
