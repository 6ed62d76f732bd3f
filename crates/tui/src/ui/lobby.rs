//! Draws the online waiting screens: the quick match, the leaderboard and the
//! lobby of a room.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::widgets::{text_width, truncate};
use crate::app::{App, Play, Source};
use crate::words;

/// The quick-match waiting screen: the preset, how many wait, the time
/// waited, and the bot on offer.
pub(super) fn draw_matching(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(matching) = app.matching.as_ref() else {
        return;
    };
    let lang = app.lang();
    let preset = words::preset_name(lang, matching.preset.id());
    let mut lines = vec![
        Line::from(""),
        Line::from(format!("  {} · {preset}", lang.t("tui.quick_match"))).bold(),
        Line::from(""),
    ];
    match matching.waiting {
        None => lines.push(Line::from(format!("  {}", lang.t("tui.asking")))),
        Some(waiting) => {
            lines.push(Line::from(format!("  {}", lang.t("matching_title"))));
            let players = lang.plural("waiting_n", waiting, &[]);
            lines.push(Line::from(format!(
                "  {}",
                lang.fill(
                    "tui.waiting_for",
                    &[("preset", &preset), ("players", &players)]
                )
            )));
        }
    }
    let seconds = matching.since.elapsed().as_secs();
    lines.push(Line::from(format!(
        "  {}: {}:{:02}",
        lang.t("matching_waited"),
        seconds / 60,
        seconds % 60
    )));
    lines.push(Line::from(""));
    match (&matching.bot_offer, matching.bot_offer_ms) {
        (Some(level), _) => {
            let level = words::level_name(lang, level).to_lowercase();
            let offer = lang.fill("tui.play_bot_instead", &[("level", &level)]);
            lines.push(Line::from(format!("  {offer}")).bold().fg(Color::Yellow))
        }
        (None, Some(ms)) => {
            let time = format!("{} s", ms / 1000);
            let when = lang.fill("bot_offer_in", &[("time", &time)]);
            lines.push(Line::from(format!("  {when}")).fg(Color::Gray))
        }
        (None, None) => {}
    }
    lines.push(Line::from(""));
    lines.push(Line::from(format!("  {}", lang.t("tui.esc_cancel"))));
    Paragraph::new(lines).render(area, buf);
}

/// The leaderboard of one preset: rank, nickname, rating (`?` provisional),
/// games and wins, with the presets as tabs above.
pub(super) fn draw_leaderboard(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(board) = app.leaderboard.as_ref() else {
        return;
    };
    let lang = app.lang();
    let preset = words::preset_name(lang, board.preset.id());
    let mut tabs = vec![Span::raw("  ")];
    for p in broadside_engine::Preset::ALL {
        let style = if p == board.preset {
            Style::new().fg(Color::Black).bg(Color::Cyan)
        } else {
            Style::new().fg(Color::Gray)
        };
        tabs.push(Span::styled(
            format!(" {} ", words::preset_name(lang, p.id())),
            style,
        ));
        tabs.push(Span::raw(" "));
    }
    let mut lines = vec![
        Line::from(""),
        Line::from(format!("  {} · {preset}", lang.t("leaderboard"))).bold(),
        Line::from(tabs),
        Line::from(""),
    ];
    let columns = [
        lang.t("lb_rank"),
        lang.t("lb_player"),
        lang.t("rating"),
        lang.t("lb_games"),
        lang.t("lb_wins"),
    ];
    // Each column as wide as its heading, and at least as wide as its numbers.
    let widths: Vec<usize> = columns
        .iter()
        .zip([4, 24, 7, 5, 5])
        .map(|(heading, least)| text_width(heading).max(least))
        .collect();
    let row = |cells: [&str; 5]| {
        let mut text = String::from(" ");
        for (i, (cell, &width)) in cells.iter().zip(&widths).enumerate() {
            let pad = width.saturating_sub(text_width(cell));
            // The player's name to the left, the numbers to the right.
            if i == 1 {
                text.push_str(&format!(" {cell}{:pad$} ", ""));
            } else {
                text.push_str(&format!(" {:pad$}{cell} ", ""));
            }
        }
        text.trim_end().to_string()
    };
    match &board.players {
        None => lines.push(Line::from(format!("  {}", lang.t("tui.asking")))),
        Some(players) if players.is_empty() => lines.push(Line::from(format!(
            "  {}",
            lang.fill("leaderboard_empty", &[("preset", &preset)])
        ))),
        Some(players) => {
            lines.push(Line::from(row(columns.each_ref().map(String::as_str))).bold());
            // Room for the rows between the header and the footnote.
            let room = (area.height as usize).saturating_sub(lines.len() + 2);
            let first = board.scroll.min(players.len().saturating_sub(1));
            for (i, player) in players.iter().enumerate().skip(first).take(room) {
                let mut rating = words::rating(player.rating, player.provisional);
                if !player.provisional {
                    rating.push(' ');
                }
                lines.push(Line::from(row([
                    &(i + 1).to_string(),
                    &truncate(&player.nickname, 24),
                    &rating,
                    &player.games.to_string(),
                    &player.wins.to_string(),
                ])));
            }
            if players.iter().any(|p| p.provisional) {
                lines.push(Line::from(""));
                lines.push(Line::from(format!("  {}", lang.t("provisional_note"))).fg(Color::Gray));
            }
        }
    }
    Paragraph::new(lines).render(area, buf);
}

