//! `broadside load`: a load generator that plays many games at a person's pace
//! against a running server over real WebSockets (docs/protocol.md).
//!
//! Half the games are person against person (two connections in one room),
//! half person against an easy bot (one connection). One task drives each game
//! and all of its connections; when a game ends its players ask for a rematch,
//! so the number of running games stays constant. Every shot's latency goes
//! into an HDR histogram: for person against person from the shooter's
//! `command` frame to the `state` frame that reports the shot on the
//! opponent's connection, for person against bot from the command to the
//! shooter's own `state` answer.
//!
//! Two optional extras run beside the games: a *probe* (`--probe-ms`), one
//! connection without a room that pings the server on a fixed schedule and
//! measures the time to each `pong`, and an *attack* (`--expensive`), two
//! connections that each open a room and send a flood of `set_options`
//! frames whose fleet takes the server a costly fit check. Together they show
//! whether cheap frames stay fast while expensive ones queue up.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::Deserialize;
use serde_json::json;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;
use tokio::time::{sleep_until, timeout_at};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// How long an answer may take before it counts as an error (and the game
/// is started again from new connections).
const PATIENCE: Duration = Duration::from_secs(10);
/// Connections opened per second when `--ramp-seconds` is not given.
const RAMP_RATE: f64 = 500.0;
/// How long after the planned ramp the measurement starts anyway when some
/// games never got running.
const RAMP_GRACE: Duration = Duration::from_secs(10);
/// Open files the generator needs beside its connections.
const FILES_BESIDE: u64 = 64;
/// How long a failed game waits before it connects again.
const RETRY: Duration = Duration::from_secs(1);
/// The presets whose duel is played with single `fire` commands from the
/// placement on (no shop, no volleys, one board per seat).
const PRESETS: &[&str] = &["classic", "hasbro", "italia"];
/// Connections of the attack of `--expensive`.
const ATTACKERS: usize = 2;
/// The options of the attack's `set_options` frames: 40 ships of length 7 on
/// 26×26 cells, a fleet whose fit check is a long search (it does not fit).
fn expensive_options() -> serde_json::Value {
    json!({"cols": 26, "rows": 26, "fleet": [{"id": "a", "len": 7, "count": 40}]})
}

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

/// Counters shared by every game task and the reporter.
struct Shared {
    /// Whether the measured window is open (only then are shots recorded).
    measuring: AtomicBool,
    games_running: AtomicUsize,
    connections: AtomicUsize,
    /// Shots answered in the measured window (one latency sample each).
    shots: AtomicU64,
    /// Games played to the end in the measured window.
    games_finished: AtomicU64,
    error_frames: AtomicU64,
    connect_errors: AtomicU64,
    closed: AtomicU64,
    timeouts: AtomicU64,
    /// `error` frames by code.
    error_codes: Mutex<BTreeMap<String, u64>>,
    /// Latencies in microseconds.
    latency: Mutex<Histogram<u64>>,
    /// Connection attempts so far; picks the source address on loopback.
    attempts: AtomicUsize,
    /// Open connections of the probe and the attack.
    extra_connections: AtomicUsize,
    /// Probe and attack connections that said hello and wait for the window.
    extras_ready: AtomicUsize,
    /// Probe and attack tasks whose measurement is not over yet.
    extras_measuring: AtomicUsize,
    /// Ping to pong times of the probe in microseconds.
    ping_latency: Mutex<Histogram<u64>>,
    /// Pings sent by the probe, and pings whose pong never came.
    pings_sent: AtomicU64,
    pings_lost: AtomicU64,
    /// The attack's `set_options` frames sent, and their answers.
    expensive_sent: AtomicU64,
    expensive_answers: AtomicU64,
    /// The attack's answers by kind: `room`, or the code of an `error`.
    expensive_kinds: Mutex<BTreeMap<String, u64>>,
    /// Microseconds from the window's start to the attack's last answer.
    expensive_last_micros: AtomicU64,
    /// Connections connected again and rejoined (`--resume`).
    resumed: AtomicU64,
    /// Acknowledged shots that a later state no longer showed.
    lost_acknowledged: AtomicU64,
    /// Acknowledged shots in all.
    acknowledged: AtomicU64,
    /// The seats' last views (`--final-views`).
    final_views: Mutex<Vec<serde_json::Value>>,
}

impl Shared {
    fn new() -> Result<Shared> {
        Ok(Shared {
            measuring: AtomicBool::new(false),
            games_running: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            shots: AtomicU64::new(0),
            games_finished: AtomicU64::new(0),
            error_frames: AtomicU64::new(0),
            connect_errors: AtomicU64::new(0),
            closed: AtomicU64::new(0),
            timeouts: AtomicU64::new(0),
            error_codes: Mutex::new(BTreeMap::new()),
            latency: Mutex::new(
                Histogram::new_with_bounds(1, 3_600_000_000, 3)
                    .context("creating the latency histogram")?,
            ),
            attempts: AtomicUsize::new(0),
            extra_connections: AtomicUsize::new(0),
            extras_ready: AtomicUsize::new(0),
            extras_measuring: AtomicUsize::new(0),
            ping_latency: Mutex::new(
                Histogram::new_with_bounds(1, 3_600_000_000, 3)
                    .context("creating the ping histogram")?,
            ),
            pings_sent: AtomicU64::new(0),
            pings_lost: AtomicU64::new(0),
            expensive_sent: AtomicU64::new(0),
            expensive_answers: AtomicU64::new(0),
            expensive_kinds: Mutex::new(BTreeMap::new()),
            expensive_last_micros: AtomicU64::new(0),
            resumed: AtomicU64::new(0),
            lost_acknowledged: AtomicU64::new(0),
            acknowledged: AtomicU64::new(0),
            final_views: Mutex::new(Vec::new()),
        })
    }

    fn errors(&self) -> u64 {
        self.error_frames.load(Ordering::Relaxed)
            + self.connect_errors.load(Ordering::Relaxed)
            + self.closed.load(Ordering::Relaxed)
            + self.timeouts.load(Ordering::Relaxed)
    }

    fn error_frame(&self, code: &str) {
        self.error_frames.fetch_add(1, Ordering::Relaxed);
        let mut codes = self.error_codes.lock().unwrap_or_else(|e| e.into_inner());
        *codes.entry(code.to_string()).or_insert(0) += 1;
    }

    fn sample(&self, latency: Duration) {
        if !self.measuring.load(Ordering::Relaxed) {
            return;
        }
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.latency
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .saturating_record(micros.max(1));
        self.shots.fetch_add(1, Ordering::Relaxed);
    }

    /// p50, p99 and max of the shots in milliseconds, or `None` without samples.
    fn quantiles(&self) -> Option<(f64, f64, f64)> {
        quantiles(&self.latency.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// p50, p99 and max of the probe's pings in milliseconds and their
    /// count, or `None` without samples.
    fn ping_quantiles(&self) -> (Option<(f64, f64, f64)>, u64) {
        let histogram = self.ping_latency.lock().unwrap_or_else(|e| e.into_inner());
        (quantiles(&histogram), histogram.len())
    }

    fn ping(&self, latency: Duration) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.ping_latency
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .saturating_record(micros.max(1));
    }

    fn expensive_answer(&self, kind: &str, since_start: Duration) {
        self.expensive_answers.fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(since_start.as_micros()).unwrap_or(u64::MAX);
        self.expensive_last_micros
            .fetch_max(micros, Ordering::Relaxed);
        let mut kinds = self
            .expensive_kinds
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *kinds.entry(kind.to_string()).or_insert(0) += 1;
    }
}

/// p50, p99 and max of a histogram of microseconds in milliseconds, or `None`
/// when it is empty.
fn quantiles(histogram: &Histogram<u64>) -> Option<(f64, f64, f64)> {
    (!histogram.is_empty()).then(|| {
        (
            millis(histogram.value_at_quantile(0.5)),
            millis(histogram.value_at_quantile(0.99)),
            millis(histogram.max()),
        )
    })
}

/// Microseconds as milliseconds with one decimal.
fn millis(micros: u64) -> f64 {
    (micros as f64 / 100.0).round() / 10.0
}

/// Holds one unit of a gauge while alive.
struct Gauge<'a>(&'a AtomicUsize);

