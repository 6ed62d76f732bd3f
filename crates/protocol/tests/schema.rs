//! The JSON Schema committed at docs/protocol.schema.json is the one the types
//! give. After a deliberate change of a frame (or of an engine type a frame
//! carries, doc comments included), regenerate it with
//! `BROADSIDE_BLESS=1 cargo test -p broadside-protocol --test schema`.

use std::path::PathBuf;

fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.schema.json")
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let generated = broadside_protocol::schema::text();
    let path = committed();
    if std::env::var_os("BROADSIDE_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("docs/protocol.schema.json is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(c, g)| c != g)
            .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
        panic!(
            "docs/protocol.schema.json differs from the schema of the types (first at line {}):\n\
             committed: {:?}\ngenerated: {:?}\n\
             if the change is meant, run BROADSIDE_BLESS=1 cargo test -p broadside-protocol --test schema",
            line + 1,
            committed.lines().nth(line).unwrap_or("<end>"),
            generated.lines().nth(line).unwrap_or("<end>"),
        );
    }
}

#[test]
fn the_schema_names_every_frame_type() {
    let schema = broadside_protocol::schema::document();
    let text = schema.to_string();
    for kind in [
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
        "quick_match",
        "cancel_match",
        "accept_bot",
        "open_rooms",
        "leaderboard",
        "history",
        "welcome",
        "error",
        "pong",
        "room",
        "state",
        "layout_check",
        "layout",
        "action_area",
        "left",
        "rematch_declined",
        "games",
        "matching",
        "bot_offer",
        "match_cancelled",
    ] {
        assert!(
            text.contains(&format!("\"const\":\"{kind}\"")),
            "the schema has a frame of type {kind}"
        );
    }
    // The client's command has no seat to send and no timeout to ask for.
    let command = schema
        .pointer("/$defs/ClientEnvelope/oneOf")
        .and_then(|forms| forms.as_array())
        .and_then(|forms| {
            forms
                .iter()
                .find(|f| f.pointer("/properties/type/const") == Some(&"command".into()))
        })
        .and_then(|form| form.pointer("/properties/command/oneOf"))
        .and_then(|forms| forms.as_array())
        .expect("the command frame lists the command's forms");
    assert!(command
        .iter()
        .all(|form| form.pointer("/properties/seat").is_none()));
    assert!(command
        .iter()
        .all(|form| form.pointer("/properties/cmd/const") != Some(&"timeout".into())));
    assert!(command.len() >= 8, "{command:?}");
}
