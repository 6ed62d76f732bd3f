//! The application state and its `update`: every key, timer tick and network
//! frame arrives as one [`Msg`] and changes the [`App`]; drawing is in `ui.rs`.
//!
//! Architecture invariant: the app never decides a rule. Offline, the engine's
//! [`Game`] is the referee and the screen shows only `game.view(your seat)` and
//! the events filtered by `events_for`; online, the server sends the same view.
//! Legality previews ask the engine (`check_ships_partial`) or the server.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use broadside_ai::{Bot, Level};
use broadside_engine::{
    parse_label, Action, ActionKind, Cell, Command, End, Event, Game, Line, Mode, Options, Phase,
    Placement, Preset, Report, Rules, SalvoMode, Setup, Size, Target, View, RESERVE_FIGHTERS,
};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use serde_json::{json, Value};

use crate::net::{self, NetEvent};
use crate::words::{self, Names};

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
    /// `--room CODE` gets the same seat back.
    pub token_file: Option<PathBuf>,
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
    Play,
}

/// The entries of the start menu.
pub const MENU: [&str; 3] = ["New game", "Load game", "Quit"];

/// A line of text being typed at the bottom of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    SavePath,
    LoadPath,
    /// A cell label to aim at, such as `B7`.
    Label,
    /// "Leave this game?" — answered with y or n.
    ConfirmLeave,
    /// "Resign?" — answered with y or n.
    ConfirmResign,
    /// A chat line (online).
    Chat,
}

impl PromptKind {
    pub fn question(self) -> &'static str {
        match self {
            PromptKind::SavePath => "Save to file: ",
            PromptKind::LoadPath => "Load file: ",
            PromptKind::Label => "Target (e.g. B7): ",
            PromptKind::ConfirmLeave => "Leave this game? Unsaved moves are lost (y/n) ",
            PromptKind::ConfirmResign => "Resign this game? (y/n) ",
            PromptKind::Chat => "Say: ",
        }
    }

    /// Whether the prompt is a yes/no question rather than a line of text.
    pub fn is_question(self) -> bool {
        matches!(self, PromptKind::ConfirmLeave | PromptKind::ConfirmResign)
    }
}

/// The New Game form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    pub preset: Preset,
    pub seats: usize,
    /// The level of the bot in seat i + 1.
    pub levels: [Level; 5],
    /// Online only: seat i + 1 stays open for a person who joins with the code.
    pub open: [bool; 5],
    /// Whether the form creates an online room (open seats are offered).
    pub online: bool,
    pub report: Report,
    pub specials: bool,
    pub salvo: SalvoMode,
    pub water_ring: bool,
    pub hit_again: bool,
    pub credits: u32,
    /// The highlighted row of [`Form::fields`].
    pub selected: usize,
}

/// One row of the New Game form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Preset,
    Seats,
    Level(usize),
    Report,
    Specials,
    Salvo,
    WaterRing,
    HitAgain,
    Credits,
    Start,
    /// Online only: wait for a stranger with the chosen preset instead.
    QuickMatch,
    /// Online only: the best ratings, starting with the chosen preset.
    Leaderboard,
}

impl Default for Form {
    fn default() -> Self {
        let mut form = Form {
            preset: Preset::Classic,
            seats: 2,
            levels: [Level::Medium; 5],
            open: [false; 5],
            online: false,
            report: Report::PerShot,
            specials: false,
            salvo: SalvoMode::Spread,
            water_ring: true,
            hit_again: true,
            credits: 500,
            selected: 0,
        };
        form.reset_options();
        form
    }
}

impl Form {
    /// The preset's defaults for the options the form offers.
    fn reset_options(&mut self) {
        let preset = self.preset;
        self.seats = self.seats.min(preset.max_seats());
        // The defaults are the engine's: the form never restates a rule.
        let defaults = broadside_engine::Rules::resolve(&broadside_engine::Setup {
            preset,
            seats: 2,
            seed: 0,
            options: broadside_engine::Options::default(),
            teams: None,
        })
        .expect("every preset's own defaults are a valid setup");
        self.report = defaults.report;
        self.specials = defaults.specials;
        self.water_ring = defaults.water_ring;
        self.hit_again = defaults.hit_again;
        self.credits = defaults.credits;
    }

    /// The rows that apply to the chosen preset and seat count.
    pub fn fields(&self) -> Vec<Field> {
        let preset = self.preset;
        let mut fields = vec![Field::Preset, Field::Seats];
        fields.extend((0..self.seats - 1).map(Field::Level));
        if preset == Preset::Brasil {
            fields.push(Field::Report);
        }
        if !matches!(preset, Preset::Shared | Preset::Space) {
            fields.push(Field::Specials);
        }
        if self.seats >= 3 {
            fields.push(Field::Salvo);
        }
        if !matches!(preset, Preset::Shared | Preset::Hasbro) {
            fields.push(Field::WaterRing);
        }
        if preset != Preset::Brasil {
            fields.push(Field::HitAgain);
        }
        if preset == Preset::Space {
            fields.push(Field::Credits);
        }
        fields.push(Field::Start);
        if self.online {
            fields.extend([Field::QuickMatch, Field::Leaderboard]);
        }
        fields
    }

    /// Changes a row by one step (`forward` or back).
    fn step(&mut self, field: Field, forward: bool) {
        fn cycle<T: Copy + PartialEq>(all: &[T], now: T, forward: bool) -> T {
            let i = all.iter().position(|&x| x == now).unwrap_or(0);
            let n = all.len();
            all[if forward {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            }]
        }
        match field {
            Field::Preset => {
                self.preset = cycle(&Preset::ALL, self.preset, forward);
                self.reset_options();
            }
            Field::Seats => {
                let max = self.preset.max_seats();
                self.seats = if forward {
                    if self.seats >= max {
                        2
                    } else {
                        self.seats + 1
                    }
                } else if self.seats <= 2 {
                    max
                } else {
                    self.seats - 1
                };
            }
            Field::Level(i) => {
                // The choices of a seat: each level, then (online) "open".
                let mut choices: Vec<Option<Level>> = Level::ALL.into_iter().map(Some).collect();
                if self.online {
                    choices.push(None);
                }
                let now = if self.open[i] {
                    None
                } else {
                    Some(self.levels[i])
                };
                match cycle(&choices, now, forward) {
                    Some(level) => {
                        self.levels[i] = level;
                        self.open[i] = false;
                    }
                    None => self.open[i] = true,
                }
            }
            Field::Report => {
                self.report = cycle(&[Report::PerShot, Report::PerVolley], self.report, forward)
            }
            Field::Specials => self.specials = !self.specials,
            Field::Salvo => {
                self.salvo = cycle(&[SalvoMode::Spread, SalvoMode::Focus], self.salvo, forward)
            }
            Field::WaterRing => self.water_ring = !self.water_ring,
            Field::HitAgain => self.hit_again = !self.hit_again,
            Field::Credits => {
                self.credits = if forward {
                    (self.credits + 50).min(2000)
                } else {
                    self.credits.saturating_sub(50).max(100)
                }
            }
            Field::Start | Field::QuickMatch | Field::Leaderboard => {}
        }
        self.selected = self.selected.min(self.fields().len() - 1);
    }

    /// The room options for the engine; only those that apply are set, so the
    /// engine's checks of other presets' options never fire.
    pub fn options(&self, offline: bool) -> Options {
        let fields = self.fields();
        let mut options = Options::default();
        if fields.contains(&Field::Report) {
            options.report = Some(self.report);
        }
        if fields.contains(&Field::Specials) {
            options.specials = Some(self.specials);
        }
        if fields.contains(&Field::Salvo) {
            options.salvo = Some(self.salvo);
        }
        if fields.contains(&Field::WaterRing) {
            options.water_ring = Some(self.water_ring);
        }
        if fields.contains(&Field::HitAgain) {
            options.hit_again = Some(self.hit_again);
        }
        if fields.contains(&Field::Credits) {
            options.credits = Some(self.credits);
        }
        if offline {
            // Decision: offline games have no clock. A person alone with bots
            // should think as long as they like, and a saved game resumes without
            // a timer that ran on while it was on disk.
            options.turn_seconds = Some(0);
            options.round_seconds = Some(0);
            options.place_seconds = Some(0);
            options.shop_seconds = Some(0);
        }
        options
    }

    /// The value shown on a row.
    pub fn value(&self, field: Field) -> String {
        let on = |b: bool| if b { "on" } else { "off" }.to_string();
        match field {
            Field::Preset => self.preset.id().to_string(),
            Field::Seats => self.seats.to_string(),
            Field::Level(i) if self.open[i] => "open (a person joins)".to_string(),
            Field::Level(i) => format!("bot, {}", self.levels[i].id()),
            Field::Report => match self.report {
                Report::PerShot => "easy (per shot)".to_string(),
                Report::PerVolley => "hard (per volley)".to_string(),
            },
            Field::Specials => on(self.specials),
            Field::Salvo => match self.salvo {
                SalvoMode::Spread => "spread".to_string(),
                SalvoMode::Focus => "focus".to_string(),
            },
            Field::WaterRing => on(self.water_ring),
            Field::HitAgain => on(self.hit_again),
            Field::Credits => self.credits.to_string(),
            Field::Start | Field::QuickMatch | Field::Leaderboard => String::new(),
        }
    }

