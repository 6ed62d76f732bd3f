//! What replays keep between requests (replay.rs serves them): each finished
//! game's replay built once, compressed, in a bounded memory cache; one build
//! at a time per game however many ask; the per-address bucket of replay
//! requests; and the thread that builds them at the lowest priority.
//!
//! A leaf: it knows nothing of rooms, the database or HTTP. The room context
//! holds one ([`crate::context::RoomContext::replays`]); replay.rs fills it.
//!
//! **Why a thread of its own.** A long game's replay is thousands of views to
//! rebuild and megabytes of JSON to compress (a fifth of a second of CPU).
//! The CPU pool (cpu.rs) is where bots think: building replays there would
//! make a bystander's bot wait behind every reader. Replays are built on one
//! thread scheduled as *idle* (Linux `SCHED_IDLE`, else the lowest nice
//! value), which runs only when nothing else wants the CPU, and each game is
//! built once: afterwards a request costs a lookup and a copy of the
//! compressed bytes.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::{oneshot, watch};

use crate::limits::Bucket;

/// The memory the cache may use for compressed replays (least recently
/// served first out).
pub const MEMORY_BUDGET: usize = 64 << 20;

/// Replay requests one address may make in a burst, then per minute.
pub const REQUEST_BURST: u32 = 30;
pub const REQUESTS_PER_MINUTE: f64 = 30.0;

/// Jobs (builds, decompressions) waiting for the idle thread at most; more
/// are refused at once (the client is told to come back).
const IDLE_QUEUE: usize = 64;

/// A finished game's replay as served: the JSON compressed with gzip, and
/// the tag that names that JSON (the ETag's core).
#[derive(Debug)]
pub struct Built {
    /// Hex of the first 16 bytes of the SHA-256 of the replay's JSON.
    pub tag: String,
    /// The JSON, gzip-compressed.
    pub gzip: Bytes,
}

/// Why a replay could not be had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No finished game has this id.
    NotFound,
    /// The idle thread has too much waiting; try again later.
    Busy,
    /// The stored game cannot be read or does not replay (logged).
    Internal(String),
}

/// What a flight tells its waiters: nothing yet, then the replay or why not.
type Told = Option<Result<Arc<Built>, Failure>>;

/// Where a flight's answer is heard.
pub type Answer = watch::Receiver<Told>;

/// What [`ReplayCache::begin`] found for a game.
pub enum Flight {
    /// In memory.
    Ready(Arc<Built>),
    /// Somebody is producing it: wait for the answer.
    Wait(Answer),
    /// Nobody is: the caller produces it and hands the answer to
    /// [`ReplayCache::finish`]; the receiver hears it too.
    Lead(Answer),
}

struct Entry {
    built: Arc<Built>,
    /// When it was last served, on the cache's own clock.
    used: u64,
}

#[derive(Default)]
struct Memory {
    entries: HashMap<i64, Entry>,
    /// Compressed bytes held.
    bytes: usize,
    /// Ticks on every use (least recently used goes first).
    clock: u64,
    /// Games being produced, and where their answer will be told.
    flights: HashMap<i64, watch::Sender<Told>>,
}

struct Requests {
    /// Each address's bucket and when it last asked.
    buckets: HashMap<IpAddr, (Bucket, Instant)>,
    swept: Instant,
}

/// The node's replays: memory, flights, buckets and the idle thread.
pub struct ReplayCache {
    memory: Mutex<Memory>,
    budget: usize,
    requests: Mutex<Requests>,
    /// Replays built from a game's log (not read back from the store).
    builds: AtomicU64,
    idle: mpsc::SyncSender<Box<dyn FnOnce() + Send>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is a few map updates that cannot panic
    // half-way; a poisoned lock is still consistent.
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Default for ReplayCache {
    fn default() -> Self {
        ReplayCache::new(MEMORY_BUDGET)
    }
}

impl ReplayCache {
    /// A cache holding at most `budget` compressed bytes in memory, with its
    /// idle thread (which stops when the cache is dropped).
    pub fn new(budget: usize) -> ReplayCache {
        let (idle, jobs) = mpsc::sync_channel::<Box<dyn FnOnce() + Send>>(IDLE_QUEUE);
        // Without this thread replays could not be built at all: failing to
        // start it at start-up is a broken machine.
        std::thread::Builder::new()
            .name("broadside-replays".into())
            .spawn(move || {
                lowest_priority();
                while let Ok(job) = jobs.recv() {
                    job();
                }
            })
            .expect("the operating system starts the replays' thread");
        ReplayCache {
            memory: Mutex::new(Memory::default()),
            budget,
            requests: Mutex::new(Requests {
                buckets: HashMap::new(),
                swept: Instant::now(),
            }),
            builds: AtomicU64::new(0),
            idle,
        }
    }

