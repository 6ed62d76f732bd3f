//! The server's frame parser and dispatcher, frames in and answers out, against
//! a real server in this process: `broadside_server::run` on an in-memory
//! database (no rate limits, bots move at once), a fresh one every 2,000
//! inputs (`FRESH_EVERY`); each input, read as
//! UTF-8 (lossy) and split into lines, is sent as text frames over a new
//! WebSocket connection after a `hello`, followed by a `ping`. Every frame the
//! server sends until the `pong` must be a JSON object with a string `type`, and
//! the `pong` must come. A panic anywhere in the server (a connection task, a
//! room actor, the pool) aborts the process, so libFuzzer sees it as a crash.

use std::net::SocketAddr;
use std::sync::{Mutex, Once};
use std::time::Duration;

use broadside_server::{Config, Db};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::runtime::Runtime;
use tokio_tungstenite::tungstenite::Message;

/// Frames of one input at most (the rest are ignored).
const MAX_FRAMES: usize = 32;

/// Inputs one server serves before a fresh one replaces it. Rooms outlive the
/// inputs that made them: games with bots and clocks go on playing, so one
/// server for a whole run gathers thousands of them and its CPU pool, shared
/// fairly among rooms, ends up answering a new input's frames later than the
/// input's time limit (seen after about 45,000 inputs). Those slow inputs
/// replay in milliseconds on a fresh server.
const FRESH_EVERY: u32 = 2_000;

struct Server {
    runtime: Runtime,
    addr: SocketAddr,
    inputs: u32,
}

/// Runs `job` against the current server, starting a fresh one first when
/// there is none yet or the current one has served `FRESH_EVERY` inputs.
fn with_server<R>(job: impl FnOnce(&Runtime, SocketAddr) -> R) -> R {
    static SERVER: Mutex<Option<Server>> = Mutex::new(None);
    static PANIC_ABORTS: Once = Once::new();
    PANIC_ABORTS.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            report(info);
            std::process::abort();
        }));
    });
    let mut current = SERVER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if current
        .as_ref()
        .is_none_or(|server| server.inputs >= FRESH_EVERY)
    {
        if let Some(old) = current.take() {
            old.runtime.shutdown_background();
        }
        *current = Some(start());
    }
    let server = current.as_mut().expect("a server was just started");
    server.inputs += 1;
    job(&server.runtime, server.addr)
}

fn start() -> Server {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime starts");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a loopback port");
    let addr = listener.local_addr().expect("a bound address");
    let db = Db::open_in_memory().expect("an in-memory database");
    let config = Config {
        bot_delay: Duration::ZERO,
        idle_room: Duration::from_millis(200),
        frames_per_second: 1e9,
        frame_burst: u32::MAX,
        flood_close: u32::MAX,
        rooms_per_minute: 1e9,
        room_burst: u32::MAX,
        unknown_codes_per_minute: 1e9,
        unknown_code_burst: u32::MAX,
        max_per_address: usize::MAX,
        cpu_jobs_per_client: usize::MAX,
        ..Config::default()
    };
    runtime.spawn(async move {
        broadside_server::run(listener, db, config, std::future::pending())
            .await
            .expect("the server runs");
    });
    Server {
        runtime,
        addr,
        inputs: 0,
    }
}

fn check(text: &str) -> bool {
    let frame: Value = serde_json::from_str(text).expect("the server sends JSON");
    let kind = frame
        .get("type")
        .and_then(Value::as_str)
        .expect("every frame has a string type");
    kind == "pong"
}

/// The target's body: see the module's documentation.
pub fn server_frames(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    with_server(|runtime, addr| {
        runtime.block_on(async {
            let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
                .await
                .expect("the server accepts");
            let mut frames = vec![r#"{"type":"hello","token":null,"nickname":"Fuzz"}"#.to_string()];
            frames.extend(
                text.lines()
                    .take(MAX_FRAMES)
                    .filter(|line| line.len() <= broadside_server::MAX_FRAME_BYTES)
                    .map(str::to_string),
            );
            frames.push(r#"{"type":"ping"}"#.to_string());
            for frame in frames {
                if socket.send(Message::text(frame)).await.is_err() {
                    return;
                }
            }
            let answered = tokio::time::timeout(Duration::from_secs(20), async {
                while let Some(message) = socket.next().await {
                    match message {
                        Ok(Message::Text(text)) => {
                            if check(text.as_str()) {
                                return true;
                            }
                        }
                        // A close is an answer the server may give (a frame over a
                        // limit); the pong then never comes.
                        Ok(Message::Close(_)) | Err(_) => return true,
                        Ok(_) => {}
                    }
                }
                true
            })
            .await;
            assert!(matches!(answered, Ok(true)), "the server stopped answering");
            let _ = socket.close(None).await;
        })
    });
}