    pub fn label(field: Field) -> String {
        match field {
            Field::Preset => "Preset".to_string(),
            Field::Seats => "Players".to_string(),
            Field::Level(i) => format!("Seat {}", i + 2),
            Field::Report => "Report".to_string(),
            Field::Specials => "Special weapons".to_string(),
            Field::Salvo => "Salvo".to_string(),
            Field::WaterRing => "Water ring".to_string(),
            Field::HitAgain => "Shoot again on a hit".to_string(),
            Field::Credits => "Credits".to_string(),
            Field::Start => "Start".to_string(),
            Field::QuickMatch => words::QUICK_MATCH.to_string(),
            Field::Leaderboard => words::LEADERBOARD.to_string(),
        }
    }
}

/// Who referees the game.
pub enum Source {
    /// Offline: the engine in this process, with bots in the other seats
    /// (boxed: a game is large and there is only one).
    Local(Box<Local>),
    /// Online: the server referees; this is the link to it.
    Remote(Remote),
}

/// The seat that offered the rematch on offer in a room frame's room, if any.
fn rematch_from(room: &Value) -> Option<usize> {
    room.pointer("/rematch/from")
        .and_then(Value::as_u64)
        .map(|seat| seat as usize)
}

pub struct Local {
    /// Tells this game from a later one (see [`BotMove`]).
    pub id: u64,
    pub game: Game,
    /// The bot of each seat; `None` for the person at the keyboard, and for a
    /// bot while it thinks on its worker thread.
    pub bots: Vec<Option<Bot>>,
    /// The seat whose bot is thinking, if one is.
    pub thinking: Option<usize>,
    /// Events announced while a bot was away thinking, told to it on return.
    pub missed: Vec<Event>,
    /// The levels, kept to write them into a save.
    pub levels: Vec<Option<Level>>,
    /// Draws the layouts that "random" proposes during placement.
    pub rng: Pcg64Mcg,
}

pub struct Remote {
    /// Frames to send; the network thread drains it.
    pub out: Sender<String>,
    pub connected: bool,
    /// The server address, to connect again after the link drops.
    pub server: String,
    /// When to try to connect again, while the link is down.
    pub retry_at: Option<std::time::Instant>,
    /// Failed connections in a row (the wait before the next grows with it).
    pub attempts: u32,
    /// Ticks since the last keep-alive ping.
    pub idle_ticks: u32,
    /// When the running timer of the game runs out, as the last `state` said.
    pub deadline: Option<std::time::Instant>,
    /// The room as the last `room` frame described it.
    pub room: Option<Value>,
}

/// Placing the fleet, one ship after another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placing {
    /// Type ids of the whole fleet, largest first.
    pub fleet: Vec<String>,
    /// The ships laid so far (a prefix of `fleet`).
    pub placed: Vec<Placement>,
    /// Anchor and rotation of the ship being moved.
    pub at: Cell,
    pub rot: u8,
    /// The board and the part of it (origin, size) where the fleet goes.
    pub board: usize,
    pub origin: Cell,
    pub area: Size,
    /// The engine's (or the server's) verdict on `placed` + the moving ship;
    /// `None` while the server has not answered.
    pub check: Option<Result<(), String>>,
}

/// Buying a space fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shop {
    pub counts: BTreeMap<String, u32>,
    pub selected: usize,
}

/// One game being played, offline or online.
pub struct Play {
    pub source: Source,
    pub view: Option<View>,
    pub rules: Option<Rules>,
    /// This terminal's seat (`None`: spectator).
    pub me: Option<usize>,
    /// A display name per seat.
    pub names: Vec<String>,
    /// Online: each person's rating in the room's preset, as shown beside the
    /// name (`1662?` while provisional); `None` for bots, open seats and the unrated.
    pub ratings: Vec<Option<String>>,
    pub log: Vec<String>,
    pub placing: Option<Placing>,
    pub shop: Option<Shop>,
    pub cursor: Cell,
    /// The board the cursor is on in battle.
    pub target: usize,
    /// When only one board fits: whether it is the own board.
    pub own_shown: bool,
    /// The ability or special that Enter uses instead of a shot.
    pub action: Option<ActionKind>,
    pub laser_end: End,
    pub bombard_column: bool,
    /// Cells chosen for a salvo or a hard-rule volley, not yet sent.
    pub picks: Vec<Target>,
    /// The ability chosen for the salvo being prepared.
    pub salvo_action: Option<Action>,
    /// Choosing the cells of the reserve's fighters on the own field.
    pub reserve: Option<ReservePick>,
}

/// The reserve's fighters being placed: the cells chosen so far, and the board
/// aimed at before (in a salvo round the reserve replaces the shots on it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservePick {
    pub cells: Vec<Cell>,
    pub back_to: usize,
    pub salvo: bool,
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
}

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

/// Waiting in the quick-match queue (`matching` and `bot_offer` frames).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    pub preset: Preset,
    /// How many wait for the preset, this person included; `None` until the
    /// server has answered.
    pub waiting: Option<u64>,
    /// When the wait began, by the server's `waited_ms`.
    pub since: Instant,
    /// After how long the server offers a bot.
    pub bot_offer_ms: Option<u64>,
    /// The level of the bot on offer, once the server offers one.
    pub bot_offer: Option<String>,
    /// `cancel_match` is sent and `match_cancelled` awaited.
    pub cancelling: bool,
}

impl Matching {
    fn new(preset: Preset) -> Matching {
        Matching {
            preset,
            waiting: None,
            since: Instant::now(),
            bot_offer_ms: None,
            bot_offer: None,
            cancelling: false,
        }
    }
}

/// The best ratings of one preset (`leaderboard` frame).
#[derive(Debug, Clone, PartialEq)]
pub struct Leaderboard {
    pub preset: Preset,
    /// `None` while the server has not answered.
    pub players: Option<Vec<Ranked>>,
    /// The first row on show.
    pub scroll: usize,
}

/// One row of the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub nickname: String,
    pub rating: f64,
    pub provisional: bool,
    pub games: u64,
    pub wins: u64,
}

