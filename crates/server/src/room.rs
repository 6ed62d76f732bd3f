//! One room: its seats, its lobby settings and its current game, owned by one
//! task (an actor). Every message about a room goes through the room's channel,
//! so commands on a game are applied one at a time, in arrival order.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use broadside_ai::{Bot, Level};
use broadside_engine::{
    Action, Command, Event, Game, Options, Phase, Placement, Preset, Rules, Setup, View,
};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, watch, Notify};
use tokio::time::Instant;

use crate::cluster::Cluster;
use crate::cpu::{CpuError, Key};
use crate::db::{
    ChatRecord, CommandRecord, DbError, GameRecord, GameResults, Lease, RoomRecord, SeatRecord,
    SeatResult,
};
use crate::protocol::{self, ClientFrame, Refusal, Role, SeatChoice, SetOptions};
use crate::ratings::{Rating, PROVISIONAL_DEVIATION};
use crate::secret;
use crate::server::{now_ms, Shared};

/// Identifies one WebSocket connection.
pub type ConnId = u64;
/// Frames to one connection, already serialized: a bounded queue that the
/// connection drains into its socket. When a frame does not fit (the client
/// reads too slowly), the frame is dropped and the connection is told to
/// close itself (`stalled`), so it never lives on silently without its frames.
/// A connection on another node of the cluster is reached over the bus.
#[derive(Clone)]
pub enum Outbox {
    Local(LocalOutbox),
    Remote {
        cluster: Arc<Cluster>,
        node: String,
        conn: ConnId,
    },
}

#[derive(Clone)]
pub struct LocalOutbox {
    frames: mpsc::Sender<String>,
    /// Bytes queued and not yet taken by the connection.
    queued: Arc<AtomicUsize>,
    max_bytes: usize,
    stalled: Arc<Notify>,
    control: mpsc::UnboundedSender<Control>,
}

/// What a room (or the cluster) asks of a connection besides frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// The room moved to another node: join it afresh.
    Rejoin(String),
    /// A quick match paired this person into a new room: join it.
    Join(String),
}

/// The connection's end of its outbox.
pub struct Inbox {
    frames: mpsc::Receiver<String>,
    queued: Arc<AtomicUsize>,
    pub stalled: Arc<Notify>,
}

/// The connection's end of its controls.
pub type Controls = mpsc::UnboundedReceiver<Control>;

impl Outbox {
    /// A queue of at most `max_frames` frames and `max_bytes` bytes.
    pub fn new(max_frames: usize, max_bytes: usize) -> (Outbox, Inbox, Controls) {
        let (frames, receiver) = mpsc::channel(max_frames.max(1));
        let (control, control_receiver) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let stalled = Arc::new(Notify::new());
        (
            Outbox::Local(LocalOutbox {
                frames,
                queued: queued.clone(),
                max_bytes,
                stalled: stalled.clone(),
                control,
            }),
            Inbox {
                frames: receiver,
                queued,
                stalled,
            },
            control_receiver,
        )
    }

    /// The outbox of connection `conn` on another node.
    pub fn remote(cluster: Arc<Cluster>, node: String, conn: ConnId) -> Outbox {
        Outbox::Remote {
            cluster,
            node,
            conn,
        }
    }

    /// Queues a frame; `false` if it could not be (the connection is then told
    /// it stalled, or is already gone).
    pub fn send(&self, frame: String) -> bool {
        match self {
            Outbox::Local(local) => local.send(frame),
            Outbox::Remote {
                cluster,
                node,
                conn,
            } => cluster.send_frame(node, *conn, frame),
        }
    }

    /// Tells the connection to join room `code` afresh (it moved).
    pub fn rejoin(&self, code: &str) {
        self.control(Control::Rejoin(code.to_string()));
    }

    /// Hands the connection a control, wherever it is.
    pub fn control(&self, control: Control) {
        match self {
            Outbox::Local(local) => {
                let _ = local.control.send(control);
            }
            Outbox::Remote {
                cluster,
                node,
                conn,
            } => cluster.send_control(node, *conn, control),
        }
    }
}

impl LocalOutbox {
    fn send(&self, frame: String) -> bool {
        let size = frame.len();
        if self.queued.fetch_add(size, Ordering::AcqRel) + size > self.max_bytes {
            self.queued.fetch_sub(size, Ordering::AcqRel);
            self.stalled.notify_one();
            return false;
        }
        match self.frames.try_send(frame) {
            Ok(()) => true,
            Err(error) => {
                self.queued.fetch_sub(size, Ordering::AcqRel);
                if matches!(error, mpsc::error::TrySendError::Full(_)) {
                    self.stalled.notify_one();
                }
                false
            }
        }
    }
}

impl Inbox {
    /// The next frame to write to the socket.
    pub async fn recv(&mut self) -> Option<String> {
        let frame = self.frames.recv().await?;
        self.queued.fetch_sub(frame.len(), Ordering::AcqRel);
        Some(frame)
    }
}

/// Chat lines a joining client receives.
const CHAT_HISTORY: usize = 50;

/// A person as a connection knows them.
#[derive(Clone, Debug)]
pub struct Person {
    pub player_id: i64,
    pub nickname: String,
}

/// What a room's actor is asked to do.
pub enum RoomMsg {
    /// A connection joins; the answer says whether it is now in the room.
    /// (Boxed, like a request, so that the message stays small: a room's
    /// queue sets aside room for 32 messages at once.)
    Join(Box<Joining>),
    /// `leave`: before the start the seat is given up.
    Leave { conn: ConnId },
    /// The connection closed (or moves to another room); the seat is kept.
    /// `done` answers once the room will send this connection nothing more.
    Disconnect {
        conn: ConnId,
        done: Option<oneshot::Sender<()>>,
    },
    /// Answers once every earlier message has been handled (so a read of the
    /// database after it sees this connection's earlier frames applied).
    Sync { done: oneshot::Sender<()> },
    /// Starts the game of a room made full (a quick match): no host asks.
    StartNow {
        done: oneshot::Sender<Result<(), Refusal>>,
    },
    /// A frame for the room from a connection that is in it.
    /// `id` is the frame's request id, echoed on its direct answer or error.
    Request {
        conn: ConnId,
        request: Box<Request>,
        id: Option<u64>,
    },
}

/// A connection that joins a room.
pub struct Joining {
    pub conn: ConnId,
    pub person: Person,
    pub role: Role,
    /// The client's address: the pool's fairness key for its work.
    pub ip: IpAddr,
    pub outbox: Outbox,
    /// The refusal (room_full, ...) goes back to the connection, which
    /// answers the frame that asked.
    pub reply: oneshot::Sender<Result<(), Refusal>>,
}

/// The room frames of docs/protocol.md.
pub enum Request {
    SetSeat {
        seat: usize,
        occupant: SeatChoice,
        level: Option<Level>,
    },
    SetOptions(SetOptions),
    Start,
    Command(serde_json::Map<String, Value>),
    CheckLayout(Vec<Placement>),
    RandomLayout(Vec<Placement>),
    PreviewAction(Action),
    Chat(String),
    Rematch,
    DeclineRematch,
}

