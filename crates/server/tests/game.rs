//! Whole games over real WebSockets: two people, a person and a bot, the lobby.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

/// No timers: these games are driven by the clients alone.
fn untimed() -> serde_json::Value {
    json!({"turn_seconds": 0, "place_seconds": 0, "round_seconds": 0, "shop_seconds": 0})
}

#[tokio::test]
async fn two_people_play_a_classic_game_to_the_end_through_a_code() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(json!({"preset": "classic", "seats": 2, "options": untimed()}))
        .await;
    assert_eq!(code.len(), 10);

    let mut bea = server.person("Bea").await;
    let room = bea.join(&code.to_lowercase(), "player").await;
    assert_eq!(room["room"]["you"]["seat"], 1);
    assert_eq!(room["room"]["seats"][0]["nickname"], "Ana");
    // Ana learns that Bea took seat 1.
    let room = ana.expect("room").await;
    assert_eq!(room["room"]["seats"][1]["nickname"], "Bea");
    assert_eq!(room["room"]["seats"][1]["connected"], true);

    bea.send(json!({"type": "start"})).await;
    assert_eq!(bea.expect_error().await, "not_host");
    ana.send(json!({"type": "start"})).await;
    let state = ana.expect("state").await;
    assert_eq!(phase(&state), "placement");
    assert_eq!(state["events"], json!([]));
    assert!(state["deadline_ms"].is_null());

    let (a, b) = tokio::join!(play_to_end(&mut ana), play_to_end(&mut bea));
    assert_eq!(a["view"]["winner"], b["view"]["winner"]);
    let winner = a["view"]["winner"][0]
        .as_u64()
        .expect("a classic duel has one winner");
    let winner_events = if winner == 0 { &a } else { &b };
    assert!(winner_events["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["event"] == "game_over"));
    // the end reveals every fleet to everybody.
    assert_eq!(a["view"]["full_vision"], true);
    assert_eq!(b["view"]["full_vision"], true);
    server.stop().await;
}

#[tokio::test]
async fn a_person_plays_a_bot_to_the_end_and_a_rematch_starts_a_new_game() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    ana.create(json!({"preset": "classic", "options": untimed(), "bots": [{"seat": 1, "level": "medium"}]})).await;
    let room = ana.room.clone().unwrap();
    assert_eq!(room["room"]["seats"][1]["kind"], "bot");
    assert_eq!(room["room"]["seats"][1]["level"], "medium");
    ana.send(json!({"type": "start"})).await;
    let end = play_to_end(&mut ana).await;
    assert_eq!(phase(&end), "finished");
    let shots_by_bot = ana
        .frames
        .iter()
        .filter(|f| f["type"] == "state")
        .flat_map(|f| f["events"].as_array().unwrap().clone())
        .filter(|e| e["event"] == "shot" && e["shooter"] == 1)
        .count();
    assert!(shots_by_bot > 0, "the bot took part");

    ana.send(json!({"type": "rematch"})).await;
    let state = ana.state_until(|s| phase(s) == "placement").await;
    assert!(state["view"]["boards"][0]["rows"][0]
        .as_str()
        .unwrap()
        .chars()
        .all(|c| c == '~'));
    assert_eq!(ana.room.as_ref().unwrap()["room"]["game"], 2);
    server.stop().await;
}

/// The fifth level: an admiral bot takes a seat by its id and plays a whole
/// game (its look-ahead runs on the bots' pool late in the game).
#[tokio::test]
async fn a_person_plays_the_admiral_to_the_end() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    ana.create(json!({"preset": "hasbro", "options": untimed(), "bots": [{"seat": 1, "level": "admiral"}]})).await;
    assert_eq!(
        ana.room.as_ref().unwrap()["room"]["seats"][1]["level"],
        "admiral"
    );
    ana.send(json!({"type": "start"})).await;
    let end = play_to_end(&mut ana).await;
    assert_eq!(phase(&end), "finished");
    server.stop().await;
}

/// Reads `client`'s frames until a room frame whose rematch `check` accepts;
/// fails on a state frame of a new game (nobody may be thrown into one).
async fn rematch_until(client: &mut Client, check: impl Fn(&Value) -> bool) -> Value {
    loop {
        let frame = client.recv().await;
        assert!(
            !(frame["type"] == "state" && phase(&frame) != "finished"),
            "a new game started before everybody accepted: {frame}"
        );
        if frame["type"] == "room" && check(&frame["room"]["rematch"]) {
            return frame["room"]["rematch"].clone();
        }
    }
}

