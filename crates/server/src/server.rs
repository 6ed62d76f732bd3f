//! The server: HTTP routes, the registry of rooms, start-up restore and
//! graceful shutdown.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use crate::db::{Db, DbError};
use crate::limits::Slot;
use crate::protocol::MAX_MESSAGE_BYTES;
use crate::room::{Room, RoomMsg};
use crate::{assets, connection};

/// How the server behaves; tests shorten the bots' delay to zero.
#[derive(Clone, Debug)]
pub struct Config {
    /// How long a bot waits before it moves, so people can follow the game.
    pub bot_delay: Duration,
    /// How long a room with no connection and no running clock stays in memory.
    pub idle_room: Duration,
    /// Open WebSocket connections at most; more are answered 503.
    pub max_connections: usize,
    /// Frames one connection may send per second on average, and in a burst.
    /// Far above what a person's clicks need; a flood is refused.
    pub frames_per_second: f64,
    pub frame_burst: u32,
    /// Rooms one connection may create per minute on average, and in a burst.
    pub rooms_per_minute: f64,
    pub room_burst: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bot_delay: Duration::from_millis(700),
            idle_room: Duration::from_secs(600),
            max_connections: 4096,
            frames_per_second: 50.0,
            frame_burst: 200,
            rooms_per_minute: 10.0,
            room_burst: 10,
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
}

/// Messages a room's actor may queue before senders wait.
const ROOM_INBOX: usize = 256;

/// What every task of the server shares.
pub struct Shared {
    pub db: Db,
    pub config: Config,
    /// The actor of every room in memory, by code.
    rooms: Mutex<HashMap<String, mpsc::Sender<RoomMsg>>>,
    shutdown: watch::Receiver<bool>,
    /// Each task holds a clone while it runs; shutdown waits until all are gone.
    /// Taken (set to `None`) at shutdown so that the wait can end.
    alive: Mutex<Option<mpsc::Sender<()>>>,
    next_conn: AtomicU64,
    /// Open WebSocket connections.
    open: Arc<AtomicUsize>,
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

    fn rooms(&self) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::Sender<RoomMsg>>> {
        // The map stays consistent even if a holder panicked: every change is one
        // insert or remove.
        self.rooms.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts the actor of a new room and registers it.
    pub fn spawn_room(self: &Arc<Self>, code: String, room: Room) -> mpsc::Sender<RoomMsg> {
        let (sender, inbox) = mpsc::channel(ROOM_INBOX);
        self.rooms().insert(code, sender.clone());
        self.start_actor(room, &sender, inbox);
        sender
    }

    fn start_actor(
        self: &Arc<Self>,
        room: Room,
        sender: &mpsc::Sender<RoomMsg>,
        inbox: mpsc::Receiver<RoomMsg>,
    ) {
        let shutdown = self.shutdown_signal();
        let alive = self.alive_token();
        let me = sender.downgrade();
        tokio::spawn(async move {
            room.run(inbox, me, shutdown).await;
            drop(alive);
        });
    }

    /// Forgets an idle room's actor, if it is still the registered one.
    pub fn retire_room(&self, code: &str, actor: &mpsc::WeakSender<RoomMsg>) {
        let mut rooms = self.rooms();
        let registered = rooms
            .get(code)
            .is_some_and(|sender| actor.upgrade().is_some_and(|a| a.same_channel(sender)));
        if registered {
            rooms.remove(code);
        }
    }

    /// The actor of a room: in memory, or brought back from the database.
    pub fn room(self: &Arc<Self>, code: &str) -> Result<Option<mpsc::Sender<RoomMsg>>, DbError> {
        // The lock is held while loading so that two connections asking for the
        // same stored room at once cannot start two actors for it.
        let mut rooms = self.rooms();
        if let Some(sender) = rooms.get(code) {
            if !sender.is_closed() {
                return Ok(Some(sender.clone()));
            }
        }
        let Some((record, game)) = self.db.load_room(code)? else {
            return Ok(None);
        };
        let room = Room::restore(self.clone(), record, game)
            .map_err(|e| DbError::Corrupt(e.to_string()))?;
        let (sender, inbox) = mpsc::channel(ROOM_INBOX);
        rooms.insert(code.to_string(), sender.clone());
        drop(rooms);
        self.start_actor(room, &sender, inbox);
        Ok(Some(sender))
    }
}

/// Milliseconds since the unix epoch (timestamps and stored deadlines).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
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
    let (stop, shutdown_signal) = watch::channel(false);
    let (alive, mut all_stopped) = mpsc::channel::<()>(1);
    let shared = Arc::new(Shared {
        db,
        config,
        rooms: Mutex::new(HashMap::new()),
        shutdown: shutdown_signal,
        alive: Mutex::new(Some(alive)),
        next_conn: AtomicU64::new(1),
        open: Arc::new(AtomicUsize::new(0)),
    });
    restore_running(&shared)?;
    let app = Router::new()
        .route("/ws", get(upgrade))
        .route("/", get(index))
        .route("/r/{code}", get(index))
        .fallback(get(static_file))
        .with_state(shared.clone());
    // Frames are small and answer a person's click: send them at once rather
    // than wait for Nagle's algorithm to batch them with an acknowledgement.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            // Connections and rooms watch this; the HTTP server waits for them.
            let _ = stop.send(true);
        })
        .await?;
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

/// Brings back every room whose game runs, so its timers and bots go on even
/// before anybody reconnects.
fn restore_running(shared: &Arc<Shared>) -> Result<(), ServerError> {
    for code in shared.db.running_rooms()? {
        // One unreadable room must not keep every other game from resuming.
        if let Err(error) = shared.room(&code) {
            eprintln!("broadside: room {code} could not be restored: {error}");
        }
    }
    Ok(())
}

/// Runs the server on a multi-threaded runtime until Ctrl-C (the binary's
/// `broadside serve`).
pub fn serve_until_ctrl_c(
    listener: std::net::TcpListener,
    db: Db,
    config: Config,
) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        listener.set_nonblocking(true)?;
        let listener = TcpListener::from_std(listener)?;
        run(listener, db, config, async {
            // If the signal cannot be installed the server runs until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        })
        .await
    })
}

async fn upgrade(upgrade: WebSocketUpgrade, State(shared): State<Arc<Shared>>) -> Response {
    // The slot is held by the connection's task, or freed if the upgrade fails.
    let Some(slot) = Slot::acquire(&shared.open, shared.config.max_connections) else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "the server has too many connections; try again later",
        )
            .into_response();
    };
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| async move {
            connection::run(socket, shared).await;
            drop(slot);
        })
}

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
