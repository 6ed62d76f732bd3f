//! Draws the start screens: the main menu, the New Game form and My games.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::widgets::{legend_lines, text_width, wrap, Mark};
use crate::app::{App, Field, Form, StartEntry, MENU, START_ENTRIES};
use crate::i18n::Lang;
use crate::words;

pub(super) fn draw_menu(app: &App, area: Rect, buf: &mut Buffer) {
    let lang = app.lang();
    let mut lines = vec![
        Line::from(""),
        Line::from("  ~ ~ ~  B R O A D S I D E  ~ ~ ~")
            .bold()
            .fg(Color::Cyan),
        Line::from(format!("  {}", lang.t("tui.tagline"))).fg(Color::Gray),
        Line::from(""),
    ];
    for (i, entry) in MENU.iter().map(|&key| lang.t(key)).enumerate() {
        let line = if i == app.menu {
            Line::from(format!("  > {entry}")).style(Style::new().fg(Color::Black).bg(Color::White))
        } else {
            Line::from(format!("    {entry}"))
        };
        lines.push(line);
    }
    lines.push(Line::from(""));
    lines.push(Line::from(format!("  {}", lang.t("tui.legend"))).bold());
    lines.extend(legend_lines(
        lang,
        "  ",
        15,
        &[Mark::Fits, Mark::DoesNotFit, Mark::Chosen],
    ));
    Paragraph::new(lines).render(area, buf);
}

pub(super) fn draw_form(form: &Form, online: bool, lang: Lang, area: Rect, buf: &mut Buffer) {
    let mut lines = vec![Line::from("")];
    let fields = form.fields();
    // The labels' column: as wide as the widest label of the form.
    let column = fields
        .iter()
        .map(|&field| text_width(&Form::label(field, lang)))
        .max()
        .unwrap_or(0)
        + 2;
    for (i, field) in fields.into_iter().enumerate() {
        let text = if field == Field::Start && online {
            format!("  [ {} ]", lang.t("tui.create_room"))
        } else if matches!(field, Field::Start | Field::QuickMatch | Field::Leaderboard) {
            format!("  [ {} ]", Form::label(field, lang))
        } else {
            let label = Form::label(field, lang);
            let pad = column.saturating_sub(text_width(&label));
            format!("  {label}{:pad$}< {} >", "", form.value(field, lang))
        };
        let line = if i == form.selected {
            Line::from(text).style(Style::new().fg(Color::Black).bg(Color::White))
        } else {
            Line::from(text)
        };
        lines.push(line);
    }
    lines.push(Line::from(""));
    let mut notes = vec![
        lang.t(&format!("preset_blurb.{}", form.preset.id())),
        if online {
            lang.t("tui.form.host_seats")
        } else if form.people > 1 {
            lang.fill("tui.form.hot_seat_seats", &[("n", &form.people)])
        } else {
            lang.t("tui.form.bot_seats")
        },
    ];
    if online {
        let preset = words::preset_name(lang, form.preset.id());
        notes.push(lang.fill("tui.quick_match_hint", &[("preset", &preset)]));
    }
    // Notes wrap under their indent rather than run off the screen.
    let width = (area.width as usize).saturating_sub(3);
    for note in notes {
        for part in wrap(&note, width) {
            lines.push(Line::from(format!("  {part}")).fg(Color::Gray));
        }
    }
    Paragraph::new(lines).render(area, buf);
}

pub(super) fn draw_my_games(app: &App, area: Rect, buf: &mut Buffer) {
    let lang = app.lang();
    let mut lines = vec![
        Line::from(""),
        Line::from(format!("  {}", lang.t("tui.unfinished_heading"))).bold(),
        Line::from(""),
    ];
    for (i, game) in app.my_games.iter().enumerate() {
        let turn = if game.your_turn {
            format!(" · {}", lang.t("your_turn_short"))
        } else {
            String::new()
        };
        let phase = words::phase_name(lang, &game.phase);
        let versus = lang.fill("tui.versus", &[("names", &game.opponents)]);
        let line = Line::from(format!(
            "  {} {} · {} · {phase} · {versus}{turn}",
            if i == app.my_game { '>' } else { ' ' },
            game.code,
            words::preset_name(lang, &game.preset),
        ));
        lines.push(if i == app.my_game {
            line.style(Style::new().fg(Color::Black).bg(Color::Cyan))
        } else {
            line
        });
    }
    lines.push(Line::from(""));
    for (k, entry) in START_ENTRIES.iter().enumerate() {
        let chosen = app.my_game == app.my_games.len() + k;
        let text = match entry {
            StartEntry::NewRoom => lang.t("tui.new_room"),
            StartEntry::QuickMatch => format!(
                "{} ({})",
                lang.t("tui.quick_match"),
                words::preset_name(lang, app.form.preset.id())
            ),
            StartEntry::Leaderboard => lang.t("leaderboard"),
        };
        let line = Line::from(format!("  {} {text}", if chosen { '>' } else { ' ' }));
        lines.push(if chosen {
            line.style(Style::new().fg(Color::Black).bg(Color::Cyan))
        } else {
            line
        });
    }
    Paragraph::new(lines).render(area, buf);
}
