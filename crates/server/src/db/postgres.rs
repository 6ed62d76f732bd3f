//! The PostgreSQL backend: one database shared by the nodes of a cluster,
//! reached through a pool of connections (`deadpool-postgres`).
//!
//! The tables and their meaning are SQLite's (db/sqlite.rs), plus `leases`:
//! one row per room held by a node, with its fencing token (drawn from the
//! sequence `lease_tokens`, so that a new holder's token is larger than every
//! earlier one) and its expiry. Every lease time is the database's clock
//! (`now()`), never a node's, so the nodes' clocks need not agree.
//!
//! **Fencing.** Every write on behalf of a room first locks the room's lease
//! row `FOR SHARE` and checks that its token is the writer's; otherwise it
//! writes nothing and fails with [`DbError::Fenced`]. The share lock is held
//! until the write commits, so a node taking the room over (whose `UPDATE` of
//! the lease row waits for it) reads the log only after every write of the old
//! owner that passed the fence is committed, and every later write of the old
//! owner finds the new token and is refused.
//!
//! The writes that happen on every move (a command, a chat line) are single
//! statements whose first part is the fence: one round trip, one implicit
//! transaction. The rarer ones (rooms, new games, the command that ends a game
//! with its results and ratings) are explicit transactions.
//!
//! **Ratings.** A rated game's last command reads its people's ratings
//! `FOR UPDATE` (after creating the missing ones at their starting values), so
//! that two games ending at once for one person update that rating one after
//! the other; the rows are locked in the order of the people's ids, so such
//! games cannot deadlock.
//!
//! **The quick-match queue.** Pairing locks the pairer's own row, then takes
//! the partner `FOR UPDATE SKIP LOCKED`: nodes pairing at once never take one
//! person twice and cannot deadlock. One that finds every other row locked
//! pairs nobody this time and tries again at its next tick (once a second).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime, Transaction,
};
use tokio_postgres::types::ToSql;
use tokio_postgres::{IsolationLevel, NoTls, Row};

use super::{
    ChatRecord, CommandRecord, DbError, GameRecord, GameResults, Lease, MyGame, OpenRoom, Owner,
    PastGame, Ranked, RoomRecord, SeatRecord, StoredGame, Waiting,
};
use crate::ratings::{self, Rating};

/// Connections each node keeps at most.
const POOL_SIZE: usize = 16;

/// The key of the advisory lock that migrations hold, so that nodes starting
/// together migrate the database once ("Broadside" in ASCII).
const MIGRATION_LOCK: i64 = 0x4272_6f61_6473_6964;

/// The migrations, in order; `schema_migrations` lists the versions applied
/// (the first is version 1).
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE players (
    id          BIGSERIAL PRIMARY KEY,
    token_hash  BYTEA NOT NULL UNIQUE,
    nickname    TEXT NOT NULL,
    created_ms  BIGINT NOT NULL
);
CREATE TABLE rooms (
    code        TEXT PRIMARY KEY,
    setup       TEXT NOT NULL,
    host        BIGINT NOT NULL,
    game_id     BIGINT,
    game_number BIGINT NOT NULL DEFAULT 0,
    phase       TEXT NOT NULL,
    to_move     TEXT NOT NULL DEFAULT '[]',
    created_ms  BIGINT NOT NULL,
    updated_ms  BIGINT NOT NULL
);
CREATE INDEX rooms_by_phase ON rooms(phase);
CREATE TABLE seats (
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    seat        BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    player_id   BIGINT REFERENCES players(id),
    level       TEXT,
    PRIMARY KEY (room_code, seat)
);
CREATE INDEX seats_by_player ON seats(player_id);
CREATE TABLE games (
    id          BIGSERIAL PRIMARY KEY,
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    number      BIGINT NOT NULL,
    setup       TEXT NOT NULL,
    deadline_ms BIGINT,
    finished    BOOLEAN NOT NULL DEFAULT FALSE,
    created_ms  BIGINT NOT NULL,
    updated_ms  BIGINT NOT NULL
);
CREATE TABLE commands (
    game_id     BIGINT NOT NULL REFERENCES games(id),
    seq         BIGINT NOT NULL,
    command     TEXT NOT NULL,
    at_ms       BIGINT NOT NULL,
    deadline_ms BIGINT,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE chat (
    id          BIGSERIAL PRIMARY KEY,
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    seat        BIGINT,
    nickname    TEXT NOT NULL,
    text        TEXT NOT NULL,
    at_ms       BIGINT NOT NULL
);
CREATE INDEX chat_by_room ON chat(room_code, id);
CREATE TABLE leases (
    room_code   TEXT PRIMARY KEY REFERENCES rooms(code),
    node        TEXT NOT NULL,
    token       BIGINT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX leases_by_expiry ON leases(expires_at);
CREATE SEQUENCE lease_tokens;
"#,
    // Public play: open rooms, results, ratings and the quick-match queue.
    // (`placing` is a reserved word of PostgreSQL: it is quoted.)
    r#"
ALTER TABLE rooms ADD COLUMN public BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX rooms_open ON rooms(public, phase);
CREATE TABLE game_results (
    game_id       BIGINT NOT NULL REFERENCES games(id),
    seat          BIGINT NOT NULL,
    player_id     BIGINT REFERENCES players(id),
    "placing"     BIGINT NOT NULL,
    rating_before DOUBLE PRECISION,
    rating_after  DOUBLE PRECISION,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_results_by_player ON game_results(player_id, game_id);
CREATE TABLE ratings (
    player_id   BIGINT NOT NULL REFERENCES players(id),
    preset      TEXT NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    games       BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    updated_ms  BIGINT NOT NULL,
    PRIMARY KEY (player_id, preset)
);
CREATE INDEX ratings_by_preset ON ratings(preset, rating);
CREATE TABLE match_queue (
    player_id   BIGINT PRIMARY KEY REFERENCES players(id),
    nickname    TEXT NOT NULL,
    preset      TEXT NOT NULL,
    node        TEXT NOT NULL,
    conn        BIGINT NOT NULL,
    since_ms    BIGINT NOT NULL
);
CREATE INDEX match_queue_by_preset ON match_queue(preset, since_ms);
"#,
];

/// The fence of a write, as the first part of a statement: one row (the lease,
/// locked until the write commits) if `$1`'s lease still has the token `$2`.
/// Writes that follow take their rows `FROM lease`, or check
/// `EXISTS (SELECT 1 FROM lease)`, so that a fenced statement writes nothing.
macro_rules! fenced {
    ($rest:literal) => {
        concat!(
            "WITH lease AS MATERIALIZED (
    SELECT token FROM leases WHERE room_code = $1 AND token = $2 FOR SHARE
)",
            $rest
        )
    };
}

/// One accepted command: $1 room, $2 token, $3 game, $4 seq, $5 command,
/// $6 at_ms, $7 deadline, $8 finished, $9 phase, $10 to_move, $11 summary
/// changed. Answers 1 if it passed the fence.
const RECORD_COMMAND: &str = fenced!(
    ", command AS (
    INSERT INTO commands (game_id, seq, command, at_ms, deadline_ms)
    SELECT $3, $4, $5, $6, $7 FROM lease
), game AS (
    UPDATE games SET deadline_ms = NULL, finished = TRUE, updated_ms = $6
    WHERE id = $3 AND $8 AND EXISTS (SELECT 1 FROM lease)
), room AS (
    UPDATE rooms SET phase = $9, to_move = $10, updated_ms = $6
    WHERE code = $1 AND ($8 OR $11) AND EXISTS (SELECT 1 FROM lease)
)
SELECT count(*) FROM lease"
);

/// One chat line: $1 room, $2 token, $3 seat, $4 nickname, $5 text, $6 at_ms.
/// Answers 1 if it passed the fence.
const ADD_CHAT: &str = fenced!(
    ", line AS (
    INSERT INTO chat (room_code, seat, nickname, text, at_ms)
    SELECT $1, $3, $4, $5, $6 FROM lease
)
SELECT count(*) FROM lease"
);

/// How much the backend has done (for measurements).
#[derive(Default)]
struct Counters {
    commits: AtomicU64,
    jobs: AtomicU64,
}

pub struct Postgres {
    pool: Pool,
    counters: Counters,
}

impl From<tokio_postgres::Error> for DbError {
    fn from(error: tokio_postgres::Error) -> DbError {
        // The driver's own text is only "db error": the server's message and
        // code say what went wrong.
        match error.as_db_error() {
            Some(db) => DbError::Postgres(format!("{} ({})", db.message(), db.code().code())),
            None => DbError::Postgres(error.to_string()),
        }
    }
}

impl From<PoolError> for DbError {
    fn from(error: PoolError) -> DbError {
        DbError::Postgres(error.to_string())
    }
}

/// A duration as whole milliseconds for SQL (`$n::bigint * interval '1 millisecond'`).
fn millis(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}

/// A stored non-negative number as an index (seat, host).
fn index(value: i64) -> usize {
    usize::try_from(value).unwrap_or(0)
}

fn game_number(value: i64) -> Result<u32, DbError> {
    small(value, "game number")
}

/// A stored count or rank (games, wins, a placing).
fn small(value: i64, what: &str) -> Result<u32, DbError> {
    u32::try_from(value).map_err(|_| DbError::Corrupt(format!("{what} {value}")))
}

