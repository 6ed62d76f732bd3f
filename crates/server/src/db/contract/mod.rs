//! The contract suite: what [`Db`] does, whichever backend it runs on. Each
//! check is written once and runs twice, on SQLite (a fresh file) and on
//! PostgreSQL (a fresh database, dropped at the end: `testing.rs`), as
//! `<check>::sqlite` and `<check>::postgres`. A PostgreSQL run without
//! `BROADSIDE_TEST_POSTGRES` fails, saying so.
//!
//! What only one backend has stays with it: SQLite's group commit and
//! reopening (db/sqlite/tests.rs), PostgreSQL's leases and fencing and its
//! concurrent migrations (db/postgres/tests.rs). Those use the fixtures here.

use std::sync::Arc;
use std::time::Duration;

use super::testing::{scratch, Scratch};
use super::{
    ChatRecord, CommandRecord, Db, GameResults, Lease, RoomRecord, SeatKind, SeatRecord,
    SeatResult, Waiting,
};

/// Writes `mod <check> { sqlite, postgres }`: the check, run on each backend
/// (optionally with a runtime flavor for `#[tokio::test]`).
macro_rules! on_both {
    ($check:ident) => {
        on_both!($check, flavor = "current_thread");
    };
    ($check:ident, $($flavor:tt)*) => {
        mod $check {
            use crate::db::contract::{Backend, Fresh};

            #[tokio::test($($flavor)*)]
            async fn sqlite() {
                super::$check(Fresh::open(Backend::Sqlite).await).await;
            }

            #[tokio::test($($flavor)*)]
            async fn postgres() {
                super::$check(Fresh::open(Backend::Postgres).await).await;
            }
        }
    };
}

mod queue;
mod replays;
mod results;
mod rooms;

/// The backend a check runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    Sqlite,
    Postgres,
}

/// A fresh, empty database of one backend, removed when this goes.
pub(crate) struct Fresh {
    pub db: Arc<Db>,
    pub backend: Backend,
    // Dropped after `db` (fields drop in order).
    scratch: Option<Scratch>,
    _dir: Option<tempfile::TempDir>,
}

impl Fresh {
    pub(crate) async fn open(backend: Backend) -> Fresh {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("a temporary folder");
                let db = Db::open(&dir.path().join("contract.sqlite")).expect("SQLite opens");
                Fresh {
                    db: Arc::new(db),
                    backend,
                    scratch: None,
                    _dir: Some(dir),
                }
            }
            Backend::Postgres => {
                let scratch = scratch().await;
                let db = Db::connect(&scratch.url)
                    .await
                    .expect("the backend connects and migrates");
                Fresh {
                    db: Arc::new(db),
                    backend,
                    scratch: Some(scratch),
                    _dir: None,
                }
            }
        }
    }

    /// The URL of the PostgreSQL database.
    pub(crate) fn url(&self) -> &str {
        &self.scratch.as_ref().expect("a PostgreSQL database").url
    }

    /// Another node's handle on the same database; with SQLite, whose file
    /// one process owns, the same handle.
    pub(crate) async fn another_node(&self) -> Arc<Db> {
        match self.backend {
            Backend::Sqlite => self.db.clone(),
            Backend::Postgres => Arc::new(Db::connect(self.url()).await.expect("connects")),
        }
    }
}

// ----- fixtures ----------------------------------------------------------------------

pub(crate) const TTL: Duration = Duration::from_secs(60);

pub(crate) fn seat(kind: SeatKind, player_id: Option<i64>, level: Option<&str>) -> SeatRecord {
    SeatRecord {
        kind,
        player_id,
        nickname: None,
        level: level.map(str::to_string),
        account: false,
    }
}

/// A room in its lobby: `player` and an easy bot.
pub(crate) fn lobby(code: &str, player: i64) -> RoomRecord {
    RoomRecord {
        code: code.into(),
        setup: "{}".into(),
        host: 0,
        seats: vec![
            seat(SeatKind::Person, Some(player), None),
            seat(SeatKind::Bot, None, Some("easy")),
        ],
        game_number: 0,
        phase: "lobby".into(),
        to_move: "[]".into(),
        public: false,
    }
}

