//! The frames the server sends (docs/protocol.md). Field order is the order on
//! the wire; `null`s are sent where the fields are plain `Option`s and left
//! out where they are skipped.

use std::borrow::Cow;

use broadside_engine::{
    Action, Cell, Event, Options, Phase, Placement, Preset, Rules, SeatStats, View,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::change::{CellChange, ViewPatch};
use crate::refusal::Refusal;
use crate::BotLevel;

/// A frame from the server. Serialized, it is exactly the text the server
/// sends; clients read it with serde (`serde_json::from_str::<ServerFrame>`),
/// which ignores fields it does not know.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerFrame {
    /// The answer to `hello`: the session token to keep, and the nickname.
    Welcome {
        token: String,
        nickname: String,
        /// The account's username when the session is an account's; absent
        /// for a guest.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        username: Option<String>,
    },
    /// A refused frame (it changed nothing).
    Error(ErrorFrame),
    /// The answer to `ping`.
    Pong,
    /// The room, on create, join and every change of it.
    Room { room: Box<RoomInfo> },
    /// The game as this connection may see it, whole: on joining, on
    /// `resync`, and as the first frame of a new game.
    State(Box<StateFrame>),
    /// What changed in this connection's view after an accepted command
    /// (docs/protocol.md, "State and change").
    Change(Box<ChangeFrame>),
    /// The answer to `check_layout`.
    LayoutCheck {
        /// The ships are legal so far (bounds, own waters, overlap, touching).
        ok: bool,
        /// The ships are the whole fleet and legal (ready to send as `place`).
        complete: bool,
        /// Why not, when not `ok`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Refusal>,
        /// The request id of the `check_layout`, when it had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// The answer to `random_layout`: the whole fleet, fixed ships first.
    Layout {
        ships: Vec<Placement>,
        /// The request id of the `random_layout`, when it had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// The answer to `preview_action`: the action as read and every cell its
    /// area covers, sorted by row, then column.
    ActionArea {
        action: Action,
        cells: Vec<Cell>,
        /// The request id of the `preview_action`, when it had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// A chat line, to everybody in the room (and the last ones on joining).
    Chat {
        from: String,
        /// `null` for spectators.
        seat: Option<usize>,
        text: String,
        /// Unix milliseconds.
        at: i64,
        /// Said by a watcher (a spectator, or a seat eliminated or resigned)
        /// while the game runs: sent to watchers only, never to the seats
        /// still playing. Absent (false) for a line to everybody.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        watchers: bool,
    },
    /// The answer to `leave`.
    Left { code: String },
    /// The rematch on offer was withdrawn: who and why.
    RematchDeclined {
        seat: usize,
        nickname: Option<String>,
        reason: RematchReason,
    },
    /// The answer to `my_games`: unfinished games, most recent first.
    Games { games: Vec<MyGame> },
    /// Waiting for a quick match (again whenever the count changes).
    Matching {
        preset: Preset,
        waiting: u32,
        waited_ms: u64,
        bot_offer_ms: u64,
        /// Whether the game will be rated: only when both people have
        /// accounts. `false` for a guest, whose quick match is casual.
        #[serde(default)]
        rated: bool,
    },
    /// After the wait, a bot of about the person's strength.
    BotOffer { preset: Preset, level: BotLevel },
    /// The answer to `cancel_match`.
    MatchCancelled,
    /// The answer to `open_rooms`: public lobbies with a seat open.
    OpenRooms { rooms: Vec<OpenRoom> },
    /// The answer to `leaderboard`: the best ratings of a preset.
    Leaderboard {
        preset: Preset,
        players: Vec<LeaderboardLine>,
    },
    /// The answer to `history`: finished games, newest first.
    History { games: Vec<PastGame> },
    /// The options of a passkey's registration, for
    /// `PublicKeyCredential.parseCreationOptionsFromJSON`.
    PasskeyCreate {
        options: serde_json::Map<String, serde_json::Value>,
    },
    /// The options of a passkey's assertion, for
    /// `PublicKeyCredential.parseRequestOptionsFromJSON`.
    PasskeyRequest {
        options: serde_json::Map<String, serde_json::Value>,
    },
    /// The signed-in account (the answer to `account`, `passkey_created`,
    /// `sign_out_everywhere`).
    Account(Box<AccountInfo>),
    /// Signed in: the new session's token replaces the one this device kept
    /// (connect again with it).
    SignedIn { token: String, username: String },
    /// The answer to `sign_out`: this session is over; forget its token.
    SignedOut,
    /// A one-use code (8 characters) and how long it stays valid.
    LinkCode { code: String, expires_in_ms: u64 },
    /// The answer to `link_approve`: the other device is signed in.
    LinkApproved,
    /// The people this person blocks, most recent first (the answer to
    /// `block`, `unblock` and `blocks`).
    Blocks { players: Vec<BlockedPlayer> },
    /// The answer to `report`: the operators will read it.
    Reported,
}

impl ServerFrame {
    /// The `error` frame refusing a frame of type `request` (`None` when it
    /// could not be read) with request id `id`.
    pub fn error(refusal: &Refusal, request: Option<&str>, id: Option<u64>) -> ServerFrame {
        ServerFrame::Error(ErrorFrame {
            code: refusal.code.clone(),
            message: refusal.message.clone(),
            request: request.map(str::to_string),
            id,
            retry_after_ms: refusal.retry_after_ms,
        })
    }

    /// The frame's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            ServerFrame::Welcome { .. } => "welcome",
            ServerFrame::Error(_) => "error",
            ServerFrame::Pong => "pong",
            ServerFrame::Room { .. } => "room",
            ServerFrame::State(_) => "state",
            ServerFrame::Change(_) => "change",
            ServerFrame::LayoutCheck { .. } => "layout_check",
            ServerFrame::Layout { .. } => "layout",
            ServerFrame::ActionArea { .. } => "action_area",
            ServerFrame::Chat { .. } => "chat",
            ServerFrame::Left { .. } => "left",
            ServerFrame::RematchDeclined { .. } => "rematch_declined",
            ServerFrame::Games { .. } => "games",
            ServerFrame::Matching { .. } => "matching",
            ServerFrame::BotOffer { .. } => "bot_offer",
            ServerFrame::MatchCancelled => "match_cancelled",
            ServerFrame::OpenRooms { .. } => "open_rooms",
            ServerFrame::Leaderboard { .. } => "leaderboard",
            ServerFrame::History { .. } => "history",
            ServerFrame::PasskeyCreate { .. } => "passkey_create",
            ServerFrame::PasskeyRequest { .. } => "passkey_request",
            ServerFrame::Account(_) => "account",
            ServerFrame::SignedIn { .. } => "signed_in",
            ServerFrame::SignedOut => "signed_out",
            ServerFrame::LinkCode { .. } => "link_code",
            ServerFrame::LinkApproved => "link_approved",
            ServerFrame::Blocks { .. } => "blocks",
            ServerFrame::Reported => "reported",
        }
    }

    /// The frame as sent.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self)
            .expect("server frames are plain data (views, events, rules) and always serialize")
    }
}

