//! The server, the top layer: the accept loop, the HTTP routes, the wiring of
//! the node's layers into [`Shared`], start-up restore and graceful shutdown.

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, State};
use axum::http::{header, Request, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tower_service::Service;

use crate::accounts::Accounts;
use crate::cluster::Cluster;
use crate::config::{ClientAddr, Config};
use crate::conns::Conns;
use crate::context::RoomContext;
use crate::db::{Db, DbError};
use crate::lifecycle::Lifecycle;
use crate::limits::{address_key, AddressLimits, Addresses, Full, Slot};
use crate::lobby::Lobby;
use crate::metrics::Load;
use crate::protocol::MAX_FRAME_BYTES;
use crate::registry::Registry;
use crate::shared::Shared;
use crate::{assets, connection};

/// A failure that stops the server.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("network: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("the bus: {0}")]
    Bus(String),
    /// Another live node serves under this node's name.
    #[error("{0}")]
    NodeName(String),
    /// The public origin cannot serve passkeys.
    #[error(transparent)]
    Origin(#[from] crate::accounts::OriginError),
}

/// Serves Broadside on `listener` until `shutdown` completes: restores every
/// unfinished game from `db`, then answers HTTP and WebSocket requests. Returns
/// once every connection and room task has stopped.
pub async fn run(
    listener: TcpListener,
    db: Db,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let accounts = Accounts::new(config.public_origin.as_deref())?;
    let (lifecycle, stopper) = Lifecycle::new();
    let lifecycle = Arc::new(lifecycle);
    let addresses = Addresses::new(AddressLimits {
        max_connections: config.max_connections,
        max_per_address: config.max_per_address,
        network_share_percent: config.network_share_percent,
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
    // The layers, bottom up: what rooms need, the rooms, public play.
    let context = Arc::new(RoomContext::new(db, config));
    // No two live processes serve under one name (cluster.rs).
    let name = crate::cluster::NodeName::claim(&context)
        .await
        .map_err(ServerError::NodeName)?;
    let registry = Registry::new(context.clone(), cluster.clone(), lifecycle.clone());
    let conns = Arc::new(Conns::default());
    let load = Load::new(context.config.busy_lag);
    tokio::spawn(Load::watch(Arc::downgrade(&load)));
    // The recorder is installed before the first figure is counted.
    crate::metrics::handle();
    let lobby = Lobby::new(
        context.clone(),
        registry.clone(),
        conns.clone(),
        cluster.clone(),
    );
    let shared = Arc::new(Shared {
        context,
        registry,
        lobby,
        addresses,
        cluster,
        conns,
        lifecycle,
        accounts,
        load,
    });
    if let Some(cluster) = &shared.cluster {
        cluster
            .clone()
            .serve_node(Arc::downgrade(&shared.conns))
            .await
            .map_err(|e| ServerError::Bus(e.to_string()))?;
    }
    // Bans and mutes reach this node's connections (moderation.rs).
    tokio::spawn(crate::moderation::follow(
        shared.context.clone(),
        Arc::downgrade(&shared.conns),
        shared.lifecycle.clone(),
    ));
    let db = &shared.context.db;
    // Whoever waited for a quick match on this node before it (re)started is
    // gone with their connection.
    db.clear_queue(shared.config().node.clone()).await?;
    if db.is_shared() {
        // Rooms whose owner died (or handed them over) are taken by whichever
        // node sees them first; the quick-match queue changes on every node.
        tokio::spawn(Registry::take_over_rooms(Arc::downgrade(&shared.registry)));
        tokio::spawn(Lobby::watch_queues(Arc::downgrade(&shared.lobby)));
    } else {
        shared.registry.restore_running().await?;
    }
    let app = Router::new()
        .route("/ws", get(upgrade))
        .route("/", get(index))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/r/{code}", get(index))
        .route("/g/{id}", get(index))
        .route("/api/games/{id}", get(replay))
        .fallback(get(static_file))
        .with_state(shared.clone());
    let mut shutdown = std::pin::pin!(shutdown);
    // After the signal the node drains for `drain` (readyz answers 503)
    // and goes on serving; then it stops.
    let drain = shared.config().drain;
    let mut stop_at: Option<tokio::time::Instant> = None;
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
            () = &mut shutdown, if stop_at.is_none() => {
                if drain.is_zero() {
                    break;
                }
                tracing::info!(?drain, "draining: /readyz answers 503 until the node stops");
                shared.load.start_draining();
                stop_at = Some(tokio::time::Instant::now() + drain);
                continue;
            }
            () = tokio::time::sleep_until(stop_at.unwrap_or_else(tokio::time::Instant::now)), if stop_at.is_some() => break,
        };
        let proxy = shared.config().trusted_proxies.contains(&peer.ip());
        match shared.addresses.admit(peer.ip(), proxy) {
            Ok(slot) => serve_connection(&shared, &app, tcp, peer.ip(), slot),
            Err(full) => {
                tokio::spawn(refuse_connection(tcp, full));
            }
        }
    }
    // Connections and rooms watch the signal; every task drops its token
    // when it ends.
    let lifecycle = shared.lifecycle.clone();
    drop(shared);
    stopper.stop(&lifecycle, Duration::from_secs(5)).await;
    if let Some(name) = name {
        name.release().await;
    }
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
fn serve_connection(shared: &Arc<Shared>, app: &Router, tcp: TcpStream, peer: IpAddr, slot: Slot) {
    // Frames are small and answer a person's click: send them at once rather
    // than wait for Nagle's algorithm to batch them with an acknowledgement.
    let _ = tcp.set_nodelay(true);
    let proxy = shared.config().trusted_proxies.contains(&peer);
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
        // Every limit keys on the client's key (an IPv6 client by its /64).
        request
            .extensions_mut()
            .insert(ClientAddr(address_key(client)));
        if proxy {
            request.extensions_mut().insert(Proxied);
        }
        let mut app = app.clone();
        async move {
            let mut response = app.call(request).await?;
            secure(response.headers_mut());
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    let request_timeout = shared.config().request_timeout;
    let mut shutdown = shared.lifecycle.shutdown_signal();
    let alive = shared.lifecycle.alive_token();
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

/// Marks a request that came through a trusted load balancer: its client
/// (`X-Real-IP`) is counted against the per-client caps at the upgrade.
#[derive(Clone, Copy, Debug)]
struct Proxied;

/// The Content-Security-Policy of every response: the page loads its
/// scripts, styles, translations and WebSocket from this server only (no
/// inline script or style), its icon may be a `data:` image, and no other
/// site may frame it (clickjacking).
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
frame-ancestors 'none'";

/// The security headers every response carries: the policy above, no
/// content sniffing, no framing for browsers that predate frame-ancestors,
/// and no referrer (a room's invitation link holds its code, which must not
/// reach other sites).
fn secure(headers: &mut axum::http::HeaderMap) {
    use axum::http::{HeaderName, HeaderValue};
    for (name, value) in SECURITY_HEADERS {
        headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
}

const SECURITY_HEADERS: &[(&str, &str)] = &[
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
];

/// The text of a connection refused for a cap.
fn full_text(full: Full) -> &'static str {
    match full {
        Full::Server => "the server has too many connections; try again later\n",
        Full::Address => "too many connections from your address; close some and try again\n",
        Full::Network => "too many connections from your network; try again later\n",
    }
}

/// Answers a connection over a limit with 503 and closes it.
async fn refuse_connection(mut tcp: TcpStream, full: Full) {
    use tokio::io::AsyncWriteExt;
    let body = full_text(full);
    let headers: String = SECURITY_HEADERS
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         {headers}content-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        tcp.write_all(response.as_bytes()).await?;
        tcp.shutdown().await
    })
    .await;
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

/// `GET /readyz`: 200 when this node should be sent people; 503 with the
/// reason while it drains, when the database does not answer a read within
/// a second, when the bus is down, or when it is overloaded (docs/deploy.md).
async fn readyz(State(shared): State<Arc<Shared>>) -> Response {
    let unready = |why: &str| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "5")],
            format!("not ready: {why}\n"),
        )
            .into_response()
    };
    if shared.load.draining() || shared.lifecycle.stopping() {
        return unready("draining");
    }
    if shared.load.overloaded() {
        return unready("overloaded");
    }
    if let Some(cluster) = &shared.cluster {
        if !cluster.connected() {
            return unready("the bus is not connected");
        }
    }
    let read = tokio::time::timeout(Duration::from_secs(1), shared.context.db.nickname(0)).await;
    if !matches!(read, Ok(Ok(_))) {
        return unready("the database does not answer");
    }
    "ready\n".into_response()
}

