//! Why a client frame was refused: the `code` and `message` of an `error`
//! frame (docs/protocol.md, "Errors").

use std::borrow::Cow;

use broadside_engine::RuleError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a client frame was refused: a stable code and a message for developers.
/// The code is owned only when it came from elsewhere (another node of a
/// cluster, or a frame read back).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Refusal {
    /// A stable identifier that clients translate: one of [`codes`] or an
    /// engine code (`RuleError::code`).
    pub code: Cow<'static, str>,
    /// English text for developers and logs.
    pub message: String,
    /// `busy` only: when to try again, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

impl Refusal {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Refusal {
            code: code.into(),
            message: message.into(),
            retry_after_ms: None,
        }
    }

    /// `busy`: the server is overloaded and takes no new game for now; try
    /// again after `retry_after_ms`.
    pub fn busy(retry_after_ms: u64) -> Self {
        Refusal {
            code: codes::BUSY.into(),
            message: format!(
                "the server is busy and starts no new game for now; try again in {} s",
                retry_after_ms.div_ceil(1000)
            ),
            retry_after_ms: Some(retry_after_ms),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Refusal::new(codes::BAD_REQUEST, message)
    }
}

impl From<RuleError> for Refusal {
    fn from(error: RuleError) -> Self {
        Refusal {
            code: error.code().into(),
            message: error.to_string(),
            retry_after_ms: None,
        }
    }
}

/// The protocol's own refusal codes (docs/protocol.md, "Errors"); a command
/// the rules refuse comes back with the engine's code instead.
pub mod codes {
    /// The frame is not a JSON object (or is binary).
    pub const BAD_JSON: &str = "bad_json";
    /// (A cluster) a room frame for a room on another node is over the
    /// forwarding limit even without unknown fields. (A frame over
    /// [`crate::MAX_FRAME_BYTES`] closes the connection with 1009;
    /// [`crate::parse`] still names an oversized text with it.)
    pub const TOO_LARGE: &str = "too_large";
    /// `type` is missing or not one of the client frames.
    pub const UNKNOWN_TYPE: &str = "unknown_type";
    /// A field is missing or has the wrong form.
    pub const BAD_REQUEST: &str = "bad_request";
    /// The first frame of a connection must be `hello`.
    pub const HELLO_FIRST: &str = "hello_first";
    /// Too many frames, new rooms, unknown room codes or CPU work.
    pub const RATE_LIMITED: &str = "rate_limited";
    /// Too many chat lines from this connection; the line was not sent.
    pub const CHAT_RATE_LIMITED: &str = "chat_rate_limited";
    /// A spectator join into a running game where the person holds a seat.
    pub const SEATED: &str = "seated";
    /// The frame needs a room and the connection is in none.
    pub const NOT_IN_ROOM: &str = "not_in_room";
    /// The frame needs a seat and the connection is a spectator.
    pub const NOT_A_PLAYER: &str = "not_a_player";
    /// No room has that code.
    pub const ROOM_NOT_FOUND: &str = "room_not_found";
    /// No seat is open.
    pub const ROOM_FULL: &str = "room_full";
    /// Only the host may do this.
    pub const NOT_HOST: &str = "not_host";
    /// The game has started; the lobby can no longer change.
    pub const ALREADY_STARTED: &str = "already_started";
    /// The game has not started yet.
    pub const NOT_STARTED: &str = "not_started";
    /// `start` while a seat is still open.
    pub const SEATS_OPEN: &str = "seats_open";
    /// `rematch` before the game is over.
    pub const NOT_FINISHED: &str = "not_finished";
    /// `decline_rematch` while no rematch is on offer.
    pub const NO_REMATCH_OFFER: &str = "no_rematch_offer";
    /// `cancel_match` or `accept_bot` while not waiting for a quick match.
    pub const NOT_MATCHING: &str = "not_matching";
    /// The server could not store the change; nothing changed.
    pub const INTERNAL: &str = "internal";
    /// (A cluster) the room moved to another node; send the frame again.
    pub const MOVED: &str = "moved";
    /// `start` of a rated game while a person's seat is not connected or
    /// has not said `ready`.
    pub const NOT_READY: &str = "not_ready";
    /// An option a rated room cannot have (`spectators_see_all`, `practice`).
    pub const NOT_FOR_RATED: &str = "not_for_rated";
    /// A rated room's clock below the preset's default.
    pub const CLOCK_TOO_SHORT: &str = "clock_too_short";
    /// `cancel_match`, `create_room` or `join_room` from a connection that a
    /// quick match has just paired: its game is starting (a `room` frame
    /// follows).
    pub const PAIRED: &str = "paired";
    /// A username another account has, or one that looks like it.
    pub const USERNAME_TAKEN: &str = "username_taken";
    /// A frame for accounts from a guest (sign in first).
    pub const NOT_SIGNED_IN: &str = "not_signed_in";
    /// `create_account` from a session that is already an account's.
    pub const ALREADY_SIGNED_IN: &str = "already_signed_in";
    /// The passkey was not accepted (or no ceremony was under way).
    pub const PASSKEY_FAILED: &str = "passkey_failed";
    /// Sign-in refused: no such account, passkey or recovery code.
    pub const SIGN_IN_FAILED: &str = "sign_in_failed";
    /// A link code that is unknown, used or expired.
    pub const LINK_CODE_INVALID: &str = "link_code_invalid";
    /// Rated play needs an account.
    pub const ACCOUNT_NEEDED: &str = "account_needed";
    /// The person is banned from this server (the message says until when).
    pub const BANNED: &str = "banned";
    /// The person may not chat for now.
    pub const MUTED: &str = "muted";
    /// `join_room` into a room whose host blocks this person.
    pub const NOT_ALLOWED: &str = "not_allowed";
    /// `block` or `report` of a seat with no person in it.
    pub const NO_SUCH_PLAYER: &str = "no_such_player";
    /// The server is overloaded: a new room, quick match or join is refused
    /// for now (running games go on); `retry_after_ms` says when to try again.
    pub const BUSY: &str = "busy";

    /// Every code above, in the order of docs/protocol.md's table.
    pub const ALL: &[&str] = &[
        BAD_JSON,
        TOO_LARGE,
        UNKNOWN_TYPE,
        BAD_REQUEST,
        HELLO_FIRST,
        RATE_LIMITED,
        CHAT_RATE_LIMITED,
        SEATED,
        NOT_IN_ROOM,
        NOT_A_PLAYER,
        ROOM_NOT_FOUND,
        ROOM_FULL,
        NOT_HOST,
        ALREADY_STARTED,
        NOT_STARTED,
        SEATS_OPEN,
        NOT_FINISHED,
        NO_REMATCH_OFFER,
        NOT_MATCHING,
        INTERNAL,
        MOVED,
        NOT_READY,
        NOT_FOR_RATED,
        CLOCK_TOO_SHORT,
        PAIRED,
        USERNAME_TAKEN,
        NOT_SIGNED_IN,
        ALREADY_SIGNED_IN,
        PASSKEY_FAILED,
        SIGN_IN_FAILED,
        LINK_CODE_INVALID,
        ACCOUNT_NEEDED,
        BANNED,
        MUTED,
        NOT_ALLOWED,
        NO_SUCH_PLAYER,
        BUSY,
    ];
}
