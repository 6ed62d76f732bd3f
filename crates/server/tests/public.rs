//! Public play: quick match, the bot offer, open rooms, ratings, the
//! leaderboard and each person's history.

use crate::common;

use std::time::Duration;

use broadside_server::Config;
use common::*;
use serde_json::{json, Value};

async fn server_with_wait(db: &std::path::Path, wait: Duration) -> TestServer {
    TestServer::start_with(
        db,
        Config {
            bot_delay: Duration::ZERO,
            match_wait: wait,
            ..Config::default()
        },
    )
    .await
}

#[tokio::test]
async fn two_quick_matches_play_a_rated_game_and_both_see_it_in_history() {
    let (_dir, db) = temp_db();
    let server = server_with_wait(&db, Duration::from_secs(60)).await;
    let mut ana = server.person("Ana").await;
    ana.sign_up("Ana").await;
    // From another address: people of one address never rate each other.
    let mut bea = Client::connect_from(server.addr, "127.0.0.2").await;
    bea.hello(None, "Bea").await;
    bea.sign_up("Bea").await;
    ana.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let waiting = ana.expect("matching").await;
    assert_eq!(waiting["waiting"], 1);
    assert_eq!(waiting["preset"], "classic");
    assert_eq!(waiting["rated"], true);
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let ana_room = ana.expect("room").await;
    let bea_room = bea.expect("room").await;
    assert_eq!(ana_room["room"]["code"], bea_room["room"]["code"]);
    assert_eq!(ana_room["room"]["setup"]["rated"], true);
    // The game started by itself: placement, no lobby.
    ana.state_until(|s| phase(s) == "placement").await;
    bea.state_until(|s| phase(s) == "placement").await;
    let (ana_end, bea_end) = tokio::join!(play_to_end(&mut ana), play_to_end(&mut bea));
    let winners = ana_end["view"]["winners"].clone();
    assert_eq!(phase(&ana_end), "finished");
    assert_eq!(phase(&bea_end), "finished");
    let ana_won = ana_end["events"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(bea_end["events"].as_array().into_iter().flatten())
        .find_map(|e| (e["event"] == "game_over").then(|| e["winners"].clone()))
        .map(|w| w == json!([ana.seat().expect("Ana has a seat")]))
        .unwrap_or_else(|| panic!("a game_over event; winners {winners}"));
    let (winner, loser) = if ana_won {
        ("Ana", "Bea")
    } else {
        ("Bea", "Ana")
    };

    // One game against one person is not enough for the leaderboard.
    ana.send(json!({"type": "leaderboard", "preset": "classic"}))
        .await;
    let board = ana.expect("leaderboard").await;
    assert_eq!(board["players"], json!([]), "provisional ratings: {board}");

    for (client, won) in [(&mut ana, ana_won), (&mut bea, !ana_won)] {
        client.send(json!({"type": "history"})).await;
        let history = client.expect("history").await;
        let game = &history["games"][0];
        assert_eq!(game["preset"], "classic");
        assert_eq!(game["result"], if won { "win" } else { "loss" });
        let change = game["rating_change"].as_f64().expect("a rated game");
        assert_eq!(change > 0.0, won, "{game}");
        let replay = game["replay"].as_str().expect("a replay link");
        let (status, _, _) = http_get(server.addr, replay).await;
        assert!(status.contains("200"), "{replay}: {status}");
    }
    // The next room shows each person's rating beside their name.
    ana.send(json!({"type": "rematch"})).await;
    let room = ana.expect_any("room").await;
    let seat = |nickname: &str| -> Value {
        room["room"]["seats"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["nickname"] == nickname)
            .cloned()
            .expect("seated")
    };
    assert!(seat(winner)["rating"].as_f64() > seat(loser)["rating"].as_f64());
    assert_eq!(seat(winner)["provisional"], true, "one game is not enough");
    server.stop().await;
}

#[tokio::test]
async fn a_lone_quick_match_is_offered_a_bot_and_may_cancel() {
    let (_dir, db) = temp_db();
    let server = server_with_wait(&db, Duration::from_millis(300)).await;
    let mut ana = server.person("Ana").await;
    ana.send(json!({"type": "quick_match", "preset": "hasbro"}))
        .await;
    assert_eq!(ana.expect("matching").await["waiting"], 1);
    let offer = ana.expect("bot_offer").await;
    assert_eq!(offer["preset"], "hasbro");
    assert_eq!(offer["level"], "medium", "a newcomer meets a medium bot");
    ana.send(json!({"type": "accept_bot"})).await;
    let room = ana.expect("room").await;
    assert_eq!(room["room"]["seats"][1]["kind"], "bot");
    assert_eq!(room["room"]["setup"]["rated"], false, "bots never rate");
    ana.state_until(|s| phase(s) == "placement").await;

    // Waiting again, then cancelling: the queue is empty for the next one.
    let mut bea = server.person("Bea").await;
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    bea.expect("matching").await;
    bea.send(json!({"type": "cancel_match"})).await;
    bea.expect("match_cancelled").await;
    bea.send(json!({"type": "cancel_match"})).await;
    assert_eq!(bea.expect_error().await, "not_matching");
    let mut cai = server.person("Cai").await;
    cai.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    assert_eq!(cai.expect("matching").await["waiting"], 1);
    // A connection that closes leaves the queue.
    drop(cai);
    tokio::time::sleep(Duration::from_millis(300)).await;
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    assert_eq!(bea.expect("matching").await["waiting"], 1);
    server.stop().await;
}

#[tokio::test]
async fn public_rooms_are_listed_until_they_fill_up() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut host = server.person("Host").await;
    let code = host
        .create(json!({"preset": "classic", "seats": 4, "public": true}))
        .await;
    let mut private = server.person("Private").await;
    private.create(json!({"preset": "classic"})).await;
    let mut guests = Vec::new();
    for (i, name) in ["Bea", "Cai", "Dan"].into_iter().enumerate() {
        let mut guest = server.person(name).await;
        guest.send(json!({"type": "open_rooms"})).await;
        let list = guest.expect("open_rooms").await;
        let rooms = list["rooms"].as_array().expect("rooms");
        assert_eq!(rooms.len(), 1, "only the public room: {list}");
        assert_eq!(rooms[0]["code"], code.as_str());
        assert_eq!(rooms[0]["seats"], 4);
        assert_eq!(rooms[0]["taken"], i + 1);
        assert_eq!(rooms[0]["host"], "Host");
        guest.join(&code, "player").await;
        guests.push(guest);
    }
    let mut last = server.person("Eve").await;
    last.send(json!({"type": "open_rooms"})).await;
    assert_eq!(
        last.expect("open_rooms").await["rooms"],
        json!([]),
        "a full room is no longer open"
    );
    // The host may take the room off the list.
    let mut other = server.person("Fay").await;
    let second = other
        .create(json!({"preset": "hasbro", "public": true}))
        .await;
    last.send(json!({"type": "open_rooms"})).await;
    assert_eq!(
        last.expect("open_rooms").await["rooms"][0]["code"],
        second.as_str()
    );
    other
        .send(json!({"type": "set_options", "public": false}))
        .await;
    other.expect("room").await;
    last.send(json!({"type": "open_rooms"})).await;
    assert_eq!(last.expect("open_rooms").await["rooms"], json!([]));
    server.stop().await;
}