/// A `LIMIT` for SQL.
fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// The rating in the columns `at..at + 5` of a row: rating, deviation,
/// volatility, games, wins.
fn rating_at(row: &Row, at: usize) -> Result<Rating, DbError> {
    Ok(Rating {
        rating: row.get(at),
        deviation: row.get(at + 1),
        volatility: row.get(at + 2),
        games: small(row.get(at + 3), "games")?,
        wins: small(row.get(at + 4), "wins")?,
    })
}

/// A read-only transaction that reads one snapshot of the database.
async fn snapshot(client: &mut Object) -> Result<Transaction<'_>, DbError> {
    Ok(client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?)
}

impl Postgres {
    /// Connects to the database `url` names (`postgres://USER@HOST[:PORT]/DB`),
    /// builds the pool and migrates the database.
    pub async fn connect(url: &str) -> Result<Postgres, DbError> {
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|error| DbError::Postgres(format!("bad database URL: {error}")))?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .create_timeout(Some(Duration::from_secs(10)))
            .wait_timeout(Some(Duration::from_secs(30)))
            .build()
            .map_err(|error| DbError::Postgres(error.to_string()))?;
        let db = Postgres {
            pool,
            counters: Counters::default(),
        };
        db.migrate().await?;
        Ok(db)
    }

    /// Applies the migrations not yet applied, all in one transaction under an
    /// advisory lock: a node starting while another migrates waits, then finds
    /// nothing left to do.
    async fn migrate(&self) -> Result<(), DbError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INT PRIMARY KEY)")
            .await?;
        let applied: i32 = tx
            .query_one(
                "SELECT COALESCE(max(version), 0) FROM schema_migrations",
                &[],
            )
            .await?
            .get(0);
        for (number, migration) in (1..).zip(MIGRATIONS) {
            if number <= applied {
                continue;
            }
            tx.batch_execute(migration).await?;
            tx.execute(
                "INSERT INTO schema_migrations (version) VALUES ($1)",
                &[&number],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A pooled connection for one job.
    async fn client(&self) -> Result<Object, DbError> {
        self.counters.jobs.fetch_add(1, Ordering::Relaxed);
        Ok(self.pool.get().await?)
    }

    fn committed(&self) {
        self.counters.commits.fetch_add(1, Ordering::Relaxed);
    }

    /// The rows one statement answers, on a pooled connection.
    async fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, DbError> {
        let client = self.client().await?;
        let statement = client.prepare_cached(sql).await?;
        Ok(client.query(&statement, params).await?)
    }

    /// Runs one writing statement (a transaction of its own) on a pooled
    /// connection, and answers how many rows it wrote.
    async fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, DbError> {
        let client = self.client().await?;
        let statement = client.prepare_cached(sql).await?;
        let written = client.execute(&statement, params).await?;
        self.committed();
        Ok(written)
    }

    /// Transactions committed and jobs done so far.
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
        let client = self.client().await?;
        let statement = client
            .prepare_cached("SELECT id, nickname FROM players WHERE token_hash = $1")
            .await?;
        let row = client.query_opt(&statement, &[&hash]).await?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    pub async fn create_player(
        &self,
        hash: Vec<u8>,
        nickname: String,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "INSERT INTO players (token_hash, nickname, created_ms) VALUES ($1, $2, $3)
                 RETURNING id",
            )
            .await?;
        let row = client
            .query_one(&statement, &[&hash, &nickname, &now_ms])
            .await?;
        self.committed();
        Ok(row.get(0))
    }

    pub async fn set_nickname(&self, player_id: i64, nickname: String) -> Result<(), DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached("UPDATE players SET nickname = $2 WHERE id = $1")
            .await?;
        client.execute(&statement, &[&player_id, &nickname]).await?;
        self.committed();
        Ok(())
    }

    /// Stores a new room with `node`'s lease on it, in one transaction; `None`
    /// (and nothing written) if its code is taken.
    pub async fn create_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms, public)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) ON CONFLICT (code) DO NOTHING",
            )
            .await?;
        let inserted = tx
            .execute(
                &insert,
                &[
                    &room.code,
                    &room.setup,
                    &(room.host as i64),
                    &i64::from(room.game_number),
                    &room.phase,
                    &room.to_move,
                    &now_ms,
                    &room.public,
                ],
            )
            .await?;
        if inserted == 0 {
            // Dropping the transaction rolls it back (it wrote nothing anyway).
            return Ok(None);
        }
        write_seats(&tx, &room).await?;
        let lease = tx
            .prepare_cached(
                "INSERT INTO leases (room_code, node, token, expires_at)
                 VALUES ($1, $2, nextval('lease_tokens'), now() + $3::bigint * interval '1 millisecond')
                 RETURNING token",
            )
            .await?;
        let token: i64 = tx
            .query_one(&lease, &[&room.code, &node, &millis(ttl)])
            .await?
            .get(0);
        tx.commit().await?;
        self.committed();
        Ok(Some(Lease {
            code: room.code,
            node: node.to_string(),
            token,
        }))
    }

    /// Writes a room's row and seats (insert or update), behind the fence.
    pub async fn save_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        lease: Lease,
    ) -> Result<(), DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        check_lease(&tx, &room.code, &lease).await?;
        let upsert = tx
            .prepare_cached(
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms, public)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)
                 ON CONFLICT (code) DO UPDATE SET setup = $2, host = $3, game_number = $4, phase = $5,
                     to_move = $6, updated_ms = $7, public = $8",
            )
            .await?;
        tx.execute(
            &upsert,
            &[
                &room.code,
                &room.setup,
                &(room.host as i64),
                &i64::from(room.game_number),
                &room.phase,
                &room.to_move,
                &now_ms,
                &room.public,
            ],
        )
        .await?;
        write_seats(&tx, &room).await?;
        tx.commit().await?;
        self.committed();
        Ok(())
    }

    /// Starts a new game in a room and returns its id, behind the fence.
    pub async fn start_game(
        &self,
        room: RoomRecord,
        setup: String,
        deadline_ms: Option<i64>,
        now_ms: i64,
        lease: Lease,
    ) -> Result<i64, DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        check_lease(&tx, &room.code, &lease).await?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO games (room_code, number, setup, deadline_ms, created_ms, updated_ms)
                 VALUES ($1, $2, $3, $4, $5, $5) RETURNING id",
            )
            .await?;
        let game_id: i64 = tx
            .query_one(
                &insert,
                &[
                    &room.code,
                    &i64::from(room.game_number),
                    &setup,
                    &deadline_ms,
                    &now_ms,
                ],
            )
            .await?
            .get(0);
        let update = tx
            .prepare_cached(
                "UPDATE rooms SET game_id = $2, game_number = $3, phase = $4, to_move = $5, host = $6,
                     updated_ms = $7
                 WHERE code = $1",
            )
            .await?;
        tx.execute(
            &update,
            &[
                &room.code,
                &game_id,
                &i64::from(room.game_number),
                &room.phase,
                &room.to_move,
                &(room.host as i64),
                &now_ms,
            ],
        )
        .await?;
        tx.commit().await?;
        self.committed();
        Ok(game_id)
    }

    /// Appends one accepted command to a game's log with the game's new
    /// deadline, and updates the room's summary when it changed: one
    /// statement (one round trip, one transaction) behind the fence. The
    /// command that ends a game comes with its results: then the same
    /// statement runs in an explicit transaction that also writes the results
    /// and the ratings, and the fence's share lock on the lease row holds
    /// until all of it commits.
    pub async fn record_command(&self, record: CommandRecord, lease: Lease) -> Result<(), DbError> {
        let mut client = self.client().await?;
        let seq = i64::try_from(record.seq)
            .map_err(|_| DbError::Corrupt(format!("command number {}", record.seq)))?;
        let phase: &str = record.phase;
        let params: [&(dyn ToSql + Sync); 11] = [
            &record.room_code,
            &lease.token,
            &record.game_id,
            &seq,
            &record.command,
            &record.at_ms,
            &record.deadline_ms,
            &record.finished,
            &phase,
            &record.to_move,
            &record.summary_changed,
        ];
        match &record.results {
            None => {
                let statement = client.prepare_cached(RECORD_COMMAND).await?;
                let row = client.query_one(&statement, &params).await?;
                passed_fence(&row, &record.room_code)?;
            }
            Some(results) => {
                let tx = client.transaction().await?;
                let statement = tx.prepare_cached(RECORD_COMMAND).await?;
                let row = tx.query_one(&statement, &params).await?;
                // Fenced: dropping the transaction rolls it back (it wrote
                // nothing anyway).
                passed_fence(&row, &record.room_code)?;
                write_results(&tx, record.game_id, record.at_ms, results).await?;
                tx.commit().await?;
            }
        }
        self.committed();
        Ok(())
    }

    /// Stores one chat line of a room: one statement behind the fence.
    pub async fn add_chat(
        &self,
        code: String,
        line: ChatRecord,
        lease: Lease,
    ) -> Result<(), DbError> {
        let client = self.client().await?;
        let statement = client.prepare_cached(ADD_CHAT).await?;
        let seat = line.seat.map(|seat| seat as i64);
        let row = client
            .query_one(
                &statement,
                &[
                    &code,
                    &lease.token,
                    &seat,
                    &line.nickname,
                    &line.text,
                    &line.at_ms,
                ],
            )
            .await?;
        passed_fence(&row, &code)?;
        self.committed();
        Ok(())
    }

    /// Codes of the rooms whose game runs (started and not finished).
    pub async fn running_rooms(&self) -> Result<Vec<String>, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT code FROM rooms WHERE phase NOT IN ('lobby', 'finished') ORDER BY updated_ms",
            )
            .await?;
        let rows = client.query(&statement, &[]).await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// A room and its current game, if the room exists: read in one snapshot.
    pub async fn load_room(
        &self,
        code: String,
    ) -> Result<Option<(RoomRecord, Option<GameRecord>)>, DbError> {
        let mut client = self.client().await?;
        let tx = snapshot(&mut client).await?;
        let statement = tx
            .prepare_cached(
                "SELECT setup, host, game_id, game_number, phase, to_move, public FROM rooms
                 WHERE code = $1",
            )
            .await?;
        let Some(row) = tx.query_opt(&statement, &[&code]).await? else {
            return Ok(None);
        };
        let game_id: Option<i64> = row.get(2);
        let room = RoomRecord {
            code: code.clone(),
            setup: row.get(0),
            host: index(row.get(1)),
            seats: seats_of(&tx, std::slice::from_ref(&code))
                .await?
                .into_iter()
                .map(|(_, seat)| seat)
                .collect(),
            game_number: game_number(row.get(3))?,
            phase: row.get(4),
            to_move: row.get(5),
            public: row.get(6),
        };
        let game = match game_id {
            None => None,
            Some(id) => Some(load_game(&tx, id).await?),
        };
        tx.commit().await?;
        Ok(Some((room, game)))
    }

    /// The rooms (lobbies and unfinished games) where a player holds a seat,
    /// most recently active first.
    pub async fn my_games(&self, player_id: i64) -> Result<Vec<MyGame>, DbError> {
        let mut client = self.client().await?;
        let tx = snapshot(&mut client).await?;
        let statement = tx
            .prepare_cached(
                "SELECT rooms.code, rooms.setup, rooms.phase, rooms.to_move, seats.seat, rooms.updated_ms
                 FROM seats JOIN rooms ON rooms.code = seats.room_code
                 WHERE seats.player_id = $1 AND seats.kind = 'person' AND rooms.phase != 'finished'
                 ORDER BY rooms.updated_ms DESC LIMIT 50",
            )
            .await?;
        let mut games: Vec<MyGame> = tx
            .query(&statement, &[&player_id])
            .await?
            .iter()
            .map(|row| MyGame {
                code: row.get(0),
                setup: row.get(1),
                phase: row.get(2),
                to_move: row.get(3),
                seat: index(row.get(4)),
                updated_ms: row.get(5),
                seats: Vec::new(),
            })
            .collect();
        if !games.is_empty() {
            let codes: Vec<String> = games.iter().map(|game| game.code.clone()).collect();
            for (code, seat) in seats_of(&tx, &codes).await? {
                // A player holds at most a few seats: a scan finds the room.
                for game in games.iter_mut().filter(|game| game.code == code) {
                    game.seats.push(seat.clone());
                }
            }
        }
        tx.commit().await?;
        Ok(games)
    }

    /// The last `limit` chat lines of a room, oldest first.
    pub async fn recent_chat(
        &self,
        code: String,
        limit: usize,
    ) -> Result<Vec<ChatRecord>, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT seat, nickname, text, at_ms FROM chat WHERE room_code = $1
                 ORDER BY id DESC LIMIT $2",
            )
            .await?;
        let mut lines: Vec<ChatRecord> = client
            .query(&statement, &[&code, &sql_limit(limit)])
            .await?
            .iter()
            .map(|row| ChatRecord {
                seat: row.get::<_, Option<i64>>(0).map(index),
                nickname: row.get(1),
                text: row.get(2),
                at_ms: row.get(3),
            })
            .collect();
        lines.reverse();
        Ok(lines)
    }

    // ----- leases ------------------------------------------------------------------

    /// Takes the room for `node` (a new token) if it exists and nobody holds
    /// it, its lease has expired or `node` itself held it; one statement, so
    /// two nodes racing for a room cannot both win.
    pub async fn acquire(
        &self,
        code: String,
        node: String,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        let client = self.client().await?;
        // The sequence may advance without the update happening (a live lease
        // of another node): tokens only need to grow, not to be dense.
        let statement = client
            .prepare_cached(
                "INSERT INTO leases (room_code, node, token, expires_at)
                 SELECT $1::text, $2::text, nextval('lease_tokens'),
                        now() + $3::bigint * interval '1 millisecond'
                 WHERE EXISTS (SELECT 1 FROM rooms WHERE code = $1::text)
                 ON CONFLICT (room_code) DO UPDATE
                     SET node = EXCLUDED.node, token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
                     WHERE leases.expires_at <= now() OR leases.node = EXCLUDED.node
                 RETURNING token",
            )
            .await?;
        let row = client
            .query_opt(&statement, &[&code, &node, &millis(ttl)])
            .await?;
        self.committed();
        Ok(row.map(|row| Lease {
            code,
            node,
            token: row.get(0),
        }))
    }

    /// Extends the lease; `false` if another holder has taken the room (even
    /// an expired lease renews while nobody has).
    pub async fn renew(&self, lease: Lease, ttl: Duration) -> Result<bool, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "UPDATE leases SET expires_at = now() + $3::bigint * interval '1 millisecond'
                 WHERE room_code = $1 AND token = $2",
            )
            .await?;
        let updated = client
            .execute(&statement, &[&lease.code, &lease.token, &millis(ttl)])
            .await?;
        self.committed();
        Ok(updated == 1)
    }

    /// Gives the room up: leaves the lease expired (`hand_over`: other nodes'
    /// scans take it at once) or removes it. Nothing happens if the lease is
    /// no longer this holder's.
    pub async fn release(&self, lease: Lease, hand_over: bool) -> Result<(), DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(if hand_over {
                "UPDATE leases SET expires_at = now() - interval '1 second'
                 WHERE room_code = $1 AND token = $2"
            } else {
                "DELETE FROM leases WHERE room_code = $1 AND token = $2"
            })
            .await?;
        client
            .execute(&statement, &[&lease.code, &lease.token])
            .await?;
        self.committed();
        Ok(())
    }

    /// Rooms whose lease has expired: at most `limit`, longest expired first.
    pub async fn expired_leases(&self, limit: usize) -> Result<Vec<String>, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT room_code FROM leases WHERE expires_at <= now() ORDER BY expires_at LIMIT $1",
            )
            .await?;
        let rows = client.query(&statement, &[&sql_limit(limit)]).await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// Who holds the room's lease, if anybody, and whether it is still live.
    pub async fn owner(&self, code: String) -> Result<Option<Owner>, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT node, token, expires_at > now() FROM leases WHERE room_code = $1",
            )
            .await?;
        let row = client.query_opt(&statement, &[&code]).await?;
        Ok(row.map(|row| Owner {
            node: row.get(0),
            token: row.get(1),
            live: row.get(2),
        }))
    }

    // ----- public play -------------------------------------------------------------

    /// Public rooms still in their lobby, newest first: read in one snapshot.
    pub async fn open_rooms(&self, limit: usize) -> Result<Vec<OpenRoom>, DbError> {
        let mut client = self.client().await?;
        let tx = snapshot(&mut client).await?;
        let statement = tx
            .prepare_cached(
                "SELECT code, setup, updated_ms FROM rooms WHERE public AND phase = 'lobby'
                 ORDER BY updated_ms DESC LIMIT $1",
            )
            .await?;
        let mut rooms: Vec<OpenRoom> = tx
            .query(&statement, &[&sql_limit(limit)])
            .await?
            .iter()
            .map(|row| OpenRoom {
                code: row.get(0),
                setup: row.get(1),
                updated_ms: row.get(2),
                seats: Vec::new(),
            })
            .collect();
        if !rooms.is_empty() {
            let codes: Vec<String> = rooms.iter().map(|room| room.code.clone()).collect();
            for (code, seat) in seats_of(&tx, &codes).await? {
                if let Some(room) = rooms.iter_mut().find(|room| room.code == code) {
                    room.seats.push(seat);
                }
            }
        }
        tx.commit().await?;
        Ok(rooms)
    }

    /// The best `limit` ratings of a preset.
    pub async fn leaderboard(&self, preset: String, limit: usize) -> Result<Vec<Ranked>, DbError> {
        self.query(
            "SELECT players.nickname, rating, deviation, volatility, games, wins
             FROM ratings JOIN players ON players.id = ratings.player_id
             WHERE preset = $1 ORDER BY rating DESC, games DESC, players.id LIMIT $2",
            &[&preset, &sql_limit(limit)],
        )
        .await?
        .iter()
        .map(|row| {
            Ok(Ranked {
                nickname: row.get(0),
                rating: rating_at(row, 1)?,
            })
        })
        .collect()
    }

    /// The current ratings of some people in a preset (missing: unrated).
    pub async fn ratings(
        &self,
        players: Vec<i64>,
        preset: String,
    ) -> Result<BTreeMap<i64, Rating>, DbError> {
        self.query(
            "SELECT player_id, rating, deviation, volatility, games, wins FROM ratings
             WHERE player_id = ANY($1) AND preset = $2",
            &[&players, &preset],
        )
        .await?
        .iter()
        .map(|row| Ok((row.get(0), rating_at(row, 1)?)))
        .collect()
    }

    /// The finished games a person played, newest first.
    pub async fn history(&self, player_id: i64, limit: usize) -> Result<Vec<PastGame>, DbError> {
        self.query(
                "SELECT games.id, games.room_code, rooms.setup, games.updated_ms, mine.\"placing\",
                        mine.rating_before, mine.rating_after,
                        (SELECT count(*) FROM game_results AS all_seats WHERE all_seats.game_id = games.id),
                        (SELECT count(*) FROM game_results AS first WHERE first.game_id = games.id AND first.\"placing\" = 1)
                 FROM game_results AS mine
                 JOIN games ON games.id = mine.game_id
                 JOIN rooms ON rooms.code = games.room_code
                 WHERE mine.player_id = $1
                 ORDER BY games.updated_ms DESC, games.id DESC LIMIT $2",
                &[&player_id, &sql_limit(limit)],
            )
            .await?
            .iter()
            .map(|row| {
                Ok(PastGame {
                    game_id: row.get(0),
                    code: row.get(1),
                    setup: row.get(2),
                    finished_ms: row.get(3),
                    placing: small(row.get(4), "placing")?,
                    rating_before: row.get(5),
                    rating_after: row.get(6),
                    seats: small(row.get(7), "seat count")?,
                    firsts: small(row.get(8), "first count")?,
                })
            })
            .collect()
    }

    /// Puts a person in the quick-match queue of a preset (again: the newest
    /// connection and preset win).
    pub async fn enqueue(
        &self,
        waiting: Waiting,
        preset: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.execute(
            "INSERT INTO match_queue (player_id, preset, node, conn, since_ms, nickname)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (player_id) DO UPDATE SET preset = $2, node = $3, conn = $4,
                 since_ms = $5, nickname = $6",
            &[
                &waiting.player_id,
                &preset,
                &waiting.node,
                &(waiting.conn as i64),
                &now_ms,
                &waiting.nickname,
            ],
        )
        .await?;
        Ok(())
    }

    /// Takes a person out of the queue (only from the connection `conn`, so
    /// that an old tab does not cancel a newer one's wait).
    pub async fn dequeue(&self, player_id: i64, conn: u64) -> Result<(), DbError> {
        self.execute(
            "DELETE FROM match_queue WHERE player_id = $1 AND conn = $2",
            &[&player_id, &(conn as i64)],
        )
        .await?;
        Ok(())
    }

    /// If `me` still waits (from `conn`), takes the person who has waited
    /// longest for the same preset out of the queue together with `me`, and
    /// returns the preset and them: one transaction. `me`'s row is locked
    /// (waiting for a node that is pairing `me` right now: then `me` is gone);
    /// the partner is the oldest row nobody else has locked.
    pub async fn take_partner(
        &self,
        me: i64,
        conn: u64,
    ) -> Result<Option<(String, Waiting)>, DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let mine = tx
            .prepare_cached(
                "SELECT preset FROM match_queue WHERE player_id = $1 AND conn = $2 FOR UPDATE",
            )
            .await?;
        let Some(row) = tx.query_opt(&mine, &[&me, &(conn as i64)]).await? else {
            return Ok(None);
        };
        let preset: String = row.get(0);
        let oldest = tx
            .prepare_cached(
                "SELECT player_id, node, conn, nickname FROM match_queue
                 WHERE preset = $1 AND player_id != $2
                 ORDER BY since_ms, player_id LIMIT 1 FOR UPDATE SKIP LOCKED",
            )
            .await?;
        let Some(row) = tx.query_opt(&oldest, &[&preset, &me]).await? else {
            return Ok(None);
        };
        let partner = Waiting {
            player_id: row.get(0),
            node: row.get(1),
            conn: row.get::<_, i64>(2) as u64,
            nickname: row.get(3),
        };
        let delete = tx
            .prepare_cached("DELETE FROM match_queue WHERE player_id IN ($1, $2)")
            .await?;
        tx.execute(&delete, &[&me, &partner.player_id]).await?;
        tx.commit().await?;
        self.committed();
        Ok(Some((preset, partner)))
    }

    /// How many people wait for a preset.
    pub async fn waiting(&self, preset: String) -> Result<u32, DbError> {
        let rows = self
            .query(
                "SELECT count(*) FROM match_queue WHERE preset = $1",
                &[&preset],
            )
            .await?;
        small(rows[0].get(0), "queue length")
    }

    /// Empties the queue of a node's connections (it starts: they are gone).
    pub async fn clear_queue(&self, node: String) -> Result<(), DbError> {
        self.execute("DELETE FROM match_queue WHERE node = $1", &[&node])
            .await?;
        Ok(())
    }

    /// A stored game by its id, with its whole command log, read in one
    /// snapshot; `None` if no game has this id.
    pub async fn load_game(&self, id: i64) -> Result<Option<StoredGame>, DbError> {
        let mut client = self.client().await?;
        let tx = snapshot(&mut client).await?;
        let statement = tx
            .prepare_cached("SELECT room_code, finished, updated_ms FROM games WHERE id = $1")
            .await?;
        let Some(row) = tx.query_opt(&statement, &[&id]).await? else {
            return Ok(None);
        };
        let (room_code, finished, updated_ms): (String, bool, i64) =
            (row.get(0), row.get(1), row.get(2));
        let game = load_game(&tx, id).await?;
        tx.commit().await?;
        Ok(Some(StoredGame {
            id,
            room_code,
            number: game.number,
            setup: game.setup,
            commands: game.commands,
            finished,
            finished_ms: finished.then_some(updated_ms),
        }))
    }
}

