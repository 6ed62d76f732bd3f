//! The flags of `broadside-lab load`.

#[derive(clap::Args, Debug)]
pub struct LoadArgs {
    /// The running server to load, as HOST:PORT.
    #[arg(long)]
    pub addr: String,
    /// Games kept running at once: person against person (two connections)
    /// or person against an easy bot (one), mixed by --bot-percent. 0 runs
    /// only the probe and the attack (--probe-ms, --expensive).
    #[arg(long)]
    pub games: usize,
    /// Percentage of the games played against a bot, spread evenly (50: every
    /// second game; 0: every game person against person).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub bot_percent: u8,
    /// Length of the measured window in seconds; it starts once every game is
    /// running.
    #[arg(long)]
    pub seconds: f64,
    /// Milliseconds between two moves of one seat, drawn uniformly within ±50%.
    #[arg(long, default_value_t = 2000)]
    pub pace_ms: u64,
    /// Seconds over which the connections are opened [default: about 500
    /// connections a second].
    #[arg(long)]
    pub ramp_seconds: Option<f64>,
    /// The preset of every room (classic, hasbro or italia).
    #[arg(long, default_value = "classic")]
    pub preset: String,
    /// The server's process id, for its memory and CPU time [default: the
    /// local process that listens on the port, if any].
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Milliseconds between the pings of one extra probe connection (hello,
    /// no room) during the measured window; the time from each `ping` to its
    /// `pong` is reported as ping_p50_ms, ping_p99_ms, ping_max_ms. Pings go
    /// out on a fixed schedule, whether or not the last pong is back. 0: no
    /// probe. Below 20 the server's default frame limit (50 a second) drops
    /// pings.
    #[arg(long, default_value_t = 0)]
    pub probe_ms: u64,
    /// At the start of the measured window, two extra connections each create
    /// a classic room and send this many `set_options` frames as fast as they
    /// can, each asking for a fleet that takes the server a costly fit check
    /// (40 ships of 7 cells on 26×26). Their answers (room frames or errors
    /// such as fleet_does_not_fit or rate_limited) are counted as
    /// expensive_answers, not as errors. 0: no attack.
    #[arg(long, default_value_t = 0)]
    pub expensive: usize,
    /// Print one JSON object as the last line of stdout instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// When a connection drops (its node died, the server restarted), connect
    /// again with the same token, rejoin the same game and play on, instead of
    /// abandoning it; every state after that is checked to still hold every
    /// shot acknowledged before (lost_acknowledged counts those missing).
    #[arg(long)]
    pub resume: bool,
    /// At the end, write every seat's last view as JSON lines to this file
    /// (room code, token, seat, phase, boards), after waiting for the answers
    /// of the moves in flight, so that a server can be checked against it.
    #[arg(long)]
    pub final_views: Option<std::path::PathBuf>,
}