impl<'a> Gauge<'a> {
    fn hold(counter: &'a AtomicUsize) -> Gauge<'a> {
        counter.fetch_add(1, Ordering::Relaxed);
        Gauge(counter)
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What every game task needs to know.
struct Setup {
    /// Rejoin dropped games rather than abandon them.
    resume: bool,
    /// Record the last views at the end.
    final_views: bool,
    addr: SocketAddr,
    url: String,
    preset: String,
    pace: Duration,
    ws_config: WebSocketConfig,
}

/// Why a game stopped: the run is over, or something failed (already counted).
enum Stop {
    Over,
    Failed,
}

type Ws = WebSocketStream<TcpStream>;

/// The parts of a server frame the generator reads; the rest is skipped.
#[derive(Deserialize)]
struct Frame {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    view: Option<View>,
    #[serde(default)]
    events: Vec<Event>,
    #[serde(default)]
    room: Option<Room>,
    /// The code of an `error`.
    #[serde(default)]
    code: Option<String>,
    /// The refused frame's type, on an `error`.
    #[serde(default)]
    request: Option<String>,
    /// The session token, on `welcome`.
    #[serde(default)]
    token: Option<String>,
}

#[derive(Deserialize)]
struct Room {
    code: String,
}

#[derive(Deserialize, serde::Serialize)]
struct View {
    seat: Option<u64>,
    phase: String,
    to_move: Vec<u64>,
    boards: Vec<Board>,
}

#[derive(Deserialize, serde::Serialize)]
struct Board {
    owner: Option<u64>,
    rows: Vec<String>,
}

#[derive(Deserialize)]
struct Event {
    event: String,
    #[serde(default)]
    seat: Option<u64>,
    #[serde(default)]
    shooter: Option<u64>,
}

impl View {
    fn my_move(&self) -> bool {
        self.seat.is_some_and(|seat| self.to_move.contains(&seat))
    }
}

/// A random cell of an opponent's board that this view shows as not yet
/// shot (`~`, R-12), as `(board, col, row)`.
fn pick_target(view: &View, rng: &mut impl Rng) -> Option<(u64, usize, usize)> {
    let mut chosen = None;
    let mut seen = 0u32;
    for board in &view.boards {
        let Some(owner) = board.owner else { continue };
        if Some(owner) == view.seat {
            continue;
        }
        for (row, line) in board.rows.iter().enumerate() {
            // Every R-12 character is ASCII: the byte index is the column.
            for (col, _) in line.bytes().enumerate().filter(|&(_, c)| c == b'~') {
                seen += 1;
                if rng.random_range(0..seen) == 0 {
                    chosen = Some((owner, col, row));
                }
            }
        }
    }
    chosen
}

/// Whether these events report a move of `seat` of the kind `expect` waits for.
fn answered(frame: &Frame, seat: Option<u64>, expect: Expect) -> bool {
    match expect {
        Expect::Ready => frame
            .events
            .iter()
            .any(|e| e.event == "ready" && e.seat.is_some() && e.seat == seat),
        Expect::Shot => reports_shot(frame, seat),
        Expect::NewGame => frame.view.as_ref().is_some_and(|v| v.phase != "finished"),
    }
}

fn reports_shot(frame: &Frame, shooter: Option<u64>) -> bool {
    shooter.is_some()
        && frame
            .events
            .iter()
            .any(|e| e.event == "shot" && e.shooter == shooter)
}

/// What a player waits for after its own frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    Ready,
    Shot,
    NewGame,
}

/// One seat played by the generator: a connection and what it knows.
struct Player<'a> {
    ws: Ws,
    _open: Gauge<'a>,
    view: Option<View>,
    /// The frame sent and not answered yet.
    pending: Option<(Expect, Instant)>,
    /// When this player acts next.
    next_at: Option<Instant>,
    /// The session token (to connect again with `--resume`).
    token: Option<String>,
    /// The cell of the shot in flight, as `(board, col, row)`.
    aiming: Option<(u64, usize, usize)>,
    /// The cells of this game's acknowledged shots: every later state must
    /// show them shot.
    acked: Vec<(u64, usize, usize)>,
}

impl<'a> Player<'a> {
    fn new(ws: Ws, shared: &'a Shared) -> Player<'a> {
        Player {
            ws,
            _open: Gauge::hold(&shared.connections),
            view: None,
            pending: None,
            next_at: None,
            token: None,
            aiming: None,
            acked: Vec::new(),
        }
    }

    fn seat(&self) -> Option<u64> {
        self.view.as_ref().and_then(|v| v.seat)
    }
}

/// Opens a WebSocket to the server; on loopback from a source address of its
/// own (127.0.0.1 to 127.0.0.250 in turn), so that the ephemeral ports of one
/// address are not exhausted.
async fn open(setup: &Setup, shared: &Shared) -> Result<Ws> {
    let attempt = shared.attempts.fetch_add(1, Ordering::Relaxed);
    let stream = match setup.addr {
        SocketAddr::V4(v4) if v4.ip().is_loopback() => {
            let socket = TcpSocket::new_v4()?;
            let source = Ipv4Addr::new(127, 0, 0, 1 + (attempt % 250) as u8);
            socket.bind(SocketAddr::new(source.into(), 0))?;
            socket.connect(setup.addr).await?
        }
        addr => TcpStream::connect(addr).await?,
    };
    stream.set_nodelay(true)?;
    let (ws, _) = tokio_tungstenite::client_async_with_config(
        setup.url.as_str(),
        stream,
        Some(setup.ws_config),
    )
    .await?;
    Ok(ws)
}

/// Opens a connection within `PATIENCE`, counting a failure.
async fn open_within(
    setup: &Setup,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<Ws, Stop> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    tokio::select! {
        result = timeout_at(deadline, open(setup, shared)) => match result {
            Ok(Ok(ws)) => Ok(ws),
            Ok(Err(_)) | Err(_) => {
                shared.connect_errors.fetch_add(1, Ordering::Relaxed);
                Err(Stop::Failed)
            }
        },
        _ = stop.changed() => Err(Stop::Over),
    }
}

/// Opens the connection of a player within `PATIENCE`, counting a failure.
async fn connect<'a>(
    setup: &Setup,
    shared: &'a Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<Player<'a>, Stop> {
    let ws = open_within(setup, shared, stop).await?;
    Ok(Player::new(ws, shared))
}

async fn send(ws: &mut Ws, shared: &Shared, frame: serde_json::Value) -> Result<(), Stop> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    match timeout_at(deadline, ws.send(Message::text(frame.to_string()))).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => {
            shared.closed.fetch_add(1, Ordering::Relaxed);
            Err(Stop::Failed)
        }
        Err(_) => {
            shared.timeouts.fetch_add(1, Ordering::Relaxed);
            Err(Stop::Failed)
        }
    }
}

/// Reads one frame from a received message: `Ok(None)` for frames that carry
/// no text (pings and pongs), `Err` (counted) for a close or a broken frame.
fn read(
    message: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
    shared: &Shared,
) -> Result<Option<Frame>, Stop> {
    match message {
        Some(Ok(Message::Text(text))) => match serde_json::from_str::<Frame>(text.as_str()) {
            Ok(frame) => Ok(Some(frame)),
            Err(_) => {
                shared.error_frame("unreadable_frame");
                Ok(None)
            }
        },
        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
            shared.closed.fetch_add(1, Ordering::Relaxed);
            Err(Stop::Failed)
        }
        Some(Ok(_)) => Ok(None),
    }
}

