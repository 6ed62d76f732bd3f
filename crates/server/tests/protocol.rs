//! Malformed, oversized, unknown and illegal frames get a clear error and change
//! nothing.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

/// A short wait in which no frame may arrive.
const QUIET: Duration = Duration::from_millis(200);

#[tokio::test]
async fn frames_before_hello_and_malformed_frames_are_refused() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut client = server.client().await;

    client.send(json!({"type": "my_games"})).await;
    assert_eq!(client.expect_error().await, "hello_first");
    client
        .send(json!({"type": "hello", "token": null, "nickname": "   "}))
        .await;
    assert_eq!(client.expect_error().await, "bad_request");
    client.send(json!({"type": "hello", "token": null})).await;
    assert_eq!(client.expect_error().await, "bad_request");
    // A token of the wrong form is not an identity: a new one is issued.
    let welcome = client.hello(Some("not-a-token"), "Ana").await;
    let token = welcome["token"].as_str().unwrap();
    assert_eq!(token.len(), 32);
    assert_ne!(token, "not-a-token");
    client
        .send(json!({"type": "hello", "token": token, "nickname": "Ana"}))
        .await;
    assert_eq!(client.expect_error().await, "bad_request");

    for (text, code) in [
        ("{", "bad_json"),
        ("[1, 2]", "bad_json"),
        ("\"hello\"", "bad_json"),
        ("{}", "unknown_type"),
        ("{\"type\": 7}", "unknown_type"),
        ("{\"type\": \"launch_missiles\"}", "unknown_type"),
        ("{\"type\": \"join_room\"}", "bad_request"),
        (
            "{\"type\": \"join_room\", \"code\": \"ABCDEF\", \"as\": \"referee\"}",
            "bad_request",
        ),
        (
            "{\"type\": \"create_room\", \"preset\": \"chess\"}",
            "bad_request",
        ),
        (
            "{\"type\": \"create_room\", \"options\": {\"turbo\": true}}",
            "bad_request",
        ),
        ("{\"type\": \"create_room\", \"seats\": 7}", "bad_command"),
        (
            "{\"type\": \"create_room\", \"preset\": \"italia\", \"options\": {\"cols\": 30}}",
            "bad_command",
        ),
        (
            "{\"type\": \"create_room\", \"bots\": [{\"seat\": 0}]}",
            "bad_request",
        ),
        ("{\"type\": \"start\"}", "not_in_room"),
        (
            "{\"type\": \"command\", \"command\": {\"cmd\": \"place_random\"}}",
            "not_in_room",
        ),
        ("{\"type\": \"chat\", \"text\": \"hi\"}", "not_in_room"),
    ] {
        client.send_text(text.to_string()).await;
        let error = client.expect_any("error").await;
        assert_eq!(error["code"], code, "{text} → {error}");
        assert!(!error["message"].as_str().unwrap().is_empty());
    }
    client.send_binary(vec![1, 2, 3]).await;
    assert_eq!(client.expect_error().await, "bad_json");

    // The connection is still fine after every refusal.
    client.send(json!({"type": "ping"})).await;
    client.expect("pong").await;
    client.send(json!({"type": "my_games"})).await;
    assert_eq!(client.expect("games").await["games"], json!([]));
    server.stop().await;
}