pub(super) fn draw_lobby(app: &App, area: Rect, buf: &mut Buffer) {
    let lang = app.lang();
    let mut lines = vec![Line::from("")];
    let room = app.play.as_ref().and_then(|p| match &p.source {
        Source::Remote(remote) => remote.room.as_ref(),
        Source::Local(_) => None,
    });
    match room {
        None => lines.push(Line::from(format!("  {}", lang.t("tui.waiting_server")))),
        Some(room) => {
            let code = room.code.as_str();
            let preset = words::preset_name(lang, room.preset.id());
            let heading = lang.fill("tui.room", &[("code", &code), ("preset", &preset)]);
            lines.push(Line::from(format!("  {heading}")).bold());
            if let Some(server) = &app.config.server {
                let base = server.trim_end_matches('/').trim_end_matches("/ws");
                let link = format!("{base}/r/{code}");
                let invite = lang.fill("tui.invite_link", &[("link", &link)]);
                lines.push(Line::from(format!("  {invite}")));
            }
            lines.push(Line::from(""));
            let play = app.play.as_ref();
            for (i, seat) in room.seats.iter().enumerate() {
                let name = play
                    .and_then(|p| p.names.get(i))
                    .cloned()
                    .unwrap_or_default();
                let connected = seat.connected;
                let you = play.and_then(|p| p.me) == Some(i);
                let rating = play
                    .and_then(|p| p.ratings.get(i).cloned().flatten())
                    .map(|r| format!(" {r}"))
                    .unwrap_or_default();
                let you = if you {
                    format!(" ({})", lang.t("you").to_lowercase())
                } else {
                    String::new()
                };
                let here = connected || seat.kind == broadside_protocol::SeatKind::Bot;
                let away = if here {
                    String::new()
                } else {
                    format!(" – {}", lang.t("away"))
                };
                let ready = if seat.ready && seat.kind == broadside_protocol::SeatKind::Person {
                    format!(" ✓ {}", lang.t("lobby_ready"))
                } else {
                    String::new()
                };
                let seat = lang.fill("seat_n", &[("n", &(i + 1))]);
                lines.push(Line::from(format!(
                    "  {seat}: {name}{rating}{you}{away}{ready}"
                )));
            }
            lines.push(Line::from(""));
            if room.same_address {
                lines.push(Line::from(format!("  {}", lang.t("same_address"))).yellow());
            }
            let host = play.is_some_and(Play::is_host);
            let next = if host {
                lang.t("tui.you_host")
            } else {
                lang.t("waiting_for_host")
            };
            lines.push(Line::from(format!("  {next}")));
            if !host {
                let ready = match play.and_then(Play::my_lobby_ready) {
                    Some(false) => Some(lang.t("tui.ready_hint")),
                    Some(true) => Some(lang.t("tui.ready_waiting")),
                    None => None,
                };
                if let Some(ready) = ready {
                    lines.push(Line::from(format!("  {ready}")));
                }
            }
        }
    }
    Paragraph::new(lines).render(area, buf);
}
