//! `broadside play`: the terminal client (crates/tui), offline against bots or
//! online in a room of `broadside serve`.

use std::path::PathBuf;

use anyhow::{bail, Result};

#[derive(clap::Args, Debug, Default)]
pub struct PlayArgs {
    /// Play online on this server (e.g. http://localhost:8080); without --room a
    /// new room is created.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// The code of the room to join on --server.
    #[arg(long, value_name = "CODE", requires = "server")]
    pub room: Option<String>,
    /// Sign this terminal in to your account on --server: it shows a code
    /// to approve in a browser where you are signed in (👤 → Approve a
    /// device). The terminal stays signed in on later runs.
    #[arg(long, requires = "server", conflicts_with = "room")]
    pub login: bool,
    /// Continue a saved game at once.
    #[arg(long, value_name = "FILE", conflicts_with = "server")]
    pub load: Option<PathBuf>,
    /// Your nickname online, remembered for next time [default: the last
    /// one given, else $USER].
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Where to keep the session token that lets `--room CODE` resume your
    /// seat later [default: broadside/token in the user's config directory].
    /// A second terminal running at the same time keeps its own beside it
    /// (FILE.2, …), so it never takes over the first one's seat.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The language of the terminal: pt-PT, pt-BR, es, it or en [default: the
    /// locale's, from LC_ALL, LC_MESSAGES or LANG (pt_BR is pt-BR, any other pt
    /// is pt-PT), else English].
    #[arg(long, value_name = "LANG", value_parser = parse_lang)]
    pub lang: Option<broadside_tui::Lang>,
    /// Offline, N people (2 to 6) on this one terminal, passing it between
    /// turns; a hand-over screen hides every board in between.
    #[arg(long, value_name = "N", conflicts_with = "server", value_parser = clap::value_parser!(u8).range(2..=6))]
    pub hot_seat: Option<u8>,
    /// A fixed seed for new offline games (for reproducible games and tests).
    #[arg(long, value_name = "N", hide = true)]
    pub seed: Option<u64>,
}

pub fn run(args: PlayArgs) -> Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        bail!("broadside play needs a terminal (for a machine interface, see `broadside referee`)");
    }
    if let Some(server) = &args.server {
        broadside_tui::endpoint(server)?;
    }
    let config = broadside_tui::Config {
        server: args.server,
        room: args.room,
        load: args.load,
        nickname: broadside_tui::remembered_name(
            config_dir().map(|dir| dir.join("name")).as_deref(),
            args.name,
        )
        .or_else(|| std::env::var("USER").ok()),
        seed: args.seed,
        hot_seat: args.hot_seat.map(usize::from),
        login: args.login,
        token_file: args.token_file.or_else(default_token_file),
        lang: args.lang.unwrap_or_else(|| {
            broadside_tui::Lang::from_environment(|name| std::env::var(name).ok())
        }),
    };
    broadside_tui::run(config)?;
    Ok(())
}

/// A language named by `--lang`.
fn parse_lang(name: &str) -> Result<broadside_tui::Lang, String> {
    broadside_tui::Lang::parse(name).ok_or_else(|| {
        let known: Vec<&str> = broadside_tui::Lang::ALL.iter().map(|l| l.id()).collect();
        format!(
            "unknown language '{name}': choose one of {}",
            known.join(", ")
        )
    })
}

/// `$XDG_CONFIG_HOME/broadside/token`, else `$HOME/.config/broadside/token`.
fn default_token_file() -> Option<PathBuf> {
    Some(config_dir()?.join("token"))
}

/// `$XDG_CONFIG_HOME/broadside`, else `$HOME/.config/broadside`: where the
/// terminal keeps its token and the nickname last given.
fn config_dir() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| PathBuf::from(home).join(".config"))
        })?;
    Some(config.join("broadside"))
}