    /// Takes one request of `client` (its address key) from its bucket;
    /// `Err(retry_after)` when the bucket is empty.
    pub fn admit(&self, client: IpAddr) -> Result<(), Duration> {
        let mut requests = lock(&self.requests);
        let now = Instant::now();
        // Forget addresses whose bucket has refilled (it would be new again).
        let refill = Duration::from_secs_f64(f64::from(REQUEST_BURST) * 60.0 / REQUESTS_PER_MINUTE);
        if now.duration_since(requests.swept) > refill {
            requests
                .buckets
                .retain(|_, (_, asked)| now.duration_since(*asked) < refill);
            requests.swept = now;
        }
        let (bucket, asked) = requests
            .buckets
            .entry(client)
            .or_insert_with(|| (Bucket::new(REQUEST_BURST, REQUESTS_PER_MINUTE / 60.0), now));
        *asked = now;
        if bucket.take() {
            Ok(())
        } else {
            Err(Duration::from_secs_f64(60.0 / REQUESTS_PER_MINUTE).max(Duration::from_secs(1)))
        }
    }

    /// The replay of game `id` if it is in memory; else whether somebody is
    /// producing it (wait) or the caller must (lead).
    pub fn begin(&self, id: i64) -> Flight {
        let mut memory = lock(&self.memory);
        memory.clock += 1;
        let clock = memory.clock;
        if let Some(entry) = memory.entries.get_mut(&id) {
            entry.used = clock;
            return Flight::Ready(entry.built.clone());
        }
        if let Some(flight) = memory.flights.get(&id) {
            return Flight::Wait(flight.subscribe());
        }
        let (told, answer) = watch::channel(None);
        memory.flights.insert(id, told);
        Flight::Lead(answer)
    }

    /// The answer of the flight of game `id`: kept in memory if it is a
    /// replay, and told to everybody waiting.
    pub fn finish(&self, id: i64, answer: Result<Arc<Built>, Failure>) {
        let mut memory = lock(&self.memory);
        if let Ok(built) = &answer {
            self.keep(&mut memory, id, built.clone());
        }
        if let Some(flight) = memory.flights.remove(&id) {
            flight.send_replace(Some(answer));
        }
    }

    /// Puts a replay in memory, dropping the least recently served ones
    /// until the budget holds (a replay larger than the whole budget is not
    /// kept).
    fn keep(&self, memory: &mut Memory, id: i64, built: Arc<Built>) {
        let size = built.gzip.len();
        if size > self.budget {
            return;
        }
        memory.clock += 1;
        let used = memory.clock;
        if let Some(old) = memory.entries.insert(id, Entry { built, used }) {
            memory.bytes -= old.built.gzip.len();
        }
        memory.bytes += size;
        while memory.bytes > self.budget {
            let oldest = memory
                .entries
                .iter()
                .min_by_key(|(_, entry)| entry.used)
                .map(|(&id, _)| id)
                .expect("bytes are held only by entries");
            let gone = memory
                .entries
                .remove(&oldest)
                .expect("the id was just found");
            memory.bytes -= gone.built.gzip.len();
        }
    }

    /// Compressed bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        lock(&self.memory).bytes
    }

    /// Counts a replay built from a game's log.
    pub fn count_build(&self) {
        self.builds.fetch_add(1, Ordering::Relaxed);
    }

    /// Replays built from a game's log so far.
    pub fn builds(&self) -> u64 {
        self.builds.load(Ordering::Relaxed)
    }

    /// Runs `job` on the idle thread and waits for its result; `Busy` when
    /// too many jobs wait already.
    pub async fn run_idle<T, F>(&self, job: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (done, result) = oneshot::channel();
        self.idle
            .try_send(Box::new(move || {
                // A panic is a bug; it fails this job, not the thread.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                let _ = done.send(outcome);
            }))
            .map_err(|_| Failure::Busy)?;
        match result.await {
            Ok(Ok(value)) => Ok(value),
            _ => Err(Failure::Internal("a replay job failed".into())),
        }
    }
}

