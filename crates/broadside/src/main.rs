//! The `broadside` binary: thin glue that wires the subcommands to the crates.

use std::io::{self, BufReader};

use anyhow::Result;
use clap::{Parser, Subcommand};

mod bench;
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
    Serve(serve::ServeArgs),
    /// Plays in the terminal, offline against bots or online on a server.
    Play(play::PlayArgs),
    /// Measures the bots: shots to sink a fleet and time per move.
    Bench(bench::BenchArgs),
    /// Runs one game driven by JSON lines on stdin (see REFEREE.md).
    Referee,
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
        Some(Commands::Play(args)) => play::run(args),
        Some(Commands::Bench(args)) => bench::run(args),
        None => serve::run(serve::ServeArgs::default()),
    }
}