impl Request {
    /// The room's request a client frame asks for; `None` for the frames a
    /// connection answers itself (hello, create_room, join_room, leave, …).
    pub fn from_frame(frame: ClientFrame) -> Option<Request> {
        Some(match frame {
            ClientFrame::SetSeat(set) => Request::SetSeat {
                seat: set.seat,
                occupant: set.occupant,
                level: set.level,
            },
            ClientFrame::SetOptions(set) => Request::SetOptions(set),
            ClientFrame::Start => Request::Start,
            ClientFrame::Command(command) => Request::Command(command),
            ClientFrame::Resign => {
                let mut command = serde_json::Map::new();
                command.insert("cmd".into(), Value::from("resign"));
                Request::Command(command)
            }
            ClientFrame::CheckLayout(ships) => Request::CheckLayout(ships),
            ClientFrame::RandomLayout(fixed) => Request::RandomLayout(fixed),
            ClientFrame::PreviewAction(action) => Request::PreviewAction(action),
            ClientFrame::Chat(text) => Request::Chat(text),
            ClientFrame::Rematch => Request::Rematch,
            ClientFrame::DeclineRematch => Request::DeclineRematch,
            ClientFrame::Hello(_)
            | ClientFrame::CreateRoom(_)
            | ClientFrame::JoinRoom(_)
            | ClientFrame::Leave
            | ClientFrame::MyGames
            | ClientFrame::Ping
            | ClientFrame::QuickMatch(_)
            | ClientFrame::CancelMatch
            | ClientFrame::AcceptBot
            | ClientFrame::OpenRooms
            | ClientFrame::Leaderboard(_)
            | ClientFrame::History => return None,
        })
    }

    fn name(&self) -> &'static str {
        match self {
            Request::SetSeat { .. } => "set_seat",
            Request::SetOptions(_) => "set_options",
            Request::Start => "start",
            Request::Command(_) => "command",
            Request::CheckLayout(_) => "check_layout",
            Request::RandomLayout(_) => "random_layout",
            Request::PreviewAction(_) => "preview_action",
            Request::Chat(_) => "chat",
            Request::Rematch => "rematch",
            Request::DeclineRematch => "decline_rematch",
        }
    }
}

/// A room's game settings without a seed: what the lobby shows and edits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomSetup {
    pub preset: Preset,
    pub seats: usize,
    #[serde(default)]
    pub options: Options,
    #[serde(default)]
    pub teams: Option<Vec<u32>>,
    /// Listed among the open rooms while in its lobby.
    #[serde(default)]
    pub public: bool,
    /// Whether a game between people here changes their ratings.
    #[serde(default)]
    pub rated: bool,
    /// The host's language (shown in the open rooms' list).
    #[serde(default)]
    pub language: Option<String>,
}

impl RoomSetup {
    fn engine(&self, seed: u64) -> Setup {
        Setup {
            preset: self.preset,
            seats: self.seats,
            seed,
            options: self.options.clone(),
            teams: self.teams.clone(),
        }
    }

    /// The resolved rules, if the engine accepts this setup (it also refuses
    /// mixes that only `Game::new` checks, such as specials in the shared sea).
    pub fn check(&self) -> Result<Rules, Refusal> {
        let game = Game::new(&self.engine(0))?;
        Ok(game.rules().clone())
    }
}

/// Who holds a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Occupant {
    Open,
    Person(Person),
    Bot(Level),
}

impl PartialEq for Person {
    fn eq(&self, other: &Self) -> bool {
        self.player_id == other.player_id
    }
}
impl Eq for Person {}

impl Occupant {
    fn record(&self) -> SeatRecord {
        match self {
            Occupant::Open => SeatRecord {
                kind: "open".into(),
                player_id: None,
                nickname: None,
                level: None,
            },
            Occupant::Person(person) => SeatRecord {
                kind: "person".into(),
                player_id: Some(person.player_id),
                nickname: Some(person.nickname.clone()),
                level: None,
            },
            Occupant::Bot(level) => SeatRecord {
                kind: "bot".into(),
                player_id: None,
                nickname: None,
                level: Some(level.id().into()),
            },
        }
    }

    fn from_record(record: &SeatRecord) -> Occupant {
        match (record.kind.as_str(), record.player_id) {
            ("person", Some(player_id)) => Occupant::Person(Person {
                player_id,
                nickname: record.nickname.clone().unwrap_or_default(),
            }),
            ("bot", _) => Occupant::Bot(
                record
                    .level
                    .as_deref()
                    .and_then(Level::from_id)
                    .unwrap_or(Level::Medium),
            ),
            _ => Occupant::Open,
        }
    }

    fn holds(&self, player_id: i64) -> bool {
        matches!(self, Occupant::Person(p) if p.player_id == player_id)
    }
}

/// One connection in the room.
struct Member {
    outbox: Outbox,
    ip: IpAddr,
    person: Person,
    /// Joined with `as: "spectator"`: watches even if the person holds a seat.
    spectator: bool,
}

/// When the running timer expires, both as an instant (to sleep on) and as unix
/// milliseconds (to store: instants do not survive a restart).
#[derive(Clone, Copy, Debug)]
struct Deadline {
    at: Instant,
    unix_ms: i64,
}

impl Deadline {
    fn in_seconds(seconds: u32) -> Deadline {
        let duration = Duration::from_secs(u64::from(seconds));
        Deadline {
            at: Instant::now() + duration,
            unix_ms: now_ms() + duration.as_millis() as i64,
        }
    }

    fn from_unix_ms(unix_ms: i64) -> Deadline {
        let left = (unix_ms - now_ms()).max(0) as u64;
        Deadline {
            at: Instant::now() + Duration::from_millis(left),
            unix_ms,
        }
    }

    fn left_ms(&self) -> u64 {
        self.at
            .saturating_duration_since(Instant::now())
            .as_millis() as u64
    }
}

/// The game being played in a room.
struct Running {
    /// Row id in `games`.
    id: i64,
    game: Game,
    /// Commands accepted so far (the log's last sequence number).
    seq: u64,
    /// One bot per bot seat, kept for the whole game (bots may remember).
    bots: BTreeMap<usize, Bot>,
    deadline: Option<Deadline>,
    /// When the bots to move should act (a human-friendly delay after a change).
    bot_due: Option<Instant>,
    /// The seats knocked out so far, one group per command, in order (for
    /// the placings).
    out: Vec<Vec<usize>>,
}

/// The seats a command knocked out.
fn knocked_out(events: &[Event]) -> Vec<usize> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Eliminated { seat } => Some(*seat),
            _ => None,
        })
        .collect()
}

