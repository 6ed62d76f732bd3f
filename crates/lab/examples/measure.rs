//! Measures the server: heap and resident memory per idle room and per running
//! game, and the shot-to-opponent-update latency on loopback (p50, p99 over
//! 1,000 shots).
//!
//! `cargo run --release -p broadside-lab --example measure`
//!
//! The server and its clients run in this one process; a counting allocator
//! sees every Rust heap allocation, and `/proc/self/statm` gives the resident
//! size (which also holds SQLite's own page cache).

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use broadside_engine::{Cell, Command, CustomShip, Options, Preset, Target};
use broadside_protocol::{
    BotLevel, BotSeat, ClientFrame, CreateRoom, Hello, JoinRoom, Role, ViewCopy,
};
use broadside_server::{Config, Db};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Counts the bytes live on the Rust heap.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counter is only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn heap() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Resident memory in bytes (Linux), if known.
fn resident() -> Option<isize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: isize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

struct Client {
    socket: Socket,
    /// The view as the last `state` or `change` left it.
    copy: ViewCopy,
}

impl Client {
    async fn connect(addr: SocketAddr, nickname: &str) -> Client {
        let (socket, _) =
            tokio_tungstenite::connect_async_with_config(format!("ws://{addr}/ws"), None, true)
                .await
                .expect("connect");
        let mut client = Client {
            socket,
            copy: ViewCopy::default(),
        };
        let hello = Hello {
            token: None,
            nickname: Some(nickname.to_string()),
            lang: None,
        };
        client.send(ClientFrame::Hello(hello)).await;
        client.expect("welcome").await;
        client
    }

    async fn send(&mut self, frame: ClientFrame) {
        self.socket
            .send(Message::text(frame.to_text()))
            .await
            .expect("send");
    }

    async fn recv(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(10), self.socket.next())
                .await
                .expect("a frame in time")
                .expect("open")
                .expect("valid");
            if let Message::Text(text) = message {
                let frame: Value = serde_json::from_str(text.as_str()).expect("JSON");
                assert_ne!(frame["type"], "error", "{frame}");
                return self.copy.follow_json(frame).expect("changes in step");
            }
        }
    }

    async fn expect(&mut self, kind: &str) -> Value {
        loop {
            let frame = self.recv().await;
            if frame["type"] == kind {
                return frame;
            }
        }
    }

    /// Waits until every earlier frame of this connection has been handled.
    async fn sync(&mut self) {
        self.send(ClientFrame::Ping).await;
        self.expect("pong").await;
    }

    async fn create(&mut self, options: Options, bots: Vec<BotSeat>) -> String {
        self.send(ClientFrame::CreateRoom(Box::new(CreateRoom {
            preset: Preset::Classic,
            seats: 2,
            options: Some(options),
            teams: None,
            bots,
            public: false,
            rated: false,
        })))
        .await;
        let room = self.expect("room").await;
        room["room"]["code"].as_str().expect("a code").to_string()
    }
}

/// A shot at the first cell an opponent's board shows as `~`.
fn first_unknown(view: &Value) -> ClientFrame {
    let me = view["seat"].as_u64();
    for board in view["boards"].as_array().expect("boards") {
        if board["owner"].as_u64() == me {
            continue;
        }
        for (row, line) in board["rows"].as_array().expect("rows").iter().enumerate() {
            if let Some(col) = line.as_str().expect("row").find('~') {
                let target = Target {
                    board: board["owner"].as_u64().expect("an opponent's board") as usize,
                    at: Cell::new(col as u16, row as u16),
                };
                return ClientFrame::command(&Command::Fire { seat: 0, target });
            }
        }
    }
    panic!("no target left")
}

/// The command frame that places the whole fleet at random.
fn place_random() -> ClientFrame {
    ClientFrame::command(&Command::PlaceRandom { seat: 0 })
}

