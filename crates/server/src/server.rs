//! The server: HTTP routes, the registry of rooms, start-up restore and
//! graceful shutdown.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{header, Request, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tower_service::Service;

use crate::cluster::{Cluster, Conns, Link};
use crate::cpu::CpuPool;
use crate::db::{Db, DbError};
use crate::limits::{AddressLimits, Addresses, Full, Slot};
use crate::protocol::MAX_FRAME_BYTES;
use crate::room::{Room, RoomMsg};
use crate::{assets, connection};

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
    /// Frames one connection may send per second on average, and in a burst.
    /// Far above what a person's clicks need; a flood is refused.
    pub frames_per_second: f64,
    pub frame_burst: u32,
    /// Frames dropped for flooding (net of a few forgiven each second) before
    /// the connection is closed.
    pub flood_close: u32,
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
    /// Load balancers in front of this node: their connections have no
    /// per-address cap, and the client's address is read from the
    /// `X-Real-IP` header they set (for the per-address limits).
    pub trusted_proxies: Vec<IpAddr>,
    /// How long a quick match waits for a person before a bot is offered.
    pub match_wait: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bot_delay: Duration::from_millis(700),
            idle_room: Duration::from_secs(600),
            max_connections: 16_384,
            max_per_address: 64,
            frames_per_second: 50.0,
            frame_burst: 200,
            flood_close: 500,
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
            match_wait: Duration::from_secs(20),
        }
    }
}

/// A failure that stops the server.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("network: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("the bus: {0}")]
    Bus(String),
}

/// Messages a room's actor may queue before senders wait.
const ROOM_INBOX: usize = 256;

/// What every task of the server shares.
pub struct Shared {
    pub db: Db,
    pub config: Config,
    /// The pool for CPU-heavy work.
    pub cpu: CpuPool,
    /// Connections and buckets per client address.
    pub addresses: Arc<Addresses>,
    /// The actor of every room in memory, by code. An async lock: it is held
    /// while a stored room is loaded, so two joins cannot start two actors.
    rooms: tokio::sync::Mutex<HashMap<String, mpsc::Sender<RoomMsg>>>,
    shutdown: watch::Receiver<bool>,
    /// Each task holds a clone while it runs; shutdown waits until all are gone.
    /// Taken (set to `None`) at shutdown so that the wait can end.
    alive: Mutex<Option<mpsc::Sender<()>>>,
    next_conn: AtomicU64,
    /// The bus of a cluster, if this node is one.
    pub cluster: Option<Arc<Cluster>>,
    /// This node's connections (frames from other nodes find them here).
    pub conns: Conns,
}

