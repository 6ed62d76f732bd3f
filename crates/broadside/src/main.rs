//! The `broadside` binary: thin glue that wires the subcommands to the crates.
//! The measuring tools (bench, load, plot) are the `broadside-lab` binary of
//! crates/lab.

use std::io::{self, BufReader};

use anyhow::Result;
use clap::{Parser, Subcommand};

mod admin;
mod export;
mod play;
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
    Serve(Box<serve::ServeArgs>),
    /// Plays in the terminal, offline against bots or online on a server.
    Play(play::PlayArgs),
    /// Runs one game driven by JSON lines on stdin (see docs/referee.md).
    Referee,
    /// Writes a stored game as a referee transcript (docs/referee.md JSON lines) to stdout.
    ///
    /// The first line is `new` with the game's preset, seats, seed, options and
    /// teams; then one line per accepted command, in order (moves name their
    /// seat; a timer that ran out is `timeout`). Piped into `broadside
    /// referee` it replays the game to the same state. Any stored game is exported, finished or not: an unfinished one
    /// replays to where it stands now.
    Export(export::ExportArgs),
    /// For the people who run the server: reports, the log, ban and mute.
    Admin(admin::AdminArgs),
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
        Some(Commands::Serve(args)) => serve::run(*args),
        Some(Commands::Export(args)) => export::run(args),
        Some(Commands::Play(args)) => play::run(args),
        Some(Commands::Admin(args)) => admin::run(args),
        None => serve::run(serve::ServeArgs::default()),
    }
}