/// The fence of a write in an explicit transaction: locks the room's lease row
/// until the transaction ends, and fails unless its token is the lease's.
async fn check_lease(tx: &Transaction<'_>, code: &str, lease: &Lease) -> Result<(), DbError> {
    let statement = tx
        .prepare_cached("SELECT token FROM leases WHERE room_code = $1 FOR SHARE")
        .await?;
    match tx.query_opt(&statement, &[&code]).await? {
        Some(row) if row.get::<_, i64>(0) == lease.token => Ok(()),
        _ => Err(DbError::Fenced(code.to_string())),
    }
}

/// The answer of a [`fenced!`] statement: fenced unless the lease row was found.
fn passed_fence(row: &Row, code: &str) -> Result<(), DbError> {
    if row.get::<_, i64>(0) == 1 {
        Ok(())
    } else {
        Err(DbError::Fenced(code.to_string()))
    }
}

/// A finished game's placings and, when it is rated, its people's new
/// ratings (in the transaction of its last command, after the fence).
async fn write_results(
    tx: &Transaction<'_>,
    game_id: i64,
    at_ms: i64,
    results: &GameResults,
) -> Result<(), DbError> {
    let placings = results.placings();
    let mut before = BTreeMap::new();
    let mut after = BTreeMap::new();
    // Alone, a person has nobody to be rated against.
    if results.rated && placings.len() >= 2 {
        let players: Vec<i64> = placings.keys().copied().collect();
        before = lock_ratings(tx, &players, &results.preset, at_ms).await?;
        after = ratings::rate(&placings, &before);
        let update = tx
            .prepare_cached(
                "UPDATE ratings SET rating = r.rating, deviation = r.deviation,
                     volatility = r.volatility, games = r.games, wins = r.wins, updated_ms = $2
                 FROM unnest($3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::bigint[],
                             $8::bigint[]) AS r(player_id, rating, deviation, volatility, games, wins)
                 WHERE ratings.preset = $1 AND ratings.player_id = r.player_id",
            )
            .await?;
        let players: Vec<i64> = after.keys().copied().collect();
        let column = |f: fn(&Rating) -> f64| after.values().map(f).collect::<Vec<f64>>();
        let count = |f: fn(&Rating) -> u32| {
            after
                .values()
                .map(|r| i64::from(f(r)))
                .collect::<Vec<i64>>()
        };
        tx.execute(
            &update,
            &[
                &results.preset,
                &at_ms,
                &players,
                &column(|r| r.rating),
                &column(|r| r.deviation),
                &column(|r| r.volatility),
                &count(|r| r.games),
                &count(|r| r.wins),
            ],
        )
        .await?;
    }
    let insert = tx
        .prepare_cached(
            "INSERT INTO game_results (game_id, seat, player_id, \"placing\", rating_before, rating_after)
             SELECT $1, r.seat, r.player_id, r.\"placing\", r.rating_before, r.rating_after
             FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::float8[], $6::float8[])
                 AS r(seat, player_id, \"placing\", rating_before, rating_after)",
        )
        .await?;
    let changes: Vec<Option<(f64, f64)>> = results
        .seats
        .iter()
        .map(|seat| seat.rating_change(&before, &after))
        .collect();
    let seats: Vec<i64> = results.seats.iter().map(|s| s.seat as i64).collect();
    let players: Vec<Option<i64>> = results.seats.iter().map(|s| s.player_id).collect();
    let placings: Vec<i64> = results.seats.iter().map(|s| i64::from(s.placing)).collect();
    let befores: Vec<Option<f64>> = changes.iter().map(|c| c.map(|c| c.0)).collect();
    let afters: Vec<Option<f64>> = changes.iter().map(|c| c.map(|c| c.1)).collect();
    tx.execute(
        &insert,
        &[&game_id, &seats, &players, &placings, &befores, &afters],
    )
    .await?;
    Ok(())
}

