//! Every frame shown in docs/protocol.md is a frame of this crate: each
//! ```json block (a block may hold several frames, answers marked with `→`)
//! and each inline `{"type":…}` span is read as a client frame (with
//! `broadside_protocol::parse`, as the server reads it) or as a server frame
//! (with serde), whichever direction its `type` belongs to, and written back:
//! every field the example shows must come back with its value, so a
//! misspelt or dropped field fails too. Abridged examples (with `…` standing
//! for engine JSON) are ```jsonc blocks and are not read.

use std::path::PathBuf;

use broadside_protocol::{parse, ServerFrame};
use serde_json::Value;

fn protocol_md() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.md");
    std::fs::read_to_string(path).expect("docs/protocol.md is readable")
}

/// The ```json blocks of a Markdown text, with the line each starts on.
fn json_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (number, line) in markdown.lines().enumerate() {
        let fence = line.trim_start();
        match &mut current {
            None if fence.starts_with("```") => {
                if fence.trim_end() == "```json" {
                    current = Some((number + 1, String::new()));
                } else if fence.trim_end() != "```" {
                    // Another language: skipped until its closing fence.
                    current = Some((0, String::new()));
                }
            }
            None => {}
            Some(_) if fence.starts_with("```") => {
                let (start, text) = current.take().expect("inside a block");
                if start > 0 {
                    blocks.push((start, text));
                }
            }
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    assert!(
        current.is_none(),
        "docs/protocol.md closes every code block"
    );
    blocks
}

/// The inline code spans that are frames: `{"type":…}`.
fn inline_frames(markdown: &str) -> Vec<(usize, String)> {
    let mut frames = Vec::new();
    let mut in_block = false;
    for (number, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        for (index, span) in line.split('`').enumerate() {
            if index % 2 == 1 && span.starts_with("{\"type\":") {
                frames.push((number + 1, span.to_string()));
            }
        }
    }
    frames
}

/// The JSON values of a block: one or more, answers marked with `→`.
fn values(block: &str) -> Result<Vec<Value>, serde_json::Error> {
    let text: String = block
        .lines()
        .map(|line| line.trim_start().trim_start_matches('→'))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .collect()
}

/// Whether every field of `shown` comes back in `written` with its value
/// (numbers compared as numbers: `1662` and `1662.0` are one rating); `written`
/// may add the fields an example leaves to their defaults.
fn covers(written: &Value, shown: &Value) -> Result<(), String> {
    match (written, shown) {
        (Value::Object(written), Value::Object(shown)) => {
            for (key, value) in shown {
                let Some(back) = written.get(key) else {
                    return Err(format!("field {key:?} does not come back"));
                };
                covers(back, value).map_err(|e| format!("{key}: {e}"))?;
            }
            Ok(())
        }
        (Value::Array(written), Value::Array(shown)) if written.len() == shown.len() => written
            .iter()
            .zip(shown)
            .enumerate()
            .try_for_each(|(i, (w, s))| covers(w, s).map_err(|e| format!("[{i}]: {e}"))),
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => Ok(()),
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{b} comes back as {a}")),
    }
}

const CLIENT_TYPES: &[&str] = &[
    "hello",
    "create_room",
    "join_room",
    "set_seat",
    "set_options",
    "start",
    "ready",
    "command",
    "check_layout",
    "random_layout",
    "preview_action",
    "chat",
    "resign",
    "rematch",
    "decline_rematch",
    "leave",
    "my_games",
    "ping",
    "resync",
    "quick_match",
    "cancel_match",
    "accept_bot",
    "open_rooms",
    "leaderboard",
    "history",
    "create_account",
    "add_passkey",
    "passkey_created",
    "sign_in",
    "passkey_asserted",
    "recover",
    "account",
    "sign_out",
    "sign_out_everywhere",
    "link_offer",
    "link_redeem",
    "link_request",
    "link_approve",
    "block",
    "unblock",
    "blocks",
    "report",
];

/// Reads one shown frame in its direction; the direction read, or why not.
fn check(frame: &Value) -> Result<&'static str, String> {
    let kind = frame
        .get("type")
        .and_then(Value::as_str)
        .ok_or("a frame has a string \"type\"")?;
    let mut why = Vec::new();
    if CLIENT_TYPES.contains(&kind) {
        match parse(&frame.to_string()) {
            Ok((read, id)) => {
                assert_eq!(read.kind(), kind);
                let written: Value = serde_json::from_str(&read.to_text_with_id(id))
                    .expect("a client frame writes JSON");
                match covers(&written, frame) {
                    Ok(()) => return Ok("client"),
                    Err(e) => why.push(format!("as a client frame: {e}")),
                }
            }
            Err(refused) => why.push(format!(
                "as a client frame: {} ({})",
                refused.refusal.code, refused.refusal.message
            )),
        }
    }
    match serde_json::from_value::<ServerFrame>(frame.clone()) {
        Ok(read) => {
            assert_eq!(read.kind(), kind);
            let written: Value =
                serde_json::from_str(&read.to_text()).expect("a server frame writes JSON");
            match covers(&written, frame) {
                Ok(()) => return Ok("server"),
                Err(e) => why.push(format!("as a server frame: {e}")),
            }
        }
        Err(e) => why.push(format!("as a server frame: {e}")),
    }
    Err(why.join("; "))
}

