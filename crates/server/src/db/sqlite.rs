//! The SQLite backend (the single-node default): one connection on a thread
//! of its own does every read and write (the *writer*); async tasks hand it
//! closures and wait for the answer, so no task ever blocks an async worker on
//! SQLite. The writer does **group commit**: it takes every job waiting in its
//! queue, runs each in a savepoint of one transaction (a failing job rolls back
//! alone), commits once, and only then answers each job. A caller therefore
//! hears "stored" only after its write is committed, and under load many
//! rooms' commands share one commit.
//!
//! One process owns the file, so leases are trivial here: every room belongs
//! to this process (token 0).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use rusqlite::{params, Connection, OptionalExtension};

use std::collections::BTreeMap;

use super::{
    ChatRecord, CommandRecord, DbError, GameRecord, GameResults, MyGame, OpenRoom, PastGame,
    Ranked, RoomRecord, SeatRecord, StoredGame, Waiting,
};
use crate::ratings::{self, Rating};
use tokio::sync::{mpsc, oneshot};

/// The migrations, in order; `PRAGMA user_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    r#"
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
"#,
    // The timer's deadline travels with each command, so that a command is one
    // row written (the room's summary only changes with the phase or the turn).
    r#"
ALTER TABLE commands ADD COLUMN deadline_ms INTEGER;
"#,
    // Public play: open rooms, results, ratings and the quick-match queue.
    r#"
ALTER TABLE rooms ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
CREATE INDEX rooms_open ON rooms(public, phase);
CREATE TABLE game_results (
    game_id       INTEGER NOT NULL REFERENCES games(id),
    seat          INTEGER NOT NULL,
    player_id     INTEGER REFERENCES players(id),
    placing       INTEGER NOT NULL,
    rating_before REAL,
    rating_after  REAL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_results_by_player ON game_results(player_id, game_id);
CREATE TABLE ratings (
    player_id   INTEGER NOT NULL REFERENCES players(id),
    preset      TEXT NOT NULL,
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    PRIMARY KEY (player_id, preset)
);
CREATE INDEX ratings_by_preset ON ratings(preset, rating);
CREATE TABLE match_queue (
    player_id   INTEGER PRIMARY KEY REFERENCES players(id),
    nickname    TEXT NOT NULL,
    preset      TEXT NOT NULL,
    node        TEXT NOT NULL,
    conn        INTEGER NOT NULL,
    since_ms    INTEGER NOT NULL
);
CREATE INDEX match_queue_by_preset ON match_queue(preset, since_ms);
"#,
];

/// Jobs that may wait for the writer before callers wait to hand in more.
const QUEUE: usize = 8192;
/// Jobs committed together at most.
const MAX_BATCH: usize = 2048;
/// How long the writer waits for more jobs when it is busy.
const GATHER: std::time::Duration = std::time::Duration::from_millis(2);

/// What the writer answers once the batch's commit is known (`None`: committed).
type Finish = Box<dyn FnOnce(Option<&str>) + Send>;
/// One job: runs on the writer's connection inside the batch's transaction.
type Job = Box<dyn FnOnce(&Connection) -> Finish + Send>;

/// How much the writer has done (for measurements).
#[derive(Default)]
struct Counters {
    commits: AtomicU64,
    jobs: AtomicU64,
}