/// The ratings of some people (ids in ascending order) in a preset, locked
/// until the transaction ends; those missing are first stored at the starting
/// rating (no games), so that a first rated game is locked like any other. A
/// concurrent transaction locking the same ratings waits for this one and
/// then reads what it wrote. Rows are created and locked in the order of the
/// ids, so two transactions cannot wait for each other.
async fn lock_ratings(
    tx: &Transaction<'_>,
    players: &[i64],
    preset: &str,
    at_ms: i64,
) -> Result<BTreeMap<i64, Rating>, DbError> {
    let start = Rating::default();
    let create = tx
        .prepare_cached(
            "INSERT INTO ratings (player_id, preset, rating, deviation, volatility, games, wins, updated_ms)
             SELECT p, $2, $3, $4, $5, 0, 0, $6 FROM unnest($1::bigint[]) AS p ORDER BY p
             ON CONFLICT (player_id, preset) DO NOTHING",
        )
        .await?;
    tx.execute(
        &create,
        &[
            &players,
            &preset,
            &start.rating,
            &start.deviation,
            &start.volatility,
            &at_ms,
        ],
    )
    .await?;
    let lock = tx
        .prepare_cached(
            "SELECT player_id, rating, deviation, volatility, games, wins FROM ratings
             WHERE player_id = ANY($1) AND preset = $2 ORDER BY player_id FOR UPDATE",
        )
        .await?;
    tx.query(&lock, &[&players, &preset])
        .await?
        .iter()
        .map(|row| Ok((row.get(0), rating_at(row, 1)?)))
        .collect()
}