#[test]
fn every_frame_in_protocol_md_is_a_frame_of_the_crate() {
    let markdown = protocol_md();
    let mut shown: Vec<(usize, Value)> = Vec::new();
    let mut failures = Vec::new();
    for (line, block) in json_blocks(&markdown) {
        match values(&block) {
            Ok(values) if !values.is_empty() => {
                shown.extend(values.into_iter().map(|v| (line, v)));
            }
            Ok(_) => failures.push(format!("line {line}: an empty ```json block")),
            Err(e) => failures.push(format!(
                "line {line}: a ```json block that is not JSON ({e}); \
                 mark abridged examples ```jsonc"
            )),
        }
    }
    let blocks = shown.len();
    for (line, span) in inline_frames(&markdown) {
        match serde_json::from_str::<Value>(&span) {
            Ok(value) => shown.push((line, value)),
            Err(e) => failures.push(format!("line {line}: `{span}` is not JSON ({e})")),
        }
    }
    let (mut client, mut server) = (0, 0);
    for (line, frame) in &shown {
        match check(frame) {
            Ok("client") => client += 1,
            Ok(_) => server += 1,
            Err(why) => failures.push(format!("line {line}: {frame}: {why}")),
        }
    }
    assert!(
        failures.is_empty(),
        "docs/protocol.md shows frames the protocol does not have:\n{}",
        failures.join("\n")
    );
    // The document shows frames of both directions, in blocks and inline.
    assert!(blocks >= 20, "{blocks} frames in ```json blocks");
    assert!(shown.len() > blocks, "inline frames are read too");
    assert!(
        client >= 15 && server >= 15,
        "{client} client, {server} server"
    );
}

#[test]
fn a_broken_example_fails() {
    assert!(check(&serde_json::json!({"type": "join_room", "as": "player"})).is_err());
    assert!(check(&serde_json::json!({"type": "welcome", "token": "x", "nick": "Ana"})).is_err());
    assert!(check(&serde_json::json!({"type": "matching", "preset": "classic"})).is_err());
    assert!(check(&serde_json::json!({"type": "teleport"})).is_err());
    // A field the frame does not have is dropped on the way back: caught.
    assert!(check(&serde_json::json!({"type": "chat", "text": "gg", "colour": 3})).is_err());
    assert_eq!(
        check(&serde_json::json!({"type": "chat", "text": "gg"})),
        Ok("client")
    );
    assert_eq!(
        check(
            &serde_json::json!({"type": "chat", "from": "Ana", "seat": null,
            "text": "gg", "at": 1})
        ),
        Ok("server")
    );
}

#[test]
fn blocks_are_found_with_their_lines() {
    let markdown = "a\n```json\n{\"type\":\"ping\"}\n```\n```jsonc\n{…}\n```\n```\nx\n```\n";
    assert_eq!(
        json_blocks(markdown),
        vec![(2, "{\"type\":\"ping\"}\n".to_string())]
    );
    let values = values("{\"type\":\"ping\"}\n→ {\"type\":\"pong\"}\n").unwrap();
    assert_eq!(values.len(), 2);
    assert_eq!(
        inline_frames("`{\"type\":\"leave\"}` — answer `{\"type\":\"left\",\"code\":\"K\"}`"),
        vec![
            (1, "{\"type\":\"leave\"}".to_string()),
            (1, "{\"type\":\"left\",\"code\":\"K\"}".to_string())
        ]
    );
}

#[test]
fn the_error_codes_of_protocol_md_are_the_crates() {
    let markdown = protocol_md();
    let start = markdown
        .find("\n## Errors")
        .expect("protocol.md has an Errors section");
    let end = markdown[start + 1..]
        .find("\n## ")
        .map_or(markdown.len(), |at| start + 1 + at);
    let listed: Vec<&str> = markdown[start..end]
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split('`').next())
        .collect();
    assert_eq!(listed, broadside_protocol::codes::ALL);
}
