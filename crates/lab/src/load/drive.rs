//! The run itself: the probe and the attack connect first, the games are
//! started over the ramp, the measured window opens once every game is
//! running (or the grace after the planned ramp is over), the server's memory
//! is sampled each second of it, and at its end everything is wound down.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use tokio::sync::watch;
use tokio::time::{sleep_until, timeout_at};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use super::attack::attack_task;
use super::game::game_task;
use super::probe::probe_task;
use super::process::{
    find_listener, own_cpu_seconds, process_cpu_seconds, rss_mib, threads_cpu_seconds,
};
use super::report::{self, Measured};
use super::shared::Shared;
use super::{
    connections_for, extras, person_vs_person, round1, LoadArgs, Setup, ATTACKERS, FILES_BESIDE,
    PATIENCE,
};

/// Connections opened per second when `--ramp-seconds` is not given.
const RAMP_RATE: f64 = 500.0;
/// How long after the planned ramp the measurement starts anyway when some
/// games never got running.
const RAMP_GRACE: Duration = Duration::from_secs(10);

/// Runs the games, the probe and the attack through the ramp and the
/// measured window, then winds them down and reports.
pub(super) async fn drive(args: LoadArgs, addr: SocketAddr, file_limit: Option<u64>) -> Result<()> {
    let games = args.games;
    let connections = connections_for(games, args.bot_percent);
    let extras = extras(&args);
    if let Some(limit) = file_limit {
        if (connections + extras) as u64 + FILES_BESIDE > limit {
            eprintln!(
                "warning: {} connections need more open files than the limit of {limit}",
                connections + extras
            );
        }
    }
    let ramp = Duration::from_secs_f64(args.ramp_seconds.unwrap_or(connections as f64 / RAMP_RATE));
    let setup = Arc::new(Setup {
        addr,
        url: format!("ws://{addr}/ws"),
        resume: args.resume,
        final_views: args.final_views.is_some(),
        preset: super::preset_named(&args.preset).expect("checked before the run"),
        pace: Duration::from_millis(args.pace_ms),
        ws_config: WebSocketConfig::default()
            .read_buffer_size(8 * 1024)
            .write_buffer_size(8 * 1024)
            .max_message_size(Some(1 << 20))
            .max_frame_size(Some(1 << 20)),
    });
    let shared = Arc::new(Shared::new()?);
    let server_pid = args.server_pid.or_else(|| find_listener(addr));
    let (stop_tx, stop_rx) = watch::channel(false);
    let (window_tx, window_rx) = watch::channel(None::<(Instant, Instant)>);
    let base_seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);

    let started = Instant::now();
    // The probe and the attack connect first: they wait for the window.
    let mut extra_tasks = Vec::with_capacity(extras);
    shared.extras_measuring.store(extras, Ordering::Relaxed);
    if args.probe_ms > 0 {
        extra_tasks.push(tokio::spawn(probe_task(
            Arc::clone(&shared),
            Arc::clone(&setup),
            Duration::from_millis(args.probe_ms),
            window_rx.clone(),
            stop_rx.clone(),
        )));
    }
    if args.expensive > 0 {
        for index in 0..ATTACKERS {
            extra_tasks.push(tokio::spawn(attack_task(
                Arc::clone(&shared),
                Arc::clone(&setup),
                index,
                args.expensive,
                window_rx.clone(),
                stop_rx.clone(),
            )));
        }
    }
    drop(window_rx);
    let mut tasks = Vec::with_capacity(games);
    let mut opened_before = 0usize;
    for i in 0..games {
        let at = started + ramp.mul_f64(opened_before as f64 / connections as f64);
        opened_before += if person_vs_person(i, args.bot_percent) {
            2
        } else {
            1
        };
        tasks.push(tokio::spawn(game_task(
            Arc::clone(&shared),
            Arc::clone(&setup),
            i,
            person_vs_person(i, args.bot_percent),
            at,
            base_seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            stop_rx.clone(),
        )));
    }
    drop(stop_rx);

    let progress = |phase: &str| {
        let p99 = shared
            .quantiles()
            .map_or("-".to_string(), |(_, p99, _)| format!("{p99:.1} ms"));
        let mut extra = String::new();
        if args.probe_ms > 0 {
            let (ping, _) = shared.ping_quantiles();
            let ping = ping.map_or("-".to_string(), |(_, p99, _)| format!("{p99:.1} ms"));
            extra.push_str(&format!("  ping p99 {ping}"));
        }
        if args.expensive > 0 {
            extra.push_str(&format!(
                "  expensive {}/{}",
                shared.expensive_answers.load(Ordering::Relaxed),
                shared.expensive_sent.load(Ordering::Relaxed)
            ));
        }
        eprintln!(
            "[{:7.1}s] {phase:7}  games {}/{games}  connections {}  shots {}  errors {}  p99 {p99}{extra}",
            started.elapsed().as_secs_f64(),
            shared.games_running.load(Ordering::Relaxed),
            shared.connections.load(Ordering::Relaxed),
            shared.shots.load(Ordering::Relaxed),
            shared.errors(),
        );
    };

    // The ramp: until every game runs and the probe and the attack are
    // connected (or the grace after the plan is over).
    let give_up = started + ramp + RAMP_GRACE;
    let mut tick = started + Duration::from_secs(1);
    loop {
        let running = shared.games_running.load(Ordering::Relaxed);
        let ready = shared.extras_ready.load(Ordering::Relaxed);
        if running >= games && ready >= extras {
            break;
        }
        let now = Instant::now();
        if now >= give_up {
            eprintln!(
                "warning: only {running} of {games} games running and {ready} of {extras} \
                 probe and attack connections ready {:.1} s after the start; measuring anyway",
                now.duration_since(started).as_secs_f64()
            );
            break;
        }
        if now >= tick {
            progress("ramp");
            tick += Duration::from_secs(1);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let window_start = Instant::now();
    let ramp_seconds = window_start.duration_since(started).as_secs_f64();
    let window_end = window_start + Duration::from_secs_f64(args.seconds);
    shared.measuring.store(true, Ordering::Relaxed);
    window_tx.send_replace(Some((window_start, window_end)));
    let server_cpu_start = server_pid.and_then(process_cpu_seconds);
    let threads_start = server_pid.and_then(threads_cpu_seconds);
    let client_cpu_start = own_cpu_seconds();
    let mut rss_max = server_pid.and_then(rss_mib);
    let mut tick = window_start + Duration::from_secs(1);
    while tick < window_end {
        sleep_until(tick.into()).await;
        if let Some(rss) = server_pid.and_then(rss_mib) {
            rss_max = Some(rss_max.map_or(rss, |max: f64| max.max(rss)));
        }
        progress("measure");
        tick += Duration::from_secs(1);
    }
    sleep_until(window_end.into()).await;
    shared.measuring.store(false, Ordering::Relaxed);
    let seconds = window_start.elapsed().as_secs_f64();
    let games_running = shared.games_running.load(Ordering::Relaxed);
    let connections_open = shared.connections.load(Ordering::Relaxed);
    let shots = shared.shots.load(Ordering::Relaxed);
    let quantiles = shared.quantiles();
    let server_rss = server_pid.and_then(rss_mib);
    if let Some(rss) = server_rss {
        rss_max = Some(rss_max.map_or(rss, |max: f64| max.max(rss)));
    }
    let server_cpu_exact = server_pid
        .and_then(process_cpu_seconds)
        .zip(server_cpu_start)
        .map(|(end, start)| end - start);
    let server_cpu = server_cpu_exact.map(round1);
    // Milliseconds of server CPU per shot fired in the window, and the
    // window's CPU seconds by server thread (threads that ended are missing).
    let server_cpu_ms_per_shot = server_cpu_exact
        .filter(|_| shots > 0)
        .map(|cpu| (cpu * 1000.0 / shots as f64 * 1000.0).round() / 1000.0);
    let server_threads = server_pid
        .and_then(threads_cpu_seconds)
        .zip(threads_start)
        .map(|(end, start)| {
            end.into_iter()
                .map(|(name, seconds)| {
                    let before = start.get(&name).copied().unwrap_or(0.0);
                    (name, round1(seconds - before))
                })
                .collect::<std::collections::BTreeMap<_, _>>()
        });
    let client_cpu = own_cpu_seconds()
        .zip(client_cpu_start)
        .map(|(end, start)| round1(end - start));
    let client_rss = rss_mib(std::process::id());
    let extra_connections = shared.extra_connections.load(Ordering::Relaxed);
    let extras_ready = shared.extras_ready.load(Ordering::Relaxed);
    // The probe waits for the pongs of its last pings (at most PATIENCE), the
    // attack ends with the window.
    let extras_done = Instant::now() + PATIENCE + Duration::from_secs(2);
    while shared.extras_measuring.load(Ordering::Relaxed) > 0 && Instant::now() < extras_done {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (pings, ping_count) = shared.ping_quantiles();
    let expensive_answers = shared.expensive_answers.load(Ordering::Relaxed);
    let expensive_last = (expensive_answers > 0).then(|| {
        let micros = shared.expensive_last_micros.load(Ordering::Relaxed);
        (micros as f64 / 10_000.0).round() / 100.0
    });
    progress("done");

    let _ = stop_tx.send(true);
    let wind_down = tokio::time::Instant::now() + Duration::from_secs(5);
    for task in tasks.into_iter().chain(extra_tasks) {
        let _ = timeout_at(wind_down, task).await;
    }

    if let Some(path) = &args.final_views {
        let views = shared.final_views.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = String::new();
        for view in views.iter() {
            text.push_str(&view.to_string());
            text.push('\n');
        }
        std::fs::write(path, text)
            .with_context(|| format!("writing the final views to {}", path.display()))?;
    }
    let measured = Measured {
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
        server_threads,
        client_cpu,
        client_rss,
        extra_connections,
        extras_ready,
        pings,
        ping_count,
        expensive_answers,
        expensive_last,
    };
    report::print(&args, &shared, &measured);
    Ok(())
}
