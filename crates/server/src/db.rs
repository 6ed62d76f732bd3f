//! Persistence behind one interface with two backends: SQLite in a file (the
//! single-node default, `sqlite`) and PostgreSQL (`postgres`), which several
//! nodes of a cluster share.
//!
//! A game is stored as its setup (with the seed) and the ordered list of
//! accepted commands; replaying them through the engine rebuilds it exactly,
//! because all of the game's randomness comes from the seeded generator inside
//! it.
//!
//! **Leases.** In a cluster exactly one node owns a room: it holds the room's
//! lease (owner node, expiry, fencing token). Every write on behalf of a room
//! carries the owner's [`Lease`] and is refused ([`DbError::Fenced`]) once
//! another node has taken the room, so two nodes can never both append to one
//! game's log. With SQLite one process owns the file and every room, and the
//! leases are trivial (token 0, never fenced).

mod postgres;
mod sqlite;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::ratings::Rating;

/// A failure of the database.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database: {0}")]
    Postgres(String),
    #[error("cannot create the data directory: {0}")]
    Io(#[from] std::io::Error),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    #[error("the database is closed")]
    Closed,
    #[error("database commit: {0}")]
    Commit(String),
    /// The write's lease is no longer the room's: another node owns it now.
    #[error("room {0} is owned by another node now")]
    Fenced(String),
}

/// One seat as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRecord {
    /// `person`, `bot` or `open`.
    pub kind: String,
    pub player_id: Option<i64>,
    /// The player's nickname (read side only).
    pub nickname: Option<String>,
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

enum Backend {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// The database, shared by all tasks of a node.
pub struct Db(Backend);

/// Calls the same method on whichever backend this is.
macro_rules! both {
    ($db:expr, $method:ident($($arg:expr),*)) => {
        match &$db.0 {
            Backend::Sqlite(db) => db.$method($($arg),*).await,
            Backend::Postgres(db) => db.$method($($arg),*).await,
        }
    };
}

impl Db {
    /// Opens (creating if missing) the SQLite database at `path`, migrates it
    /// and starts its writer.
    pub fn open(path: &Path) -> Result<Db, DbError> {
        Ok(Db(Backend::Sqlite(sqlite::Sqlite::open(path)?)))
    }

    /// A private SQLite database in memory (measurements and unit tests).
    pub fn open_in_memory() -> Result<Db, DbError> {
        Ok(Db(Backend::Sqlite(sqlite::Sqlite::open_in_memory()?)))
    }

    /// Opens the database `spec` names: a `postgres://` (or `postgresql://`)
    /// URL, migrated on connection, or else the path of a SQLite file.
    pub async fn connect(spec: &str) -> Result<Db, DbError> {
        if Db::is_postgres_url(spec) {
            Ok(Db(Backend::Postgres(
                postgres::Postgres::connect(spec).await?,
            )))
        } else {
            Db::open(Path::new(spec))
        }
    }

    /// Whether `spec` names a PostgreSQL database rather than a SQLite file.
    pub fn is_postgres_url(spec: &str) -> bool {
        spec.starts_with("postgres://") || spec.starts_with("postgresql://")
    }