/// The database, shared by all tasks: a handle on the writer thread.
pub struct Sqlite {
    jobs: Option<mpsc::Sender<Job>>,
    writer: Option<JoinHandle<()>>,
    counters: Arc<Counters>,
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        // The writer finishes the jobs already queued, then stops.
        drop(self.jobs.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

impl Sqlite {
    /// Opens (creating if missing) the database at `path`, migrates it and
    /// starts its writer.
    pub fn open(path: &Path) -> Result<Sqlite, DbError> {
        if let Some(parent) = path.parent() {
            if !parent.as_os_str().is_empty() {
                std::fs::create_dir_all(parent)?;
            }
        }
        let conn = Connection::open(path)?;
        // WAL with synchronous=NORMAL: a commit survives a crash of the process
        // (the case a restart must handle) and costs no fsync per commit.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // Rooms touch pages all over the tables: 16 MiB of SQLite's own cache
        // holds the busiest; the rest is read back from the system's file
        // cache (64 MiB cost 48 MiB more memory for about 7 % less CPU at
        // 10,000 games; docs/performance.md).
        conn.pragma_update(None, "cache_size", -16384)?;
        Sqlite::start(conn)
    }

    /// A private database in memory (measurements and unit tests).
    pub fn open_in_memory() -> Result<Sqlite, DbError> {
        Sqlite::start(Connection::open_in_memory()?)
    }

    fn start(mut conn: Connection) -> Result<Sqlite, DbError> {
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.set_prepared_statement_cache_capacity(64);
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrate(&mut conn)?;
        let (jobs, queue) = mpsc::channel(QUEUE);
        let counters = Arc::new(Counters::default());
        let writer = {
            let counters = counters.clone();
            std::thread::Builder::new()
                .name("broadside-db".into())
                .spawn(move || writer(conn, queue, &counters))?
        };
        Ok(Sqlite {
            jobs: Some(jobs),
            writer: Some(writer),
            counters,
        })
    }

    /// Runs `job` on the writer's connection, inside a savepoint of the next
    /// batch, and answers once the batch is committed. An error of the job
    /// rolls back only the job's own writes.
    pub async fn call<T, F>(&self, job: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, DbError> + Send + 'static,
    {
        let (done, answer) = oneshot::channel();
        let job: Job = Box::new(move |conn: &Connection| {
            let result = in_savepoint(conn, job);
            Box::new(move |commit_error: Option<&str>| {
                let result = match (result, commit_error) {
                    (Ok(_), Some(error)) => Err(DbError::Commit(error.to_string())),
                    (result, _) => result,
                };
                let _ = done.send(result);
            })
        });
        let jobs = self.jobs.as_ref().ok_or(DbError::Closed)?;
        jobs.send(job).await.map_err(|_| DbError::Closed)?;
        answer.await.map_err(|_| DbError::Closed)?
    }

    /// Commits made and jobs done so far (jobs per commit shows the grouping).
    pub fn stats(&self) -> (u64, u64) {
        (
            self.counters.commits.load(Ordering::Relaxed),
            self.counters.jobs.load(Ordering::Relaxed),
        )
    }

    pub async fn player_by_token_hash(
        &self,
        hash: Vec<u8>,
    ) -> Result<Option<(i64, String)>, DbError> {
        self.call(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT id, nickname FROM players WHERE token_hash = ?1",
                    [hash],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?)
        })
        .await
    }

    pub async fn create_player(
        &self,
        hash: Vec<u8>,
        nickname: String,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO players (token_hash, nickname, created_ms) VALUES (?1, ?2, ?3)",
                params![hash, nickname, now_ms],
            )?;
            Ok(conn.last_insert_rowid())
        })
        .await
    }

    pub async fn set_nickname(&self, player_id: i64, nickname: String) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "UPDATE players SET nickname = ?2 WHERE id = ?1",
                params![player_id, nickname],
            )?;
            Ok(())
        })
        .await
    }

    /// Stores a new room; `false` (and nothing written) if its code is taken.
    pub async fn create_room(&self, room: RoomRecord, now_ms: i64) -> Result<bool, DbError> {
        self.call(move |conn| {
            let inserted = exec(
                conn,
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms, public)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8) ON CONFLICT(code) DO NOTHING",
                params![room.code, room.setup, room.host as i64, room.game_number, room.phase, room.to_move, now_ms, room.public],
            )?;
            if inserted == 0 {
                return Ok(false);
            }
            write_seats(conn, &room)?;
            Ok(true)
        })
        .await
    }

    /// Writes a room's row and seats (insert or update).
    pub async fn save_room(&self, room: RoomRecord, now_ms: i64) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms, public)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)
                 ON CONFLICT(code) DO UPDATE SET setup = ?2, host = ?3, game_number = ?4, phase = ?5,
                     to_move = ?6, updated_ms = ?7, public = ?8",
                params![room.code, room.setup, room.host as i64, room.game_number, room.phase, room.to_move, now_ms, room.public],
            )?;
            write_seats(conn, &room)
        })
        .await
    }

    /// Starts a new game in a room and returns its id.
    pub async fn start_game(
        &self,
        room: RoomRecord,
        setup: String,
        deadline_ms: Option<i64>,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO games (room_code, number, setup, deadline_ms, created_ms, updated_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![room.code, room.game_number, setup, deadline_ms, now_ms],
            )?;
            let game_id = conn.last_insert_rowid();
            exec(
                conn,
                "UPDATE rooms SET game_id = ?2, game_number = ?3, phase = ?4, to_move = ?5, host = ?6, updated_ms = ?7
                 WHERE code = ?1",
                params![room.code, game_id, room.game_number, room.phase, room.to_move, room.host as i64, now_ms],
            )?;
            Ok(game_id)
        })
        .await
    }

    /// Appends one accepted command to a game's log with the game's new
    /// deadline, and updates the room's summary when it changed, atomically.
    pub async fn record_command(&self, record: CommandRecord) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO commands (game_id, seq, command, at_ms, deadline_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    record.game_id,
                    record.seq as i64,
                    record.command,
                    record.at_ms,
                    record.deadline_ms
                ],
            )?;
            if record.finished {
                exec(
                    conn,
                    "UPDATE games SET deadline_ms = NULL, finished = 1, updated_ms = ?2 WHERE id = ?1",
                    params![record.game_id, record.at_ms],
                )?;
            }
            if record.summary_changed || record.finished {
                exec(
                    conn,
                    "UPDATE rooms SET phase = ?2, to_move = ?3, updated_ms = ?4 WHERE code = ?1",
                    params![record.room_code, record.phase, record.to_move, record.at_ms],
                )?;
            }
            if let Some(results) = &record.results {
                write_results(conn, record.game_id, record.at_ms, results)?;
            }
            Ok(())
        })
        .await
    }

    /// Codes of the rooms whose game runs (started and not finished): these are
    /// restored when the server starts, so their timers and bots go on.
    pub async fn running_rooms(&self) -> Result<Vec<String>, DbError> {
        self.call(|conn| {
            let mut statement = conn.prepare_cached(
                "SELECT code FROM rooms WHERE phase NOT IN ('lobby', 'finished') ORDER BY updated_ms",
            )?;
            let codes = statement
                .query_map([], |row| row.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            Ok(codes)
        })
        .await
    }

    /// A room and its current game, if the room exists.
    pub async fn load_room(
        &self,
        code: String,
    ) -> Result<Option<(RoomRecord, Option<GameRecord>)>, DbError> {
        self.call(move |conn| load_room(conn, &code)).await
    }

    /// The rooms (lobbies and unfinished games) where a player holds a seat,
    /// most recently active first.
    pub async fn my_games(&self, player_id: i64) -> Result<Vec<MyGame>, DbError> {
        self.call(move |conn| my_games(conn, player_id)).await
    }

    pub async fn add_chat(&self, code: String, line: ChatRecord) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
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
        })
        .await
    }

    /// Public rooms still in their lobby, newest first.
    pub async fn open_rooms(&self, limit: usize) -> Result<Vec<OpenRoom>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT code, setup, updated_ms FROM rooms WHERE public = 1 AND phase = 'lobby'
                 ORDER BY updated_ms DESC LIMIT ?1",
            )?;
            let rooms = statement
                .query_map([limit as i64], |row| {
                    Ok((row.get::<_, String>(0)?, row.get(1)?, row.get(2)?))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            rooms
                .into_iter()
                .map(|(code, setup, updated_ms)| {
                    Ok(OpenRoom {
                        seats: seats_of(conn, &code)?,
                        code,
                        setup,
                        updated_ms,
                    })
                })
                .collect()
        })
        .await
    }

    /// The best `limit` ratings of a preset.
    pub async fn leaderboard(&self, preset: String, limit: usize) -> Result<Vec<Ranked>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT players.nickname, rating, deviation, volatility, games, wins
                 FROM ratings JOIN players ON players.id = ratings.player_id
                 WHERE preset = ?1 ORDER BY rating DESC, games DESC, players.id LIMIT ?2",
            )?;
            let rows = statement
                .query_map(params![preset, limit as i64], |row| {
                    Ok(Ranked {
                        nickname: row.get(0)?,
                        rating: rating_at(row, 1)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }

    /// The current ratings of some people in a preset (missing: unrated).
    pub async fn ratings(
        &self,
        players: Vec<i64>,
        preset: String,
    ) -> Result<BTreeMap<i64, Rating>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT rating, deviation, volatility, games, wins FROM ratings
                 WHERE player_id = ?1 AND preset = ?2",
            )?;
            let mut found = BTreeMap::new();
            for player in players {
                let rating = statement
                    .query_row(params![player, preset], |row| rating_at(row, 0))
                    .optional()?;
                if let Some(rating) = rating {
                    found.insert(player, rating);
                }
            }
            Ok(found)
        })
        .await
    }

    /// The finished games a person played, newest first.
    pub async fn history(&self, player_id: i64, limit: usize) -> Result<Vec<PastGame>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT games.id, games.room_code, rooms.setup, games.updated_ms, mine.placing,
                        mine.rating_before, mine.rating_after,
                        (SELECT count(*) FROM game_results AS all_seats WHERE all_seats.game_id = games.id),
                        (SELECT count(*) FROM game_results AS first WHERE first.game_id = games.id AND first.placing = 1)
                 FROM game_results AS mine
                 JOIN games ON games.id = mine.game_id
                 JOIN rooms ON rooms.code = games.room_code
                 WHERE mine.player_id = ?1
                 ORDER BY games.updated_ms DESC, games.id DESC LIMIT ?2",
            )?;
            let rows = statement
                .query_map(params![player_id, limit as i64], |row| {
                    Ok(PastGame {
                        game_id: row.get(0)?,
                        code: row.get(1)?,
                        setup: row.get(2)?,
                        finished_ms: row.get(3)?,
                        placing: row.get(4)?,
                        rating_before: row.get(5)?,
                        rating_after: row.get(6)?,
                        seats: row.get(7)?,
                        firsts: row.get(8)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }

    /// Puts a person in the quick-match queue of a preset (again: the newest
    /// connection and preset win).
    pub async fn enqueue(
        &self,
        waiting: Waiting,
        preset: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO match_queue (player_id, preset, node, conn, since_ms, nickname) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(player_id) DO UPDATE SET preset = ?2, node = ?3, conn = ?4, since_ms = ?5, nickname = ?6",
                params![waiting.player_id, preset, waiting.node, waiting.conn as i64, now_ms, waiting.nickname],
            )?;
            Ok(())
        })
        .await
    }

    /// Takes a person out of the queue (only from the connection `conn`, so
    /// that an old tab does not cancel a newer one's wait).
    pub async fn dequeue(&self, player_id: i64, conn: u64) -> Result<(), DbError> {
        self.call(move |db| {
            exec(
                db,
                "DELETE FROM match_queue WHERE player_id = ?1 AND conn = ?2",
                params![player_id, conn as i64],
            )?;
            Ok(())
        })
        .await
    }

    /// If `me` still waits (from `conn`), takes the person who has waited
    /// longest for the same preset out of the queue together with `me`, and
    /// returns them.
    pub async fn take_partner(
        &self,
        me: i64,
        conn: u64,
    ) -> Result<Option<(String, Waiting)>, DbError> {
        self.call(move |db| {
            let preset: Option<String> = db
                .prepare_cached("SELECT preset FROM match_queue WHERE player_id = ?1 AND conn = ?2")?
                .query_row(params![me, conn as i64], |row| row.get(0))
                .optional()?;
            let Some(preset) = preset else {
                return Ok(None);
            };
            let partner = db
                .prepare_cached(
                    "SELECT player_id, node, conn, nickname FROM match_queue WHERE preset = ?1 AND player_id != ?2
                     ORDER BY since_ms, player_id LIMIT 1",
                )?
                .query_row(params![preset, me], |row| {
                    Ok(Waiting {
                        player_id: row.get(0)?,
                        node: row.get(1)?,
                        conn: row.get::<_, i64>(2)? as u64,
                        nickname: row.get(3)?,
                    })
                })
                .optional()?;
            let Some(partner) = partner else {
                return Ok(None);
            };
            exec(
                db,
                "DELETE FROM match_queue WHERE player_id IN (?1, ?2)",
                params![me, partner.player_id],
            )?;
            Ok(Some((preset, partner)))
        })
        .await
    }

    /// How many people wait for a preset.
    pub async fn waiting(&self, preset: String) -> Result<u32, DbError> {
        self.call(move |conn| {
            Ok(conn
                .prepare_cached("SELECT count(*) FROM match_queue WHERE preset = ?1")?
                .query_row([preset], |row| row.get(0))?)
        })
        .await
    }

    /// Empties the queue of a node's connections (it starts: they are gone).
    pub async fn clear_queue(&self, node: String) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(conn, "DELETE FROM match_queue WHERE node = ?1", [node])?;
            Ok(())
        })
        .await
    }

    /// The last `limit` chat lines of a room, oldest first.
    pub async fn recent_chat(
        &self,
        code: String,
        limit: usize,
    ) -> Result<Vec<ChatRecord>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
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
        })
        .await
    }

    /// A stored game by its id, with its whole command log; `None` if no game
    /// has this id.
    pub async fn load_game(&self, id: i64) -> Result<Option<StoredGame>, DbError> {
        self.call(move |conn| stored_game(conn, id)).await
    }
}

