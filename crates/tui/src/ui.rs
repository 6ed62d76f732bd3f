//! Drawing: `impl Widget for &App`. Everything here reads the app's state and
//! the seat's view; nothing here changes them.

use broadside_engine::geometry::letters;
use broadside_engine::{ActionKind, BoardView, Cell, LetterAxis, Mode, Phase, Size};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use crate::app::{App, Field, Form, Play, Screen, Source, StartEntry, MENU, START_ENTRIES};
use crate::i18n::Lang;
use crate::words::{self, action_name, LEGEND};

/// Width of the side panel (legend, fleets, abilities).
const PANEL: u16 = 27;

/// The colour of a cell character of the canonical view. Shapes differ
/// too, so colour is never the only cue.
pub fn cell_style(ch: char) -> Style {
    match ch {
        '~' => Style::new().fg(Color::Blue),
        '*' => Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
        'X' => Style::new()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD),
        '?' => Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
        '#' => Style::new().fg(Color::Black).bg(Color::Red),
        'O' => Style::new().fg(Color::Cyan),
        '.' => Style::new().fg(Color::DarkGray),
        '-' => Style::new().fg(Color::Gray),
        '!' => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        '+' => Style::new().fg(Color::Yellow),
        '=' => Style::new().fg(Color::DarkGray),
        _ => Style::new(),
    }
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let lang = self.lang();
        Clear.render(area, buf);
        if area.width < 20 || area.height < 8 {
            Paragraph::new(lang.t("tui.too_small")).render(area, buf);
            return;
        }
        let [top, body, notice_line, help] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let keys = |hints: &[&str]| fit_keys(lang, hints, area.width);
        let (title, keys) = match self.screen {
            Screen::Menu => {
                draw_menu(self, body, buf);
                (
                    lang.t("app_name"),
                    keys(&[
                        "tui.hint.choose",
                        "tui.hint.select",
                        "tui.hint.new_game",
                        "tui.hint.load",
                    ]),
                )
            }
            Screen::NewGame => {
                draw_form(&self.form, self.online(), lang, body, buf);
                if self.online() {
                    (
                        titled(lang, "tui.new_online_room"),
                        keys(&[
                            "tui.hint.field",
                            "tui.hint.change",
                            "tui.hint.start",
                            "tui.hint.quick_match",
                            "tui.hint.leaderboard",
                        ]),
                    )
                } else {
                    (
                        titled(lang, "tui.new_game"),
                        keys(&[
                            "tui.hint.field",
                            "tui.hint.change",
                            "tui.hint.start",
                            "tui.hint.back",
                        ]),
                    )
                }
            }
            Screen::MyGames => {
                draw_my_games(self, body, buf);
                (
                    titled(lang, "my_games"),
                    keys(&[
                        "tui.hint.choose",
                        "tui.hint.select",
                        "tui.hint.quick_match",
                        "tui.hint.leaderboard",
                        "tui.hint.new_room",
                    ]),
                )
            }
            Screen::Matching => {
                draw_matching(self, body, buf);
                let offer = self
                    .matching
                    .as_ref()
                    .is_some_and(|m| m.bot_offer.is_some());
                let hints: &[&str] = if offer {
                    &["tui.hint.cancel", "tui.hint.bot"]
                } else {
                    &["tui.hint.cancel"]
                };
                (titled(lang, "tui.quick_match"), keys(hints))
            }
            Screen::Leaderboard => {
                draw_leaderboard(self, body, buf);
                (
                    titled(lang, "leaderboard"),
                    keys(&["tui.hint.preset", "tui.hint.scroll", "tui.hint.back"]),
                )
            }
            Screen::Lobby => {
                draw_lobby(self, body, buf);
                (
                    titled(lang, "tui.online_room"),
                    keys(&["tui.hint.host_start"]),
                )
            }
            Screen::Play => match self.play.as_ref() {
                Some(play) => {
                    let single = draw_play(play, body, buf);
                    (status_text(play), help_text(play, single, area.width))
                }
                None => (String::new(), String::new()),
            },
        };
        // A title too long for the screen gives up the program's name first.
        let prefix = format!("{} · ", lang.t("app_name"));
        let title = match title.strip_prefix(&prefix) {
            Some(rest) if text_width(&title) + 1 > area.width as usize => rest.to_string(),
            _ => title,
        };
        Paragraph::new(
            Line::from(format!(" {title}")).style(Style::new().fg(Color::Black).bg(Color::Cyan)),
        )
        .render(top, buf);
        if let Some(notice) = &self.notice {
            let style = if notice.error {
                Style::new().fg(Color::LightRed)
            } else {
                Style::new().fg(Color::Green)
            };
            Paragraph::new(Line::from(format!(" {}", notice.text)).style(style))
                .render(notice_line, buf);
        }
        match &self.prompt {
            Some(prompt) => {
                let text = if prompt.kind.is_question() {
                    prompt.kind.question(lang)
                } else {
                    format!("{}{}█", prompt.kind.question(lang), prompt.text)
                };
                Paragraph::new(
                    Line::from(format!(" {text}"))
                        .style(Style::new().fg(Color::Black).bg(Color::Yellow)),
                )
                .render(help, buf);
            }
            None => {
                Paragraph::new(Line::from(format!(" {keys}")).style(Style::new().fg(Color::Gray)))
                    .render(help, buf);
            }
        }
        if self.show_keys {
            draw_keys(lang, &self.keys_scroll, body, buf);
        }
    }
}

