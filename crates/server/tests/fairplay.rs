//! Fair play in public (issue 34): rated games that must be earned, seats
//! that mean presence, watchers who talk only to watchers, and quick-match
//! races. Each test is a finding of the issue, reproduced over loopback.
//!
//! Distinct client addresses are loopback addresses other than 127.0.0.1
//! (Linux routes all of 127/8 to the loopback): a client bound to
//! 127.0.0.2 is another address to the server.

use crate::common;

use std::time::Duration;

use broadside_server::Config;
use common::*;
use serde_json::{json, Value};

/// A person with an account (only accounts play rated) who said hello
/// from `local`; the username is the nickname, padded to three characters.
async fn person_from(server: &TestServer, local: &str, nickname: &str) -> Client {
    let mut client = Client::connect_from(server.addr, local).await;
    client.hello(None, nickname).await;
    client.sign_up(&format!("{nickname:_<3}")).await;
    client
}

async fn server_with_wait(db: &std::path::Path, wait: Duration) -> TestServer {
    TestServer::start_with(
        db,
        Config {
            bot_delay: Duration::ZERO,
            match_wait: wait,
            // The farms below make many rooms from one address.
            room_burst: 1_000,
            rooms_per_minute: 1_000.0,
            ..Config::default()
        },
    )
    .await
}

/// Quick-matches two clients; both are in the started room afterwards.
async fn quick_match(first: &mut Client, second: &mut Client) -> String {
    first
        .send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    first.expect("matching").await;
    second
        .send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let room = second.expect("room").await;
    let code = room["room"]["code"].as_str().expect("a code").to_string();
    // (Frames of an earlier room may still be on their way to `first`.)
    room_until(first, |room| room["code"] == code.as_str()).await;
    first.state = None;
    code
}

/// Reads `room` frames until one satisfies `done`.
async fn room_until(client: &mut Client, mut done: impl FnMut(&Value) -> bool) -> Value {
    loop {
        let room = client.expect_any("room").await;
        if done(&room["room"]) {
            return room["room"].clone();
        }
    }
}

async fn leaderboard(client: &mut Client) -> Value {
    client
        .send(json!({"type": "leaderboard", "preset": "classic"}))
        .await;
    client.expect("leaderboard").await["players"].clone()
}

async fn history(client: &mut Client) -> Vec<Value> {
    client.send(json!({"type": "history"})).await;
    let history = client.expect("history").await;
    history["games"].as_array().cloned().unwrap_or_default()
}

/// Finding: a second, fresh token quick-matches and resigns at once; 12
/// games in 5 seconds put a player first on the leaderboard. Twenty such
/// games now change no rating: they are aborted (no first move), from one
/// address too.
#[tokio::test]
async fn a_farm_of_instant_resignations_changes_no_rating() {
    let (_dir, db) = temp_db();
    let server = server_with_wait(&db, Duration::from_secs(60)).await;
    let mut farmer = server.person("Farmer").await;
    for round in 0..20 {
        let mut victim = server.person(&format!("Throwaway{round}")).await;
        let code = quick_match(&mut farmer, &mut victim).await;
        victim.state_until(|s| phase(s) == "placement").await;
        victim.send(json!({"type": "resign"})).await;
        let end = farmer.state_until(|s| phase(s) == "finished").await;
        assert_eq!(phase(&end), "finished");
        let room = room_until(&mut farmer, |room| {
            room["code"] == code.as_str() && !room["aborted"].is_null()
        })
        .await;
        assert_eq!(room["aborted"]["reason"], "resigned", "{room}");
        assert_eq!(room["aborted"]["seat"], victim.seat().unwrap());
    }
    assert_eq!(leaderboard(&mut farmer).await, json!([]));
    let games = history(&mut farmer).await;
    assert_eq!(games.len(), 20);
    for game in &games {
        assert_eq!(game["result"], "win");
        assert!(game["rating_change"].is_null(), "unrated: {game}");
    }
    server.stop().await;
}