/// Ana's untimed classic room of `seats`, Bea in seat 1, and its code.
async fn ana_and_bea(server: &TestServer, seats: usize) -> (Client, Client, String) {
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(json!({"preset": "classic", "seats": seats, "options": untimed()}))
        .await;
    let mut bea = server.person("Bea").await;
    bea.join(&code, "player").await;
    (ana, bea, code)
}

#[tokio::test]
async fn a_rematch_is_an_offer_that_starts_only_when_every_person_accepts() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (mut ana, mut bea, code) = ana_and_bea(&server, 2).await;
    ana.send(json!({"type": "start"})).await;
    let (a, _) = tokio::join!(play_to_end(&mut ana), play_to_end(&mut bea));
    assert_eq!(phase(&a), "finished");
    assert!(ana.room.as_ref().unwrap()["room"]["rematch"].is_null());
    let mut cai = server.person("Cai").await;
    cai.join(&code, "spectator").await;

    // Nothing to decline yet; a spectator can neither offer nor decline.
    bea.send(json!({"type": "decline_rematch"})).await;
    assert_eq!(bea.expect_error().await, "no_rematch_offer");
    cai.send(json!({"type": "rematch"})).await;
    assert_eq!(cai.expect_error().await, "not_a_player");

    // Ana offers: both see the offer and who it waits for; no game starts.
    ana.send(json!({"type": "rematch"})).await;
    let offer = json!({"from": 0, "accepted": [0], "waiting": [1]});
    for client in [&mut ana, &mut bea, &mut cai] {
        assert_eq!(rematch_until(client, |r| !r.is_null()).await, offer);
    }
    // Asking twice changes nothing.
    ana.send(json!({"type": "rematch"})).await;
    assert_eq!(rematch_until(&mut ana, |r| !r.is_null()).await, offer);

    // Bea declines: Ana is told, and the offer is gone.
    bea.send(json!({"type": "decline_rematch"})).await;
    let declined = ana.expect("rematch_declined").await;
    assert_eq!(
        (
            &declined["seat"],
            &declined["nickname"],
            &declined["reason"]
        ),
        (&json!(1), &json!("Bea"), &json!("declined"))
    );
    rematch_until(&mut ana, Value::is_null).await;
    rematch_until(&mut bea, Value::is_null).await;

    // Ana offers again and Bea leaves the room: that withdraws it too.
    ana.send(json!({"type": "rematch"})).await;
    rematch_until(&mut bea, |r| !r.is_null()).await;
    bea.send(json!({"type": "leave"})).await;
    bea.expect("left").await;
    let declined = ana.expect("rematch_declined").await;
    assert_eq!(
        (&declined["seat"], &declined["reason"]),
        (&json!(1), &json!("left"))
    );
    rematch_until(&mut ana, Value::is_null).await;

    // Ana takes back her own offer: "withdrawn".
    ana.send(json!({"type": "rematch"})).await;
    rematch_until(&mut ana, |r| !r.is_null()).await;
    ana.send(json!({"type": "decline_rematch"})).await;
    let withdrawn = ana.expect("rematch_declined").await;
    assert_eq!(
        (&withdrawn["seat"], &withdrawn["reason"]),
        (&json!(0), &json!("withdrawn"))
    );

    // Bea comes back and offers; the game starts only when Ana accepts.
    let room = bea.join(&code, "player").await;
    assert!(room["room"]["rematch"].is_null());
    bea.send(json!({"type": "rematch"})).await;
    let offer = rematch_until(&mut ana, |r| !r.is_null()).await;
    assert_eq!(offer, json!({"from": 1, "accepted": [1], "waiting": [0]}));
    ana.send(json!({"type": "rematch"})).await;
    for client in [&mut ana, &mut bea] {
        client.state_until(|s| phase(s) == "placement").await;
        let room = &client.room.as_ref().unwrap()["room"];
        assert_eq!(room["game"], 2);
        assert!(room["rematch"].is_null());
    }
    server.stop().await;
}