impl Shared {
    pub fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.shutdown.clone()
    }

    /// A token that keeps shutdown waiting while a task runs.
    pub fn alive_token(&self) -> Option<mpsc::Sender<()>> {
        self.alive.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Starts the actor of a new room and registers it.
    pub async fn spawn_room(
        self: &Arc<Self>,
        code: String,
        room: Room,
    ) -> Result<mpsc::Sender<RoomMsg>, DbError> {
        let mut rooms = self.rooms.lock().await;
        self.start_actor(&mut rooms, code, room).await
    }

    /// Starts a room's actor (and, in a cluster, its door for remote members)
    /// and registers it; the registry's lock is held, so nobody else starts
    /// this room meanwhile.
    async fn start_actor(
        self: &Arc<Self>,
        rooms: &mut HashMap<String, mpsc::Sender<RoomMsg>>,
        code: String,
        room: Room,
    ) -> Result<mpsc::Sender<RoomMsg>, DbError> {
        let (sender, inbox) = mpsc::channel(ROOM_INBOX);
        let door =
            match &self.cluster {
                Some(cluster) => Some(cluster.serve_room(&code, sender.clone()).await.map_err(
                    |e| DbError::Postgres(format!("cannot open the room on the bus: {e}")),
                )?),
                None => None,
            };
        rooms.insert(code.clone(), sender.clone());
        let shutdown = self.shutdown_signal();
        let alive = self.alive_token();
        let me = sender.downgrade();
        tokio::spawn(async move {
            room.run(inbox, me, shutdown).await;
            if let Some(door) = door {
                door.abort();
            }
            drop(alive);
        });
        if let Some(cluster) = &self.cluster {
            cluster.announce_owner(&code, Some(cluster.node())).await;
        }
        Ok(sender)
    }

    /// Forgets an idle room's actor, if it is still the registered one.
    pub async fn retire_room(&self, code: &str, actor: &mpsc::WeakSender<RoomMsg>) {
        let mut rooms = self.rooms.lock().await;
        let registered = rooms
            .get(code)
            .is_some_and(|sender| actor.upgrade().is_some_and(|a| a.same_channel(sender)));
        if registered {
            rooms.remove(code);
        }
    }

    /// Where a room lives: its actor on this node (in memory, or brought back
    /// from the database after taking its lease), or the node that holds its
    /// lease. `None` if no room has this code.
    pub async fn room(self: &Arc<Self>, code: &str) -> Result<Option<Link>, DbError> {
        let config = &self.config;
        // Another node may be taking the room at this very moment: look again.
        for _ in 0..3 {
            let mut rooms = self.rooms.lock().await;
            if let Some(sender) = rooms.get(code) {
                if !sender.is_closed() {
                    return Ok(Some(Link::Local(sender.clone())));
                }
            }
            if self.db.is_shared() {
                if let Some(owner) = self.db.owner(code.to_string()).await? {
                    if owner.live && owner.node != config.node {
                        if self.cluster.is_none() {
                            return Err(DbError::Postgres(format!(
                                "room {code} is owned by node {}, and this node has no bus to reach it",
                                owner.node
                            )));
                        }
                        return Ok(Some(Link::Remote { node: owner.node }));
                    }
                }
            }
            if *self.shutdown.borrow() {
                // A node that is stopping takes no rooms.
                return Err(DbError::Closed);
            }
            let Some(lease) = self
                .db
                .acquire(code.to_string(), &config.node, config.lease_ttl)
                .await?
            else {
                if self.db.owner(code.to_string()).await?.is_none() {
                    return Ok(None);
                }
                continue;
            };
            let Some((record, game)) = self.db.load_room(code.to_string()).await? else {
                let _ = self.db.release(&lease, false).await;
                return Ok(None);
            };
            let room = match Room::restore(self.clone(), record, game, lease.clone()).await {
                Ok(room) => room,
                Err(error) => {
                    let _ = self.db.release(&lease, false).await;
                    return Err(DbError::Corrupt(error.to_string()));
                }
            };
            let sender = self.start_actor(&mut rooms, code.to_string(), room).await?;
            return Ok(Some(Link::Local(sender)));
        }
        Err(DbError::Postgres(format!(
            "room {code} changes hands too often; try again"
        )))
    }
}

/// Milliseconds since the unix epoch (timestamps and stored deadlines).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The client's address, as the accept loop saw it, for every request.
#[derive(Clone, Copy, Debug)]
pub struct ClientAddr(pub IpAddr);

