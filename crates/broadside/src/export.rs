//! `broadside export`: a stored game as a referee transcript (docs/referee.md),
//! which `broadside referee` replays to the same state.

use std::io::{BufWriter, Write};

use anyhow::{bail, Context, Result};
use broadside_server::Db;

use crate::serve::{without_password, DEFAULT_DB};

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The game's id (the number in its replay link, /g/ID).
    pub id: i64,
    /// The database, as for `serve`: a SQLite file or a PostgreSQL URL,
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DB [default: data/broadside.sqlite].
    #[arg(long)]
    pub db: Option<String>,
}

pub fn run(args: ExportArgs) -> Result<()> {
    let spec = args.db.unwrap_or_else(|| DEFAULT_DB.to_string());
    let shown = without_password(&spec);
    // Opening a SQLite file that is not there would make an empty database.
    if !Db::is_postgres_url(&spec) && !std::path::Path::new(&spec).is_file() {
        bail!("no database at {shown}");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let stored = runtime.block_on(async {
        let db = Db::connect(&spec)
            .await
            .with_context(|| format!("opening {shown}"))?;
        db.load_game(args.id)
            .await
            .with_context(|| format!("reading game {} from {shown}", args.id))
    })?;
    let Some(stored) = stored else {
        bail!("{shown} holds no game {}", args.id);
    };
    // Read back as every reader of a stored game does (the server's
    // `stored::replay`): a log the engine no longer accepts is refused here,
    // not handed to the referee.
    let mut lines = Vec::with_capacity(stored.commands.len() + 1);
    broadside_server::replay(&stored.setup, &stored.commands, |step| {
        lines.push(match step.command {
            None => broadside_referee::new_line(step.setup),
            Some((_, command)) => {
                broadside_referee::command_line(command, step.setup.preset.mode())
            }
        });
    })
    .with_context(|| format!("game {} does not replay", stored.id))?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in lines {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}
