//! The start screens: the menu, the keys of the New Game form (and the
//! start of the game it describes), and My games online.

use broadside_ai::Level;
use broadside_engine::{Game, Setup};
use broadside_protocol::{BotLevel, BotSeat, ClientFrame, CreateRoom, JoinRoom, Role, SeatKind};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{App, Field, Prompt, PromptKind, Screen};
use crate::i18n::Lang;
use crate::words;

/// The entries of the start menu (catalogue keys).
pub const MENU: [&str; 3] = ["tui.new_game", "tui.load_game", "tui.quit"];

/// The entries below the games on the My games screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartEntry {
    NewRoom,
    QuickMatch,
    Leaderboard,
}

pub const START_ENTRIES: [StartEntry; 3] = [
    StartEntry::NewRoom,
    StartEntry::QuickMatch,
    StartEntry::Leaderboard,
];

/// One unfinished game of the person on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MyGame {
    pub code: String,
    pub preset: String,
    pub phase: String,
    pub opponents: String,
    pub your_turn: bool,
}

impl MyGame {
    pub(super) fn from_frame(game: &broadside_protocol::MyGame, lang: Lang) -> MyGame {
        let opponents: Vec<String> = game
            .players
            .iter()
            .filter(|p| p.seat != game.seat)
            .map(|p| match (p.kind, p.nickname.as_deref(), p.level) {
                (SeatKind::Bot, _, Some(level)) => lang.fill(
                    "bot_named",
                    &[("level", &words::level_name(lang, level.id()))],
                ),
                (SeatKind::Bot, _, None) => lang.t("tui.bot"),
                (_, Some(name), _) if !name.is_empty() => name.to_string(),
                _ => lang.t("open_seat"),
            })
            .collect();
        MyGame {
            code: game.code.clone(),
            preset: game.preset.map(|p| p.id().to_string()).unwrap_or_default(),
            phase: game.phase.id().to_string(),
            opponents: opponents.join(", "),
            your_turn: game.your_turn,
        }
    }
}

impl App {
    pub(super) fn menu_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Up => self.menu = (self.menu + MENU.len() - 1) % MENU.len(),
            KeyCode::Down => self.menu = (self.menu + 1) % MENU.len(),
            KeyCode::Char('n') => self.menu_choose(0),
            KeyCode::Char('l') => self.menu_choose(1),
            KeyCode::Char('q') | KeyCode::Esc => self.menu_choose(2),
            KeyCode::Enter => self.menu_choose(self.menu),
            _ => {}
        }
    }

    pub(super) fn menu_choose(&mut self, entry: usize) {
        self.menu = entry;
        match entry {
            0 => {
                self.screen = Screen::NewGame;
                self.notice = None;
            }
            1 => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::LoadPath,
                    text: self.save_path.clone(),
                });
            }
            _ => self.quit = true,
        }
    }

    pub(super) fn form_key(&mut self, key: KeyEvent) {
        let fields = self.form.fields();
        let field = fields[self.form.selected.min(fields.len() - 1)];
        match key.code {
            KeyCode::Up => {
                self.form.selected = (self.form.selected + fields.len() - 1) % fields.len()
            }
            KeyCode::Down | KeyCode::Tab => {
                self.form.selected = (self.form.selected + 1) % fields.len()
            }
            KeyCode::Left | KeyCode::Char('-') => self.form.step(field, false),
            KeyCode::Right | KeyCode::Char('+') | KeyCode::Char(' ') => self.form.step(field, true),
            KeyCode::Enter => match field {
                Field::QuickMatch => self.quick_match(),
                Field::Leaderboard => self.open_leaderboard(),
                _ => self.start_new_game(),
            },
            KeyCode::Char('m') if self.online() => self.quick_match(),
            KeyCode::Char('l') if self.online() => self.open_leaderboard(),
            KeyCode::Esc | KeyCode::Char('q') => {
                if self.online() {
                    self.quit = true;
                } else {
                    self.screen = Screen::Menu;
                }
            }
            _ => {}
        }
    }

    pub(super) fn my_games_key(&mut self, key: KeyEvent) {
        // The games first, then the entries of the online start.
        let count = self.my_games.len() + START_ENTRIES.len();
        match key.code {
            KeyCode::Up => self.my_game = (self.my_game + count - 1) % count,
            KeyCode::Down | KeyCode::Tab => self.my_game = (self.my_game + 1) % count,
            KeyCode::Enter => {
                if let Some(game) = self.my_games.get(self.my_game) {
                    let code = game.code.clone();
                    self.say_in_progress(self.lang().fill("tui.joining", &[("code", &code)]));
                    self.send_frame(ClientFrame::JoinRoom(JoinRoom {
                        code,
                        role: Role::Player,
                    }));
                    self.screen = Screen::Lobby;
                    return;
                }
                match START_ENTRIES.get(self.my_game - self.my_games.len()) {
                    Some(StartEntry::NewRoom) => self.new_room_form(),
                    Some(StartEntry::QuickMatch) => self.quick_match(),
                    Some(StartEntry::Leaderboard) => self.open_leaderboard(),
                    None => {}
                }
            }
            KeyCode::Char('n') => self.new_room_form(),
            KeyCode::Char('m') => self.quick_match(),
            KeyCode::Char('l') => self.open_leaderboard(),
            KeyCode::Esc | KeyCode::Char('q') => self.quit = true,
            _ => {}
        }
    }

    pub(super) fn new_room_form(&mut self) {
        self.screen = Screen::NewGame;
        self.say(self.lang().t("tui.choose_room"));
    }

    pub(super) fn start_new_game(&mut self) {
        let form = self.form.clone();
        if self.online() {
            let bots: Vec<BotSeat> = (1..form.seats)
                .filter(|&seat| !form.open[seat - 1])
                .map(|seat| BotSeat {
                    seat,
                    level: BotLevel::from_id(form.levels[seat - 1].id())
                        .expect("every level of the bots has a wire level"),
                })
                .collect();
            self.send_frame(ClientFrame::CreateRoom(Box::new(CreateRoom {
                preset: form.preset,
                seats: form.seats,
                options: Some(form.options(false)),
                teams: None,
                bots,
                public: false,
                rated: false,
            })));
            self.screen = Screen::Lobby;
            self.say_in_progress(self.lang().t("tui.creating_room"));
            return;
        }
        let setup = Setup {
            preset: form.preset,
            seats: form.seats,
            seed: self.next_seed(),
            options: form.options(true),
            teams: None,
        };
        match Game::new(&setup) {
            Ok(game) => {
                // The people at this terminal take the first seats.
                let levels: Vec<Option<Level>> = (0..form.seats)
                    .map(|s| {
                        if s == 0 || form.is_person(s) {
                            None
                        } else {
                            Some(form.levels[s - 1])
                        }
                    })
                    .collect();
                self.start_local(game, 0, levels);
                let preset = words::preset_name(self.lang(), form.preset.id());
                self.say(
                    self.lang()
                        .fill("tui.new_game_started", &[("preset", &preset)]),
                );
            }
            Err(e) => {
                let error = words::rule_error(self.lang(), &e);
                self.warn(self.lang().fill("tui.cannot_start", &[("error", &error)]));
            }
        }
    }
}