/// `GET /metrics`: the Prometheus text format (docs/deploy.md lists them).
async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let leases = if shared.context.db.is_shared() {
        shared.registry.in_memory().await
    } else {
        0
    };
    let snapshot = crate::metrics::Snapshot {
        connections: shared.addresses.open(),
        sessions: shared.conns.len(),
        leases,
        cpu_queue: shared.context.cpu.waiting(),
    };
    match crate::metrics::render(&snapshot) {
        Some(text) => (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        None => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "another metrics recorder was installed in this process\n",
        )
            .into_response(),
    }
}

/// `GET /ws`: a page of another site may not open it (its Origin must be
/// this server's or allowed by `--allow-origin`), and a client carried by a
/// trusted load balancer is counted against its own caps while it is open.
async fn upgrade(
    upgrade: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    Extension(ClientAddr(ip)): Extension<ClientAddr>,
    proxied: Option<Extension<Proxied>>,
    headers: axum::http::HeaderMap,
) -> Response {
    if !origin_allowed(&headers, &shared.config().allowed_origins) {
        return (
            StatusCode::FORBIDDEN,
            "this WebSocket is for the pages of this server (Origin refused; see --allow-origin)\n",
        )
            .into_response();
    }
    let slot = match proxied {
        Some(_) => match shared.addresses.admit_client(ip) {
            Ok(slot) => Some(slot),
            Err(full) => {
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, "5")],
                    full_text(full),
                )
                    .into_response()
            }
        },
        None => None,
    };
    upgrade
        // Frames over the protocol's limit close the connection (1009)
        // before they are read whole; small buffers keep an idle connection
        // cheap (the defaults are 128 KiB each way).
        .max_message_size(MAX_FRAME_BYTES)
        .max_frame_size(MAX_FRAME_BYTES)
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(0)
        .on_upgrade(move |socket| async move {
            connection::run(socket, shared, ip).await;
            drop(slot);
        })
}

