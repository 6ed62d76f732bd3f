//! The `broadside-lab` binary: the measuring tools' subcommands.

use anyhow::Result;
use broadside_lab::{bench, flood, load, plot};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "broadside-lab",
    version,
    about = "Broadside's lab: measures the bots and the server, and draws the results"
)]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(Subcommand)]
enum Commands {
    /// Measures the bots: shots to sink a fleet and time per move.
    Bench(bench::args::BenchArgs),
    /// Loads a running server with many games played over WebSockets at a person's pace.
    ///
    /// Half the games are person against person (two connections), half person
    /// against an easy bot (one connection); a finished game is followed by a
    /// rematch. Connections are opened over the ramp, then the measured window
    /// of --seconds starts once every game is running. Latency: person against
    /// person, from the shooter's command to the state frame that reports the
    /// shot on the opponent's connection; against a bot, to the shooter's own
    /// state frame. Latencies are reported in milliseconds with one decimal
    /// (p50, p99, max over the measured window). Errors (error frames, failed
    /// connections or handshakes such as a 503, unexpected closes, answers
    /// later than 10 s) are counted from the first connection on and never
    /// stop the run; a failed game starts again on new connections.
    ///
    /// --probe-ms adds a connection that pings the server through the window
    /// (ping_p50_ms, ping_p99_ms, ping_max_ms); --expensive adds two
    /// connections that flood the server with costly set_options frames at
    /// the window's start (expensive_answers). With --games 0 only those run.
    Load(load::LoadArgs),
    /// Times a bystander's bot replies while many clients read a long game's replay.
    ///
    /// Against a running server: plays a long game (practice on a 26 x 26
    /// board, every cell a shot) to its end, then a bystander plays games
    /// against a bot, alone for --idle-seconds and then while --readers
    /// readers (each from a loopback address of its own, keep-alive HTTP,
    /// gzip unless --identity) ask for that replay as fast as they are
    /// answered for --seconds. Prints one JSON line: the bystander's reply
    /// times (from its shot to its move again) in each window, the readers'
    /// answers and the server's CPU seconds in each window.
    ReplayFlood(flood::FloodArgs),
    /// Draws latency against load (p50 and p99 against shots per second) as
    /// an SVG chart from the JSON lines of `broadside-lab load --json`.
    Plot(plot::PlotArgs),
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Commands::Bench(args) => bench::args::run(args),
        Commands::Load(args) => load::run(args),
        Commands::ReplayFlood(args) => flood::run(args),
        Commands::Plot(args) => plot::run(args),
    }
}