/// Replaces a room's seats (the room's row exists).
async fn write_seats(tx: &Transaction<'_>, room: &RoomRecord) -> Result<(), DbError> {
    let delete = tx
        .prepare_cached("DELETE FROM seats WHERE room_code = $1")
        .await?;
    tx.execute(&delete, &[&room.code]).await?;
    if room.seats.is_empty() {
        return Ok(());
    }
    // All seats in one statement: the arrays are zipped, a seat's number is
    // its position.
    let insert = tx
        .prepare_cached(
            "INSERT INTO seats (room_code, seat, kind, player_id, level)
             SELECT $1, s.number - 1, s.kind, s.player_id, s.level
             FROM unnest($2::text[], $3::bigint[], $4::text[])
                 WITH ORDINALITY AS s(kind, player_id, level, number)",
        )
        .await?;
    let kinds: Vec<&str> = room.seats.iter().map(|s| s.kind.as_str()).collect();
    let players: Vec<Option<i64>> = room.seats.iter().map(|s| s.player_id).collect();
    let levels: Vec<Option<&str>> = room.seats.iter().map(|s| s.level.as_deref()).collect();
    tx.execute(&insert, &[&room.code, &kinds, &players, &levels])
        .await?;
    Ok(())
}

/// The seats of some rooms with their players' nicknames, as (room, seat) in
/// each room's seat order.
async fn seats_of(
    tx: &Transaction<'_>,
    codes: &[String],
) -> Result<Vec<(String, SeatRecord)>, DbError> {
    let statement = tx
        .prepare_cached(
            "SELECT seats.room_code, seats.kind, seats.player_id, players.nickname, seats.level
             FROM seats LEFT JOIN players ON players.id = seats.player_id
             WHERE seats.room_code = ANY($1) ORDER BY seats.room_code, seats.seat",
        )
        .await?;
    let rows = tx.query(&statement, &[&codes]).await?;
    Ok(rows
        .iter()
        .map(|row| {
            (
                row.get(0),
                SeatRecord {
                    kind: row.get(1),
                    player_id: row.get(2),
                    nickname: row.get(3),
                    level: row.get(4),
                },
            )
        })
        .collect())
}

/// A game and its command log, which must be gapless.
async fn load_game(tx: &Transaction<'_>, id: i64) -> Result<GameRecord, DbError> {
    let statement = tx
        .prepare_cached("SELECT number, setup, deadline_ms FROM games WHERE id = $1")
        .await?;
    let row = tx
        .query_opt(&statement, &[&id])
        .await?
        .ok_or_else(|| DbError::Corrupt(format!("game {id} is missing")))?;
    let number = game_number(row.get(0))?;
    let setup: String = row.get(1);
    let game_deadline: Option<i64> = row.get(2);
    let statement = tx
        .prepare_cached(
            "SELECT seq, command, deadline_ms FROM commands WHERE game_id = $1 ORDER BY seq",
        )
        .await?;
    let rows = tx.query(&statement, &[&id]).await?;
    // The deadline of the last command (the game's own until the first).
    let deadline_ms = match rows.last() {
        Some(row) => row.get(2),
        None => game_deadline,
    };
    let mut commands = Vec::with_capacity(rows.len());
    for (expected, row) in (1i64..).zip(&rows) {
        // The log must be gapless: a missing command would replay into another
        // game.
        if row.get::<_, i64>(0) != expected {
            return Err(DbError::Corrupt(format!(
                "game {id}: command {expected} is missing"
            )));
        }
        commands.push(row.get(1));
    }
    Ok(GameRecord {
        id,
        number,
        setup,
        deadline_ms,
        commands,
    })
}

