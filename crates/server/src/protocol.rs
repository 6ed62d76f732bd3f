//! The frames of docs/protocol.md: parsing client frames and building server
//! frames. Nothing here knows about sockets or rooms.

use broadside_ai::Level;
use broadside_engine::{
    Action, Cell, Event, Options, Placement, Preset, RuleError, SeatStats, View,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Frames larger than this are not read: the connection is closed with
/// [`close::TOO_BIG`] (docs/protocol.md).
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

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
}
/// Chat lines are at most this many characters.
pub const MAX_CHAT_CHARS: usize = 500;
/// Nicknames are 1 to this many characters.
pub const MAX_NICKNAME_CHARS: usize = 24;

/// Why a client frame was refused: a stable code and a message for developers.
/// The code is owned only when it came from another node of a cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub code: std::borrow::Cow<'static, str>,
    pub message: String,
}

impl Refusal {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Refusal {
            code: code.into(),
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Refusal::new("bad_request", message)
    }
}

impl From<RuleError> for Refusal {
    fn from(error: RuleError) -> Self {
        Refusal {
            code: error.code().into(),
            message: error.to_string(),
        }
    }
}

/// Whether a client joins as a player or a spectator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    #[default]
    Player,
    Spectator,
}

#[derive(Debug, Deserialize)]
pub struct Hello {
    #[serde(default)]
    pub token: Option<String>,
    #[serde(default)]
    pub nickname: Option<String>,
    /// The client's language (pt-PT, pt-BR, es, it, en); others are ignored.
    #[serde(default)]
    pub lang: Option<String>,
}

/// The languages of the clients.
pub const LANGUAGES: &[&str] = &["pt-PT", "pt-BR", "es", "it", "en"];

#[derive(Debug, Deserialize)]
pub struct BotSeat {
    pub seat: usize,
    #[serde(default = "default_level")]
    pub level: Level,
}

fn default_level() -> Level {
    Level::Medium
}

fn default_preset() -> Preset {
    Preset::Classic
}

fn default_seats() -> usize {
    2
}

#[derive(Debug, Deserialize)]
pub struct CreateRoom {
    #[serde(default = "default_preset")]
    pub preset: Preset,
    #[serde(default = "default_seats")]
    pub seats: usize,
    #[serde(default)]
    pub options: Option<Options>,
    #[serde(default)]
    pub teams: Option<Vec<u32>>,
    #[serde(default)]
    pub bots: Vec<BotSeat>,
    /// Listed among the open rooms while in its lobby.
    #[serde(default)]
    pub public: bool,
    /// Games between people here change their ratings.
    #[serde(default)]
    pub rated: bool,
}