fn mib(bytes: isize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Creates `count` rooms through one connection and reports memory per room.
async fn rooms(addr: SocketAddr, count: usize, started: bool) -> (f64, Option<f64>) {
    let mut host = Client::connect(addr, "Host").await;
    host.sync().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (heap_before, rss_before) = (heap(), resident());
    for _ in 0..count {
        let bot = BotSeat {
            seat: 1,
            level: BotLevel::Medium,
        };
        host.create(Options::default(), vec![bot]).await;
        if started {
            host.send(ClientFrame::Start).await;
            host.send(place_random()).await;
            // Into the battle with a few shots on each board.
            let mut shots = 0;
            let mut state = host.expect("state").await;
            while shots < 4 {
                let view = &state["view"];
                if view["phase"] == "battle" && view["to_move"][0] == view["seat"] {
                    host.send(first_unknown(view)).await;
                    shots += 1;
                    // The answer to this shot comes before the next decision.
                    loop {
                        state = host.expect("state").await;
                        let events = state["events"].as_array().expect("events");
                        if events
                            .iter()
                            .any(|e| e["event"] == "shot" && e["shooter"] == 0)
                        {
                            break;
                        }
                    }
                } else {
                    state = host.expect("state").await;
                }
            }
        }
        host.sync().await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    host.sync().await;
    let heap_per = (heap() - heap_before) as f64 / count as f64;
    let rss_per = rss_before
        .zip(resident())
        .map(|(before, after)| (after - before) as f64 / count as f64);
    (heap_per, rss_per)
}

/// Plays person against person on a big board and times each shot from the
/// shooter's send to the opponent's state frame.
async fn latency(addr: SocketAddr, shots: usize) -> Vec<Duration> {
    let mut ana = Client::connect(addr, "Ana").await;
    let mut bea = Client::connect(addr, "Bea").await;
    let options = Options {
        cols: Some(26),
        rows: Some(26),
        fleet: Some(vec![CustomShip {
            id: "boat".into(),
            len: 2,
            count: 3,
        }]),
        hit_again: Some(false),
        turn_seconds: Some(0),
        place_seconds: Some(0),
        ..Options::default()
    };
    let code = ana.create(options, Vec::new()).await;
    let join = JoinRoom {
        code,
        role: Role::Player,
    };
    bea.send(ClientFrame::JoinRoom(join)).await;
    bea.expect("room").await;
    let mut samples = Vec::with_capacity(shots);
    ana.send(ClientFrame::Start).await;
    while samples.len() < shots {
        // A game: both see it start, both place, then they alternate until one
        // fleet is sunk.
        ana.expect("state").await;
        bea.expect("state").await;
        ana.send(place_random()).await;
        bea.send(place_random()).await;
        let mut states = [ana.expect("state").await, bea.expect("state").await];
        while states[0]["view"]["phase"] != "battle" {
            states[0] = ana.expect("state").await;
        }
        while states[1]["view"]["phase"] != "battle" {
            states[1] = bea.expect("state").await;
        }
        let players = [&mut ana, &mut bea];
        loop {
            let view = &states[0]["view"];
            if view["phase"] == "finished" || samples.len() >= shots {
                break;
            }
            let shooter = view["to_move"][0]
                .as_u64()
                .expect("a duel has one seat to move") as usize;
            let shot = first_unknown(&states[shooter]["view"]);
            let start = Instant::now();
            players[shooter].send(shot).await;
            let opponent_state = players[1 - shooter].expect("state").await;
            samples.push(start.elapsed());
            let own_state = players[shooter].expect("state").await;
            states[1 - shooter] = opponent_state;
            states[shooter] = own_state;
        }
        if samples.len() < shots {
            // The new game starts once both have asked (docs/protocol.md).
            for player in players {
                player.send(ClientFrame::Rematch).await;
            }
        }
    }
    samples
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = Db::open(&dir.path().join("measure.sqlite")).expect("a database");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let addr = listener.local_addr().expect("an address");
        // Measurements send as fast as they can: no rate limits here.
        let config = Config {
            bot_delay: Duration::ZERO,
            frames_per_second: 1e9,
            frame_burst: u32::MAX,
            rooms_per_minute: 1e9,
            room_burst: u32::MAX,
            ..Config::default()
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(broadside_server::run(listener, db, config, async {
            let _ = stopped.await;
        }));

        let idle = 1000;
        let (heap_idle, rss_idle) = rooms(addr, idle, false).await;
        println!("idle room (lobby, 1 person + 1 bot seat), {idle} rooms:");
        println!("  Rust heap per room: {:.1} KiB", heap_idle / 1024.0);
        if let Some(rss) = rss_idle {
            println!(
                "  resident memory per room: {:.1} KiB (includes SQLite's cache)",
                rss / 1024.0
            );
        }
        let running = 300;
        let (heap_game, rss_game) = rooms(addr, running, true).await;
        println!("running game (classic vs bot, in battle, timers on), {running} games:");
        println!("  Rust heap per game: {:.1} KiB", heap_game / 1024.0);
        if let Some(rss) = rss_game {
            println!(
                "  resident memory per game: {:.1} KiB (includes SQLite's cache)",
                rss / 1024.0
            );
        }
        println!("  total Rust heap now: {:.1} MiB", mib(heap()));

        let shots = 1000;
        let mut samples = latency(addr, shots).await;
        samples.sort();
        let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
        println!(
            "shot to opponent's update on loopback, {} shots (stored in SQLite before sending):",
            samples.len()
        );
        println!(
            "  p50 {:.3} ms, p99 {:.3} ms, mean {:.3} ms, max {:.3} ms",
            percentile(&samples, 0.50).as_secs_f64() * 1000.0,
            percentile(&samples, 0.99).as_secs_f64() * 1000.0,
            mean.as_secs_f64() * 1000.0,
            samples.last().expect("samples").as_secs_f64() * 1000.0,
        );
        let _ = stop.send(());
        let _ = server.await;
    });
}
