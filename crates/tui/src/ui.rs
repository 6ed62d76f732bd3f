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
use crate::words::{self, action_name, LEGEND};

/// Width of the side panel (legend, fleets, abilities).
const PANEL: u16 = 27;

/// The colour of a cell character of the canonical view (R-12). Shapes differ
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
        Clear.render(area, buf);
        if area.width < 20 || area.height < 8 {
            Paragraph::new("Broadside needs a larger terminal.").render(area, buf);
            return;
        }
        let [top, body, notice_line, help] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let (title, keys) = match self.screen {
            Screen::Menu => {
                draw_menu(self, body, buf);
                (
                    "Broadside".to_string(),
                    fit_keys(
                        vec!["↑↓ choose", "Enter select", "n new game", "l load"],
                        area.width,
                    ),
                )
            }
            Screen::NewGame => {
                draw_form(&self.form, self.online(), body, buf);
                (
                    if self.online() {
                        "Broadside · new online room"
                    } else {
                        "Broadside · new game"
                    }
                    .to_string(),
                    fit_keys(
                        if self.online() {
                            vec![
                                "↑↓ field",
                                "←→ change",
                                "Enter start",
                                words::KEY_QUICK_MATCH,
                                words::KEY_LEADERBOARD,
                            ]
                        } else {
                            vec!["↑↓ field", "←→ change", "Enter start", "Esc back"]
                        },
                        area.width,
                    ),
                )
            }
            Screen::MyGames => {
                draw_my_games(self, body, buf);
                (
                    "Broadside · my games".to_string(),
                    fit_keys(
                        vec![
                            "↑↓ choose",
                            "Enter select",
                            words::KEY_QUICK_MATCH,
                            words::KEY_LEADERBOARD,
                            "n new room",
                        ],
                        area.width,
                    ),
                )
            }
            Screen::Matching => {
                draw_matching(self, body, buf);
                let offer = self
                    .matching
                    .as_ref()
                    .is_some_and(|m| m.bot_offer.is_some());
                let mut keys = vec![words::KEY_CANCEL];
                if offer {
                    keys.push(words::KEY_BOT);
                }
                (
                    words::QUICK_MATCH_TITLE.to_string(),
                    fit_keys(keys, area.width),
                )
            }
            Screen::Leaderboard => {
                draw_leaderboard(self, body, buf);
                (
                    words::LEADERBOARD_TITLE.to_string(),
                    fit_keys(
                        vec![words::KEY_PRESET, words::KEY_SCROLL, words::KEY_BACK],
                        area.width,
                    ),
                )
            }
            Screen::Lobby => {
                draw_lobby(self, body, buf);
                (
                    "Broadside · online room".to_string(),
                    fit_keys(vec!["Enter start (host)"], area.width),
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
                    prompt.kind.question().to_string()
                } else {
                    format!("{}{}█", prompt.kind.question(), prompt.text)
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
            draw_keys(&self.keys_scroll, body, buf);
        }
    }
}

fn draw_menu(app: &App, area: Rect, buf: &mut Buffer) {
    let mut lines = vec![
        Line::from(""),
        Line::from("  ~ ~ ~  B R O A D S I D E  ~ ~ ~")
            .bold()
            .fg(Color::Cyan),
        Line::from("  naval battles in the terminal").fg(Color::Gray),
        Line::from(""),
    ];
    for (i, entry) in MENU.iter().enumerate() {
        let line = if i == app.menu {
            Line::from(format!("  > {entry}")).style(Style::new().fg(Color::Black).bg(Color::White))
        } else {
            Line::from(format!("    {entry}"))
        };
        lines.push(line);
    }
    lines.push(Line::from(""));
    lines.push(Line::from("  Legend").bold());
    for pair in LEGEND.chunks(2) {
        let mut spans = vec![Span::raw("  ")];
        for &(ch, meaning) in pair {
            spans.push(Span::styled(ch.to_string(), cell_style(ch)));
            spans.push(Span::raw(format!(" {meaning:<14}")));
        }
        lines.push(Line::from(spans));
    }
    Paragraph::new(lines).render(area, buf);
}