/// These tests need a PostgreSQL server: they run when `BROADSIDE_TEST_POSTGRES`
/// holds an administrator's URL (e.g. `postgres://root@127.0.0.1:5432/postgres`)
/// and otherwise say so and pass. The project's test command starts
/// PostgreSQL and always sets it, so there they always run. Each test works in
/// a fresh database of its own (`bs_test_<random hex>`), dropped at its end.
#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A scratch database, dropped (with its connections) when this goes.
    struct Scratch {
        admin: String,
        name: String,
        url: String,
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let (admin, name) = (self.admin.clone(), self.name.clone());
            // Drop may run inside a runtime: the drop runs on its own thread.
            let dropped = std::thread::spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime")
                    .block_on(async {
                        let admin = admin_client(&admin).await;
                        admin
                            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                            .await
                    })
            })
            .join();
            if !matches!(dropped, Ok(Ok(()))) {
                eprintln!("could not drop the test database {}", self.name);
            }
        }
    }

    async fn admin_client(admin: &str) -> tokio_postgres::Client {
        let (client, connection) = tokio_postgres::connect(admin, NoTls)
            .await
            .expect("BROADSIDE_TEST_POSTGRES names a reachable server");
        tokio::spawn(connection);
        client
    }

    /// `admin` with its database replaced by `name`.
    fn database_url(admin: &str, name: &str) -> String {
        let (base, query) = match admin.split_once('?') {
            Some((base, query)) => (base, format!("?{query}")),
            None => (admin, String::new()),
        };
        let host_start = base.find("://").map_or(0, |at| at + 3);
        let base = match base[host_start..].find('/') {
            Some(slash) => &base[..host_start + slash],
            None => base,
        };
        format!("{base}/{name}{query}")
    }

    /// A fresh empty database, or `None` (after saying so) without a server.
    async fn scratch() -> Option<Scratch> {
        let Some(admin) = std::env::var("BROADSIDE_TEST_POSTGRES")
            .ok()
            .filter(|url| !url.is_empty())
        else {
            eprintln!("BROADSIDE_TEST_POSTGRES is not set: this PostgreSQL test does nothing");
            return None;
        };
        let name = format!("bs_test_{:016x}", rand::random::<u64>());
        admin_client(&admin)
            .await
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .expect("the test database can be created");
        Some(Scratch {
            url: database_url(&admin, &name),
            admin,
            name,
        })
    }

    /// A fresh database and the backend connected to it.
    async fn fresh() -> Option<(Scratch, Postgres)> {
        let scratch = scratch().await?;
        let db = Postgres::connect(&scratch.url)
            .await
            .expect("the backend connects and migrates");
        Some((scratch, db))
    }

    const TTL: Duration = Duration::from_secs(60);

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

    fn command(code: &str, game_id: i64, seq: u64) -> CommandRecord {
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

    fn chat(text: &str) -> ChatRecord {
        ChatRecord {
            seat: Some(0),
            nickname: "Ana".into(),
            text: text.into(),
            at_ms: 5,
        }
    }

    /// A player, a room in its lobby (owned by node `a`) and a started game.
    async fn game_room(db: &Postgres, code: &str, ttl: Duration) -> (i64, Lease, i64) {
        let player = db
            .create_player(code.as_bytes().to_vec(), "Ana".into(), 1)
            .await
            .unwrap();
        let (lease, game_id) = start(db, lobby(code, player), ttl).await;
        (player, lease, game_id)
    }

    /// Stores a room in its lobby (owned by node `a`) and starts its game.
    async fn start(db: &Postgres, mut room: RoomRecord, ttl: Duration) -> (Lease, i64) {
        let lease = db
            .create_room(room.clone(), 1, "a", ttl)
            .await
            .unwrap()
            .expect("a free code");
        room.game_number = 1;
        room.phase = "placement".into();
        let game_id = db
            .start_game(room, "{\"seed\":1}".into(), Some(99), 2, lease.clone())
            .await
            .unwrap();
        (lease, game_id)
    }

    #[tokio::test]
    async fn migrations_run_once_even_when_nodes_start_together() {
        let Some(scratch) = scratch().await else {
            return;
        };
        let (a, b, c) = tokio::join!(
            Postgres::connect(&scratch.url),
            Postgres::connect(&scratch.url),
            Postgres::connect(&scratch.url)
        );
        let a = a.expect("migrates");
        b.expect("waits for the first, then finds nothing to do");
        c.expect("likewise");
        let player = a
            .create_player(b"h".to_vec(), "Ana".into(), 1)
            .await
            .unwrap();
        drop(a);
        let again = Postgres::connect(&scratch.url).await.expect("reconnects");
        assert_eq!(
            again.player_by_token_hash(b"h".to_vec()).await.unwrap(),
            Some((player, "Ana".to_string()))
        );
        let client = again.pool.get().await.unwrap();
        let versions: Vec<i32> = client
            .query(
                "SELECT version FROM schema_migrations ORDER BY version",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        assert_eq!(versions, (1..=MIGRATIONS.len() as i32).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn the_command_log_replays_in_order_and_my_games_follows_the_phase() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        let player = db
            .create_player(b"h".to_vec(), "Ana".into(), 1)
            .await
            .unwrap();
        db.set_nickname(player, "Ana B".into()).await.unwrap();
        let mut room = lobby("QWERTY", player);
        let lease = db
            .create_room(room.clone(), 1, "a", TTL)
            .await
            .unwrap()
            .expect("a free code");
        assert_eq!((lease.code.as_str(), lease.node.as_str()), ("QWERTY", "a"));
        assert!(
            db.create_room(room.clone(), 1, "b", TTL)
                .await
                .unwrap()
                .is_none(),
            "a taken code is refused"
        );
        assert_eq!(db.owner("QWERTY".into()).await.unwrap().unwrap().node, "a");
        let games = db.my_games(player).await.unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].phase, "lobby");
        assert_eq!(games[0].seats.len(), 2);
        assert_eq!(games[0].seats[0].nickname.as_deref(), Some("Ana B"));
        assert_eq!(games[0].seats[1].level.as_deref(), Some("easy"));

        room.game_number = 1;
        room.phase = "placement".into();
        let game_id = db
            .start_game(room, "{\"seed\":1}".into(), Some(99), 2, lease.clone())
            .await
            .unwrap();
        let (_, game) = db.load_room("QWERTY".into()).await.unwrap().unwrap();
        let game = game.expect("a game runs");
        assert_eq!((game.id, game.number), (game_id, 1));
        assert_eq!(game.deadline_ms, Some(99), "the game's own deadline");
        assert!(game.commands.is_empty());
        assert_eq!(db.running_rooms().await.unwrap(), vec!["QWERTY"]);

        for seq in 1..=2 {
            db.record_command(command("QWERTY", game_id, seq), lease.clone())
                .await
                .unwrap();
        }
        assert_eq!(db.my_games(player).await.unwrap()[0].phase, "battle");
        db.record_command(command("QWERTY", game_id, 3), lease.clone())
            .await
            .unwrap();
        let (room, game) = db.load_room("QWERTY".into()).await.unwrap().unwrap();
        let game = game.unwrap();
        assert_eq!(game.commands, vec!["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]);
        assert_eq!(game.deadline_ms, Some(1003), "the last command's deadline");
        assert_eq!(room.phase, "finished");
        assert_eq!(room.seats.len(), 2);
        assert!(db.my_games(player).await.unwrap().is_empty());
        assert!(db.running_rooms().await.unwrap().is_empty());

        // A command lost from the middle of the log makes the game unreadable.
        db.record_command(command("QWERTY", game_id, 5), lease.clone())
            .await
            .unwrap();
        assert!(matches!(
            db.load_room("QWERTY".into()).await,
            Err(DbError::Corrupt(_))
        ));
        assert!(db.load_room("NOSUCH".into()).await.unwrap().is_none());

        for n in 0..5 {
            db.add_chat("QWERTY".into(), chat(&format!("line {n}")), lease.clone())
                .await
                .unwrap();
        }
        let lines = db.recent_chat("QWERTY".into(), 3).await.unwrap();
        let texts: Vec<&str> = lines.iter().map(|line| line.text.as_str()).collect();
        assert_eq!(
            texts,
            ["line 2", "line 3", "line 4"],
            "the last lines, oldest first"
        );
        assert_eq!(lines[0].seat, Some(0));
    }

    #[tokio::test]
    async fn a_room_taken_over_fences_its_old_owner() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        // Node a's lease lasts a millisecond, so it has expired when b looks.
        let (player, a, game_id) = game_room(&db, "FENCED", Duration::from_millis(1)).await;
        db.record_command(command("FENCED", game_id, 1), a.clone())
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(db.expired_leases(10).await.unwrap(), vec!["FENCED"]);
        assert!(!db.owner("FENCED".into()).await.unwrap().unwrap().live);
        let b = db
            .acquire("FENCED".into(), "b".into(), TTL)
            .await
            .unwrap()
            .expect("an expired lease is taken");
        assert!(b.token > a.token, "{} after {}", b.token, a.token);
        assert_eq!(
            db.owner("FENCED".into()).await.unwrap(),
            Some(Owner {
                node: "b".into(),
                token: b.token,
                live: true
            })
        );
        assert!(db.expired_leases(10).await.unwrap().is_empty());

        // Every write of the old owner is refused, and writes nothing.
        let fenced = |result: Result<(), DbError>| matches!(result, Err(DbError::Fenced(code)) if code == "FENCED");
        assert!(fenced(
            db.record_command(command("FENCED", game_id, 2), a.clone())
                .await
        ));
        assert!(fenced(
            db.add_chat("FENCED".into(), chat("late"), a.clone()).await
        ));
        let mut room = lobby("FENCED", player);
        room.phase = "battle".into();
        room.game_number = 1;
        assert!(fenced(db.save_room(room.clone(), 9, a.clone()).await));
        assert!(matches!(
            db.start_game(room.clone(), "{}".into(), None, 9, a.clone())
                .await,
            Err(DbError::Fenced(_))
        ));
        assert!(
            !db.renew(a.clone(), TTL).await.unwrap(),
            "a's lease is gone"
        );
        let (_, game) = db.load_room("FENCED".into()).await.unwrap().unwrap();
        assert_eq!(
            game.unwrap().commands.len(),
            1,
            "a's late command is not stored"
        );
        assert!(db
            .recent_chat("FENCED".into(), 10)
            .await
            .unwrap()
            .is_empty());
        // Releasing a lost lease leaves the new owner's alone.
        db.release(a.clone(), true).await.unwrap();
        db.release(a.clone(), false).await.unwrap();
        assert!(db.owner("FENCED".into()).await.unwrap().unwrap().live);

        // The new owner's writes go through.
        db.record_command(command("FENCED", game_id, 2), b.clone())
            .await
            .unwrap();
        db.add_chat("FENCED".into(), chat("hello"), b.clone())
            .await
            .unwrap();
        db.save_room(room.clone(), 10, b.clone()).await.unwrap();
        assert!(db.renew(b.clone(), TTL).await.unwrap());
        let (_, game) = db.load_room("FENCED".into()).await.unwrap().unwrap();
        assert_eq!(game.unwrap().commands.len(), 2);
        assert_eq!(db.recent_chat("FENCED".into(), 10).await.unwrap().len(), 1);
        // A write under a token the room never had is fenced too.
        let forged = Lease {
            token: b.token + 1000,
            ..b.clone()
        };
        assert!(fenced(
            db.add_chat("FENCED".into(), chat("forged"), forged).await
        ));
    }

    #[tokio::test]
    async fn leases_are_refused_while_live_and_handed_over_at_once() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        let (_, a, game_id) = game_room(&db, "LEASED", TTL).await;
        assert!(db
            .acquire("LEASED".into(), "b".into(), TTL)
            .await
            .unwrap()
            .is_none());
        assert!(db
            .acquire("NOROOM".into(), "b".into(), TTL)
            .await
            .unwrap()
            .is_none());
        assert!(db.owner("NOROOM".into()).await.unwrap().is_none());
        assert!(db.renew(a.clone(), TTL).await.unwrap());

        // A restarted node takes its own room back at once, with a new token
        // that fences its earlier self.
        let a2 = db
            .acquire("LEASED".into(), "a".into(), TTL)
            .await
            .unwrap()
            .expect("the same node re-acquires");
        assert!(a2.token > a.token);
        assert!(matches!(
            db.record_command(command("LEASED", game_id, 1), a.clone())
                .await,
            Err(DbError::Fenced(_))
        ));
        db.record_command(command("LEASED", game_id, 1), a2.clone())
            .await
            .unwrap();

        // Handed over: listed as expired at once and taken by another node.
        assert!(db.expired_leases(10).await.unwrap().is_empty());
        db.release(a2.clone(), true).await.unwrap();
        assert_eq!(db.expired_leases(10).await.unwrap(), vec!["LEASED"]);
        assert!(db.expired_leases(0).await.unwrap().is_empty());
        let b = db
            .acquire("LEASED".into(), "b".into(), TTL)
            .await
            .unwrap()
            .expect("a handed-over room is free");
        assert!(b.token > a2.token);
        assert!(!db.renew(a2.clone(), TTL).await.unwrap(), "taken over");

        // Released for good: nobody owns it until it is joined again.
        db.release(b.clone(), false).await.unwrap();
        assert!(db.owner("LEASED".into()).await.unwrap().is_none());
        assert!(db.expired_leases(10).await.unwrap().is_empty());
        let c = db
            .acquire("LEASED".into(), "c".into(), TTL)
            .await
            .unwrap()
            .expect("a released room is free");
        assert!(c.token > b.token);
    }

    /// A node taking a room over waits for the old owner's write that passed
    /// the fence, so that the log it then reads holds that write.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_takeover_waits_for_a_write_in_flight() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        let db = Arc::new(db);
        let (_, a, _) = game_room(&db, "INFLIGHT", Duration::from_millis(1)).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        // The old owner's chat line, passed the fence but not yet committed.
        let mut client = db.pool.get().await.unwrap();
        let tx = client.transaction().await.unwrap();
        let passed: i64 = tx
            .query_one(
                ADD_CHAT,
                &[
                    &"INFLIGHT",
                    &a.token,
                    &Some(0i64),
                    &"Ana",
                    &"in flight",
                    &5i64,
                ],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(passed, 1);
        let taker = {
            let db = db.clone();
            tokio::spawn(async move { db.acquire("INFLIGHT".into(), "b".into(), TTL).await })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!taker.is_finished(), "the takeover waits for the write");
        tx.commit().await.unwrap();
        let b = taker.await.unwrap().unwrap().expect("then takes the room");
        assert!(b.token > a.token);
        let lines = db.recent_chat("INFLIGHT".into(), 10).await.unwrap();
        assert_eq!(lines.len(), 1, "and finds the line stored");
        assert!(matches!(
            db.add_chat("INFLIGHT".into(), chat("late"), a.clone())
                .await,
            Err(DbError::Fenced(_))
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_appends_all_succeed_and_replay_in_order() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        let db = Arc::new(db);
        let (_, lease, game_id) = game_room(&db, "MANYCO", TTL).await;
        let mut writes = Vec::new();
        for seq in 1..=200u64 {
            let (db, lease) = (db.clone(), lease.clone());
            writes.push(tokio::spawn(async move {
                let mut record = command("MANYCO", game_id, seq);
                (record.finished, record.summary_changed) = (false, seq % 10 == 0);
                db.record_command(record, lease).await
            }));
        }
        for seq in 0..20 {
            let (db, lease) = (db.clone(), lease.clone());
            writes.push(tokio::spawn(async move {
                db.add_chat("MANYCO".into(), chat(&format!("{seq}")), lease)
                    .await
            }));
        }
        for write in writes {
            write.await.unwrap().expect("every append is stored");
        }
        let duplicate = db
            .record_command(command("MANYCO", game_id, 7), lease.clone())
            .await;
        assert!(
            matches!(duplicate, Err(DbError::Postgres(_))),
            "seq 7 is stored once"
        );
        let (_, game) = db.load_room("MANYCO".into()).await.unwrap().unwrap();
        let commands = game.unwrap().commands;
        assert_eq!(commands.len(), 200);
        assert_eq!(commands[199], "{\"n\":200}");
        assert_eq!(db.recent_chat("MANYCO".into(), 50).await.unwrap().len(), 20);
        let (commits, jobs) = db.stats();
        assert!(
            commits >= 220 && jobs > commits,
            "{commits} commits, {jobs} jobs"
        );
    }

    // ----- public play -------------------------------------------------------------

    async fn people(db: &Postgres, names: &[&str]) -> Vec<i64> {
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

    /// A room of two people owned by node `a`, whose game has run two
    /// commands.
    async fn duel(db: &Postgres, code: &str, two: [i64; 2], ttl: Duration) -> (Lease, i64) {
        let mut room = lobby(code, two[0]);
        room.seats[1] = SeatRecord {
            kind: "person".into(),
            player_id: Some(two[1]),
            nickname: None,
            level: None,
        };
        let (lease, game_id) = start(db, room, ttl).await;
        for seq in 1..=2 {
            db.record_command(command(code, game_id, seq), lease.clone())
                .await
                .unwrap();
        }
        (lease, game_id)
    }

    /// The command that ends a duel, `winner` placed first.
    fn last_command(
        code: &str,
        game_id: i64,
        two: [i64; 2],
        winner: i64,
        rated: bool,
    ) -> CommandRecord {
        let seats = two
            .iter()
            .enumerate()
            .map(|(seat, &player)| super::super::SeatResult {
                seat,
                player_id: Some(player),
                placing: if player == winner { 1 } else { 2 },
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

    /// Each rated game's rating change of `player` must start where another
    /// ended (from 1500 on), and the last end at the stored rating: no update
    /// was lost.
    async fn assert_ratings_chain(db: &Postgres, player: i64, games: usize) {
        let mut changes: Vec<(f64, f64)> = db
            .history(player, 100)
            .await
            .unwrap()
            .iter()
            .filter_map(|game| Some((game.rating_before?, game.rating_after?)))
            .collect();
        assert_eq!(changes.len(), games);
        let mut rating = Rating::default().rating;
        while let Some(next) = changes.iter().position(|c| c.0 == rating) {
            rating = changes.swap_remove(next).1;
        }
        assert!(changes.is_empty(), "changes not chained: {changes:?}");
        let stored = db.ratings(vec![player], "classic".into()).await.unwrap()[&player];
        assert_eq!(stored.rating, rating);
        assert_eq!(stored.games as usize, games);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_finishing_command_writes_the_results_and_ratings_with_it() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        let db = Arc::new(db);
        let ids = people(&db, &["Ana", "Bea", "Cy", "Dee"]).await;
        let [ana, bea, cy, dee] = ids[..] else {
            unreachable!()
        };
        let (lease, game_id) = duel(&db, "RATED1", [ana, bea], TTL).await;
        db.record_command(
            last_command("RATED1", game_id, [ana, bea], ana, true),
            lease,
        )
        .await
        .unwrap();
        let (room, _) = db.load_room("RATED1".into()).await.unwrap().unwrap();
        assert_eq!(room.phase, "finished");

        let board = db.leaderboard("classic".into(), 10).await.unwrap();
        let names: Vec<&str> = board.iter().map(|r| r.nickname.as_str()).collect();
        assert_eq!(names, ["Ana", "Bea"]);
        assert!(board[0].rating.rating > board[1].rating.rating);
        assert_eq!((board[0].rating.games, board[0].rating.wins), (1, 1));
        assert_eq!((board[1].rating.games, board[1].rating.wins), (1, 0));
        assert!(db.leaderboard("other".into(), 10).await.unwrap().is_empty());
        let ratings = db
            .ratings(vec![ana, bea, cy], "classic".into())
            .await
            .unwrap();
        assert_eq!(ratings.keys().copied().collect::<Vec<_>>(), [ana, bea]);
        assert_eq!(ratings[&ana], board[0].rating);

        let won = &db.history(ana, 10).await.unwrap()[0];
        assert_eq!((won.game_id, won.code.as_str()), (game_id, "RATED1"));
        assert_eq!((won.placing, won.seats, won.firsts), (1, 2, 1));
        assert_eq!(won.rating_before, Some(1500.0));
        assert_eq!(won.rating_after, Some(ratings[&ana].rating));
        let lost = &db.history(bea, 10).await.unwrap()[0];
        assert_eq!(lost.placing, 2);
        assert_eq!(lost.rating_before, Some(1500.0));
        assert!(lost.rating_after < lost.rating_before);

        // An unrated game: results without ratings.
        let (lease, friendly) = duel(&db, "FRIEND", [ana, bea], TTL).await;
        db.record_command(
            last_command("FRIEND", friendly, [ana, bea], bea, false),
            lease,
        )
        .await
        .unwrap();
        let history = db.history(bea, 10).await.unwrap();
        assert_eq!(history.len(), 2);
        assert_eq!(
            (history[0].game_id, history[0].placing),
            (friendly, 1),
            "newest first"
        );
        assert_eq!(
            (history[0].rating_before, history[0].rating_after),
            (None, None)
        );
        assert_eq!(
            db.ratings(vec![ana, bea], "classic".into()).await.unwrap(),
            ratings,
            "unchanged"
        );

        // Games that end at once for the same people lose no update: neither
        // for rated people (Ana, Bea) nor for their first rated games (Cy, Dee).
        let mut lasts = Vec::new();
        for (n, two) in [[ana, bea], [cy, dee]]
            .into_iter()
            .cycle()
            .take(8)
            .enumerate()
        {
            let code = format!("RACE{n:02}");
            let (lease, game_id) = duel(&db, &code, two, TTL).await;
            lasts.push((
                last_command(&code, game_id, two, two[n / 2 % 2], true),
                lease,
            ));
        }
        let start = Arc::new(tokio::sync::Barrier::new(lasts.len()));
        let mut ends = Vec::new();
        for (record, lease) in lasts {
            let (db, start) = (db.clone(), start.clone());
            ends.push(tokio::spawn(async move {
                start.wait().await;
                db.record_command(record, lease).await
            }));
        }
        for end in ends {
            end.await
                .unwrap()
                .expect("every finishing command is stored");
        }
        assert_ratings_chain(&db, ana, 5).await;
        assert_ratings_chain(&db, bea, 5).await;
        assert_ratings_chain(&db, cy, 4).await;
        assert_ratings_chain(&db, dee, 4).await;
        let ratings = db.ratings(ids, "classic".into()).await.unwrap();
        let wins: Vec<u32> = ratings.values().map(|r| r.wins).collect();
        assert_eq!(wins, [3, 2, 2, 2], "Ana, Bea, Cy, Dee");
    }

    #[tokio::test]
    async fn a_fenced_finishing_command_writes_nothing() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        let ids = people(&db, &["Ana", "Bea"]).await;
        let two = [ids[0], ids[1]];
        let (a, game_id) = duel(&db, "FENCEF", two, Duration::from_millis(1)).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        let b = db
            .acquire("FENCEF".into(), "b".into(), TTL)
            .await
            .unwrap()
            .expect("an expired lease is taken");
        let last = last_command("FENCEF", game_id, two, two[0], true);
        assert!(matches!(
            db.record_command(last.clone(), a).await,
            Err(DbError::Fenced(code)) if code == "FENCEF"
        ));
        let (room, game) = db.load_room("FENCEF".into()).await.unwrap().unwrap();
        assert_eq!(game.unwrap().commands.len(), 2, "no command");
        assert_eq!(room.phase, "battle", "no room update");
        for player in two {
            assert!(
                db.history(player, 10).await.unwrap().is_empty(),
                "no results"
            );
        }
        assert!(db
            .ratings(two.to_vec(), "classic".into())
            .await
            .unwrap()
            .is_empty());
        assert!(db
            .leaderboard("classic".into(), 10)
            .await
            .unwrap()
            .is_empty());

        // The new owner's goes through.
        db.record_command(last, b).await.unwrap();
        assert_eq!(db.history(two[0], 10).await.unwrap().len(), 1);
        assert_eq!(db.leaderboard("classic".into(), 10).await.unwrap().len(), 2);
    }

    fn waiting(player_id: i64, node: &str, conn: u64) -> Waiting {
        Waiting {
            player_id,
            nickname: format!("P{player_id}"),
            node: node.into(),
            conn,
        }
    }

    #[tokio::test]
    async fn take_partner_pairs_two_and_never_three() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        let ids = people(&db, &["Ana", "Bea", "Cy", "Dee"]).await;
        let [ana, bea, cy, dee] = ids[..] else {
            unreachable!()
        };
        db.enqueue(waiting(dee, "n2", 40), "other".into(), 0)
            .await
            .unwrap();
        for (since, (id, conn)) in [(ana, 10), (bea, 20), (cy, 30)].into_iter().enumerate() {
            db.enqueue(waiting(id, "n1", conn), "classic".into(), since as i64)
                .await
                .unwrap();
        }
        assert_eq!(db.waiting("classic".into()).await.unwrap(), 3);
        assert_eq!(
            db.take_partner(cy, 99).await.unwrap(),
            None,
            "another tab's"
        );
        assert_eq!(
            db.take_partner(cy, 30).await.unwrap(),
            Some(("classic".into(), waiting(ana, "n1", 10))),
            "the longest waiting"
        );
        assert_eq!(db.waiting("classic".into()).await.unwrap(), 1);
        assert_eq!(
            db.take_partner(ana, 10).await.unwrap(),
            None,
            "Ana is taken"
        );
        assert_eq!(
            db.take_partner(bea, 20).await.unwrap(),
            None,
            "nobody else waits for classic"
        );
        assert_eq!(db.waiting("classic".into()).await.unwrap(), 1);

        // Again from a new tab: the newest connection wins.
        db.enqueue(waiting(bea, "n2", 21), "classic".into(), 5)
            .await
            .unwrap();
        assert_eq!(db.waiting("classic".into()).await.unwrap(), 1);
        db.dequeue(bea, 20).await.unwrap();
        assert_eq!(
            db.waiting("classic".into()).await.unwrap(),
            1,
            "an old tab's"
        );
        db.dequeue(bea, 21).await.unwrap();
        assert_eq!(db.waiting("classic".into()).await.unwrap(), 0);

        db.clear_queue("n1".into()).await.unwrap();
        assert_eq!(db.waiting("other".into()).await.unwrap(), 1, "n2's");
        db.clear_queue("n2".into()).await.unwrap();
        assert_eq!(db.waiting("other".into()).await.unwrap(), 0);
    }

    /// Nodes pairing at once from one queue: each person is paired at most
    /// once, and everybody finds a partner in the end.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_takers_pair_each_person_once() {
        let Some((scratch, db)) = fresh().await else {
            return;
        };
        let mut nodes = vec![Arc::new(db)];
        for _ in 0..2 {
            nodes.push(Arc::new(Postgres::connect(&scratch.url).await.unwrap()));
        }
        let names: Vec<String> = (0..12).map(|n| format!("P{n}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let ids = people(&nodes[0], &names).await;
        for round in 0..3 {
            for (since, &id) in ids.iter().enumerate() {
                let node = format!("n{}", since % nodes.len());
                nodes[since % nodes.len()]
                    .enqueue(
                        waiting(id, &node, id as u64),
                        "classic".into(),
                        since as i64,
                    )
                    .await
                    .unwrap();
            }
            let start = Arc::new(tokio::sync::Barrier::new(ids.len()));
            let mut takers = Vec::new();
            for (n, &id) in ids.iter().enumerate() {
                let (db, start) = (nodes[n % nodes.len()].clone(), start.clone());
                takers.push(tokio::spawn(async move {
                    start.wait().await;
                    let taken = db.take_partner(id, id as u64).await.unwrap();
                    taken.map(|(preset, partner)| {
                        assert_eq!(preset, "classic");
                        (id, partner.player_id)
                    })
                }));
            }
            let mut pairs = Vec::new();
            for taker in takers {
                pairs.extend(taker.await.unwrap());
            }
            let mut paired: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            paired.sort();
            paired.dedup();
            assert_eq!(paired.len(), 2 * pairs.len(), "round {round}: {pairs:?}");
            assert!(!pairs.is_empty(), "round {round}: somebody pairs");
            let queued = nodes[0].waiting("classic".into()).await.unwrap() as usize;
            assert_eq!(queued + paired.len(), ids.len(), "round {round}: {pairs:?}");
            // The rest pair one after the other.
            for &id in &ids {
                if let Some((_, partner)) = nodes[1].take_partner(id, id as u64).await.unwrap() {
                    pairs.push((id, partner.player_id));
                }
            }
            let mut paired: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            paired.sort();
            assert_eq!(paired, ids, "round {round}: each once: {pairs:?}");
            assert_eq!(nodes[2].waiting("classic".into()).await.unwrap(), 0);
        }
    }

    #[tokio::test]
    async fn open_rooms_lists_only_public_lobbies() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        let ana = people(&db, &["Ana"]).await[0];
        let mut leases = BTreeMap::new();
        for (code, public) in [("PUBLOB", true), ("PRILOB", false), ("PUBRUN", true)] {
            let room = RoomRecord {
                public,
                ..lobby(code, ana)
            };
            let lease = db.create_room(room, 1, "a", TTL).await.unwrap().unwrap();
            leases.insert(code, lease);
        }
        let mut running = RoomRecord {
            public: true,
            ..lobby("PUBRUN", ana)
        };
        running.game_number = 1;
        running.phase = "placement".into();
        db.start_game(running, "{}".into(), None, 2, leases["PUBRUN"].clone())
            .await
            .unwrap();
        let (room, _) = db.load_room("PUBLOB".into()).await.unwrap().unwrap();
        assert!(room.public);
        let (room, _) = db.load_room("PRILOB".into()).await.unwrap().unwrap();
        assert!(!room.public);

        let open = db.open_rooms(10).await.unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].code, "PUBLOB");
        assert_eq!(open[0].setup, "{}");
        assert_eq!(open[0].updated_ms, 1);
        assert_eq!(open[0].seats.len(), 2);
        assert_eq!(open[0].seats[0].nickname.as_deref(), Some("Ana"));
        assert_eq!(open[0].seats[1].kind, "bot");

        // Made public later: listed, newest first; made private: gone.
        let opened = RoomRecord {
            public: true,
            ..lobby("PRILOB", ana)
        };
        db.save_room(opened, 5, leases["PRILOB"].clone())
            .await
            .unwrap();
        let codes = |rooms: Vec<OpenRoom>| rooms.into_iter().map(|r| r.code).collect::<Vec<_>>();
        assert_eq!(
            codes(db.open_rooms(10).await.unwrap()),
            ["PRILOB", "PUBLOB"]
        );
        assert_eq!(codes(db.open_rooms(1).await.unwrap()), ["PRILOB"]);
        db.save_room(lobby("PUBLOB", ana), 6, leases["PUBLOB"].clone())
            .await
            .unwrap();
        assert_eq!(codes(db.open_rooms(10).await.unwrap()), ["PRILOB"]);
    }

    #[test]
    fn test_database_urls_keep_the_server_and_options() {
        assert_eq!(
            database_url("postgres://root@127.0.0.1:5432/postgres", "x"),
            "postgres://root@127.0.0.1:5432/x"
        );
        assert_eq!(
            database_url("postgres://root@h", "x"),
            "postgres://root@h/x"
        );
        assert_eq!(
            database_url("postgresql://u@h/db?sslmode=disable", "x"),
            "postgresql://u@h/x?sslmode=disable"
        );
    }

    #[tokio::test]
    async fn a_stored_game_loads_by_id_with_its_log_finished_or_not() {
        let Some((_scratch, db)) = fresh().await else {
            return;
        };
        crate::db::check_load_game(&crate::db::Db(crate::db::Backend::Postgres(db))).await;
    }
}