#[tokio::test]
async fn the_lobby_enforces_host_seats_and_roles() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (mut ana, mut bea, code) = ana_and_bea(&server, 3).await;

    // Only the host changes the lobby; a start needs every seat filled.
    bea.send(json!({"type": "set_seat", "seat": 2, "occupant": "bot", "level": "easy"}))
        .await;
    assert_eq!(bea.expect_error().await, "not_host");
    ana.send(json!({"type": "start"})).await;
    assert_eq!(ana.expect_error().await, "seats_open");
    ana.send(json!({"type": "set_options", "preset": "brasil"}))
        .await;
    assert_eq!(
        ana.expect_error().await,
        "bad_command",
        "brasil is for 2 players"
    );
    ana.send(json!({"type": "set_options", "options": {"cols": 12, "rows": 12, "fleet": [{"id": "boat", "len": 3, "count": 4}]}})).await;
    let room = ana.expect("room").await;
    assert_eq!(
        room["room"]["rules"]["board"],
        json!({"cols": 12, "rows": 12})
    );
    ana.send(json!({"type": "set_seat", "seat": 2, "occupant": "bot", "level": "hard"}))
        .await;
    let room = ana.expect("room").await;
    assert_eq!(room["room"]["seats"][2]["kind"], "bot");

    // The room is full now; a third person can only watch.
    let mut cai = server.person("Cai").await;
    cai.send(json!({"type": "join_room", "code": code, "as": "player", "id": 3}))
        .await;
    let refused = cai.expect_any("error").await;
    assert_eq!(refused["code"], "room_full");
    // The room's refusal answers the frame that asked, with its id.
    assert_eq!(
        (refused["request"].as_str(), refused["id"].as_u64()),
        (Some("join_room"), Some(3))
    );
    let room = cai.join(&code, "spectator").await;
    assert_eq!(room["room"]["you"]["spectator"], true);
    cai.send(json!({"type": "chat", "text": "good luck"})).await;
    let chat = ana.expect("chat").await;
    assert_eq!(chat["from"], "Cai");
    assert!(chat["seat"].is_null());

    ana.send(json!({"type": "start"})).await;
    ana.expect("state").await;
    cai.command(json!({"cmd": "place_random"})).await;
    assert_eq!(cai.expect_error().await, "not_a_player");
    ana.send(json!({"type": "set_options", "seats": 2})).await;
    assert_eq!(ana.expect_error().await, "already_started");
    ana.send(json!({"type": "rematch"})).await;
    assert_eq!(ana.expect_error().await, "not_finished");
    let state = cai.state.clone().expect("the spectator saw the start");
    assert!(state["view"]["seat"].is_null());

    // Leaving after the start keeps the seat.
    bea.send(json!({"type": "leave"})).await;
    bea.expect("left").await;
    let room = bea.join(&code, "player").await;
    assert_eq!(room["room"]["you"]["seat"], 1);

    // Unknown room codes.
    cai.send(json!({"type": "join_room", "code": "ZZZZZZ", "as": "player"}))
        .await;
    assert_eq!(cai.expect_error().await, "room_not_found");
    server.stop().await;
}

#[tokio::test]
async fn leaving_a_lobby_frees_the_seat_and_passes_the_host() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana.create(json!({"preset": "hasbro", "seats": 2})).await;
    let mut bea = server.person("Bea").await;
    bea.join(&code, "player").await;
    ana.send(json!({"type": "leave"})).await;
    ana.expect("left").await;
    let room = bea.expect("room").await;
    assert_eq!(room["room"]["seats"][0]["kind"], "open");
    assert_eq!(room["room"]["host"], 1);
    assert_eq!(room["room"]["you"]["host"], true);
    server.stop().await;
}

#[tokio::test]
async fn the_turn_timer_shoots_for_a_player_who_waits() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    ana.create(json!({
        "preset": "classic",
        "options": {"turn_seconds": 1, "place_seconds": 0, "first": 0},
        "bots": [{"seat": 1, "level": "easy"}],
    }))
    .await;
    ana.send(json!({"type": "start"})).await;
    ana.command(json!({"cmd": "place_random"})).await;
    let battle = ana
        .state_until(|s| phase(s) == "battle" && my_move(s))
        .await;
    let left = battle["deadline_ms"].as_u64().expect("the turn timer runs");
    assert!(left <= 1000 && left > 0, "{left}");
    // Ana does nothing; fires a random shot for her.
    let timed_out = ana
        .state_until(|s| {
            s["events"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["event"] == "shot" && e["shooter"] == 0)
        })
        .await;
    assert!(phase(&timed_out) == "battle" || phase(&timed_out) == "finished");
    server.stop().await;
}