/// A line about a preset in plain words.
fn preset_words(form: &Form) -> &'static str {
    use broadside_engine::Preset::*;
    match form.preset {
        Classic => "10×10, fleet 4,3,3,2,2,2,1,1,1,1; shoot again on a hit.",
        Shared => "One common sea of 10×10 blocks; who owns a block is secret.",
        Space => "20×10 star fields; buy a fleet in the shop; ships have abilities.",
        Brasil => "15×15, 3 shots per turn; the seaplane is a V of 3 cells.",
        Italia => "16×16, one shot per turn; wide shot, air bombardment, radar.",
        Hasbro => "10×10, fleet 5,4,3,3,2; ships may touch.",
    }
}

fn draw_form(form: &Form, online: bool, area: Rect, buf: &mut Buffer) {
    let mut lines = vec![Line::from("")];
    for (i, field) in form.fields().into_iter().enumerate() {
        let text = if field == Field::Start {
            if online {
                "  [ Create room ]".to_string()
            } else {
                "  [ Start ]".to_string()
            }
        } else if matches!(field, Field::QuickMatch | Field::Leaderboard) {
            format!("  [ {} ]", Form::label(field))
        } else {
            format!("  {:<22}< {} >", Form::label(field), form.value(field))
        };
        let line = if i == form.selected {
            Line::from(text).style(Style::new().fg(Color::Black).bg(Color::White))
        } else {
            Line::from(text)
        };
        lines.push(line);
    }
    lines.push(Line::from(""));
    lines.push(Line::from(format!("  {}", preset_words(form))).fg(Color::Gray));
    lines.push(
        Line::from(if online {
            "  You take seat 1 and host the room; open seats wait for people."
        } else {
            "  You play seat 1; bots take the other seats."
        })
        .fg(Color::Gray),
    );
    if online {
        lines.push(
            Line::from(format!("  {}", words::quick_match_hint(form.preset.id()))).fg(Color::Gray),
        );
    }
    Paragraph::new(lines).render(area, buf);
}

