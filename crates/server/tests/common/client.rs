//! The test client: a WebSocket client that records every frame it receives,
//! and helpers to read states. Shared by the server's tests and the cluster
//! tests of the binary (which start real processes).

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use broadside_protocol::ViewCopy;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for an expected frame before failing.
pub const PATIENCE: Duration = Duration::from_secs(10);

pub struct Client {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Every frame received, in order.
    pub frames: Vec<Value>,
    pub token: Option<String>,
    /// The latest `state` and `room` frames.
    pub state: Option<Value>,
    pub room: Option<Value>,
    /// The view as the last `state` or `change` left it: every `change` is
    /// applied to it (with the protocol crate's code, as the terminal client
    /// does) and read as the whole `state` it makes, so the tests see whole
    /// views and check every change the server sends against them.
    copy: ViewCopy,
    /// The `change` frames received, as sent (their `state` is in `frames`).
    pub changes: Vec<Value>,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        let (socket, _) =
            tokio_tungstenite::connect_async_with_config(format!("ws://{addr}/ws"), None, true)
                .await
                .expect("the server accepts WebSocket connections");
        Client::over(socket)
    }

    /// A client whose connection comes from `local`, a loopback address
    /// (Linux routes all of 127/8 to the loopback): another client address
    /// to the server than 127.0.0.1.
    pub async fn connect_from(addr: SocketAddr, local: &str) -> Client {
        let local: std::net::IpAddr = local.parse().expect("a loopback address");
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .bind(SocketAddr::new(local, 0))
            .expect("any 127/8 address is bindable on Linux");
        let stream = socket.connect(addr).await.expect("the server accepts");
        let (socket, _) = tokio_tungstenite::client_async(
            format!("ws://{addr}/ws"),
            MaybeTlsStream::Plain(stream),
        )
        .await
        .expect("the server accepts WebSocket connections");
        Client::over(socket)
    }

    pub fn over(socket: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Client {
        Client {
            socket,
            frames: Vec::new(),
            token: None,
            state: None,
            room: None,
            copy: ViewCopy::default(),
            changes: Vec::new(),
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
                    let mut frame: Value =
                        serde_json::from_str(text.as_str()).expect("the server sends JSON");
                    if frame["type"] == "state" || frame["type"] == "change" {
                        frame = self.follow(frame);
                    }
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

    /// Keeps the copy of the view with a `state` or `change` frame and gives
    /// the whole `state` frame. A change that does not follow the frame
    /// before it fails the test: one connection never misses a frame.
    fn follow(&mut self, frame: Value) -> Value {
        self.copy
            .follow_json(frame.clone())
            .unwrap_or_else(|_| panic!("a change out of step: {frame}"))
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