    /// Whether several nodes may share this database (then leases matter).
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Backend::Postgres(_))
    }

    /// Commits made and jobs done so far (SQLite's writer; jobs per commit
    /// shows the grouping).
    pub fn stats(&self) -> (u64, u64) {
        match &self.0 {
            Backend::Sqlite(db) => db.stats(),
            Backend::Postgres(db) => db.stats(),
        }
    }

    pub async fn player_by_token_hash(
        &self,
        hash: Vec<u8>,
    ) -> Result<Option<(i64, String)>, DbError> {
        both!(self, player_by_token_hash(hash))
    }

    pub async fn create_player(
        &self,
        hash: Vec<u8>,
        nickname: String,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        both!(self, create_player(hash, nickname, now_ms))
    }

    pub async fn set_nickname(&self, player_id: i64, nickname: String) -> Result<(), DbError> {
        both!(self, set_nickname(player_id, nickname))
    }

    /// Stores a new room owned by `node` and returns the node's lease on it;
    /// `None` (and nothing written) if its code is taken.
    pub async fn create_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        match &self.0 {
            Backend::Sqlite(db) => {
                let code = room.code.clone();
                Ok(db
                    .create_room(room, now_ms)
                    .await?
                    .then(|| trivial_lease(code, node)))
            }
            Backend::Postgres(db) => db.create_room(room, now_ms, node, ttl).await,
        }
    }

    /// Writes a room's row and seats (insert or update).
    pub async fn save_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        lease: &Lease,
    ) -> Result<(), DbError> {
        match &self.0 {
            Backend::Sqlite(db) => db.save_room(room, now_ms).await,
            Backend::Postgres(db) => db.save_room(room, now_ms, lease.clone()).await,
        }
    }

    /// Starts a new game in a room and returns its id.
    pub async fn start_game(
        &self,
        room: RoomRecord,
        setup: String,
        deadline_ms: Option<i64>,
        now_ms: i64,
        lease: &Lease,
    ) -> Result<i64, DbError> {
        match &self.0 {
            Backend::Sqlite(db) => db.start_game(room, setup, deadline_ms, now_ms).await,
            Backend::Postgres(db) => {
                db.start_game(room, setup, deadline_ms, now_ms, lease.clone())
                    .await
            }
        }
    }

    /// Appends one accepted command to a game's log with the game's new
    /// deadline, and updates the room's summary when it changed, atomically.
    pub async fn record_command(
        &self,
        record: CommandRecord,
        lease: &Lease,
    ) -> Result<(), DbError> {
        match &self.0 {
            Backend::Sqlite(db) => db.record_command(record).await,
            Backend::Postgres(db) => db.record_command(record, lease.clone()).await,
        }
    }

    pub async fn add_chat(
        &self,
        code: String,
        line: ChatRecord,
        lease: &Lease,
    ) -> Result<(), DbError> {
        match &self.0 {
            Backend::Sqlite(db) => db.add_chat(code, line).await,
            Backend::Postgres(db) => db.add_chat(code, line, lease.clone()).await,
        }
    }

    /// Codes of the rooms whose game runs (started and not finished).
    pub async fn running_rooms(&self) -> Result<Vec<String>, DbError> {
        both!(self, running_rooms())
    }

    /// A room and its current game, if the room exists.
    pub async fn load_room(
        &self,
        code: String,
    ) -> Result<Option<(RoomRecord, Option<GameRecord>)>, DbError> {
        both!(self, load_room(code))
    }

    /// The rooms (lobbies and unfinished games) where a player holds a seat,
    /// most recently active first.
    pub async fn my_games(&self, player_id: i64) -> Result<Vec<MyGame>, DbError> {
        both!(self, my_games(player_id))
    }

    /// The last `limit` chat lines of a room, oldest first.
    pub async fn recent_chat(
        &self,
        code: String,
        limit: usize,
    ) -> Result<Vec<ChatRecord>, DbError> {
        both!(self, recent_chat(code, limit))
    }

    // ----- public play -------------------------------------------------------------

    /// Public rooms still in their lobby, newest first.
    pub async fn open_rooms(&self, limit: usize) -> Result<Vec<OpenRoom>, DbError> {
        both!(self, open_rooms(limit))
    }

    /// The best `limit` ratings of a preset.
    pub async fn leaderboard(&self, preset: String, limit: usize) -> Result<Vec<Ranked>, DbError> {
        both!(self, leaderboard(preset, limit))
    }

    /// The current ratings of some people in a preset (missing: unrated).
    pub async fn ratings(
        &self,
        players: Vec<i64>,
        preset: String,
    ) -> Result<BTreeMap<i64, Rating>, DbError> {
        both!(self, ratings(players, preset))
    }

    /// The finished games a person played, newest first.
    pub async fn history(&self, player_id: i64, limit: usize) -> Result<Vec<PastGame>, DbError> {
        both!(self, history(player_id, limit))
    }

    /// Puts a person in the quick-match queue of a preset (again: the newest
    /// connection and preset win).
    pub async fn enqueue(
        &self,
        waiting: Waiting,
        preset: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        both!(self, enqueue(waiting, preset, now_ms))
    }

    /// Takes a person out of the queue, if they wait from connection `conn`.
    pub async fn dequeue(&self, player_id: i64, conn: u64) -> Result<(), DbError> {
        both!(self, dequeue(player_id, conn))
    }

    /// If `me` still waits (from `conn`), takes the person who has waited
    /// longest for the same preset out of the queue together with `me`, and
    /// returns the preset and them.
    pub async fn take_partner(
        &self,
        me: i64,
        conn: u64,
    ) -> Result<Option<(String, Waiting)>, DbError> {
        both!(self, take_partner(me, conn))
    }

    /// How many people wait for a preset.
    pub async fn waiting(&self, preset: String) -> Result<u32, DbError> {
        both!(self, waiting(preset))
    }

    /// Empties the queue of a node's connections (at its start: they are gone).
    pub async fn clear_queue(&self, node: String) -> Result<(), DbError> {
        both!(self, clear_queue(node))
    }

    // ----- leases ------------------------------------------------------------------

    /// Takes the room for `node` if nobody holds it, its lease has expired or
    /// `node` itself held it (a restarted node), with a new fencing token;
    /// `None` while another node's lease is live.
    pub async fn acquire(
        &self,
        code: String,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        match &self.0 {
            Backend::Sqlite(_) => Ok(Some(trivial_lease(code, node))),
            Backend::Postgres(db) => db.acquire(code, node.to_string(), ttl).await,
        }
    }

    /// Extends the lease; `false` if the room has been taken by another
    /// holder (then the room must be dropped at once).
    pub async fn renew(&self, lease: &Lease, ttl: Duration) -> Result<bool, DbError> {
        match &self.0 {
            Backend::Sqlite(_) => Ok(true),
            Backend::Postgres(db) => db.renew(lease.clone(), ttl).await,
        }
    }

    /// Gives the room up. With `hand_over` the lease is left expired, so that
    /// another node takes the room at once (it has a clock or bots to run);
    /// otherwise it is removed and the room is loaded wherever it is next
    /// joined.
    pub async fn release(&self, lease: &Lease, hand_over: bool) -> Result<(), DbError> {
        match &self.0 {
            Backend::Sqlite(_) => Ok(()),
            Backend::Postgres(db) => db.release(lease.clone(), hand_over).await,
        }
    }

    /// Rooms whose owner stopped renewing (died or was paused) or handed them
    /// over: at most `limit`, longest expired first.
    pub async fn expired_leases(&self, limit: usize) -> Result<Vec<String>, DbError> {
        match &self.0 {
            Backend::Sqlite(_) => Ok(Vec::new()),
            Backend::Postgres(db) => db.expired_leases(limit).await,
        }
    }

    /// Who holds the room's lease, if anybody.
    pub async fn owner(&self, code: String) -> Result<Option<Owner>, DbError> {
        match &self.0 {
            Backend::Sqlite(_) => Ok(None),
            Backend::Postgres(db) => db.owner(code).await,
        }
    }

    /// A stored game by its id, with its whole command log (which must be
    /// gapless), finished or not; `None` if no game has this id.
    pub async fn load_game(&self, id: i64) -> Result<Option<StoredGame>, DbError> {
        both!(self, load_game(id))
    }
}

