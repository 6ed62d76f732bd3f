//! What a room needs from the server, and nothing more: the [`RoomContext`].
//!
//! A room stores through the database, thinks on the CPU pool, reads the
//! configuration and the clock, and draws its pool key from the node's ids.
//! It does not see the registry of rooms, the connections, the lobby or the
//! cluster: members reach it through its inbox and it reaches them through
//! their outboxes (a remote member's outbox carries the cluster's sink), so a
//! room can be built and driven in a test on an in-memory database with no
//! socket and no server around it.

use crate::config::{now_ms, Config};
use crate::cpu::CpuPool;
use crate::db::Db;
use crate::outbox::ConnIds;
use crate::replay_cache::ReplayCache;

/// The wall clock rooms read: unix milliseconds, for timestamps and for the
/// timers' deadlines as stored (timers themselves sleep on tokio's clock).
#[derive(Clone, Copy, Debug)]
pub struct Clock(fn() -> i64);

impl Clock {
    /// The system's clock.
    pub fn system() -> Clock {
        Clock(now_ms)
    }

    pub fn now_ms(&self) -> i64 {
        (self.0)()
    }
}

/// The server's parts a room uses; one per node, shared by every room.
pub struct RoomContext {
    /// Where every room's changes are stored (leases and fence included).
    pub db: Db,
    /// The pool for the room's heavy work (bots, fit checks, random layouts).
    pub cpu: CpuPool,
    /// The node's configuration: its name, the lease time, the bots' delay,
    /// how long an idle room stays in memory.
    pub config: Config,
    /// The wall clock for timestamps and stored deadlines.
    pub clock: Clock,
    /// Ids for connections and for rooms' pool keys (one sequence, so that a
    /// room's key never equals another room's).
    pub ids: ConnIds,
    /// Finished games' replays, built once and kept compressed (replay.rs
    /// fills it; rooms have it built when a game ends).
    pub replays: ReplayCache,
}

impl RoomContext {
    /// The context of a node serving `db` with `config`.
    pub fn new(db: Db, config: Config) -> RoomContext {
        RoomContext {
            cpu: CpuPool::new(config.cpu_threads, config.cpu_jobs_per_client),
            db,
            config,
            clock: Clock::system(),
            ids: ConnIds::random(),
            replays: ReplayCache::default(),
        }
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}