/// The `error` frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorFrame {
    /// A stable identifier that clients translate (docs/protocol.md, "Errors").
    pub code: Cow<'static, str>,
    /// English text for developers and logs.
    pub message: String,
    /// The `type` of the refused frame; `null` if it could not be read.
    pub request: Option<String>,
    /// The refused frame's request id, present only when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// `busy` only: when to try again, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

impl ErrorFrame {
    /// The refusal this error carries.
    pub fn refusal(&self) -> Refusal {
        Refusal {
            code: self.code.clone(),
            message: self.message.clone(),
            retry_after_ms: self.retry_after_ms,
        }
    }
}

/// The `state` frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StateFrame {
    /// The sequence number of this audience's stream of views: the next
    /// `change` has this number plus one.
    #[serde(default)]
    pub seq: u64,
    /// `Game::view` for this connection's seat, or the spectator view.
    #[serde(deserialize_with = "crate::via_value")]
    pub view: View,
    /// The engine events of this change, filtered for this viewer.
    #[serde(default)]
    pub events: Vec<Event>,
    /// Milliseconds left on the running timer when sent; `null` when none runs.
    pub deadline_ms: Option<u64>,
    /// Each seat's shooting over the whole game, once it is over (absent before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<Vec<SeatStats>>,
}

/// The `change` frame: the view's changes since the frame numbered `seq - 1`
/// of the same stream, and the events that made them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChangeFrame {
    /// One more than the `state` or `change` before it; a client that sees
    /// another number sends `resync`.
    pub seq: u64,
    /// The view's fields that changed, each whole.
    #[serde(deserialize_with = "crate::via_value")]
    pub view: ViewPatch,
    /// The board cells that changed (absent when none did).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<CellChange>,
    /// The engine events of this change, filtered for this viewer.
    #[serde(default)]
    pub events: Vec<Event>,
    /// Milliseconds left on the running timer when sent; `null` when none runs.
    pub deadline_ms: Option<u64>,
    /// Each seat's shooting over the whole game, once it is over (absent before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<Vec<SeatStats>>,
}