#[tokio::test]
async fn the_placement_timer_places_at_random() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    ana.create(json!({"preset": "italia", "options": {"place_seconds": 1, "turn_seconds": 0}, "bots": [{"seat": 1}]}))
        .await;
    ana.send(json!({"type": "start"})).await;
    let state = ana.state_until(|s| phase(s) == "battle").await;
    assert!(state["view"]["ships"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["owner"] == 0));
    server.stop().await;
}

#[tokio::test]
async fn helper_answers_and_their_errors_echo_the_request_id() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    ana.create(json!({"preset": "hasbro", "options": untimed(), "bots": [{"seat": 1}]}))
        .await;
    // Refused before the game starts: the error names the question it refuses.
    ana.send(json!({"type": "check_layout", "ships": [], "id": 41}))
        .await;
    let error = ana.expect_any("error").await;
    assert_eq!(
        (error["code"].as_str(), error["id"].as_u64()),
        (Some("not_started"), Some(41))
    );
    ana.send(json!({"type": "start"})).await;
    ana.expect("state").await;
    // Questions asked back to back come back each with its own id, whatever
    // the order of the answers, and a refused one does not shift the others.
    ana.send(json!({"type": "random_layout", "fixed": [], "id": 1}))
        .await;
    ana.send(json!({"type": "check_layout", "ships": [{"type": "nope", "at": [0, 0], "rot": 0}], "id": 2}))
        .await;
    ana.send(
        json!({"type": "preview_action", "action": {"kind": "reserve", "cells": []}, "id": 3}),
    )
    .await;
    ana.send(json!({"type": "check_layout", "ships": [], "id": 4}))
        .await;
    ana.send(json!({"type": "check_layout", "ships": "none", "id": 5}))
        .await;
    ana.send(json!({"type": "check_layout", "ships": []})).await;
    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 6 {
        let frame = ana.recv().await;
        if matches!(
            frame["type"].as_str(),
            Some("layout" | "layout_check" | "error")
        ) {
            answers.insert(frame["id"].as_u64().unwrap_or(0), frame);
        }
    }
    assert_eq!(answers[&1]["type"], "layout");
    assert_eq!(answers[&2]["type"], "layout_check");
    assert_eq!(answers[&2]["ok"], false);
    assert_eq!(
        (
            answers[&3]["type"].as_str(),
            answers[&3]["request"].as_str()
        ),
        (Some("error"), Some("preview_action"))
    );
    assert_eq!(answers[&4]["type"], "layout_check");
    assert_eq!(answers[&4]["ok"], true);
    assert_eq!(
        (
            answers[&5]["code"].as_str(),
            answers[&5]["request"].as_str()
        ),
        (Some("bad_request"), Some("check_layout"))
    );
    // Without an id the answer has none.
    assert_eq!(answers[&0]["type"], "layout_check");
    assert!(answers[&0].get("id").is_none());
    // An id that is not a whole number in range is refused.
    ana.send(json!({"type": "check_layout", "ships": [], "id": "seven"}))
        .await;
    let error = ana.expect_any("error").await;
    assert_eq!(error["code"], "bad_request");
    assert!(error.get("id").is_none());
    server.stop().await;
}

