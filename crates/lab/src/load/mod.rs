//! `broadside-lab load`: a load generator that plays many games at a person's
//! pace against a running server over real WebSockets (docs/protocol.md).
//!
//! Half the games are person against person (two connections in one room),
//! half person against an easy bot (one connection). One task drives each game
//! and all of its connections; when a game ends its players ask for a rematch,
//! so the number of running games stays constant. Every shot's latency goes
//! into an HDR histogram: for person against person from the shooter's
//! `command` frame to the `state` frame that reports the shot on the
//! opponent's connection, for person against bot from the command to the
//! shooter's own `state` answer.
//!
//! Two optional extras run beside the games: a *probe* (`--probe-ms`), one
//! connection without a room that pings the server on a fixed schedule and
//! measures the time to each `pong`, and an *attack* (`--expensive`), two
//! connections that each open a room and send a flood of `set_options`
//! frames whose fleet takes the server a costly fit check. Together they show
//! whether cheap frames stay fast while expensive ones queue up.
//!
//! The parts: [`args`] (the flags), `wire` (connections and the frames read
//! and sent), `game` (the simulated players) and `player` (one seat), `resume`
//! (rejoining after a drop and checking that acknowledged shots survive it),
//! `extras`, `probe` and `attack` (the connections beside the games), `shared`
//! (the counters and histograms every task writes), `drive` (the ramp and the
//! measured window), `report` (the JSON line or the summary) and `process`
//! (the open-files limit, the memory and CPU time of the server and of this
//! process).

pub mod args;
mod attack;
mod drive;
mod extras;
mod game;
mod player;
mod probe;
pub(crate) mod process;
mod report;
mod resume;
mod shared;
mod wire;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use broadside_engine::Preset;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::WebSocketStream;

pub use args::LoadArgs;
use attack::ATTACKERS;
use broadside_server::raise_file_limit;
use drive::drive;

/// How long an answer may take before it counts as an error (and the game
/// is started again from new connections).
const PATIENCE: Duration = Duration::from_secs(10);
/// Open files the generator needs beside its connections.
const FILES_BESIDE: u64 = 64;
/// How long a failed game waits before it connects again.
const RETRY: Duration = Duration::from_secs(1);
/// The presets whose duel is played with single `fire` commands from the
/// placement on (no shop, no volleys, one board per seat).
const PRESETS: &[Preset] = &[Preset::Classic, Preset::Hasbro, Preset::Italia];

/// Holds one unit of a gauge while alive.
struct Gauge<'a>(&'a AtomicUsize);

impl<'a> Gauge<'a> {
    fn hold(counter: &'a AtomicUsize) -> Gauge<'a> {
        counter.fetch_add(1, Ordering::Relaxed);
        Gauge(counter)
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What every game task needs to know.
struct Setup {
    /// Rejoin dropped games rather than abandon them.
    resume: bool,
    /// Record the last views at the end.
    final_views: bool,
    addr: SocketAddr,
    url: String,
    preset: Preset,
    pace: Duration,
    ws_config: WebSocketConfig,
}

/// Why a game stopped: the run is over, or something failed (already counted).
enum Stop {
    Over,
    Failed,
}

type Ws = WebSocketStream<TcpStream>;

/// Whether game `i` is person against person (else against a bot), when
/// `bot_percent` of the games are against a bot, spread evenly.
fn person_vs_person(i: usize, bot_percent: u8) -> bool {
    let share = |n: usize| n * usize::from(bot_percent) / 100;
    share(i + 1) == share(i)
}

/// The connections of `games` games: two for person against person, one
/// against a bot.
fn connections_for(games: usize, bot_percent: u8) -> usize {
    (0..games)
        .map(|i| {
            if person_vs_person(i, bot_percent) {
                2
            } else {
                1
            }
        })
        .sum()
}

/// `x` with one decimal.
fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Runs `broadside-lab load`: checks the flags, raises the open-files limit
/// and drives the run on a tokio runtime of its own.
pub fn run(args: LoadArgs) -> Result<()> {
    if args.games == 0 && args.probe_ms == 0 && args.expensive == 0 {
        bail!("--games 0 needs a probe or an attack (--probe-ms, --expensive)");
    }
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        bail!("--seconds must be a positive number");
    }
    if args.pace_ms == 0 {
        bail!("--pace-ms must be at least 1");
    }
    if let Some(ramp) = args.ramp_seconds {
        if !(ramp >= 0.0 && ramp.is_finite()) {
            bail!("--ramp-seconds must be 0 or more");
        }
    }
    if args.probe_ms > 0 && args.probe_ms < 20 {
        eprintln!(
            "warning: --probe-ms {} sends more than 50 frames a second, the server's default \
             limit: dropped pings make the probe unreliable",
            args.probe_ms
        );
    }
    if preset_named(&args.preset).is_none() {
        bail!(
            "--preset {} is not supported by the load generator (one of {})",
            args.preset,
            PRESETS
                .iter()
                .map(|p| p.id())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let addr = std::net::ToSocketAddrs::to_socket_addrs(&args.addr)
        .with_context(|| format!("resolving {}", args.addr))?
        .next()
        .ok_or_else(|| anyhow!("{} resolves to no address", args.addr))?;
    let file_limit = raise_file_limit(
        (connections_for(args.games, args.bot_percent) + extras(&args)) as u64 + FILES_BESIDE,
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let result = runtime.block_on(drive(args, addr, file_limit));
    runtime.shutdown_timeout(Duration::from_secs(2));
    result
}

/// The connections of the probe and the attack.
fn extras(args: &LoadArgs) -> usize {
    usize::from(args.probe_ms > 0) + if args.expensive > 0 { ATTACKERS } else { 0 }
}

/// The preset of this name among those the generator plays.
fn preset_named(name: &str) -> Option<Preset> {
    PRESETS.iter().copied().find(|p| p.id() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_alternate_between_two_connections_and_one() {
        assert_eq!(connections_for(10, 50), 15);
        assert_eq!(connections_for(1, 50), 2);
        assert_eq!(connections_for(3, 50), 5);
        assert!((0..7).all(|i| person_vs_person(i, 50) == (i % 2 == 0)));
        assert_eq!(connections_for(10, 0), 20, "all person against person");
        assert_eq!(connections_for(10, 100), 10, "all against a bot");
        assert_eq!(connections_for(100, 25), 175);
    }
}