/// Why a rematch offer was withdrawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RematchReason {
    /// Said no.
    Declined,
    /// Took back their own yes.
    Withdrawn,
    /// Left the room.
    Left,
}

impl RematchReason {
    pub fn id(self) -> &'static str {
        match self {
            RematchReason::Declined => "declined",
            RematchReason::Withdrawn => "withdrawn",
            RematchReason::Left => "left",
        }
    }
}

/// Who holds a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    Person,
    Bot,
    Open,
}

impl SeatKind {
    pub fn id(self) -> &'static str {
        match self {
            SeatKind::Person => "person",
            SeatKind::Bot => "bot",
            SeatKind::Open => "open",
        }
    }

    pub fn from_id(id: &str) -> Option<SeatKind> {
        [SeatKind::Person, SeatKind::Bot, SeatKind::Open]
            .into_iter()
            .find(|kind| kind.id() == id)
    }
}

/// Where a room is: its lobby, or the phase of its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoomPhase {
    Lobby,
    Shop,
    Placement,
    Battle,
    Finished,
}

impl RoomPhase {
    pub fn id(self) -> &'static str {
        match self {
            RoomPhase::Lobby => "lobby",
            RoomPhase::Shop => "shop",
            RoomPhase::Placement => "placement",
            RoomPhase::Battle => "battle",
            RoomPhase::Finished => "finished",
        }
    }

    pub fn from_id(id: &str) -> Option<RoomPhase> {
        [
            RoomPhase::Lobby,
            RoomPhase::Shop,
            RoomPhase::Placement,
            RoomPhase::Battle,
            RoomPhase::Finished,
        ]
        .into_iter()
        .find(|phase| phase.id() == id)
    }
}

impl From<Phase> for RoomPhase {
    fn from(phase: Phase) -> RoomPhase {
        match phase {
            Phase::Shop => RoomPhase::Shop,
            Phase::Placement => RoomPhase::Placement,
            Phase::Battle => RoomPhase::Battle,
            Phase::Finished => RoomPhase::Finished,
        }
    }
}

/// A room's game settings without a seed: what the lobby shows and edits (and
/// what the server stores).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// The `room` of a `room` frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RoomInfo {
    pub code: String,
    /// The invitation's path: `/r/<code>`.
    pub invite: String,
    pub preset: Preset,
    pub seats: Vec<RoomSeat>,
    /// The host's seat.
    pub host: usize,
    /// Connections in the room without a seat.
    pub spectators: usize,
    pub started: bool,
    /// 0 before the first start, then 1, 2, … (rematches).
    pub game: u32,
    pub phase: RoomPhase,
    /// The rematch on offer after the end, if any.
    pub rematch: Option<RematchOffer>,
    pub setup: RoomSetup,
    /// The resolved engine rules (the seed is never sent).
    pub rules: Rules,
    /// This connection's place in the room.
    pub you: Option<You>,
    /// The current game was aborted: it goes on, but it is not rated
    /// (docs/protocol.md, "Rated games"). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<Aborted>,
    /// Rated room: two of the people seated here come from one address
    /// (IPv4: the same address; IPv6: the same /64), so their game will
    /// not be rated. Absent (false) otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub same_address: bool,
}

/// Why a rated game stopped counting: the first person who left the game
/// before having made a move of their own in the battle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Aborted {
    pub seat: usize,
    pub reason: AbortReason,
}

/// How that person left the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AbortReason {
    /// They resigned.
    Resigned,
    /// Their clock ran out.
    Timeout,
    /// They left the room (`leave`).
    Left,
    /// Their fleet was sunk before they ever fired.
    Eliminated,
}

/// One seat of a `room` frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RoomSeat {
    pub seat: usize,
    pub kind: SeatKind,
    /// People only.
    pub nickname: Option<String>,
    /// Bots only.
    pub level: Option<BotLevel>,
    /// A person has at least one open connection in the room (bots always).
    pub connected: bool,
    /// The seat has placed (or bought, in the shop) in the current game.
    pub ready: bool,
    /// People only: the rating in the room's preset, rounded; `null` when
    /// unrated.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::double_option"
    )]
    pub rating: Option<Option<f64>>,
    /// People only: whether the rating is provisional; `null` when unrated.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::double_option"
    )]
    pub provisional: Option<Option<bool>>,
}

