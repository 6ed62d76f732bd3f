//! Replays over HTTP (`GET /api/games/<id>`, `/g/<id>`) and the end-of-game
//! statistics of the `state` frame.

mod common;

use std::net::SocketAddr;
use std::path::Path;

use common::*;
use serde_json::{json, Value};

/// No timers: these games are driven by the clients and bots alone.
fn untimed() -> Value {
    json!({"turn_seconds": 0, "place_seconds": 0, "round_seconds": 0, "shop_seconds": 0})
}

/// Ana in a new untimed room of `seats` classic seats with bots of `level`
/// on the others; the game has started. Returns her client and the code.
async fn classic_with_bots(server: &TestServer, seats: usize, level: &str) -> (Client, String) {
    let mut ana = server.person("Ana").await;
    let bots: Vec<Value> = (1..seats)
        .map(|seat| json!({"seat": seat, "level": level}))
        .collect();
    let code = ana
        .create(json!({"preset": "classic", "seats": seats, "options": untimed(), "bots": bots}))
        .await;
    ana.send(json!({"type": "start"})).await;
    ana.state_until(|s| phase(s) == "placement").await;
    (ana, code)
}

/// Every event the client received, in order.
fn events_seen(client: &Client) -> Vec<Value> {
    client
        .frames
        .iter()
        .filter(|f| f["type"] == "state")
        .flat_map(|f| f["events"].as_array().unwrap().clone())
        .collect()
}

/// `GET path` as (status code, JSON body).
async fn get_json(addr: SocketAddr, path: &str) -> (u16, Value) {
    let (status, headers, body) = http_get(addr, path).await;
    let code = status
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status line with a code");
    assert!(
        headers.contains("content-type: application/json"),
        "{path}: {headers}"
    );
    let body = serde_json::from_slice(&body).expect("the body is JSON");
    (code, body)
}

/// The parts of a view that are the same for every all-seeing viewer.
fn board_state(view: &Value) -> Value {
    json!({
        "phase": view["phase"], "boards": view["boards"], "ships": view["ships"],
        "seats": view["seats"], "winner": view["winner"], "draw": view["draw"],
        "blocks": view["blocks"], "full_vision": view["full_vision"],
    })
}

/// Checks the replay of the finished game of room `code` against what the
/// database holds and what the client saw at the end, and returns it.
async fn check_replay(addr: SocketAddr, db: &Path, code: &str, end: &Value) -> Value {
    let (id, _, commands) = stored_game(db, code);
    let (status, replay) = get_json(addr, &format!("/api/games/{id}")).await;
    assert_eq!(status, 200, "{replay}");
    assert_eq!(replay["id"], id);
    assert!(
        replay.get("code").is_none(),
        "the room's code is its invitation"
    );
    let steps = replay["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), commands.len(), "one step per stored command");
    for (step, stored) in steps.iter().zip(&commands) {
        let stored: Value = serde_json::from_str(stored).unwrap();
        assert_eq!(step["command"], stored);
        assert_eq!(
            step["view"]["full_vision"], true,
            "every step sees everything"
        );
        assert!(step["events"].is_array());
    }
    assert_eq!(replay["initial"]["phase"], "placement");
    assert_eq!(replay["initial"]["full_vision"], true);
    let last = &steps.last().expect("a finished game has commands")["view"];
    assert_eq!(last["phase"], "finished");
    assert_eq!(board_state(last), board_state(&end["view"]));
    assert_eq!(replay["stats"], end["stats"], "the same statistics");
    assert!(replay["finished_ms"].as_i64().expect("an end time") > 0);
    replay
}

#[tokio::test]
async fn a_finished_duel_replays_step_by_step_to_what_its_player_saw() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (mut ana, code) = classic_with_bots(&server, 2, "medium").await;

    // While the game runs its replay is not there, and its states carry no
    // statistics.
    let (id, _, _) = stored_game(&db, &code);
    let (status, body) = get_json(server.addr, &format!("/api/games/{id}")).await;
    assert_eq!((status, body), (404, json!({"error": "not_found"})));

    let end = play_to_end(&mut ana).await;
    for frame in ana.frames.iter().filter(|f| f["type"] == "state") {
        assert_eq!(
            frame.get("stats").is_some(),
            phase(frame) == "finished",
            "statistics come with the end: {frame}"
        );
    }
    let stats = end["stats"].as_array().expect("the end has statistics");
    assert_eq!(stats.len(), 2);
    let winner = end["view"]["winner"][0].as_u64().unwrap() as usize;
    assert_eq!(stats[winner]["sunk"], 10, "the winner sank the whole fleet");
    assert_eq!(stats[winner]["hits"], 20);
    for (seat, s) in stats.iter().enumerate() {
        assert_eq!(s["seat"], seat);
        let cells = s["cells"].as_array().unwrap();
        assert_eq!(s["shots"], cells.len());
        assert!(cells.iter().all(|c| c["board"] == 1 - seat));
    }
    let shots_by_ana = events_seen(&ana)
        .iter()
        .filter(|e| e["event"] == "shot" && e["shooter"] == 0)
        .count();
    assert_eq!(stats[0]["shots"], shots_by_ana);

    let replay = check_replay(server.addr, &db, &code, &end).await;
    assert_eq!(replay["preset"], "classic");
    assert_eq!(
        replay["seats"],
        json!([
            {"seat": 0, "kind": "person", "nickname": "Ana", "level": null},
            {"seat": 1, "kind": "bot", "nickname": null, "level": "medium"},
        ])
    );

    // The single-page client opens replays at /g/<id>.
    let (status, headers, _) = http_get(server.addr, &format!("/g/{id}")).await;
    assert!(status.contains("200"), "{status}");
    assert!(headers.contains("text/html"), "{headers}");

    // A rematch is a new game of the room; the finished one still replays.
    ana.send(json!({"type": "rematch"})).await;
    ana.state_until(|s| phase(s) == "placement").await;
    let (rematch, _, _) = stored_game(&db, &code);
    assert_ne!(rematch, id);
    let (status, _) = get_json(server.addr, &format!("/api/games/{rematch}")).await;
    assert_eq!(status, 404, "the rematch runs");
    let (status, again) = get_json(server.addr, &format!("/api/games/{id}")).await;
    assert_eq!((status, again), (200, replay));
    server.stop().await;
}