/// An instant resignation aborts the game even between two addresses, and
/// two people of one address are never rated against each other, even when
/// both have played: the lobby says so before the start.
#[tokio::test]
async fn a_game_counts_once_both_moved_and_never_within_one_address() {
    let (_dir, db) = temp_db();
    let server = server_with_wait(&db, Duration::from_secs(60)).await;
    let mut ana = person_from(&server, "127.0.0.2", "Ana").await;
    let mut bea = person_from(&server, "127.0.0.3", "Bea").await;
    let room = room_of(&mut ana, &mut bea).await;
    assert!(room["same_address"].is_null(), "two addresses: {room}");
    play_to_end_both(&mut ana, &mut bea).await;
    let games = history(&mut ana).await;
    assert!(
        games[0]["rating_change"].is_number(),
        "both moved, two addresses: rated {games:?}"
    );

    // One address: the room says so, and the game is not rated.
    let mut cai = person_from(&server, "127.0.0.4", "Cai").await;
    let mut twin = person_from(&server, "127.0.0.4", "Twin").await;
    let room = room_of(&mut cai, &mut twin).await;
    assert_eq!(room["same_address"], true, "{room}");
    play_to_end_both(&mut cai, &mut twin).await;
    let games = history(&mut cai).await;
    assert!(games[0]["rating_change"].is_null(), "{games:?}");
    server.stop().await;
}

/// A rated room of two people, started once both are ready; its room
/// frame (as the host sees it at the start).
async fn room_of(host: &mut Client, guest: &mut Client) -> Value {
    let code = host
        .create(json!({"preset": "classic", "rated": true}))
        .await;
    guest.join(&code, "player").await;
    guest.send(json!({"type": "ready", "ready": true})).await;
    let room = room_until(host, |room| room["seats"][1]["ready"] == true).await;
    host.send(json!({"type": "start"})).await;
    host.state_until(|s| phase(s) == "placement").await;
    guest.state_until(|s| phase(s) == "placement").await;
    room
}

async fn play_to_end_both(first: &mut Client, second: &mut Client) {
    let (a, b) = tokio::join!(play_to_end(first), play_to_end(second));
    assert_eq!((phase(&a), phase(&b)), ("finished", "finished"));
}

/// Finding: a 6-seat rated room filled with 5 throwaway tokens that resign
/// gave +361 in one game. Now nobody's rating changes.
#[tokio::test]
async fn a_six_seat_room_of_throwaway_tokens_changes_no_rating() {
    let (_dir, db) = temp_db();
    let server = server_with_wait(&db, Duration::from_secs(60)).await;
    let mut host = person_from(&server, "127.0.0.10", "Host").await;
    let code = host
        .create(json!({"preset": "classic", "seats": 6, "rated": true}))
        .await;
    let mut tokens = Vec::new();
    for n in 1..6 {
        let mut token =
            person_from(&server, &format!("127.0.0.{}", 10 + n), &format!("T{n}")).await;
        token.join(&code, "player").await;
        token.send(json!({"type": "ready", "ready": true})).await;
        tokens.push(token);
    }
    room_until(&mut host, |room| {
        (1..6).all(|seat| room["seats"][seat]["ready"] == true)
    })
    .await;
    host.send(json!({"type": "start"})).await;
    host.state_until(|s| phase(s) == "placement").await;
    for token in &mut tokens {
        token.state_until(|s| phase(s) == "placement").await;
        token.send(json!({"type": "resign"})).await;
    }
    host.state_until(|s| phase(s) == "finished").await;
    let room = room_until(&mut host, |room| !room["aborted"].is_null()).await;
    assert_eq!(room["aborted"]["reason"], "resigned");
    let games = history(&mut host).await;
    assert_eq!(games[0]["result"], "win");
    assert!(games[0]["rating_change"].is_null(), "{games:?}");
    assert_eq!(leaderboard(&mut host).await, json!([]));
    server.stop().await;
}

