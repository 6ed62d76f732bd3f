//! Draws a game on screen: the boards of placement and battle with their
//! overlays (the moving ship, picks, previews, own blocks), laid out beside
//! the side panel and above the log; the shop in its phase.

use broadside_engine::{Cell, Mode};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Stylize;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::board::{board_dims, board_extent, draw_board, BoardSpec};
use super::panel::{draw_log, draw_panel, own_blocks};
use super::shop::draw_shop;
use super::widgets::{cell_style, Mark};
use crate::app::Play;

/// Width of the side panel (legend, fleets, abilities).
const PANEL: u16 = 27;

/// Draws a game; returns whether only one board fitted.
pub(super) fn draw_play(play: &Play, area: Rect, buf: &mut Buffer) -> bool {
    let lang = play.lang;
    let Some(view) = play.view.as_ref() else {
        Paragraph::new(format!("  {}", lang.t("tui.waiting_game"))).render(area, buf);
        return false;
    };
    if let Some(shop) = &play.shop {
        draw_shop(play, shop, area, buf);
        return false;
    }
    let axis = view.letter_axis;
    let own = play
        .me
        .filter(|&me| view.mode != Mode::SharedSea && me < view.boards.len());
    let name_of = |seat: usize| {
        play.names
            .get(seat)
            .cloned()
            .unwrap_or_else(|| lang.fill("seat_n", &[("n", &(seat + 1))]))
    };
    let mut specs: Vec<BoardSpec> = Vec::new();
    if let Some(placing) = &play.placing {
        let board = &view.boards[placing.board];
        let mut overlays: Vec<(Cell, char, Style)> = play
            .placed_cells()
            .into_iter()
            .map(|c| (c, '*', Style::new().fg(Color::Black).bg(Color::Gray)))
            .collect();
        // The moving ship is the cursor of placement: its own cells, "@" on
        // green where it fits, "x" on red where it does not (the shape tells
        // without colour), "@" on yellow while the server has not answered.
        // Its anchor is no cell of its own (a rotated seaplane's corner is
        // water), and once the fleet is complete nothing moves, so nothing
        // else is marked.
        let (glyph, style) = match placing.check {
            Some(Ok(())) => (Mark::Fits.glyph(), Mark::Fits.style()),
            Some(Err(_)) => (Mark::DoesNotFit.glyph(), Mark::DoesNotFit.style()),
            None => (
                Mark::Fits.glyph(),
                Style::new()
                    .fg(Color::Black)
                    .bg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ),
        };
        overlays.extend(play.moving_cells().into_iter().map(|c| (c, glyph, style)));
        specs.push(BoardSpec {
            title: lang.t("your_waters"),
            board,
            axis,
            // Scroll the view to the moving ship.
            focus: placing.at,
            cursor: None,
            overlays,
            active: true,
        });
    } else {
        let target = play.target.min(view.boards.len().saturating_sub(1));
        // In the shared sea, the own team's blocks are shaded: they are no target.
        let mut overlays: Vec<(Cell, char, Style)> = own_blocks(play)
            .into_iter()
            .flat_map(|(origin, size)| {
                size.cells()
                    .map(move |c| Cell::new(origin.col + c.col, origin.row + c.row))
            })
            .map(|cell| {
                let ch = view.boards[target].at(cell);
                (cell, ch, cell_style(ch).bg(Color::Indexed(236)))
            })
            .collect();
        overlays.extend(
            play.picks
                .iter()
                .filter(|t| t.board == target)
                .map(|t| (t.at, Mark::Chosen.glyph(), Mark::Chosen.style())),
        );
        if let Some(kind) = play.action {
            let size = board_dims(&view.boards[target]);
            // The engine says which cells an action covers; whether a nuke
            // explodes is its to decide when the action is sent.
            for cell in broadside_engine::action_area(&play.build_action(kind, false), size) {
                let ch = view.boards[target].at(cell);
                overlays.push((cell, ch, cell_style(ch).bg(Color::Magenta)));
            }
        }
        if let Some(pick) = &play.reserve {
            overlays.extend(
                pick.cells
                    .iter()
                    .map(|&c| (c, '^', Style::new().fg(Color::Black).bg(Color::Green))),
            );
        }
        if let Some(action) = &play.salvo_action {
            if action.board() == Some(target) {
                overlays.push((
                    play.cursor,
                    '@',
                    Style::new().fg(Color::Black).bg(Color::Magenta),
                ));
            }
        }
        let target_title = match view.mode {
            Mode::SharedSea => lang.t("shared_sea"),
            _ if Some(target) == own => lang.t("your_waters"),
            _ => lang.fill("board_of", &[("name", &name_of(target))]),
        };
        if let Some(me) = own {
            if target != me {
                specs.push(BoardSpec {
                    title: lang.t("your_waters"),
                    board: &view.boards[me],
                    axis,
                    focus: Cell::new(0, 0),
                    cursor: None,
                    overlays: Vec::new(),
                    active: false,
                });
            }
        }
        specs.push(BoardSpec {
            title: target_title,
            board: &view.boards[target],
            axis,
            focus: play.cursor,
            cursor: Some(play.cursor),
            overlays,
            active: true,
        });
    }

    // The panel needs room; a narrow terminal gives it to the boards.
    let panel_width = if area.width >= 64 { PANEL } else { 0 };
    let [main, panel_area] =
        Layout::horizontal([Constraint::Min(10), Constraint::Length(panel_width)]).areas(area);
    // Boards side by side if they fit with two-character cells, else with
    // one-character cells, else one board at a time (`v` toggles).
    let fits = |specs: &[&BoardSpec], cell_width: u16| {
        let width: u16 = specs
            .iter()
            .map(|s| board_extent(s.board, axis, cell_width).0 + 2)
            .sum();
        width <= main.width
    };
    let all: Vec<&BoardSpec> = specs.iter().collect();
    let several = all.len() > 1;
    let (shown, cell_width): (Vec<&BoardSpec>, u16) = if fits(&all, 2) {
        (all, 2)
    } else if fits(&all, 1) {
        (all, 1)
    } else {
        let one = if play.own_shown {
            all[0]
        } else {
            all[all.len() - 1]
        };
        (vec![one], if fits(&[one], 2) { 2 } else { 1 })
    };
    let board_height = shown
        .iter()
        .map(|s| board_extent(s.board, axis, cell_width).1)
        .max()
        .unwrap_or(0);
    let log_min = 3;
    let boards_height = board_height
        .min(main.height.saturating_sub(log_min))
        .max(4.min(main.height));
    let [boards_area, log_area] =
        Layout::vertical([Constraint::Length(boards_height), Constraint::Min(0)]).areas(main);
    let mut x = boards_area.x;
    for (i, spec) in shown.iter().enumerate() {
        let room = boards_area.right().saturating_sub(x);
        // The last board may use the rest of the row, so a long title fits.
        let width = if i + 1 == shown.len() {
            room
        } else {
            (board_extent(spec.board, axis, cell_width).0 + 2).min(room)
        };
        let rect = Rect::new(
            x + 1,
            boards_area.y,
            width.saturating_sub(1),
            boards_area.height,
        );
        draw_board(spec, cell_width, lang, rect, buf);
        x += width;
    }
    draw_log(play, log_area, buf);
    if panel_area.width > 0 {
        draw_panel(play, panel_area, buf);
    }
    several && shown.len() == 1
}

/// Hot-seat, between turns: every board hidden, and whose turn it is now.
pub(super) fn draw_handover(play: &Play, area: Rect, buf: &mut Buffer) {
    let lang = play.lang;
    let Some(seat) = play.handover else {
        return;
    };
    let name = play
        .names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| lang.fill("seat_n", &[("n", &(seat + 1))]));
    let lines = vec![
        Line::from(""),
        Line::from(""),
        Line::from(format!(
            "  {}",
            lang.fill("tui.pass_to", &[("name", &name)])
        ))
        .bold(),
        Line::from(""),
        Line::from(format!("  {}", lang.t("tui.pass_hidden"))),
        Line::from(""),
        Line::from(format!(
            "  {}",
            lang.fill("tui.pass_enter", &[("name", &name)])
        )),
    ];
    Paragraph::new(lines)
        .wrap(ratatui::widgets::Wrap { trim: false })
        .render(area, buf);
}
