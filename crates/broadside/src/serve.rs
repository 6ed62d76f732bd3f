//! `broadside serve`: the game server with the embedded web client.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use broadside_server::{Config, Db};

/// Where the database lives unless `--db` says otherwise, relative to the
/// directory the server is started in.
const DEFAULT_DB: &str = "data/broadside.sqlite";

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address and port to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// SQLite database file (created and migrated if missing) [default: data/broadside.sqlite].
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Milliseconds a bot waits before it moves.
    #[arg(long, default_value_t = 700)]
    pub bot_delay_ms: u64,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db: None,
            bot_delay_ms: 700,
        }
    }
}

pub fn run(args: ServeArgs) -> Result<()> {
    let db_path = args.db.unwrap_or_else(|| PathBuf::from(DEFAULT_DB));
    let db = Db::open(&db_path)
        .with_context(|| format!("opening the database {}", db_path.display()))?;
    let listener =
        TcpListener::bind(args.addr).with_context(|| format!("listening on {}", args.addr))?;
    let local = listener
        .local_addr()
        .context("reading the listening address")?;
    // A server on every interface is still reached from this machine as localhost.
    let shown = if local.ip().is_unspecified() {
        SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), local.port())
    } else {
        local
    };
    println!(
        "Broadside is running at http://{shown}/  (database: {}; Ctrl-C stops it)",
        db_path.display()
    );
    let config = Config {
        bot_delay: Duration::from_millis(args.bot_delay_ms),
        ..Config::default()
    };
    broadside_server::serve_until_ctrl_c(listener, db, config).context("serving")?;
    Ok(())
}