/// Finding: a person who joined a public rated lobby and then went to
/// another room kept the seat; the host set 1-second clocks and started,
/// and the absent person took a loss. Now the seat is released, a rated
/// start waits for every person to be there and ready, and rated clocks
/// cannot go below the preset's.
#[tokio::test]
async fn a_host_cannot_start_a_rated_game_with_an_absent_or_unready_person() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut host = person_from(&server, "127.0.0.20", "Host").await;
    let code = host
        .create(json!({"preset": "classic", "rated": true, "public": true}))
        .await;
    host.send(json!({"type": "set_options", "options": {"turn_seconds": 1}}))
        .await;
    assert_eq!(host.expect_error().await, "clock_too_short");

    let mut bea = person_from(&server, "127.0.0.21", "Bea").await;
    bea.join(&code, "player").await;
    room_until(&mut host, |room| room["seats"][1]["kind"] == "person").await;
    host.send(json!({"type": "start"})).await;
    assert_eq!(
        host.expect_error().await,
        "not_ready",
        "Bea has not said ready"
    );

    // Bea goes to another room: her seat here is free again.
    bea.create(json!({"preset": "classic"})).await;
    let room = room_until(&mut host, |room| room["seats"][1]["kind"] == "open").await;
    assert_eq!(room["seats"][1]["nickname"], Value::Null);
    host.send(json!({"type": "start"})).await;
    assert_eq!(host.expect_error().await, "seats_open");
    bea.send(json!({"type": "history"})).await;
    assert_eq!(bea.expect("history").await["games"], json!([]), "no loss");

    // Back, and ready: the game starts.
    bea.join(&code, "player").await;
    bea.send(json!({"type": "ready", "ready": true})).await;
    room_until(&mut host, |room| room["seats"][1]["ready"] == true).await;
    bea.send(json!({"type": "ready", "ready": false})).await;
    room_until(&mut host, |room| room["seats"][1]["ready"] == false).await;
    host.send(json!({"type": "start"})).await;
    assert_eq!(host.expect_error().await, "not_ready");
    bea.send(json!({"type": "ready", "ready": true})).await;
    room_until(&mut host, |room| room["seats"][1]["ready"] == true).await;
    host.send(json!({"type": "start"})).await;
    host.state_until(|s| phase(s) == "placement").await;
    server.stop().await;
}

/// Finding: one connection took a seat in every public lobby (5 lobbies in
/// under a second, dropping them from the list). A person holds one lobby
/// seat at a time.
#[tokio::test]
async fn one_connection_holds_one_lobby_seat() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut codes = Vec::new();
    let mut hosts = Vec::new();
    for n in 0..3 {
        let mut host = server.person(&format!("Host{n}")).await;
        codes.push(
            host.create(json!({"preset": "classic", "public": true}))
                .await,
        );
        hosts.push(host);
    }
    let mut eve = server.person("Eve").await;
    for code in &codes {
        eve.join(code, "player").await;
    }
    eve.send(json!({"type": "open_rooms"})).await;
    let list = eve.expect("open_rooms").await;
    let rooms = list["rooms"].as_array().expect("rooms");
    let mut open: Vec<&str> = rooms.iter().filter_map(|r| r["code"].as_str()).collect();
    open.sort_unstable();
    let mut left = vec![codes[0].as_str(), codes[1].as_str()];
    left.sort_unstable();
    assert_eq!(open, left, "only the last lobby holds Eve: {list}");
    for room in rooms {
        assert_eq!(room["taken"], 1, "{room}");
    }
    server.stop().await;
}

