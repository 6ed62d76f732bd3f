//! Durability: a server shut down mid-game and started again on the same
//! database resumes every game exactly, timers included.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

/// Fires `shots` times (at the first unknown cell) whenever it is the client's move.
async fn fire_some(client: &mut Client, shots: usize) {
    let mut fired = 0;
    while fired < shots {
        let state = client
            .state_until(|s| (my_move(s) && phase(s) == "battle") || phase(s) == "finished")
            .await;
        assert_eq!(phase(&state), "battle", "the game lasts longer than this");
        let me = state["view"]["seat"].clone();
        client.command(first_unknown_target(&state)).await;
        client.state = None;
        while !moved_by(&client.expect("state").await, &me) {}
        fired += 1;
    }
}

#[tokio::test]
async fn a_game_resumes_after_a_restart_with_nothing_lost() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let mut bea = server.person("Bea").await;
    let code = ana
        .create(json!({"preset": "classic", "options": {"turn_seconds": 120, "place_seconds": 0, "first": 0, "hit_again": false}}))
        .await;
    bea.join(&code, "player").await;
    ana.send(json!({"type": "start"})).await;
    ana.command(json!({"cmd": "place_random"})).await;
    bea.command(json!({"cmd": "place_random"})).await;
    ana.state_until(|s| phase(s) == "battle").await;
    bea.state_until(|s| phase(s) == "battle").await;
    // A few turns each, so that both boards hold shots.
    for _ in 0..3 {
        fire_some(&mut ana, 1).await;
        fire_some(&mut bea, 1).await;
    }
    ana.drain(Duration::from_millis(100)).await;
    let ana_before = ana.state.clone().expect("a state was received");
    bea.drain(Duration::from_millis(100)).await;
    let bea_before = bea.state.clone().expect("a state was received");
    let ana_view: Value = ana_before["view"].clone();
    let bea_view: Value = bea_before["view"].clone();
    let deadline_before = ana_before["deadline_ms"]
        .as_u64()
        .expect("the turn timer runs");
    let (ana_token, bea_token) = (ana.token.clone().unwrap(), bea.token.clone().unwrap());
    drop(ana);
    drop(bea);
    server.stop().await;

    let server = TestServer::start(&db).await;
    let mut ana = server.client().await;
    let welcome = ana.hello(Some(&ana_token), "Ana").await;
    assert_eq!(welcome["token"], ana_token, "the token is kept");
    ana.send(json!({"type": "my_games"})).await;
    let games = ana.expect("games").await;
    assert_eq!(games["games"][0]["code"], code);
    assert_eq!(games["games"][0]["phase"], "battle");
    let room = ana.join(&code, "player").await;
    assert_eq!(
        room["room"]["you"]["seat"], 0,
        "the seat comes back (R-11.2)"
    );
    let state = ana.expect("state").await;
    assert_eq!(state["view"], ana_view, "nothing lost");
    let left = state["deadline_ms"]
        .as_u64()
        .expect("the timer survived the restart");
    assert!(
        left <= deadline_before && left > deadline_before.saturating_sub(10_000),
        "{left} vs {deadline_before}"
    );

    let mut bea = server.client().await;
    bea.hello(Some(&bea_token), "Bea").await;
    bea.join(&code, "player").await;
    assert_eq!(bea.expect("state").await["view"], bea_view);

    let (a, b) = tokio::join!(play_to_end(&mut ana), play_to_end(&mut bea));
    assert_eq!(a["view"]["winner"], b["view"]["winner"]);
    server.stop().await;
}

#[tokio::test]
async fn a_bot_game_resumes_after_a_restart_and_ends() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(json!({"preset": "hasbro", "options": {"turn_seconds": 0, "place_seconds": 0}, "bots": [{"seat": 1, "level": "hard"}]}))
        .await;
    ana.send(json!({"type": "start"})).await;
    ana.command(json!({"cmd": "place_random"})).await;
    fire_some(&mut ana, 5).await;
    let before = ana.state_until(my_move).await["view"].clone();
    let token = ana.token.clone().unwrap();
    drop(ana);
    server.stop().await;

    let server = TestServer::start(&db).await;
    let mut ana = server.client().await;
    ana.hello(Some(&token), "Ana").await;
    ana.join(&code, "player").await;
    assert_eq!(ana.expect("state").await["view"], before);
    let end = play_to_end(&mut ana).await;
    assert_eq!(phase(&end), "finished");
    server.stop().await;
}

#[tokio::test]
async fn a_timer_that_ran_out_while_the_server_was_down_fires_on_restart() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let mut bea = server.person("Bea").await;
    let code = ana
        .create(json!({"preset": "classic", "options": {"place_seconds": 1, "turn_seconds": 0}}))
        .await;
    bea.join(&code, "player").await;
    ana.send(json!({"type": "start"})).await;
    let state = ana.expect("state").await;
    assert_eq!(phase(&state), "placement");
    assert!(state["deadline_ms"].as_u64().unwrap() <= 1000);
    let token = ana.token.clone().unwrap();
    drop(ana);
    drop(bea);
    server.stop().await;
    tokio::time::sleep(Duration::from_millis(1200)).await;

    let server = TestServer::start(&db).await;
    let mut ana = server.client().await;
    ana.hello(Some(&token), "Ana").await;
    ana.join(&code, "player").await;
    // nobody placed in time, so both fleets were placed at random.
    let state = ana.state_until(|s| phase(s) == "battle").await;
    assert_eq!(state["view"]["seats"][0]["ready"], true);
    assert_eq!(state["view"]["seats"][1]["ready"], true);
    server.stop().await;
}

#[tokio::test]
async fn a_lobby_and_its_chat_survive_a_restart() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana.create(json!({"preset": "italia", "options": {"cols": 10, "rows": 10, "fleet": [{"id": "boat", "len": 2, "count": 3}]}})).await;
    ana.send(json!({"type": "chat", "text": "back soon"})).await;
    ana.expect("chat").await;
    let token = ana.token.clone().unwrap();
    drop(ana);
    server.stop().await;

    let server = TestServer::start(&db).await;
    let mut ana = server.client().await;
    ana.hello(Some(&token), "Ana").await;
    let room = ana.join(&code, "player").await;
    assert_eq!(room["room"]["you"]["host"], true);
    assert_eq!(room["room"]["setup"]["options"]["cols"], 10);
    assert_eq!(ana.expect("chat").await["text"], "back soon");
    server.stop().await;
}