/// Ana's and Bea's battle, Ana to move: (server, ana, bea, code).
async fn battle() -> (tempfile::TempDir, TestServer, Client, Client, String) {
    let (dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(json!({"preset": "classic", "options": {
            "turn_seconds": 0, "place_seconds": 0, "first": 0, "hit_again": false}}))
        .await;
    let mut bea = server.person("Bea").await;
    bea.join(&code, "player").await;
    ana.send(json!({"type": "start"})).await;
    ana.command(json!({"cmd": "place_random"})).await;
    bea.expect("state").await;
    bea.command(json!({"cmd": "place_random"})).await;
    ana.state_until(|s| phase(s) == "battle").await;
    bea.state_until(|s| phase(s) == "battle").await;
    (dir, server, ana, bea, code)
}

/// The view a client gets when it joins again, which must equal `before`.
async fn view_after_rejoin(client: &mut Client, code: &str) -> Value {
    client.state = None;
    client.join(code, "player").await;
    client.expect("state").await["view"].clone()
}

#[tokio::test]
async fn illegal_commands_get_engine_codes_and_change_nothing() {
    let (_dir, server, mut ana, mut bea, code) = battle().await;
    let ana_view = ana.state.clone().unwrap()["view"].clone();
    let bea_view = bea.state.clone().unwrap()["view"].clone();
    assert_eq!(ana_view["to_move"], json!([0]));

    let refused: Vec<(Value, &str)> = vec![
        (
            json!({"cmd": "fire", "target": {"board": 0, "at": [0, 0]}}),
            "own_board",
        ),
        (
            json!({"cmd": "fire", "target": {"board": 1, "at": [10, 3]}}),
            "out_of_bounds",
        ),
        (
            json!({"cmd": "fire", "target": {"board": 5, "at": [1, 1]}}),
            "out_of_bounds",
        ),
        (json!({"cmd": "fire", "target": "B7"}), "bad_command"),
        (json!({"cmd": "fire"}), "bad_command"),
        (
            json!({"cmd": "warp", "target": {"board": 1, "at": [1, 1]}}),
            "bad_command",
        ),
        (json!({"cmd": "place_random"}), "wrong_phase"),
        (
            json!({"cmd": "volley", "cells": [[1, 1], [2, 2], [3, 3]]}),
            "wrong_phase",
        ),
        (
            json!({"cmd": "ability", "action": {"kind": "radar", "board": 1, "center": [4, 4]}}),
            "ability_unavailable",
        ),
        (json!({"cmd": "timeout"}), "bad_request"),
        (json!({"fire": true}), "bad_request"),
    ];
    for (command, code) in refused {
        ana.command(command.clone()).await;
        let error = ana.expect_any("error").await;
        assert_eq!(error["code"], code, "{command} → {error}");
        assert_eq!(error["request"], "command");
    }
    // Bea cannot fire in Ana's turn, not even by naming Ana's seat: the server
    // puts Bea's own seat into her command.
    bea.command(json!({"cmd": "fire", "seat": 0, "target": {"board": 0, "at": [1, 1]}}))
        .await;
    assert_eq!(bea.expect_error().await, "not_your_turn");
    bea.send(json!({"type": "set_options", "seats": 3})).await;
    assert_eq!(bea.expect_error().await, "not_host");
    // Nobody else heard of any of it, and the game is exactly as it was.
    assert!(ana.drain(QUIET).await.is_empty());
    assert!(bea.drain(QUIET).await.is_empty());
    assert_eq!(view_after_rejoin(&mut ana, &code).await, ana_view);
    assert_eq!(view_after_rejoin(&mut bea, &code).await, bea_view);

    // A cell already shot cannot be shot again.
    ana.command(json!({"cmd": "fire", "target": {"board": 1, "at": [0, 0]}}))
        .await;
    let after_shot = ana.expect("state").await["view"].clone();
    bea.state_until(my_move).await;
    bea.command(json!({"cmd": "fire", "target": {"board": 0, "at": [0, 0]}}))
        .await;
    bea.expect("state").await;
    ana.state_until(my_move).await;
    let before = ana.state.clone().unwrap()["view"].clone();
    assert_ne!(before, after_shot);
    ana.command(json!({"cmd": "fire", "target": {"board": 1, "at": [0, 0]}}))
        .await;
    assert_eq!(ana.expect_error().await, "not_targetable");
    assert!(bea.drain(QUIET).await.iter().all(|f| f["type"] != "state"));
    assert_eq!(view_after_rejoin(&mut ana, &code).await, before);
    server.stop().await;
}

#[tokio::test]
async fn action_previews_answer_the_asker_alone_and_refuse_bad_targets() {
    let (_dir, server, mut ana, mut bea, code) = battle().await;
    let ana_view = ana.state.clone().unwrap()["view"].clone();
    let bea_view = bea.state.clone().unwrap()["view"].clone();

    // Previews are geometry: any seat may ask, in or out of its turn, about
    // any kind of action, and only the asker hears the answer.
    let valid: Vec<(Value, Value)> = vec![
        (
            json!({"kind": "wide", "board": 1, "center": [0, 0]}),
            json!([[0, 0], [1, 0], [0, 1], [1, 1]]),
        ),
        (
            json!({"kind": "nuke", "board": 1, "at": [9, 9]}),
            json!([[9, 7], [8, 8], [9, 8], [7, 9], [8, 9], [9, 9]]),
        ),
        (
            json!({"kind": "laser", "board": 0, "column": 3, "from": "bottom"}),
            json!((0..10).map(|row| [3, row]).collect::<Vec<_>>()),
        ),
        (
            json!({"kind": "bombard", "board": 1, "line": {"row": 2}}),
            json!((0..10).map(|col| [col, 2]).collect::<Vec<_>>()),
        ),
    ];
    for (action, cells) in &valid {
        bea.send(json!({"type": "preview_action", "action": action}))
            .await;
        let answer = bea.expect("action_area").await;
        assert_eq!(&answer["action"], action);
        assert_eq!(&answer["cells"], cells, "{action}");
    }
    ana.send(json!({"type": "preview_action", "action":
        {"kind": "scanner", "board": 1, "center": [4, 4]}}))
        .await;
    let answer = ana.expect("action_area").await;
    assert_eq!(answer["cells"].as_array().unwrap().len(), 9);

    let refused: Vec<(Value, &str)> = vec![
        (
            json!({"kind": "wide", "board": 5, "center": [1, 1]}),
            "out_of_bounds",
        ),
        (
            json!({"kind": "nuke", "board": 1, "at": [10, 3]}),
            "out_of_bounds",
        ),
        (
            json!({"kind": "laser", "board": 1, "column": 10, "from": "top"}),
            "out_of_bounds",
        ),
        (
            json!({"kind": "bombard", "board": 1, "line": {"column": 12}}),
            "out_of_bounds",
        ),
        (
            json!({"kind": "reserve", "board": null, "cells": null}),
            "bad_request",
        ),
        (
            json!({"kind": "wide", "board": 1, "center": [-1, 2]}),
            "bad_request",
        ),
        (json!({"kind": "teleport", "board": 1}), "bad_request"),
        (json!("B7"), "bad_request"),
    ];
    for (action, code) in refused {
        ana.send(json!({"type": "preview_action", "action": action}))
            .await;
        let error = ana.expect_any("error").await;
        assert_eq!(error["code"], code, "{action} → {error}");
        assert_eq!(error["request"], "preview_action");
    }
    ana.send(json!({"type": "preview_action"})).await;
    assert_eq!(ana.expect_error().await, "bad_request");

    // Nothing reached anybody else, and the game is exactly as it was.
    assert!(ana.drain(QUIET).await.is_empty());
    assert!(bea.drain(QUIET).await.is_empty());
    assert_eq!(view_after_rejoin(&mut ana, &code).await, ana_view);
    assert_eq!(view_after_rejoin(&mut bea, &code).await, bea_view);

    // A spectator has no seat in the game to preview for.
    let mut cy = server.person("Cy").await;
    cy.join(&code, "spectator").await;
    cy.send(json!({"type": "preview_action", "action":
        {"kind": "wide", "board": 1, "center": [1, 1]}}))
        .await;
    assert_eq!(cy.expect_error().await, "not_a_player");
    assert!(cy.drain(QUIET).await.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn action_previews_need_a_started_game() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let preview = json!({"type": "preview_action", "action":
        {"kind": "wide", "board": 1, "center": [1, 1]}});
    ana.send(preview.clone()).await;
    assert_eq!(ana.expect_error().await, "not_in_room");
    ana.create(json!({"preset": "classic", "bots": [{"seat": 1}]}))
        .await;
    ana.send(preview).await;
    assert_eq!(ana.expect_error().await, "not_started");
    server.stop().await;
}

/// The default configuration with bots that move at once.
fn quick() -> broadside_server::Config {
    broadside_server::Config {
        bot_delay: Duration::ZERO,
        ..broadside_server::Config::default()
    }
}

/// A client that floods frames is slowed down: one `rate_limited` error, the
/// excess dropped, and normal service once it slows down.
#[tokio::test]
async fn a_flood_of_frames_is_rate_limited() {
    let (_dir, db) = temp_db();
    let config = broadside_server::Config {
        frames_per_second: 20.0,
        frame_burst: 10,
        ..quick()
    };
    let server = TestServer::start_with(&db, config).await;
    let mut client = server.person("Ana").await;
    for _ in 0..60 {
        client.send(json!({"type": "my_games"})).await;
    }
    let answers = client.drain(QUIET).await;
    let games = answers.iter().filter(|f| f["type"] == "games").count();
    let limited: Vec<&Value> = answers
        .iter()
        .filter(|f| f["type"] == "error" && f["code"] == "rate_limited")
        .collect();
    assert!(
        (5..40).contains(&games),
        "the burst and a little refill are served, not all 60: {games}"
    );
    assert_eq!(limited.len(), 1, "one warning per flood: {answers:?}");
    assert_eq!(
        games + 1,
        answers.len(),
        "nothing else is sent: {answers:?}"
    );
    // After a pause the connection serves again.
    tokio::time::sleep(Duration::from_millis(600)).await;
    client.send(json!({"type": "my_games"})).await;
    client.expect("games").await;
}

/// Creating rooms has its own, tighter limit.
#[tokio::test]
async fn creating_rooms_is_rate_limited() {
    let (_dir, db) = temp_db();
    let config = broadside_server::Config {
        rooms_per_minute: 1.0,
        room_burst: 2,
        ..quick()
    };
    let server = TestServer::start_with(&db, config).await;
    let mut client = server.person("Ana").await;
    client.create(json!({"preset": "classic"})).await;
    client.create(json!({"preset": "classic"})).await;
    client
        .send(json!({"type": "create_room", "preset": "classic"}))
        .await;
    let error = client.expect_any("error").await;
    assert_eq!(error["code"], "rate_limited", "{error}");
    assert_eq!(error["request"], "create_room", "{error}");
    // Other frames still work.
    client.send(json!({"type": "my_games"})).await;
    client.expect("games").await;
}

/// Past the cap on open connections the upgrade is refused with 503, and a
/// closed connection frees its place.
#[tokio::test]
async fn open_connections_are_capped() {
    let (_dir, db) = temp_db();
    let config = broadside_server::Config {
        max_connections: 2,
        ..quick()
    };
    let server = TestServer::start_with(&db, config).await;
    let first = server.person("Ana").await;
    let _second = server.person("Rui").await;
    let url = format!("ws://{}/ws", server.addr);
    match tokio_tungstenite::connect_async(url.as_str()).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 503)
        }
        other => panic!(
            "a third connection must be refused: {:?}",
            other.map(|_| ())
        ),
    }
    drop(first);
    // The server notices the close and frees the place.
    let mut connected = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if tokio_tungstenite::connect_async(url.as_str()).await.is_ok() {
            connected = true;
            break;
        }
    }
    assert!(connected, "a closed connection frees its place");
}
