//! `broadside serve`: the game server with the embedded web client.

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use anyhow::{Context, Result};
use broadside_server::{Config, Db};

/// Where the database lives unless `--db` says otherwise, relative to the
/// directory the server is started in.
pub(crate) const DEFAULT_DB: &str = "data/broadside.sqlite";

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address and port to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The database: a SQLite file (created and migrated if missing) or a
    /// PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DB, which the
    /// nodes of a cluster share [default: data/broadside.sqlite].
    #[arg(long)]
    pub db: Option<String>,
    /// The NATS server of a cluster, nats://HOST:PORT: rooms owned by other
    /// nodes are reached through it. Needs --db postgres://… and --node.
    #[arg(long)]
    pub bus: Option<String>,
    /// This node's name, unique in the cluster (letters, digits, - and _).
    #[arg(long, default_value = "local")]
    pub node: String,
    /// Seconds a node's hold on a room lasts unless renewed: a dead node's
    /// rooms move to a live node within about this time.
    #[arg(long, default_value_t = Config::default().lease_ttl.as_secs())]
    pub lease_secs: u64,
    /// A load balancer in front of this node (repeat for several): it names
    /// the client in X-Real-IP, and every per-client limit keys on that.
    #[arg(long = "trusted-proxy")]
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// An origin, scheme://host[:port], whose pages may open the WebSocket
    /// besides the server's own (repeat for several).
    #[arg(long = "allow-origin")]
    pub allowed_origins: Vec<String>,
    /// The address players open, https://host[:port]: passkeys (accounts)
    /// are bound to it. Without it, passkeys work at http://localhost on
    /// any port (not at a bare IP address).
    #[arg(long)]
    pub public_origin: Option<String>,
    /// Seconds a quick match waits for a person before a bot is offered.
    #[arg(long, default_value_t = Config::default().match_wait.as_secs())]
    pub match_wait_secs: u64,
    /// Milliseconds a bot waits before it moves.
    #[arg(long, default_value_t = 700)]
    pub bot_delay_ms: u64,
    /// Above this scheduling lag, in milliseconds, new rooms, quick matches
    /// and joins are refused with `busy` (running games go on); 0 never
    /// refuses.
    #[arg(long, default_value_t = Config::default().busy_lag.as_millis() as u64)]
    pub busy_lag_ms: u64,
    /// After SIGTERM, milliseconds the node keeps serving with /readyz
    /// answering 503, before it hands its rooms over.
    #[arg(long, default_value_t = Config::default().drain.as_millis() as u64)]
    pub drain_ms: u64,
    /// How log lines are written to stderr: `text` for people, `json` (one
    /// object per line) for a log collector. Which lines: the RUST_LOG
    /// variable (e.g. `broadside_server=debug`), `info` by default.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The form of the server's log lines.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Starts writing log lines to stderr in `format`, filtered by RUST_LOG