/// Whether a WebSocket upgrade's `Origin` may open this server's WebSocket:
/// one of `allowed` (exactly, as `scheme://host[:port]`), or the server's own
/// host (the request's `Host`; ports are compared when both name one, since a
/// proxy may pass the host without its port). No `Origin` at all is a client
/// that is not a web page (the terminal client, bots), which no page can
/// pretend to be.
fn origin_allowed(headers: &axum::http::HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim().trim_end_matches('/');
    if allowed.iter().any(|allowed| {
        allowed
            .trim()
            .trim_end_matches('/')
            .eq_ignore_ascii_case(origin)
    }) {
        return true;
    }
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return false;
    }
    let (origin_host, origin_port) = host_and_port(authority);
    let (own_host, own_port) = host_and_port(host.trim());
    origin_host.eq_ignore_ascii_case(own_host)
        && match (origin_port, own_port) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
}

/// `host[:port]` (an IPv6 host in brackets) split at its port.
fn host_and_port(authority: &str) -> (&str, Option<&str>) {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => (&authority[..=end], authority[end + 1..].strip_prefix(':')),
            None => (authority, None),
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    }
}

/// `GET /api/games/<ID>` (replay.rs).
async fn replay(
    State(shared): State<Arc<Shared>>,
    Extension(ClientAddr(ip)): Extension<ClientAddr>,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
) -> Response {
    crate::replay::game(&shared.context, ip, &id, &headers).await
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
