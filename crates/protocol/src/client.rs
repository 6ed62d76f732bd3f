//! The frames a client sends, and [`parse`], which reads them as the server
//! does (docs/protocol.md).

use broadside_engine::{Action, Command, Intent, Options, Placement, Preset};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::refusal::{codes, Refusal};
use crate::{BotLevel, MAX_FRAME_BYTES, MAX_REQUEST_ID};

/// Whether a client joins as a player or a spectator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    #[default]
    Player,
    Spectator,
}

/// `hello`: the first frame of every connection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Hello {
    /// The token of an earlier `welcome`, or `null` for a new person. An
    /// unknown or malformed token is treated like `null`.
    #[serde(default)]
    pub token: Option<String>,
    /// 1–24 visible characters; may be `null` with a known token (the stored
    /// nickname is kept).
    #[serde(default)]
    pub nickname: Option<String>,
    /// The client's language (pt-PT, pt-BR, es, it, en); others are ignored.
    #[serde(default)]
    pub lang: Option<String>,
}

/// A seat of `create_room` to fill with a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BotSeat {
    pub seat: usize,
    #[serde(default = "default_level")]
    pub level: BotLevel,
}

fn default_level() -> BotLevel {
    BotLevel::Medium
}

fn default_preset() -> Preset {
    Preset::Classic
}

fn default_seats() -> usize {
    2
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// `create_room`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CreateRoom {
    #[serde(default = "default_preset")]
    pub preset: Preset,
    /// 2–6 (`brasil` and `italia` are 2 only).
    #[serde(default = "default_seats")]
    pub seats: usize,
    /// Engine options; every field optional, unknown names refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Options>,
    /// `null` or one team number per seat (4+ seats).
    #[serde(default)]
    pub teams: Option<Vec<u32>>,
    /// Seats to fill with bots (seat 0 cannot be a bot).
    #[serde(default)]
    pub bots: Vec<BotSeat>,
    /// Listed among the open rooms while in its lobby.
    #[serde(default, skip_serializing_if = "is_false")]
    pub public: bool,
    /// Games between people here change their ratings.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rated: bool,
}

/// `join_room`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JoinRoom {
    /// The room's code, in any case.
    pub code: String,
    #[serde(rename = "as", default)]
    pub role: Role,
}

/// What `set_seat` makes of a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatChoice {
    Bot,
    Open,
}

/// `set_seat` (host, before the start).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SetSeat {
    pub seat: usize,
    pub occupant: SeatChoice,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<BotLevel>,
}

/// `set_options` (host, before the start): each present field replaces the
/// room's value. `teams` tells `null` (no teams, `Some(None)`) from a missing
/// field (keep, `None`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SetOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<usize>,
    /// Replaces the whole options object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Options>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::double_option"
    )]
    pub teams: Option<Option<Vec<u32>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
}

