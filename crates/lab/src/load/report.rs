//! The end of a run: one JSON object on stdout (`--json`), or a summary of
//! the games, the latency, the errors, the server's and the generator's
//! memory and CPU time, the probe and the attack.

use std::sync::atomic::Ordering;

use serde_json::json;

use super::shared::Shared;
use super::{round1, LoadArgs};

/// What the measured window gave, read at its end.
pub(super) struct Measured {
    pub(super) games_requested: usize,
    pub(super) games_running: usize,
    pub(super) connections_open: usize,
    pub(super) shots: u64,
    /// p50, p99 and max of the shots' latency in milliseconds.
    pub(super) quantiles: Option<(f64, f64, f64)>,
    pub(super) ramp_seconds: f64,
    pub(super) seconds: f64,
    pub(super) server_pid: Option<u32>,
    /// The server's resident memory at the end, and the most seen, in MiB.
    pub(super) server_rss: Option<f64>,
    pub(super) rss_max: Option<f64>,
    /// CPU seconds over the window.
    pub(super) server_cpu: Option<f64>,
    /// The server's CPU milliseconds per shot over the window.
    pub(super) server_cpu_ms_per_shot: Option<f64>,
    /// The server's CPU seconds over the window by thread name.
    pub(super) server_threads: Option<std::collections::BTreeMap<String, f64>>,
    pub(super) client_cpu: Option<f64>,
    pub(super) client_rss: Option<f64>,
    pub(super) extra_connections: usize,
    pub(super) extras_ready: usize,
    /// p50, p99 and max of the probe's pings, and their count.
    pub(super) pings: Option<(f64, f64, f64)>,
    pub(super) ping_count: u64,
    pub(super) expensive_answers: u64,
    /// Seconds from the window's start to the attack's last answer.
    pub(super) expensive_last: Option<f64>,
}

/// Prints the report; the counters of errors are read now, after the wind
/// down, so that they hold every failure of the run.
pub(super) fn print(args: &LoadArgs, shared: &Shared, measured: &Measured) {
    let Measured {
        games_requested: games,
        games_running,
        connections_open,
        shots,
        quantiles,
        ramp_seconds,
        seconds,
        server_pid,
        server_rss,
        rss_max,
        server_cpu,
        server_cpu_ms_per_shot,
        ref server_threads,
        client_cpu,
        client_rss,
        extra_connections,
        extras_ready,
        pings,
        ping_count,
        expensive_answers,
        expensive_last,
    } = *measured;
    let errors = shared.errors();
    let error_codes = shared
        .error_codes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let shots_per_second = round1(shots as f64 / seconds);
    let mut report = json!({
        "games": games_running,
        "games_requested": games,
        "connections": connections_open,
        "shots": shots,
        "errors": errors,
        "error_frames": shared.error_frames.load(Ordering::Relaxed),
        "connect_errors": shared.connect_errors.load(Ordering::Relaxed),
        "closed": shared.closed.load(Ordering::Relaxed),
        "timeouts": shared.timeouts.load(Ordering::Relaxed),
        "error_codes": error_codes,
        "p50_ms": quantiles.map(|q| q.0),
        "p99_ms": quantiles.map(|q| q.1),
        "max_ms": quantiles.map(|q| q.2),
        "shots_per_second": shots_per_second,
        "games_finished": shared.games_finished.load(Ordering::Relaxed),
        "resumed": shared.resumed.load(Ordering::Relaxed),
        "acknowledged": shared.acknowledged.load(Ordering::Relaxed),
        "lost_acknowledged": shared.lost_acknowledged.load(Ordering::Relaxed),
        "ramp_seconds": (ramp_seconds * 100.0).round() / 100.0,
        "seconds": round1(seconds),
        "pace_ms": args.pace_ms,
        "server_pid": server_pid,
        "server_rss_mib": server_rss,
        "server_rss_max_mib": rss_max,
        "server_cpu_seconds": server_cpu,
        "client_cpu_seconds": client_cpu,
        "client_rss_mib": client_rss,
        "extra_connections": extra_connections,
        "extras_ready": extras_ready,
        "probe_ms": args.probe_ms,
        "pings": ping_count,
        "pings_lost": shared.pings_lost.load(Ordering::Relaxed),
        "ping_p50_ms": pings.map(|q| q.0),
        "ping_p99_ms": pings.map(|q| q.1),
        "ping_max_ms": pings.map(|q| q.2),
        "expensive": args.expensive,
        "expensive_sent": shared.expensive_sent.load(Ordering::Relaxed),
        "expensive_answers": expensive_answers,
        "expensive_kinds": shared.expensive_kinds.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        "expensive_last_answer_seconds": expensive_last,
    });
    // (Apart: one macro call of every field would pass json!'s recursion limit.)
    report["server_cpu_ms_per_shot"] = json!(server_cpu_ms_per_shot);
    report["server_cpu_by_thread"] = json!(server_threads);
    if args.json {
        println!("{report}");
    } else {
        let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} ms"));
        println!(
            "{games_running} of {games} games running over {connections_open} connections \
             (ramp {ramp_seconds:.2} s), measured for {seconds:.1} s"
        );
        println!(
            "shots {shots} ({shots_per_second:.1}/s), games finished {}",
            shared.games_finished.load(Ordering::Relaxed)
        );
        println!(
            "latency p50 {}  p99 {}  max {}",
            ms(quantiles.map(|q| q.0)),
            ms(quantiles.map(|q| q.1)),
            ms(quantiles.map(|q| q.2))
        );
        println!(
            "errors {errors} (error frames {}, failed connections {}, closed {}, timeouts {})",
            shared.error_frames.load(Ordering::Relaxed),
            shared.connect_errors.load(Ordering::Relaxed),
            shared.closed.load(Ordering::Relaxed),
            shared.timeouts.load(Ordering::Relaxed)
        );
        match server_pid {
            Some(pid) => println!(
                "server (pid {pid}): RSS {} MiB at the end, {} MiB at most; CPU {} s ({} ms a shot)",
                server_rss.map_or("-".to_string(), |v| format!("{v:.1}")),
                rss_max.map_or("-".to_string(), |v| format!("{v:.1}")),
                server_cpu.map_or("-".to_string(), |v| format!("{v:.1}")),
                server_cpu_ms_per_shot.map_or("-".to_string(), |v| format!("{v:.3}"))
            ),
            None => println!("server process not found on this machine"),
        }
        if args.probe_ms > 0 {
            println!(
                "probe: {ping_count} pings every {} ms, {} lost; ping p50 {}  p99 {}  max {}",
                args.probe_ms,
                shared.pings_lost.load(Ordering::Relaxed),
                ms(pings.map(|q| q.0)),
                ms(pings.map(|q| q.1)),
                ms(pings.map(|q| q.2))
            );
        }
        if args.expensive > 0 {
            println!(
                "attack: {} expensive set_options sent, {expensive_answers} answered{}",
                shared.expensive_sent.load(Ordering::Relaxed),
                expensive_last.map_or(String::new(), |s| format!(
                    ", the last {s:.2} s into the window"
                ))
            );
        }
        println!(
            "load generator: RSS {} MiB, CPU {} s",
            client_rss.map_or("-".to_string(), |v| format!("{v:.1}")),
            client_cpu.map_or("-".to_string(), |v| format!("{v:.1}"))
        );
    }
}