/// (`info` when unset). Lines logged inside a room carry its span: the room's
/// code, its current game and the node.
pub(crate) fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    // A second start (tests run several servers in one process) keeps the first.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// The server's limits and timeouts (docs/protocol.md, "Limits and timeouts").
#[derive(clap::Args, Debug)]
pub struct LimitArgs {
    /// Open TCP connections at most on the whole server (more get 503).
    #[arg(long, default_value_t = Config::default().max_connections)]
    pub max_connections: usize,
    /// Open TCP connections at most from one client address (IPv6: one /64).
    #[arg(long, default_value_t = Config::default().max_per_address)]
    pub max_per_address: usize,
    /// The share of --max-connections, in percent, that one network (an IPv4
    /// /24, an IPv6 /48) may hold.
    #[arg(long, default_value_t = Config::default().network_share_percent,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub network_share_percent: u32,
    /// Frames per second one connection may send on average.
    #[arg(long, default_value_t = Config::default().frames_per_second)]
    pub frames_per_second: f64,
    /// Frames one connection may send in a burst.
    #[arg(long, default_value_t = Config::default().frame_burst)]
    pub frame_burst: u32,
    /// Frames dropped for flooding (10 a second forgiven) before the connection is closed.
    #[arg(long, default_value_t = Config::default().flood_close)]
    pub flood_close: u32,
    /// Chat lines per minute from one connection, on average.
    #[arg(long, default_value_t = Config::default().chat_per_minute)]
    pub chat_per_minute: f64,
    /// Chat lines from one connection in a burst.
    #[arg(long, default_value_t = Config::default().chat_burst)]
    pub chat_burst: u32,
    /// New rooms per minute from one address, on average.
    #[arg(long, default_value_t = Config::default().rooms_per_minute)]
    pub rooms_per_minute: f64,
    /// New rooms from one address in a burst.
    #[arg(long, default_value_t = Config::default().room_burst)]
    pub room_burst: u32,
    /// Joins by unknown room codes per minute from one address, on average.
    #[arg(long, default_value_t = Config::default().unknown_codes_per_minute)]
    pub unknown_codes_per_minute: f64,
    /// Joins by unknown room codes from one address in a burst.
    #[arg(long, default_value_t = Config::default().unknown_code_burst)]
    pub unknown_code_burst: u32,
    /// Seconds an HTTP request (the WebSocket upgrade too) may take to arrive.
    #[arg(long, default_value_t = Config::default().request_timeout.as_secs())]
    pub request_timeout_secs: u64,
    /// Seconds a new WebSocket connection has to send hello.
    #[arg(long, default_value_t = Config::default().hello_timeout.as_secs())]
    pub hello_timeout_secs: u64,
    /// Seconds between the server's pings.
    #[arg(long, default_value_t = Config::default().ping_interval.as_secs())]
    pub ping_interval_secs: u64,
    /// Seconds without any frame (pongs count) before a connection is closed.
    #[arg(long, default_value_t = Config::default().idle_timeout.as_secs())]
    pub idle_timeout_secs: u64,
    /// Seconds a frame may wait for the socket to take it.
    #[arg(long, default_value_t = Config::default().send_timeout.as_secs())]
    pub send_timeout_secs: u64,
    /// Frames waiting for a slow reader before it is closed.
    #[arg(long, default_value_t = Config::default().outbox_frames)]
    pub outbox_frames: usize,
    /// Bytes waiting for a slow reader before it is closed.
    #[arg(long, default_value_t = Config::default().outbox_bytes)]
    pub outbox_bytes: usize,
    /// Threads for CPU-heavy work (bots, fit checks, random layouts) [default: one per core].
    #[arg(long)]
    pub cpu_threads: Option<usize>,
    /// Jobs one client address (or one room) may have waiting for those threads.
    #[arg(long, default_value_t = Config::default().cpu_jobs_per_client)]
    pub cpu_jobs_per_client: usize,
}

impl Default for LimitArgs {
    fn default() -> Self {
        let config = Config::default();
        LimitArgs {
            max_connections: config.max_connections,
            max_per_address: config.max_per_address,
            network_share_percent: config.network_share_percent,
            frames_per_second: config.frames_per_second,
            frame_burst: config.frame_burst,
            flood_close: config.flood_close,
            chat_per_minute: config.chat_per_minute,
            chat_burst: config.chat_burst,
            rooms_per_minute: config.rooms_per_minute,
            room_burst: config.room_burst,
            unknown_codes_per_minute: config.unknown_codes_per_minute,
            unknown_code_burst: config.unknown_code_burst,
            request_timeout_secs: config.request_timeout.as_secs(),
            hello_timeout_secs: config.hello_timeout.as_secs(),
            ping_interval_secs: config.ping_interval.as_secs(),
            idle_timeout_secs: config.idle_timeout.as_secs(),
            send_timeout_secs: config.send_timeout.as_secs(),
            outbox_frames: config.outbox_frames,
            outbox_bytes: config.outbox_bytes,
            cpu_threads: None,
            cpu_jobs_per_client: config.cpu_jobs_per_client,
        }
    }
}