/// A client frame, read and checked for form (not yet for meaning). Serialized,
/// it is the frame's JSON without a request id; [`ClientEnvelope`] adds one.
///
/// Frames are read with [`parse`] (not with serde), which refuses a frame with
/// the codes and messages of docs/protocol.md.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientFrame {
    /// The first frame of every connection; answered with `welcome`.
    Hello(Hello),
    /// A new room with this person as host in seat 0; answered with `room`.
    CreateRoom(Box<CreateRoom>),
    /// Joins a room as a player or a spectator; answered with `room`.
    JoinRoom(JoinRoom),
    /// Makes a seat a bot or opens it (host, before the start).
    SetSeat(SetSeat),
    /// Changes the room's setup (host, before the start).
    SetOptions(Box<SetOptions>),
    /// Starts the game (host).
    Start,
    /// The seat's person says they are (or no longer are) ready to start,
    /// before the start; a rated game needs every person ready.
    Ready { ready: bool },
    /// A seat's move: an engine command without its seat (the engine's
    /// `Intent`). The server applies it for the connection's own seat; a
    /// `seat` sent here is not read.
    Command {
        #[schemars(schema_with = "crate::schema::client_command")]
        command: Map<String, Value>,
    },
    /// Checks a partial or whole layout; answered with `layout_check`.
    CheckLayout {
        #[serde(default)]
        ships: Vec<Placement>,
    },
    /// A random completion of the fleet around `fixed`; answered with `layout`.
    RandomLayout {
        #[serde(default)]
        fixed: Vec<Placement>,
    },
    /// The cells an ability's action covers; answered with `action_area`.
    PreviewAction { action: Action },
    /// A chat line (1 to 500 characters) to everybody in the room.
    Chat { text: String },
    /// Resigns the game (the command `resign`).
    Resign,
    /// Offers or accepts a rematch (after the end).
    Rematch,
    /// Declines or withdraws the rematch on offer.
    DeclineRematch,
    /// Leaves the room; answered with `left`.
    Leave,
    /// The unfinished games of this token; answered with `games`.
    MyGames,
    /// Answered with `pong`.
    Ping,
    /// Asks for the whole view again (a `state`), after a `change` whose
    /// `seq` did not follow.
    Resync,
    /// Waits for a partner in the preset's queue; answered with `matching`.
    QuickMatch {
        #[serde(default = "default_preset")]
        preset: Preset,
    },
    /// Leaves the quick-match queue; answered with `match_cancelled`.
    CancelMatch,
    /// Takes the offered bot instead of waiting.
    AcceptBot,
    /// The public rooms with a seat open; answered with `open_rooms`.
    OpenRooms,
    /// The best ratings of a preset; answered with `leaderboard`.
    Leaderboard {
        #[serde(default = "default_preset")]
        preset: Preset,
    },
    /// The finished games of this token; answered with `history`.
    History,
    /// Makes this guest an account named `username`: answered with
    /// `passkey_create`, whose credential `passkey_created` sends back.
    CreateAccount { username: String },
    /// Adds a passkey to the signed-in account: answered with
    /// `passkey_create`.
    AddPasskey,
    /// The new credential (`PublicKeyCredential.toJSON()`) of the ceremony
    /// `create_account` or `add_passkey` began; answered with `account`.
    PasskeyCreated { credential: Map<String, Value> },
    /// Signs in to account `username` with a passkey: answered with
    /// `passkey_request`, whose assertion `passkey_asserted` sends back.
    SignIn { username: String },
    /// The assertion (`PublicKeyCredential.toJSON()`) of the ceremony
    /// `sign_in` began; answered with `signed_in`.
    PasskeyAsserted { credential: Map<String, Value> },
    /// Signs in with one of the account's recovery codes (each works once);
    /// answered with `signed_in`.
    Recover { username: String, code: String },
    /// The signed-in account: answered with `account`.
    Account,
    /// Ends this session; answered with `signed_out`.
    SignOut,
    /// Ends every other session of the account (their connections close
    /// with 4005); answered with `account`.
    SignOutEverywhere,
    /// A one-use code that signs another device in to this account, for
    /// five minutes; answered with `link_code`.
    LinkOffer,
    /// Signs this device in with a code a signed-in device offered;
    /// answered with `signed_in`.
    LinkRedeem { code: String },
    /// A one-use code for a signed-in device to approve (the terminal's
    /// sign-in); answered with `link_code`, then `signed_in` once approved.
    LinkRequest,
    /// Approves the code another device requested: that device is signed in
    /// to this account; answered with `link_approved`.
    LinkApprove { code: String },
    /// Blocks the person in a seat of this room: never paired with them in
    /// quick match, their chat hidden, neither joins the other's rooms.
    /// Answered with `blocks`.
    Block { seat: usize },
    /// Lifts a block (`player` from the `blocks` frame); answered with `blocks`.
    Unblock { player: i64 },
    /// The people this person blocks; answered with `blocks`.
    Blocks,
    /// Reports the person in a seat of this room to the server's operators;
    /// answered with `reported`.
    Report {
        seat: usize,
        /// `cheating`, `abuse`, `spam` or `other`.
        reason: String,
        /// Up to 500 characters (a chat line, what happened).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
}

