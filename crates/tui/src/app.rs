//! The application state and its `update`: every key, timer tick and network
//! frame arrives as one [`Msg`] and changes the [`App`]; drawing is in `ui/`.
//!
//! Architecture invariant: the app never decides a rule. Offline, the engine's
//! [`Game`] is the referee and the screen shows only `game.view(your seat)` and
//! the events filtered by `events_for`; online, the server sends the same view.
//! Legality previews ask the engine (`check_ships_partial`) or the server.

use std::path::PathBuf;
use std::sync::mpsc::Sender;

use broadside_ai::Bot;
use broadside_engine::{Command, Phase};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::i18n::Lang;
use crate::identity::TokenSlot;
use crate::net::NetEvent;

mod account;
mod battle;
pub(crate) mod due;
mod form;
mod offline;
mod online;
mod placement;
mod play;
mod prompt;
mod public;
mod shop;
mod start;

pub use account::{web_address, Account, Login};
// The catalogue's tests name every special through it.
#[cfg(test)]
pub(crate) use battle::ACTION_KINDS;
pub use form::{Field, Form};
pub use offline::{Local, DEFAULT_SAVE};
pub use online::Remote;
pub use placement::Placing;
pub use play::{Play, ReservePick, Source};
pub use prompt::{Prompt, PromptKind};
pub use public::{Leaderboard, Matching, Ranked};
pub use shop::Shop;
pub use start::{MyGame, StartEntry, MENU, START_ENTRIES};

/// Everything that can change the app: input, timers and the network arrive
/// on one channel, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(KeyEvent),
    /// The terminal was resized; the next draw uses the new size.
    Resize,
    /// A timer tick: offline bots make their moves on ticks so a person can
    /// follow them.
    Tick,
    Net(NetEvent),
    /// A bot finished thinking on its worker thread.
    Bot(BotMove),
}

/// A bot's decision, made off the UI thread so that the screen stays
/// responsive while a strong bot thinks.
#[derive(Debug, Clone)]
pub struct BotMove {
    /// The offline game it belongs to ([`Local::id`]); a game loaded in the
    /// meantime makes the move stale.
    game: u64,
    seat: usize,
    /// The bot itself travels to the worker and back.
    bot: Box<Bot>,
    command: Option<Command>,
}

impl PartialEq for BotMove {
    fn eq(&self, other: &Self) -> bool {
        self.game == other.game && self.seat == other.seat && self.command == other.command
    }
}

/// How `broadside play` was started.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// `--server URL`: play online on this server.
    pub server: Option<String>,
    /// `--room CODE`: join this room (else a new room is created).
    pub room: Option<String>,
    /// `--load FILE`: continue a saved game at once.
    pub load: Option<PathBuf>,
    /// The nickname shown to other players online.
    pub nickname: Option<String>,
    /// A fixed seed for new offline games (tests); else the clock's.
    pub seed: Option<u64>,
    /// Where the session token of the server is kept, so that a later
    /// `--room CODE` gets the same seat back. A second terminal
    /// running at the same time keeps its own beside it (`<file>.2`, …; see
    /// `identity.rs`), so that it never takes over the first one's seat.
    pub token_file: Option<PathBuf>,
    /// `--lang`, else the locale's: the language of every word on screen.
    pub lang: Lang,
    /// `--hot-seat N`: N people (2 to 6) share this terminal offline, and
    /// the New Game form opens set for them.
    pub hot_seat: Option<usize>,
    /// `--login`: sign this terminal in to an account with a code approved
    /// in a signed-in browser (`link_request`), then play on as the account.
    pub login: bool,
}

/// The screens of the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Menu,
    NewGame,
    /// Online: the person's unfinished games on the server, to continue one.
    MyGames,
    /// Online: connecting, or waiting in a room before the start.
    Lobby,
    /// Online: waiting in the quick-match queue for an opponent.
    Matching,
    /// Online: the best ratings of a preset.
    Leaderboard,
    /// Online (`--login`): the code to approve in a signed-in browser.
    Login,
    Play,
}

