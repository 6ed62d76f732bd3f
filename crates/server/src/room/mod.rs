//! One room: its seats, its lobby settings and its current game, owned by one
//! task (an actor). Every message about a room goes through the room's channel,
//! so commands on a game are applied one at a time, in arrival order.
//!
//! A room knows only its [`RoomContext`] (database, CPU pool, configuration,
//! clock, ids) and its members' outboxes: not the registry that keeps it, the
//! connections, the lobby or the cluster. Whoever spawns the actor (the
//! registry) runs [`Room::run`] and then [`Room::end`].
//!
//! This file holds the room's types, messages and the plain questions about
//! its seats; the work is split by concern, each an `impl Room`, and used in
//! one direction: `actor` (create, restore, the loop, lease renewal, the end)
//! uses `seats` (members, seats, options, start, rematch, chat) and `bots`
//! (their moves), which use `game` (commands, timers, previews, persistence),
//! which uses `frames` (what each member is sent).

mod actor;
mod bots;
mod frames;
mod game;
mod moderation;
mod rated;
mod seats;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use broadside_ai::{Bot, Level};
use broadside_engine::{Action, Event, Game, Phase, Placement, Rules, Setup};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::context::RoomContext;
use crate::cpu::CpuError;
use crate::db::{ChatRecord, Lease, SeatRecord};
use crate::outbox::{ConnId, Outbox};
use crate::protocol::{self, ClientFrame, Refusal, Role, SeatChoice, SetOptions};
use crate::ratings::Rating;
pub use broadside_protocol::RoomSetup;

/// Chat lines a joining client receives.
const CHAT_HISTORY: usize = 50;

/// A person as a connection knows them.
#[derive(Clone, Debug)]
pub struct Person {
    pub player_id: i64,
    pub nickname: String,
    /// Signed in to an account (accounts.rs): only accounts play rated.
    pub account: bool,
}

impl PartialEq for Person {
    fn eq(&self, other: &Self) -> bool {
        self.player_id == other.player_id
    }
}
impl Eq for Person {}

/// What a room's actor is asked to do.
pub enum RoomMsg {
    /// A connection joins; the answer says whether it is now in the room.
    /// (Boxed, like a request, so that the message stays small: a room's
    /// queue sets aside room for 32 messages at once.)
    Join(Box<Joining>),
    /// `leave`: before the start the seat is given up.
    Leave { conn: ConnId },
    /// The connection moves to another room: before the start its seat is
    /// given up (a person holds one lobby seat at a time), as by `leave`
    /// but without the `left` frame; after it, as `Disconnect`. `done`
    /// answers once the room will send this connection nothing more.
    Release {
        conn: ConnId,
        done: oneshot::Sender<()>,
    },
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
        /// When this node read the frame (the shot-to-update histogram).
        at: std::time::Instant,
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
    Ready(bool),
    Command(serde_json::Map<String, Value>),
    CheckLayout(Vec<Placement>),
    RandomLayout(Vec<Placement>),
    PreviewAction(Action),
    Chat(String),
    Rematch,
    DeclineRematch,
    /// Block the person in a seat (moderation.rs).
    Block(usize),
    /// Report the person in a seat.
    Report {
        seat: usize,
        reason: String,
        note: Option<String>,
    },
    /// The whole view again.
    Resync,
}

impl Request {
    /// The room's request a client frame asks for; `None` for the frames a
    /// connection answers itself (hello, create_room, join_room, leave, …).
    pub fn from_frame(frame: ClientFrame) -> Option<Request> {
        if frame.is_about_accounts() {
            return None;
        }
        Some(match frame {
            ClientFrame::SetSeat(set) => Request::SetSeat {
                seat: set.seat,
                occupant: set.occupant,
                level: set.level.map(protocol::ai_level),
            },
            ClientFrame::SetOptions(set) => Request::SetOptions(*set),
            ClientFrame::Start => Request::Start,
            ClientFrame::Ready { ready } => Request::Ready(ready),
            ClientFrame::Command { command } => Request::Command(command),
            ClientFrame::Resign => {
                let mut command = serde_json::Map::new();
                command.insert("cmd".into(), Value::from("resign"));
                Request::Command(command)
            }
            ClientFrame::CheckLayout { ships } => Request::CheckLayout(ships),
            ClientFrame::RandomLayout { fixed } => Request::RandomLayout(fixed),
            ClientFrame::PreviewAction { action } => Request::PreviewAction(action),
            ClientFrame::Chat { text } => Request::Chat(text),
            ClientFrame::Rematch => Request::Rematch,
            ClientFrame::DeclineRematch => Request::DeclineRematch,
            ClientFrame::Block { seat } => Request::Block(seat),
            ClientFrame::Report { seat, reason, note } => Request::Report { seat, reason, note },
            ClientFrame::Resync => Request::Resync,
            ClientFrame::Hello(_)
            | ClientFrame::CreateRoom(_)
            | ClientFrame::JoinRoom(_)
            | ClientFrame::Leave
            | ClientFrame::MyGames
            | ClientFrame::Ping
            | ClientFrame::QuickMatch { .. }
            | ClientFrame::CancelMatch
            | ClientFrame::AcceptBot
            | ClientFrame::OpenRooms
            | ClientFrame::Leaderboard { .. }
            | ClientFrame::History
            | ClientFrame::Unblock { .. }
            | ClientFrame::Blocks => return None,
            // (The frames about accounts returned above.)
            _ => return None,
        })
    }