/// A client frame with its optional request id, as it goes on the wire: the
/// frame's fields and `id` side by side (docs/protocol.md, "Request ids").
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct ClientEnvelope {
    #[serde(flatten)]
    pub frame: ClientFrame,
    /// An integer from 0 to 2^53 − 1, echoed on the frame's direct answer
    /// (`layout_check`, `layout`, `action_area`) and on the `error` that
    /// refuses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 9_007_199_254_740_991u64))]
    pub id: Option<u64>,
}

impl ClientFrame {
    /// The frame's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            ClientFrame::Hello(_) => "hello",
            ClientFrame::CreateRoom(_) => "create_room",
            ClientFrame::JoinRoom(_) => "join_room",
            ClientFrame::SetSeat(_) => "set_seat",
            ClientFrame::SetOptions(_) => "set_options",
            ClientFrame::Start => "start",
            ClientFrame::Ready { .. } => "ready",
            ClientFrame::Command { .. } => "command",
            ClientFrame::CheckLayout { .. } => "check_layout",
            ClientFrame::RandomLayout { .. } => "random_layout",
            ClientFrame::PreviewAction { .. } => "preview_action",
            ClientFrame::Chat { .. } => "chat",
            ClientFrame::Resign => "resign",
            ClientFrame::Rematch => "rematch",
            ClientFrame::DeclineRematch => "decline_rematch",
            ClientFrame::Leave => "leave",
            ClientFrame::MyGames => "my_games",
            ClientFrame::Ping => "ping",
            ClientFrame::Resync => "resync",
            ClientFrame::QuickMatch { .. } => "quick_match",
            ClientFrame::CancelMatch => "cancel_match",
            ClientFrame::AcceptBot => "accept_bot",
            ClientFrame::OpenRooms => "open_rooms",
            ClientFrame::Leaderboard { .. } => "leaderboard",
            ClientFrame::History => "history",
            ClientFrame::CreateAccount { .. } => "create_account",
            ClientFrame::AddPasskey => "add_passkey",
            ClientFrame::PasskeyCreated { .. } => "passkey_created",
            ClientFrame::SignIn { .. } => "sign_in",
            ClientFrame::PasskeyAsserted { .. } => "passkey_asserted",
            ClientFrame::Recover { .. } => "recover",
            ClientFrame::Account => "account",
            ClientFrame::SignOut => "sign_out",
            ClientFrame::SignOutEverywhere => "sign_out_everywhere",
            ClientFrame::LinkOffer => "link_offer",
            ClientFrame::LinkRedeem { .. } => "link_redeem",
            ClientFrame::LinkRequest => "link_request",
            ClientFrame::LinkApprove { .. } => "link_approve",
            ClientFrame::Block { .. } => "block",
            ClientFrame::Unblock { .. } => "unblock",
            ClientFrame::Blocks => "blocks",
            ClientFrame::Report { .. } => "report",
        }
    }

    /// Whether this is one of the frames about accounts (docs/protocol.md,
    /// "Accounts"), which a connection answers itself.
    pub fn is_about_accounts(&self) -> bool {
        matches!(
            self,
            ClientFrame::CreateAccount { .. }
                | ClientFrame::AddPasskey
                | ClientFrame::PasskeyCreated { .. }
                | ClientFrame::SignIn { .. }
                | ClientFrame::PasskeyAsserted { .. }
                | ClientFrame::Recover { .. }
                | ClientFrame::Account
                | ClientFrame::SignOut
                | ClientFrame::SignOutEverywhere
                | ClientFrame::LinkOffer
                | ClientFrame::LinkRedeem { .. }
                | ClientFrame::LinkRequest
                | ClientFrame::LinkApprove { .. }
        )
    }

    /// The `command` frame for an engine command: the command's JSON without
    /// its `seat`, which the server knows.
    pub fn command(command: &Command) -> ClientFrame {
        let mut command = match serde_json::to_value(command) {
            Ok(Value::Object(object)) => object,
            _ => unreachable!("an engine command serializes as a JSON object"),
        };
        command.remove("seat");
        ClientFrame::Command { command }
    }

    /// The `command` frame for a seat's intent.
    pub fn intent(intent: &Intent) -> ClientFrame {
        match serde_json::to_value(intent) {
            Ok(Value::Object(command)) => ClientFrame::Command { command },
            _ => unreachable!("an intent serializes as a JSON object"),
        }
    }

    /// The frame as sent, without a request id.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("client frames are plain data and always serialize")
    }

    /// The frame as sent, with request id `id` when there is one.
    pub fn to_text_with_id(&self, id: Option<u64>) -> String {
        let envelope = ClientEnvelope {
            frame: self.clone(),
            id,
        };
        serde_json::to_string(&envelope).expect("client frames are plain data and always serialize")
    }
}