/// Reads frames until one of type `kind` arrives. An `error` frame (counted)
/// fails the setup.
async fn expect(
    ws: &mut Ws,
    kind: &str,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<Frame, Stop> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let message = tokio::select! {
            message = timeout_at(deadline, ws.next()) => message,
            _ = stop.changed() => return Err(Stop::Over),
        };
        let Ok(message) = message else {
            shared.timeouts.fetch_add(1, Ordering::Relaxed);
            return Err(Stop::Failed);
        };
        let Some(frame) = read(message, shared)? else {
            continue;
        };
        if frame.kind == kind {
            return Ok(frame);
        }
        if frame.kind == "error" {
            shared.error_frame(frame.code.as_deref().unwrap_or("error"));
            return Err(Stop::Failed);
        }
    }
}

/// A delay of `pace` ± 50%, uniformly drawn.
fn jitter(pace: Duration, rng: &mut impl Rng) -> Duration {
    let micros = u64::try_from(pace.as_micros()).unwrap_or(u64::MAX);
    Duration::from_micros(rng.random_range(micros / 2..=micros.saturating_mul(3) / 2))
}

/// One game task: plays until the run is over, starting again from new
/// connections after a failure.
async fn game_task(
    shared: Arc<Shared>,
    setup: Arc<Setup>,
    index: usize,
    person_vs_person: bool,
    start_at: Instant,
    seed: u64,
    mut stop: watch::Receiver<bool>,
) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    tokio::select! {
        _ = sleep_until(start_at.into()) => {}
        _ = stop.changed() => return,
    }
    loop {
        if *stop.borrow() {
            return;
        }
        let outcome = play(
            &shared,
            &setup,
            index,
            person_vs_person,
            &mut rng,
            &mut stop,
        )
        .await;
        match outcome {
            Stop::Over => return,
            Stop::Failed => {
                tokio::select! {
                    _ = tokio::time::sleep(RETRY) => {}
                    _ = stop.changed() => return,
                }
            }
        }
    }
}

/// What woke the game loop.
enum Wake {
    Message(
        usize,
        Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
    ),
    Timer,
    Over,
}

/// Connects the players of one game, sets the room up and plays games in it
/// (rematch after rematch) until the run is over or something fails.
async fn play(
    shared: &Shared,
    setup: &Setup,
    index: usize,
    person_vs_person: bool,
    rng: &mut Pcg64Mcg,
    stop: &mut watch::Receiver<bool>,
) -> Stop {
    let mut players: Vec<Player> = Vec::with_capacity(2);
    let result = setup_and_play(
        shared,
        setup,
        index,
        person_vs_person,
        rng,
        stop,
        &mut players,
    )
    .await;
    let reason = match result {
        Ok(never) => match never {},
        Err(reason) => reason,
    };
    if matches!(reason, Stop::Over) {
        // Say goodbye properly; the server may be busy, so not for long.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        for player in &mut players {
            let _ = timeout_at(deadline, player.ws.close(None)).await;
        }
    }
    reason
}

