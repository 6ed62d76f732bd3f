//! How the server behaves ([`Config`], every limit with its flag in
//! docs/protocol.md), and the two plain facts every layer reads: the wall
//! clock in unix milliseconds and the client's address of a request.
//!
//! The bottom layer of the server: it uses nothing else of the crate.

use std::net::IpAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How the server behaves; tests shorten the bots' delay to zero. Every limit
/// is documented in docs/protocol.md ("Limits and timeouts") with its flag.
#[derive(Clone, Debug)]
pub struct Config {
    /// How long a bot waits before it moves, so people can follow the game.
    pub bot_delay: Duration,
    /// How long a room with no connection and no running clock stays in memory.
    pub idle_room: Duration,
    /// Open TCP connections at most, on the whole server and per client
    /// address; more are answered 503 and closed.
    pub max_connections: usize,
    pub max_per_address: usize,
    /// The share of `max_connections`, in percent, that the clients of one
    /// network (an IPv4 /24, an IPv6 /48) may hold at once, so that nobody
    /// with many addresses can fill the server and lock the others out.
    pub network_share_percent: u32,
    /// Frames one connection may send per second on average, and in a burst.
    /// Far above what a person's clicks need; a flood is refused.
    pub frames_per_second: f64,
    pub frame_burst: u32,
    /// Frames dropped for flooding (net of a few forgiven each second) before
    /// the connection is closed.
    pub flood_close: u32,
    /// Chat lines one connection may send: a burst, then this many a minute.
    pub chat_burst: u32,
    pub chat_per_minute: f64,
    /// Rooms one address may create per minute on average, and in a burst.
    pub rooms_per_minute: f64,
    pub room_burst: u32,
    /// Joins by a code that names no room, per address: a burst, then this
    /// many a minute (a sweep of codes is hopeless).
    pub unknown_codes_per_minute: f64,
    pub unknown_code_burst: u32,
    /// An HTTP request (the WebSocket upgrade included) must arrive whole
    /// within this time, and the first frame (`hello`) within `hello_timeout`.
    pub request_timeout: Duration,
    pub hello_timeout: Duration,
    /// The server pings every connection this often; one that sends nothing
    /// at all (not even the pong) for `idle_timeout` is closed.
    pub ping_interval: Duration,
    pub idle_timeout: Duration,
    /// A frame the socket cannot take within this time ends the connection.
    pub send_timeout: Duration,
    /// Frames, and bytes, waiting for a slow reader before it is closed.
    pub outbox_frames: usize,
    pub outbox_bytes: usize,
    /// Threads of the pool for CPU-heavy work, and how many jobs one client
    /// (or one room) may have waiting there.
    pub cpu_threads: usize,
    pub cpu_jobs_per_client: usize,
    /// This node's name in a cluster (unique per node; leases name it).
    pub node: String,
    /// The NATS server of a cluster (`nats://HOST:PORT`); `None` runs alone.
    pub bus: Option<String>,
    /// How long a node's hold on a room lasts unless renewed (renewed every
    /// third of it): a dead node's rooms move on within about this time.
    pub lease_ttl: Duration,
    /// Load balancers in front of this node: the client's address is read
    /// from the `X-Real-IP` header they set, and every per-client limit
    /// keys on it (the balancer's own connections count only on the
    /// server's cap).
    pub trusted_proxies: Vec<IpAddr>,
    /// Origins (`scheme://host[:port]`) besides the server's own whose pages
    /// may open its WebSocket.
    pub allowed_origins: Vec<String>,
    /// How long a quick match waits for a person before a bot is offered.
    pub match_wait: Duration,
    /// The origin players' browsers see (`https://host[:port]`), which
    /// passkeys are bound to; `None`: `http://localhost` on any port.
    pub public_origin: Option<String>,
    /// Above this scheduling lag (metrics.rs) the node refuses new rooms,
    /// quick matches and joins with `busy`, so that running games keep
    /// their pace; zero never refuses.
    pub busy_lag: Duration,
    /// After SIGTERM, how long the node goes on serving while `/readyz`
    /// answers 503 (a load balancer stops sending it people), before its
    /// rooms are handed over.
    pub drain: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bot_delay: Duration::from_millis(700),
            idle_room: Duration::from_secs(600),
            max_connections: 16_384,
            max_per_address: 64,
            network_share_percent: 10,
            frames_per_second: 50.0,
            frame_burst: 200,
            flood_close: 500,
            chat_burst: 5,
            chat_per_minute: 30.0,
            rooms_per_minute: 10.0,
            room_burst: 10,
            unknown_codes_per_minute: 10.0,
            unknown_code_burst: 20,
            request_timeout: Duration::from_secs(10),
            hello_timeout: Duration::from_secs(10),
            ping_interval: Duration::from_secs(20),
            idle_timeout: Duration::from_secs(60),
            send_timeout: Duration::from_secs(10),
            outbox_frames: 256,
            outbox_bytes: 1 << 20,
            cpu_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            cpu_jobs_per_client: 4,
            node: "local".into(),
            bus: None,
            lease_ttl: Duration::from_secs(6),
            trusted_proxies: Vec::new(),
            allowed_origins: Vec::new(),
            match_wait: Duration::from_secs(20),
            public_origin: None,
            busy_lag: Duration::from_millis(40),
            drain: Duration::ZERO,
        }
    }
}

/// Milliseconds since the unix epoch (timestamps and stored deadlines).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The client's address of every request, as its key for the limits
/// (`address::address_key`: an IPv6 client by its /64): the peer's
/// address, or behind a trusted load balancer the one it names.
#[derive(Clone, Copy, Debug)]
pub struct ClientAddr(pub IpAddr);