    fn name(&self) -> &'static str {
        match self {
            Request::SetSeat { .. } => "set_seat",
            Request::SetOptions(_) => "set_options",
            Request::Start => "start",
            Request::Ready(_) => "ready",
            Request::Command(_) => "command",
            Request::CheckLayout(_) => "check_layout",
            Request::RandomLayout(_) => "random_layout",
            Request::PreviewAction(_) => "preview_action",
            Request::Chat(_) => "chat",
            Request::Rematch => "rematch",
            Request::DeclineRematch => "decline_rematch",
            Request::Block(_) => "block",
            Request::Report { .. } => "report",
            Request::Resync => "resync",
        }
    }
}

/// The engine's side of a room's setup (`RoomSetup` is the protocol's).
pub trait SetupRules {
    /// The engine setup of a game with this seed.
    fn engine(&self, seed: u64) -> Setup;
    /// The resolved rules, if the engine accepts this setup (it also refuses
    /// mixes that only `Game::new` checks, such as specials in the shared sea).
    fn check(&self) -> Result<Rules, Refusal>;
}

impl SetupRules for RoomSetup {
    fn engine(&self, seed: u64) -> Setup {
        Setup {
            preset: self.preset,
            seats: self.seats,
            seed,
            options: self.options.clone(),
            teams: self.teams.clone(),
        }
    }

    fn check(&self) -> Result<Rules, Refusal> {
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

impl Occupant {
    fn record(&self) -> SeatRecord {
        match self {
            Occupant::Open => SeatRecord {
                kind: crate::db::SeatKind::Open,
                player_id: None,
                nickname: None,
                level: None,
                account: false,
            },
            Occupant::Person(person) => SeatRecord {
                kind: crate::db::SeatKind::Person,
                player_id: Some(person.player_id),
                nickname: Some(person.nickname.clone()),
                level: None,
                account: person.account,
            },
            Occupant::Bot(level) => SeatRecord {
                kind: crate::db::SeatKind::Bot,
                player_id: None,
                nickname: None,
                level: Some(level.id().into()),
                account: false,
            },
        }
    }

    fn from_record(record: &SeatRecord) -> Occupant {
        match (record.kind, record.player_id) {
            (crate::db::SeatKind::Person, Some(player_id)) => Occupant::Person(Person {
                player_id,
                nickname: record.nickname.clone().unwrap_or_default(),
                account: record.account,
            }),
            (crate::db::SeatKind::Bot, _) => Occupant::Bot(
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
    /// The people this member blocks: their chat is not sent to them.
    blocks: std::collections::HashSet<i64>,
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
    fn in_seconds(seconds: u32, now_ms: i64) -> Deadline {
        let duration = Duration::from_secs(u64::from(seconds));
        Deadline {
            at: Instant::now() + duration,
            unix_ms: now_ms + duration.as_millis() as i64,
        }
    }

    fn from_unix_ms(unix_ms: i64, now_ms: i64) -> Deadline {
        let left = (unix_ms - now_ms).max(0) as u64;
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
    /// Who has played, who resigned, whether the game was aborted: what
    /// decides whether it is rated (`rated.rs`).
    earned: rated::Earned,
    /// The stream of views of each audience with members (a seat, or `None`
    /// for the spectators): what its last frame showed, from which the next
    /// `change` is made (frames.rs).
    streams: BTreeMap<Option<usize>, Stream>,
}

/// An audience's stream of views: the number and the view of its last frame.
struct Stream {
    seq: u64,
    view: broadside_engine::View,
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

/// Distinct, reproducible seeds per seat derived from the game's seed.
fn bot_seed(seed: u64, seat: usize) -> u64 {
    seed ^ (seat as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// A room and everything its actor owns.
pub struct Room {
    context: Arc<RoomContext>,
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
    /// The people's seats that said `ready` in the lobby (a rated game
    /// starts only when every person's is here and connected). A seat
    /// leaves it when its occupant or the room's options change.
    ready: BTreeSet<usize>,
    /// The address keys each seated person was seen from here (IPv6: the
    /// /64): people who share one never rate each other. Kept in memory
    /// only; members joining again fill it again.
    addresses: BTreeMap<i64, BTreeSet<IpAddr>>,
}

impl Room {
    /// The bots of a game with this seed, one per bot seat.
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

    fn started(&self) -> bool {
        self.game.is_some()
    }

    /// A game is running (started and not over).
    fn in_play(&self) -> bool {
        self.game
            .as_ref()
            .is_some_and(|r| r.game.phase() != Phase::Finished)
    }

    /// Whether a connection watches rather than plays: a spectator, or a
    /// seat out of the game (eliminated or resigned), who sees more than
    /// the seats still playing and so talks only to watchers.
    fn watches(&self, conn: ConnId) -> bool {
        match (self.seat_of(conn), &self.game) {
            (None, _) => true,
            (Some(seat), Some(running)) => !running.game.is_alive(seat),
            (Some(_), None) => false,
        }
    }

    /// A person's seat has at least one connection here (bots: never).
    fn connected(&self, seat: usize) -> bool {
        self.members
            .keys()
            .any(|&conn| self.seat_of(conn) == Some(seat))
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
}

/// Why a room could not be brought back from the database.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("room {code}: {message}")]
    Broken { code: String, message: String },
}

/// Why a room's actor stopped; [`Room::end`] and the registry act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Every sender is gone (the server stopped).
    Closed,
    /// Nobody watched and no clock ran for `idle_room`: the room leaves
    /// memory (it is loaded again when somebody joins).
    Idle,
    /// The server shuts down.
    Shutdown,
    /// Another node took the room (the fence refused a write, or the lease
    /// could not be renewed).
    Lost,
}

impl End {
    /// Whether the registry must forget the actor first (it stays on this
    /// node's books otherwise until the server stops).
    pub fn retires(self) -> bool {
        matches!(self, End::Idle | End::Lost)
    }
}

fn internal(error: impl std::fmt::Display) -> Refusal {
    Refusal::new(
        "internal",
        format!("the server could not store this: {error}"),
    )
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