/// A frame that could not be read: why, and the frame's `type` and `id` where
/// they were readable, so the error can name them.
#[derive(Debug)]
pub struct Unreadable {
    pub refusal: Refusal,
    pub kind: Option<String>,
    pub id: Option<u64>,
}

impl Unreadable {
    fn new(refusal: Refusal) -> Self {
        Unreadable {
            refusal,
            kind: None,
            id: None,
        }
    }
}

/// Reads one text frame and its optional request `id` (docs/protocol.md,
/// "Request ids"). A frame that is not a JSON object is `bad_json`; one
/// without a string `type`, or with a type no client frame has, is
/// `unknown_type`; a bad `id` or a missing or malformed field is
/// `bad_request`. Unknown fields are ignored (except inside `options`).
pub fn parse(text: &str) -> Result<(ClientFrame, Option<u64>), Unreadable> {
    if text.len() > MAX_FRAME_BYTES {
        return Err(Unreadable::new(Refusal::new(
            codes::TOO_LARGE,
            format!(
                "frames are at most {MAX_FRAME_BYTES} bytes; this one has {}",
                text.len()
            ),
        )));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Unreadable::new(Refusal::new(codes::BAD_JSON, format!("not JSON: {e}"))))?;
    let Value::Object(object) = value else {
        return Err(Unreadable::new(Refusal::new(
            codes::BAD_JSON,
            "a frame is a JSON object",
        )));
    };
    let Some(kind) = object
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return Err(Unreadable::new(Refusal::new(
            codes::UNKNOWN_TYPE,
            "a frame needs a string field \"type\"",
        )));
    };
    let id = match object.get("id") {
        None | Some(Value::Null) => None,
        Some(value) => match value.as_u64().filter(|&id| id <= MAX_REQUEST_ID) {
            Some(id) => Some(id),
            None => {
                return Err(Unreadable {
                    refusal: Refusal::bad_request(format!(
                        "\"id\" must be an integer from 0 to {MAX_REQUEST_ID}"
                    )),
                    kind: Some(kind),
                    id: None,
                })
            }
        },
    };
    let frame = read_frame(&kind, object).map_err(|refusal| Unreadable {
        refusal,
        kind: Some(kind.clone()),
        id,
    })?;
    Ok((frame, id))
}

fn fields<T: serde::de::DeserializeOwned>(object: &Map<String, Value>) -> Result<T, Refusal> {
    serde_json::from_value(Value::Object(object.clone()))
        .map_err(|e| Refusal::bad_request(e.to_string()))
}

#[derive(Deserialize)]
struct Layout {
    #[serde(default)]
    ships: Vec<Placement>,
}

#[derive(Deserialize)]
struct Fixed {
    #[serde(default)]
    fixed: Vec<Placement>,
}

#[derive(Deserialize)]
struct Preview {
    action: Action,
}

#[derive(Deserialize)]
struct ReadyFlag {
    ready: bool,
}

#[derive(Deserialize)]
struct ChatText {
    text: String,
}

#[derive(Deserialize)]
struct Username {
    username: String,
}

#[derive(Deserialize)]
struct Recovery {
    username: String,
    code: String,
}