/// "Broadside · <the screen>".
fn titled(lang: Lang, key: &str) -> String {
    format!("{} · {}", lang.t("app_name"), lang.t(key))
}

fn draw_menu(app: &App, area: Rect, buf: &mut Buffer) {
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
    lines.extend(legend_lines(lang, "  ", 15));
    Paragraph::new(lines).render(area, buf);
}

/// The legend, two marks a row when every meaning fits `width` columns,
/// else one a row.
fn legend_lines(lang: Lang, indent: &str, width: usize) -> Vec<Line<'static>> {
    let marks: Vec<(char, String)> = LEGEND.iter().map(|&(ch, key)| (ch, lang.t(key))).collect();
    let narrow = marks.iter().all(|(_, m)| text_width(m) + 2 <= width);
    marks
        .chunks(if narrow { 2 } else { 1 })
        .map(|pair| {
            let mut spans = vec![Span::raw(indent.to_string())];
            for (ch, meaning) in pair {
                spans.push(Span::styled(ch.to_string(), cell_style(*ch)));
                let pad = width.saturating_sub(2 + text_width(meaning));
                spans.push(Span::raw(format!(" {meaning}{:pad$} ", "")));
            }
            Line::from(spans)
        })
        .collect()
}

fn draw_form(form: &Form, online: bool, lang: Lang, area: Rect, buf: &mut Buffer) {
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
        lang.t(if online {
            "tui.form.host_seats"
        } else {
            "tui.form.bot_seats"
        }),
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

fn draw_my_games(app: &App, area: Rect, buf: &mut Buffer) {
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

/// The quick-match waiting screen: the preset, how many wait, the time
/// waited, and the bot on offer.
fn draw_matching(app: &App, area: Rect, buf: &mut Buffer) {
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
fn draw_leaderboard(app: &App, area: Rect, buf: &mut Buffer) {
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

fn draw_lobby(app: &App, area: Rect, buf: &mut Buffer) {
    let lang = app.lang();
    let mut lines = vec![Line::from("")];
    let room = app.play.as_ref().and_then(|p| match &p.source {
        Source::Remote(remote) => remote.room.as_ref(),
        Source::Local(_) => None,
    });
    match room {
        None => lines.push(Line::from(format!("  {}", lang.t("tui.waiting_server")))),
        Some(room) => {
            let code = room.get("code").and_then(|c| c.as_str()).unwrap_or("?");
            let preset = room.get("preset").and_then(|c| c.as_str()).unwrap_or("?");
            let preset = words::preset_name(lang, preset);
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
            for (i, seat) in room
                .get("seats")
                .and_then(|s| s.as_array())
                .into_iter()
                .flatten()
                .enumerate()
            {
                let name = play
                    .and_then(|p| p.names.get(i))
                    .cloned()
                    .unwrap_or_default();
                let connected = seat
                    .get("connected")
                    .and_then(|c| c.as_bool())
                    .unwrap_or(false);
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
                let here = connected || seat.get("kind").and_then(|k| k.as_str()) == Some("bot");
                let away = if here {
                    String::new()
                } else {
                    format!(" – {}", lang.t("away"))
                };
                let seat = lang.fill("seat_n", &[("n", &(i + 1))]);
                lines.push(Line::from(format!("  {seat}: {name}{rating}{you}{away}")));
            }
            lines.push(Line::from(""));
            let host = play.is_some_and(Play::is_host);
            let next = if host {
                lang.t("tui.you_host")
            } else {
                lang.t("waiting_for_host")
            };
            lines.push(Line::from(format!("  {next}")));
        }
    }
    Paragraph::new(lines).render(area, buf);
}

/// The status line: phase, whose turn, round.
fn status_text(play: &Play) -> String {
    let lang = play.lang;
    let Some(view) = play.view.as_ref() else {
        return titled(lang, "tui.waiting_game");
    };
    let name = |seat: usize| {
        if Some(seat) == play.me {
            lang.t("you").to_lowercase()
        } else {
            play.names
                .get(seat)
                .cloned()
                .unwrap_or_else(|| lang.fill("seat_n", &[("n", &(seat + 1))]))
        }
    };
    let names = |seats: &[usize]| {
        let names: Vec<String> = seats.iter().map(|&s| name(s)).collect();
        lang.list(&names)
    };
    let my_move = play.me.is_some_and(|me| view.to_move.contains(&me));
    let what = match view.phase {
        Phase::Shop if my_move => lang.t("tui.status.shop"),
        Phase::Placement if my_move => match &play.placing {
            Some(p) if p.placed.len() < p.fleet.len() => lang.fill(
                "tui.status.placing",
                &[
                    ("k", &(p.placed.len() + 1)),
                    ("n", &p.fleet.len()),
                    ("ship", &ship_name(play, &p.fleet[p.placed.len()])),
                ],
            ),
            _ => lang.t("tui.status.placed"),
        },
        Phase::Shop | Phase::Placement => lang.t("tui.status.waiting_others"),
        Phase::Battle if view.salvo_round => lang.t(if my_move {
            "tui.status.salvo_aim"
        } else {
            "tui.status.salvo_sent"
        }),
        Phase::Battle if my_move => {
            if view.mode == Mode::SharedSea {
                lang.t("tui.status.fire_at_sea")
            } else {
                lang.fill("tui.status.fire_at", &[("name", &name(play.target))])
            }
        }
        Phase::Battle => lang.fill("tui.status.turn_of", &[("names", &names(&view.to_move))]),
        Phase::Finished => match &view.winner {
            _ if view.draw => lang.t("tui.status.draw"),
            Some(w) if play.me.is_some_and(|me| w.contains(&me)) => lang.t("tui.status.you_win"),
            Some(w) => lang.fill("tui.status.won", &[("names", &names(w))]),
            None => lang.t("tui.status.over"),
        },
    };
    let round = view
        .round
        .filter(|&r| r > 0)
        .map(|r| format!(" · {}", lang.fill("tui.status.round", &[("n", &r)])))
        .unwrap_or_default();
    let clock = match &play.source {
        Source::Remote(remote) if view.phase != Phase::Finished => remote
            .deadline
            .map(|d| {
                let left = d
                    .saturating_duration_since(std::time::Instant::now())
                    .as_secs();
                format!(
                    " · {}",
                    lang.fill("tui.status.seconds_left", &[("n", &left)])
                )
            })
            .unwrap_or_default(),
        _ => String::new(),
    };
    format!(
        "{} · {}{round} · {what}{clock}",
        lang.t("app_name"),
        words::preset_name(lang, view.preset.id())
    )
}

fn ship_name(play: &Play, id: &str) -> String {
    match play.rules.as_ref() {
        Some(rules) => words::ship_name(play.lang, rules, id),
        None => id.to_string(),
    }
}

/// The keys of the moment; `single` says whether only one board fits.
fn help_text(play: &Play, single: bool, width: u16) -> String {
    let Some(view) = play.view.as_ref() else {
        return play.lang.t("tui.hint.leave");
    };
    // The keys of the moment, most useful first; what does not fit the line is
    // left to the `?` overlay.
    let mut keys: Vec<&str> = Vec::new();
    if play.shop.is_some() {
        keys.extend([
            "tui.hint.ship",
            "tui.hint.count",
            "tui.hint.default_fleet",
            "tui.hint.buy",
            "tui.hint.clear",
        ]);
    } else if play.placing.is_some() {
        keys.extend([
            "tui.hint.move",
            "tui.hint.rotate",
            "tui.hint.place",
            "tui.hint.random",
            "tui.hint.undo",
            "tui.hint.save",
        ]);
    } else if play.reserve.is_some() {
        keys.extend([
            "tui.hint.choose_cells",
            "tui.hint.mark",
            "tui.hint.send",
            "tui.hint.random_cells",
            "tui.hint.cancel",
        ]);
    } else if view.phase == Phase::Battle {
        keys.extend(["tui.hint.fire", "tui.hint.aim", "tui.hint.label"]);
        if view.salvo_round || play.rules.as_ref().is_some_and(|r| r.per_volley()) {
            keys.push("tui.hint.send");
        }
        if !view.abilities.is_empty() {
            keys.push("tui.hint.ability");
        }
        if play.target_boards().len() > 1 {
            keys.push("tui.hint.board");
        }
        if single {
            keys.push("tui.hint.view");
        }
        keys.push(if matches!(play.source, Source::Remote(_)) {
            "tui.hint.chat"
        } else {
            "tui.hint.save"
        });
        keys.push("tui.hint.resign");
    } else if view.phase == Phase::Finished {
        let again = if matches!(play.source, Source::Remote(_)) {
            "tui.hint.rematch"
        } else {
            "tui.hint.new_game"
        };
        keys.extend([again, "tui.hint.look", "tui.hint.board", "tui.hint.view"]);
    }
    fit_keys(play.lang, &keys, width)
}

/// Joins the key hints (catalogue keys), dropping the last ones until the
/// line fits, and always ends with "? keys · q quit".
fn fit_keys(lang: Lang, keys: &[&str], width: u16) -> String {
    let tail = format!("{} · {}", lang.t("tui.hint.keys"), lang.t("tui.hint.quit"));
    let mut hints: Vec<String> = keys.iter().map(|&key| lang.t(key)).collect();
    loop {
        let mut line = hints.join(" · ");
        if !line.is_empty() {
            line.push_str(" · ");
        }
        line.push_str(&tail);
        if text_width(&line) + 2 <= width as usize || hints.is_empty() {
            return line;
        }
        hints.pop();
    }
}

/// One row of the `?` overlay; the texts are catalogue keys.
enum Help {
    /// A heading.
    Section(&'static str),
    /// A heading with its keys on the same row.
    Inline(&'static str, &'static str),
    /// Keys (the same in every language) and what they do.
    Key(&'static str, &'static str),
    /// Keys named in words ("arrows") and what they do.
    Named(&'static str, &'static str),
}

/// Every key of the client, for the `?` overlay.
const ALL_KEYS: [Help; 19] = [
    Help::Inline("tui.help.shop", "tui.help.shop_keys"),
    Help::Section("tui.help.placement"),
    Help::Named("tui.help.keys.move", "tui.help.move"),
    Help::Key("Enter", "tui.help.place"),
    Help::Named("tui.help.keys.random", "tui.help.random"),
    Help::Section("tui.help.battle"),
    Help::Named("tui.help.keys.aim", "tui.help.aim"),
    Help::Named("tui.help.keys.label", "tui.help.label"),
    Help::Key("a", "tui.help.ability"),
    Help::Key("o", "tui.help.orient"),
    Help::Key("x", "tui.help.send"),
    Help::Key("Esc", "tui.help.clear"),
    Help::Key("Tab, v", "tui.help.boards"),
    Help::Key("R", "tui.help.resign"),
    Help::Section("tui.help.anywhere"),
    Help::Key("s / c", "tui.help.save_chat"),
    Help::Key("n", "tui.help.after_end"),
    Help::Key("q", "tui.help.leave"),
    Help::Key("?", "tui.help.help"),
];

/// A row of the `?` overlay in words.
enum HelpRow {
    Section(String),
    Inline(String, String),
    Key(String, String),
}

impl Help {
    fn words(&self, lang: Lang) -> HelpRow {
        match *self {
            Help::Section(title) => HelpRow::Section(lang.t(title)),
            Help::Inline(title, what) => HelpRow::Inline(lang.t(title), lang.t(what)),
            Help::Key(keys, what) => HelpRow::Key(keys.to_string(), lang.t(what)),
            Help::Named(keys, what) => HelpRow::Key(lang.t(keys), lang.t(what)),
        }
    }
}

/// The width of a text on screen.
fn text_width(text: &str) -> usize {
    Span::raw(text).width()
}

/// `text` cut into lines of at most `width` columns at spaces (a word longer
/// than a line is cut where it must be).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word = word.to_string();
        loop {
            let needed = text_width(&line) + usize::from(!line.is_empty()) + text_width(&word);
            if needed <= width {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word wider than the whole line.
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The `?` overlay: as wide as its longest row allows (no wider than the
/// screen), descriptions wrapped under their own column when the screen is
/// narrow, and scrolled with ↑↓ when it is too low.
fn draw_keys(lang: Lang, scroll: &std::cell::Cell<usize>, area: Rect, buf: &mut Buffer) {
    let rows: Vec<HelpRow> = ALL_KEYS.iter().map(|row| row.words(lang)).collect();
    let key_column = rows
        .iter()
        .filter_map(|row| match row {
            HelpRow::Key(keys, _) => Some(2 + text_width(keys) + 2),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let natural = rows
        .iter()
        .map(|row| match row {
            HelpRow::Section(title) => text_width(title),
            HelpRow::Inline(title, what) => text_width(title) + 1 + text_width(what),
            HelpRow::Key(_, what) => key_column + text_width(what),
        })
        .max()
        .unwrap_or(0);
    // Two columns of border and one of air on the right.
    let width = (natural as u16 + 3).min(area.width);
    let inner = (width as usize).saturating_sub(3).max(1);
    let heading = Style::new().bold().fg(Color::Cyan);
    let mut lines: Vec<Line> = Vec::new();
    for row in rows {
        match row {
            HelpRow::Section(title) => lines.push(Line::from(title).style(heading)),
            HelpRow::Inline(title, what) => {
                let indent = text_width(&title) + 1;
                for (i, part) in wrap(&what, inner.saturating_sub(indent))
                    .into_iter()
                    .enumerate()
                {
                    lines.push(if i == 0 {
                        Line::from(vec![
                            Span::styled(format!("{title} "), heading),
                            Span::raw(part),
                        ])
                    } else {
                        Line::from(format!("{:indent$}{part}", ""))
                    });
                }
            }
            HelpRow::Key(keys, what) => {
                let column = key_column.min(inner / 2);
                for (i, part) in wrap(&what, inner.saturating_sub(column))
                    .into_iter()
                    .enumerate()
                {
                    let keys = if i == 0 { keys.as_str() } else { "" };
                    let pad = column.saturating_sub(2 + text_width(keys));
                    lines.push(Line::from(format!("  {keys}{:pad$}{part}", "")));
                }
            }
        }
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let visible = (height as usize).saturating_sub(2);
    scroll.set(scroll.get().min(lines.len().saturating_sub(visible)));
    let title = if lines.len() > visible {
        format!(
            " {} · {} ",
            lang.t("tui.help.title"),
            lang.t("tui.hint.scroll")
        )
    } else {
        format!(" {} ", lang.t("tui.help.title"))
    };
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(rect, buf);
    let shown: Vec<Line> = lines.into_iter().skip(scroll.get()).take(visible).collect();
    Paragraph::new(shown)
        .block(Block::bordered().title(title))
        .render(rect, buf);
}

/// A board to draw, with what lies over its cells.
struct BoardSpec<'a> {
    title: String,
    board: &'a BoardView,
    axis: LetterAxis,
    /// The cell the view scrolls to when the board does not fit.
    focus: Cell,
    /// The cell drawn in reverse video: the aim in battle.
    cursor: Option<Cell>,
    /// Cells drawn with a special style over the view (placement, picks, previews).
    overlays: Vec<(Cell, char, Style)>,
    active: bool,
}

fn board_dims(board: &BoardView) -> Size {
    Size::new(
        board.rows.first().map_or(0, |r| r.len()) as u16,
        board.rows.len() as u16,
    )
}

/// Width of the row labels plus a space.
fn label_width(size: Size, axis: LetterAxis) -> u16 {
    let last = size.rows.saturating_sub(1);
    match axis {
        LetterAxis::Rows => letters(last).len() as u16 + 1,
        LetterAxis::Columns => (last + 1).to_string().len() as u16 + 1,
    }
}

fn header_lines(size: Size, axis: LetterAxis, cell_width: u16) -> u16 {
    if axis == LetterAxis::Rows && cell_width == 1 && size.cols > 9 {
        2
    } else {
        1
    }
}

/// Width and height a board needs with cells `cell_width` wide.
fn board_extent(board: &BoardView, axis: LetterAxis, cell_width: u16) -> (u16, u16) {
    let size = board_dims(board);
    (
        label_width(size, axis) + size.cols * cell_width,
        1 + header_lines(size, axis, cell_width) + size.rows,
    )
}

/// First index of a window of `visible` cells out of `total` that shows `focus`.
fn window(total: u16, visible: u16, focus: u16) -> u16 {
    if visible >= total {
        0
    } else {
        focus.saturating_sub(visible / 2).min(total - visible)
    }
}

fn draw_board(spec: &BoardSpec, cell_width: u16, lang: Lang, area: Rect, buf: &mut Buffer) {
    let size = board_dims(spec.board);
    let labels = label_width(size, spec.axis);
    let headers = header_lines(size, spec.axis, cell_width);
    let visible_cols = ((area.width.saturating_sub(labels)) / cell_width).min(size.cols);
    let visible_rows = area.height.saturating_sub(1 + headers).min(size.rows);
    if visible_cols == 0 || visible_rows == 0 {
        return;
    }
    let focus = spec.focus;
    let first_col = window(size.cols, visible_cols, focus.col);
    let first_row = window(size.rows, visible_rows, focus.row);
    let title_style = if spec.active {
        Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
    } else {
        Style::new().add_modifier(Modifier::BOLD)
    };
    let mut title = spec.title.clone();
    if visible_cols < size.cols || visible_rows < size.rows {
        title.push_str(&format!(" ({})", lang.t("tui.scrolls")));
    }
    buf.set_stringn(area.x, area.y, &title, area.width as usize, title_style);
    let label_style = Style::new().fg(Color::Gray);
    // Column headers: letters, or numbers (two lines when one cell is one character).
    for i in 0..visible_cols {
        let col = first_col + i;
        let x = area.x + labels + i * cell_width;
        let text = match spec.axis {
            LetterAxis::Columns => letters(col),
            LetterAxis::Rows => (col + 1).to_string(),
        };
        if headers == 2 {
            let number = col + 1;
            if number >= 10 {
                buf.set_string(x, area.y + 1, (number / 10).to_string(), label_style);
            }
            buf.set_string(x, area.y + 2, (number % 10).to_string(), label_style);
        } else {
            buf.set_stringn(
                x,
                area.y + 1,
                &text,
                cell_width.max(text.len() as u16) as usize,
                label_style,
            );
        }
    }
    for j in 0..visible_rows {
        let row = first_row + j;
        let y = area.y + 1 + headers + j;
        let text = match spec.axis {
            LetterAxis::Rows => letters(row),
            LetterAxis::Columns => (row + 1).to_string(),
        };
        buf.set_string(
            area.x,
            y,
            format!("{text:>w$}", w = (labels - 1) as usize),
            label_style,
        );
        for i in 0..visible_cols {
            let col = first_col + i;
            let cell = Cell::new(col, row);
            let mut ch = spec.board.at(cell);
            let mut style = cell_style(ch);
            if let Some(&(_, over, over_style)) =
                spec.overlays.iter().rev().find(|(c, _, _)| *c == cell)
            {
                ch = over;
                style = over_style;
            }
            if spec.cursor == Some(cell) {
                style = style.add_modifier(Modifier::REVERSED);
            }
            buf.set_string(area.x + labels + i * cell_width, y, ch.to_string(), style);
        }
    }
}

/// Draws a game; returns whether only one board fitted.
fn draw_play(play: &Play, area: Rect, buf: &mut Buffer) -> bool {
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
        let ok = matches!(placing.check, Some(Ok(())));
        let style = if ok {
            Style::new().fg(Color::Black).bg(Color::Green)
        } else {
            Style::new().fg(Color::Black).bg(Color::Red)
        };
        // The moving ship is the cursor of placement: its own cells, lit green
        // or red. Its anchor is no cell of its own (a rotated seaplane's corner
        // is water), and once the fleet is complete nothing moves, so nothing
        // else is marked.
        let style = style.add_modifier(Modifier::BOLD);
        overlays.extend(play.moving_cells().into_iter().map(|c| (c, '*', style)));
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
                .map(|t| (t.at, 'o', Style::new().fg(Color::Black).bg(Color::Yellow))),
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

fn draw_log(play: &Play, area: Rect, buf: &mut Buffer) {
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

fn draw_panel(play: &Play, area: Rect, buf: &mut Buffer) {
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
        if let (Some(rules), Some(me)) = (play.rules.as_ref(), play.me) {
            let team = view.seats[me].team;
            let opponents = view
                .seats
                .iter()
                .filter(|s| s.alive && s.team != team)
                .count() as u32;
            let per = rules.shots_per_opponent;
            lines.push(Line::from(match rules.salvo {
                broadside_engine::SalvoMode::Spread => {
                    lang.fill("tui.panel.salvo_spread", &[("n", &per)])
                }
                broadside_engine::SalvoMode::Focus => {
                    lang.fill("tui.panel.salvo_focus", &[("n", &(per * opponents))])
                }
            }));
        }
    }
    if !play.picks.is_empty() {
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
fn own_blocks(play: &Play) -> Vec<(Cell, Size)> {
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

fn truncate(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}

fn draw_shop(play: &Play, shop: &crate::app::Shop, area: Rect, buf: &mut Buffer) {
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