/// A short message for the player (errors in red).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

/// The whole client.
pub struct App {
    pub screen: Screen,
    pub menu: usize,
    pub form: Form,
    pub play: Option<Play>,
    pub prompt: Option<Prompt>,
    pub notice: Option<Notice>,
    pub quit: bool,
    /// The `?` overlay with every key is open.
    pub show_keys: bool,
    /// How far the `?` overlay is scrolled. Only drawing knows the screen's
    /// size, so drawing keeps it within the overlay's last page.
    pub keys_scroll: std::cell::Cell<usize>,
    pub config: Config,
    /// The channel of the main loop, handed to the network thread.
    sender: Option<Sender<Msg>>,
    /// The file a game was last saved to or loaded from.
    pub save_path: String,
    seed: u64,
    /// Online: the unfinished games the server listed (`games` frame), and
    /// the one chosen on the My games screen.
    pub my_games: Vec<MyGame>,
    pub my_game: usize,
    /// Online: the quick match being waited for.
    pub matching: Option<Matching>,
    /// Online: the leaderboard on show.
    pub leaderboard: Option<Leaderboard>,
    /// The online start screen (New Game form or My games) that the quick
    /// match and the leaderboard go back to.
    pub back: Screen,
    /// The notice tells of something under way ("Creating the room…"): it
    /// goes once the screen or the game's phase moves on.
    in_progress: bool,
    /// Online: the token file this running terminal holds (see
    /// `identity.rs`), claimed when the link is made.
    token_slot: Option<TokenSlot>,
    /// Online (`--login`): the sign-in under way.
    pub login: Option<Login>,
    /// Online: the account this terminal is signed in to (the `welcome`
    /// names it), with its ratings once `account` has told them.
    pub account: Option<Account>,
    /// Links let go (after a sign-in) whose thread has yet to report its
    /// end: that report is no drop of the link in use.
    links_let_go: u32,
    /// A sign-in just happened: the next `welcome` says so.
    just_signed_in: bool,
}