/// A room and everything its actor owns.
pub struct Room {
    shared: Arc<Shared>,
    /// Distinct per actor: the pool's fairness key for the room's own work.
    id: u64,
    code: String,
    setup: RoomSetup,
    /// `setup` resolved by the engine, for the room frame.
    rules: Rules,
    seats: Vec<Occupant>,
    host: usize,
    /// 0 before the first start; 1, 2, … after each start or rematch.
    game_number: u32,
    game: Option<Running>,
    members: BTreeMap<ConnId, Member>,
    chat: VecDeque<ChatRecord>,
    /// This node's hold on the room; every write carries it (db.rs, "Leases").
    lease: Lease,
    /// A write was refused by the fence: another node owns the room now, and
    /// this actor must stop at once.
    fenced: bool,
    /// The ratings of the people seated here, in the room's preset.
    ratings: BTreeMap<i64, Rating>,
    /// The rematch on offer after the end: the seats of the people who asked
    /// or accepted, the one who offered first; empty when none is on offer.
    /// A new game needs every person's seat here (bots accept at once), so
    /// nobody is thrown into a new game with a running clock unasked. Kept in
    /// memory only: a room that leaves memory withdraws its offer.
    rematch: Vec<usize>,
}

/// Why a room could not be brought back from the database.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("room {code}: {message}")]
    Broken { code: String, message: String },
}

