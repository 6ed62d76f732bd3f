//! What an operator sees of a running node: the Prometheus metrics served at
//! `/metrics`, the node's own scheduling lag, and whether it is ready
//! (`/readyz`). A bottom layer: it uses nothing else of the crate, and the
//! other layers report to it through the `metrics` crate's macros.
//!
//! The recorder is the process's (one per process, as the `metrics` crate
//! has it): a binary runs one server, so its figures are that server's. The
//! gauges that describe one server's state (connections, leases, lag, the
//! pool's queue) are set from that server when `/metrics` is read.
//!
//! **Scheduling lag.** A task asks to wake every [`LAG_TICK`] and measures
//! how late it woke: the time a ready task waits for a worker thread. It is
//! what a player feels on top of the work their own shot needs, and it grows
//! long before anything else shows overload. [`Load::lag`] is a moving
//! average of the lateness (each tick weighs a fifth, so it follows a change
//! within a few hundred milliseconds): one late wake (another process took
//! the core for a moment) hardly moves it, a busy second does.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// How often the lag task asks to wake.
pub const LAG_TICK: Duration = Duration::from_millis(25);

/// The histograms' bucket bounds, in seconds: from a fast frame (500 µs) to
/// a stall a person notices (5 s).
const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0,
];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// The process's recorder, installed on first use; `None` if another
/// recorder was installed first (then `/metrics` says so).
pub fn handle() -> Option<&'static PrometheusHandle> {
    if let Some(handle) = HANDLE.get() {
        return Some(handle);
    }
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
        .expect("the bucket list is not empty")
        .build_recorder();
    let handle = recorder.handle();
    if metrics::set_global_recorder(recorder).is_ok() {
        describe();
        let _ = HANDLE.set(handle);
    }
    HANDLE.get()
}

/// The help text of every metric (Prometheus `# HELP` lines).
fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_gauge!(
        "broadside_connections",
        "Open TCP connections (HTTP and WebSocket)."
    );
    describe_gauge!(
        "broadside_sessions",
        "WebSocket connections that said hello, on this node."
    );
    describe_gauge!(
        "broadside_rooms",
        "Rooms in memory on this node, by phase (lobby, playing, finished) and preset."
    );
    describe_counter!("broadside_games_started_total", "Games started, by preset.");
    describe_counter!(
        "broadside_games_finished_total",
        "Games finished, by preset."
    );
    describe_counter!("broadside_frames_in_total", "Client frames read, by type.");
    describe_counter!(
        "broadside_frames_out_total",
        "Server frames written, by type."
    );
    describe_histogram!(
        "broadside_shot_update_seconds",
        Unit::Seconds,
        "From a game command's arrival at its room to the updates queued for every member."
    );
    describe_histogram!(
        "broadside_db_write_seconds",
        Unit::Seconds,
        "A game command's write to the database, queueing included."
    );
    describe_histogram!(
        "broadside_bus_round_trip_seconds",
        Unit::Seconds,
        "A request to another node over the bus, until its answer."
    );
    describe_gauge!(
        "broadside_leases_held",
        "Rooms whose lease this node holds."
    );
    describe_gauge!(
        "broadside_scheduling_lag_seconds",
        "How late the node's async workers wake a ready task (recent worst, decaying)."
    );
    describe_gauge!(
        "broadside_cpu_queue",
        "Jobs waiting for the CPU pool (bots, checks)."
    );
    describe_counter!(
        "broadside_busy_refusals_total",
        "New rooms, quick matches and joins refused with busy, by request."
    );
    describe_gauge!(
        "broadside_draining",
        "1 while the node drains before it stops."
    );
}

/// The load this node measures of itself, and whether it is draining.
pub struct Load {
    /// The recent worst scheduling lag, in microseconds.
    lag_us: AtomicU64,
    /// Above this lag new games are refused (`busy`); zero never refuses.
    threshold: Duration,
    draining: AtomicBool,
}

impl Load {
    pub fn new(threshold: Duration) -> Arc<Load> {
        Arc::new(Load {
            lag_us: AtomicU64::new(0),
            threshold,
            draining: AtomicBool::new(false),
        })
    }

    /// The recent worst scheduling lag.
    pub fn lag(&self) -> Duration {
        Duration::from_micros(self.lag_us.load(Ordering::Relaxed))
    }

    /// Whether new work should be turned away: the lag is past the threshold.
    pub fn overloaded(&self) -> bool {
        !self.threshold.is_zero() && self.lag() > self.threshold
    }

    /// How long a refused person should wait before trying again: two
    /// seconds, and a second more for each time the lag is over the threshold.
    pub fn retry_after(&self) -> Duration {
        let over = self.lag().as_secs_f64() / self.threshold.as_secs_f64().max(1e-3);
        Duration::from_secs(2) + Duration::from_secs_f64(over.clamp(0.0, 8.0))
    }

    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Relaxed);
        gauge!("broadside_draining").set(1.0);
    }

    fn note_lag(&self, late: Duration) {
        let previous = self.lag_us.load(Ordering::Relaxed) as f64;
        let sample = late.as_micros() as f64;
        let lag = previous * 0.8 + sample * 0.2;
        self.lag_us.store(lag as u64, Ordering::Relaxed);
    }

    /// Measures the scheduling lag until the load is dropped.
    pub async fn watch(load: Weak<Load>) {
        let mut next = Instant::now() + LAG_TICK;
        loop {
            tokio::time::sleep_until(next.into()).await;
            let woke = Instant::now();
            let Some(load) = load.upgrade() else { return };
            // The timer wheel rounds up to the millisecond: that much is not lag.
            let late = woke
                .saturating_duration_since(next)
                .saturating_sub(Duration::from_millis(1));
            load.note_lag(late);
            gauge!("broadside_scheduling_lag_seconds").set(load.lag().as_secs_f64());
            next = woke + LAG_TICK;
        }
    }
}