impl App {
    /// A new client. With a server address it connects at once (through
    /// `sender`, the main loop's channel); with `--load` it opens the save.
    pub fn new(config: Config, sender: Option<Sender<Msg>>) -> App {
        let seed = config.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(7)
        });
        let mut app = App {
            screen: Screen::Menu,
            menu: 0,
            form: Form::default(),
            play: None,
            prompt: None,
            notice: None,
            quit: false,
            show_keys: false,
            keys_scroll: std::cell::Cell::new(0),
            sender,
            save_path: DEFAULT_SAVE.to_string(),
            seed,
            config,
            my_games: Vec::new(),
            my_game: 0,
            matching: None,
            leaderboard: None,
            back: Screen::NewGame,
            in_progress: false,
            token_slot: None,
            login: None,
            account: None,
            links_let_go: 0,
            just_signed_in: false,
        };
        if let Some(server) = app.config.server.clone() {
            app.connect(&server);
        } else if let Some(path) = app.config.load.clone() {
            app.load(&path.to_string_lossy());
        } else if let Some(people) = app.config.hot_seat {
            app.form.hot_seat(people);
            app.screen = Screen::NewGame;
            let text = app
                .lang()
                .fill("tui.hot_seat_form", &[("n", &app.form.people)]);
            app.say(text);
        }
        app
    }

    fn say(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            error: false,
        });
        self.in_progress = false;
    }

    /// Tells of something under way, until the screen or the phase moves on.
    fn say_in_progress(&mut self, text: impl Into<String>) {
        self.say(text);
        self.in_progress = true;
    }

    fn warn(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            error: true,
        });
        self.in_progress = false;
    }

    fn next_seed(&mut self) -> u64 {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.seed
    }

    pub fn online(&self) -> bool {
        self.config.server.is_some()
    }

    /// The language of every word on screen.
    pub fn lang(&self) -> Lang {
        self.config.lang
    }

    /// Whether the link to the server is up.
    fn connected(&self) -> bool {
        matches!(
            self.play.as_ref().map(|p| &p.source),
            Some(Source::Remote(Remote {
                connected: true,
                ..
            }))
        )
    }

    /// The one entry point of change.
    pub fn update(&mut self, msg: Msg) {
        match msg {
            Msg::Key(key) => {
                if key.kind == KeyEventKind::Release {
                    return;
                }
                if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
                    self.quit = true;
                    return;
                }
                if self.prompt.is_some() {
                    self.prompt_key(key);
                    return;
                }
                let key = vi_key(key, self.show_keys, self.screen);
                if self.show_keys {
                    // ↑↓ scroll a help taller than the screen; any other key closes it.
                    let scroll = self.keys_scroll.get();
                    match key.code {
                        KeyCode::Up => self.keys_scroll.set(scroll.saturating_sub(1)),
                        KeyCode::Down => self.keys_scroll.set(scroll + 1),
                        _ => self.show_keys = false,
                    }
                    return;
                }
                if key.code == KeyCode::Char('?') {
                    self.show_keys = true;
                    self.keys_scroll.set(0);
                    return;
                }
                match self.screen {
                    Screen::Menu => self.menu_key(key),
                    Screen::NewGame => self.form_key(key),
                    Screen::MyGames => self.my_games_key(key),
                    Screen::Lobby => self.lobby_key(key),
                    Screen::Matching => self.matching_key(key),
                    Screen::Leaderboard => self.leaderboard_key(key),
                    Screen::Login => self.login_key(key),
                    Screen::Play => self.play_key(key),
                }
            }
            Msg::Resize => {}
            Msg::Tick => {
                self.login_tick();
                self.tick()
            }
            Msg::Bot(decision) => {
                let before = self.moment();
                if let Some(play) = self.play.as_mut() {
                    play.bot_returns(decision);
                }
                self.forget_passed_notice(before);
            }
            Msg::Net(event) => {
                let before = self.moment();
                self.net(event);
                self.forget_passed_notice(before);
            }
        }
    }

    /// Where the client stands: its screen, the game's phase (or, before
    /// the game, whether it is in a room), and the notice on show.
    fn moment(&self) -> (Screen, Option<Phase>, bool, Option<Notice>) {
        let phase = self
            .play
            .as_ref()
            .and_then(|p| p.view.as_ref())
            .map(|v| v.phase);
        (self.screen, phase, self.in_room(), self.notice.clone())
    }

    /// A notice of something under way ("Creating the room…") is old news
    /// once the screen or the phase has moved on, unless the message that
    /// moved them said something new.
    fn forget_passed_notice(&mut self, before: (Screen, Option<Phase>, bool, Option<Notice>)) {
        let (screen, phase, room, notice) = before;
        let now = self.moment();
        let moved = now.0 != screen || now.1 != phase || now.2 != room;
        if moved && self.in_progress && self.notice == notice {
            self.notice = None;
            self.in_progress = false;
        }
    }
}

/// The vi keys as arrows: h j k l where the arrows move something and no
/// letter of the screen means anything else. On the boards (placement,
/// battle, looking after the end), in the shop and on the leaderboard all
/// four are free; on the menu, the New Game form and My games only j and k
/// are (l loads a game there, and opens the leaderboard online); in the `?`
/// overlay j and k scroll. The lobby and the quick match move nothing.
fn vi_key(key: KeyEvent, help: bool, screen: Screen) -> KeyEvent {
    if !(key.modifiers - KeyModifiers::SHIFT).is_empty() {
        return key;
    }
    let KeyCode::Char(letter) = key.code else {
        return key;
    };
    let all = !help && matches!(screen, Screen::Play | Screen::Leaderboard);
    let rows = help || matches!(screen, Screen::Menu | Screen::NewGame | Screen::MyGames);
    let code = match letter {
        'h' if all => KeyCode::Left,
        'l' if all => KeyCode::Right,
        'j' if all || rows => KeyCode::Down,
        'k' if all || rows => KeyCode::Up,
        _ => return key,
    };
    KeyEvent::new(code, KeyModifiers::NONE)
}
