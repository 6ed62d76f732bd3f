//! A test harness: a server on port 0 with its own database, and a small
//! WebSocket client that records every frame it receives.
//!
//! The database is the SQLite file a test names, or, when
//! `BROADSIDE_TEST_POSTGRES` holds a PostgreSQL administrator's URL (e.g.
//! `postgres://root@127.0.0.1:5432/postgres`), a PostgreSQL database of that
//! file's own: every suite then runs against the PostgreSQL backend.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use broadside_server::{Config, Db};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for an expected frame before failing.
pub const PATIENCE: Duration = Duration::from_secs(10);

pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl TestServer {
    /// A server on a fresh port over the database at `db` (bots move at once).
    pub async fn start(db: &Path) -> TestServer {
        TestServer::start_with(
            db,
            Config {
                bot_delay: Duration::ZERO,
                ..Config::default()
            },
        )
        .await
    }

    pub async fn start_with(db: &Path, config: Config) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("loopback port 0 is bindable");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let db = open_db(db).await;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            broadside_server::run(listener, db, config, async {
                let _ = stopped.await;
            })
            .await
            .expect("the server runs until shutdown");
        });
        TestServer {
            addr,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Shuts the server down and waits until it has stopped.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(PATIENCE, task)
                .await
                .expect("the server stops in time")
                .expect("no panic");
        }
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// A client that has said hello as `nickname`.
    pub async fn person(&self, nickname: &str) -> Client {
        let mut client = self.client().await;
        client.hello(None, nickname).await;
        client
    }
}

/// The database of the path `db`: that SQLite file, or its PostgreSQL database
/// (see [`postgres_url`]) when `BROADSIDE_TEST_POSTGRES` is set.
pub async fn open_db(db: &Path) -> Db {
    match postgres_admin() {
        None => Db::open(db).expect("the test database opens"),
        Some(admin) => {
            let url = postgres_database(&admin, db).await;
            Db::connect(&url)
                .await
                .expect("the test's PostgreSQL database opens")
        }
    }
}

/// The administrator's URL of the PostgreSQL server the tests use, if any.
pub fn postgres_admin() -> Option<String> {
    std::env::var("BROADSIDE_TEST_POSTGRES")
        .ok()
        .filter(|url| !url.is_empty())
}

/// The URL of the PostgreSQL database that stands for the file `db`: named
/// from a hash of the path (`bs_test_<hex>`), so that servers started one after
/// the other on one path (the restart tests) share it.
pub fn postgres_url(admin: &str, db: &Path) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(db.as_os_str().as_encoded_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    let name = format!("bs_test_{hex}");
    // The admin URL with its database replaced.
    let (base, query) = match admin.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (admin, String::new()),
    };
    let host_start = base.find("://").map_or(0, |at| at + 3);
    let base = match base[host_start..].find('/') {
        Some(slash) => &base[..host_start + slash],
        None => base,
    };
    format!("{base}/{name}{query}")
}

/// Creates (if missing) the PostgreSQL database of the file `db` and returns
/// its URL.
///
/// Cleaning up: each database's comment names the directory of its file,
/// which belongs to the test's `TempDir`. Before creating one, the databases
/// (`bs_test_*`) whose directory is gone, because their test has ended, are
/// dropped; so a run leaves behind at most the databases of its last tests,
/// which the next run drops (as may the test command: all are `bs_test_*`).
async fn postgres_database(admin: &str, db: &Path) -> String {
    let url = postgres_url(admin, db);
    let name = url
        .rsplit('/')
        .next()
        .and_then(|tail| tail.split('?').next())
        .expect("a database name")
        .to_string();
    let (client, connection) = tokio_postgres::connect(admin, tokio_postgres::NoTls)
        .await
        .expect("BROADSIDE_TEST_POSTGRES names a reachable server");
    tokio::spawn(connection);
    drop_ended_databases(&client).await;
    let dir = db.parent().unwrap_or(db);
    std::fs::create_dir_all(dir).expect("the test's data directory can be made");
    match client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
    {
        Ok(()) => {
            let dir = dir.to_string_lossy().replace('\'', "''");
            client
                .batch_execute(&format!("COMMENT ON DATABASE {name} IS '{dir}'"))
                .await
                .expect("the test database can be labelled");
        }
        // A second server on the same file: the same database.
        Err(error)
            if error.code() == Some(&tokio_postgres::error::SqlState::DUPLICATE_DATABASE) => {}
        Err(error) => panic!("cannot create the test database {name}: {error}"),
    }
    url
}