/// Counts a client frame read.
pub fn frame_in(kind: &'static str) {
    counter!("broadside_frames_in_total", "type" => kind).increment(1);
}

/// Counts a server frame written to a socket: its type is read off the text
/// (every server frame starts with its `type`). The server writes only its
/// own frames, so the types are a short list: each is kept once, with its
/// counter, and found again without allocating.
pub fn frame_out(text: &str) {
    static SEEN: std::sync::RwLock<Vec<(&'static str, metrics::Counter)>> =
        std::sync::RwLock::new(Vec::new());
    let kind = frame_type(text);
    let seen = SEEN.read().unwrap_or_else(|p| p.into_inner());
    if let Some((_, counter)) = seen.iter().find(|(known, _)| *known == kind) {
        counter.increment(1);
        return;
    }
    drop(seen);
    let mut seen = SEEN.write().unwrap_or_else(|p| p.into_inner());
    if !seen.iter().any(|(known, _)| *known == kind) {
        let name: &'static str = Box::leak(kind.to_string().into_boxed_str());
        seen.push((name, counter!("broadside_frames_out_total", "type" => name)));
    }
    if let Some((_, counter)) = seen.iter().find(|(known, _)| *known == kind) {
        counter.increment(1);
    }
}

/// The `type` of a server frame's text: up to 32 lower-case letters and
/// underscores, else "other".
fn frame_type(text: &str) -> &str {
    let kind = text
        .strip_prefix("{\"type\":\"")
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("");
    let plain = !kind.is_empty()
        && kind.len() <= 32
        && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    if plain {
        kind
    } else {
        "other"
    }
}

pub fn game_started(preset: &'static str) {
    counter!("broadside_games_started_total", "preset" => preset).increment(1);
}

pub fn game_finished(preset: &'static str) {
    counter!("broadside_games_finished_total", "preset" => preset).increment(1);
}

pub fn shot_update(took: Duration) {
    histogram!("broadside_shot_update_seconds").record(took.as_secs_f64());
}

pub fn db_write(took: Duration) {
    histogram!("broadside_db_write_seconds").record(took.as_secs_f64());
}

pub fn bus_round_trip(took: Duration) {
    histogram!("broadside_bus_round_trip_seconds").record(took.as_secs_f64());
}

pub fn busy_refusal(request: &'static str) {
    counter!("broadside_busy_refusals_total", "request" => request).increment(1);
}

/// One room's place in the `broadside_rooms` gauge: it moves between labels
/// as the room's phase changes, and leaves when the room leaves memory.
#[derive(Default)]
pub struct RoomCensus {
    counted: Option<(&'static str, &'static str)>,
}

impl RoomCensus {
    pub fn set(&mut self, phase: &'static str, preset: &'static str) {
        if self.counted == Some((phase, preset)) {
            return;
        }
        self.leave();
        gauge!("broadside_rooms", "phase" => phase, "preset" => preset).increment(1.0);
        self.counted = Some((phase, preset));
    }

    fn leave(&mut self) {
        if let Some((phase, preset)) = self.counted.take() {
            gauge!("broadside_rooms", "phase" => phase, "preset" => preset).decrement(1.0);
        }
    }
}

impl Drop for RoomCensus {
    fn drop(&mut self) {
        self.leave();
    }
}

/// The state of one server that `/metrics` reads when asked.
pub struct Snapshot {
    pub connections: usize,
    pub sessions: usize,
    pub leases: usize,
    pub cpu_queue: usize,
}

/// The text of `/metrics`: the process's metrics with this server's gauges.
pub fn render(snapshot: &Snapshot) -> Option<String> {
    let handle = handle()?;
    gauge!("broadside_connections").set(snapshot.connections as f64);
    gauge!("broadside_sessions").set(snapshot.sessions as f64);
    gauge!("broadside_leases_held").set(snapshot.leases as f64);
    gauge!("broadside_cpu_queue").set(snapshot.cpu_queue as f64);
    handle.run_upkeep();
    Some(handle.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frames_type_is_read_off_its_text() {
        assert_eq!(frame_type(r#"{"type":"state","view":{}}"#), "state");
        assert_eq!(frame_type(r#"{"type":"pong"}"#), "pong");
        assert_eq!(frame_type(r#"{"type":"Made up"}"#), "other");
        assert_eq!(frame_type("garbage"), "other");
    }

    #[test]
    fn the_lag_follows_a_busy_spell_and_refuses_only_above_the_threshold() {
        let load = Load::new(Duration::from_millis(20));
        // One late wake is not overload.
        load.note_lag(Duration::from_millis(60));
        assert!(!load.overloaded(), "{:?}", load.lag());
        // A busy spell is.
        for _ in 0..10 {
            load.note_lag(Duration::from_millis(60));
        }
        assert!(load.overloaded());
        assert!(load.retry_after() >= Duration::from_secs(2));
        for _ in 0..20 {
            load.note_lag(Duration::ZERO);
        }
        assert!(!load.overloaded(), "{:?}", load.lag());
        let never = Load::new(Duration::ZERO);
        for _ in 0..20 {
            never.note_lag(Duration::from_secs(3));
        }
        assert!(!never.overloaded());
    }
}