#[tokio::test]
async fn a_salvo_game_of_bots_credits_each_sinking_once() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (mut ana, code) = classic_with_bots(&server, 4, "easy").await;
    // Ana gives up at once (her fleet is placed at random); three bots play
    // salvo rounds, then a duel.
    ana.command(json!({"cmd": "resign"})).await;
    let end = ana.state_until(|s| phase(s) == "finished").await;
    let stats = end["stats"].as_array().expect("the end has statistics");
    assert_eq!(stats.len(), 4);
    assert_eq!(stats[0]["shots"], 0, "Ana never fired");
    assert_eq!(stats[0]["sunk"], 0);
    let sunk_ships: usize = end["view"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sunk"].as_array().unwrap().len())
        .sum();
    let credited: u64 = stats.iter().map(|s| s["sunk"].as_u64().unwrap()).sum();
    assert_eq!(credited as usize, sunk_ships, "each sunk ship counted once");
    assert!(stats.iter().all(|s| s["sunk"].as_u64().unwrap() < 30));
    let rounds = events_seen(&ana)
        .iter()
        .filter(|e| e["event"] == "round_started")
        .count();
    assert!(rounds > 0, "salvo rounds were played");
    check_replay(server.addr, &db, &code, &end).await;
    server.stop().await;
}

#[tokio::test]
async fn unknown_unfinished_and_malformed_ids_are_not_found() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (mut ana, code) = classic_with_bots(&server, 2, "easy").await;
    ana.command(json!({"cmd": "place_random"})).await;
    ana.state_until(|s| phase(s) == "battle").await;
    let (id, _, commands) = stored_game(&db, &code);
    assert!(!commands.is_empty());
    let not_found = json!({"error": "not_found"});
    for path in [
        format!("/api/games/{id}"),
        format!("/api/games/{}", id + 1),
        "/api/games/999999999999".into(),
        "/api/games/99999999999999999999999".into(),
        "/api/games/abc".into(),
        "/api/games/-1".into(),
        "/api/games/+1".into(),
        format!("/api/games/{id}x"),
        "/api/games/0".into(),
    ] {
        let (status, body) = get_json(server.addr, &path).await;
        assert_eq!((status, &body), (404, &not_found), "{path}");
    }
    server.stop().await;
}