/// A rematch on offer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RematchOffer {
    /// The seat that offered it.
    pub from: usize,
    /// The seats that have accepted, the offerer first.
    pub accepted: Vec<usize>,
    /// The people's seats it still waits for.
    pub waiting: Vec<usize>,
}

/// The `you` of a `room` frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct You {
    /// The seat this connection plays; `null` for a spectator.
    pub seat: Option<usize>,
    pub spectator: bool,
    pub host: bool,
}

/// A seat of a listed or replayed game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatSummary {
    pub seat: usize,
    pub kind: SeatKind,
    /// People only.
    pub nickname: Option<String>,
    /// Bots only.
    pub level: Option<BotLevel>,
}

/// One game of the `games` frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MyGame {
    pub code: String,
    pub preset: Option<Preset>,
    pub phase: RoomPhase,
    /// The seat this token holds.
    pub seat: usize,
    pub players: Vec<SeatSummary>,
    pub your_turn: bool,
    /// Unix milliseconds.
    pub updated: i64,
}

/// One room of the `open_rooms` frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OpenRoom {
    pub code: String,
    pub preset: Preset,
    pub seats: usize,
    /// Seats held by a person or a bot.
    pub taken: usize,
    /// The host's language.
    pub language: Option<String>,
    /// The host's nickname.
    pub host: Option<String>,
    pub rated: bool,
    /// The room's vision setting: spectators (and eliminated seats) see
    /// every fleet. Never true in a rated room.
    #[serde(default)]
    pub spectators_see_all: bool,
    /// Unix milliseconds.
    pub updated: i64,
}

/// One line of the `leaderboard` frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LeaderboardLine {
    pub nickname: String,
    /// Rounded, but sent as a JSON float (`1662.0`).
    pub rating: f64,
    /// Rounded, but sent as a JSON float.
    pub deviation: f64,
    pub games: u32,
    pub wins: u32,
    /// The deviation is above 110.
    pub provisional: bool,
}

/// One game of the `history` frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PastGame {
    /// The game's number in the database (its replay is `/g/<id>`).
    pub id: i64,
    pub code: String,
    pub preset: Option<Preset>,
    /// Unix milliseconds.
    pub finished_at: i64,
    /// `win`, `loss` (two seats), `draw`, or `place N`.
    pub result: String,
    pub placing: u32,
    pub seats: u32,
    /// The rating after the game, rounded (a JSON float); `null` when unrated.
    pub rating: Option<f64>,
    /// The change of rating, rounded (a JSON float); `null` when unrated.
    pub rating_change: Option<f64>,
    /// The replay's path.
    pub replay: String,
}

/// The `account` frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AccountInfo {
    pub username: String,
    /// Unix milliseconds.
    pub created: i64,
    pub passkeys: Vec<PasskeyInfo>,
    /// Sessions signed in, this one included.
    pub sessions: u32,
    /// Recovery codes not yet used.
    pub recovery_codes_left: u32,
    /// The recovery codes, sent once: in the `account` frame that answers
    /// the `passkey_created` of `create_account`. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_codes: Option<Vec<String>>,
    /// The account's rating in each preset it has played rated games of
    /// (in the order of the presets); empty before its first rated game.
    #[serde(default)]
    pub ratings: Vec<AccountRating>,
}

/// One rating of the `account` frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AccountRating {
    pub preset: Preset,
    /// Rounded, but sent as a JSON float (`1662.0`).
    pub rating: f64,
    /// Too new to trust, as on the leaderboard and beside the seats: the
    /// deviation is above 110, or fewer than 5 different people were met
    /// in rated games of the preset.
    pub provisional: bool,
    /// Rated games played in the preset.
    pub games: u32,
}

/// One passkey of an account.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PasskeyInfo {
    /// The credential's id (base64url).
    pub id: String,
    /// Unix milliseconds.
    pub created: i64,
    /// Unix milliseconds; `null` if never used to sign in.
    pub last_used: Option<i64>,
}

/// One person of the `blocks` frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BlockedPlayer {
    /// What `unblock` names.
    pub player: i64,
    /// The account's username, or the nickname of a guest.
    pub name: String,
}
