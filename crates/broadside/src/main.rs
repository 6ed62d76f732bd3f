//! The `broadside` binary: thin glue that wires the subcommands to the crates.

use std::io::{self, BufReader};

use anyhow::Result;
use clap::{Parser, Subcommand};

mod aiplot;
mod bench;
mod export;
mod load;
mod play;
mod plot;
mod serve;

#[derive(Parser)]
#[command(
    name = "broadside",
    version,
    about = "Broadside: naval battles in the browser, the terminal and over a pipe"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Commands>,
}

#[derive(Subcommand)]
enum Commands {
    /// Serves the game and the web client (the default when no subcommand is given).
    Serve(serve::ServeArgs),
    /// Plays in the terminal, offline against bots or online on a server.
    Play(play::PlayArgs),
    /// Measures the bots: shots to sink a fleet and time per move.
    Bench(bench::BenchArgs),
    /// Runs one game driven by JSON lines on stdin (see REFEREE.md).
    Referee,
    /// Writes a stored game as a referee transcript (REFEREE.md JSON lines) to stdout.
    ///
    /// The first line is `new` with the game's preset, seats, seed, options and
    /// teams; then one line per accepted command, in order (moves name their
    /// seat; a timer that ran out is `timeout`). Piped into `broadside
    /// referee` it replays the game to the same state. Any stored game is exported, finished or not: an unfinished one
    /// replays to where it stands now.
    Export(export::ExportArgs),
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
    /// Draws latency against load (p50 and p99 against shots per second) as
    /// an SVG chart from the JSON lines of `broadside load --json`.
    Plot(plot::PlotArgs),
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Commands::Referee) => {
            let stdin = io::stdin();
            let stdout = io::stdout();
            broadside_referee::run(BufReader::new(stdin.lock()), stdout.lock())?;
            Ok(())
        }
        Some(Commands::Serve(args)) => serve::run(args),
        Some(Commands::Export(args)) => export::run(args),
        Some(Commands::Play(args)) => play::run(args),
        Some(Commands::Bench(args)) => bench::run(args),
        Some(Commands::Load(args)) => load::run(args),
        Some(Commands::Plot(args)) => plot::run(args),
        None => serve::run(serve::ServeArgs::default()),
    }
}
