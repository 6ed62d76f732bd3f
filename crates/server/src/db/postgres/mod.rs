//! The PostgreSQL backend: one database shared by the nodes of a cluster,
//! reached through a pool of connections (`deadpool-postgres`).
//!
//! The tables and their meaning are SQLite's (db/sqlite), plus `leases`:
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
//! **The quick-match queue.** A claim locks the pairer's own row, then takes
//! the partner's `FOR UPDATE SKIP LOCKED`: nodes pairing at once never take
//! one person twice and cannot deadlock; a partner somebody else is pairing
//! is passed over for the next.
//!
//! The concerns of [`Store`] each have a module: `players.rs`, `rooms.rs`
//! (rooms, seats, games, chat), `log.rs` (commands and results), `public.rs`,
//! `queue.rs`, `leases.rs`; `migrations.rs` holds the schema.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime, Transaction,
};
use tokio_postgres::types::ToSql;
use tokio_postgres::{IsolationLevel, NoTls, Row};

use super::decisions::{stored_rating, stored_seat};
use super::store::Store;
use super::{DbError, Lease, SeatRecord};
use crate::ratings::Rating;

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

mod accounts;
mod leases;
mod log;
mod migrations;
mod moderation;
mod players;
mod public;
mod queue;
mod replays;
mod rooms;

#[cfg(test)]
mod tests;

/// Connections each node keeps at most.
const POOL_SIZE: usize = 16;

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
}

impl Store for Postgres {
    fn is_shared(&self) -> bool {
        true
    }

    /// Transactions committed and jobs done so far.
    fn stats(&self) -> (u64, u64) {
        (
            self.counters.commits.load(Ordering::Relaxed),
            self.counters.jobs.load(Ordering::Relaxed),
        )
    }
}

/// A duration as whole milliseconds for SQL (`$n::bigint * interval '1 millisecond'`).
fn millis(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}

/// The rating in the columns `at..at + 5` of a row: rating, deviation,
/// volatility, games, wins.
fn rating_at(row: &Row, at: usize) -> Result<Rating, DbError> {
    stored_rating(
        row.get(at),
        row.get(at + 1),
        row.get(at + 2),
        row.get(at + 3),
        row.get(at + 4),
    )
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

/// The seats of some rooms with their players' nicknames, as (room, seat) in
/// each room's seat order.
async fn seats_of(
    tx: &Transaction<'_>,
    codes: &[String],
) -> Result<Vec<(String, SeatRecord)>, DbError> {
    let statement = tx
        .prepare_cached(
            "SELECT seats.room_code, seats.kind, seats.player_id, players.nickname, seats.level,
                    accounts.player_id IS NOT NULL
             FROM seats LEFT JOIN players ON players.id = seats.player_id
             LEFT JOIN accounts ON accounts.player_id = seats.player_id
             WHERE seats.room_code = ANY($1) ORDER BY seats.room_code, seats.seat",
        )
        .await?;
    tx.query(&statement, &[&codes])
        .await?
        .iter()
        .map(|row| {
            let seat = stored_seat(row.get(1), row.get(2), row.get(3), row.get(4), row.get(5))?;
            Ok((row.get(0), seat))
        })
        .collect()
}