impl Ranked {
    fn from_frame(player: &Value) -> Option<Ranked> {
        let count = |key: &str| player.get(key).and_then(Value::as_u64).unwrap_or(0);
        Some(Ranked {
            nickname: player.get("nickname")?.as_str()?.to_string(),
            rating: player.get("rating")?.as_f64()?,
            provisional: player
                .get("provisional")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            games: count("games"),
            wins: count("wins"),
        })
    }
}

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
    fn from_frame(game: &Value) -> Option<MyGame> {
        let text = |key: &str| game.get(key).and_then(Value::as_str).map(str::to_string);
        let seat = game.get("seat").and_then(Value::as_u64);
        let opponents: Vec<String> = game
            .get("players")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|p| p.get("seat").and_then(Value::as_u64) != seat)
            .map(|p| {
                match (
                    p.get("kind").and_then(Value::as_str),
                    p.get("nickname").and_then(Value::as_str),
                    p.get("level").and_then(Value::as_str),
                ) {
                    (Some("bot"), _, Some(level)) => format!("bot ({level})"),
                    (Some("bot"), _, None) => "bot".to_string(),
                    (_, Some(name), _) if !name.is_empty() => name.to_string(),
                    _ => "open seat".to_string(),
                }
            })
            .collect();
        Some(MyGame {
            code: text("code")?,
            preset: text("preset").unwrap_or_default(),
            phase: text("phase").unwrap_or_default(),
            opponents: opponents.join(", "),
            your_turn: game
                .get("your_turn")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// The default file name for saves.
pub const DEFAULT_SAVE: &str = "broadside-save.json";

/// The save file of the terminal: the engine's save plus who sits where.
#[derive(serde::Serialize, serde::Deserialize)]
struct SaveFile {
    /// Format marker and version.
    broadside_terminal: u32,
    /// The seat of the person.
    seat: usize,
    /// The bot level of each seat (`null` for the person).
    bots: Vec<Option<Level>>,
    /// [`Game::save`]'s string, kept verbatim.
    game: String,
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
            sender,
            save_path: DEFAULT_SAVE.to_string(),
            seed,
            config,
            my_games: Vec::new(),
            my_game: 0,
            matching: None,
            leaderboard: None,
            back: Screen::NewGame,
        };
        if let Some(server) = app.config.server.clone() {
            app.connect(&server);
        } else if let Some(path) = app.config.load.clone() {
            app.load(&path.to_string_lossy());
        }
        app
    }

    fn say(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            error: false,
        });
    }

    fn warn(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            error: true,
        });
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
                if self.show_keys {
                    self.show_keys = false;
                    return;
                }
                if key.code == KeyCode::Char('?') {
                    self.show_keys = true;
                    return;
                }
                match self.screen {
                    Screen::Menu => self.menu_key(key),
                    Screen::NewGame => self.form_key(key),
                    Screen::MyGames => self.my_games_key(key),
                    Screen::Lobby => self.lobby_key(key),
                    Screen::Matching => self.matching_key(key),
                    Screen::Leaderboard => self.leaderboard_key(key),
                    Screen::Play => self.play_key(key),
                }
            }
            Msg::Resize => {}
            Msg::Tick => self.tick(),
            Msg::Bot(decision) => {
                if let Some(play) = self.play.as_mut() {
                    play.bot_returns(decision);
                }
            }
            Msg::Net(event) => self.net(event),
        }
    }

    // ----- menu, form, prompts ---------------------------------------------------

    fn menu_key(&mut self, key: KeyEvent) {
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

    fn menu_choose(&mut self, entry: usize) {
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

    fn form_key(&mut self, key: KeyEvent) {
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

    fn my_games_key(&mut self, key: KeyEvent) {
        // The games first, then the entries of the online start.
        let count = self.my_games.len() + START_ENTRIES.len();
        match key.code {
            KeyCode::Up => self.my_game = (self.my_game + count - 1) % count,
            KeyCode::Down | KeyCode::Tab => self.my_game = (self.my_game + 1) % count,
            KeyCode::Enter => {
                if let Some(game) = self.my_games.get(self.my_game) {
                    let code = game.code.clone();
                    self.send_frame(json!({"type": "join_room", "code": code, "as": "player"}));
                    self.say(format!("Joining room {code}…"));
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

    fn new_room_form(&mut self) {
        self.screen = Screen::NewGame;
        self.say("Choose the game for your new room.");
    }

    // ----- public play: quick match, leaderboard ------------------------------------

    /// Joins the quick-match queue with the preset of the New Game form.
    fn quick_match(&mut self) {
        let preset = self.form.preset;
        self.back = self.screen;
        self.matching = Some(Matching::new(preset));
        self.screen = Screen::Matching;
        self.send_frame(json!({"type": "quick_match", "preset": preset.id()}));
        self.say(words::looking(preset.id()));
    }

    /// Leaves the waiting screen for the online start it came from.
    fn end_matching(&mut self) {
        self.matching = None;
        if self.screen == Screen::Matching {
            self.screen = self.back;
        }
    }

    /// The server says the wait is over without a game: back to the start.
    fn wait_cancelled(&mut self) {
        let shown = self.screen == Screen::Matching;
        self.end_matching();
        if shown {
            self.say(words::CANCELLED);
        }
    }

    fn matching_key(&mut self, key: KeyEvent) {
        let connected = self.connected();
        let Some(matching) = self.matching.as_mut() else {
            self.screen = self.back;
            return;
        };
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => {
                if connected {
                    matching.cancelling = true;
                    self.send_frame(json!({"type": "cancel_match"}));
                    self.say(words::CANCELLING);
                } else {
                    // Nobody to tell: the server left the queue with the link.
                    self.end_matching();
                    self.say(words::CANCELLED);
                }
            }
            KeyCode::Char('b') => {
                if let Some(level) = matching.bot_offer.clone() {
                    self.send_frame(json!({"type": "accept_bot"}));
                    self.say(words::accepting_bot(&level));
                }
            }
            _ => {}
        }
    }

    /// Shows the leaderboard of the New Game form's preset.
    fn open_leaderboard(&mut self) {
        self.back = self.screen;
        self.screen = Screen::Leaderboard;
        self.notice = None;
        self.show_leaderboard(self.form.preset);
    }

    fn show_leaderboard(&mut self, preset: Preset) {
        self.leaderboard = Some(Leaderboard {
            preset,
            players: None,
            scroll: 0,
        });
        self.send_frame(json!({"type": "leaderboard", "preset": preset.id()}));
    }

    fn leaderboard_key(&mut self, key: KeyEvent) {
        let Some(board) = self.leaderboard.as_mut() else {
            self.screen = self.back;
            return;
        };
        let rows = board.players.as_ref().map_or(0, Vec::len);
        match key.code {
            KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab => {
                let all = Preset::ALL;
                let i = all.iter().position(|&p| p == board.preset).unwrap_or(0);
                let forward = matches!(key.code, KeyCode::Right | KeyCode::Tab);
                let next = all[(i + if forward { 1 } else { all.len() - 1 }) % all.len()];
                self.show_leaderboard(next);
            }
            KeyCode::Up => board.scroll = board.scroll.saturating_sub(1),
            KeyCode::Down => board.scroll = (board.scroll + 1).min(rows.saturating_sub(1)),
            KeyCode::Esc | KeyCode::Char('q') => {
                self.leaderboard = None;
                self.screen = self.back;
            }
            _ => {}
        }
    }

    fn prompt_key(&mut self, key: KeyEvent) {
        let Some(prompt) = self.prompt.as_mut() else {
            return;
        };
        if prompt.kind.is_question() {
            let yes = matches!(
                key.code,
                KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter
            );
            let kind = prompt.kind;
            self.prompt = None;
            if yes && kind == PromptKind::ConfirmLeave {
                self.leave_game();
            } else if yes {
                self.resign();
            }
            return;
        }
        match key.code {
            KeyCode::Esc => self.prompt = None,
            KeyCode::Backspace => {
                prompt.text.pop();
            }
            KeyCode::Char(c) if prompt.text.len() < 200 => prompt.text.push(c),
            KeyCode::Enter => {
                let Some(Prompt { kind, text }) = self.prompt.take() else {
                    return;
                };
                match kind {
                    PromptKind::SavePath => self.save(text.trim()),
                    PromptKind::LoadPath => self.load(text.trim()),
                    PromptKind::Label => self.aim_label(text.trim()),
                    PromptKind::Chat => {
                        let text = text.trim();
                        if !text.is_empty() {
                            self.send_frame(json!({"type": "chat", "text": text}));
                        }
                    }
                    PromptKind::ConfirmLeave | PromptKind::ConfirmResign => {}
                }
            }
            _ => {}
        }
    }

    fn resign(&mut self) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let Some(me) = play.me else { return };
        match play.submit(Command::Resign { seat: me }) {
            Ok(_) => self.say("You resigned."),
            Err(e) => self.warn(e),
        }
    }

    fn leave_game(&mut self) {
        if self.online() {
            if let Some(Source::Remote(remote)) = self.play.as_ref().map(|p| &p.source) {
                // The server keeps the seat; leaving just says goodbye.
                let _ = remote.out.send(json!({"type": "leave"}).to_string());
            }
            self.quit = true;
            return;
        }
        self.play = None;
        self.screen = Screen::Menu;
        self.notice = None;
    }

    // ----- starting, saving, loading ---------------------------------------------

    fn start_new_game(&mut self) {
        let form = self.form.clone();
        if self.online() {
            let bots: Vec<Value> = (1..form.seats)
                .filter(|&seat| !form.open[seat - 1])
                .map(|seat| json!({"seat": seat, "level": form.levels[seat - 1].id()}))
                .collect();
            let frame = json!({
                "type": "create_room",
                "preset": form.preset.id(),
                "seats": form.seats,
                "options": form.options(false),
                "teams": null,
                "bots": bots,
            });
            self.send_frame(frame);
            self.screen = Screen::Lobby;
            self.say("Creating the room…");
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
                let levels: Vec<Option<Level>> = (0..form.seats)
                    .map(|s| {
                        if s == 0 {
                            None
                        } else {
                            Some(form.levels[s - 1])
                        }
                    })
                    .collect();
                self.start_local(game, 0, levels);
                self.say(format!("New {} game. Good luck!", form.preset.id()));
            }
            Err(e) => self.warn(format!("Cannot start this game: {e}")),
        }
    }

    /// An offline game already under way (for tests and tools): `me` is the
    /// person's seat and `levels` the bot of every seat (`None` for `me`).
    pub fn offline(config: Config, game: Game, me: usize, levels: Vec<Option<Level>>) -> App {
        let mut app = App::unconnected(config);
        app.start_local(game, me, levels);
        app
    }

    /// A client that neither connects nor loads at its start.
    fn unconnected(config: Config) -> App {
        App::new(
            Config {
                server: None,
                load: None,
                ..config
            },
            None,
        )
    }

    fn start_local(&mut self, game: Game, me: usize, levels: Vec<Option<Level>>) {
        let seeds: Vec<u64> = (0..levels.len()).map(|_| self.next_seed()).collect();
        let bots = levels
            .iter()
            .zip(&seeds)
            .map(|(level, &seed)| level.map(|l| Bot::for_level(l, seed)))
            .collect();
        let names = levels
            .iter()
            .enumerate()
            .map(|(seat, level)| match level {
                None if seat == me => "You".to_string(),
                None => format!("Player {}", seat + 1),
                Some(_) => format!("Bot {seat}"),
            })
            .collect();
        let rng = Pcg64Mcg::seed_from_u64(self.next_seed());
        let rules = game.rules().clone();
        let mut play = Play::new(
            Source::Local(Box::new(Local {
                id: self.next_seed(),
                game,
                bots,
                thinking: None,
                missed: Vec::new(),
                levels,
                rng,
            })),
            Some(me),
            names,
        );
        play.rules = Some(rules);
        play.refresh_local();
        self.play = Some(play);
        self.screen = Screen::Play;
    }

    fn save(&mut self, path: &str) {
        let Some(play) = self.play.as_ref() else {
            return;
        };
        let Source::Local(local) = &play.source else {
            self.warn("Online games are kept by the server; there is nothing to save here.");
            return;
        };
        let file = SaveFile {
            broadside_terminal: 1,
            seat: play.me.unwrap_or(0),
            bots: local.levels.clone(),
            game: local.game.save(),
        };
        let text = serde_json::to_string_pretty(&file).expect("a save file is plain data");
        match std::fs::write(path, text) {
            Ok(()) => {
                self.save_path = path.to_string();
                self.say(format!("Saved to {path}."));
            }
            Err(e) => self.warn(format!("Cannot save to {path}: {e}")),
        }
    }

    fn load(&mut self, path: &str) {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                self.warn(format!("Cannot read {path}: {e}"));
                return;
            }
        };
        // A terminal save, or a bare engine save (from the browser or the
        // referee): then the person takes seat 0 and bots of medium level the rest.
        let (saved, me, levels) = match serde_json::from_str::<SaveFile>(&text) {
            Ok(file) => (file.game, file.seat, Some(file.bots)),
            Err(_) => (text, 0, None),
        };
        match Game::load(&saved) {
            Ok(game) => {
                let seats = game.seat_count();
                let levels = match levels {
                    Some(levels) if levels.len() == seats && me < seats && levels[me].is_none() => {
                        levels
                    }
                    _ => (0..seats)
                        .map(|s| (s != me).then_some(Level::Medium))
                        .collect(),
                };
                self.start_local(game, me.min(seats - 1), levels);
                self.save_path = path.to_string();
                if let Some(play) = self.play.as_mut() {
                    play.log.push(format!("Game loaded from {path}."));
                }
                self.say(format!("Loaded {path}."));
            }
            Err(e) => self.warn(format!("Cannot load {path}: {e}")),
        }
    }

    // ----- online -------------------------------------------------------------------

    fn connect(&mut self, server: &str) {
        let Some(sender) = self.sender.clone() else {
            self.warn("no event loop to connect from");
            return;
        };
        match net::connect(server, sender) {
            Ok(out) => self.link(server, out),
            Err(e) => {
                self.warn(e.to_string());
                self.screen = Screen::Lobby;
            }
        }
    }

    /// Takes `out` as the link to `server`; the socket reports `Connected` later.
    fn link(&mut self, server: &str, out: Sender<String>) {
        let source = Source::Remote(Remote {
            out,
            connected: false,
            server: server.to_string(),
            retry_at: None,
            attempts: 0,
            idle_ticks: 0,
            deadline: None,
            room: None,
        });
        self.play = Some(Play::new(source, None, Vec::new()));
        self.screen = Screen::Lobby;
        self.say(format!("Connecting to {server}…"));
    }

    /// An online client whose link is a channel instead of a socket (for tests
    /// and tools): the frames it sends arrive on the receiver of `out`, and the
    /// server's side is played by handing [`Msg::Net`] to [`App::update`].
    pub fn online_over(config: Config, out: Sender<String>) -> App {
        let server = config.server.clone().unwrap_or_default();
        let mut app = App::unconnected(config);
        app.config.server = Some(server.clone());
        app.link(&server, out);
        app
    }

    fn send_frame(&mut self, frame: Value) {
        if let Some(Play {
            source: Source::Remote(remote),
            ..
        }) = self.play.as_ref()
        {
            if remote.out.send(frame.to_string()).is_err() {
                self.warn("The connection is closed.");
            }
        }
    }

    fn net(&mut self, event: NetEvent) {
        match event {
            NetEvent::Connected => {
                if let Some(Play {
                    source: Source::Remote(remote),
                    ..
                }) = self.play.as_mut()
                {
                    remote.connected = true;
                }
                let nickname = self
                    .config
                    .nickname
                    .clone()
                    .unwrap_or_else(|| "Captain".to_string());
                self.send_frame(
                    json!({"type": "hello", "token": self.read_token(), "nickname": nickname, "lang": "en"}),
                );
            }
            NetEvent::Closed(reason) => {
                let Some(Play {
                    source: Source::Remote(remote),
                    ..
                }) = self.play.as_mut()
                else {
                    return self.warn(format!("Disconnected: {reason}"));
                };
                // Try again, waiting 1, 2, 4, 8 and then 10 seconds; the game
                // waits on the server and the token gets the seat back.
                remote.connected = false;
                remote.attempts += 1;
                let wait = (1u64 << (remote.attempts - 1).min(4)).min(10);
                remote.retry_at =
                    Some(std::time::Instant::now() + std::time::Duration::from_secs(wait));
                self.warn(format!(
                    "Reconnecting in {wait} s… (q leaves) Disconnected: {reason}."
                ));
            }
            NetEvent::Frame(frame) => self.frame(frame),
        }
    }

    fn frame(&mut self, frame: Value) {
        let kind = frame.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "welcome" => {
                if let Some(Play {
                    source: Source::Remote(remote),
                    ..
                }) = self.play.as_mut()
                {
                    remote.attempts = 0;
                }
                self.form.online = true;
                self.after_welcome();
                if !self.store_token(frame.get("token").and_then(Value::as_str)) {
                    self.warn("Cannot keep the session token; this seat cannot be resumed later.");
                }
            }
            "room" => {
                let Some(room) = frame.get("room").cloned() else {
                    return;
                };
                let started = room
                    .get("started")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                // After a dropped link, this is the room to join again.
                if let Some(code) = room.get("code").and_then(Value::as_str) {
                    self.config.room = Some(code.to_string());
                }
                let Some(play) = self.play.as_mut() else {
                    return;
                };
                let offered_before = match &play.source {
                    Source::Remote(remote) => remote.room.as_ref().and_then(rematch_from),
                    Source::Local(_) => None,
                };
                play.take_room(&room);
                self.screen = if started { Screen::Play } else { Screen::Lobby };
                // Another player's rematch offer waits for this one's answer.
                let offer = match (offered_before, rematch_from(&room)) {
                    (None, Some(from)) if Some(from) != play.me => {
                        let name = play.names.get(from).cloned().unwrap_or_default();
                        Some(format!("{name} offers a rematch: n accepts, q leaves."))
                    }
                    _ => None,
                };
                // Paired (or the bot accepted): the game goes on like any other.
                if self.matching.take().is_some() {
                    let opponent = play
                        .names
                        .iter()
                        .enumerate()
                        .find(|&(seat, _)| Some(seat) != play.me)
                        .map(|(_, name)| name.clone())
                        .unwrap_or_default();
                    let rated = room
                        .pointer("/setup/rated")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    self.say(words::paired(&opponent, rated));
                }
                if let Some(offer) = offer {
                    self.say(offer);
                }
            }
            "state" => {
                let Some(play) = self.play.as_mut() else {
                    return;
                };
                match serde_json::from_value::<View>(
                    frame.get("view").cloned().unwrap_or(Value::Null),
                ) {
                    Ok(view) => {
                        let events: Vec<Event> = serde_json::from_value(
                            frame.get("events").cloned().unwrap_or(json!([])),
                        )
                        .unwrap_or_default();
                        play.log_events(&events);
                        if let Source::Remote(remote) = &mut play.source {
                            remote.deadline =
                                frame.get("deadline_ms").and_then(Value::as_u64).map(|ms| {
                                    std::time::Instant::now() + std::time::Duration::from_millis(ms)
                                });
                        }
                        play.view = Some(view);
                        play.sync();
                        self.screen = Screen::Play;
                    }
                    Err(e) => self.warn(format!(
                        "The server sent a view this client cannot read: {e}"
                    )),
                }
            }
            "layout_check" => {
                let ok = frame.get("ok").and_then(Value::as_bool).unwrap_or(false);
                let message = frame
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("illegal position")
                    .to_string();
                if let Some(placing) = self.play.as_mut().and_then(|p| p.placing.as_mut()) {
                    placing.check = Some(if ok { Ok(()) } else { Err(message) });
                }
            }
            "layout" => {
                let ships: Vec<Placement> =
                    serde_json::from_value(frame.get("ships").cloned().unwrap_or(json!([])))
                        .unwrap_or_default();
                if let Some(play) = self.play.as_mut() {
                    if let Some(placing) = play.placing.as_mut() {
                        if ships.len() == placing.fleet.len() {
                            placing.placed = ships;
                            placing.check = Some(Ok(()));
                        }
                    }
                }
            }
            "games" => {
                self.my_games = frame
                    .get("games")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(MyGame::from_frame)
                    .collect();
                self.my_game = 0;
                if self.screen == Screen::NewGame && !self.my_games.is_empty() {
                    self.screen = Screen::MyGames;
                    self.say(format!(
                        "You have {} unfinished game(s): Enter continues one, n starts a new room.",
                        self.my_games.len()
                    ));
                }
            }
            "matching" => {
                if let Some(matching) = self.matching.as_mut() {
                    let waited = frame.get("waited_ms").and_then(Value::as_u64).unwrap_or(0);
                    let now = Instant::now();
                    matching.since = now
                        .checked_sub(Duration::from_millis(waited))
                        .unwrap_or(now);
                    matching.waiting = frame.get("waiting").and_then(Value::as_u64);
                    matching.bot_offer_ms = frame.get("bot_offer_ms").and_then(Value::as_u64);
                }
            }
            "bot_offer" => {
                let level = frame.get("level").and_then(Value::as_str).unwrap_or("");
                if let Some(matching) = self.matching.as_mut() {
                    matching.bot_offer = Some(level.to_string());
                    self.say(words::bot_offered(level));
                }
            }
            "match_cancelled" => self.wait_cancelled(),
            "leaderboard" => {
                let preset = frame.get("preset").and_then(Value::as_str);
                if let Some(board) = self.leaderboard.as_mut() {
                    if preset == Some(board.preset.id()) {
                        board.players = Some(
                            frame
                                .get("players")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                                .filter_map(Ranked::from_frame)
                                .collect(),
                        );
                    }
                }
            }
            "error" if frame.get("code").and_then(Value::as_str) == Some("not_matching") => {
                // Not (or no longer) waiting: paired at the same moment (then the
                // room follows), or the queue was left.
                self.wait_cancelled();
            }
            "rematch_declined" => {
                let name = frame
                    .get("nickname")
                    .and_then(Value::as_str)
                    .unwrap_or("A player");
                self.say(match frame.get("reason").and_then(Value::as_str) {
                    Some("left") => format!("{name} left: no rematch."),
                    Some("withdrawn") => format!("{name} withdrew the rematch offer."),
                    _ => format!("{name} declined the rematch."),
                });
            }
            "chat" => {
                let from = frame.get("from").and_then(Value::as_str).unwrap_or("?");
                let text = frame.get("text").and_then(Value::as_str).unwrap_or("");
                if let Some(play) = self.play.as_mut() {
                    play.log.push(format!("{from}: {text}"));
                }
            }
            "error" if frame.get("code").and_then(Value::as_str) == Some("room_full") => {
                // Every seat is taken: watch instead.
                if let Some(code) = self.config.room.clone() {
                    self.send_frame(json!({"type": "join_room", "code": code, "as": "spectator"}));
                    self.say("The room is full: you watch as a spectator.");
                }
            }
            "error" => {
                let code = frame.get("code").and_then(Value::as_str).unwrap_or("error");
                let message = frame.get("message").and_then(Value::as_str).unwrap_or("");
                if frame.get("request").and_then(Value::as_str) == Some("quick_match") {
                    self.end_matching();
                }
                self.warn(format!("{message} ({code})"));
            }
            _ => {}
        }
    }

    /// After `welcome`: wait again for the quick match or ask again for the
    /// leaderboard that the dropped link interrupted, join the room of `--room`,
    /// or offer the form for a new one.
    fn after_welcome(&mut self) {
        if let Some(matching) = self.matching.as_mut() {
            if matching.cancelling {
                self.end_matching();
                self.say(words::CANCELLED);
            } else {
                let preset = matching.preset;
                *matching = Matching::new(preset);
                self.send_frame(json!({"type": "quick_match", "preset": preset.id()}));
                self.say(words::looking(preset.id()));
            }
            return;
        }
        if self.screen == Screen::Leaderboard {
            if let Some(preset) = self.leaderboard.as_ref().map(|b| b.preset) {
                self.show_leaderboard(preset);
                return;
            }
        }
        match self.config.room.clone() {
            Some(code) => {
                self.send_frame(json!({"type": "join_room", "code": code, "as": "player"}));
                self.say(format!("Joining room {code}…"));
            }
            None => {
                self.screen = Screen::NewGame;
                self.say("Connected. Choose the game for your new room.");
                // Unfinished games, if any, are offered first.
                self.send_frame(json!({"type": "my_games"}));
            }
        }
    }

    fn read_token(&self) -> Option<String> {
        let path = self.config.token_file.as_ref()?;
        let token = std::fs::read_to_string(path).ok()?;
        let token = token.trim();
        (!token.is_empty()).then(|| token.to_string())
    }

    /// Keeps the token for the next connection; false if it could not be written.
    fn store_token(&self, token: Option<&str>) -> bool {
        let (Some(path), Some(token)) = (self.config.token_file.as_ref(), token) else {
            return true;
        };
        if self.read_token().as_deref() == Some(token) {
            return true;
        }
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() && std::fs::create_dir_all(dir).is_err() {
                return false;
            }
        }
        std::fs::write(path, token).is_ok()
    }

    fn lobby_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Enter | KeyCode::Char('s') => {
                let host = self.play.as_ref().is_some_and(Play::is_host);
                if host {
                    self.send_frame(json!({"type": "start"}));
                } else {
                    self.say("Waiting for the host to start the game.");
                }
            }
            KeyCode::Char('q') | KeyCode::Esc => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::ConfirmLeave,
                    text: String::new(),
                })
            }
            _ => {}
        }
    }

    // ----- playing ------------------------------------------------------------------

    fn tick(&mut self) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        match &mut play.source {
            Source::Local(_) => {
                play.step_bots(self.sender.as_ref());
            }
            Source::Remote(remote) => {
                if remote
                    .retry_at
                    .is_some_and(|at| std::time::Instant::now() >= at)
                {
                    remote.retry_at = None;
                    if let Some(sender) = self.sender.clone() {
                        match net::connect(&remote.server, sender) {
                            Ok(out) => remote.out = out,
                            Err(e) => {
                                self.notice = Some(Notice {
                                    text: e.to_string(),
                                    error: true,
                                })
                            }
                        }
                    }
                    return;
                }
                // A ping now and then keeps idle connections (and proxies) open.
                remote.idle_ticks += 1;
                if remote.idle_ticks >= 200 && remote.connected {
                    remote.idle_ticks = 0;
                    let _ = remote.out.send(json!({"type": "ping"}).to_string());
                }
            }
        }
    }

    fn play_key(&mut self, key: KeyEvent) {
        // A notice answers the last key; the next key makes it old news.
        self.notice = None;
        let Some(play) = self.play.as_mut() else {
            self.screen = Screen::Menu;
            return;
        };
        // Keys that work in every phase.
        match key.code {
            KeyCode::Char('s') => {
                if matches!(play.source, Source::Local(_)) {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::SavePath,
                        text: self.save_path.clone(),
                    });
                } else {
                    self.warn("Online games are kept by the server; rejoin the room to continue.");
                }
                return;
            }
            KeyCode::Char('q') => {
                let finished = play
                    .view
                    .as_ref()
                    .is_some_and(|v| v.phase == Phase::Finished);
                if finished {
                    self.leave_game();
                } else {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::ConfirmLeave,
                        text: String::new(),
                    });
                }
                return;
            }
            KeyCode::Char('n')
                if play
                    .view
                    .as_ref()
                    .is_some_and(|v| v.phase == Phase::Finished) =>
            {
                if matches!(play.source, Source::Remote(_)) {
                    // Same seats and setup, a new seed: an offer the other
                    // people accept by asking too (bots accept at once).
                    self.send_frame(json!({"type": "rematch"}));
                    self.say("Rematch asked: it starts when everybody accepts.");
                } else {
                    // The form still holds this game's choices.
                    self.play = None;
                    self.screen = Screen::NewGame;
                }
                return;
            }
            _ => {}
        }
        let result = if play.shop.is_some() {
            play.shop_key(key)
        } else if play.placing.is_some() {
            play.placing_key(key)
        } else {
            match key.code {
                KeyCode::Char(':') | KeyCode::Char('t') => {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::Label,
                        text: String::new(),
                    });
                    return;
                }
                KeyCode::Char('R') => {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::ConfirmResign,
                        text: String::new(),
                    });
                    return;
                }
                KeyCode::Char('c') if matches!(play.source, Source::Remote(_)) => {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::Chat,
                        text: String::new(),
                    });
                    return;
                }
                _ => play.battle_key(key),
            }
        };
        match result {
            Ok(Some(text)) => self.say(text),
            Ok(None) => {}
            Err(text) => self.warn(text),
        }
    }

    fn aim_label(&mut self, text: &str) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let Some(view) = play.view.as_ref() else {
            return;
        };
        let Some(size) = play.board_size(play.target) else {
            return;
        };
        match parse_label(view.letter_axis, size, text) {
            Ok(cell) => {
                play.cursor = cell;
                play.own_shown = false;
                match play.act() {
                    Ok(Some(text)) => self.say(text),
                    Ok(None) => {}
                    Err(text) => self.warn(text),
                }
            }
            Err(e) => self.warn(e.to_string()),
        }
    }
}

