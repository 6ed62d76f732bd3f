//! Persistence in SQLite: players (token hashes), rooms, the event log of every
//! game, and chat.
//!
//! A game is stored as its setup (with the seed) and the ordered list of accepted
//! commands; replaying them through the engine rebuilds it exactly, because all of
//! the game's randomness comes from the seeded generator inside it. Every write
//! that follows an accepted command happens in one transaction that commits before
//! the server sends the command's result.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{params, Connection, OptionalExtension};

/// A failure of the database.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("cannot create the data directory: {0}")]
    Io(#[from] std::io::Error),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
}

/// The migrations, in order; `PRAGMA user_version` counts those applied.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE players (
    id          INTEGER PRIMARY KEY,
    token_hash  BLOB NOT NULL UNIQUE,
    nickname    TEXT NOT NULL,
    created_ms  INTEGER NOT NULL
);
CREATE TABLE rooms (
    code        TEXT PRIMARY KEY,
    setup       TEXT NOT NULL,
    host        INTEGER NOT NULL,
    game_id     INTEGER,
    game_number INTEGER NOT NULL DEFAULT 0,
    phase       TEXT NOT NULL,
    to_move     TEXT NOT NULL DEFAULT '[]',
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
);
CREATE INDEX rooms_by_phase ON rooms(phase);
CREATE TABLE seats (
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    seat        INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    player_id   INTEGER REFERENCES players(id),
    level       TEXT,
    PRIMARY KEY (room_code, seat)
);
CREATE INDEX seats_by_player ON seats(player_id);
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    number      INTEGER NOT NULL,
    setup       TEXT NOT NULL,
    deadline_ms INTEGER,
    finished    INTEGER NOT NULL DEFAULT 0,
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
);
CREATE TABLE commands (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL,
    command     TEXT NOT NULL,
    at_ms       INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE chat (
    id          INTEGER PRIMARY KEY,
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    seat        INTEGER,
    nickname    TEXT NOT NULL,
    text        TEXT NOT NULL,
    at_ms       INTEGER NOT NULL
);
CREATE INDEX chat_by_room ON chat(room_code, id);
"#];

/// The database, shared by all tasks. SQLite calls are short (single-row writes
/// in WAL mode), so they run under a mutex on the calling task rather than on a
/// thread of their own.
pub struct Db {
    conn: Mutex<Connection>,
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
pub struct CommandRecord<'a> {
    pub room_code: &'a str,
    pub game_id: i64,
    pub seq: u64,
    pub command: &'a str,
    pub at_ms: i64,
    pub deadline_ms: Option<i64>,
    pub phase: &'a str,
    pub to_move: &'a str,
    pub finished: bool,
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

impl Db {
    /// Opens (creating if missing) the database at `path` and migrates it.
    pub fn open(path: &Path) -> Result<Db, DbError> {
        if let Some(parent) = path.parent() {
            if !parent.as_os_str().is_empty() {
                std::fs::create_dir_all(parent)?;
            }
        }
        let conn = Connection::open(path)?;
        // WAL with synchronous=NORMAL: a commit survives a crash of the process
        // (the case a restart must handle) and costs no fsync per command.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Db::setup(conn)
    }

    /// A private database in memory (measurements and unit tests).
    pub fn open_in_memory() -> Result<Db, DbError> {
        Db::setup(Connection::open_in_memory()?)
    }

    fn setup(mut conn: Connection) -> Result<Db, DbError> {
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
        for (index, migration) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
            let tx = conn.transaction()?;
            tx.execute_batch(migration)?;
            tx.pragma_update(None, "user_version", index as i64 + 1)?;
            tx.commit()?;
        }
        Ok(Db {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (its
        // transactions are atomic), so a poisoned lock is still usable.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn player_by_token_hash(&self, hash: &[u8]) -> Result<Option<(i64, String)>, DbError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, nickname FROM players WHERE token_hash = ?1",
                [hash],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?)
    }

    pub fn create_player(&self, hash: &[u8], nickname: &str, now_ms: i64) -> Result<i64, DbError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO players (token_hash, nickname, created_ms) VALUES (?1, ?2, ?3)",
            params![hash, nickname, now_ms],
        )?;
        Ok(conn.last_insert_rowid())
    }

    pub fn set_nickname(&self, player_id: i64, nickname: &str) -> Result<(), DbError> {
        self.conn().execute(
            "UPDATE players SET nickname = ?2 WHERE id = ?1",
            params![player_id, nickname],
        )?;
        Ok(())
    }

    /// Stores a new room; `false` (and nothing written) if its code is taken.
    pub fn create_room(&self, room: &RoomRecord, now_ms: i64) -> Result<bool, DbError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let inserted = tx.execute(
            "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) ON CONFLICT(code) DO NOTHING",
            params![room.code, room.setup, room.host as i64, room.game_number, room.phase, room.to_move, now_ms],
        )?;
        if inserted == 0 {
            return Ok(false);
        }
        Db::write_seats(&tx, room)?;
        tx.commit()?;
        Ok(true)
    }

    fn write_seats(tx: &rusqlite::Transaction, room: &RoomRecord) -> Result<(), DbError> {
        tx.execute("DELETE FROM seats WHERE room_code = ?1", [&room.code])?;
        for (seat, record) in room.seats.iter().enumerate() {
            tx.execute(
                "INSERT INTO seats (room_code, seat, kind, player_id, level) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![room.code, seat as i64, record.kind, record.player_id, record.level],
            )?;
        }
        Ok(())
    }

    /// Writes a room's row and seats (insert or update).
    pub fn save_room(&self, room: &RoomRecord, now_ms: i64) -> Result<(), DbError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
             ON CONFLICT(code) DO UPDATE SET setup = ?2, host = ?3, game_number = ?4, phase = ?5,
                 to_move = ?6, updated_ms = ?7",
            params![room.code, room.setup, room.host as i64, room.game_number, room.phase, room.to_move, now_ms],
        )?;
        Db::write_seats(&tx, room)?;
        tx.commit()?;
        Ok(())
    }

    /// Starts a new game in a room and returns its id.
    pub fn start_game(
        &self,
        room: &RoomRecord,
        setup: &str,
        deadline_ms: Option<i64>,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO games (room_code, number, setup, deadline_ms, created_ms, updated_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
            params![room.code, room.game_number, setup, deadline_ms, now_ms],
        )?;
        let game_id = tx.last_insert_rowid();
        tx.execute(
            "UPDATE rooms SET game_id = ?2, game_number = ?3, phase = ?4, to_move = ?5, host = ?6, updated_ms = ?7
             WHERE code = ?1",
            params![room.code, game_id, room.game_number, room.phase, room.to_move, room.host as i64, now_ms],
        )?;
        tx.commit()?;
        Ok(game_id)
    }

    /// Appends one accepted command to a game's log, with the game's new
    /// deadline and the room's summary, in one transaction.
    pub fn record_command(&self, record: &CommandRecord) -> Result<(), DbError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO commands (game_id, seq, command, at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![
                record.game_id,
                record.seq as i64,
                record.command,
                record.at_ms
            ],
        )?;
        tx.execute(
            "UPDATE games SET deadline_ms = ?2, finished = ?3, updated_ms = ?4 WHERE id = ?1",
            params![
                record.game_id,
                record.deadline_ms,
                record.finished,
                record.at_ms
            ],
        )?;
        tx.execute(
            "UPDATE rooms SET phase = ?2, to_move = ?3, updated_ms = ?4 WHERE code = ?1",
            params![record.room_code, record.phase, record.to_move, record.at_ms],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Codes of the rooms whose game runs (started and not finished): these are
    /// restored when the server starts, so their timers and bots go on.
    pub fn running_rooms(&self) -> Result<Vec<String>, DbError> {
        let conn = self.conn();
        let mut statement = conn.prepare(
            "SELECT code FROM rooms WHERE phase NOT IN ('lobby', 'finished') ORDER BY updated_ms",
        )?;
        let codes = statement
            .query_map([], |row| row.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(codes)
    }

    fn seats_of(conn: &Connection, code: &str) -> Result<Vec<SeatRecord>, DbError> {
        let mut statement = conn.prepare(
            "SELECT seats.kind, seats.player_id, players.nickname, seats.level
             FROM seats LEFT JOIN players ON players.id = seats.player_id
             WHERE seats.room_code = ?1 ORDER BY seats.seat",
        )?;
        let seats = statement
            .query_map([code], |row| {
                Ok(SeatRecord {
                    kind: row.get(0)?,
                    player_id: row.get(1)?,
                    nickname: row.get(2)?,
                    level: row.get(3)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(seats)
    }

    /// A room and its current game, if the room exists.
    pub fn load_room(
        &self,
        code: &str,
    ) -> Result<Option<(RoomRecord, Option<GameRecord>)>, DbError> {
        let conn = self.conn();
        let row = conn
            .query_row(
                "SELECT setup, host, game_id, game_number, phase, to_move FROM rooms WHERE code = ?1",
                [code],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, i64>(1)?,
                        row.get::<_, Option<i64>>(2)?,
                        row.get::<_, u32>(3)?,
                        row.get::<_, String>(4)?,
                        row.get::<_, String>(5)?,
                    ))
                },
            )
            .optional()?;
        let Some((setup, host, game_id, game_number, phase, to_move)) = row else {
            return Ok(None);
        };
        let room = RoomRecord {
            code: code.to_string(),
            setup,
            host: host.max(0) as usize,
            seats: Db::seats_of(&conn, code)?,
            game_number,
            phase,
            to_move,
        };
        let game = match game_id {
            None => None,
            Some(id) => {
                let (number, setup, deadline_ms) = conn.query_row(
                    "SELECT number, setup, deadline_ms FROM games WHERE id = ?1",
                    [id],
                    |row| {
                        Ok((
                            row.get::<_, u32>(0)?,
                            row.get::<_, String>(1)?,
                            row.get::<_, Option<i64>>(2)?,
                        ))
                    },
                )?;
                let mut statement = conn
                    .prepare("SELECT seq, command FROM commands WHERE game_id = ?1 ORDER BY seq")?;
                let rows = statement
                    .query_map([id], |row| {
                        Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
                    })?
                    .collect::<Result<Vec<_>, _>>()?;
                // The log must be gapless: a missing command would replay into
                // another game.
                for (index, (seq, _)) in rows.iter().enumerate() {
                    if *seq != index as i64 + 1 {
                        return Err(DbError::Corrupt(format!(
                            "game {id}: command {} is missing",
                            index + 1
                        )));
                    }
                }
                let commands = rows.into_iter().map(|(_, command)| command).collect();
                Some(GameRecord {
                    id,
                    number,
                    setup,
                    deadline_ms,
                    commands,
                })
            }
        };
        Ok(Some((room, game)))
    }

    /// The rooms (lobbies and unfinished games) where a player holds a seat,
    /// most recently active first.
    pub fn my_games(&self, player_id: i64) -> Result<Vec<MyGame>, DbError> {
        let conn = self.conn();
        let mut statement = conn.prepare(
            "SELECT rooms.code, rooms.setup, rooms.phase, rooms.to_move, seats.seat, rooms.updated_ms
             FROM seats JOIN rooms ON rooms.code = seats.room_code
             WHERE seats.player_id = ?1 AND seats.kind = 'person' AND rooms.phase != 'finished'
             ORDER BY rooms.updated_ms DESC LIMIT 50",
        )?;
        let rows = statement
            .query_map([player_id], |row| {
                Ok(MyGame {
                    code: row.get(0)?,
                    setup: row.get(1)?,
                    phase: row.get(2)?,
                    to_move: row.get(3)?,
                    seat: row.get::<_, i64>(4)?.max(0) as usize,
                    updated_ms: row.get(5)?,
                    seats: Vec::new(),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        drop(statement);
        let mut games = rows;
        for game in &mut games {
            game.seats = Db::seats_of(&conn, &game.code)?;
        }
        Ok(games)
    }

    pub fn add_chat(&self, code: &str, line: &ChatRecord) -> Result<(), DbError> {
        self.conn().execute(
            "INSERT INTO chat (room_code, seat, nickname, text, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                code,
                line.seat.map(|s| s as i64),
                line.nickname,
                line.text,
                line.at_ms
            ],
        )?;
        Ok(())
    }

    /// The last `limit` chat lines of a room, oldest first.
    pub fn recent_chat(&self, code: &str, limit: usize) -> Result<Vec<ChatRecord>, DbError> {
        let conn = self.conn();
        let mut statement = conn.prepare(
            "SELECT seat, nickname, text, at_ms FROM chat WHERE room_code = ?1 ORDER BY id DESC LIMIT ?2",
        )?;
        let mut lines = statement
            .query_map(params![code, limit as i64], |row| {
                Ok(ChatRecord {
                    seat: row.get::<_, Option<i64>>(0)?.map(|s| s.max(0) as usize),
                    nickname: row.get(1)?,
                    text: row.get(2)?,
                    at_ms: row.get(3)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        lines.reverse();
        Ok(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lobby(code: &str, player: i64) -> RoomRecord {
        RoomRecord {
            code: code.into(),
            setup: "{}".into(),
            host: 0,
            seats: vec![
                SeatRecord {
                    kind: "person".into(),
                    player_id: Some(player),
                    nickname: None,
                    level: None,
                },
                SeatRecord {
                    kind: "bot".into(),
                    player_id: None,
                    nickname: None,
                    level: Some("easy".into()),
                },
            ],
            game_number: 0,
            phase: "lobby".into(),
            to_move: "[]".into(),
        }
    }

    #[test]
    fn migrations_run_once_and_reopen_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("db.sqlite");
        let db = Db::open(&path).unwrap();
        let player = db.create_player(b"hash", "Ana", 1).unwrap();
        db.save_room(&lobby("ABCDEF", player), 2).unwrap();
        drop(db);
        let db = Db::open(&path).unwrap();
        assert_eq!(
            db.player_by_token_hash(b"hash").unwrap(),
            Some((player, "Ana".to_string()))
        );
        let (room, game) = db.load_room("ABCDEF").unwrap().unwrap();
        assert_eq!(room.seats.len(), 2);
        assert_eq!(room.seats[0].nickname.as_deref(), Some("Ana"));
        assert!(game.is_none());
    }

    #[test]
    fn the_command_log_replays_in_order_and_my_games_follows_the_phase() {
        let db = Db::open_in_memory().unwrap();
        let player = db.create_player(b"h", "Ana", 1).unwrap();
        let mut room = lobby("QWERTY", player);
        assert!(db.create_room(&room, 1).unwrap());
        assert!(
            !db.create_room(&room, 1).unwrap(),
            "a taken code is refused"
        );
        assert_eq!(db.my_games(player).unwrap().len(), 1);
        room.game_number = 1;
        room.phase = "placement".into();
        let game_id = db.start_game(&room, "{\"seed\":1}", Some(99), 2).unwrap();
        for seq in 1..=3 {
            db.record_command(&CommandRecord {
                room_code: "QWERTY",
                game_id,
                seq,
                command: &format!("{{\"n\":{seq}}}"),
                at_ms: 3,
                deadline_ms: None,
                phase: if seq == 3 { "finished" } else { "battle" },
                to_move: "[]",
                finished: seq == 3,
            })
            .unwrap();
        }
        let (_, game) = db.load_room("QWERTY").unwrap().unwrap();
        let game = game.unwrap();
        assert_eq!(game.commands, vec!["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]);
        assert!(db.my_games(player).unwrap().is_empty());
        assert!(db.running_rooms().unwrap().is_empty());
    }
}
