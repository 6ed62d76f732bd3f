//! The SQLite backend (the single-node default): one connection on a thread
//! of its own does every read and write (the *writer*, `writer.rs`); async
//! tasks hand it closures and wait for the answer, so no task ever blocks an
//! async worker on SQLite. The writer does **group commit**: it takes every
//! job waiting in its queue, runs each in a savepoint of one transaction (a
//! failing job rolls back alone), commits once, and only then answers each
//! job. A caller therefore hears "stored" only after its write is committed,
//! and under load many rooms' commands share one commit.
//!
//! One process owns the file, so leases are trivial here (`leases.rs`): every
//! room belongs to this process (token 0).
//!
//! The concerns of [`Store`](super::store::Store) each have a module:
//! `players.rs`, `rooms.rs` (rooms, seats, games, chat), `log.rs` (commands
//! and results), `public.rs`, `queue.rs`, `leases.rs`; `migrations.rs` holds
//! the schema.

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
mod writer;

#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

use rusqlite::{Connection, Params, Row, Statement};
use tokio::sync::{mpsc, oneshot};

use super::decisions::{stored_rating, stored_seat};
use super::store::Store;
use super::{DbError, SeatRecord};
use crate::ratings::Rating;
use writer::{Counters, Job};

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
        migrations::migrate(&mut conn)?;
        let (jobs, queue) = mpsc::channel(writer::QUEUE);
        let counters = Arc::new(Counters::default());
        let writer = {
            let counters = counters.clone();
            std::thread::Builder::new()
                .name("broadside-db".into())
                .spawn(move || writer::writer(conn, queue, &counters))?
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
            let result = writer::in_savepoint(conn, job);
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
}

impl Store for Sqlite {
    fn is_shared(&self) -> bool {
        false
    }

    /// Commits made and jobs done so far (jobs per commit shows the grouping).
    fn stats(&self) -> (u64, u64) {
        (
            self.counters.commits.load(Ordering::Relaxed),
            self.counters.jobs.load(Ordering::Relaxed),
        )
    }
}

/// Runs one statement, prepared once per connection and then reused.
fn exec(conn: &Connection, sql: &str, params: impl Params) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// Every row a statement answers, each read by `read` (which may find the
/// stored data corrupt).
fn rows<T>(
    statement: &mut Statement<'_>,
    params: impl Params,
    mut read: impl FnMut(&Row<'_>) -> Result<T, DbError>,
) -> Result<Vec<T>, DbError> {
    let mut rows = statement.query(params)?;
    let mut found = Vec::new();
    while let Some(row) = rows.next()? {
        found.push(read(row)?);
    }
    Ok(found)
}

/// The first row a statement answers, if any, read by `read`.
fn first<T>(
    statement: &mut Statement<'_>,
    params: impl Params,
    read: impl FnOnce(&Row<'_>) -> Result<T, DbError>,
) -> Result<Option<T>, DbError> {
    let mut rows = statement.query(params)?;
    rows.next()?.map(read).transpose()
}

/// A rating stored in five columns from `at` on (rating, deviation,
/// volatility, games, wins).
fn rating_at(row: &Row<'_>, at: usize) -> Result<Rating, DbError> {
    stored_rating(
        row.get(at)?,
        row.get(at + 1)?,
        row.get(at + 2)?,
        row.get(at + 3)?,
        row.get(at + 4)?,
    )
}

/// A room's seats in seat order, with their players' nicknames.
fn seats_of(conn: &Connection, code: &str) -> Result<Vec<SeatRecord>, DbError> {
    let mut statement = conn.prepare_cached(
        "SELECT seats.kind, seats.player_id, players.nickname, seats.level,
                accounts.player_id IS NOT NULL
         FROM seats LEFT JOIN players ON players.id = seats.player_id
         LEFT JOIN accounts ON accounts.player_id = seats.player_id
         WHERE seats.room_code = ?1 ORDER BY seats.seat",
    )?;
    rows(&mut statement, [code], |row| {
        stored_seat(
            &row.get::<_, String>(0)?,
            row.get(1)?,
            row.get(2)?,
            row.get(3)?,
            row.get(4)?,
        )
    })
}
