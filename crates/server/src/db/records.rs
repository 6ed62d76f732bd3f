//! The records the rest of the server reads and writes through [`Db`](super::Db):
//! rooms, seats, games, commands, results, chat, the queue and leases.

use std::collections::BTreeMap;

use super::DbError;
use crate::ratings::Rating;

/// Who holds a seat. Stored as the text of [`SeatKind::as_str`] (`person`,
/// `bot`, `open`), as it always was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeatKind {
    Person,
    Bot,
    Open,
}

impl SeatKind {
    /// The stored (and serialized) name.
    pub fn as_str(self) -> &'static str {
        match self {
            SeatKind::Person => "person",
            SeatKind::Bot => "bot",
            SeatKind::Open => "open",
        }
    }

    /// The kind a stored name means; any other name is corruption.
    pub fn from_stored(stored: &str) -> Result<SeatKind, DbError> {
        [SeatKind::Person, SeatKind::Bot, SeatKind::Open]
            .into_iter()
            .find(|kind| kind.as_str() == stored)
            .ok_or_else(|| DbError::Corrupt(format!("seat kind {stored:?}")))
    }
}

/// One seat as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRecord {
    pub kind: SeatKind,
    pub player_id: Option<i64>,
    /// The player's nickname (read side only).
    pub nickname: Option<String>,
    /// The player has an account (read side only).
    pub account: bool,
    /// A bot's level (`Level::id`).
    pub level: Option<String>,
}

/// A room as stored (everything but its games' commands and chat).
#[derive(Clone, Debug)]
pub struct RoomRecord {
    pub code: String,
    /// JSON of the room's setup (preset, seats, options, teams; no seed).
    pub setup: String,
    pub host: usize,
    pub seats: Vec<SeatRecord>,
    pub game_number: u32,
    /// `lobby` or the engine phase of the current game.
    pub phase: String,
    /// JSON list of the seats to move.
    pub to_move: String,
    /// Listed among the open rooms while in its lobby.
    pub public: bool,
}

/// The current game of a room as stored.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub id: i64,
    pub number: u32,
    /// JSON of the engine `Setup`, seed included.
    pub setup: String,
    pub deadline_ms: Option<i64>,
    /// The accepted commands in order, as engine `Command` JSON.
    pub commands: Vec<String>,
}

/// What is written after one accepted command.
#[derive(Clone, Debug)]
pub struct CommandRecord {
    pub room_code: String,
    pub game_id: i64,
    pub seq: u64,
    pub command: String,
    pub at_ms: i64,
    pub deadline_ms: Option<i64>,
    pub phase: &'static str,
    pub to_move: String,
    pub finished: bool,
    /// Whether the room's summary (phase, seats to move) changed.
    pub summary_changed: bool,
    /// The placings, with the command that ended the game (and its ratings,
    /// if it was rated), written in the same transaction.
    pub results: Option<GameResults>,
}

/// How a game ended for each seat.
#[derive(Clone, Debug)]
pub struct GameResults {
    pub preset: String,
    /// Whether the people's ratings change (ratings.rs).
    pub rated: bool,
    pub seats: Vec<SeatResult>,
}

#[derive(Clone, Debug)]
pub struct SeatResult {
    pub seat: usize,
    /// The person in the seat (`None`: a bot or nobody).
    pub player_id: Option<i64>,
    /// 1 for the winners, then by elimination (later out is better).
    pub placing: u32,
}

impl GameResults {
    /// Each person's placing (the seats of bots and nobody left out), as
    /// `ratings::rate` takes them.
    pub fn placings(&self) -> BTreeMap<i64, u32> {
        self.seats
            .iter()
            .filter_map(|s| Some((s.player_id?, s.placing)))
            .collect()
    }
}

impl SeatResult {
    /// The seat's person's rating before and after the game, if the game
    /// changed it.
    pub fn rating_change(
        &self,
        before: &BTreeMap<i64, Rating>,
        after: &BTreeMap<i64, Rating>,
    ) -> Option<(f64, f64)> {
        let player = self.player_id?;
        Some((before.get(&player)?.rating, after.get(&player)?.rating))
    }
}

/// A public room in its lobby.
#[derive(Clone, Debug)]
pub struct OpenRoom {
    pub code: String,
    /// JSON of the room's setup.
    pub setup: String,
    pub seats: Vec<SeatRecord>,
    pub updated_ms: i64,
}

/// One line of a leaderboard.
#[derive(Clone, Debug)]
pub struct Ranked {
    pub nickname: String,
    pub rating: Rating,
}

/// One finished game of a person's history.
#[derive(Clone, Debug)]
pub struct PastGame {
    pub game_id: i64,
    pub code: String,
    /// JSON of the room's setup (its preset).
    pub setup: String,
    pub finished_ms: i64,
    pub placing: u32,
    /// How many seats played, and how many placed first.
    pub seats: u32,
    pub firsts: u32,
    pub rating_before: Option<f64>,
    pub rating_after: Option<f64>,
}

/// A person in the quick-match queue, and where their connection is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub player_id: i64,
    pub nickname: String,
    pub node: String,
    pub conn: u64,
}

/// One line of `my_games`.
#[derive(Clone, Debug)]
pub struct MyGame {
    pub code: String,
    pub setup: String,
    pub phase: String,
    pub to_move: String,
    pub seat: usize,
    pub updated_ms: i64,
    pub seats: Vec<SeatRecord>,
}

/// One chat line as stored.
#[derive(Clone, Debug)]
pub struct ChatRecord {
    pub seat: Option<usize>,
    pub nickname: String,
    pub text: String,
    pub at_ms: i64,
    /// Said by a watcher while the game ran: for watchers only, on joining
    /// again too (docs/protocol.md, "Watchers").
    pub watchers: bool,
}

/// A node's hold on one room: the fencing token every write for the room
/// carries. A new holder always gets a larger token than every earlier one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub code: String,
    pub node: String,
    pub token: i64,
}

/// Who owns a room, as the lease table says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub node: String,
    pub token: i64,
    /// Whether the lease is still within its time (by the database's clock).
    pub live: bool,
}

/// A stored game, read by its id (replays, `broadside export`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    pub id: i64,
    pub room_code: String,
    /// The game's number in its room (1, then rematches).
    pub number: u32,
    /// JSON of the engine `Setup`, seed included.
    pub setup: String,
    /// The accepted commands in order, as engine `Command` JSON.
    pub commands: Vec<String>,
    pub finished: bool,
    /// When the game ended (unix milliseconds), if it has.
    pub finished_ms: Option<i64>,
}