/// Serves Broadside on `listener` until `shutdown` completes: restores every
/// unfinished game from `db`, then answers HTTP and WebSocket requests. Returns
/// once every connection and room task has stopped.
pub async fn run(
    listener: TcpListener,
    db: Db,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let (stop, shutdown_signal) = watch::channel(false);
    let (alive, mut all_stopped) = mpsc::channel::<()>(1);
    let addresses = Addresses::new(AddressLimits {
        max_connections: config.max_connections,
        max_per_address: config.max_per_address,
        unknown_code_burst: config.unknown_code_burst,
        unknown_codes_per_minute: config.unknown_codes_per_minute,
        room_burst: config.room_burst,
        rooms_per_minute: config.rooms_per_minute,
    });
    if (config.bus.is_some() || db.is_shared()) && !crate::cluster::valid_node_name(&config.node) {
        return Err(ServerError::Bus(format!(
            "the node name {:?} is not usable: 1 to 64 letters, digits, - and _",
            config.node
        )));
    }
    let cluster = match &config.bus {
        Some(url) => Some(
            Cluster::connect(url, &config.node)
                .await
                .map_err(|e| ServerError::Bus(e.to_string()))?,
        ),
        None => None,
    };
    // Connection ids name members in rooms that several nodes' connections
    // share: a random high half keeps each node's ids apart.
    let first_conn = (crate::secret::new_seed().unwrap_or(0) >> 32) << 32 | 1;
    let shared = Arc::new(Shared {
        db,
        cluster,
        conns: Conns::default(),
        cpu: CpuPool::new(config.cpu_threads, config.cpu_jobs_per_client),
        config,
        addresses,
        rooms: tokio::sync::Mutex::new(HashMap::new()),
        shutdown: shutdown_signal,
        alive: Mutex::new(Some(alive)),
        next_conn: AtomicU64::new(first_conn),
    });
    if let Some(cluster) = &shared.cluster {
        cluster
            .clone()
            .serve_node(Arc::downgrade(&shared))
            .await
            .map_err(|e| ServerError::Bus(e.to_string()))?;
    }
    // Whoever waited for a quick match on this node before it (re)started is
    // gone with their connection.
    shared.db.clear_queue(shared.config.node.clone()).await?;
    if shared.db.is_shared() {
        // Rooms whose owner died (or handed them over) are taken by whichever
        // node sees them first.
        tokio::spawn(take_over_rooms(Arc::downgrade(&shared)));
    } else {
        restore_running(&shared).await?;
    }
    let app = Router::new()
        .route("/ws", get(upgrade))
        .route("/", get(index))
        .route("/healthz", get(|| async { "ok" }))
        .route("/r/{code}", get(index))
        .route("/g/{id}", get(index))
        .route("/api/games/{id}", get(crate::replay::game))
        .fallback(get(static_file))
        .with_state(shared.clone());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors or a connection reset before it
                    // was accepted: wait a moment rather than spin.
                    if !matches!(error.kind(), std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset) {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let proxy = shared.config.trusted_proxies.contains(&peer.ip());
        match shared.addresses.admit(peer.ip(), proxy) {
            Ok(slot) => serve_connection(&shared, &app, tcp, slot),
            Err(full) => {
                tokio::spawn(refuse_connection(tcp, full));
            }
        }
    }
    // Connections and rooms watch this.
    let _ = stop.send(true);
    shared
        .alive
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    drop(shared);
    // Every task drops its token when it ends; `None` means all have ended. The
    // bound only matters if a peer stops reading mid-frame.
    let _ = tokio::time::timeout(Duration::from_secs(5), all_stopped.recv()).await;
    Ok(())
}

/// A TCP connection that holds its place among the open connections (per
/// address and on the server) until it is dropped — whether it stays HTTP or
/// becomes a WebSocket.
struct Counted {
    tcp: TcpStream,
    _slot: Slot,
}

impl tokio::io::AsyncRead for Counted {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Counted {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

/// Serves HTTP on one accepted connection: the request must arrive whole within
/// `request_timeout`, and the connection is kept for a WebSocket upgrade.
fn serve_connection(shared: &Arc<Shared>, app: &Router, tcp: TcpStream, slot: Slot) {
    // Frames are small and answer a person's click: send them at once rather
    // than wait for Nagle's algorithm to batch them with an acknowledgement.
    let _ = tcp.set_nodelay(true);
    let peer = slot.ip();
    let proxy = shared.config.trusted_proxies.contains(&peer);
    let io = TokioIo::new(Counted { tcp, _slot: slot });
    let app = app.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        // Behind a trusted load balancer the client is the one it names.
        let client = proxy
            .then(|| request.headers().get("x-real-ip"))
            .flatten()
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<IpAddr>().ok())
            .unwrap_or(peer);
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(ClientAddr(client));
        let mut app = app.clone();
        async move { app.call(request).await }
    });
    let request_timeout = shared.config.request_timeout;
    let mut shutdown = shared.shutdown_signal();
    let alive = shared.alive_token();
    tokio::spawn(async move {
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(request_timeout);
        let connection = builder.serve_connection(io, service).with_upgrades();
        let mut connection = std::pin::pin!(connection);
        tokio::select! {
            _ = connection.as_mut() => {}
            _ = shutdown.changed() => {
                connection.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(Duration::from_secs(5), connection).await;
            }
        }
        drop(alive);
    });
}