#[derive(Debug, Deserialize)]
pub struct JoinRoom {
    pub code: String,
    #[serde(rename = "as", default)]
    pub role: Role,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatChoice {
    Bot,
    Open,
}

#[derive(Debug, Deserialize)]
pub struct SetSeat {
    pub seat: usize,
    pub occupant: SeatChoice,
    #[serde(default)]
    pub level: Option<Level>,
}

/// `set_options`: each present field replaces the room's value. `teams` is kept
/// raw because `null` (no teams) and a missing field (keep) differ.
#[derive(Debug, Deserialize)]
pub struct SetOptions {
    #[serde(default)]
    pub preset: Option<Preset>,
    #[serde(default)]
    pub seats: Option<usize>,
    #[serde(default)]
    pub options: Option<Options>,
    #[serde(skip)]
    pub teams: Option<Option<Vec<u32>>>,
    #[serde(default)]
    pub public: Option<bool>,
    #[serde(default)]
    pub rated: Option<bool>,
}

/// `quick_match` and `leaderboard` name a preset.
#[derive(Debug, Deserialize)]
pub struct ForPreset {
    #[serde(default = "default_preset")]
    pub preset: Preset,
}

#[derive(Debug, Deserialize)]
pub struct Layout {
    #[serde(default)]
    pub ships: Vec<Placement>,
}

#[derive(Debug, Deserialize)]
pub struct Fixed {
    #[serde(default)]
    pub fixed: Vec<Placement>,
}

/// `preview_action`: the action of an `ability` command, to be measured only.
#[derive(Debug, Deserialize)]
pub struct Preview {
    pub action: Action,
}

#[derive(Debug, Deserialize)]
pub struct Chat {
    pub text: String,
}

/// A client frame, read and checked for form (not yet for meaning).
#[derive(Debug)]
pub enum ClientFrame {
    Hello(Hello),
    CreateRoom(CreateRoom),
    JoinRoom(JoinRoom),
    SetSeat(SetSeat),
    SetOptions(SetOptions),
    Start,
    /// An engine command without its seat, still raw JSON.
    Command(Map<String, Value>),
    CheckLayout(Vec<Placement>),
    RandomLayout(Vec<Placement>),
    PreviewAction(Action),
    Chat(String),
    Resign,
    Rematch,
    DeclineRematch,
    Leave,
    MyGames,
    Ping,
    QuickMatch(Preset),
    CancelMatch,
    AcceptBot,
    OpenRooms,
    Leaderboard(Preset),
    History,
}

/// The largest request id a client may send: the largest integer a JavaScript
/// number holds exactly.
pub const MAX_REQUEST_ID: u64 = (1 << 53) - 1;

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
/// "Request ids").
pub fn parse(text: &str) -> Result<(ClientFrame, Option<u64>), Unreadable> {
    if text.len() > MAX_FRAME_BYTES {
        return Err(Unreadable::new(Refusal::new(
            "too_large",
            format!(
                "frames are at most {MAX_FRAME_BYTES} bytes; this one has {}",
                text.len()
            ),
        )));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Unreadable::new(Refusal::new("bad_json", format!("not JSON: {e}"))))?;
    let Value::Object(object) = value else {
        return Err(Unreadable::new(Refusal::new(
            "bad_json",
            "a frame is a JSON object",
        )));
    };
    let Some(kind) = object
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return Err(Unreadable::new(Refusal::new(
            "unknown_type",
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

fn read_frame(kind: &str, object: Map<String, Value>) -> Result<ClientFrame, Refusal> {
    Ok(match kind {
        "hello" => ClientFrame::Hello(fields(&object)?),
        "create_room" => ClientFrame::CreateRoom(fields(&object)?),
        "join_room" => ClientFrame::JoinRoom(fields(&object)?),
        "set_seat" => ClientFrame::SetSeat(fields(&object)?),
        "set_options" => {
            let mut frame: SetOptions = fields(&object)?;
            frame.teams = match object.get("teams") {
                None => None,
                Some(Value::Null) => Some(None),
                Some(teams) => Some(Some(
                    serde_json::from_value(teams.clone())
                        .map_err(|e| Refusal::bad_request(format!("teams: {e}")))?,
                )),
            };
            ClientFrame::SetOptions(frame)
        }
        "start" => ClientFrame::Start,
        "command" => match object.get("command") {
            Some(Value::Object(command)) => ClientFrame::Command(command.clone()),
            _ => {
                return Err(Refusal::bad_request(
                    "\"command\" must be an engine command object",
                ))
            }
        },
        "check_layout" => ClientFrame::CheckLayout(fields::<Layout>(&object)?.ships),
        "random_layout" => ClientFrame::RandomLayout(fields::<Fixed>(&object)?.fixed),
        "preview_action" => ClientFrame::PreviewAction(fields::<Preview>(&object)?.action),
        "chat" => ClientFrame::Chat(fields::<Chat>(&object)?.text),
        "resign" => ClientFrame::Resign,
        "rematch" => ClientFrame::Rematch,
        "decline_rematch" => ClientFrame::DeclineRematch,
        "leave" => ClientFrame::Leave,
        "my_games" => ClientFrame::MyGames,
        "ping" => ClientFrame::Ping,
        "quick_match" => ClientFrame::QuickMatch(fields::<ForPreset>(&object)?.preset),
        "cancel_match" => ClientFrame::CancelMatch,
        "accept_bot" => ClientFrame::AcceptBot,
        "open_rooms" => ClientFrame::OpenRooms,
        "leaderboard" => ClientFrame::Leaderboard(fields::<ForPreset>(&object)?.preset),
        "history" => ClientFrame::History,
        other => {
            return Err(Refusal::new(
                "unknown_type",
                format!("unknown frame type '{other}'"),
            ))
        }
    })
}

/// Whether a character may appear in a name or a chat line. Refused: control
/// characters, invisible *format* characters (bidi overrides such as U+202E,
/// zero-width spaces and joiners, word joiners, BOMs, tags), line and paragraph
/// separators, private-use and unassigned code points — anything that could make
/// one name look like another or reorder the text around it. The one exception
/// is the zero-width joiner between two symbols, which composes emoji
/// (👩‍🚀) and cannot disguise a name.
fn visible_text(text: &str, allow_newline: bool) -> bool {
    use unicode_properties::{GeneralCategory as G, UnicodeGeneralCategory};
    let chars: Vec<char> = text.chars().collect();
    let symbol = |c: Option<&char>| {
        c.is_some_and(|c| {
            matches!(
                c.general_category(),
                G::OtherSymbol | G::ModifierSymbol | G::NonspacingMark
            )
        })
    };
    chars.iter().enumerate().all(|(index, &c)| {
        if c == '\n' {
            return allow_newline;
        }
        if c == '\u{200D}' {
            return index > 0 && symbol(chars.get(index - 1)) && symbol(chars.get(index + 1));
        }
        !matches!(
            c.general_category(),
            G::Control
                | G::Format
                | G::LineSeparator
                | G::ParagraphSeparator
                | G::PrivateUse
                | G::Surrogate
                | G::Unassigned
        )
    })
}

/// A nickname, trimmed and checked.
pub fn clean_nickname(nickname: &str) -> Result<String, Refusal> {
    let nickname = nickname.trim();
    let chars = nickname.chars().count();
    if chars == 0 || chars > MAX_NICKNAME_CHARS {
        return Err(Refusal::bad_request(format!(
            "a nickname has 1 to {MAX_NICKNAME_CHARS} characters"
        )));
    }
    if !visible_text(nickname, false) {
        return Err(Refusal::bad_request(
            "a nickname may not hold control or invisible formatting characters",
        ));
    }
    Ok(nickname.to_string())
}

/// A chat line, trimmed and checked.
pub fn clean_chat(text: &str) -> Result<String, Refusal> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 || chars > MAX_CHAT_CHARS {
        return Err(Refusal::bad_request(format!(
            "a chat line has 1 to {MAX_CHAT_CHARS} characters"
        )));
    }
    // Newlines are fine in chat; other control characters could garble a
    // terminal, and invisible ones could disguise who says what.
    if !visible_text(text, true) {
        return Err(Refusal::bad_request(
            "a chat line may not hold control or invisible formatting characters",
        ));
    }
    Ok(text.to_string())
}

/// Turns a client's command (no seat) into an engine command for `seat`.
pub fn seat_command(
    mut command: Map<String, Value>,
    seat: usize,
) -> Result<broadside_engine::Command, Refusal> {
    match command.get("cmd").and_then(Value::as_str) {
        Some("timeout") => {
            return Err(Refusal::bad_request(
                "the server owns the clock; timeout is not a client command",
            ))
        }
        Some(_) => {}
        None => {
            return Err(Refusal::bad_request(
                "a command needs a string field \"cmd\"",
            ))
        }
    }
    // The server decides the seat: whatever the client wrote is replaced.
    command.insert("seat".into(), json!(seat));
    serde_json::from_value(Value::Object(command))
        .map_err(|e| Refusal::new("bad_command", e.to_string()))
}

// ----- server frames ------------------------------------------------------------

/// An `error` frame; `id` is the refused frame's request id, echoed when it had one.
pub fn error_frame(refusal: &Refusal, request: Option<&str>, id: Option<u64>) -> String {
    with_id(
        json!({"type": "error", "code": refusal.code, "message": refusal.message, "request": request}),
        id,
    )
}

/// A direct answer with the request id of the frame it answers, when it had one.
pub fn with_id(mut frame: Value, id: Option<u64>) -> String {
    if let (Some(id), Value::Object(object)) = (id, &mut frame) {
        object.insert("id".into(), Value::from(id));
    }
    frame.to_string()
}

pub fn welcome_frame(token: &str, nickname: &str) -> String {
    json!({"type": "welcome", "token": token, "nickname": nickname}).to_string()
}

#[derive(Serialize)]
struct StateFrame<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    view: &'a View,
    events: &'a [Event],
    deadline_ms: Option<u64>,
    /// Only once the game is over (`Game::stats`).
    #[serde(skip_serializing_if = "Option::is_none")]
    stats: Option<&'a [SeatStats]>,
}

pub fn state_frame(
    view: &View,
    events: &[Event],
    deadline_ms: Option<u64>,
    stats: Option<&[SeatStats]>,
) -> String {
    serde_json::to_string(&StateFrame {
        kind: "state",
        view,
        events,
        deadline_ms,
        stats,
    })
    .expect("views and events are plain data and always serialize")
}

pub fn action_area_frame(action: &Action, cells: &[Cell], id: Option<u64>) -> String {
    with_id(
        json!({"type": "action_area", "action": action, "cells": cells}),
        id,
    )
}

pub fn chat_frame(from: &str, seat: Option<usize>, text: &str, at_ms: i64) -> String {
    json!({"type": "chat", "from": from, "seat": seat, "text": text, "at": at_ms}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn request_ids_are_read_and_checked() {
        let Ok((ClientFrame::CheckLayout(ships), Some(7))) =
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
        assert_eq!(
            error_frame(&refused.refusal, Some("check_layout"), refused.id),
            with_id(
                json!({"type": "error", "code": "bad_request",
                       "message": refused.refusal.message, "request": "check_layout"}),
                Some(9)
            )
        );
    }

    #[test]
    fn the_server_injects_the_seat() {
        let Ok((ClientFrame::Command(command), None)) = parse(
            r#"{"type":"command","command":{"cmd":"fire","seat":1,"target":{"board":1,"at":[3,4]}}}"#,
        ) else {
            panic!("a fire command parses");
        };
        let command = seat_command(command, 0).unwrap();
        assert!(matches!(
            command,
            broadside_engine::Command::Fire { seat: 0, .. }
        ));
        let Ok((ClientFrame::Command(timeout), None)) =
            parse(r#"{"type":"command","command":{"cmd":"timeout"}}"#)
        else {
            panic!("a timeout frame parses as a command");
        };
        assert_eq!(seat_command(timeout, 0).unwrap_err().code, "bad_request");
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
    }

    #[test]
    fn nicknames_and_chat_are_checked() {
        assert_eq!(clean_nickname("  Ana ").unwrap(), "Ana");
        assert!(clean_nickname("").is_err());
        assert!(clean_nickname(&"x".repeat(25)).is_err());
        assert!(clean_nickname("a\u{7}b").is_err());
        // Issue 12, finding 5: names that look like other names.
        for spoof in [
            "\u{202E}anA",
            "Ana\u{200B}",
            "A\u{200D}na",
            "Ana\u{2060}",
            "\u{FEFF}Ana",
            "Ana\u{2028}x",
            "Ana\u{E000}",
            "Ana\u{E0041}",
            "\u{061C}Ana",
        ] {
            assert!(clean_nickname(spoof).is_err(), "{spoof:?}");
            assert!(clean_chat(spoof).is_err(), "chat {spoof:?}");
        }
        for fine in [
            "Ana",
            "José Ñandú",
            "Łukasz",
            "山田",
            "Ана",
            "👩\u{200D}🚀 Ana",
            "❤\u{FE0F} x",
        ] {
            assert_eq!(clean_nickname(fine).as_deref(), Ok(fine), "{fine:?}");
        }
        assert!(clean_chat("gg").is_ok());
        assert!(clean_chat("two\nlines").is_ok());
        assert!(clean_chat(&"x".repeat(501)).is_err());
    }
}