fn bot_seed(seed: u64, seat: usize) -> u64 {
    // Distinct, reproducible seeds per seat derived from the game's seed.
    seed ^ (seat as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn internal(error: impl std::fmt::Display) -> Refusal {
    Refusal::new(
        "internal",
        format!("the server could not store this: {error}"),
    )
}

impl Room {
    /// A new lobby; the creator holds seat 0 and is host. `None` if the code
    /// is already taken.
    pub async fn create(
        shared: Arc<Shared>,
        code: String,
        setup: RoomSetup,
        rules: Rules,
        creator: Person,
        guest: Option<Person>,
        bots: &[(usize, Level)],
    ) -> Result<Option<Room>, Refusal> {
        let mut seats = vec![Occupant::Open; setup.seats];
        seats[0] = Occupant::Person(creator);
        if let (Some(guest), Some(seat)) = (guest, seats.get_mut(1)) {
            *seat = Occupant::Person(guest);
        }
        for &(seat, level) in bots {
            if seat == 0 || seat >= setup.seats {
                return Err(Refusal::bad_request(format!(
                    "a bot needs a seat from 1 to {}",
                    setup.seats - 1
                )));
            }
            seats[seat] = Occupant::Bot(level);
        }
        let mut room = Room {
            id: shared.next_conn_id(),
            lease: Lease {
                code: code.clone(),
                node: shared.config.node.clone(),
                token: 0,
            },
            shared,
            code,
            setup,
            rules,
            seats,
            host: 0,
            game_number: 0,
            game: None,
            members: BTreeMap::new(),
            chat: VecDeque::new(),
            fenced: false,
            ratings: BTreeMap::new(),
            rematch: Vec::new(),
        };
        let config = &room.shared.config;
        let created = room
            .shared
            .db
            .create_room(room.record(), now_ms(), &config.node, config.lease_ttl)
            .await
            .map_err(internal)?;
        Ok(created.map(|lease| {
            room.lease = lease;
            room
        }))
    }

    /// A room from the database, its game replayed from the log (on the pool:
    /// a long game is thousands of commands).
    pub async fn restore(
        shared: Arc<Shared>,
        record: RoomRecord,
        game: Option<GameRecord>,
        lease: Lease,
    ) -> Result<Room, RestoreError> {
        let code = record.code.clone();
        let broken = |message: String| RestoreError::Broken {
            code: code.clone(),
            message,
        };
        let chat = shared
            .db
            .recent_chat(code.clone(), CHAT_HISTORY)
            .await
            .map_err(|e| broken(e.to_string()))?;
        let id = shared.next_conn_id();
        let rebuilt = shared
            .cpu
            .run(Key::Room(id), move || Room::rebuild(record, game))
            .await
            .map_err(|e| broken(e.to_string()))??;
        let (setup, rules, seats, running) = rebuilt;
        let mut room = Room {
            shared,
            id,
            code: code.clone(),
            setup,
            rules,
            seats: seats.0,
            host: seats.1,
            game_number: seats.2,
            game: running,
            members: BTreeMap::new(),
            chat: chat.into(),
            lease,
            fenced: false,
            ratings: BTreeMap::new(),
            rematch: Vec::new(),
        };
        room.schedule_bots();
        Ok(room)
    }

    /// The room's settings, seats and game from its records.
    #[allow(clippy::type_complexity)]
    fn rebuild(
        record: RoomRecord,
        game: Option<GameRecord>,
    ) -> Result<
        (
            RoomSetup,
            Rules,
            (Vec<Occupant>, usize, u32),
            Option<Running>,
        ),
        RestoreError,
    > {
        let code = record.code.clone();
        let broken = |message: String| RestoreError::Broken {
            code: code.clone(),
            message,
        };
        let setup: RoomSetup =
            serde_json::from_str(&record.setup).map_err(|e| broken(e.to_string()))?;
        let rules = setup.check().map_err(|e| broken(e.message))?;
        let mut seats: Vec<Occupant> = record.seats.iter().map(Occupant::from_record).collect();
        seats.resize(setup.seats, Occupant::Open);
        let running = match game {
            None => None,
            Some(stored) => {
                let engine_setup: Setup =
                    serde_json::from_str(&stored.setup).map_err(|e| broken(e.to_string()))?;
                let mut game = Game::new(&engine_setup).map_err(|e| broken(e.to_string()))?;
                let mut bots = Room::bots_for(&seats, engine_setup.seed);
                let mut out = Vec::new();
                for (index, text) in stored.commands.iter().enumerate() {
                    let command: Command =
                        serde_json::from_str(text).map_err(|e| broken(e.to_string()))?;
                    let events = game.apply(command).map_err(|e| {
                        broken(format!("command {} no longer applies: {e}", index + 1))
                    })?;
                    for (&seat, bot) in bots.iter_mut() {
                        bot.observe(&game.events_for(Some(seat), &events));
                    }
                    let gone = knocked_out(&events);
                    if !gone.is_empty() {
                        out.push(gone);
                    }
                }
                let deadline = match game.phase() {
                    Phase::Finished => None,
                    _ => stored.deadline_ms.map(Deadline::from_unix_ms),
                };
                Some(Running {
                    id: stored.id,
                    game,
                    seq: stored.commands.len() as u64,
                    bots,
                    deadline,
                    bot_due: None,
                    out,
                })
            }
        };
        Ok((
            setup,
            rules,
            (seats, record.host, record.game_number),
            running,
        ))
    }

    fn bots_for(seats: &[Occupant], seed: u64) -> BTreeMap<usize, Bot> {
        seats
            .iter()
            .enumerate()
            .filter_map(|(seat, occupant)| match occupant {
                Occupant::Bot(level) => Some((seat, Bot::for_level(*level, bot_seed(seed, seat)))),
                _ => None,
            })
            .collect()
    }

    /// The actor's loop: messages, the game timer and the bots' moves, until
    /// the server shuts down, the room has been idle long enough to leave
    /// memory (it is loaded again from the database when somebody joins), or
    /// another node has taken the room (a cluster, after this node stalled).
    pub async fn run(
        mut self,
        mut inbox: mpsc::Receiver<RoomMsg>,
        me: mpsc::WeakSender<RoomMsg>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        let idle_after = self.shared.config.idle_room;
        // Only a shared database has leases to keep.
        let shared_db = self.shared.db.is_shared();
        let mut renew = tokio::time::interval(self.shared.config.lease_ttl / 3);
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        renew.reset();
        // Handlers are awaited through `Box::pin`, so that a room between
        // messages holds its own state and not the largest handler's (as in
        // connection.rs).
        let end = loop {
            let wake = self.next_wake();
            // Nobody watches and no clock runs: nothing can happen until a join.
            let idle = self.members.is_empty() && wake.is_none();
            tokio::select! {
                message = inbox.recv() => match message {
                    Some(message) => Box::pin(self.handle(message)).await,
                    None => break End::Closed,
                },
                () = sleep_until(wake) => Box::pin(self.on_wake()).await,
                () = tokio::time::sleep(idle_after), if idle => break End::Idle,
                _ = renew.tick(), if shared_db => {
                    self.drop_silent_members();
                    match Box::pin(self.shared.db.renew(&self.lease, self.shared.config.lease_ttl)).await {
                        Ok(true) => {}
                        Ok(false) => self.fenced = true,
                        // The database is unreachable: keep going; if it
                        // stays so past the lease, the fence stops us later.
                        Err(error) => eprintln!("broadside: room {}: cannot renew its lease: {error}", self.code),
                    }
                }
                _ = shutdown.changed() => break End::Shutdown,
            }
            if self.fenced {
                break End::Lost;
            }
        };
        Box::pin(self.end(end, &me)).await;
    }

    /// Lets the room go: from the registry, from the lease table and, when the
    /// room moved, from its members (who join it where it is now).
    async fn end(self, end: End, me: &mpsc::WeakSender<RoomMsg>) {
        let db = &self.shared.db;
        match end {
            End::Closed => {}
            End::Idle => {
                // Joins queued meanwhile are dropped unanswered; their
                // connections then load the room afresh.
                self.shared.retire_room(&self.code, me).await;
                if let Err(error) = db.release(&self.lease, false).await {
                    eprintln!("broadside: room {}: cannot release it: {error}", self.code);
                }
            }
            End::Shutdown => {
                // A game with a clock or bots must go on elsewhere at once.
                let running = self
                    .game
                    .as_ref()
                    .is_some_and(|r| r.game.phase() != Phase::Finished);
                if let Err(error) = db.release(&self.lease, running).await {
                    eprintln!(
                        "broadside: room {}: cannot hand it over: {error}",
                        self.code
                    );
                }
                if let Some(cluster) = &self.shared.cluster {
                    cluster.announce_owner(&self.code, None).await;
                }
            }
            End::Lost => {
                eprintln!(
                    "broadside: room {}: another node owns it now; letting it go",
                    self.code
                );
                self.shared.retire_room(&self.code, me).await;
                for member in self.members.values() {
                    member.outbox.rejoin(&self.code);
                }
            }
        }
    }

    fn next_wake(&self) -> Option<Instant> {
        let running = self.game.as_ref()?;
        match (running.deadline.map(|d| d.at), running.bot_due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    async fn handle(&mut self, message: RoomMsg) {
        match message {
            RoomMsg::Join(joining) => {
                let Joining {
                    conn,
                    person,
                    role,
                    ip,
                    outbox,
                    reply,
                } = *joining;
                let joined = self.join(conn, person, role, ip, outbox).await;
                let _ = reply.send(joined);
            }
            RoomMsg::Leave { conn } => self.leave(conn).await,
            RoomMsg::Disconnect { conn, done } => {
                if self.members.remove(&conn).is_some() {
                    self.broadcast_room();
                }
                if let Some(done) = done {
                    let _ = done.send(());
                }
            }
            RoomMsg::Sync { done } => {
                let _ = done.send(());
            }
            RoomMsg::StartNow { done } => {
                let started = if self.started() {
                    Ok(())
                } else {
                    self.start_game(Key::Room(self.id)).await
                };
                let _ = done.send(started);
            }
            RoomMsg::Request { conn, request, id } => {
                let name = request.name();
                if let Err(refusal) = self.request(conn, *request, id).await {
                    self.send_to(conn, protocol::error_frame(&refusal, Some(name), id));
                }
            }
        }
    }

    async fn on_wake(&mut self) {
        let now = Instant::now();
        let Some(running) = self.game.as_mut() else {
            return;
        };
        if running.deadline.is_some_and(|d| d.at <= now) {
            running.deadline = None;
            // A refused timeout (the game just ended) leaves nothing to do.
            let _ = self.apply(Command::Timeout, Key::Room(self.id)).await;
            return;
        }
        if running.bot_due.is_some_and(|due| due <= now) {
            running.bot_due = None;
            self.play_bots().await;
        }
    }

    // ----- seats and members -------------------------------------------------------

    /// The seat a connection plays, if any.
    fn seat_of(&self, conn: ConnId) -> Option<usize> {
        let member = self.members.get(&conn)?;
        if member.spectator {
            return None;
        }
        self.seats
            .iter()
            .position(|o| o.holds(member.person.player_id))
    }

    fn is_host(&self, conn: ConnId) -> bool {
        self.seat_of(conn) == Some(self.host)
    }

    fn started(&self) -> bool {
        self.game.is_some()
    }

    async fn join(
        &mut self,
        conn: ConnId,
        person: Person,
        role: Role,
        ip: IpAddr,
        outbox: Outbox,
    ) -> Result<(), Refusal> {
        // A person who holds a seat watches through it: joining the own room as
        // a spectator must not show more than the seat may know (R-11.4 with
        // `spectators_see_all`). Before the start and after the end there is
        // nothing to hide, and watching without the seat is allowed.
        let seated = self.seats.iter().any(|o| o.holds(person.player_id));
        let in_play = self
            .game
            .as_ref()
            .is_some_and(|r| r.game.phase() != Phase::Finished);
        if role == Role::Spectator && seated && in_play {
            return Err(Refusal::new(
                "seated",
                "you hold a seat in this game; join as a player to see it through your seat",
            ));
        }
        if role == Role::Player {
            match self.seats.iter().position(|o| o.holds(person.player_id)) {
                Some(seat) => {
                    if let Occupant::Person(held) = &mut self.seats[seat] {
                        held.nickname = person.nickname.clone();
                    }
                }
                None => {
                    if self.started() {
                        return Err(Refusal::new(
                            "room_full",
                            "the game has started and you hold no seat here; join as a spectator",
                        ));
                    }
                    let Some(seat) = self.seats.iter().position(|o| *o == Occupant::Open) else {
                        return Err(Refusal::new(
                            "room_full",
                            "every seat is taken; join as a spectator",
                        ));
                    };
                    self.seats[seat] = Occupant::Person(person.clone());
                    if let Err(error) = self.persist_room().await {
                        self.seats[seat] = Occupant::Open;
                        return Err(error);
                    }
                }
            }
        }
        self.members.insert(
            conn,
            Member {
                outbox,
                ip,
                person,
                spectator: role == Role::Spectator,
            },
        );
        self.refresh_ratings().await;
        self.broadcast_room();
        if let Some(frame) = self.state_frame_for(conn, &[]) {
            self.send_to(conn, frame);
        }
        let history: Vec<String> = self
            .chat
            .iter()
            .map(|line| protocol::chat_frame(&line.nickname, line.seat, &line.text, line.at_ms))
            .collect();
        for frame in history {
            self.send_to(conn, frame);
        }
        Ok(())
    }

    async fn leave(&mut self, conn: ConnId) {
        let seat = self.seat_of(conn);
        let Some(member) = self.members.remove(&conn) else {
            return;
        };
        member
            .outbox
            .send(json!({"type": "left", "code": self.code}).to_string());
        if let Some(seat) = seat {
            // A person who walks away from the end answers any rematch offer.
            self.withdraw_rematch(seat, "left");
        }
        if let (Some(seat), false) = (seat, self.started()) {
            let before = (self.seats.clone(), self.host);
            self.seats[seat] = Occupant::Open;
            if seat == self.host {
                if let Some(next) = self
                    .seats
                    .iter()
                    .position(|o| matches!(o, Occupant::Person(_)))
                {
                    self.host = next;
                }
            }
            if self.persist_room().await.is_err() {
                // The seat stays taken rather than differ from the database.
                (self.seats, self.host) = before;
            }
        }
        self.broadcast_room();
    }

    /// Carries out a room frame; the placement helpers and previews answer the
    /// sender directly, echoing the frame's request `id`.
    async fn request(
        &mut self,
        conn: ConnId,
        request: Request,
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        match request {
            Request::SetSeat {
                seat,
                occupant,
                level,
            } => self.set_seat(conn, seat, occupant, level).await,
            Request::SetOptions(options) => self.set_options(conn, options).await,
            Request::Start => {
                self.check_host(conn)?;
                if self.started() {
                    return Err(Refusal::new("already_started", "the game has started"));
                }
                if self.seats.contains(&Occupant::Open) {
                    return Err(Refusal::new(
                        "seats_open",
                        "every seat needs a player or a bot",
                    ));
                }
                self.start_game(self.key_of(conn)).await
            }
            Request::Rematch => {
                let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
                let running = self.game.as_ref().ok_or_else(not_started)?;
                if running.game.phase() != Phase::Finished {
                    return Err(Refusal::new("not_finished", "the game is not over yet"));
                }
                // The first asks, the others accept by asking too.
                if !self.rematch.contains(&seat) {
                    self.rematch.push(seat);
                }
                if self.rematch_waiting().is_empty() {
                    self.start_game(self.key_of(conn)).await
                } else {
                    self.broadcast_room();
                    Ok(())
                }
            }
            Request::DeclineRematch => {
                let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
                if self.rematch.is_empty() {
                    return Err(Refusal::new(
                        "no_rematch_offer",
                        "nobody has offered a rematch",
                    ));
                }
                self.withdraw_rematch(seat, "declined");
                self.broadcast_room();
                Ok(())
            }
            Request::Command(command) => {
                let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
                if !self.started() {
                    return Err(not_started());
                }
                let command = protocol::seat_command(command, seat)?;
                self.apply(command, self.key_of(conn)).await
            }
            Request::CheckLayout(ships) => {
                let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
                let game = &self.game.as_ref().ok_or_else(not_started)?.game;
                let frame = match game.check_ships_partial(seat, &ships) {
                    Ok(_) => json!({
                        "type": "layout_check", "ok": true,
                        "complete": game.check_layout(seat, &ships).is_ok(),
                    }),
                    Err(error) => json!({
                        "type": "layout_check", "ok": false, "complete": false,
                        "error": {"code": error.code(), "message": error.to_string()},
                    }),
                };
                self.send_to(conn, protocol::with_id(frame, id));
                Ok(())
            }
            Request::RandomLayout(fixed) => {
                let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
                let game = self.game.as_ref().ok_or_else(not_started)?.game.clone();
                // A preview generator of its own: the game's generator must not move.
                let seed = secret::new_seed().map_err(internal)?;
                let ships = self
                    .shared
                    .cpu
                    .run(self.key_of(conn), move || {
                        game.random_completion(seat, &fixed, &mut Pcg64Mcg::seed_from_u64(seed))
                    })
                    .await
                    .map_err(busy)??;
                self.send_to(
                    conn,
                    protocol::with_id(json!({"type": "layout", "ships": ships}), id),
                );
                Ok(())
            }
            Request::PreviewAction(action) => {
                self.seat_of(conn).ok_or_else(not_a_player)?;
                let game = &self.game.as_ref().ok_or_else(not_started)?.game;
                if matches!(action, Action::Reserve { .. }) {
                    return Err(Refusal::bad_request(
                        "the reserve lands on the own field and covers no area to preview",
                    ));
                }
                // Pure geometry: the engine's area of the action, the same for
                // every viewer. It is empty exactly when the board does not exist
                // or the target lies off it (any target on the board covers at
                // least itself), so an empty area is the refusal.
                let cells = game.action_area(&action);
                if cells.is_empty() {
                    return Err(Refusal::new(
                        "out_of_bounds",
                        "the action's board or target is not on the table",
                    ));
                }
                self.send_to(conn, protocol::action_area_frame(&action, &cells, id));
                Ok(())
            }
            Request::Chat(text) => {
                let text = protocol::clean_chat(&text)?;
                let member = self.members.get(&conn).ok_or_else(not_in_room)?;
                let line = ChatRecord {
                    seat: self.seat_of(conn),
                    nickname: member.person.nickname.clone(),
                    text,
                    at_ms: now_ms(),
                };
                let stored = self
                    .shared
                    .db
                    .add_chat(self.code.clone(), line.clone(), &self.lease)
                    .await;
                stored.map_err(|error| self.write_failed(error))?;
                let frame = protocol::chat_frame(&line.nickname, line.seat, &line.text, line.at_ms);
                self.chat.push_back(line);
                if self.chat.len() > CHAT_HISTORY {
                    self.chat.pop_front();
                }
                self.broadcast(|_| Some(frame.clone()));
                Ok(())
            }
        }
    }

    /// The people's seats a rematch on offer still waits for (bots accept at
    /// once); every person's seat when none is on offer.
    fn rematch_waiting(&self) -> Vec<usize> {
        self.seats
            .iter()
            .enumerate()
            .filter(|(seat, occupant)| {
                matches!(occupant, Occupant::Person(_)) && !self.rematch.contains(seat)
            })
            .map(|(seat, _)| seat)
            .collect()
    }

    /// Withdraws the rematch on offer, if any, because `seat` declined it,
    /// took back its own yes, or left: everybody hears who and why (the
    /// caller then sends the room without the offer).
    fn withdraw_rematch(&mut self, seat: usize, reason: &str) {
        if self.rematch.is_empty() {
            return;
        }
        let reason = if reason == "declined" && self.rematch.contains(&seat) {
            "withdrawn"
        } else {
            reason
        };
        self.rematch.clear();
        let nickname = match &self.seats[seat] {
            Occupant::Person(person) => Some(person.nickname.clone()),
            _ => None,
        };
        let frame = json!({"type": "rematch_declined", "seat": seat, "nickname": nickname,
            "reason": reason})
        .to_string();
        self.broadcast(|_| Some(frame.clone()));
    }

    fn check_host(&self, conn: ConnId) -> Result<(), Refusal> {
        if self.is_host(conn) {
            Ok(())
        } else {
            Err(Refusal::new("not_host", "only the host may do this"))
        }
    }

    fn check_lobby(&self, conn: ConnId) -> Result<(), Refusal> {
        self.check_host(conn)?;
        if self.started() {
            return Err(Refusal::new(
                "already_started",
                "the game has started; the lobby can no longer change",
            ));
        }
        Ok(())
    }

    async fn set_seat(
        &mut self,
        conn: ConnId,
        seat: usize,
        occupant: SeatChoice,
        level: Option<Level>,
    ) -> Result<(), Refusal> {
        self.check_lobby(conn)?;
        if seat >= self.seats.len() {
            return Err(Refusal::bad_request(format!("there is no seat {seat}")));
        }
        if seat == self.host {
            return Err(Refusal::bad_request(
                "the host's own seat cannot be changed",
            ));
        }
        let previous = self.seats[seat].clone();
        self.seats[seat] = match occupant {
            SeatChoice::Bot => Occupant::Bot(level.unwrap_or(Level::Medium)),
            SeatChoice::Open => Occupant::Open,
        };
        if let Err(error) = self.persist_room().await {
            self.seats[seat] = previous;
            return Err(error);
        }
        self.broadcast_room();
        Ok(())
    }

    async fn set_options(&mut self, conn: ConnId, change: SetOptions) -> Result<(), Refusal> {
        self.check_lobby(conn)?;
        let mut setup = self.setup.clone();
        if let Some(preset) = change.preset {
            setup.preset = preset;
        }
        if let Some(seats) = change.seats {
            if seats <= self.host {
                return Err(Refusal::bad_request("the host's seat cannot be removed"));
            }
            setup.seats = seats;
        }
        if let Some(options) = change.options {
            setup.options = options;
        }
        if let Some(teams) = change.teams {
            setup.teams = teams;
        }
        if let Some(public) = change.public {
            setup.public = public;
        }
        if let Some(rated) = change.rated {
            setup.rated = rated;
        }
        // A custom fleet's fit check is a search: on the pool, in the client's turn.
        let rules = {
            let setup = setup.clone();
            self.shared
                .cpu
                .run(self.key_of(conn), move || setup.check())
                .await
                .map_err(busy)??
        };
        let before = (self.setup.clone(), self.rules.clone(), self.seats.clone());
        self.seats.resize(setup.seats, Occupant::Open);
        self.setup = setup;
        self.rules = rules;
        if let Err(error) = self.persist_room().await {
            (self.setup, self.rules, self.seats) = before;
            return Err(error);
        }
        self.broadcast_room();
        Ok(())
    }

    // ----- the game ----------------------------------------------------------------

    /// The timer that starts when the game enters its current phase or turn.
    fn phase_deadline(game: &Game) -> Option<Deadline> {
        let rules = game.rules();
        let seconds = match game.phase() {
            Phase::Shop => rules.shop_seconds,
            Phase::Placement => rules.place_seconds,
            Phase::Battle if game.in_salvo_round() => rules.round_seconds,
            Phase::Battle => rules.turn_seconds,
            Phase::Finished => 0,
        };
        (seconds > 0).then(|| Deadline::in_seconds(seconds))
    }

    /// The timer after a change: a new phase, turn or round starts a
    /// fresh one, and so does every shot in a duel (R-4.4: a hit gives a fresh
    /// timer); anything else (a seat getting ready, a salvo submitted) leaves it.
    fn next_deadline(
        game: &Game,
        events: &[Event],
        previous: Option<Deadline>,
    ) -> Option<Deadline> {
        if game.phase() == Phase::Finished {
            return None;
        }
        let fresh = events.iter().any(|event| match event {
            Event::PhaseChanged { .. } | Event::TurnStarted { .. } | Event::RoundStarted { .. } => {
                true
            }
            Event::Shot { .. } | Event::Volley { .. } | Event::ActionUsed { .. } => {
                game.phase() == Phase::Battle && !game.in_salvo_round()
            }
            _ => false,
        });
        if fresh {
            Room::phase_deadline(game)
        } else {
            previous
        }
    }

    async fn start_game(&mut self, key: Key) -> Result<(), Refusal> {
        let seed = secret::new_seed().map_err(internal)?;
        let setup = self.setup.engine(seed);
        let game = {
            let setup = setup.clone();
            self.shared
                .cpu
                .run(key, move || Game::new(&setup))
                .await
                .map_err(busy)??
        };
        let deadline = Room::phase_deadline(&game);
        let mut record = self.record();
        record.game_number = self.game_number + 1;
        record.phase = game.phase().id().into();
        record.to_move = json!(game.to_move()).to_string();
        let setup_json =
            serde_json::to_string(&setup).expect("a setup is plain data and always serializes");
        let id = self
            .shared
            .db
            .start_game(
                record.clone(),
                setup_json,
                deadline.map(|d| d.unix_ms),
                now_ms(),
                &self.lease,
            )
            .await;
        let id = id.map_err(|error| self.write_failed(error))?;
        self.game_number = record.game_number;
        self.rematch.clear();
        self.game = Some(Running {
            id,
            bots: Room::bots_for(&self.seats, seed),
            game,
            seq: 0,
            deadline,
            bot_due: None,
            out: Vec::new(),
        });
        self.broadcast_room();
        self.broadcast_state(&[]);
        self.schedule_bots();
        Ok(())
    }

    /// Applies one command: the engine decides, the log stores it, then every
    /// connection gets its own view. Commands that may place a fleet at random
    /// (placing at random, a timer running out, resigning during placement)
    /// are searches and run on the pool in `key`'s turn; the rest are cheap.
    async fn apply(&mut self, command: Command, key: Key) -> Result<(), Refusal> {
        let running = self.game.as_mut().ok_or_else(not_started)?;
        let before = running.game.clone();
        let heavy = matches!(
            command,
            Command::PlaceRandom { .. } | Command::Timeout | Command::Resign { .. }
        );
        let events = if heavy {
            let mut game = before.clone();
            let applied = command.clone();
            let (game, events) = self
                .shared
                .cpu
                .run(key, move || {
                    let events = game.apply(applied);
                    (game, events)
                })
                .await
                .map_err(busy)?;
            let events = events?;
            running.game = game;
            events
        } else {
            running.game.apply(command.clone())?
        };
        let deadline = Room::next_deadline(&running.game, &events, running.deadline);
        let command_json =
            serde_json::to_string(&command).expect("a command is plain data and always serializes");
        let record = CommandRecord {
            room_code: self.code.clone(),
            game_id: running.id,
            seq: running.seq + 1,
            command: command_json,
            at_ms: now_ms(),
            deadline_ms: deadline.map(|d| d.unix_ms),
            phase: running.game.phase().id(),
            to_move: json!(running.game.to_move()).to_string(),
            finished: running.game.phase() == Phase::Finished,
            summary_changed: running.game.phase() != before.phase()
                || running.game.to_move() != before.to_move(),
            results: None,
        };
        let gone = knocked_out(&events);
        let mut record = record;
        if record.finished {
            let mut out = running.out.clone();
            if !gone.is_empty() {
                out.push(gone.clone());
            }
            record.results = Some(results(&self.setup, &self.seats, &running.game, &out));
        }
        let finished_rated = record.results.as_ref().is_some_and(|r| r.rated);
        if let Err(error) = self.shared.db.record_command(record, &self.lease).await {
            // Not stored means not accepted: the game goes back to where it was.
            if let Some(running) = self.game.as_mut() {
                running.game = before;
            }
            return Err(self.write_failed(error));
        }
        let running = self
            .game
            .as_mut()
            .expect("only this actor changes the room's game, and it was there before the write");
        running.seq += 1;
        running.deadline = deadline;
        if !gone.is_empty() {
            running.out.push(gone);
        }
        for (&seat, bot) in running.bots.iter_mut() {
            bot.observe(&running.game.events_for(Some(seat), &events));
        }
        let seats_changed = events.iter().any(|event| {
            matches!(
                event,
                Event::Ready { .. }
                    | Event::Bought { .. }
                    | Event::PhaseChanged { .. }
                    | Event::GameOver { .. }
                    | Event::Eliminated { .. }
                    | Event::Resigned { .. }
            )
        });
        self.broadcast_state(&events);
        if finished_rated {
            self.refresh_ratings().await;
        }
        if seats_changed {
            self.broadcast_room();
        }
        self.schedule_bots();
        Ok(())
    }

    fn schedule_bots(&mut self) {
        let delay = self.shared.config.bot_delay;
        let Some(running) = self.game.as_mut() else {
            return;
        };
        let bot_to_move = running
            .game
            .to_move()
            .iter()
            .any(|seat| running.bots.contains_key(seat));
        running.bot_due = bot_to_move.then(|| Instant::now() + delay);
    }

    /// Every bot that must act now makes its move. Bots think on the pool, in
    /// the room's turn.
    async fn play_bots(&mut self) {
        let Some(running) = self.game.as_ref() else {
            return;
        };
        let seats: Vec<usize> = running
            .game
            .to_move()
            .into_iter()
            .filter(|seat| running.bots.contains_key(seat))
            .collect();
        for seat in seats {
            let Some(running) = self.game.as_mut() else {
                return;
            };
            if !running.game.to_move().contains(&seat) {
                continue;
            }
            let view = running.game.view(Some(seat));
            let phase = view.phase;
            let rules = running.game.rules().clone();
            let Some(mut bot) = running.bots.remove(&seat) else {
                continue;
            };
            let thought = self
                .shared
                .cpu
                .run(Key::Room(self.id), move || {
                    let command = bot.next_command(&view, &rules);
                    (bot, command)
                })
                .await;
            let Some(running) = self.game.as_mut() else {
                return;
            };
            let command = match thought {
                Ok((bot, command)) => {
                    running.bots.insert(seat, bot);
                    command
                }
                Err(error) => {
                    // Only a bug gets here (the room's own work is never
                    // refused as busy): the bot starts afresh, and the turn
                    // timer plays for it meanwhile.
                    eprintln!("broadside: room {}: a bot failed: {error}", self.code);
                    let level = match &self.seats[seat] {
                        Occupant::Bot(level) => *level,
                        _ => Level::Medium,
                    };
                    let seed = secret::new_seed().unwrap_or(seat as u64);
                    running.bots.insert(seat, Bot::for_level(level, seed));
                    running.bot_due = None;
                    return;
                }
            };
            let Some(command) = command else {
                continue;
            };
            if self.apply(command, Key::Room(self.id)).await.is_err() {
                // A bot's refused move must not stall a placement; in the battle
                // the turn timer plays for it.
                if phase == Phase::Placement {
                    let _ = self
                        .apply(Command::PlaceRandom { seat }, Key::Room(self.id))
                        .await;
                }
                if let Some(running) = self.game.as_mut() {
                    running.bot_due = None;
                }
                return;
            }
            // With a delay, one move per wake-up reads like a person playing.
            if !self.shared.config.bot_delay.is_zero() {
                return;
            }
        }
    }

    // ----- frames ------------------------------------------------------------------

    fn send_to(&mut self, conn: ConnId, frame: String) {
        let Some(member) = self.members.get(&conn) else {
            return;
        };
        if !member.outbox.send(frame) {
            // A connection that cannot keep up (or is gone) leaves the room; the
            // outbox has told it to close (docs/protocol.md, "too slow"), and its
            // person gets everything back on joining again.
            self.members.remove(&conn);
        }
    }

    /// Sends each member the frame `frame_for` makes for it (none: nothing).
    fn broadcast(&mut self, mut frame_for: impl FnMut(ConnId) -> Option<String>) {
        let conns: Vec<ConnId> = self.members.keys().copied().collect();
        for conn in conns {
            if let Some(frame) = frame_for(conn) {
                self.send_to(conn, frame);
            }
        }
    }

    fn state_frame_for(&self, conn: ConnId, events: &[Event]) -> Option<String> {
        let running = self.game.as_ref()?;
        let seat = self.seat_of(conn);
        let view: View = running.game.view(seat);
        let events = running.game.events_for(seat, events);
        Some(protocol::state_frame(
            &view,
            &events,
            running.deadline.map(|d| d.left_ms()),
            running.game.stats().as_deref(),
        ))
    }

    fn broadcast_state(&mut self, events: &[Event]) {
        // One serialization per distinct viewer: a seat's connections (tabs) and
        // all spectators share theirs.
        let mut cache: HashMap<Option<usize>, String> = HashMap::new();
        let frames: Vec<(ConnId, String)> = self
            .members
            .keys()
            .filter_map(|&conn| {
                let seat = self.seat_of(conn);
                if let Some(frame) = cache.get(&seat) {
                    return Some((conn, frame.clone()));
                }
                let frame = self.state_frame_for(conn, events)?;
                cache.insert(seat, frame.clone());
                Some((conn, frame))
            })
            .collect();
        for (conn, frame) in frames {
            self.send_to(conn, frame);
        }
    }

    fn phase_id(&self) -> &'static str {
        self.game.as_ref().map_or("lobby", |r| r.game.phase().id())
    }

    fn room_value(&self) -> Value {
        let connected = |seat: usize| {
            self.members
                .keys()
                .any(|&conn| self.seat_of(conn) == Some(seat))
        };
        let to_move = self
            .game
            .as_ref()
            .map(|r| r.game.to_move())
            .unwrap_or_default();
        let seats: Vec<Value> = self
            .seats
            .iter()
            .enumerate()
            .map(|(seat, occupant)| {
                let ready = self.game.as_ref().is_some_and(|r| match r.game.phase() {
                    Phase::Shop | Phase::Placement => !to_move.contains(&seat),
                    _ => true,
                });
                match occupant {
                    Occupant::Open => {
                        json!({"seat": seat, "kind": "open", "nickname": null, "level": null,
                        "connected": false, "ready": false})
                    }
                    Occupant::Person(person) => {
                        let rating = self.ratings.get(&person.player_id);
                        json!({"seat": seat, "kind": "person", "nickname": person.nickname,
                        "level": null, "connected": connected(seat), "ready": ready,
                        "rating": rating.map(|r| r.rating.round()),
                        "provisional": rating.map(|r| r.deviation > PROVISIONAL_DEVIATION)})
                    }
                    Occupant::Bot(level) => json!({"seat": seat, "kind": "bot", "nickname": null,
                        "level": level.id(), "connected": true, "ready": ready}),
                }
            })
            .collect();
        let spectators = self
            .members
            .keys()
            .filter(|&&conn| self.seat_of(conn).is_none())
            .count();
        json!({
            "code": self.code,
            "invite": format!("/r/{}", self.code),
            "preset": self.setup.preset.id(),
            "seats": seats,
            "host": self.host,
            "spectators": spectators,
            "started": self.started(),
            "game": self.game_number,
            "phase": self.phase_id(),
            "rematch": self.rematch.first().map(|&from| json!({
                "from": from,
                "accepted": self.rematch,
                "waiting": self.rematch_waiting(),
            })),
            "setup": self.setup,
            "rules": self.rules,
        })
    }

    /// Drops the members whose node has gone silent (it died with their
    /// connections; they will join again wherever they reconnect).
    fn drop_silent_members(&mut self) {
        let before = self.members.len();
        self.members.retain(|_, member| match &member.outbox {
            Outbox::Remote { cluster, node, .. } => cluster.is_alive(node),
            Outbox::Local(_) => true,
        });
        if self.members.len() != before {
            self.broadcast_room();
        }
    }

    fn broadcast_room(&mut self) {
        let mut room = self.room_value();
        let yous: BTreeMap<ConnId, Value> = self
            .members
            .keys()
            .map(|&conn| {
                let seat = self.seat_of(conn);
                (conn, json!({"seat": seat, "spectator": seat.is_none(), "host": seat == Some(self.host)}))
            })
            .collect();
        self.broadcast(|conn| {
            room["you"] = yous.get(&conn).cloned().unwrap_or(Value::Null);
            Some(json!({"type": "room", "room": room}).to_string())
        });
    }

    // ----- persistence -------------------------------------------------------------

    fn record(&self) -> RoomRecord {
        RoomRecord {
            code: self.code.clone(),
            setup: serde_json::to_string(&self.setup)
                .expect("a setup is plain data and always serializes"),
            host: self.host,
            seats: self.seats.iter().map(Occupant::record).collect(),
            game_number: self.game_number,
            public: self.setup.public,
            phase: self.phase_id().into(),
            to_move: json!(self
                .game
                .as_ref()
                .map(|r| r.game.to_move())
                .unwrap_or_default())
            .to_string(),
        }
    }

    /// Reads the ratings of the people seated here (shown beside their names).
    async fn refresh_ratings(&mut self) {
        let people: Vec<i64> = self
            .seats
            .iter()
            .filter_map(|o| match o {
                Occupant::Person(person) => Some(person.player_id),
                _ => None,
            })
            .collect();
        let preset = self.setup.preset.id().to_string();
        if let Ok(ratings) = self.shared.db.ratings(people, preset).await {
            self.ratings = ratings;
        }
    }

    async fn persist_room(&mut self) -> Result<(), Refusal> {
        let stored = self
            .shared
            .db
            .save_room(self.record(), now_ms(), &self.lease)
            .await;
        stored.map_err(|error| self.write_failed(error))
    }

    /// The refusal for a failed write; a fenced one also ends this actor (the
    /// room belongs to another node now, and its members join it there).
    fn write_failed(&mut self, error: DbError) -> Refusal {
        if matches!(error, DbError::Fenced(_)) {
            self.fenced = true;
            return Refusal::new(
                "moved",
                "the room has moved to another server; you are being reconnected to it",
            );
        }
        internal(error)
    }

    /// The pool's fairness key for work a connection asks for: its address.
    fn key_of(&self, conn: ConnId) -> Key {
        self.members
            .get(&conn)
            .map_or(Key::Room(self.id), |m| Key::Client(m.ip))
    }
}

/// Why a room's actor stopped.
enum End {
    /// Every sender is gone (the server stopped).
    Closed,
    Idle,
    Shutdown,
    /// Another node took the room (the fence refused a write, or the lease
    /// could not be renewed).
    Lost,
}

/// How a finished game ended for each seat, and whether it is rated: the
/// room is, and at least two seats hold people (bots never rate).
fn results(setup: &RoomSetup, seats: &[Occupant], game: &Game, out: &[Vec<usize>]) -> GameResults {
    let winners = game.winners().unwrap_or_default();
    let placings = crate::ratings::placings(seats.len(), winners, out);
    let seats: Vec<SeatResult> = seats
        .iter()
        .enumerate()
        .map(|(seat, occupant)| SeatResult {
            seat,
            player_id: match occupant {
                Occupant::Person(person) => Some(person.player_id),
                _ => None,
            },
            placing: placings[seat],
        })
        .collect();
    let people = seats.iter().filter(|s| s.player_id.is_some()).count();
    GameResults {
        preset: setup.preset.id().to_string(),
        rated: setup.rated && people >= 2,
        seats,
    }
}

/// The pool refused or failed a job.
fn busy(error: CpuError) -> Refusal {
    match error {
        CpuError::Busy => Refusal::new(
            "rate_limited",
            "the server is still working on your earlier requests; try again in a moment",
        ),
        CpuError::Failed => Refusal::new("internal", "the server failed to work this out"),
    }
}

fn not_a_player() -> Refusal {
    Refusal::new("not_a_player", "spectators cannot do this")
}

fn not_started() -> Refusal {
    Refusal::new("not_started", "the game has not started yet")
}

fn not_in_room() -> Refusal {
    Refusal::new("not_in_room", "join a room first")
}

async fn sleep_until(wake: Option<Instant>) {
    match wake {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod message_size {
    /// A room's queue sets aside room for 32 messages at once (tokio's
    /// block), for every room alive: big requests travel boxed.
    #[test]
    fn a_room_message_is_small() {
        assert!(
            std::mem::size_of::<super::RoomMsg>() <= 48,
            "RoomMsg is {} bytes",
            std::mem::size_of::<super::RoomMsg>()
        );
    }
}