#[tokio::test]
async fn placement_helpers_preview_without_changing_the_game() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    ana.create(json!({"preset": "classic", "options": untimed(), "bots": [{"seat": 1}]}))
        .await;
    ana.send(json!({"type": "check_layout", "ships": []})).await;
    assert_eq!(ana.expect_error().await, "not_started");
    ana.send(json!({"type": "start"})).await;
    ana.expect("state").await;
    let fleet: Vec<String> = ana.room.as_ref().unwrap()["room"]["rules"]["fleet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            ana.room.as_ref().unwrap()["room"]["rules"]["catalogue"][t.as_u64().unwrap() as usize]
                ["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let first = &fleet[0];
    ana.send(json!({"type": "check_layout", "ships": [{"type": first, "at": [0, 0], "rot": 0}]}))
        .await;
    let check = ana.expect("layout_check").await;
    assert_eq!(check["ok"], true);
    assert_eq!(check["complete"], false);
    ana.send(json!({"type": "check_layout", "ships": [
        {"type": first, "at": [0, 0], "rot": 0}, {"type": fleet[1], "at": [0, 1], "rot": 0}]}))
        .await;
    let check = ana.expect("layout_check").await;
    assert_eq!(check["ok"], false);
    assert_eq!(check["error"]["code"], "ships_touch");

    ana.send(json!({"type": "random_layout", "fixed": [{"type": first, "at": [0, 0], "rot": 0}]}))
        .await;
    let layout = ana.expect("layout").await;
    let ships = layout["ships"].as_array().unwrap().clone();
    assert_eq!(ships.len(), fleet.len());
    ana.send(json!({"type": "check_layout", "ships": ships}))
        .await;
    let check = ana.expect("layout_check").await;
    assert_eq!(check["complete"], true);
    // Still placing: the helpers changed nothing.
    // (The bot's own placement may arrive meanwhile.)
    for frame in ana.drain(Duration::from_millis(100)).await {
        assert!(
            frame["type"] != "state" || frame["view"]["seats"][0]["ready"] == false,
            "{frame}"
        );
    }
    ana.command(json!({"cmd": "place", "ships": ships})).await;
    let state = ana.state_until(|s| phase(s) == "battle").await;
    assert_eq!(
        state["view"]["ships"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["owner"] == 0)
            .count(),
        fleet.len()
    );
    server.stop().await;
}

#[tokio::test]
async fn my_games_lists_unfinished_games_only() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana.create(json!({"preset": "brasil", "options": untimed(), "bots": [{"seat": 1, "level": "hard"}]})).await;
    ana.send(json!({"type": "my_games"})).await;
    let games = ana.expect("games").await;
    assert_eq!(games["games"][0]["code"], code);
    assert_eq!(games["games"][0]["phase"], "lobby");
    assert_eq!(games["games"][0]["preset"], "brasil");
    ana.send(json!({"type": "start"})).await;
    ana.send(json!({"type": "my_games"})).await;
    let games = ana.expect("games").await;
    assert_eq!(games["games"][0]["phase"], "placement");
    assert_eq!(games["games"][0]["your_turn"], true);
    ana.send(json!({"type": "resign"})).await;
    ana.state_until(|s| phase(s) == "finished").await;
    ana.send(json!({"type": "my_games"})).await;
    let games = ana.expect("games").await;
    assert_eq!(games["games"], json!([]));
    server.stop().await;
}

#[tokio::test]
async fn the_web_client_is_served_with_content_types() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (status, headers, body) = http_get(server.addr, "/").await;
    assert!(status.contains("200"), "{status}");
    assert!(headers.contains("content-type: text/html"), "{headers}");
    assert!(String::from_utf8_lossy(&body)
        .to_lowercase()
        .contains("<!doctype html"));
    let (status, headers, _) = http_get(server.addr, "/r/K7QM2P").await;
    assert!(status.contains("200") && headers.contains("text/html"));
    let (status, _, _) = http_get(server.addr, "/no/such/file.js").await;
    assert!(status.contains("404"), "{status}");
    let (status, _, _) = http_get(server.addr, "/../Cargo.toml").await;
    assert!(status.contains("404") || status.contains("400"), "{status}");
    server.stop().await;
}

#[tokio::test]
async fn an_idle_room_leaves_memory_and_comes_back_on_join() {
    let (_dir, db) = temp_db();
    let config = broadside_server::Config {
        bot_delay: Duration::ZERO,
        idle_room: Duration::from_millis(50),
        ..broadside_server::Config::default()
    };
    let server = TestServer::start_with(&db, config).await;
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(json!({"preset": "classic", "options": untimed(), "bots": [{"seat": 1}]}))
        .await;
    ana.send(json!({"type": "start"})).await;
    ana.command(json!({"cmd": "place_random"})).await;
    let before = ana
        .state_until(|s| phase(s) == "battle" && my_move(s))
        .await["view"]
        .clone();
    let token = ana.token.clone().unwrap();
    drop(ana);
    // Long enough for the room (no connection, no clock) to retire, several times over.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let mut ana = server.client().await;
        ana.hello(Some(&token), "Ana").await;
        ana.join(&code, "player").await;
        assert_eq!(ana.expect("state").await["view"], before);
    }
    let mut ana = server.client().await;
    ana.hello(Some(&token), "Ana").await;
    ana.join(&code, "player").await;
    let end = play_to_end(&mut ana).await;
    assert_eq!(phase(&end), "finished");
    server.stop().await;
}