/// The command `seq` of a game; the third finishes it.
pub(crate) fn command(code: &str, game_id: i64, seq: u64) -> CommandRecord {
    CommandRecord {
        room_code: code.into(),
        game_id,
        seq,
        command: format!("{{\"n\":{seq}}}"),
        at_ms: 3,
        deadline_ms: Some(1000 + seq as i64),
        phase: if seq == 3 { "finished" } else { "battle" },
        to_move: "[]".into(),
        finished: seq == 3,
        summary_changed: seq == 1,
        results: None,
    }
}

pub(crate) fn chat(text: &str) -> ChatRecord {
    ChatRecord {
        seat: Some(0),
        nickname: "Ana".into(),
        text: text.into(),
        at_ms: 5,
        watchers: false,
    }
}

/// A player, a room in its lobby (owned by node `a`) and a started game.
pub(crate) async fn game_room(db: &Db, code: &str, ttl: Duration) -> (i64, Lease, i64) {
    let player = db
        .create_player(code.as_bytes().to_vec(), "Ana".into(), 1)
        .await
        .unwrap();
    let (lease, game_id) = start(db, lobby(code, player), ttl).await;
    (player, lease, game_id)
}

/// Stores a room in its lobby (owned by node `a`) and starts its game.
pub(crate) async fn start(db: &Db, mut room: RoomRecord, ttl: Duration) -> (Lease, i64) {
    let lease = db
        .create_room(room.clone(), 1, "a", ttl)
        .await
        .unwrap()
        .expect("a free code");
    room.game_number = 1;
    room.phase = "placement".into();
    let game_id = db
        .start_game(room, "{\"seed\":1}".into(), Some(99), 2, &lease)
        .await
        .unwrap();
    (lease, game_id)
}

/// People with these names; their ids.
pub(crate) async fn people(db: &Db, names: &[&str]) -> Vec<i64> {
    let mut ids = Vec::new();
    for name in names {
        let id = db
            .create_player(format!("token of {name}").into_bytes(), name.to_string(), 1)
            .await
            .unwrap();
        ids.push(id);
    }
    ids
}

/// A room of two people owned by node `a`, whose game has run two commands.
pub(crate) async fn duel(db: &Db, code: &str, two: [i64; 2], ttl: Duration) -> (Lease, i64) {
    let mut room = lobby(code, two[0]);
    room.seats[1] = seat(SeatKind::Person, Some(two[1]), None);
    let (lease, game_id) = start(db, room, ttl).await;
    for seq in 1..=2 {
        db.record_command(command(code, game_id, seq), &lease)
            .await
            .unwrap();
    }
    (lease, game_id)
}

/// The command that ends a game of these seats (`None`: a bot), `winner`
/// placed first and the others second.
pub(crate) fn last_command_of(
    code: &str,
    game_id: i64,
    seats: &[Option<i64>],
    winner: usize,
    rated: bool,
) -> CommandRecord {
    let seats = seats
        .iter()
        .enumerate()
        .map(|(seat, &player_id)| SeatResult {
            seat,
            player_id,
            placing: if seat == winner { 1 } else { 2 },
        })
        .collect();
    CommandRecord {
        results: Some(GameResults {
            preset: "classic".into(),
            rated,
            seats,
        }),
        ..command(code, game_id, 3)
    }
}

/// The command that ends a duel, `winner` placed first.
pub(crate) fn last_command(
    code: &str,
    game_id: i64,
    two: [i64; 2],
    winner: i64,
    rated: bool,
) -> CommandRecord {
    let winner = usize::from(two[1] == winner);
    last_command_of(code, game_id, &[Some(two[0]), Some(two[1])], winner, rated)
}

pub(crate) fn waiting(player_id: i64, node: &str, conn: u64) -> Waiting {
    Waiting {
        player_id,
        nickname: format!("P{player_id}"),
        node: node.into(),
        conn,
    }
}