fn migrate(conn: &mut Connection) -> Result<(), DbError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(migration)?;
        tx.pragma_update(None, "user_version", index as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

/// Runs one job in a savepoint: its writes stay only if it succeeds.
fn in_savepoint<T>(
    conn: &Connection,
    job: impl FnOnce(&Connection) -> Result<T, DbError>,
) -> Result<T, DbError> {
    exec(conn, "SAVEPOINT job", [])?;
    let result = job(conn);
    if result.is_err() {
        exec(conn, "ROLLBACK TO job", [])?;
    }
    exec(conn, "RELEASE job", [])?;
    result
}

/// The writer thread: batches of waiting jobs, one transaction per batch.
fn writer(conn: Connection, mut queue: mpsc::Receiver<Job>, counters: &Counters) {
    let mut busy = false;
    let report = std::env::var_os("BROADSIDE_DB_STATS").is_some();
    let (mut window, mut window_jobs, mut window_commits) = (std::time::Instant::now(), 0u64, 0u64);
    let (mut work, mut longest) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    while let Some(first) = queue.blocking_recv() {
        let started = std::time::Instant::now();
        // Under load (the last batch held several jobs), wait a moment for
        // more: each commit writes every page it touched, so bigger batches
        // write far less per command.
        if busy {
            std::thread::sleep(GATHER);
        }
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if let Err(error) = exec(&conn, "BEGIN IMMEDIATE", []) {
            // Nothing of this batch ran; each caller hears why.
            let error = error.to_string();
            for job in batch {
                drop(job);
            }
            eprintln!("broadside: database: cannot begin a transaction: {error}");
            continue;
        }
        let finishes: Vec<Finish> = batch.into_iter().map(|job| job(&conn)).collect();
        let committed = exec(&conn, "COMMIT", []);
        let error = committed.err().map(|error| {
            let _ = exec(&conn, "ROLLBACK", []);
            error.to_string()
        });
        counters.commits.fetch_add(1, Ordering::Relaxed);
        counters
            .jobs
            .fetch_add(finishes.len() as u64, Ordering::Relaxed);
        busy = finishes.len() > 1;
        if report {
            let took = started.elapsed();
            work += took;
            longest = longest.max(took);
            window_jobs += finishes.len() as u64;
            window_commits += 1;
            if window.elapsed() >= std::time::Duration::from_secs(5) {
                eprintln!(
                    "db: {window_commits} commits, {window_jobs} jobs, busy {:.0}%, longest batch {:?}",
                    work.as_secs_f64() * 100.0 / window.elapsed().as_secs_f64(),
                    longest
                );
                (window, window_jobs, window_commits) = (std::time::Instant::now(), 0, 0);
                (work, longest) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
            }
        }
        for finish in finishes {
            finish(error.as_deref());
        }
    }
}

/// Runs one statement, prepared once per connection and then reused.
fn exec(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// A finished game's placings and, when it is rated, its people's new
/// ratings (in the transaction of its last command).
fn write_results(
    conn: &Connection,
    game_id: i64,
    at_ms: i64,
    results: &GameResults,
) -> Result<(), DbError> {
    let placings = results.placings();
    let mut before = BTreeMap::new();
    let mut after = BTreeMap::new();
    if results.rated {
        for &player in placings.keys() {
            let stored = conn
                .prepare_cached(
                    "SELECT rating, deviation, volatility, games, wins FROM ratings
                     WHERE player_id = ?1 AND preset = ?2",
                )?
                .query_row(params![player, results.preset], |row| rating_at(row, 0))
                .optional()?;
            before.insert(player, stored.unwrap_or_default());
        }
        after = ratings::rate(&placings, &before);
        for (player, rating) in &after {
            exec(
                conn,
                "INSERT INTO ratings (player_id, preset, rating, deviation, volatility, games, wins, updated_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(player_id, preset) DO UPDATE SET rating = ?3, deviation = ?4,
                     volatility = ?5, games = ?6, wins = ?7, updated_ms = ?8",
                params![
                    player,
                    results.preset,
                    rating.rating,
                    rating.deviation,
                    rating.volatility,
                    rating.games,
                    rating.wins,
                    at_ms
                ],
            )?;
        }
    }
    for seat in &results.seats {
        let change = seat.rating_change(&before, &after);
        exec(
            conn,
            "INSERT INTO game_results (game_id, seat, player_id, placing, rating_before, rating_after)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                game_id,
                seat.seat as i64,
                seat.player_id,
                seat.placing,
                change.map(|c| c.0),
                change.map(|c| c.1)
            ],
        )?;
    }
    Ok(())
}

/// A rating stored in five columns from `first` on (rating, deviation,
/// volatility, games, wins).
fn rating_at(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Rating> {
    Ok(Rating {
        rating: row.get(first)?,
        deviation: row.get(first + 1)?,
        volatility: row.get(first + 2)?,
        games: row.get(first + 3)?,
        wins: row.get(first + 4)?,
    })
}

fn write_seats(conn: &Connection, room: &RoomRecord) -> Result<(), DbError> {
    exec(conn, "DELETE FROM seats WHERE room_code = ?1", [&room.code])?;
    for (seat, record) in room.seats.iter().enumerate() {
        exec(
                conn,
            "INSERT INTO seats (room_code, seat, kind, player_id, level) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![room.code, seat as i64, record.kind, record.player_id, record.level],
        )?;
    }
    Ok(())
}

fn seats_of(conn: &Connection, code: &str) -> Result<Vec<SeatRecord>, DbError> {
    let mut statement = conn.prepare_cached(
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

fn load_room(
    conn: &Connection,
    code: &str,
) -> Result<Option<(RoomRecord, Option<GameRecord>)>, DbError> {
    let row = conn
        .query_row(
            "SELECT setup, host, game_id, game_number, phase, to_move, public FROM rooms WHERE code = ?1",
            [code],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, Option<i64>>(2)?,
                    row.get::<_, u32>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, bool>(6)?,
                ))
            },
        )
        .optional()?;
    let Some((setup, host, game_id, game_number, phase, to_move, public)) = row else {
        return Ok(None);
    };
    let room = RoomRecord {
        code: code.to_string(),
        setup,
        host: host.max(0) as usize,
        seats: seats_of(conn, code)?,
        game_number,
        phase,
        to_move,
        public,
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
            let mut statement = conn.prepare_cached(
                "SELECT seq, command, deadline_ms FROM commands WHERE game_id = ?1 ORDER BY seq",
            )?;
            let rows = statement
                .query_map([id], |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, Option<i64>>(2)?,
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            // The deadline of the last command (the game's own until the first).
            let deadline_ms = match rows.last() {
                Some((_, _, deadline)) => *deadline,
                None => deadline_ms,
            };
            check_gapless(id, rows.iter().map(|(seq, _, _)| *seq))?;
            let commands = rows.into_iter().map(|(_, command, _)| command).collect();
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

/// The log must be gapless (its sequence numbers 1, 2, 3, …): a missing
/// command would replay into another game.
fn check_gapless(id: i64, seqs: impl Iterator<Item = i64>) -> Result<(), DbError> {
    for (expected, seq) in (1i64..).zip(seqs) {
        if seq != expected {
            return Err(DbError::Corrupt(format!(
                "game {id}: command {expected} is missing"
            )));
        }
    }
    Ok(())
}

fn stored_game(conn: &Connection, id: i64) -> Result<Option<StoredGame>, DbError> {
    let row = conn
        .query_row(
            "SELECT room_code, number, setup, finished, updated_ms FROM games WHERE id = ?1",
            [id],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, u32>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, bool>(3)?,
                    row.get::<_, i64>(4)?,
                ))
            },
        )
        .optional()?;
    let Some((room_code, number, setup, finished, updated_ms)) = row else {
        return Ok(None);
    };
    let mut statement =
        conn.prepare_cached("SELECT seq, command FROM commands WHERE game_id = ?1 ORDER BY seq")?;
    let rows = statement
        .query_map([id], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    check_gapless(id, rows.iter().map(|(seq, _)| *seq))?;
    Ok(Some(StoredGame {
        id,
        room_code,
        number,
        setup,
        commands: rows.into_iter().map(|(_, command)| command).collect(),
        finished,
        finished_ms: finished.then_some(updated_ms),
    }))
}

fn my_games(conn: &Connection, player_id: i64) -> Result<Vec<MyGame>, DbError> {
    let mut statement = conn.prepare_cached(
        "SELECT rooms.code, rooms.setup, rooms.phase, rooms.to_move, seats.seat, rooms.updated_ms
         FROM seats JOIN rooms ON rooms.code = seats.room_code
         WHERE seats.player_id = ?1 AND seats.kind = 'person' AND rooms.phase != 'finished'
         ORDER BY rooms.updated_ms DESC LIMIT 50",
    )?;
    let mut games = statement
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
    for game in &mut games {
        game.seats = seats_of(conn, &game.code)?;
    }
    Ok(games)
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
            public: false,
        }
    }

    #[tokio::test]
    async fn migrations_run_once_and_reopen_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("db.sqlite");
        let db = Sqlite::open(&path).unwrap();
        let player = db
            .create_player(b"hash".to_vec(), "Ana".into(), 1)
            .await
            .unwrap();
        db.save_room(lobby("ABCDEF", player), 2).await.unwrap();
        drop(db);
        let db = Sqlite::open(&path).unwrap();
        assert_eq!(
            db.player_by_token_hash(b"hash".to_vec()).await.unwrap(),
            Some((player, "Ana".to_string()))
        );
        let (room, game) = db.load_room("ABCDEF".into()).await.unwrap().unwrap();
        assert_eq!(room.seats.len(), 2);
        assert_eq!(room.seats[0].nickname.as_deref(), Some("Ana"));
        assert!(game.is_none());
    }

    fn command(game_id: i64, seq: u64) -> CommandRecord {
        CommandRecord {
            room_code: "QWERTY".into(),
            game_id,
            seq,
            command: format!("{{\"n\":{seq}}}"),
            at_ms: 3,
            deadline_ms: None,
            phase: if seq == 3 { "finished" } else { "battle" },
            to_move: "[]".into(),
            finished: seq == 3,
            summary_changed: seq == 1,
            results: None,
        }
    }

    #[tokio::test]
    async fn the_command_log_replays_in_order_and_my_games_follows_the_phase() {
        let db = Sqlite::open_in_memory().unwrap();
        let player = db
            .create_player(b"h".to_vec(), "Ana".into(), 1)
            .await
            .unwrap();
        let mut room = lobby("QWERTY", player);
        assert!(db.create_room(room.clone(), 1).await.unwrap());
        assert!(
            !db.create_room(room.clone(), 1).await.unwrap(),
            "a taken code is refused"
        );
        assert_eq!(db.my_games(player).await.unwrap().len(), 1);
        room.game_number = 1;
        room.phase = "placement".into();
        let game_id = db
            .start_game(room, "{\"seed\":1}".into(), Some(99), 2)
            .await
            .unwrap();
        for seq in 1..=3 {
            db.record_command(command(game_id, seq)).await.unwrap();
        }
        let (_, game) = db.load_room("QWERTY".into()).await.unwrap().unwrap();
        let game = game.unwrap();
        assert_eq!(game.commands, vec!["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]);
        assert!(db.my_games(player).await.unwrap().is_empty());
        assert!(db.running_rooms().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_stored_game_loads_by_id_with_its_log_finished_or_not() {
        let db = Sqlite::open_in_memory().unwrap();
        crate::db::check_load_game(&crate::db::Db(crate::db::Backend::Sqlite(db))).await;
    }

    /// Many rooms' writes arriving together share commits, each caller hears
    /// of its own write only once it is committed, and a failing write rolls
    /// back alone.
    #[tokio::test]
    async fn concurrent_writes_are_grouped_and_a_failure_stays_alone() {
        let db = Arc::new(Sqlite::open_in_memory().unwrap());
        let player = db
            .create_player(b"h".to_vec(), "Ana".into(), 1)
            .await
            .unwrap();
        let room = lobby("QWERTY", player);
        assert!(db.create_room(room.clone(), 1).await.unwrap());
        let game_id = db.start_game(room, "{}".into(), None, 2).await.unwrap();
        let (commits_before, _) = db.stats();
        let mut writes = Vec::new();
        for seq in 1..=200u64 {
            let db = db.clone();
            writes.push(tokio::spawn(async move {
                db.record_command(command(game_id, seq)).await
            }));
        }
        // A duplicate sequence number is refused by the primary key.
        let duplicate = db.record_command(command(game_id, 1));
        let mut results = Vec::new();
        for write in writes {
            results.push(write.await.unwrap());
        }
        let duplicate = duplicate.await;
        assert!(results.iter().all(Result::is_ok));
        assert!(duplicate.is_err(), "seq 1 is stored once");
        let (commits, jobs) = db.stats();
        assert!(
            commits - commits_before < 201,
            "{} commits for 201 writes",
            commits - commits_before
        );
        assert!(jobs >= 204);
        let (_, game) = db.load_room("QWERTY".into()).await.unwrap().unwrap();
        assert_eq!(game.unwrap().commands.len(), 200);
    }
}