fn draw_my_games(app: &App, area: Rect, buf: &mut Buffer) {
    let mut lines = vec![
        Line::from(""),
        Line::from("  Your unfinished games").bold(),
        Line::from(""),
    ];
    for (i, game) in app.my_games.iter().enumerate() {
        let turn = if game.your_turn { " · your turn" } else { "" };
        let line = Line::from(format!(
            "  {} {} · {} · {} · vs {}{turn}",
            if i == app.my_game { '>' } else { ' ' },
            game.code,
            game.preset,
            game.phase,
            game.opponents
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
            StartEntry::NewRoom => words::NEW_ROOM.to_string(),
            StartEntry::QuickMatch => words::quick_match_entry(app.form.preset.id()),
            StartEntry::Leaderboard => words::LEADERBOARD.to_string(),
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
    let preset = matching.preset.id();
    let mut lines = vec![
        Line::from(""),
        Line::from(format!("  {}", words::waiting_heading(preset))).bold(),
        Line::from(""),
    ];
    match matching.waiting {
        None => lines.push(Line::from(format!("  {}", words::ASKING))),
        Some(waiting) => {
            lines.push(Line::from(format!("  {}", words::LOOKING)));
            lines.push(Line::from(format!(
                "  {}",
                words::waiting_count(preset, waiting)
            )));
        }
    }
    lines.push(Line::from(format!(
        "  {}",
        words::waited(matching.since.elapsed().as_secs())
    )));
    lines.push(Line::from(""));
    match (&matching.bot_offer, matching.bot_offer_ms) {
        (Some(level), _) => lines.push(
            Line::from(format!("  {}", words::play_bot_instead(level)))
                .bold()
                .fg(Color::Yellow),
        ),
        (None, Some(ms)) => {
            lines.push(Line::from(format!("  {}", words::bot_after(ms / 1000))).fg(Color::Gray))
        }
        (None, None) => {}
    }
    lines.push(Line::from(""));
    lines.push(Line::from(format!("  {}", words::ESC_CANCEL)));
    Paragraph::new(lines).render(area, buf);
}

/// The leaderboard of one preset: rank, nickname, rating (`?` provisional),
/// games and wins, with the presets as tabs above.
fn draw_leaderboard(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(board) = app.leaderboard.as_ref() else {
        return;
    };
    let preset = board.preset.id();
    let mut tabs = vec![Span::raw("  ")];
    for p in broadside_engine::Preset::ALL {
        let style = if p == board.preset {
            Style::new().fg(Color::Black).bg(Color::Cyan)
        } else {
            Style::new().fg(Color::Gray)
        };
        tabs.push(Span::styled(format!(" {} ", p.id()), style));
        tabs.push(Span::raw(" "));
    }
    let mut lines = vec![
        Line::from(""),
        Line::from(format!("  {}", words::leaderboard_heading(preset))).bold(),
        Line::from(tabs),
        Line::from(""),
    ];
    let row = |cells: [&str; 5]| {
        format!(
            "  {:>4}  {:<24}  {:>7}  {:>5}  {:>5}",
            cells[0], cells[1], cells[2], cells[3], cells[4]
        )
    };
    match &board.players {
        None => lines.push(Line::from(format!("  {}", words::ASKING))),
        Some(players) if players.is_empty() => {
            lines.push(Line::from(format!("  {}", words::nobody_rated(preset))))
        }
        Some(players) => {
            lines.push(Line::from(row(words::LEADERBOARD_COLUMNS)).bold());
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
                lines.push(Line::from(format!("  {}", words::PROVISIONAL)).fg(Color::Gray));
            }
        }
    }
    Paragraph::new(lines).render(area, buf);
}

fn draw_lobby(app: &App, area: Rect, buf: &mut Buffer) {
    let mut lines = vec![Line::from("")];
    let room = app.play.as_ref().and_then(|p| match &p.source {
        Source::Remote(remote) => remote.room.as_ref(),
        Source::Local(_) => None,
    });
    match room {
        None => lines.push(Line::from("  Waiting for the server…")),
        Some(room) => {
            let code = room.get("code").and_then(|c| c.as_str()).unwrap_or("?");
            let preset = room.get("preset").and_then(|c| c.as_str()).unwrap_or("?");
            lines.push(Line::from(format!("  Room {code} · {preset}")).bold());
            if let Some(server) = &app.config.server {
                let base = server.trim_end_matches('/').trim_end_matches("/ws");
                lines.push(Line::from(format!("  Invite link: {base}/r/{code}")));
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
                lines.push(Line::from(format!(
                    "  Seat {}: {name}{rating}{}{}",
                    i + 1,
                    if you { " (you)" } else { "" },
                    if connected || seat.get("kind").and_then(|k| k.as_str()) == Some("bot") {
                        ""
                    } else {
                        " – not here"
                    }
                )));
            }
            lines.push(Line::from(""));
            let host = play.is_some_and(Play::is_host);
            lines.push(Line::from(if host {
                "  You are the host: Enter starts the game."
            } else {
                "  Waiting for the host to start the game."
            }));
        }
    }
    Paragraph::new(lines).render(area, buf);
}

/// The status line: phase, whose turn, round.
fn status_text(play: &Play) -> String {
    let Some(view) = play.view.as_ref() else {
        return "Broadside · waiting for the game".to_string();
    };
    let name = |seat: usize| {
        if Some(seat) == play.me {
            "you".to_string()
        } else {
            play.names
                .get(seat)
                .cloned()
                .unwrap_or_else(|| format!("seat {}", seat + 1))
        }
    };
    let my_move = play.me.is_some_and(|me| view.to_move.contains(&me));
    let what = match view.phase {
        Phase::Shop if my_move => "Shop: buy your fleet".to_string(),
        Phase::Placement if my_move => match &play.placing {
            Some(p) if p.placed.len() < p.fleet.len() => format!(
                "Placement: ship {} of {} ({})",
                p.placed.len() + 1,
                p.fleet.len(),
                ship_name(play, &p.fleet[p.placed.len()])
            ),
            _ => "Placement: fleet complete, Enter to confirm".to_string(),
        },
        Phase::Shop | Phase::Placement => "Waiting for the other players".to_string(),
        Phase::Battle if view.salvo_round => {
            if my_move {
                "Salvo round: aim at every opponent, x to send".to_string()
            } else {
                "Salvo sent: waiting for the others".to_string()
            }
        }
        Phase::Battle if my_move => {
            let target = if view.mode == Mode::SharedSea {
                "the sea".to_string()
            } else {
                format!("{}'s sea", name(play.target))
            };
            format!("Your turn: fire at {target}")
        }
        Phase::Battle => {
            let movers: Vec<String> = view.to_move.iter().map(|&s| name(s)).collect();
            format!("{}'s turn", movers.join(", "))
        }
        Phase::Finished => match &view.winner {
            _ if view.draw => "Game over: a draw".to_string(),
            Some(w) if play.me.is_some_and(|me| w.contains(&me)) => {
                "Game over: YOU WIN!".to_string()
            }
            Some(w) => format!(
                "Game over: {} won",
                w.iter().map(|&s| name(s)).collect::<Vec<_>>().join(", ")
            ),
            None => "Game over".to_string(),
        },
    };
    let round = view
        .round
        .filter(|&r| r > 0)
        .map(|r| format!(" · round {r}"))
        .unwrap_or_default();
    let clock = match &play.source {
        Source::Remote(remote) if view.phase != Phase::Finished => remote
            .deadline
            .map(|d| {
                format!(
                    " · {} s left",
                    d.saturating_duration_since(std::time::Instant::now())
                        .as_secs()
                )
            })
            .unwrap_or_default(),
        _ => String::new(),
    };
    format!("Broadside · {}{round} · {what}{clock}", view.preset.id())
}

fn ship_name(play: &Play, id: &str) -> String {
    play.rules
        .as_ref()
        .and_then(|r| r.type_index(id).map(|t| r.catalogue[t].name.clone()))
        .unwrap_or_else(|| id.to_string())
}

/// The keys of the moment; `single` says whether only one board fits.
fn help_text(play: &Play, single: bool, width: u16) -> String {
    let Some(view) = play.view.as_ref() else {
        return "q leave".to_string();
    };
    // The keys of the moment, most useful first; what does not fit the line is
    // left to the `?` overlay.
    let mut keys: Vec<&str> = Vec::new();
    if play.shop.is_some() {
        keys.extend([
            "↑↓ ship",
            "←→ count",
            "d default fleet",
            "Enter buy",
            "c clear",
        ]);
    } else if play.placing.is_some() {
        keys.extend([
            "arrows move",
            "r rotate",
            "Enter place",
            "space random",
            "⌫ undo",
            "s save",
        ]);
    } else if play.reserve.is_some() {
        keys.extend([
            "arrows choose",
            "Enter mark",
            "x send",
            "r random",
            "Esc cancel",
        ]);
    } else if view.phase == Phase::Battle {
        keys.extend(["Enter fire", "arrows aim", ": label"]);
        if view.salvo_round || play.rules.as_ref().is_some_and(|r| r.per_volley()) {
            keys.push("x send");
        }
        if !view.abilities.is_empty() {
            keys.push("a ability");
        }
        if play.target_boards().len() > 1 {
            keys.push("Tab board");
        }
        if single {
            keys.push("v view");
        }
        keys.push(if matches!(play.source, Source::Remote(_)) {
            "c chat"
        } else {
            "s save"
        });
        keys.push("R resign");
    } else if view.phase == Phase::Finished {
        let again = if matches!(play.source, Source::Remote(_)) {
            "n rematch"
        } else {
            "n new game"
        };
        keys.extend([again, "arrows look", "Tab board", "v view"]);
    }
    fit_keys(keys, width)
}

/// Joins key hints, dropping the last ones until the line fits, and always
/// ends with "? keys · q quit".
fn fit_keys(mut keys: Vec<&str>, width: u16) -> String {
    let tail = "? keys · q quit";
    loop {
        let mut line = keys.join(" · ");
        if !line.is_empty() {
            line.push_str(" · ");
        }
        line.push_str(tail);
        if line.chars().count() + 2 <= width as usize || keys.is_empty() {
            return line;
        }
        keys.pop();
    }
}

/// One row of the `?` overlay.
enum Help {
    /// A heading.
    Section(&'static str),
    /// A heading with its keys on the same row.
    Inline(&'static str, &'static str),
    /// Keys and what they do.
    Key(&'static str, &'static str),
}

/// Every key of the client, for the `?` overlay.
const ALL_KEYS: [Help; 19] = [
    Help::Inline("Shop", "↑↓ ship, ←→ count, d default, Enter buy"),
    Help::Section("Placement"),
    Help::Key("arrows, r", "move, rotate the ship"),
    Help::Key("Enter", "place it (green: legal, red: not)"),
    Help::Key("space, ⌫", "random for the rest, take one back"),
    Help::Section("Battle"),
    Help::Key("arrows, Enter", "aim, fire"),
    Help::Key(": or t", "type a label such as B7 and fire"),
    Help::Key("a", "next ability (reserve: mark 3 cells)"),
    Help::Key("o", "laser end / bombard row or column"),
    Help::Key("x", "send a salvo or a volley"),
    Help::Key("Esc", "clear chosen cells and ability"),
    Help::Key("Tab, v", "next target board, other board"),
    Help::Key("R", "resign"),
    Help::Section("Anywhere"),
    Help::Key("s / c", "save (offline) / chat (online)"),
    Help::Key("n", "after the end: new game (online: rematch)"),
    Help::Key("q", "leave the game, quit"),
    Help::Key("?", "this help; ↑↓ scroll, any other key closes it"),
];

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
fn draw_keys(scroll: &std::cell::Cell<usize>, area: Rect, buf: &mut Buffer) {
    let key_column = ALL_KEYS
        .iter()
        .filter_map(|row| match row {
            Help::Key(keys, _) => Some(2 + text_width(keys) + 2),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let natural = ALL_KEYS
        .iter()
        .map(|row| match row {
            Help::Section(title) => text_width(title),
            Help::Inline(title, what) => text_width(title) + 1 + text_width(what),
            Help::Key(_, what) => key_column + text_width(what),
        })
        .max()
        .unwrap_or(0);
    // Two columns of border and one of air on the right.
    let width = (natural as u16 + 3).min(area.width);
    let inner = (width as usize).saturating_sub(3).max(1);
    let heading = Style::new().bold().fg(Color::Cyan);
    let mut lines: Vec<Line> = Vec::new();
    for row in &ALL_KEYS {
        match *row {
            Help::Section(title) => lines.push(Line::from(title).style(heading)),
            Help::Inline(title, what) => {
                let indent = text_width(title) + 1;
                for (i, part) in wrap(what, inner.saturating_sub(indent))
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
            Help::Key(keys, what) => {
                let column = key_column.min(inner / 2);
                for (i, part) in wrap(what, inner.saturating_sub(column))
                    .into_iter()
                    .enumerate()
                {
                    let keys = if i == 0 { keys } else { "" };
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
        " Keys · ↑↓ scroll "
    } else {
        " Keys "
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

fn draw_board(spec: &BoardSpec, cell_width: u16, area: Rect, buf: &mut Buffer) {
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
        title.push_str(" (scrolls)");
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
    let Some(view) = play.view.as_ref() else {
        Paragraph::new("  Waiting for the game…").render(area, buf);
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
            .unwrap_or_else(|| format!("Seat {}", seat + 1))
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
            title: "Your waters".to_string(),
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
            Mode::SharedSea => "The sea".to_string(),
            _ if Some(target) == own => "Your waters".to_string(),
            _ => format!("{}'s waters", name_of(target)),
        };
        if let Some(me) = own {
            if target != me {
                specs.push(BoardSpec {
                    title: "Your waters".to_string(),
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
        draw_board(spec, cell_width, rect, buf);
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
        .title(" Log ")
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
    let mut lines: Vec<Line> = vec![Line::from("Legend").bold()];
    for pair in LEGEND.chunks(2) {
        let mut spans = Vec::new();
        for &(ch, meaning) in pair {
            spans.push(Span::styled(ch.to_string(), cell_style(ch)));
            spans.push(Span::raw(format!(" {meaning:<10} ")));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::from("Fleets (afloat/total)").bold());
    for seat in &view.seats {
        let name = if Some(seat.seat) == play.me {
            "You".to_string()
        } else {
            play.names
                .get(seat.seat)
                .cloned()
                .unwrap_or_else(|| format!("Seat {}", seat.seat + 1))
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
        lines.push(Line::from("To place").bold());
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
        lines.push(Line::from("Abilities (a)").bold());
        for (id, ability) in &view.abilities {
            let uses = ability
                .uses_left
                .map(|n| format!(" ×{n}"))
                .unwrap_or_default();
            let state = if ability.ready {
                "ready".to_string()
            } else {
                format!("rd {}", ability.next_round)
            };
            let chosen = play.action.is_some_and(|k| k.id() == id);
            let text = format!(
                "{}{:<16}{state}{uses}",
                if chosen { ">" } else { " " },
                action_name(id)
            );
            let style = if ability.ready {
                Style::new().fg(Color::Green)
            } else {
                Style::new().fg(Color::DarkGray)
            };
            lines.push(Line::from(text).style(style));
        }
        if play.action == Some(ActionKind::Laser) || play.action == Some(ActionKind::Bombard) {
            let what = if play.action == Some(ActionKind::Laser) {
                format!(
                    "laser from the {} (o)",
                    if play.laser_end == broadside_engine::End::Top {
                        "top"
                    } else {
                        "bottom"
                    }
                )
            } else {
                format!(
                    "bombard a {} (o)",
                    if play.bombard_column { "column" } else { "row" }
                )
            };
            lines.push(Line::from(what));
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
                broadside_engine::SalvoMode::Spread => format!("Salvo: {per} on each opponent"),
                broadside_engine::SalvoMode::Focus => {
                    format!("Salvo: {} on one opponent", per * opponents)
                }
            }));
        }
    }
    if !play.picks.is_empty() {
        lines.push(
            Line::from(format!("Chosen: {} cells (x sends)", play.picks.len())).fg(Color::Yellow),
        );
    }
    if let Some(rules) = &play.rules {
        let cursor_label = broadside_engine::label(rules.letter_axis, play.cursor);
        if play.placing.is_none() && view.phase == Phase::Battle {
            let ch = view
                .boards
                .get(play.target)
                .map(|b| b.at(play.cursor))
                .unwrap_or(' ');
            let open = if ch == '~' || ch == '!' {
                "open"
            } else {
                "known"
            };
            lines.push(Line::from(format!("Cursor {cursor_label} ({open})")));
        }
        for (origin, size) in own_blocks(play) {
            let last = Cell::new(origin.col + size.cols - 1, origin.row + size.rows - 1);
            lines.push(Line::from(format!(
                "Own waters {}–{} (shaded)",
                broadside_engine::label(rules.letter_axis, origin),
                broadside_engine::label(rules.letter_axis, last)
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
    let mut lines = vec![
        Line::from("  Shop: buy your fleet (one capital ship at most)").bold(),
        Line::from(""),
    ];
    let mut cost = 0;
    for (i, ship) in rules.catalogue.iter().enumerate() {
        let count = shop.counts.get(&ship.id).copied().unwrap_or(0);
        cost += count * ship.price;
        let ability = ship.ability.map(|a| action_name(a.id())).unwrap_or("");
        let text = format!(
            "  {:<14}{:>2} cells {:>3} cr  limit {}{}  {:<9} × {count}",
            ship.name,
            ship.shape.len(),
            ship.price,
            ship.limit,
            if ship.capital { " capital" } else { "        " },
            ability,
        );
        let line = if i == shop.selected {
            Line::from(text).style(Style::new().fg(Color::Black).bg(Color::White))
        } else {
            Line::from(text)
        };
        lines.push(line);
    }
    lines.push(Line::from(""));
    let style = if cost > rules.credits {
        Style::new().fg(Color::LightRed)
    } else {
        Style::new().fg(Color::Green)
    };
    lines.push(Line::from(format!("  Cost {cost} of {} credits", rules.credits)).style(style));
    Paragraph::new(lines).render(area, buf);
}
