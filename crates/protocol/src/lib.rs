//! The Broadside WebSocket protocol (docs/protocol.md) as Rust types: every
//! frame a client sends ([`ClientFrame`]) and every frame the server sends
//! ([`ServerFrame`]), the replay answered over HTTP ([`Replay`]), the close
//! codes, the limits and the refusal codes.
//!
//! Invariant: this crate is the only place frames are defined. The server
//! builds every frame it sends as a [`ServerFrame`] and reads every frame it
//! receives with [`parse`]; the terminal client sends [`ClientFrame`]s and
//! reads [`ServerFrame`]s. Nothing here does IO, knows about sockets or rooms,
//! or decides a rule: frames carry the engine's own types (views, events,
//! rules, options, actions), serialized by serde exactly as the engine defines
//! them. Serializing a frame gives the bytes that go on the wire.
//!
//! The JSON Schema of both directions ([`schema::document`]) is committed at
//! `docs/protocol.schema.json`; a test regenerates it and fails when it differs.

mod change;
mod client;
mod refusal;
mod replay;
pub mod schema;
mod server;

pub use change::{
    apply as apply_change, between as change_between, CellChange, OutOfStep, ViewCopy, ViewPatch,
};
pub use client::{
    parse, BotSeat, ClientEnvelope, ClientFrame, CreateRoom, Hello, JoinRoom, Role, SeatChoice,
    SetOptions, SetSeat, Unreadable,
};
pub use refusal::{codes, Refusal};
pub use replay::{ApiError, Replay, ReplayStep};
pub use server::{
    AbortReason, Aborted, AccountInfo, AccountRating, BlockedPlayer, ChangeFrame, ErrorFrame,
    LeaderboardLine, MyGame, OpenRoom, PasskeyInfo, PastGame, RematchOffer, RematchReason,
    RoomInfo, RoomPhase, RoomSeat, RoomSetup, SeatKind, SeatSummary, ServerFrame, StateFrame, You,
};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Frames larger than this are not read: the connection is closed with
/// [`close::TOO_BIG`] (docs/protocol.md).
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

/// Chat lines are at most this many characters.
pub const MAX_CHAT_CHARS: usize = 500;

/// Nicknames are 1 to this many characters.
pub const MAX_NICKNAME_CHARS: usize = 24;

/// The languages of the clients (`hello`'s `lang`); others are ignored.
pub const LANGUAGES: &[&str] = &["pt-PT", "pt-BR", "es", "it", "en"];

/// The largest request id a client may send: the largest integer a JavaScript
/// number holds exactly.
pub const MAX_REQUEST_ID: u64 = (1 << 53) - 1;

/// The close codes of docs/protocol.md ("Closing"): the standard ones where
/// they fit, application codes (4000–4999) for the server's own limits.
pub mod close {
    /// The server is shutting down (standard "going away").
    pub const GOING_AWAY: u16 = 1001;
    /// The client broke the WebSocket protocol.
    pub const PROTOCOL: u16 = 1002;
    /// A text frame that is not UTF-8 (standard "invalid payload").
    pub const NOT_UTF8: u16 = 1007;
    /// A frame over [`super::MAX_FRAME_BYTES`] (standard "message too big").
    pub const TOO_BIG: u16 = 1009;
    /// The connection's room moved to another node and could not be reached
    /// again: reconnect (and join the room again).
    pub const RESTART: u16 = 1012;
    /// No `hello` within the hello deadline.
    pub const HELLO_TIMEOUT: u16 = 4001;
    /// Nothing received (not even a pong) within the idle timeout.
    pub const IDLE_TIMEOUT: u16 = 4002;
    /// The client reads too slowly: its frames no longer fit its queue.
    pub const TOO_SLOW: u16 = 4003;
    /// Too many frames dropped by the rate limit.
    pub const FLOOD: u16 = 4004;
    /// The session was ended elsewhere (signed out everywhere, or the
    /// account banned): forget the token.
    pub const SIGNED_OUT: u16 = 4005;
    /// The person was banned by the server's operators.
    pub const BANNED: u16 = 4006;
}

/// The level of a bot seat on the wire. The bots themselves live in
/// `broadside-ai`, whose `Level` has the same ids; the server and the terminal
/// client convert at their edge (by id), so this crate depends on the engine
/// only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    Easy,
    Medium,
    Hard,
    Expert,
    Admiral,
}

impl BotLevel {
    pub const ALL: [BotLevel; 5] = [
        BotLevel::Easy,
        BotLevel::Medium,
        BotLevel::Hard,
        BotLevel::Expert,
        BotLevel::Admiral,
    ];

    pub fn id(self) -> &'static str {
        match self {
            BotLevel::Easy => "easy",
            BotLevel::Medium => "medium",
            BotLevel::Hard => "hard",
            BotLevel::Expert => "expert",
            BotLevel::Admiral => "admiral",
        }
    }

    pub fn from_id(id: &str) -> Option<BotLevel> {
        BotLevel::ALL.into_iter().find(|level| level.id() == id)
    }
}

/// Reads a field that tells "absent" (`None`) from `null` (`Some(None)`): with
/// `#[serde(default, deserialize_with = "double_option")]`.
pub(crate) fn double_option<'de, T, D>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Reads a field through a `serde_json::Value`: `#[serde(deserialize_with =
/// "crate::via_value")]`. Inside an internally tagged enum (a frame) serde
/// buffers the fields, and a buffered map with integer keys (a view's
/// `ships_afloat`) no longer reads; read from a `Value`, it does.
pub(crate) fn via_value<'de, T, D>(deserializer: D) -> Result<T, D::Error>
where
    T: serde::de::DeserializeOwned,
    D: serde::Deserializer<'de>,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    serde_json::from_value(value).map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bot_level_ids_are_their_serde_names() {
        for level in BotLevel::ALL {
            assert_eq!(
                serde_json::to_value(level).unwrap(),
                serde_json::Value::from(level.id())
            );
            assert_eq!(BotLevel::from_id(level.id()), Some(level));
        }
        assert_eq!(BotLevel::from_id("godlike"), None);
    }
}
