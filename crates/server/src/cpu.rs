//! The pool that runs CPU-heavy work off the async workers: bots thinking, fit
//! checks of custom fleets, random layouts and every command that may place a
//! fleet at random.
//!
//! A few threads (one per core by default) at a lower scheduling priority than
//! the async workers, so sockets, pings and ordinary shots stay responsive while
//! the pool is busy. The queue is fair: every job belongs to a *key* (the
//! client's address for work a client asks for, the room for its bots), the
//! threads take one job of each waiting key in turn, and a key may have only a
//! few jobs waiting — a flood from one address waits behind itself, not in
//! front of everybody else, and what overflows is refused at once.

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tokio::sync::oneshot;

/// Who a job is done for: jobs of one key run in order, keys take turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// Work a client asked for, by the client's address.
    Client(std::net::IpAddr),
    /// A room's own work (its bots, its timer's random moves).
    Room(u64),
}

/// Why a job did not run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CpuError {
    #[error("too much work is already waiting for this client")]
    Busy,
    #[error("the job failed")]
    Failed,
}

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    /// Jobs waiting, per key.
    jobs: HashMap<Key, VecDeque<Job>>,
    /// Keys with waiting jobs, in the order they are served.
    turns: VecDeque<Key>,
    closed: bool,
}

struct Inner {
    queue: Mutex<Queue>,
    work: Condvar,
    per_key: usize,
}

impl Inner {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // Jobs run outside the lock, so a panic cannot leave the queue half-changed.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The pool; cloning shares it. The threads stop when the last clone is dropped.
#[derive(Clone)]
pub struct CpuPool {
    inner: Arc<Inner>,
    _threads: Arc<Threads>,
}

struct Threads {
    inner: Arc<Inner>,
}

impl Drop for Threads {
    fn drop(&mut self) {
        self.inner.queue().closed = true;
        self.inner.work.notify_all();
    }
}

impl CpuPool {
    /// A pool of `threads` threads where each key may have `per_key` jobs waiting.
    pub fn new(threads: usize, per_key: usize) -> CpuPool {
        let inner = Arc::new(Inner {
            queue: Mutex::new(Queue::default()),
            work: Condvar::new(),
            per_key: per_key.max(1),
        });
        for index in 0..threads.max(1) {
            let inner = inner.clone();
            // A pool without threads would hang every job; failing to start
            // one at start-up is a broken machine.
            std::thread::Builder::new()
                .name(format!("broadside-cpu-{index}"))
                .spawn(move || worker(&inner))
                .expect("the operating system starts the pool's threads");
        }
        CpuPool {
            _threads: Arc::new(Threads {
                inner: inner.clone(),
            }),
            inner,
        }
    }

    /// How many jobs wait for a thread.
    pub fn waiting(&self) -> usize {
        self.inner.queue().jobs.values().map(VecDeque::len).sum()
    }

    /// Runs `job` on the pool and waits for its result. Refused at once with
    /// `Busy` when `key` already has its share of jobs waiting.
    pub async fn run<T, F>(&self, key: Key, job: F) -> Result<T, CpuError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (done, result) = oneshot::channel();
        {
            let mut queue = self.inner.queue();
            let waiting = queue.jobs.entry(key).or_default();
            if waiting.len() >= self.inner.per_key {
                return Err(CpuError::Busy);
            }
            let first = waiting.is_empty();
            waiting.push_back(Box::new(move || {
                // A panic is a bug; it fails this job, not the thread or the server.
                let _ = done.send(catch_unwind(AssertUnwindSafe(job)));
            }));
            if first {
                queue.turns.push_back(key);
            }
        }
        self.inner.work.notify_one();
        match result.await {
            Ok(Ok(value)) => Ok(value),
            _ => Err(CpuError::Failed),
        }
    }
}

fn worker(inner: &Inner) {
    lower_priority();
    loop {
        let job = {
            let mut queue = inner.queue();
            loop {
                if queue.closed {
                    return;
                }
                if let Some(key) = queue.turns.pop_front() {
                    let waiting = queue
                        .jobs
                        .get_mut(&key)
                        .expect("a key takes a turn only while it has jobs waiting");
                    let job = waiting
                        .pop_front()
                        .expect("a key takes a turn only while it has jobs waiting");
                    if waiting.is_empty() {
                        queue.jobs.remove(&key);
                    } else {
                        queue.turns.push_back(key);
                    }
                    break job;
                }
                queue = inner.work.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
        };
        job();
    }
}

/// Nice value of the pool's threads: below the async workers, which answer
/// sockets and apply the cheap commands.
const POOL_NICE: libc::c_int = 10;

/// Lowers this thread's scheduling priority (Linux schedules threads one by
/// one, so this leaves the rest of the process as it is). Where that is not
/// possible the pool simply runs at normal priority.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid has no preconditions; setpriority on our own thread id
    // only changes that thread's nice value.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, POOL_NICE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn key(n: u64) -> Key {
        Key::Room(n)
    }

    #[tokio::test]
    async fn jobs_run_and_return_their_results() {
        let pool = CpuPool::new(2, 4);
        assert_eq!(pool.run(key(1), || 6 * 7).await, Ok(42));
    }

    #[tokio::test]
    async fn a_panicking_job_fails_alone() {
        let pool = CpuPool::new(1, 4);
        let failed: Result<(), _> = pool.run(key(1), || panic!("a bug")).await;
        assert_eq!(failed, Err(CpuError::Failed));
        assert_eq!(pool.run(key(1), || 1).await, Ok(1), "the thread lives on");
    }

    #[tokio::test]
    async fn a_key_with_its_share_waiting_is_refused() {
        let pool = CpuPool::new(1, 2);
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        // One job runs (blocked on the gate) and two wait: the share of key 1.
        let mut running = Vec::new();
        for _ in 0..3 {
            let gate = gate.clone();
            let pool = pool.clone();
            running.push(tokio::spawn(async move {
                pool.run(key(1), move || {
                    let _ = gate.lock().unwrap().recv();
                })
                .await
            }));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(pool.run(key(1), || ()).await, Err(CpuError::Busy));
        for _ in 0..3 {
            release.send(()).unwrap();
        }
        for job in running {
            assert_eq!(job.await.unwrap(), Ok(()));
        }
    }

    #[tokio::test]
    async fn keys_take_turns() {
        // One thread; key 1 queues four jobs (the first blocks the thread), then
        // key 2 queues one: it runs right after key 1's next job, not last.
        let pool = CpuPool::new(1, 8);
        let order = Arc::new(Mutex::new(Vec::new()));
        let started = Arc::new(AtomicUsize::new(0));
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        let mut jobs = Vec::new();
        for (n, k) in [(0, 1), (1, 1), (2, 1), (3, 1), (4, 2)] {
            let (pool, order, gate, started) =
                (pool.clone(), order.clone(), gate.clone(), started.clone());
            jobs.push(tokio::spawn(async move {
                pool.run(key(k), move || {
                    started.fetch_add(1, Ordering::SeqCst);
                    if n == 0 {
                        let _ = gate.lock().unwrap().recv();
                    }
                    order.lock().unwrap().push(n);
                })
                .await
            }));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        release.send(()).unwrap();
        for job in jobs {
            job.await.unwrap().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 4, 2, 3]);
    }
}