/// Drops the test databases whose test directory no longer exists.
async fn drop_ended_databases(client: &tokio_postgres::Client) {
    let rows = client
        .query(
            "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database
             WHERE datname LIKE 'bs\\_test\\_%'",
            &[],
        )
        .await
        .expect("the server lists its databases");
    for row in rows {
        let (name, dir): (String, Option<String>) = (row.get(0), row.get(1));
        // A database without a comment is being made (or is not the
        // harness's): left alone.
        let Some(dir) = dir else { continue };
        if Path::new(&dir).is_absolute() && !Path::new(&dir).exists() {
            // Another process may be dropping it too: errors do not matter.
            let _ = client
                .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .await;
        }
    }
}

/// The stored setup and commands (JSON, in order) of a room's current game,
/// read from the tables of the database that `db` stands for.
pub fn stored_game_rows(db: &Path, code: &str) -> (String, Vec<String>) {
    let game = "SELECT games.id, games.setup FROM games JOIN rooms ON rooms.game_id = games.id WHERE rooms.code = $1";
    let commands = "SELECT command FROM commands WHERE game_id = $1 ORDER BY seq";
    let Some(admin) = postgres_admin() else {
        let conn = rusqlite::Connection::open(db).unwrap();
        let (id, setup): (i64, String) = conn
            .query_row(&game.replace("$1", "?1"), [code], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        let mut statement = conn.prepare(&commands.replace("$1", "?1")).unwrap();
        let commands = statement
            .query_map([id], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        return (setup, commands);
    };
    let url = postgres_url(&admin, db);
    let code = code.to_string();
    // Called from a test's runtime, which must not block on itself: a thread
    // of its own with a runtime of its own.
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(connection);
                let row = client.query_one(game, &[&code]).await.unwrap();
                let (id, setup): (i64, String) = (row.get(0), row.get(1));
                let rows = client.query(commands, &[&id]).await.unwrap();
                (setup, rows.iter().map(|r| r.get(0)).collect())
            })
    })
    .join()
    .unwrap()
}

pub fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temp dir can be made");
    let path = dir.path().join("data").join("test.sqlite");
    (dir, path)
}

