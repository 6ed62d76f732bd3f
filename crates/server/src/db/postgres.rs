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
//! transaction. The rarer ones (rooms, new games) are explicit transactions.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime, Transaction,
};
use tokio_postgres::{IsolationLevel, NoTls, Row};

use super::{
    ChatRecord, CommandRecord, DbError, GameRecord, Lease, MyGame, Owner, RoomRecord, SeatRecord,
    StoredGame,
};

/// Connections each node keeps at most.
const POOL_SIZE: usize = 16;

/// The key of the advisory lock that migrations hold, so that nodes starting
/// together migrate the database once ("Broadside" in ASCII).
const MIGRATION_LOCK: i64 = 0x4272_6f61_6473_6964;

/// The migrations, in order; `schema_migrations` lists the versions applied
/// (the first is version 1).
const MIGRATIONS: &[&str] = &[r#"
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
"#];

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
        DbError::Postgres(error.to_string())
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
    u32::try_from(value).map_err(|_| DbError::Corrupt(format!("game number {value}")))
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
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (code) DO NOTHING",
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
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
                 ON CONFLICT (code) DO UPDATE SET setup = $2, host = $3, game_number = $4, phase = $5,
                     to_move = $6, updated_ms = $7",
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
    /// statement (one round trip, one transaction) behind the fence.
    pub async fn record_command(&self, record: CommandRecord, lease: Lease) -> Result<(), DbError> {
        let client = self.client().await?;
        let statement = client.prepare_cached(RECORD_COMMAND).await?;
        let seq = i64::try_from(record.seq)
            .map_err(|_| DbError::Corrupt(format!("command number {}", record.seq)))?;
        let phase: &str = record.phase;
        let row = client
            .query_one(
                &statement,
                &[
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
                ],
            )
            .await?;
        passed_fence(&row, &record.room_code)?;
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
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await?;
        let statement = tx
            .prepare_cached(
                "SELECT setup, host, game_id, game_number, phase, to_move FROM rooms WHERE code = $1",
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
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await?;
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
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut lines: Vec<ChatRecord> = client
            .query(&statement, &[&code, &limit])
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
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client.query(&statement, &[&limit]).await?;
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

/// A read-only transaction that sees one snapshot of the database.
async fn snapshot(client: &mut Object) -> Result<Transaction<'_>, DbError> {
    Ok(client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?)
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
        let mut room = lobby(code, player);
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
        (player, lease, game_id)
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