/// Waits for the answer of a flight.
pub async fn wait(mut answer: Answer) -> Result<Arc<Built>, Failure> {
    match answer.wait_for(Option::is_some).await {
        Ok(told) => told
            .clone()
            .expect("the wait ends only once the answer is there"),
        // The producer is gone without an answer (the server is stopping).
        Err(_) => Err(Failure::Busy),
    }
}

/// Schedules this thread as idle: it runs only when no other thread of the
/// machine wants the CPU (Linux `SCHED_IDLE`), or else at the lowest nice
/// value. Where neither is possible it runs at normal priority.
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: sched_setscheduler and setpriority with pid/tid 0 or our own
    // thread id only change this thread's scheduling.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        if libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) != 0 {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, 19);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(size: usize) -> Arc<Built> {
        Arc::new(Built {
            tag: format!("{size}"),
            gzip: Bytes::from(vec![0u8; size]),
        })
    }

    /// Produces game `id` as a leader would.
    fn produce(cache: &ReplayCache, id: i64, size: usize) {
        match cache.begin(id) {
            Flight::Lead(_) => cache.finish(id, Ok(built(size))),
            _ => panic!("game {id} was not new"),
        }
    }

    #[tokio::test]
    async fn one_flight_per_game_however_many_ask() {
        let cache = Arc::new(ReplayCache::new(1 << 20));
        let Flight::Lead(first) = cache.begin(7) else {
            panic!("the first asker leads");
        };
        let waiters: Vec<_> = (0..5)
            .map(|_| match cache.begin(7) {
                Flight::Wait(answer) => tokio::spawn(wait(answer)),
                _ => panic!("later askers wait for the same flight"),
            })
            .collect();
        cache.count_build();
        cache.finish(7, Ok(built(100)));
        for waiter in waiters {
            assert_eq!(waiter.await.unwrap().unwrap().tag, "100");
        }
        assert_eq!(wait(first).await.unwrap().tag, "100");
        assert!(
            matches!(cache.begin(7), Flight::Ready(_)),
            "then it is in memory"
        );
        assert_eq!(cache.builds(), 1);
    }

    #[tokio::test]
    async fn a_failure_is_told_and_not_kept() {
        let cache = ReplayCache::new(1 << 20);
        let Flight::Lead(answer) = cache.begin(3) else {
            panic!("the first asker leads");
        };
        cache.finish(3, Err(Failure::NotFound));
        assert_eq!(wait(answer).await.unwrap_err(), Failure::NotFound);
        assert!(
            matches!(cache.begin(3), Flight::Lead(_)),
            "asked again later"
        );
    }

    #[test]
    fn the_least_recently_served_leave_memory_first() {
        let cache = ReplayCache::new(300);
        produce(&cache, 1, 100);
        produce(&cache, 2, 100);
        produce(&cache, 3, 100);
        assert!(matches!(cache.begin(1), Flight::Ready(_)), "1 served again");
        produce(&cache, 4, 100);
        assert_eq!(cache.memory_bytes(), 300);
        assert!(
            matches!(cache.begin(2), Flight::Lead(_)),
            "2 was the oldest"
        );
        cache.finish(2, Err(Failure::Busy));
        for id in [1, 3, 4] {
            assert!(matches!(cache.begin(id), Flight::Ready(_)), "{id} kept");
        }
        produce(&cache, 5, 400);
        assert_eq!(cache.memory_bytes(), 300, "too large to keep");
    }

    #[test]
    fn an_address_gets_its_burst_then_waits() {
        let cache = ReplayCache::new(1 << 20);
        let ana: IpAddr = "192.0.2.1".parse().unwrap();
        let bea: IpAddr = "192.0.2.2".parse().unwrap();
        for _ in 0..REQUEST_BURST {
            assert_eq!(cache.admit(ana), Ok(()));
        }
        let retry = cache.admit(ana).expect_err("the burst is spent");
        assert!(retry >= Duration::from_secs(1));
        assert_eq!(cache.admit(bea), Ok(()), "others are not limited");
    }

    #[tokio::test]
    async fn idle_jobs_run_and_a_panic_fails_alone() {
        let cache = ReplayCache::new(1 << 20);
        assert_eq!(cache.run_idle(|| 6 * 7).await, Ok(42));
        let failed: Result<(), _> = cache.run_idle(|| panic!("a bug")).await;
        assert!(matches!(failed, Err(Failure::Internal(_))));
        assert_eq!(cache.run_idle(|| 1).await, Ok(1), "the thread lives on");
    }
}