/// Answers a connection over a limit with 503 and closes it.
async fn refuse_connection(mut tcp: TcpStream, full: Full) {
    use tokio::io::AsyncWriteExt;
    let body = match full {
        Full::Server => "the server has too many connections; try again later\n",
        Full::Address => "too many connections from your address; close some and try again\n",
    };
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         content-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        tcp.write_all(response.as_bytes()).await?;
        tcp.shutdown().await
    })
    .await;
}

/// Brings back every room whose game runs, so its timers and bots go on even
/// before anybody reconnects.
async fn restore_running(shared: &Arc<Shared>) -> Result<(), ServerError> {
    for code in shared.db.running_rooms().await? {
        // One unreadable room must not keep every other game from resuming.
        if let Err(error) = shared.room(&code).await {
            eprintln!("broadside: room {code} could not be restored: {error}");
        }
    }
    Ok(())
}

/// Rooms a node takes over at most per look.
const TAKE_OVER_BATCH: usize = 32;

/// In a cluster (or on PostgreSQL): every second or so, takes the rooms
/// whose lease has expired — their owner died, stalled or handed them over —
/// and restores them here, timers and bots included. Several nodes may look
/// at once; the lease lets exactly one of them have each room.
async fn take_over_rooms(shared: std::sync::Weak<Shared>) {
    loop {
        let pause = Duration::from_millis(700 + crate::secret::new_seed().unwrap_or(0) % 600);
        tokio::time::sleep(pause).await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        if *shared.shutdown.borrow() {
            return;
        }
        let codes = match shared.db.expired_leases(TAKE_OVER_BATCH).await {
            Ok(codes) => codes,
            Err(error) => {
                eprintln!("broadside: cannot look for rooms to take over: {error}");
                continue;
            }
        };
        for code in codes {
            if *shared.shutdown.borrow() {
                return;
            }
            if let Err(error) = shared.room(&code).await {
                eprintln!("broadside: room {code} could not be taken over: {error}");
            }
        }
    }
}

/// Runs the server on a multi-threaded runtime until Ctrl-C or SIGTERM (the
/// binary's `broadside serve`).
pub fn serve_until_ctrl_c(
    listener: std::net::TcpListener,
    db: &str,
    config: Config,
) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let db = Db::connect(db).await?;
        listener.set_nonblocking(true)?;
        let listener = TcpListener::from_std(listener)?;
        run(listener, db, config, async {
            let terminate = async {
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(mut signal) => {
                        signal.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            // If the signals cannot be installed the server runs until killed.
            tokio::select! {
                result = tokio::signal::ctrl_c() => {
                    if result.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
                () = terminate => {}
            }
        })
        .await
    })
}

async fn upgrade(
    upgrade: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    Extension(ClientAddr(ip)): Extension<ClientAddr>,
) -> Response {
    upgrade
        // Frames over the protocol's limit close the connection (1009)
        // before they are read whole; small buffers keep an idle connection
        // cheap (the defaults are 128 KiB each way).
        .max_message_size(MAX_FRAME_BYTES)
        .max_frame_size(MAX_FRAME_BYTES)
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(0)
        .on_upgrade(move |socket| connection::run(socket, shared, ip))
}

/// Bytes read from a socket at a time: a client's frames are small, and a
/// longer one grows the buffer as it arrives. Every connection keeps this much.
const READ_BUFFER: usize = 1024;

/// Shown at `/` when the binary was built without a web client.
const NO_CLIENT: &str = "<!doctype html><meta charset=utf-8><title>Broadside</title>\
<p>Broadside is running, but this build holds no web client (the <code>web/</code> folder was empty). \
Clients can connect to <code>/ws</code> (see docs/protocol.md).";

async fn index() -> Response {
    match assets::get("index.html") {
        Some(bytes) => file_response("index.html", bytes),
        None => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            NO_CLIENT,
        )
            .into_response(),
    }
}

async fn static_file(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    match assets::get(path) {
        Some(bytes) if !path.is_empty() => file_response(path, bytes),
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

fn file_response(path: &str, bytes: &'static [u8]) -> Response {
    (
        [
            (header::CONTENT_TYPE, assets::content_type(path)),
            // The files change with every build and carry no hash in their names.
            (header::CACHE_CONTROL, "no-cache"),
        ],
        bytes,
    )
        .into_response()
}