/// What a key did: a message for the player, or an error.
type KeyResult = Result<Option<String>, String>;

impl Play {
    fn new(source: Source, me: Option<usize>, names: Vec<String>) -> Play {
        Play {
            source,
            view: None,
            rules: None,
            me,
            names,
            ratings: Vec::new(),
            log: Vec::new(),
            placing: None,
            shop: None,
            cursor: Cell::new(0, 0),
            target: 0,
            own_shown: false,
            action: None,
            laser_end: End::Top,
            bombard_column: false,
            picks: Vec::new(),
            salvo_action: None,
            reserve: None,
        }
    }

    /// Whether this terminal is the host of its online room.
    pub fn is_host(&self) -> bool {
        match &self.source {
            Source::Remote(Remote {
                room: Some(room), ..
            }) => {
                let host = room.get("host").and_then(Value::as_u64);
                let me = room.pointer("/you/seat").and_then(Value::as_u64);
                host.is_some() && host == me
            }
            _ => false,
        }
    }

    /// The names, rules and seat of an online room frame.
    fn take_room(&mut self, room: &Value) {
        if let Some(seats) = room.get("seats").and_then(Value::as_array) {
            self.names = seats
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let kind = s.get("kind").and_then(Value::as_str).unwrap_or("");
                    match (kind, s.get("nickname").and_then(Value::as_str)) {
                        ("bot", _) => format!("Bot {i}"),
                        (_, Some(name)) if !name.is_empty() => name.to_string(),
                        ("open", _) => format!("(open seat {})", i + 1),
                        _ => format!("Player {}", i + 1),
                    }
                })
                .collect();
            self.ratings = seats
                .iter()
                .map(|s| {
                    let rating = s.get("rating").and_then(Value::as_f64)?;
                    let provisional = s.get("provisional").and_then(Value::as_bool);
                    Some(words::rating(rating, provisional.unwrap_or(false)))
                })
                .collect();
        }
        self.me = room
            .pointer("/you/seat")
            .and_then(Value::as_u64)
            .map(|s| s as usize);
        if let Some(rules) = room
            .get("rules")
            .and_then(|r| serde_json::from_value::<Rules>(r.clone()).ok())
        {
            self.rules = Some(rules);
        }
        if let Source::Remote(remote) = &mut self.source {
            remote.room = Some(room.clone());
        }
    }

    /// Sends a command: offline to the engine, online to the server.
    fn submit(&mut self, command: Command) -> KeyResult {
        match &mut self.source {
            Source::Local(local) => match local.game.apply(command) {
                Ok(events) => {
                    self.after_local(&events);
                    Ok(None)
                }
                Err(e) => Err(e.to_string()),
            },
            Source::Remote(remote) => {
                let mut value = serde_json::to_value(&command).expect("commands are plain data");
                if let Some(object) = value.as_object_mut() {
                    // The server inserts the connection's own seat.
                    object.remove("seat");
                }
                remote
                    .out
                    .send(json!({"type": "command", "command": value}).to_string())
                    .map(|_| None)
                    .map_err(|_| "The connection is closed.".to_string())
            }
        }
    }

    /// After an accepted offline command: bots learn what their seats may
    /// know, the log tells what this seat may know, and the view is rebuilt.
    fn after_local(&mut self, events: &[Event]) {
        let Source::Local(local) = &mut self.source else {
            return;
        };
        for (seat, bot) in local.bots.iter_mut().enumerate() {
            if let Some(bot) = bot {
                bot.observe(&local.game.events_for(Some(seat), events));
            } else if local.thinking == Some(seat) {
                let seen = local.game.events_for(Some(seat), events);
                local.missed.extend(seen);
            }
        }
        let mine = local.game.events_for(self.me, events);
        self.log_events(&mine);
        self.refresh_local();
    }

    fn refresh_local(&mut self) {
        if let Source::Local(local) = &self.source {
            self.view = Some(local.game.view(self.me));
        }
        self.sync();
    }

    /// Lets a due bot move. With a channel the bot thinks on a worker thread
    /// and its move comes back as [`Msg::Bot`]; without one (tests) it moves
    /// at once. Returns whether something happened.
    pub fn step_bots(&mut self, sender: Option<&Sender<Msg>>) -> bool {
        let Source::Local(local) = &mut self.source else {
            return false;
        };
        if local.thinking.is_some() {
            return false;
        }
        let due = local
            .game
            .to_move()
            .into_iter()
            .find(|&seat| local.bots.get(seat).is_some_and(Option::is_some));
        let Some(seat) = due else {
            return false;
        };
        let view = local.game.view(Some(seat));
        match sender {
            Some(sender) => {
                let Some(mut bot) = local.bots[seat].take() else {
                    return false;
                };
                let rules = local.game.rules().clone();
                let sender = sender.clone();
                let game = local.id;
                local.thinking = Some(seat);
                std::thread::spawn(move || {
                    let command = bot.next_command(&view, &rules);
                    // The app may have quit meanwhile; then the move is moot.
                    let _ = sender.send(Msg::Bot(BotMove {
                        game,
                        seat,
                        bot: Box::new(bot),
                        command,
                    }));
                });
                true
            }
            None => {
                let Some(bot) = local.bots[seat].as_mut() else {
                    return false;
                };
                match bot.next_command(&view, local.game.rules()) {
                    Some(command) => {
                        self.apply_bot(seat, command);
                        true
                    }
                    None => false,
                }
            }
        }
    }

    /// A bot is back from its worker thread: it learns what it missed, then
    /// its move is applied.
    fn bot_returns(&mut self, decision: BotMove) {
        let Source::Local(local) = &mut self.source else {
            return;
        };
        if local.id != decision.game || local.thinking != Some(decision.seat) {
            return;
        }
        let mut bot = *decision.bot;
        bot.observe(&std::mem::take(&mut local.missed));
        local.bots[decision.seat] = Some(bot);
        local.thinking = None;
        if let Some(command) = decision.command {
            self.apply_bot(decision.seat, command);
        }
    }

    fn apply_bot(&mut self, seat: usize, command: Command) {
        let Source::Local(local) = &mut self.source else {
            return;
        };
        let events = match local.game.apply(command) {
            Ok(events) => events,
            Err(e) => {
                // A bot that cannot move would stall the game for good; it
                // gives up instead, and the log says why.
                self.log.push(format!(
                    "Bot {seat} made an illegal move ({e}) and resigns."
                ));
                match local.game.apply(Command::Resign { seat }) {
                    Ok(events) => events,
                    Err(_) => return,
                }
            }
        };
        self.after_local(&events);
    }

    fn log_events(&mut self, events: &[Event]) {
        let Some(rules) = self.rules.as_ref() else {
            return;
        };
        let names = Names {
            seats: &self.names,
            me: self.me,
            rules,
        };
        let lines: Vec<String> = events.iter().filter_map(|e| names.describe(e)).collect();
        self.log.extend(lines);
        if self.log.len() > 500 {
            self.log.drain(..self.log.len() - 500);
        }
    }

    /// Brings the phase-dependent state in line with the view.
    fn sync(&mut self) {
        let Some(view) = self.view.as_ref() else {
            return;
        };
        let my_move = self.me.is_some_and(|me| view.to_move.contains(&me));
        let phase = view.phase;
        let action_ready = self
            .action
            .is_some_and(|kind| view.abilities.get(kind.id()).is_some_and(|a| a.ready));
        if phase == Phase::Shop && my_move {
            if self.shop.is_none() {
                self.shop = Some(Shop {
                    counts: BTreeMap::new(),
                    selected: 0,
                });
            }
        } else {
            self.shop = None;
        }
        if phase == Phase::Placement && my_move {
            if self.placing.is_none() {
                self.placing = self.new_placing();
                self.recheck();
            }
        } else {
            self.placing = None;
        }
        if !my_move {
            self.picks.clear();
            self.salvo_action = None;
            if let Some(pick) = self.reserve.take() {
                self.target = pick.back_to;
            }
        }
        if !action_ready || !my_move {
            self.action = None;
        }
        let targets = self.target_boards();
        if phase == Phase::Battle && !targets.contains(&self.target) && self.reserve.is_none() {
            if let Some(&first) = targets.first() {
                self.target = first;
                self.cursor = self.clamp(self.target, self.cursor);
            }
        }
        if phase == Phase::Finished && self.me.is_some() && targets.is_empty() {
            self.target = self.me.unwrap_or(0);
        }
    }

    fn new_placing(&self) -> Option<Placing> {
        let view = self.view.as_ref()?;
        let rules = self.rules.as_ref()?;
        let me = self.me?;
        let fleet_counts = view.seats.get(me)?.fleet.clone()?;
        let mut fleet: Vec<String> = Vec::new();
        for (id, &count) in &fleet_counts {
            fleet.extend(std::iter::repeat_n(id.clone(), count as usize));
        }
        let size_of = |id: &String| {
            rules
                .type_index(id)
                .map(|t| rules.catalogue[t].shape.len())
                .unwrap_or(0)
        };
        fleet.sort_by(|a, b| size_of(b).cmp(&size_of(a)).then(a.cmp(b)));
        let (board, origin) = match view.mode {
            Mode::SharedSea => {
                let block = view.blocks.as_ref()?.iter().find(|b| b.owner == Some(me))?;
                (0, block.origin)
            }
            _ => (me, Cell::new(0, 0)),
        };
        Some(Placing {
            fleet,
            placed: Vec::new(),
            at: origin,
            rot: 0,
            board,
            origin,
            area: rules.board,
            check: None,
        })
    }

    /// The boards this seat aims at: the common sea, or the living opponents'.
    pub fn target_boards(&self) -> Vec<usize> {
        let Some(view) = self.view.as_ref() else {
            return Vec::new();
        };
        if view.mode == Mode::SharedSea {
            return vec![0];
        }
        let team = self.me.and_then(|me| view.seats.get(me)).map(|s| s.team);
        view.boards
            .iter()
            .enumerate()
            .filter(|(_, b)| {
                b.owner
                    .is_some_and(|o| Some(o) != self.me && Some(view.seats[o].team) != team)
            })
            .map(|(i, _)| i)
            .collect()
    }

    pub fn board_size(&self, board: usize) -> Option<Size> {
        let rows = &self.view.as_ref()?.boards.get(board)?.rows;
        Some(Size::new(
            rows.first().map_or(0, |r| r.len()) as u16,
            rows.len() as u16,
        ))
    }

    fn clamp(&self, board: usize, cell: Cell) -> Cell {
        match self.board_size(board) {
            Some(size) if size.cols > 0 && size.rows > 0 => {
                Cell::new(cell.col.min(size.cols - 1), cell.row.min(size.rows - 1))
            }
            _ => Cell::new(0, 0),
        }
    }

    fn move_cursor(&mut self, code: KeyCode) -> bool {
        let (dc, dr): (i32, i32) = match code {
            KeyCode::Left => (-1, 0),
            KeyCode::Right => (1, 0),
            KeyCode::Up => (0, -1),
            KeyCode::Down => (0, 1),
            _ => return false,
        };
        let col = (self.cursor.col as i32 + dc).max(0) as u16;
        let row = (self.cursor.row as i32 + dr).max(0) as u16;
        self.cursor = self.clamp(self.target, Cell::new(col, row));
        true
    }

    // ----- shop -----

    fn shop_key(&mut self, key: KeyEvent) -> KeyResult {
        let Some(rules) = self.rules.as_ref() else {
            return Ok(None);
        };
        let types = rules.catalogue.len();
        let me = self.me.ok_or("spectators do not shop")?;
        let Some(shop) = self.shop.as_mut() else {
            return Ok(None);
        };
        let id = rules.catalogue[shop.selected.min(types - 1)].id.clone();
        match key.code {
            KeyCode::Up => shop.selected = (shop.selected + types - 1) % types,
            KeyCode::Down => shop.selected = (shop.selected + 1) % types,
            KeyCode::Right | KeyCode::Char('+') | KeyCode::Char(' ') => {
                *shop.counts.entry(id).or_insert(0) += 1
            }
            KeyCode::Left | KeyCode::Char('-') => {
                let count = shop.counts.entry(id.clone()).or_insert(0);
                *count = count.saturating_sub(1);
                if *count == 0 {
                    shop.counts.remove(&id);
                }
            }
            KeyCode::Char('d') => shop.counts = broadside_ai::default_purchase(rules),
            KeyCode::Char('c') => shop.counts.clear(),
            KeyCode::Enter => {
                let ships = shop.counts.clone();
                return self
                    .submit(Command::Buy { seat: me, ships })
                    .map(|_| Some("Fleet bought.".to_string()));
            }
            _ => {}
        }
        Ok(None)
    }

    // ----- placement -----

    /// Asks the referee whether the placed ships plus the moving one are legal.
    fn recheck(&mut self) {
        let Some(me) = self.me else { return };
        let Some(placing) = self.placing.as_mut() else {
            return;
        };
        let mut ships = placing.placed.clone();
        if let Some(id) = placing.fleet.get(placing.placed.len()) {
            ships.push(Placement {
                ship_type: id.clone(),
                at: placing.at,
                rot: placing.rot,
            });
        }
        match &mut self.source {
            Source::Local(local) => {
                placing.check = Some(
                    local
                        .game
                        .check_ships_partial(me, &ships)
                        .map(|_| ())
                        .map_err(|e| e.to_string()),
                );
            }
            Source::Remote(remote) => {
                placing.check = None;
                let frame = json!({"type": "check_layout", "ships": ships});
                let _ = remote.out.send(frame.to_string());
            }
        }
    }

    /// The cells of the moving ship, from the engine's shape geometry.
    pub fn moving_cells(&self) -> Vec<Cell> {
        let (Some(placing), Some(rules)) = (self.placing.as_ref(), self.rules.as_ref()) else {
            return Vec::new();
        };
        let Some(id) = placing.fleet.get(placing.placed.len()) else {
            return Vec::new();
        };
        let Some(t) = rules.type_index(id) else {
            return Vec::new();
        };
        rules.catalogue[t]
            .shape
            .place(placing.at, placing.rot)
            .into_iter()
            .filter(|&(c, r)| c >= 0 && r >= 0)
            .map(|(c, r)| Cell::new(c as u16, r as u16))
            .collect()
    }

    /// The cells of the ships already laid.
    pub fn placed_cells(&self) -> Vec<Cell> {
        let (Some(placing), Some(rules)) = (self.placing.as_ref(), self.rules.as_ref()) else {
            return Vec::new();
        };
        placing
            .placed
            .iter()
            .filter_map(|p| {
                rules
                    .type_index(&p.ship_type)
                    .map(|t| rules.catalogue[t].shape.place(p.at, p.rot))
            })
            .flatten()
            .filter(|&(c, r)| c >= 0 && r >= 0)
            .map(|(c, r)| Cell::new(c as u16, r as u16))
            .collect()
    }

    /// Keeps the moving ship's bounding box inside the placement area.
    fn keep_inside(&mut self) {
        let Some(rules) = self.rules.as_ref() else {
            return;
        };
        let Some(placing) = self.placing.as_mut() else {
            return;
        };
        let Some(id) = placing.fleet.get(placing.placed.len()) else {
            return;
        };
        let Some(t) = rules.type_index(id) else {
            return;
        };
        let shape = rules.catalogue[t].shape.rotated(placing.rot);
        let max_col = placing.origin.col + placing.area.cols.saturating_sub(shape.width());
        let max_row = placing.origin.row + placing.area.rows.saturating_sub(shape.height());
        placing.at = Cell::new(
            placing.at.col.clamp(placing.origin.col, max_col),
            placing.at.row.clamp(placing.origin.row, max_row),
        );
    }

    fn placing_key(&mut self, key: KeyEvent) -> KeyResult {
        let me = self.me.ok_or("spectators do not place ships")?;
        let Some(placing) = self.placing.as_mut() else {
            return Ok(None);
        };
        let complete = placing.placed.len() == placing.fleet.len();
        match key.code {
            KeyCode::Left | KeyCode::Right | KeyCode::Up | KeyCode::Down if !complete => {
                let (dc, dr): (i32, i32) = match key.code {
                    KeyCode::Left => (-1, 0),
                    KeyCode::Right => (1, 0),
                    KeyCode::Up => (0, -1),
                    _ => (0, 1),
                };
                placing.at = Cell::new(
                    (placing.at.col as i32 + dc).max(0) as u16,
                    (placing.at.row as i32 + dr).max(0) as u16,
                );
            }
            KeyCode::Char('r') | KeyCode::Char('R') if !complete => {
                placing.rot = (placing.rot + 1) % 4
            }
            KeyCode::Backspace | KeyCode::Char('u') => {
                if let Some(last) = placing.placed.pop() {
                    placing.at = last.at;
                    placing.rot = last.rot;
                }
            }
            KeyCode::Char(' ') => {
                let fixed = placing.placed.clone();
                match &mut self.source {
                    Source::Local(local) => {
                        match local.game.random_completion(me, &fixed, &mut local.rng) {
                            Ok(layout) => placing.placed = layout,
                            Err(e) => return Err(e.to_string()),
                        }
                    }
                    Source::Remote(remote) => {
                        let frame = json!({"type": "random_layout", "fixed": fixed});
                        let _ = remote.out.send(frame.to_string());
                    }
                }
                self.recheck();
                return Ok(Some(
                    "Fleet placed at random: Enter to confirm, Backspace to take a ship back."
                        .into(),
                ));
            }
            KeyCode::Enter if complete => {
                let ships = placing.placed.clone();
                return self
                    .submit(Command::Place { seat: me, ships })
                    .map(|_| Some("Fleet ready.".to_string()));
            }
            KeyCode::Enter => match placing.check.clone() {
                Some(Ok(())) => {
                    if let Some(id) = placing.fleet.get(placing.placed.len()).cloned() {
                        placing.placed.push(Placement {
                            ship_type: id,
                            at: placing.at,
                            rot: placing.rot,
                        });
                    }
                }
                Some(Err(reason)) => return Err(format!("Cannot place here: {reason}")),
                None => return Err("Still checking this position…".into()),
            },
            _ => return Ok(None),
        }
        self.keep_inside();
        self.recheck();
        Ok(None)
    }

    // ----- battle -----

    fn battle_key(&mut self, key: KeyEvent) -> KeyResult {
        if self.move_cursor(key.code) {
            self.own_shown = false;
            return Ok(None);
        }
        if let Some(pick) = &self.reserve {
            return match key.code {
                KeyCode::Enter | KeyCode::Char('f') => self.act(),
                KeyCode::Char('r') => self.finish_reserve(None),
                KeyCode::Char('x') if !pick.cells.is_empty() => {
                    let cells = pick.cells.clone();
                    self.finish_reserve(Some(cells))
                }
                KeyCode::Esc => {
                    if let Some(pick) = self.reserve.take() {
                        self.target = pick.back_to;
                        self.cursor = self.clamp(self.target, self.cursor);
                    }
                    Ok(Some("The reserve is not used.".into()))
                }
                _ => Ok(None),
            };
        }
        match key.code {
            KeyCode::Enter | KeyCode::Char('f') => self.act(),
            KeyCode::Tab | KeyCode::BackTab => {
                let targets = self.target_boards();
                if let Some(i) = targets.iter().position(|&b| b == self.target) {
                    let n = targets.len();
                    self.target = targets[if key.code == KeyCode::Tab {
                        (i + 1) % n
                    } else {
                        (i + n - 1) % n
                    }];
                } else if let Some(&first) = targets.first() {
                    self.target = first;
                }
                self.cursor = self.clamp(self.target, self.cursor);
                self.own_shown = false;
                Ok(None)
            }
            KeyCode::Char('v') => {
                self.own_shown = !self.own_shown;
                Ok(None)
            }
            KeyCode::Char('a') => self.cycle_action(),
            KeyCode::Char('o') => {
                self.laser_end = if self.laser_end == End::Top {
                    End::Bottom
                } else {
                    End::Top
                };
                self.bombard_column = !self.bombard_column;
                Ok(None)
            }
            KeyCode::Char('x') => self.send_picks(),
            KeyCode::Esc => {
                self.action = None;
                self.picks.clear();
                self.salvo_action = None;
                Ok(Some("Cleared.".into()))
            }
            _ => Ok(None),
        }
    }

    fn cycle_action(&mut self) -> KeyResult {
        let Some(view) = self.view.as_ref() else {
            return Ok(None);
        };
        let ready: Vec<ActionKind> = [
            ActionKind::Laser,
            ActionKind::Scanner,
            ActionKind::Nuke,
            ActionKind::Reserve,
            ActionKind::Wide,
            ActionKind::Bombard,
            ActionKind::Radar,
        ]
        .into_iter()
        .filter(|k| view.abilities.get(k.id()).is_some_and(|a| a.ready))
        .collect();
        if ready.is_empty() {
            self.action = None;
            return Err("No ability or special is ready.".into());
        }
        self.action = match self.action {
            None => Some(ready[0]),
            Some(now) => ready
                .iter()
                .position(|&k| k == now)
                .and_then(|i| ready.get(i + 1))
                .copied(),
        };
        Ok(Some(match self.action {
            Some(kind) => format!("Enter uses the {}.", crate::words::action_name(kind.id())),
            None => "Enter fires a shot.".to_string(),
        }))
    }

    /// The action of the chosen kind aimed at the cursor.
    pub(crate) fn build_action(&self, kind: ActionKind, salvo: bool) -> Action {
        let (board, at) = (self.target, self.cursor);
        match kind {
            ActionKind::Laser => Action::Laser {
                board,
                column: at.col,
                from: self.laser_end,
            },
            ActionKind::Scanner => Action::Scanner { board, center: at },
            ActionKind::Nuke => Action::Nuke { board, at },
            ActionKind::Reserve => Action::Reserve {
                board: salvo.then_some(board),
                cells: None,
            },
            ActionKind::Wide => Action::Wide { board, center: at },
            ActionKind::Bombard => Action::Bombard {
                board,
                line: if self.bombard_column {
                    Line::Column(at.col)
                } else {
                    Line::Row(at.row)
                },
            },
            ActionKind::Radar => Action::Radar { board, center: at },
        }
    }

    /// Enter in battle: a shot, an ability, or a pick for a salvo or volley.
    pub fn act(&mut self) -> KeyResult {
        let (Some(view), Some(rules), Some(me)) =
            (self.view.as_ref(), self.rules.as_ref(), self.me)
        else {
            return Ok(None);
        };
        match view.phase {
            Phase::Battle => {}
            Phase::Finished => return Err("The game is over. q leaves.".into()),
            _ => return Ok(None),
        }
        if !view.to_move.contains(&me) {
            return Err("Not your turn.".into());
        }
        let target = Target {
            board: self.target,
            at: self.cursor,
        };
        let salvo = view.salvo_round;
        if self.reserve.is_some() {
            return self.toggle_reserve_cell();
        }
        if self.action == Some(ActionKind::Reserve) {
            // The fighters' cells are chosen on the own field first.
            self.action = None;
            self.reserve = Some(ReservePick {
                cells: Vec::new(),
                back_to: self.target,
                salvo,
            });
            self.target = me;
            self.cursor = self.clamp(me, self.cursor);
            return Ok(Some(format!(
                "Reserve: Enter marks {RESERVE_FIGHTERS} empty cells of your waters; r lets chance choose; Esc cancels."
            )));
        }
        if view.salvo_round {
            if let Some(kind) = self.action.take() {
                self.salvo_action = Some(self.build_action(kind, true));
                return Ok(Some(format!(
                    "The {} replaces the shots on this opponent. x sends the salvo.",
                    crate::words::action_name(kind.id())
                )));
            }
            return Ok(Some(self.toggle_pick(target)));
        }
        if let Some(kind) = self.action.take() {
            let action = self.build_action(kind, false);
            return self.submit(Command::Ability { seat: me, action });
        }
        if rules.per_volley() {
            let volley = rules.shots_per_turn;
            let text = self.toggle_pick(target);
            if self.picks.len() as u32 >= volley {
                return self.send_picks();
            }
            return Ok(Some(text));
        }
        self.submit(Command::Fire { seat: me, target })
    }

    fn toggle_reserve_cell(&mut self) -> KeyResult {
        let cursor = self.cursor;
        let Some(pick) = self.reserve.as_mut() else {
            return Ok(None);
        };
        match pick.cells.iter().position(|&c| c == cursor) {
            Some(i) => {
                pick.cells.remove(i);
            }
            None => pick.cells.push(cursor),
        }
        if pick.cells.len() >= RESERVE_FIGHTERS {
            let cells = pick.cells.clone();
            return self.finish_reserve(Some(cells));
        }
        Ok(Some(format!(
            "{} of {RESERVE_FIGHTERS} fighter cells marked; x sends them, r lets chance choose.",
            pick.cells.len()
        )))
    }

    /// Uses the reserve with the chosen cells (`None`: the engine draws them).
    fn finish_reserve(&mut self, cells: Option<Vec<Cell>>) -> KeyResult {
        let (Some(pick), Some(me)) = (self.reserve.take(), self.me) else {
            return Ok(None);
        };
        self.target = pick.back_to;
        self.cursor = self.clamp(self.target, self.cursor);
        let action = Action::Reserve {
            board: pick.salvo.then_some(pick.back_to),
            cells,
        };
        if pick.salvo {
            self.salvo_action = Some(action);
            return Ok(Some(
                "The reserve replaces the shots on this opponent. x sends the salvo.".into(),
            ));
        }
        self.submit(Command::Ability { seat: me, action })
    }

    fn toggle_pick(&mut self, target: Target) -> String {
        if let Some(i) = self.picks.iter().position(|&t| t == target) {
            self.picks.remove(i);
        } else {
            self.picks.push(target);
        }
        format!("{} cells chosen; x sends them.", self.picks.len())
    }

    /// Sends the chosen cells as a salvo or a hard-rule volley.
    fn send_picks(&mut self) -> KeyResult {
        let (Some(view), Some(me)) = (self.view.as_ref(), self.me) else {
            return Ok(None);
        };
        if !view.to_move.contains(&me) {
            return Err("Not your turn.".into());
        }
        let command = if view.salvo_round {
            Command::Salvo {
                seat: me,
                shots: self.picks.clone(),
                action: self.salvo_action.clone(),
            }
        } else if self.rules.as_ref().is_some_and(Rules::per_volley) {
            Command::Volley {
                seat: me,
                cells: self.picks.iter().map(|t| t.at).collect(),
            }
        } else {
            return Err("x sends a salvo or a volley; here Enter fires.".into());
        };
        let sent = self.submit(command);
        if sent.is_ok() {
            self.picks.clear();
            self.salvo_action = None;
        }
        sent
    }
}