impl LimitArgs {
    fn apply(&self, config: Config) -> Config {
        let secs = Duration::from_secs;
        Config {
            max_connections: self.max_connections,
            max_per_address: self.max_per_address,
            network_share_percent: self.network_share_percent,
            frames_per_second: self.frames_per_second,
            frame_burst: self.frame_burst,
            flood_close: self.flood_close,
            chat_per_minute: self.chat_per_minute,
            chat_burst: self.chat_burst,
            rooms_per_minute: self.rooms_per_minute,
            room_burst: self.room_burst,
            unknown_codes_per_minute: self.unknown_codes_per_minute,
            unknown_code_burst: self.unknown_code_burst,
            request_timeout: secs(self.request_timeout_secs),
            hello_timeout: secs(self.hello_timeout_secs),
            ping_interval: secs(self.ping_interval_secs.max(1)),
            idle_timeout: secs(self.idle_timeout_secs),
            send_timeout: secs(self.send_timeout_secs),
            outbox_frames: self.outbox_frames,
            outbox_bytes: self.outbox_bytes,
            cpu_threads: self.cpu_threads.unwrap_or(config.cpu_threads),
            cpu_jobs_per_client: self.cpu_jobs_per_client,
            ..config
        }
    }
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db: None,
            bus: None,
            node: "local".into(),
            lease_secs: Config::default().lease_ttl.as_secs(),
            trusted_proxies: Vec::new(),
            allowed_origins: Vec::new(),
            public_origin: None,
            match_wait_secs: Config::default().match_wait.as_secs(),
            bot_delay_ms: 700,
            busy_lag_ms: Config::default().busy_lag.as_millis() as u64,
            drain_ms: Config::default().drain.as_millis() as u64,
            log_format: LogFormat::Text,
            limits: LimitArgs::default(),
        }
    }
}

pub fn run(args: ServeArgs) -> Result<()> {
    init_logging(args.log_format);
    let db = args.db.unwrap_or_else(|| DEFAULT_DB.to_string());
    let postgres = Db::is_postgres_url(&db);
    if args.bus.is_some() && !postgres {
        anyhow::bail!("--bus needs a database the nodes share: --db postgres://…");
    }
    if !broadside_server::valid_node_name(&args.node) {
        anyhow::bail!("--node: use 1 to 64 letters, digits, - and _");
    }
    let listener =
        TcpListener::bind(args.addr).with_context(|| format!("listening on {}", args.addr))?;
    let local = listener
        .local_addr()
        .context("reading the listening address")?;
    // A server on every interface, or on loopback, is reached from this
    // machine as localhost (where browsers allow passkeys without TLS).
    let shown = if local.ip().is_unspecified() || local.ip().is_loopback() {
        format!("localhost:{}", local.port())
    } else {
        local.to_string()
    };
    let cluster = match &args.bus {
        Some(bus) => format!("; node {} on {bus}", args.node),
        None => String::new(),
    };
    println!(
        "Broadside is running at http://{shown}/  (database: {}{cluster}; Ctrl-C stops it)",
        without_password(&db)
    );
    let config = args.limits.apply(Config {
        bot_delay: Duration::from_millis(args.bot_delay_ms),
        node: args.node,
        bus: args.bus,
        lease_ttl: Duration::from_secs(args.lease_secs.max(1)),
        trusted_proxies: args.trusted_proxies,
        allowed_origins: args.allowed_origins,
        public_origin: args.public_origin,
        match_wait: Duration::from_secs(args.match_wait_secs),
        busy_lag: Duration::from_millis(args.busy_lag_ms),
        drain: Duration::from_millis(args.drain_ms),
        ..Config::default()
    });
    // Every connection is a file; the database, the listener and the pool need
    // a few more.
    let wanted = config.max_connections as u64 + 256;
    match broadside_server::raise_file_limit(wanted) {
        Some(limit) if limit < wanted => tracing::warn!(
            limit,
            connections = config.max_connections,
            "open files are limited below the connections allowed"
        ),
        _ => {}
    }
    broadside_server::serve_until_ctrl_c(listener, &db, config).context("serving")?;
    Ok(())
}

/// A database URL as it may be shown: without its password.
pub(crate) fn without_password(spec: &str) -> String {
    let Some((scheme, rest)) = spec.split_once("://") else {
        return spec.to_string();
    };
    match rest.split_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{name}:***@{host}")
        }
        _ => spec.to_string(),
    }
}