pub struct Client {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Every frame received, in order.
    pub frames: Vec<Value>,
    pub token: Option<String>,
    /// The latest `state` and `room` frames.
    pub state: Option<Value>,
    pub room: Option<Value>,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        let (socket, _) =
            tokio_tungstenite::connect_async_with_config(format!("ws://{addr}/ws"), None, true)
                .await
                .expect("the server accepts WebSocket connections");
        Client::over(socket)
    }

    fn over(socket: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Client {
        Client {
            socket,
            frames: Vec::new(),
            token: None,
            state: None,
            room: None,
        }
    }

    /// A client whose socket has a tiny receive buffer, so that once it stops
    /// reading the server's sends block at once (a slow reader).
    pub async fn connect_with_receive_buffer(addr: SocketAddr, bytes: u32) -> Client {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .set_recv_buffer_size(bytes)
            .expect("the receive buffer can be set");
        let stream = socket.connect(addr).await.expect("the server accepts");
        let (socket, _) = tokio_tungstenite::client_async(
            format!("ws://{addr}/ws"),
            MaybeTlsStream::Plain(stream),
        )
        .await
        .expect("the server accepts WebSocket connections");
        Client::over(socket)
    }

    /// Sends a text frame; an error once the server has closed the connection.
    pub async fn try_send_text(
        &mut self,
        text: String,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.socket.send(Message::text(text)).await
    }

    pub async fn send(&mut self, frame: Value) {
        self.send_text(frame.to_string()).await;
    }

    pub async fn send_text(&mut self, text: String) {
        self.socket
            .send(Message::text(text))
            .await
            .expect("the connection is open");
    }

    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        self.socket
            .send(Message::binary(bytes))
            .await
            .expect("the connection is open");
    }

    /// The next frame, within `PATIENCE`.
    pub async fn recv(&mut self) -> Value {
        self.try_recv(PATIENCE)
            .await
            .expect("a frame arrives in time")
    }

    /// The next frame, or `None` if none arrives within `wait`.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        loop {
            let message = tokio::time::timeout(wait, self.socket.next()).await.ok()?;
            match message
                .expect("the connection stays open")
                .expect("a valid WebSocket message")
            {
                Message::Text(text) => {
                    let frame: Value =
                        serde_json::from_str(text.as_str()).expect("the server sends JSON");
                    match frame["type"].as_str() {
                        Some("state") => self.state = Some(frame.clone()),
                        Some("room") => self.room = Some(frame.clone()),
                        _ => {}
                    }
                    self.frames.push(frame.clone());
                    return Some(frame);
                }
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    /// Reads until the server closes the connection: the close frame's code and
    /// reason, or `None` if it ended without one. Fails the test if the
    /// connection is still open after `PATIENCE`.
    pub async fn expect_close(&mut self) -> Option<(u16, String)> {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let next = tokio::time::timeout_at(deadline, self.socket.next())
                .await
                .expect("the server closes the connection in time");
            match next {
                None | Some(Err(_)) => return None,
                Some(Ok(Message::Close(frame))) => {
                    return frame.map(|f| (u16::from(f.code), f.reason.to_string()))
                }
                Some(Ok(_)) => continue,
            }
        }
    }

    /// Reads frames until one of type `kind` arrives, and returns it.
    pub async fn expect(&mut self, kind: &str) -> Value {
        loop {
            let frame = self.recv().await;
            if frame["type"] == kind {
                return frame;
            }
            assert_ne!(
                frame["type"], "error",
                "unexpected error while waiting for {kind}: {frame}"
            );
        }
    }

    /// Reads frames until an error arrives and returns its code.
    pub async fn expect_error(&mut self) -> String {
        let frame = self.expect_any("error").await;
        frame["code"]
            .as_str()
            .expect("errors have a code")
            .to_string()
    }

    /// Like `expect`, but errors do not fail the test.
    pub async fn expect_any(&mut self, kind: &str) -> Value {
        loop {
            let frame = self.recv().await;
            if frame["type"] == kind {
                return frame;
            }
        }
    }

    /// Reads whatever arrives within `wait`.
    pub async fn drain(&mut self, wait: Duration) -> Vec<Value> {
        let mut frames = Vec::new();
        while let Some(frame) = self.try_recv(wait).await {
            frames.push(frame);
        }
        frames
    }

    pub async fn hello(&mut self, token: Option<&str>, nickname: &str) -> Value {
        self.send(json!({"type": "hello", "token": token, "nickname": nickname, "lang": "en"}))
            .await;
        let welcome = self.expect("welcome").await;
        self.token = welcome["token"].as_str().map(str::to_string);
        welcome
    }

    /// Creates a room and returns its code.
    pub async fn create(&mut self, frame: Value) -> String {
        let mut frame = frame;
        frame["type"] = json!("create_room");
        self.send(frame).await;
        let room = self.expect("room").await;
        room["room"]["code"]
            .as_str()
            .expect("rooms have a code")
            .to_string()
    }

    pub async fn join(&mut self, code: &str, role: &str) -> Value {
        self.send(json!({"type": "join_room", "code": code, "as": role}))
            .await;
        self.expect("room").await
    }

    pub async fn command(&mut self, command: Value) {
        self.send(json!({"type": "command", "command": command}))
            .await;
    }

    /// Reads frames until a state arrives that `done` accepts.
    pub async fn state_until(&mut self, mut done: impl FnMut(&Value) -> bool) -> Value {
        if let Some(state) = &self.state {
            if done(state) {
                return state.clone();
            }
        }
        loop {
            let frame = self.recv().await;
            assert_ne!(frame["type"], "error", "unexpected error: {frame}");
            if frame["type"] == "state" && done(&frame) {
                return frame;
            }
        }
    }

    pub fn seat(&self) -> Option<u64> {
        self.room
            .as_ref()
            .and_then(|room| room["room"]["you"]["seat"].as_u64())
    }
}

