//! What every task of a run counts, and the reporter reads: connections and
//! running games, errors by kind, the HDR histograms of shot and ping
//! latency, the attack's answers, resumes and acknowledged shots.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};
use hdrhistogram::Histogram;

/// Counters shared by every game task and the reporter.
pub(super) struct Shared {
    /// Whether the measured window is open (only then are shots recorded).
    pub(super) measuring: AtomicBool,
    pub(super) games_running: AtomicUsize,
    pub(super) connections: AtomicUsize,
    /// Shots answered in the measured window (one latency sample each).
    pub(super) shots: AtomicU64,
    /// Games played to the end in the measured window.
    pub(super) games_finished: AtomicU64,
    pub(super) error_frames: AtomicU64,
    pub(super) connect_errors: AtomicU64,
    pub(super) closed: AtomicU64,
    pub(super) timeouts: AtomicU64,
    /// `error` frames by code.
    pub(super) error_codes: Mutex<BTreeMap<String, u64>>,
    /// Latencies in microseconds.
    pub(super) latency: Mutex<Histogram<u64>>,
    /// Connection attempts so far; picks the source address on loopback.
    pub(super) attempts: AtomicUsize,
    /// Open connections of the probe and the attack.
    pub(super) extra_connections: AtomicUsize,
    /// Probe and attack connections that said hello and wait for the window.
    pub(super) extras_ready: AtomicUsize,
    /// Probe and attack tasks whose measurement is not over yet.
    pub(super) extras_measuring: AtomicUsize,
    /// Ping to pong times of the probe in microseconds.
    pub(super) ping_latency: Mutex<Histogram<u64>>,
    /// Pings sent by the probe, and pings whose pong never came.
    pub(super) pings_sent: AtomicU64,
    pub(super) pings_lost: AtomicU64,
    /// The attack's `set_options` frames sent, and their answers.
    pub(super) expensive_sent: AtomicU64,
    pub(super) expensive_answers: AtomicU64,
    /// The attack's answers by kind: `room`, or the code of an `error`.
    pub(super) expensive_kinds: Mutex<BTreeMap<String, u64>>,
    /// Microseconds from the window's start to the attack's last answer.
    pub(super) expensive_last_micros: AtomicU64,
    /// Connections connected again and rejoined (`--resume`).
    pub(super) resumed: AtomicU64,
    /// Acknowledged shots that a later state no longer showed.
    pub(super) lost_acknowledged: AtomicU64,
    /// Acknowledged shots in all.
    pub(super) acknowledged: AtomicU64,
    /// The seats' last views (`--final-views`).
    pub(super) final_views: Mutex<Vec<serde_json::Value>>,
}

impl Shared {
    pub(super) fn new() -> Result<Shared> {
        Ok(Shared {
            measuring: AtomicBool::new(false),
            games_running: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            shots: AtomicU64::new(0),
            games_finished: AtomicU64::new(0),
            error_frames: AtomicU64::new(0),
            connect_errors: AtomicU64::new(0),
            closed: AtomicU64::new(0),
            timeouts: AtomicU64::new(0),
            error_codes: Mutex::new(BTreeMap::new()),
            latency: Mutex::new(
                Histogram::new_with_bounds(1, 3_600_000_000, 3)
                    .context("creating the latency histogram")?,
            ),
            attempts: AtomicUsize::new(0),
            extra_connections: AtomicUsize::new(0),
            extras_ready: AtomicUsize::new(0),
            extras_measuring: AtomicUsize::new(0),
            ping_latency: Mutex::new(
                Histogram::new_with_bounds(1, 3_600_000_000, 3)
                    .context("creating the ping histogram")?,
            ),
            pings_sent: AtomicU64::new(0),
            pings_lost: AtomicU64::new(0),
            expensive_sent: AtomicU64::new(0),
            expensive_answers: AtomicU64::new(0),
            expensive_kinds: Mutex::new(BTreeMap::new()),
            expensive_last_micros: AtomicU64::new(0),
            resumed: AtomicU64::new(0),
            lost_acknowledged: AtomicU64::new(0),
            acknowledged: AtomicU64::new(0),
            final_views: Mutex::new(Vec::new()),
        })
    }

    pub(super) fn errors(&self) -> u64 {
        self.error_frames.load(Ordering::Relaxed)
            + self.connect_errors.load(Ordering::Relaxed)
            + self.closed.load(Ordering::Relaxed)
            + self.timeouts.load(Ordering::Relaxed)
    }

    pub(super) fn error_frame(&self, code: &str) {
        self.error_frames.fetch_add(1, Ordering::Relaxed);
        let mut codes = self.error_codes.lock().unwrap_or_else(|e| e.into_inner());
        *codes.entry(code.to_string()).or_insert(0) += 1;
    }

    pub(super) fn sample(&self, latency: Duration) {
        if !self.measuring.load(Ordering::Relaxed) {
            return;
        }
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.latency
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .saturating_record(micros.max(1));
        self.shots.fetch_add(1, Ordering::Relaxed);
    }

    /// p50, p99 and max of the shots in milliseconds, or `None` without samples.
    pub(super) fn quantiles(&self) -> Option<(f64, f64, f64)> {
        quantiles(&self.latency.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// p50, p99 and max of the probe's pings in milliseconds and their
    /// count, or `None` without samples.
    pub(super) fn ping_quantiles(&self) -> (Option<(f64, f64, f64)>, u64) {
        let histogram = self.ping_latency.lock().unwrap_or_else(|e| e.into_inner());
        (quantiles(&histogram), histogram.len())
    }

    pub(super) fn ping(&self, latency: Duration) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.ping_latency
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .saturating_record(micros.max(1));
    }

    pub(super) fn expensive_answer(&self, kind: &str, since_start: Duration) {
        self.expensive_answers.fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(since_start.as_micros()).unwrap_or(u64::MAX);
        self.expensive_last_micros
            .fetch_max(micros, Ordering::Relaxed);
        let mut kinds = self
            .expensive_kinds
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *kinds.entry(kind.to_string()).or_insert(0) += 1;
    }
}

/// p50, p99 and max of a histogram of microseconds in milliseconds, or `None`
/// when it is empty.
fn quantiles(histogram: &Histogram<u64>) -> Option<(f64, f64, f64)> {
    (!histogram.is_empty()).then(|| {
        (
            millis(histogram.value_at_quantile(0.5)),
            millis(histogram.value_at_quantile(0.99)),
            millis(histogram.max()),
        )
    })
}

/// Microseconds as milliseconds with one decimal.
fn millis(micros: u64) -> f64 {
    (micros as f64 / 100.0).round() / 10.0
}