#[derive(Deserialize)]
struct Code {
    code: String,
}

#[derive(Deserialize)]
struct OfSeat {
    seat: usize,
}

#[derive(Deserialize)]
struct OfPlayer {
    player: i64,
}

#[derive(Deserialize)]
struct Reporting {
    seat: usize,
    reason: String,
    #[serde(default)]
    note: Option<String>,
}

#[derive(Deserialize)]
struct Credential {
    credential: Map<String, Value>,
}

#[derive(Deserialize)]
struct ForPreset {
    #[serde(default = "default_preset")]
    preset: Preset,
}

fn read_frame(kind: &str, object: Map<String, Value>) -> Result<ClientFrame, Refusal> {
    Ok(match kind {
        "hello" => ClientFrame::Hello(fields(&object)?),
        "create_room" => ClientFrame::CreateRoom(fields(&object)?),
        "join_room" => ClientFrame::JoinRoom(fields(&object)?),
        "set_seat" => ClientFrame::SetSeat(fields(&object)?),
        "set_options" => {
            // The other fields first, then `teams`, whose error names it.
            let mut rest = object;
            let teams = rest.remove("teams");
            let mut frame: Box<SetOptions> = fields(&rest)?;
            frame.teams = match teams {
                None => None,
                Some(Value::Null) => Some(None),
                Some(teams) => Some(Some(
                    serde_json::from_value(teams)
                        .map_err(|e| Refusal::bad_request(format!("teams: {e}")))?,
                )),
            };
            ClientFrame::SetOptions(frame)
        }
        "start" => ClientFrame::Start,
        "ready" => ClientFrame::Ready {
            ready: fields::<ReadyFlag>(&object)?.ready,
        },
        "command" => match object.get("command") {
            Some(Value::Object(command)) => ClientFrame::Command {
                command: command.clone(),
            },
            _ => {
                return Err(Refusal::bad_request(
                    "\"command\" must be an engine command object",
                ))
            }
        },
        "check_layout" => ClientFrame::CheckLayout {
            ships: fields::<Layout>(&object)?.ships,
        },
        "random_layout" => ClientFrame::RandomLayout {
            fixed: fields::<Fixed>(&object)?.fixed,
        },
        "preview_action" => ClientFrame::PreviewAction {
            action: fields::<Preview>(&object)?.action,
        },
        "chat" => ClientFrame::Chat {
            text: fields::<ChatText>(&object)?.text,
        },
        "resign" => ClientFrame::Resign,
        "rematch" => ClientFrame::Rematch,
        "decline_rematch" => ClientFrame::DeclineRematch,
        "leave" => ClientFrame::Leave,
        "my_games" => ClientFrame::MyGames,
        "ping" => ClientFrame::Ping,
        "resync" => ClientFrame::Resync,
        "quick_match" => ClientFrame::QuickMatch {
            preset: fields::<ForPreset>(&object)?.preset,
        },
        "cancel_match" => ClientFrame::CancelMatch,
        "accept_bot" => ClientFrame::AcceptBot,
        "open_rooms" => ClientFrame::OpenRooms,
        "leaderboard" => ClientFrame::Leaderboard {
            preset: fields::<ForPreset>(&object)?.preset,
        },
        "history" => ClientFrame::History,
        "create_account" => ClientFrame::CreateAccount {
            username: fields::<Username>(&object)?.username,
        },
        "add_passkey" => ClientFrame::AddPasskey,
        "passkey_created" => ClientFrame::PasskeyCreated {
            credential: fields::<Credential>(&object)?.credential,
        },
        "sign_in" => ClientFrame::SignIn {
            username: fields::<Username>(&object)?.username,
        },
        "passkey_asserted" => ClientFrame::PasskeyAsserted {
            credential: fields::<Credential>(&object)?.credential,
        },
        "recover" => {
            let Recovery { username, code } = fields(&object)?;
            ClientFrame::Recover { username, code }
        }
        "account" => ClientFrame::Account,
        "sign_out" => ClientFrame::SignOut,
        "sign_out_everywhere" => ClientFrame::SignOutEverywhere,
        "link_offer" => ClientFrame::LinkOffer,
        "link_redeem" => ClientFrame::LinkRedeem {
            code: fields::<Code>(&object)?.code,
        },
        "link_request" => ClientFrame::LinkRequest,
        "link_approve" => ClientFrame::LinkApprove {
            code: fields::<Code>(&object)?.code,
        },
        "block" => ClientFrame::Block {
            seat: fields::<OfSeat>(&object)?.seat,
        },
        "unblock" => ClientFrame::Unblock {
            player: fields::<OfPlayer>(&object)?.player,
        },
        "blocks" => ClientFrame::Blocks,
        "report" => {
            let Reporting { seat, reason, note } = fields(&object)?;
            ClientFrame::Report { seat, reason, note }
        }
        other => {
            return Err(Refusal::new(
                codes::UNKNOWN_TYPE,
                format!("unknown frame type '{other}'"),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use broadside_engine::Target;

    fn code(text: &str) -> String {
        parse(text).unwrap_err().refusal.code.into_owned()
    }

    #[test]
    fn malformed_frames_get_their_codes() {
        assert_eq!(code("{"), "bad_json");
        assert_eq!(code("[1,2]"), "bad_json");
        assert_eq!(code("{\"kind\":\"hello\"}"), "unknown_type");
        assert_eq!(code("{\"type\":\"fly\"}"), "unknown_type");
        assert_eq!(code("{\"type\":\"join_room\"}"), "bad_request");
        assert_eq!(code("{\"type\":\"command\",\"command\":3}"), "bad_request");
        let big = format!(
            "{{\"type\":\"chat\",\"text\":\"{}\"}}",
            "a".repeat(MAX_FRAME_BYTES)
        );
        assert_eq!(code(&big), "too_large");
    }

    #[test]
    fn refusals_keep_their_messages() {
        let refused = parse(r#"{"type":"join_room"}"#).unwrap_err();
        assert_eq!(refused.refusal.message, "missing field `code`");
        let refused = parse(r#"{"type":"fly","id":4}"#).unwrap_err();
        assert_eq!(refused.refusal.message, "unknown frame type 'fly'");
        assert_eq!(
            (refused.kind.as_deref(), refused.id),
            (Some("fly"), Some(4))
        );
        let refused = parse(r#"{"type":"set_options","teams":"red"}"#).unwrap_err();
        assert_eq!(
            refused.refusal.message,
            "teams: invalid type: string \"red\", expected a sequence"
        );
        let refused = parse(r#"{"type":"create_room","options":{"colour":1}}"#).unwrap_err();
        assert_eq!(refused.refusal.code, "bad_request");
        assert!(
            refused
                .refusal
                .message
                .starts_with("unknown field `colour`"),
            "{}",
            refused.refusal.message
        );
    }

    #[test]
    fn request_ids_are_read_and_checked() {
        let Ok((ClientFrame::CheckLayout { ships }, Some(7))) =
            parse(r#"{"type":"check_layout","ships":[],"id":7}"#)
        else {
            panic!("an id is read beside the frame");
        };
        assert!(ships.is_empty());
        assert!(matches!(
            parse(r#"{"type":"ping","id":null}"#),
            Ok((_, None))
        ));
        let max = format!("{{\"type\":\"ping\",\"id\":{MAX_REQUEST_ID}}}");
        assert!(matches!(parse(&max), Ok((_, Some(MAX_REQUEST_ID)))));
        for bad in ["-1", "1.5", "\"7\"", &(MAX_REQUEST_ID + 1).to_string()] {
            let refused = parse(&format!("{{\"type\":\"ping\",\"id\":{bad}}}")).unwrap_err();
            assert_eq!(refused.refusal.code, "bad_request", "id {bad}");
            assert_eq!(refused.kind.as_deref(), Some("ping"));
        }
        // A frame refused for its form still names its id.
        let refused = parse(r#"{"type":"check_layout","ships":3,"id":9}"#).unwrap_err();
        assert_eq!(
            (&*refused.refusal.code, refused.id),
            ("bad_request", Some(9))
        );
    }

    #[test]
    fn set_options_tells_null_teams_from_missing_teams() {
        let Ok((ClientFrame::SetOptions(missing), _)) = parse(r#"{"type":"set_options"}"#) else {
            panic!()
        };
        assert_eq!(missing.teams, None);
        let Ok((ClientFrame::SetOptions(null), _)) =
            parse(r#"{"type":"set_options","teams":null}"#)
        else {
            panic!()
        };
        assert_eq!(null.teams, Some(None));
        let Ok((ClientFrame::SetOptions(teams), _)) =
            parse(r#"{"type":"set_options","teams":[0,1,0,1]}"#)
        else {
            panic!()
        };
        assert_eq!(teams.teams, Some(Some(vec![0, 1, 0, 1])));
        // And they go back on the wire as they came.
        assert_eq!(null.teams, Some(None));
        assert_eq!(
            ClientFrame::SetOptions(null).to_text(),
            r#"{"type":"set_options","teams":null}"#
        );
        assert_eq!(
            ClientFrame::SetOptions(missing).to_text(),
            r#"{"type":"set_options"}"#
        );
    }

    #[test]
    fn frames_are_sent_as_the_clients_sent_them() {
        let cases = [
            (ClientFrame::Ping, r#"{"type":"ping"}"#),
            (ClientFrame::Resync, r#"{"type":"resync"}"#),
            (ClientFrame::MyGames, r#"{"type":"my_games"}"#),
            (
                ClientFrame::QuickMatch {
                    preset: Preset::Hasbro,
                },
                r#"{"type":"quick_match","preset":"hasbro"}"#,
            ),
            (
                ClientFrame::JoinRoom(JoinRoom {
                    code: "K7QM2P".into(),
                    role: Role::Spectator,
                }),
                r#"{"type":"join_room","code":"K7QM2P","as":"spectator"}"#,
            ),
            (
                ClientFrame::Hello(Hello {
                    token: None,
                    nickname: Some("Ana".into()),
                    lang: Some("pt-PT".into()),
                }),
                r#"{"type":"hello","token":null,"nickname":"Ana","lang":"pt-PT"}"#,
            ),
            (
                ClientFrame::CreateRoom(Box::new(CreateRoom {
                    preset: Preset::Classic,
                    seats: 2,
                    options: Some(Options::default()),
                    teams: None,
                    bots: vec![BotSeat {
                        seat: 1,
                        level: BotLevel::Hard,
                    }],
                    public: false,
                    rated: false,
                })),
                r#"{"type":"create_room","preset":"classic","seats":2,"options":{},"teams":null,"bots":[{"seat":1,"level":"hard"}]}"#,
            ),
        ];
        for (frame, text) in cases {
            assert_eq!(frame.to_text(), text);
            let (read, id) = parse(text).expect("a sent frame reads back");
            assert_eq!((read, id), (frame, None));
        }
        assert_eq!(
            ClientFrame::CheckLayout { ships: vec![] }.to_text_with_id(Some(12)),
            r#"{"type":"check_layout","ships":[],"id":12}"#
        );
        assert_eq!(
            ClientFrame::Start.to_text_with_id(None),
            r#"{"type":"start"}"#
        );
    }

    #[test]
    fn a_command_frame_leaves_the_seat_to_the_server() {
        let fire = Command::Fire {
            seat: 1,
            target: Target {
                board: 0,
                at: broadside_engine::Cell::new(3, 4),
            },
        };
        // The command goes through a JSON map, whose key order depends on
        // serde_json's features: compared as JSON.
        let text = ClientFrame::command(&fire).to_text();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            serde_json::json!({"type": "command",
                "command": {"cmd": "fire", "target": {"board": 0, "at": [3, 4]}}})
        );
        assert!(text.starts_with(r#"{"type":"command","command":{"#));
    }
}
