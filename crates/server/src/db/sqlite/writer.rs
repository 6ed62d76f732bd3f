//! SQLite's writer thread: the one connection, its queue of jobs and group
//! commit (each job in a savepoint of one transaction per batch).

use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::Connection;
use tokio::sync::mpsc;

use super::exec;
use crate::db::DbError;

/// Jobs that may wait for the writer before callers wait to hand in more.
pub(super) const QUEUE: usize = 8192;
/// Jobs committed together at most.
const MAX_BATCH: usize = 2048;
/// How long the writer waits for more jobs when it is busy.
const GATHER: std::time::Duration = std::time::Duration::from_millis(2);

/// What the writer answers once the batch's commit is known (`None`: committed).
pub(super) type Finish = Box<dyn FnOnce(Option<&str>) + Send>;
/// One job: runs on the writer's connection inside the batch's transaction.
pub(super) type Job = Box<dyn FnOnce(&Connection) -> Finish + Send>;

/// How much the writer has done (for measurements).
#[derive(Default)]
pub(super) struct Counters {
    pub(super) commits: AtomicU64,
    pub(super) jobs: AtomicU64,
}

/// Runs one job in a savepoint: its writes stay only if it succeeds.
pub(super) fn in_savepoint<T>(
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
pub(super) fn writer(conn: Connection, mut queue: mpsc::Receiver<Job>, counters: &Counters) {
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
            tracing::error!(%error, "database: cannot begin a transaction");
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
                tracing::info!(
                    commits = window_commits,
                    jobs = window_jobs,
                    busy_percent = (work.as_secs_f64() * 100.0 / window.elapsed().as_secs_f64()).round(),
                    longest_batch = ?longest,
                    "database writer"
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