/// Finding: resigned and eliminated players (full vision, R-11.4) chatted
/// to the players still in the game. Now, while the game runs, a watcher's
/// line reaches watchers only, marked `watchers`, also in the history a
/// player reads on joining again. And a seat that resigned at the start
/// does not share its team's later win.
#[tokio::test]
async fn watchers_talk_to_watchers_and_a_resigned_seat_keeps_its_own_placing() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(
            json!({"preset": "classic", "seats": 4, "teams": [0, 1, 0, 1],
                       "options": {"turn_seconds": 0, "round_seconds": 0, "place_seconds": 0}}),
        )
        .await;
    let mut others = Vec::new();
    for name in ["Bea", "Cai", "Dan"] {
        let mut other = server.person(name).await;
        other.join(&code, "player").await;
        others.push(other);
    }
    let mut eve = server.person("Eve").await;
    eve.join(&code, "spectator").await;
    ana.send(json!({"type": "start"})).await;
    ana.state_until(|s| phase(s) == "placement").await;
    ana.send(json!({"type": "resign"})).await;
    ana.state_until(|s| s["view"]["seats"][0]["alive"] == false)
        .await;

    ana.send(json!({"type": "chat", "text": "their fleet is in the corner"}))
        .await;
    let heard = eve.expect("chat").await;
    assert_eq!(heard["text"], "their fleet is in the corner");
    assert_eq!(heard["watchers"], true);
    assert_eq!(ana.expect("chat").await["watchers"], true, "her own line");
    eve.send(json!({"type": "chat", "text": "spectators too"}))
        .await;
    assert_eq!(eve.expect("chat").await["text"], "spectators too");
    let heard = ana.expect("chat").await;
    assert_eq!(
        (heard["from"].as_str(), heard["watchers"].as_bool()),
        (Some("Eve"), Some(true))
    );
    // A player's line reaches everybody, and is the first chat the players
    // see: neither watcher's line came before it.
    others[0]
        .send(json!({"type": "chat", "text": "good luck"}))
        .await;
    for player in &mut others {
        let heard = player.expect("chat").await;
        assert_eq!(heard["text"], "good luck", "{heard}");
        assert!(heard["watchers"].is_null());
    }
    assert_eq!(eve.expect("chat").await["text"], "good luck");

    // Cai joins again (a new connection): the history leaves the watchers'
    // lines out.
    let mut cai_again = server.client().await;
    cai_again.hello(others[1].token.as_deref(), "Cai").await;
    cai_again.join(&code, "player").await;
    cai_again
        .send(json!({"type": "chat", "text": "back"}))
        .await;
    let mut texts = Vec::new();
    while texts.last().map(String::as_str) != Some("back") {
        let chat = cai_again.expect("chat").await;
        texts.push(chat["text"].as_str().unwrap_or("").to_string());
    }
    assert_eq!(
        texts,
        ["good luck", "back"],
        "the history, then the new line"
    );

    // Bea and Dan resign: team 0 wins, but Ana, who resigned first, placed last.
    for seat in [0, 2] {
        others[seat].send(json!({"type": "resign"})).await;
        others[seat]
            .state_until(|s| {
                !s["view"]["seats"][seat + 1]["alive"]
                    .as_bool()
                    .unwrap_or(true)
            })
            .await;
    }
    let end = others[1].state_until(|s| phase(s) == "finished").await;
    assert_eq!(phase(&end), "finished");
    let ana_game = history(&mut ana).await.remove(0);
    assert_eq!(ana_game["placing"], 4, "{ana_game}");
    assert_eq!(ana_game["result"], "place 4", "{ana_game}");
    let cai_game = history(&mut others[1]).await.remove(0);
    assert_eq!(
        (cai_game["placing"].as_u64(), cai_game["result"].as_str()),
        (Some(1), Some("win"))
    );
    server.stop().await;
}

/// Finding: rated rooms accepted `spectators_see_all` (a second token could
/// watch the opponent's fleet), and `open_rooms` did not show the setting.
#[tokio::test]
async fn rated_rooms_refuse_all_seeing_spectators_and_open_rooms_show_vision() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    ana.sign_up("Ana").await;
    ana.send(
        json!({"type": "create_room", "preset": "classic", "rated": true,
                    "options": {"spectators_see_all": true}}),
    )
    .await;
    assert_eq!(ana.expect_error().await, "not_for_rated");
    ana.send(
        json!({"type": "create_room", "preset": "classic", "rated": true,
                    "options": {"practice": true}}),
    )
    .await;
    assert_eq!(
        ana.expect_error().await,
        "not_for_rated",
        "practice is never rated"
    );
    ana.create(json!({"preset": "classic", "public": true, "rated": true}))
        .await;
    ana.send(json!({"type": "set_options", "options": {"spectators_see_all": true}}))
        .await;
    assert_eq!(ana.expect_error().await, "not_for_rated");
    let mut bea = server.person("Bea").await;
    bea.sign_up("Bea").await;
    bea.create(json!({"preset": "classic", "public": true,
                      "options": {"spectators_see_all": true}}))
        .await;
    bea.send(json!({"type": "set_options", "rated": true}))
        .await;
    assert_eq!(bea.expect_error().await, "not_for_rated");
    bea.send(json!({"type": "open_rooms"})).await;
    let list = bea.expect("open_rooms").await;
    let mut vision: Vec<(&str, bool)> = list["rooms"]
        .as_array()
        .expect("rooms")
        .iter()
        .map(|r| {
            (
                r["host"].as_str().unwrap_or(""),
                r["spectators_see_all"].as_bool().expect("always shown"),
            )
        })
        .collect();
    vision.sort_unstable();
    assert_eq!(vision, [("Ana", false), ("Bea", true)]);
    server.stop().await;
}

