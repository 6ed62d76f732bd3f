//! `broadside admin`: what the people who run a server do — read reports
//! and the log, ban and mute (the work is broadside_server::admin's).

use anyhow::{bail, Context, Result};
use broadside_server::admin::{self, Action};
use broadside_server::Db;
use clap::Subcommand;

use crate::serve::{without_password, DEFAULT_DB};

#[derive(clap::Args, Debug)]
pub struct AdminArgs {
    /// The database, as for `serve`: a SQLite file or a PostgreSQL URL
    /// [default: data/broadside.sqlite]. The servers using it follow what
    /// is done here within a second.
    #[arg(long, global = true)]
    pub db: Option<String>,
    #[command(subcommand)]
    pub command: AdminCommand,
}

#[derive(Subcommand, Debug)]
pub enum AdminCommand {
    /// The players' latest reports, newest first.
    Reports {
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// What the operators did, newest first.
    Log {
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Bans a player (an account's username, or #ID for a guest): their
    /// connections close, sign-in and play are refused.
    Ban {
        user: String,
        /// For this many days (default: for good).
        #[arg(long)]
        days: Option<u32>,
        /// Why (kept in the log).
        #[arg(long)]
        reason: String,
    },
    /// Lifts a ban.
    Unban {
        user: String,
        #[arg(long)]
        reason: String,
    },
    /// Mutes a player: their chat lines are refused.
    Mute {
        user: String,
        #[arg(long)]
        days: Option<u32>,
        #[arg(long)]
        reason: String,
    },
    /// Lifts a mute.
    Unmute {
        user: String,
        #[arg(long)]
        reason: String,
    },
}

pub fn run(args: AdminArgs) -> Result<()> {
    let spec = args.db.unwrap_or_else(|| DEFAULT_DB.to_string());
    let shown = without_password(&spec);
    if !Db::is_postgres_url(&spec) && !std::path::Path::new(&spec).is_file() {
        bail!("no database at {shown}");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let out = runtime.block_on(async {
        let db = Db::connect(&spec)
            .await
            .with_context(|| format!("opening {shown}"))?;
        let done = match args.command {
            AdminCommand::Reports { limit } => admin::reports(&db, limit).await,
            AdminCommand::Log { limit } => admin::log(&db, limit).await,
            AdminCommand::Ban { user, days, reason } => {
                admin::act(&db, &user, Action::Ban(days), &reason).await
            }
            AdminCommand::Unban { user, reason } => {
                admin::act(&db, &user, Action::Unban, &reason).await
            }
            AdminCommand::Mute { user, days, reason } => {
                admin::act(&db, &user, Action::Mute(days), &reason).await
            }
            AdminCommand::Unmute { user, reason } => {
                admin::act(&db, &user, Action::Unmute, &reason).await
            }
        };
        anyhow::Ok(done?)
    })?;
    print!("{out}");
    if !out.ends_with('\n') {
        println!();
    }
    Ok(())
}
