//! `broadside-lab replay-flood`: what readers of a long game's replay cost a
//! bystander who plays against a bot (issue 34, "Replays cost the server").
//!
//! Against a running server: plays a long game to its end (its replay is
//! several megabytes of JSON), then a bystander plays games against a bot
//! while its bot replies are timed — first alone for `--idle-seconds`, then
//! while `--readers` readers (each from a loopback address of its own) ask
//! for that replay as fast as they are answered for `--seconds`. Reports the
//! bystander's reply p50/p99/max in both windows, the readers' answers, and
//! the server's CPU time in each window (`--server-pid`, or the local
//! process listening on `--addr`).

mod http;
mod play;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use broadside_protocol::BotLevel;
use clap::Args;
use serde_json::json;
use tokio::time::Instant;

use crate::load::process::{find_listener, process_cpu_seconds};
use http::Tally;

#[derive(Args, Debug)]
pub struct FloodArgs {
    /// The server (`HOST:PORT`, as `broadside serve --addr` prints it).
    #[arg(long)]
    pub addr: SocketAddr,
    /// Readers of the replay at once.
    #[arg(long, default_value_t = 40)]
    pub readers: usize,
    /// Length of the flood window, in seconds.
    #[arg(long, default_value_t = 20)]
    pub seconds: u64,
    /// Length of the idle window before it, in seconds.
    #[arg(long, default_value_t = 20)]
    pub idle_seconds: u64,
    /// The bystander's bot.
    #[arg(long, default_value = "medium")]
    pub level: String,
    /// Readers ask without `Accept-Encoding: gzip`.
    #[arg(long)]
    pub identity: bool,
    /// The server's process id, for its CPU time (else found by --addr).
    #[arg(long)]
    pub server_pid: Option<u32>,
}

/// The bystander's replies of one window, in milliseconds.
#[derive(Default)]
struct Replies(Vec<f64>);

impl Replies {
    fn summary(&mut self) -> serde_json::Value {
        self.0.sort_by(f64::total_cmp);
        let at = |q: f64| -> Option<f64> {
            if self.0.is_empty() {
                return None;
            }
            let index = ((self.0.len() as f64 * q).ceil() as usize).clamp(1, self.0.len()) - 1;
            Some((self.0[index] * 10.0).round() / 10.0)
        };
        json!({"replies": self.0.len(), "p50_ms": at(0.5), "p99_ms": at(0.99),
               "max_ms": self.0.last().map(|m| (m * 10.0).round() / 10.0)})
    }
}

pub fn run(args: FloodArgs) -> Result<()> {
    let level = BotLevel::from_id(&args.level)
        .with_context(|| format!("unknown bot level {:?}", args.level))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let report = runtime.block_on(flood(&args, level))?;
    println!("{report}");
    Ok(())
}

async fn flood(args: &FloodArgs, level: BotLevel) -> Result<serde_json::Value> {
    let server_pid = args.server_pid.or_else(|| find_listener(args.addr));
    let cpu = || server_pid.and_then(process_cpu_seconds);
    eprintln!("replay-flood: playing the long game on {}", args.addr);
    let started = Instant::now();
    let (game, shots) = play::long_game(args.addr).await?;
    let path = format!("/api/games/{game}");
    eprintln!(
        "replay-flood: game {game} ended after {shots} shots in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Which window a reply falls in: 0 idle, 1 flood.
    let window = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let replies = Arc::new(Mutex::new([Replies::default(), Replies::default()]));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let bystander = {
        let (window, replies) = (window.clone(), replies.clone());
        let addr = args.addr;
        tokio::spawn(async move {
            play::bystander(addr, level, stopped, move |took| {
                let at = window.load(std::sync::atomic::Ordering::Relaxed);
                replies.lock().expect("no panic holds it")[at]
                    .0
                    .push(took.as_secs_f64() * 1000.0);
            })
            .await
        })
    };

    eprintln!("replay-flood: idle window of {} s", args.idle_seconds);
    let cpu_idle_start = cpu();
    tokio::time::sleep(Duration::from_secs(args.idle_seconds)).await;
    let cpu_idle_end = cpu();

    eprintln!(
        "replay-flood: {} readers of {path} for {} s",
        args.readers, args.seconds
    );
    window.store(1, std::sync::atomic::Ordering::Relaxed);
    let until = Instant::now() + Duration::from_secs(args.seconds);
    let readers: Vec<_> = (0..args.readers)
        .map(|index| {
            tokio::spawn(http::reader(
                args.addr,
                index,
                path.clone(),
                args.identity,
                until,
            ))
        })
        .collect();
    let mut tally = Tally::default();
    for reader in readers {
        tally.add(&reader.await?);
    }
    let cpu_flood_end = cpu();
    stop.send_replace(true);
    // The bystander's game in progress ends at its next reply.
    let played = tokio::time::timeout(Duration::from_secs(30), bystander).await;
    if let Ok(Ok(Err(error))) = played {
        eprintln!("replay-flood: the bystander failed: {error:#}");
    }
    let mut replies = std::mem::take(&mut *replies.lock().expect("no panic holds it"));
    let mut latencies = Replies(std::mem::take(&mut tally.latencies_ms));
    let seconds = |from: Option<f64>, to: Option<f64>| match (from, to) {
        (Some(from), Some(to)) => Some(((to - from) * 100.0).round() / 100.0),
        _ => None,
    };
    Ok(json!({
        "game": game,
        "shots": shots,
        "readers": args.readers,
        "seconds": args.seconds,
        "level": args.level,
        "gzip": !args.identity,
        "idle": replies[0].summary(),
        "flood": replies[1].summary(),
        "answers": {"ok": tally.ok, "not_modified": tally.not_modified, "limited": tally.limited,
                    "other": tally.other, "failed": tally.failed, "bytes": tally.bytes,
                    "latency": latencies.summary()},
        "server_cpu_seconds": {"idle": seconds(cpu_idle_start, cpu_idle_end),
                               "flood": seconds(cpu_idle_end, cpu_flood_end)},
    }))
}