/// Finding: a queued person who created a room was pulled out of their own
/// lobby into a match. Creating or joining a room leaves the queue first.
#[tokio::test]
async fn a_queued_person_who_creates_a_room_leaves_the_queue() {
    let (_dir, db) = temp_db();
    let server = server_with_wait(&db, Duration::from_secs(60)).await;
    let mut ana = server.person("Ana").await;
    ana.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    ana.expect("matching").await;
    let code = ana.create(json!({"preset": "classic"})).await;
    let mut bea = server.person("Bea").await;
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    assert_eq!(
        bea.expect("matching").await["waiting"],
        1,
        "Ana left the queue"
    );
    // Ana is still in her own lobby: a frame there is answered there.
    ana.send(json!({"type": "chat", "text": "still here"}))
        .await;
    let heard = ana.expect("chat").await;
    assert_eq!(heard["text"], "still here");
    assert_eq!(ana.room.as_ref().unwrap()["room"]["code"], code.as_str());
    server.stop().await;
}

/// Finding: in about 1 race in 10, `match_cancelled` was followed by a rated
/// game anyway. Now the queue decides: either the cancel came first (and
/// the partner waits on), or the pairing did (and the cancel is answered
/// `paired`, then the game's room).
#[tokio::test]
async fn after_match_cancelled_no_game_starts() {
    let (_dir, db) = temp_db();
    let server = server_with_wait(&db, Duration::from_secs(60)).await;
    let mut ana = server.person("Ana").await;
    let mut bea = server.person("Bea").await;
    let (mut cancelled, mut paired) = (0, 0);
    for round in 0..60 {
        ana.send(json!({"type": "quick_match", "preset": "classic"}))
            .await;
        ana.expect("matching").await;
        // Either frame first, by turns: the race is in the server.
        let cancel = json!({"type": "cancel_match"});
        let queue = json!({"type": "quick_match", "preset": "classic"});
        if round % 2 == 0 {
            tokio::join!(ana.send(cancel), bea.send(queue));
        } else {
            tokio::join!(bea.send(queue), ana.send(cancel));
        }
        let bea_answer = loop {
            let frame = bea.recv().await;
            if frame["type"] == "matching" || frame["type"] == "room" {
                break frame;
            }
        };
        // Ana's answer to the cancel; a pairing may reach her first.
        let mut ana_room = false;
        let ana_answer = loop {
            let frame = ana.recv().await;
            if frame["type"] == "match_cancelled" || frame["type"] == "error" {
                break frame;
            }
            ana_room |= frame["type"] == "room";
        };
        if bea_answer["type"] == "room" {
            paired += 1;
            // Paired before the cancel was read: `paired`, or (the pairing
            // handled first) `not_matching`; never `match_cancelled`.
            assert_eq!(ana_answer["type"], "error", "{ana_answer}");
            let code = ana_answer["code"].as_str();
            assert!(
                matches!(code, Some("paired" | "not_matching")),
                "{ana_answer}"
            );
            if !ana_room {
                ana.expect("room").await;
            }
            for client in [&mut ana, &mut bea] {
                client.send(json!({"type": "leave"})).await;
                client.expect("left").await;
            }
        } else {
            cancelled += 1;
            assert_eq!(ana_answer["type"], "match_cancelled", "{ana_answer}");
            assert!(!ana_room, "no game after match_cancelled");
            bea.send(json!({"type": "cancel_match"})).await;
            bea.expect("match_cancelled").await;
        }
    }
    assert_eq!(cancelled + paired, 60);
    server.stop().await;
}