fn trivial_lease(code: String, node: &str) -> Lease {
    Lease {
        code,
        node: node.to_string(),
        token: 0,
    }
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

/// What [`Db::load_game`] must do, checked against each backend by its tests
/// (PostgreSQL's when `BROADSIDE_TEST_POSTGRES` is set).
#[cfg(test)]
pub(crate) async fn check_load_game(db: &Db) {
    let ttl = Duration::from_secs(60);
    let player = db
        .create_player(b"h".to_vec(), "Ana".into(), 1)
        .await
        .unwrap();
    let seat = |kind: &str, player_id| SeatRecord {
        kind: kind.into(),
        player_id,
        nickname: None,
        level: None,
    };
    let mut room = RoomRecord {
        code: "QWERTY".into(),
        setup: "{}".into(),
        host: 0,
        seats: vec![seat("person", Some(player)), seat("open", None)],
        game_number: 0,
        phase: "lobby".into(),
        to_move: "[]".into(),
        public: false,
    };
    let lease = db
        .create_room(room.clone(), 1, "a", ttl)
        .await
        .unwrap()
        .expect("a free code");
    room.game_number = 1;
    room.phase = "placement".into();
    let id = db
        .start_game(room.clone(), "{\"seed\":1}".into(), None, 2, &lease)
        .await
        .unwrap();
    let command = |game_id: i64, seq: u64, at_ms: i64| CommandRecord {
        room_code: "QWERTY".into(),
        game_id,
        seq,
        command: format!("{{\"n\":{seq}}}"),
        at_ms,
        deadline_ms: None,
        phase: if seq == 3 { "finished" } else { "battle" },
        to_move: "[]".into(),
        finished: seq == 3,
        summary_changed: seq == 1,
        results: None,
    };
    assert_eq!(db.load_game(id + 1).await.unwrap(), None, "no such game");
    db.record_command(command(id, 1, 3), &lease).await.unwrap();
    let running = db.load_game(id).await.unwrap().expect("the game");
    assert_eq!(
        running,
        StoredGame {
            id,
            room_code: "QWERTY".into(),
            number: 1,
            setup: "{\"seed\":1}".into(),
            commands: vec!["{\"n\":1}".into()],
            finished: false,
            finished_ms: None,
        }
    );
    db.record_command(command(id, 2, 3), &lease).await.unwrap();
    db.record_command(command(id, 3, 77), &lease).await.unwrap();
    let finished = db.load_game(id).await.unwrap().expect("the game");
    assert_eq!(finished.commands, ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]);
    assert!(finished.finished);
    assert_eq!(finished.finished_ms, Some(77), "when the last command came");

    // The room's next game (a rematch), with a gap in its log.
    room.game_number = 2;
    let rematch = db
        .start_game(room, "{\"seed\":2}".into(), None, 80, &lease)
        .await
        .unwrap();
    assert_ne!(rematch, id);
    db.record_command(command(rematch, 1, 81), &lease)
        .await
        .unwrap();
    db.record_command(command(rematch, 3, 82), &lease)
        .await
        .unwrap();
    match db.load_game(rematch).await {
        Err(DbError::Corrupt(message)) => assert!(message.contains("command 2"), "{message}"),
        other => panic!("a gap is corruption, not {other:?}"),
    }
    assert_eq!(db.load_game(id).await.unwrap(), Some(finished));
}