/// Whether the state says this seat must act.
pub fn my_move(state: &Value) -> bool {
    let seat = &state["view"]["seat"];
    state["view"]["to_move"]
        .as_array()
        .is_some_and(|seats| seats.contains(seat))
}

pub fn phase(state: &Value) -> &str {
    state["view"]["phase"].as_str().unwrap_or("")
}

/// The first cell an opponent's board shows as `~`, as a fire command.
pub fn first_unknown_target(state: &Value) -> Value {
    let view = &state["view"];
    let me = view["seat"].as_u64();
    for board in view["boards"].as_array().expect("a view has boards") {
        let owner = board["owner"].as_u64();
        if owner == me {
            continue;
        }
        let alive = owner.is_none_or(|o| view["seats"][o as usize]["alive"] == true);
        if !alive {
            continue;
        }
        for (row, line) in board["rows"].as_array().expect("rows").iter().enumerate() {
            if let Some(col) = line.as_str().expect("a row is a string").find('~') {
                return json!({"cmd": "fire", "target": {"board": owner.unwrap_or(0), "at": [col, row]}});
            }
        }
    }
    panic!("no target left in {view}");
}

/// Whether a state holds the result of a move by `seat`.
pub fn moved_by(state: &Value, seat: &Value) -> bool {
    state["events"].as_array().is_some_and(|events| {
        events.iter().any(|e| match e["event"].as_str() {
            Some("ready" | "bought" | "resigned" | "salvo_submitted" | "action_used") => {
                e["seat"] == *seat
            }
            Some("shot" | "volley") => e["shooter"] == *seat,
            _ => false,
        })
    })
}

/// Plays a duel from the current state to the end, firing at the first unknown
/// cell whenever it is this client's move. Returns the final state.
pub async fn play_to_end(client: &mut Client) -> Value {
    loop {
        let state = client
            .state_until(|s| my_move(s) || phase(s) == "finished")
            .await;
        if phase(&state) == "finished" {
            return state;
        }
        let me = state["view"]["seat"].clone();
        if phase(&state) == "placement" {
            client.command(json!({"cmd": "place_random"})).await;
        } else {
            client.command(first_unknown_target(&state)).await;
        }
        // Wait for the answer to this move before deciding the next one.
        client.state = None;
        loop {
            let state = client.expect("state").await;
            if moved_by(&state, &me) {
                break;
            }
        }
    }
}

/// Reads a GET response from the server as (status line, headers, body).
pub async fn http_get(addr: SocketAddr, path: &str) -> (String, String, Vec<u8>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = TcpStream::connect(addr).await.expect("the server listens");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("the request is sent");
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .await
        .expect("the response is read");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header ends the head");
    let head = String::from_utf8_lossy(&response[..split]).to_string();
    let (status, headers) = head.split_once("\r\n").unwrap_or((&head, ""));
    (
        status.to_string(),
        headers.to_lowercase(),
        response[split + 4..].to_vec(),
    )
}