async fn setup_and_play<'a>(
    shared: &'a Shared,
    setup: &Setup,
    index: usize,
    person_vs_person: bool,
    rng: &mut Pcg64Mcg,
    stop: &mut watch::Receiver<bool>,
    players: &mut Vec<Player<'a>>,
) -> Result<Infallible, Stop> {
    let hello = |who: &str| json!({"type": "hello", "token": null, "nickname": format!("load {index}{who}"), "lang": "en"});
    players.push(connect(setup, shared, stop).await?);
    let host = &mut players[0].ws;
    send(host, shared, hello("a")).await?;
    let token = expect(host, "welcome", shared, stop).await?.token;
    players[0].token = token;
    let host = &mut players[0].ws;
    let bots = if person_vs_person {
        json!([])
    } else {
        json!([{"seat": 1, "level": "easy"}])
    };
    send(
        host,
        shared,
        json!({"type": "create_room", "preset": setup.preset, "seats": 2, "bots": bots}),
    )
    .await?;
    let room = expect(host, "room", shared, stop).await?;
    let code = room.room.map(|r| r.code).ok_or_else(|| {
        shared.error_frame("room_without_code");
        Stop::Failed
    })?;
    if person_vs_person {
        players.push(connect(setup, shared, stop).await?);
        let guest = &mut players[1].ws;
        send(guest, shared, hello("b")).await?;
        let token = expect(guest, "welcome", shared, stop).await?.token;
        players[1].token = token;
        let guest = &mut players[1].ws;
        send(
            guest,
            shared,
            json!({"type": "join_room", "code": code, "as": "player"}),
        )
        .await?;
        expect(guest, "room", shared, stop).await?;
    }
    send(&mut players[0].ws, shared, json!({"type": "start"})).await?;

    let mut running: Option<Gauge> = None;
    // The shots whose report is awaited, for their latency: (shooter, sent),
    // oldest first.
    let mut in_flight: VecDeque<(usize, Instant)> = VecDeque::new();
    let mut last_state = Instant::now();
    loop {
        let mut soonest: Option<Instant> = None;
        let mut consider = |at: Instant| soonest = Some(soonest.map_or(at, |s| s.min(at)));
        for player in players.iter() {
            if let Some(at) = player.next_at {
                consider(at);
            }
            if let Some((_, sent)) = player.pending {
                consider(sent + PATIENCE);
            }
        }
        if let Some(&(_, sent)) = in_flight.front() {
            consider(sent + PATIENCE);
        }
        // A game where none of ours has anything to do waits for the server
        // (the start, a bot): it stalls if no state comes in time.
        let idle = soonest.is_none();
        let deadline = soonest.unwrap_or(last_state + PATIENCE);
        let wake = {
            let (first, rest) = players.split_at_mut(1);
            let second = rest.first_mut();
            tokio::select! {
                message = first[0].ws.next() => Wake::Message(0, message),
                message = async {
                    match second {
                        Some(p) => p.ws.next().await,
                        None => std::future::pending().await,
                    }
                } => Wake::Message(1, message),
                _ = sleep_until(deadline.into()) => Wake::Timer,
                _ = stop.changed() => Wake::Over,
            }
        };
        match wake {
            Wake::Over => {
                if setup.final_views {
                    record_final_views(players, &code, shared).await;
                }
                return Err(Stop::Over);
            }
            Wake::Message(p, message) => {
                let frame = match read(message, shared) {
                    Ok(Some(frame)) => frame,
                    Ok(None) => continue,
                    Err(Stop::Failed) if setup.resume => {
                        resume(&mut players[p], &code, setup, shared, stop).await?;
                        forget_in_flight(&mut players[p], p, &mut in_flight);
                        continue;
                    }
                    Err(stop) => return Err(stop),
                };
                // A state without events is a join's: the connection was joined
                // to its room again (it moved to another node). A move in
                // flight may have been lost with the old owner: decide again
                // from this state.
                if setup.resume && frame.kind == "state" && frame.events.is_empty() {
                    forget_in_flight(&mut players[p], p, &mut in_flight);
                }
                match frame.kind.as_str() {
                    "state" => {
                        last_state = Instant::now();
                        if running.is_none() {
                            running = Some(Gauge::hold(&shared.games_running));
                        }
                        let Some(view) = &frame.view else { continue };
                        let seat = view.seat;
                        // The latency of the shot in flight ends on the
                        // opponent's connection (person against person) or on
                        // the shooter's own (against a bot).
                        let watched = if person_vs_person { 1 - p } else { p };
                        if let Some(i) = in_flight.iter().position(|&(s, _)| s == watched) {
                            if reports_shot(&frame, players[watched].seat()) {
                                let (_, sent) = in_flight.remove(i).expect("found above");
                                shared.sample(sent.elapsed());
                            }
                        }
                        let player = &mut players[p];
                        if let Some((expect, _)) = player.pending {
                            if answered(&frame, seat, expect) {
                                player.pending = None;
                                if let Some(cell) = player.aiming.take() {
                                    player.acked.push(cell);
                                    shared.acknowledged.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                        }
                        check_acknowledged(player, frame.view.as_ref(), shared);
                        let finished = view.phase == "finished";
                        let was_finished =
                            player.view.as_ref().is_some_and(|v| v.phase == "finished");
                        let my_move = view.my_move();
                        player.view = frame.view;
                        if finished {
                            player.pending = None;
                            player.next_at = None;
                            if !was_finished {
                                if p == 0 && shared.measuring.load(Ordering::Relaxed) {
                                    shared.games_finished.fetch_add(1, Ordering::Relaxed);
                                }
                                // Every person asks for a rematch, like people
                                // would: the first offers, the other accepts.
                                player.next_at = Some(Instant::now() + jitter(setup.pace, rng));
                            }
                        } else if my_move && player.pending.is_none() && player.next_at.is_none() {
                            let placement =
                                player.view.as_ref().is_some_and(|v| v.phase == "placement");
                            let delay = if placement {
                                Duration::ZERO
                            } else {
                                jitter(setup.pace, rng)
                            };
                            player.next_at = Some(Instant::now() + delay);
                        }
                    }
                    "error" => {
                        shared.error_frame(frame.code.as_deref().unwrap_or("error"));
                        let player = &mut players[p];
                        if frame.request.as_deref() == Some("command") {
                            // The move was refused: decide again from the view.
                            if matches!(player.pending, Some((Expect::Shot, _))) {
                                if let Some(i) = in_flight.iter().rposition(|&(s, _)| s == p) {
                                    in_flight.remove(i);
                                }
                            }
                            player.pending = None;
                            if player.view.as_ref().is_some_and(View::my_move) {
                                player.next_at = Some(Instant::now() + jitter(setup.pace, rng));
                            }
                        }
                    }
                    _ => {}
                }
            }
            Wake::Timer => {
                let now = Instant::now();
                let late = players
                    .iter()
                    .any(|p| p.pending.is_some_and(|(_, sent)| now >= sent + PATIENCE))
                    || in_flight
                        .front()
                        .is_some_and(|&(_, sent)| now >= sent + PATIENCE)
                    || (idle && now >= last_state + PATIENCE);
                if late {
                    shared.timeouts.fetch_add(1, Ordering::Relaxed);
                    return Err(Stop::Failed);
                }
                for (p, player) in players.iter_mut().enumerate() {
                    if player.next_at.is_none_or(|at| at > now) {
                        continue;
                    }
                    player.next_at = None;
                    let Some(view) = &player.view else {
                        continue;
                    };
                    let (frame, expect) = match view.phase.as_str() {
                        "finished" => (json!({"type": "rematch"}), Expect::NewGame),
                        "placement" if view.my_move() => (
                            json!({"type": "command", "command": {"cmd": "place_random"}}),
                            Expect::Ready,
                        ),
                        "battle" if view.my_move() => {
                            let Some((board, col, row)) = pick_target(view, rng) else {
                                continue;
                            };
                            player.aiming = Some((board, col, row));
                            (
                                json!({"type": "command", "command": {"cmd": "fire",
                                    "target": {"board": board, "at": [col, row]}}}),
                                Expect::Shot,
                            )
                        }
                        _ => continue,
                    };
                    let sent = Instant::now();
                    send(&mut player.ws, shared, frame).await?;
                    player.pending = Some((expect, sent));
                    if expect == Expect::Shot {
                        in_flight.push_back((p, sent));
                    }
                }
            }
        }
    }
}

/// How long a dropped connection keeps trying to rejoin its game.
const RESUME_PATIENCE: Duration = Duration::from_secs(30);

/// Connects a player again with its token and rejoins the room (`--resume`).
async fn resume(
    player: &mut Player<'_>,
    code: &str,
    setup: &Setup,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Stop> {
    let token = player.token.clone().ok_or(Stop::Failed)?;
    let give_up = Instant::now() + RESUME_PATIENCE;
    loop {
        let attempt: Result<Ws, Stop> = async {
            let mut ws = open_within(setup, shared, stop).await?;
            let hello = json!({"type": "hello", "token": token, "lang": "en"});
            send(&mut ws, shared, hello).await?;
            expect(&mut ws, "welcome", shared, stop).await?;
            let join = json!({"type": "join_room", "code": code, "as": "player"});
            send(&mut ws, shared, join).await?;
            expect(&mut ws, "room", shared, stop).await?;
            Ok(ws)
        }
        .await;
        match attempt {
            Ok(ws) => {
                player.ws = ws;
                shared.resumed.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            Err(Stop::Over) => return Err(Stop::Over),
            Err(Stop::Failed) if Instant::now() < give_up => {
                tokio::select! {
                    _ = tokio::time::sleep(RETRY) => {}
                    _ = stop.changed() => return Err(Stop::Over),
                }
            }
            Err(Stop::Failed) => return Err(Stop::Failed),
        }
    }
}

/// Forgets a player's move in flight (it may have been lost with a node):
/// the player decides again from its next state.
fn forget_in_flight(player: &mut Player<'_>, p: usize, in_flight: &mut VecDeque<(usize, Instant)>) {
    player.pending = None;
    player.aiming = None;
    player.next_at = None;
    in_flight.retain(|&(shooter, _)| shooter != p);
}

/// Counts the acknowledged shots a new state no longer shows as shot (a new
/// game, in placement, starts the list afresh).
fn check_acknowledged(player: &mut Player<'_>, view: Option<&View>, shared: &Shared) {
    let Some(view) = view else { return };
    if view.phase == "placement" || view.phase == "shop" {
        player.acked.clear();
        return;
    }
    let before = player.acked.len();
    player.acked.retain(|&(board, col, row)| {
        let shown = view
            .boards
            .iter()
            .find(|b| b.owner == Some(board))
            .and_then(|b| b.rows.get(row))
            .and_then(|line| line.as_bytes().get(col).copied());
        shown != Some(b'~')
    });
    let lost = before - player.acked.len();
    if lost > 0 {
        shared
            .lost_acknowledged
            .fetch_add(lost as u64, Ordering::Relaxed);
    }
}

/// Waits for the answers of the moves in flight (and whatever the room sends
/// with them) for a moment, then records every seat's last view.
async fn record_final_views(players: &mut [Player<'_>], code: &str, shared: &Shared) {
    let give_up = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let mut heard = false;
        for player in players.iter_mut() {
            let quiet = tokio::time::Instant::now() + Duration::from_millis(300);
            while let Ok(Some(message)) = timeout_at(quiet.min(give_up), player.ws.next()).await {
                let Ok(Some(frame)) = read(Some(message), shared) else {
                    break;
                };
                heard = true;
                if frame.kind == "state" && frame.view.is_some() {
                    player.view = frame.view;
                }
            }
        }
        let waiting = players.iter().any(|p| p.pending.is_some());
        if (!heard && !waiting) || tokio::time::Instant::now() >= give_up {
            break;
        }
        for player in players.iter_mut() {
            player.pending = None;
        }
    }
    let mut views = shared.final_views.lock().unwrap_or_else(|e| e.into_inner());
    for player in players.iter() {
        if let (Some(view), Some(token)) = (&player.view, &player.token) {
            views.push(json!({"code": code, "token": token, "seat": view.seat,
                "phase": view.phase, "boards": view.boards}));
        }
    }
}

/// Counts down `Shared::extras_measuring` when dropped: the measurement of
/// a probe or attack task is over (or has failed).
struct Measuring<'a>(&'a AtomicUsize);

impl Drop for Measuring<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Keeps a probe or attack connection open after its measurement, reading and
/// dropping what arrives, until the run is over; then says goodbye.
async fn linger(ws: &mut Ws, stop: &mut watch::Receiver<bool>) {
    while !*stop.borrow_and_update() {
        tokio::select! {
            message = ws.next() => match message {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                Some(Ok(_)) => {}
            },
            changed = stop.changed() => {
                if changed.is_err() {
                    break;
                }
            }
        }
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    let _ = timeout_at(deadline, ws.close(None)).await;
}

/// The measured window, `(start, end)`, once it is open.
type Window = watch::Receiver<Option<(Instant, Instant)>>;

/// Waits for the measured window to open while reading `ws` (which answers
/// the server's pings, so a long ramp does not close an idle connection).
async fn await_window(
    ws: &mut Ws,
    shared: &Shared,
    window: &mut Window,
    stop: &mut watch::Receiver<bool>,
) -> Result<(Instant, Instant), Stop> {
    loop {
        if let Some(open) = *window.borrow_and_update() {
            return Ok(open);
        }
        tokio::select! {
            changed = window.changed() => {
                if changed.is_err() {
                    return Err(Stop::Over);
                }
            }
            message = ws.next() => {
                if let Some(frame) = read(message, shared)? {
                    if frame.kind == "error" {
                        shared.error_frame(frame.code.as_deref().unwrap_or("error"));
                    }
                }
            }
            _ = stop.changed() => return Err(Stop::Over),
        }
    }
}

/// Says hello on a new connection of the probe or the attack and waits for
/// the welcome.
async fn hello_extra(
    ws: &mut Ws,
    nickname: &str,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Stop> {
    send(
        ws,
        shared,
        json!({"type": "hello", "token": null, "nickname": nickname, "lang": "en"}),
    )
    .await?;
    expect(ws, "welcome", shared, stop).await?;
    Ok(())
}

/// The probe: one connection without a room that sends a `ping` every
/// `interval` through the measured window and records the time to each
/// `pong` (the server answers the frames of one connection in order).
async fn probe_task(
    shared: Arc<Shared>,
    setup: Arc<Setup>,
    interval: Duration,
    mut window: Window,
    mut stop: watch::Receiver<bool>,
) {
    let measuring = Measuring(&shared.extras_measuring);
    let Ok(mut ws) = open_within(&setup, &shared, &mut stop).await else {
        return;
    };
    let _open = Gauge::hold(&shared.extra_connections);
    let result = probe(&mut ws, &shared, interval, &mut window, &mut stop).await;
    drop(measuring);
    if result.is_ok() {
        linger(&mut ws, &mut stop).await;
    }
}

async fn probe(
    ws: &mut Ws,
    shared: &Shared,
    interval: Duration,
    window: &mut Window,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Stop> {
    hello_extra(ws, "load probe", shared, stop).await?;
    shared.extras_ready.fetch_add(1, Ordering::Relaxed);
    let (start, end) = await_window(ws, shared, window, stop).await?;
    let mut next = start;
    // When each ping whose pong is awaited was sent, oldest first.
    let mut waiting: VecDeque<Instant> = VecDeque::new();
    let lose = |waiting: &VecDeque<Instant>| {
        shared
            .pings_lost
            .fetch_add(waiting.len() as u64, Ordering::Relaxed);
    };
    loop {
        let sending = next < end;
        let overdue = waiting.front().map(|&sent| sent + PATIENCE);
        let timer = match (sending, overdue) {
            (true, Some(overdue)) => next.min(overdue),
            (true, None) => next,
            (false, Some(overdue)) => overdue,
            (false, None) => return Ok(()),
        };
        tokio::select! {
            message = ws.next() => {
                let frame = match read(message, shared) {
                    Ok(Some(frame)) => frame,
                    Ok(None) => continue,
                    Err(stop) => {
                        lose(&waiting);
                        return Err(stop);
                    }
                };
                match frame.kind.as_str() {
                    "pong" => {
                        if let Some(sent) = waiting.pop_front() {
                            shared.ping(sent.elapsed());
                        }
                    }
                    "error" => {
                        shared.error_frame(frame.code.as_deref().unwrap_or("error"));
                        // A ping dropped by the frame limit is never answered,
                        // and a pong carries no id: the pings awaited now can
                        // no longer be told apart, so none of them is timed.
                        lose(&waiting);
                        waiting.clear();
                    }
                    _ => {}
                }
            }
            _ = sleep_until(timer.into()) => {
                let now = Instant::now();
                if overdue.is_some_and(|overdue| now >= overdue) {
                    lose(&waiting);
                    shared.timeouts.fetch_add(1, Ordering::Relaxed);
                    return Err(Stop::Failed);
                }
                if sending && now >= next {
                    let sent = Instant::now();
                    send(ws, shared, json!({"type": "ping"})).await?;
                    waiting.push_back(sent);
                    shared.pings_sent.fetch_add(1, Ordering::Relaxed);
                    // On schedule; after a stall of the generator, one ping
                    // at once and the schedule from there.
                    next = (next + interval).max(now);
                }
            }
            _ = stop.changed() => {
                lose(&waiting);
                return Err(Stop::Over);
            }
        }
    }
}

/// One connection of the attack: when the window opens it creates a room and
/// sends `frames` expensive `set_options` frames at once, then counts their
/// answers until all are in or the window is over.
async fn attack_task(
    shared: Arc<Shared>,
    setup: Arc<Setup>,
    index: usize,
    frames: usize,
    mut window: Window,
    mut stop: watch::Receiver<bool>,
) {
    let measuring = Measuring(&shared.extras_measuring);
    let Ok(mut ws) = open_within(&setup, &shared, &mut stop).await else {
        return;
    };
    let _open = Gauge::hold(&shared.extra_connections);
    let result = attack(&mut ws, &shared, index, frames, &mut window, &mut stop).await;
    drop(measuring);
    if result.is_ok() {
        linger(&mut ws, &mut stop).await;
    }
}

async fn attack(
    ws: &mut Ws,
    shared: &Shared,
    index: usize,
    frames: usize,
    window: &mut Window,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Stop> {
    hello_extra(ws, &format!("load attack {index}"), shared, stop).await?;
    shared.extras_ready.fetch_add(1, Ordering::Relaxed);
    let (start, end) = await_window(ws, shared, window, stop).await?;
    send(
        ws,
        shared,
        json!({"type": "create_room", "preset": "classic", "seats": 2}),
    )
    .await?;
    expect(ws, "room", shared, stop).await?;
    let text = json!({"type": "set_options", "options": expensive_options()}).to_string();
    let (mut sink, mut stream) = ws.split();
    let sender = async {
        for _ in 0..frames {
            if sink.feed(Message::text(text.clone())).await.is_err() {
                return;
            }
            shared.expensive_sent.fetch_add(1, Ordering::Relaxed);
        }
        let _ = sink.flush().await;
    };
    let reader = async {
        let mut answers = 0;
        while answers < frames {
            let Ok(message) = timeout_at(end.into(), stream.next()).await else {
                return;
            };
            let Ok(frame) = read(message, shared) else {
                return;
            };
            let Some(frame) = frame else { continue };
            let kind = match frame.kind.as_str() {
                "room" => "room",
                "error" => frame.code.as_deref().unwrap_or("error"),
                _ => continue,
            };
            answers += 1;
            shared.expensive_answer(kind, start.elapsed());
        }
    };
    tokio::select! {
        _ = async { tokio::join!(timeout_at(end.into(), sender), reader) } => Ok(()),
        _ = stop.changed() => Err(Stop::Over),
    }
}

/// Raises the limit of open files to its hard limit, and past it to `wanted`
/// where the process may (root); returns the new limit.
pub(crate) fn raise_file_limit(wanted: u64) -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        let wanted = wanted as libc::rlim_t;
        if limit.rlim_max < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted,
                rlim_max: wanted,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    #[allow(clippy::unnecessary_cast)] // rlim_t is not u64 everywhere
    Some(limit.rlim_cur as u64)
}

/// User plus system CPU time of this process, in seconds.
fn own_cpu_seconds() -> Option<f64> {
    // SAFETY: an all-zero rusage is a valid value, and getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// The address of a `/proc/net/tcp{,6}` line (hex words in the kernel's byte
/// order), with its port.
fn parse_proc_addr(field: &str) -> Option<SocketAddr> {
    let (ip, port) = field.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let ip: IpAddr = match ip.len() {
        8 => Ipv4Addr::from(u32::from_str_radix(ip, 16).ok()?.to_ne_bytes()).into(),
        32 => {
            let mut bytes = [0u8; 16];
            for (i, chunk) in bytes.chunks_mut(4).enumerate() {
                let word = u32::from_str_radix(&ip[i * 8..i * 8 + 8], 16).ok()?;
                chunk.copy_from_slice(&word.to_ne_bytes());
            }
            Ipv6Addr::from(bytes).into()
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// The inodes of the listening sockets in a `/proc/net/tcp{,6}` table that
/// accept connections to `target`.
fn listening_inodes(table: &str, target: SocketAddr) -> Vec<u64> {
    let local = is_local(target.ip());
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 10 || fields[3] != "0A" {
                return None;
            }
            let addr = parse_proc_addr(fields[1])?;
            let ip = match addr.ip() {
                IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
                ip => ip,
            };
            let matches = addr.port() == target.port()
                && (ip == target.ip() || (ip.is_unspecified() && local));
            matches.then(|| fields[9].parse().ok()).flatten()
        })
        .collect()
}

/// Whether `ip` is an address of this machine (one can bind to it).
fn is_local(ip: IpAddr) -> bool {
    ip.is_loopback() || UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok()
}

/// The local process that listens for connections to `target`, if any.
fn find_listener(target: SocketAddr) -> Option<u32> {
    let mut wanted = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(text) = std::fs::read_to_string(table) {
            wanted.extend(listening_inodes(&text, target));
        }
    }
    wanted.retain(|&inode| inode != 0);
    if wanted.is_empty() {
        return None;
    }
    let links: Vec<String> = wanted.iter().map(|i| format!("socket:[{i}]")).collect();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                if links.iter().any(|l| link.as_os_str() == l.as_str()) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// The resident memory of a process in MiB.
fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib / 1024.0 * 10.0).round() / 10.0)
}

/// User plus system CPU time of a process, in seconds.
fn process_cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces) start at the
    // state, field 3; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| ticks / per_second as f64)
}

/// Whether game `i` is person against person (else against a bot), when
/// `bot_percent` of the games are against a bot, spread evenly.
fn person_vs_person(i: usize, bot_percent: u8) -> bool {
    let share = |n: usize| n * usize::from(bot_percent) / 100;
    share(i + 1) == share(i)
}

/// The connections of `games` games: two for person against person, one
/// against a bot.
fn connections_for(games: usize, bot_percent: u8) -> usize {
    (0..games)
        .map(|i| {
            if person_vs_person(i, bot_percent) {
                2
            } else {
                1
            }
        })
        .sum()
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

pub fn run(args: LoadArgs) -> Result<()> {
    if args.games == 0 && args.probe_ms == 0 && args.expensive == 0 {
        bail!("--games 0 needs a probe or an attack (--probe-ms, --expensive)");
    }
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        bail!("--seconds must be a positive number");
    }
    if args.pace_ms == 0 {
        bail!("--pace-ms must be at least 1");
    }
    if let Some(ramp) = args.ramp_seconds {
        if !(ramp >= 0.0 && ramp.is_finite()) {
            bail!("--ramp-seconds must be 0 or more");
        }
    }
    if args.probe_ms > 0 && args.probe_ms < 20 {
        eprintln!(
            "warning: --probe-ms {} sends more than 50 frames a second, the server's default \
             limit: dropped pings make the probe unreliable",
            args.probe_ms
        );
    }
    if !PRESETS.contains(&args.preset.as_str()) {
        bail!(
            "--preset {} is not supported by the load generator (one of {})",
            args.preset,
            PRESETS.join(", ")
        );
    }
    let addr = std::net::ToSocketAddrs::to_socket_addrs(&args.addr)
        .with_context(|| format!("resolving {}", args.addr))?
        .next()
        .ok_or_else(|| anyhow!("{} resolves to no address", args.addr))?;
    let file_limit = raise_file_limit(
        (connections_for(args.games, args.bot_percent) + extras(&args)) as u64 + FILES_BESIDE,
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let result = runtime.block_on(drive(args, addr, file_limit));
    runtime.shutdown_timeout(Duration::from_secs(2));
    result
}

/// The connections of the probe and the attack.
fn extras(args: &LoadArgs) -> usize {
    usize::from(args.probe_ms > 0) + if args.expensive > 0 { ATTACKERS } else { 0 }
}

async fn drive(args: LoadArgs, addr: SocketAddr, file_limit: Option<u64>) -> Result<()> {
    let games = args.games;
    let connections = connections_for(games, args.bot_percent);
    let extras = extras(&args);
    if let Some(limit) = file_limit {
        if (connections + extras) as u64 + FILES_BESIDE > limit {
            eprintln!(
                "warning: {} connections need more open files than the limit of {limit}",
                connections + extras
            );
        }
    }
    let ramp = Duration::from_secs_f64(args.ramp_seconds.unwrap_or(connections as f64 / RAMP_RATE));
    let setup = Arc::new(Setup {
        addr,
        url: format!("ws://{addr}/ws"),
        resume: args.resume,
        final_views: args.final_views.is_some(),
        preset: args.preset.clone(),
        pace: Duration::from_millis(args.pace_ms),
        ws_config: WebSocketConfig::default()
            .read_buffer_size(8 * 1024)
            .write_buffer_size(8 * 1024)
            .max_message_size(Some(1 << 20))
            .max_frame_size(Some(1 << 20)),
    });
    let shared = Arc::new(Shared::new()?);
    let server_pid = args.server_pid.or_else(|| find_listener(addr));
    let (stop_tx, stop_rx) = watch::channel(false);
    let (window_tx, window_rx) = watch::channel(None::<(Instant, Instant)>);
    let base_seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);

    let started = Instant::now();
    // The probe and the attack connect first: they wait for the window.
    let mut extra_tasks = Vec::with_capacity(extras);
    shared.extras_measuring.store(extras, Ordering::Relaxed);
    if args.probe_ms > 0 {
        extra_tasks.push(tokio::spawn(probe_task(
            Arc::clone(&shared),
            Arc::clone(&setup),
            Duration::from_millis(args.probe_ms),
            window_rx.clone(),
            stop_rx.clone(),
        )));
    }
    if args.expensive > 0 {
        for index in 0..ATTACKERS {
            extra_tasks.push(tokio::spawn(attack_task(
                Arc::clone(&shared),
                Arc::clone(&setup),
                index,
                args.expensive,
                window_rx.clone(),
                stop_rx.clone(),
            )));
        }
    }
    drop(window_rx);
    let mut tasks = Vec::with_capacity(games);
    let mut opened_before = 0usize;
    for i in 0..games {
        let at = started + ramp.mul_f64(opened_before as f64 / connections as f64);
        opened_before += if person_vs_person(i, args.bot_percent) {
            2
        } else {
            1
        };
        tasks.push(tokio::spawn(game_task(
            Arc::clone(&shared),
            Arc::clone(&setup),
            i,
            person_vs_person(i, args.bot_percent),
            at,
            base_seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            stop_rx.clone(),
        )));
    }
    drop(stop_rx);

    let progress = |phase: &str| {
        let p99 = shared
            .quantiles()
            .map_or("-".to_string(), |(_, p99, _)| format!("{p99:.1} ms"));
        let mut extra = String::new();
        if args.probe_ms > 0 {
            let (ping, _) = shared.ping_quantiles();
            let ping = ping.map_or("-".to_string(), |(_, p99, _)| format!("{p99:.1} ms"));
            extra.push_str(&format!("  ping p99 {ping}"));
        }
        if args.expensive > 0 {
            extra.push_str(&format!(
                "  expensive {}/{}",
                shared.expensive_answers.load(Ordering::Relaxed),
                shared.expensive_sent.load(Ordering::Relaxed)
            ));
        }
        eprintln!(
            "[{:7.1}s] {phase:7}  games {}/{games}  connections {}  shots {}  errors {}  p99 {p99}{extra}",
            started.elapsed().as_secs_f64(),
            shared.games_running.load(Ordering::Relaxed),
            shared.connections.load(Ordering::Relaxed),
            shared.shots.load(Ordering::Relaxed),
            shared.errors(),
        );
    };

    // The ramp: until every game runs and the probe and the attack are
    // connected (or the grace after the plan is over).
    let give_up = started + ramp + RAMP_GRACE;
    let mut tick = started + Duration::from_secs(1);
    loop {
        let running = shared.games_running.load(Ordering::Relaxed);
        let ready = shared.extras_ready.load(Ordering::Relaxed);
        if running >= games && ready >= extras {
            break;
        }
        let now = Instant::now();
        if now >= give_up {
            eprintln!(
                "warning: only {running} of {games} games running and {ready} of {extras} \
                 probe and attack connections ready {:.1} s after the start; measuring anyway",
                now.duration_since(started).as_secs_f64()
            );
            break;
        }
        if now >= tick {
            progress("ramp");
            tick += Duration::from_secs(1);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let window_start = Instant::now();
    let ramp_seconds = window_start.duration_since(started).as_secs_f64();
    let window_end = window_start + Duration::from_secs_f64(args.seconds);
    shared.measuring.store(true, Ordering::Relaxed);
    window_tx.send_replace(Some((window_start, window_end)));
    let server_cpu_start = server_pid.and_then(process_cpu_seconds);
    let client_cpu_start = own_cpu_seconds();
    let mut rss_max = server_pid.and_then(rss_mib);
    let mut tick = window_start + Duration::from_secs(1);
    while tick < window_end {
        sleep_until(tick.into()).await;
        if let Some(rss) = server_pid.and_then(rss_mib) {
            rss_max = Some(rss_max.map_or(rss, |max: f64| max.max(rss)));
        }
        progress("measure");
        tick += Duration::from_secs(1);
    }
    sleep_until(window_end.into()).await;
    shared.measuring.store(false, Ordering::Relaxed);
    let seconds = window_start.elapsed().as_secs_f64();
    let games_running = shared.games_running.load(Ordering::Relaxed);
    let connections_open = shared.connections.load(Ordering::Relaxed);
    let shots = shared.shots.load(Ordering::Relaxed);
    let quantiles = shared.quantiles();
    let server_rss = server_pid.and_then(rss_mib);
    if let Some(rss) = server_rss {
        rss_max = Some(rss_max.map_or(rss, |max: f64| max.max(rss)));
    }
    let server_cpu = server_pid
        .and_then(process_cpu_seconds)
        .zip(server_cpu_start)
        .map(|(end, start)| round1(end - start));
    let client_cpu = own_cpu_seconds()
        .zip(client_cpu_start)
        .map(|(end, start)| round1(end - start));
    let client_rss = rss_mib(std::process::id());
    let extra_connections = shared.extra_connections.load(Ordering::Relaxed);
    let extras_ready = shared.extras_ready.load(Ordering::Relaxed);
    // The probe waits for the pongs of its last pings (at most PATIENCE), the
    // attack ends with the window.
    let extras_done = Instant::now() + PATIENCE + Duration::from_secs(2);
    while shared.extras_measuring.load(Ordering::Relaxed) > 0 && Instant::now() < extras_done {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (pings, ping_count) = shared.ping_quantiles();
    let expensive_answers = shared.expensive_answers.load(Ordering::Relaxed);
    let expensive_last = (expensive_answers > 0).then(|| {
        let micros = shared.expensive_last_micros.load(Ordering::Relaxed);
        (micros as f64 / 10_000.0).round() / 100.0
    });
    progress("done");

    let _ = stop_tx.send(true);
    let wind_down = tokio::time::Instant::now() + Duration::from_secs(5);
    for task in tasks.into_iter().chain(extra_tasks) {
        let _ = timeout_at(wind_down, task).await;
    }

    if let Some(path) = &args.final_views {
        let views = shared.final_views.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = String::new();
        for view in views.iter() {
            text.push_str(&view.to_string());
            text.push('\n');
        }
        std::fs::write(path, text)
            .with_context(|| format!("writing the final views to {}", path.display()))?;
    }
    let errors = shared.errors();
    let error_codes = shared
        .error_codes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let shots_per_second = round1(shots as f64 / seconds);
    let report = json!({
        "games": games_running,
        "games_requested": games,
        "connections": connections_open,
        "shots": shots,
        "errors": errors,
        "error_frames": shared.error_frames.load(Ordering::Relaxed),
        "connect_errors": shared.connect_errors.load(Ordering::Relaxed),
        "closed": shared.closed.load(Ordering::Relaxed),
        "timeouts": shared.timeouts.load(Ordering::Relaxed),
        "error_codes": error_codes,
        "p50_ms": quantiles.map(|q| q.0),
        "p99_ms": quantiles.map(|q| q.1),
        "max_ms": quantiles.map(|q| q.2),
        "shots_per_second": shots_per_second,
        "games_finished": shared.games_finished.load(Ordering::Relaxed),
        "resumed": shared.resumed.load(Ordering::Relaxed),
        "acknowledged": shared.acknowledged.load(Ordering::Relaxed),
        "lost_acknowledged": shared.lost_acknowledged.load(Ordering::Relaxed),
        "ramp_seconds": (ramp_seconds * 100.0).round() / 100.0,
        "seconds": round1(seconds),
        "pace_ms": args.pace_ms,
        "server_pid": server_pid,
        "server_rss_mib": server_rss,
        "server_rss_max_mib": rss_max,
        "server_cpu_seconds": server_cpu,
        "client_cpu_seconds": client_cpu,
        "client_rss_mib": client_rss,
        "extra_connections": extra_connections,
        "extras_ready": extras_ready,
        "probe_ms": args.probe_ms,
        "pings": ping_count,
        "pings_lost": shared.pings_lost.load(Ordering::Relaxed),
        "ping_p50_ms": pings.map(|q| q.0),
        "ping_p99_ms": pings.map(|q| q.1),
        "ping_max_ms": pings.map(|q| q.2),
        "expensive": args.expensive,
        "expensive_sent": shared.expensive_sent.load(Ordering::Relaxed),
        "expensive_answers": expensive_answers,
        "expensive_kinds": shared.expensive_kinds.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        "expensive_last_answer_seconds": expensive_last,
    });
    if args.json {
        println!("{report}");
    } else {
        let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} ms"));
        println!(
            "{games_running} of {games} games running over {connections_open} connections \
             (ramp {ramp_seconds:.2} s), measured for {seconds:.1} s"
        );
        println!(
            "shots {shots} ({shots_per_second:.1}/s), games finished {}",
            shared.games_finished.load(Ordering::Relaxed)
        );
        println!(
            "latency p50 {}  p99 {}  max {}",
            ms(quantiles.map(|q| q.0)),
            ms(quantiles.map(|q| q.1)),
            ms(quantiles.map(|q| q.2))
        );
        println!(
            "errors {errors} (error frames {}, failed connections {}, closed {}, timeouts {})",
            shared.error_frames.load(Ordering::Relaxed),
            shared.connect_errors.load(Ordering::Relaxed),
            shared.closed.load(Ordering::Relaxed),
            shared.timeouts.load(Ordering::Relaxed)
        );
        match server_pid {
            Some(pid) => println!(
                "server (pid {pid}): RSS {} MiB at the end, {} MiB at most; CPU {} s",
                server_rss.map_or("-".to_string(), |v| format!("{v:.1}")),
                rss_max.map_or("-".to_string(), |v| format!("{v:.1}")),
                server_cpu.map_or("-".to_string(), |v| format!("{v:.1}"))
            ),
            None => println!("server process not found on this machine"),
        }
        if args.probe_ms > 0 {
            println!(
                "probe: {ping_count} pings every {} ms, {} lost; ping p50 {}  p99 {}  max {}",
                args.probe_ms,
                shared.pings_lost.load(Ordering::Relaxed),
                ms(pings.map(|q| q.0)),
                ms(pings.map(|q| q.1)),
                ms(pings.map(|q| q.2))
            );
        }
        if args.expensive > 0 {
            println!(
                "attack: {} expensive set_options sent, {expensive_answers} answered{}",
                shared.expensive_sent.load(Ordering::Relaxed),
                expensive_last.map_or(String::new(), |s| format!(
                    ", the last {s:.2} s into the window"
                ))
            );
        }
        println!(
            "load generator: RSS {} MiB, CPU {} s",
            client_rss.map_or("-".to_string(), |v| format!("{v:.1}")),
            client_cpu.map_or("-".to_string(), |v| format!("{v:.1}"))
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(seat: u64, rows: &[&str]) -> View {
        View {
            seat: Some(seat),
            phase: "battle".to_string(),
            to_move: vec![seat],
            boards: vec![
                Board {
                    owner: Some(0),
                    rows: vec!["~~~".to_string(); 3],
                },
                Board {
                    owner: Some(1),
                    rows: rows.iter().map(|r| r.to_string()).collect(),
                },
            ],
        }
    }

    #[test]
    fn targets_are_unshot_cells_of_the_opponent() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let battle = view(0, &["OX#", "O~O", ".~*"]);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            seen.insert(pick_target(&battle, &mut rng).expect("two cells are left"));
        }
        let expected: std::collections::BTreeSet<_> = [(1, 1, 1), (1, 1, 2)].into();
        assert_eq!(seen, expected);
        assert_eq!(pick_target(&view(0, &["OOO"]), &mut rng), None);
    }

    #[test]
    fn games_alternate_between_two_connections_and_one() {
        assert_eq!(connections_for(10, 50), 15);
        assert_eq!(connections_for(1, 50), 2);
        assert_eq!(connections_for(3, 50), 5);
        assert!((0..7).all(|i| person_vs_person(i, 50) == (i % 2 == 0)));
        assert_eq!(connections_for(10, 0), 20, "all person against person");
        assert_eq!(connections_for(10, 100), 10, "all against a bot");
        assert_eq!(connections_for(100, 25), 175);
    }

    #[test]
    fn jitter_stays_within_half_the_pace() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let pace = Duration::from_millis(2000);
        for _ in 0..1000 {
            let d = jitter(pace, &mut rng);
            assert!(d >= Duration::from_millis(1000) && d <= Duration::from_millis(3000));
        }
    }

    #[test]
    fn proc_net_tcp_addresses_are_read_in_kernel_order() {
        assert_eq!(
            parse_proc_addr("0100007F:1F90"),
            Some("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            parse_proc_addr("00000000000000000000000001000000:0050"),
            Some("[::1]:80".parse().unwrap())
        );
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
           0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0\n\
           1: 0100007F:1F90 0100007F:C000 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0 100 0 0 10 0\n\
           2: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0 100 0 0 10 0\n";
        assert_eq!(
            listening_inodes(table, "127.0.0.1:8080".parse().unwrap()),
            vec![4242]
        );
        assert_eq!(
            listening_inodes(table, "127.0.0.1:8081".parse().unwrap()),
            vec![4444]
        );
    }

    #[tokio::test]
    async fn a_503_on_upgrade_counts_as_a_failed_connection() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("loopback binds");
        let addr = listener.local_addr().expect("bound");
        let server = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut stream, _) = listener.accept().expect("the generator connects");
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            stream
                .write_all(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n")
                .expect("the answer is written");
        });
        let setup = Setup {
            resume: false,
            final_views: false,
            addr,
            url: format!("ws://{addr}/ws"),
            preset: "classic".to_string(),
            pace: Duration::from_millis(100),
            ws_config: WebSocketConfig::default(),
        };
        let shared = Shared::new().expect("a histogram");
        let (_stop_tx, mut stop) = watch::channel(false);
        assert!(matches!(
            connect(&setup, &shared, &mut stop).await,
            Err(Stop::Failed)
        ));
        assert_eq!(shared.connect_errors.load(Ordering::Relaxed), 1);
        assert_eq!(shared.errors(), 1);
        assert_eq!(shared.connections.load(Ordering::Relaxed), 0);
        server.join().expect("the fake server ends");
    }

    /// A state that no longer shows an acknowledged shot counts it as lost,
    /// once; a new game's placement starts the list afresh.
    #[tokio::test]
    async fn acknowledged_shots_missing_from_a_later_state_are_counted() {
        let (ws, _) = ws_pair().await;
        let shared = Shared::new().expect("a histogram");
        let mut player = Player::new(ws, &shared);
        player.acked = vec![(1, 0, 0), (1, 2, 1)];
        let board = |rows: &[&str]| Board {
            owner: Some(1),
            rows: rows.iter().map(|r| r.to_string()).collect(),
        };
        let state = |phase: &str, rows: &[&str]| View {
            seat: Some(0),
            phase: phase.into(),
            to_move: vec![0],
            boards: vec![board(rows)],
        };
        let mut lost_after = |phase: &str, rows: &[&str]| {
            check_acknowledged(&mut player, Some(&state(phase, rows)), &shared);
            shared.lost_acknowledged.load(Ordering::Relaxed)
        };
        assert_eq!(lost_after("battle", &["o~~", "~~X"]), 0);
        assert_eq!(lost_after("battle", &["o~~", "~~~"]), 1);
        assert_eq!(lost_after("battle", &["o~~", "~~~"]), 1, "counted once");
        assert_eq!(lost_after("placement", &["~~~", "~~~"]), 1);
        assert!(player.acked.is_empty());
    }

    /// Both ends of a WebSocket over loopback.
    async fn ws_pair() -> (Ws, Ws) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let addr = listener.local_addr().expect("bound");
        let server = tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.expect("accepts");
            tokio_tungstenite::accept_async(tcp)
                .await
                .expect("upgrades")
        });
        let tcp = TcpStream::connect(addr).await.expect("connects");
        let (client, _) = tokio_tungstenite::client_async(format!("ws://{addr}/ws"), tcp)
            .await
            .expect("handshake");
        (client, server.await.expect("the server side"))
    }

    #[test]
    fn the_listener_of_a_port_is_found() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("loopback binds");
        let addr = listener.local_addr().expect("bound");
        assert_eq!(find_listener(addr), Some(std::process::id()));
        assert!(rss_mib(std::process::id()).is_some_and(|rss| rss > 0.0));
        assert!(process_cpu_seconds(std::process::id()).is_some());
    }
}
