//! Moderation among strangers (issue 36): players block and report; the
//! operators ban and mute (`broadside admin`, here its library functions on
//! the same database), and a ban closes the person's live connection within
//! two seconds.

use crate::common;

use std::time::{Duration, Instant};

use broadside_server::admin::{self, Action};
use common::*;
use serde_json::json;

/// Ana hosts a room of three seats; Bea and Cid join it.
async fn room_of_three(server: &TestServer) -> (Client, Client, Client, String) {
    let mut ana = server.person("Ana").await;
    let code = ana.create(json!({"preset": "classic", "seats": 3})).await;
    let mut bea = server.person("Bea").await;
    bea.join(&code, "player").await;
    let mut cid = server.person("Cid").await;
    cid.join(&code, "player").await;
    ana.drain(Duration::from_millis(200)).await;
    bea.drain(Duration::from_millis(200)).await;
    (ana, bea, cid, code)
}

#[tokio::test]
async fn a_blocked_person_is_not_heard_cannot_join_and_is_never_paired() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let (mut ana, mut bea, mut cid, _) = room_of_three(&server).await;
    ana.send(json!({"type": "block", "seat": 1})).await;
    let blocks = ana.expect("blocks").await;
    assert_eq!(blocks["players"][0]["name"], "Bea", "{blocks}");
    let bea_id = blocks["players"][0]["player"].clone();
    // Blocking nobody, or oneself, is refused.
    ana.send(json!({"type": "block", "seat": 0})).await;
    assert_eq!(ana.expect_error().await, "no_such_player");

    bea.send(json!({"type": "chat", "text": "hello all"})).await;
    let heard = cid.expect("chat").await;
    assert_eq!(heard["text"], "hello all");
    cid.send(json!({"type": "chat", "text": "hi Bea"})).await;
    let next = ana.expect("chat").await;
    assert_eq!(next["text"], "hi Bea", "Ana never hears Bea: {next}");

    // Bea cannot come into a room Ana hosts.
    ana.send(json!({"type": "leave"})).await;
    ana.expect("left").await;
    let code = ana.create(json!({"preset": "classic", "seats": 2})).await;
    bea.send(json!({"type": "leave"})).await;
    bea.expect("left").await;
    bea.send(json!({"type": "join_room", "code": code})).await;
    assert_eq!(bea.expect_error().await, "not_allowed");

    // Quick match never pairs them: Cid is paired with whoever waits.
    ana.send(json!({"type": "leave"})).await;
    ana.expect("left").await;
    cid.send(json!({"type": "leave"})).await;
    cid.expect("left").await;
    ana.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    ana.expect("matching").await;
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let bea_waits = bea.expect("matching").await;
    assert_eq!(bea_waits["waiting"], 2, "both wait, unpaired: {bea_waits}");
    cid.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let room = cid.expect("room").await;
    let mut names: Vec<&str> = room["room"]["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .filter_map(|seat| seat["nickname"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["Ana", "Cid"], "{room}");

    // Unblocking lifts it.
    ana.send(json!({"type": "unblock", "player": bea_id})).await;
    assert_eq!(ana.expect_any("blocks").await["players"], json!([]));
    server.stop().await;
}

#[tokio::test]
async fn a_report_reaches_the_operators_with_its_room_and_game() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let (_ana, mut bea, _cid, code) = room_of_three(&server).await;
    bea.send(json!({"type": "report", "seat": 0, "reason": "rudeness"}))
        .await;
    assert_eq!(bea.expect_error().await, "bad_request");
    bea.send(json!({"type": "report", "seat": 0, "reason": "abuse",
                    "note": "called me names in chat"}))
        .await;
    bea.expect("reported").await;
    let operators = open_db(&db).await;
    let table = admin::reports(&operators, 10).await.expect("the reports");
    let line = table.lines().nth(1).expect("one report");
    assert!(
        line.contains("Bea (#") && line.contains("Ana (#"),
        "{table}"
    );
    assert!(line.contains("abuse") && line.contains(&code), "{table}");
    assert!(line.contains("called me names in chat"), "{table}");
    server.stop().await;
}

#[tokio::test]
async fn a_ban_closes_the_live_connection_within_two_seconds_and_refuses_sign_in() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut mallory = server.person("Mallory").await;
    let (mut passkey, _) = mallory.sign_up("Mallory").await;
    let token = mallory.token.clone().expect("a token");
    let operators = open_db(&db).await;
    // A reason is required.
    let missing = admin::act(&operators, "mallory", Action::Ban(None), " ").await;
    assert!(missing.is_err());
    let started = Instant::now();
    let done = admin::act(&operators, "MALLORY", Action::Ban(Some(7)), "spam in chat")
        .await
        .expect("the ban");
    assert_eq!(done, "Mallory is banned for 7 days");
    let (code, _) = mallory.expect_close().await.expect("a close frame");
    assert_eq!(code, 4006);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "{took:?}");
    // Back with the token: refused, and closed.
    let mut again = server.client().await;
    again
        .send(json!({"type": "hello", "token": token, "nickname": "M"}))
        .await;
    assert_eq!(again.expect_error().await, "banned");
    assert_eq!(again.expect_close().await.map(|c| c.0), Some(4006));
    // Signing in from another device is refused too.
    let mut device = server.person("Someone").await;
    device
        .send(json!({"type": "sign_in", "username": "Mallory"}))
        .await;
    let options = device.expect("passkey_request").await;
    let assertion = passkey.assert(&options["options"]);
    device
        .send(json!({"type": "passkey_asserted", "credential": assertion}))
        .await;
    assert_eq!(device.expect_error().await, "banned");
    // Lifted: welcome again.
    admin::act(&operators, "mallory", Action::Unban, "appeal accepted")
        .await
        .expect("the unban");
    let mut back = server.client().await;
    assert_eq!(back.hello(Some(&token), "M").await["username"], "Mallory");
    let log = admin::log(&operators, 10).await.expect("the log");
    assert!(
        log.contains("unban") && log.contains("appeal accepted"),
        "{log}"
    );
    assert!(log.contains("ban") && log.contains("spam in chat"), "{log}");
    server.stop().await;
}

#[tokio::test]
async fn a_muted_person_cannot_chat() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let (_ana, mut bea, _cid, _) = room_of_three(&server).await;
    let operators = open_db(&db).await;
    admin::act(&operators, "#2", Action::Mute(Some(1)), "flooding the chat")
        .await
        .expect("the mute");
    // The mute reaches the connection within a second or so.
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        bea.send(json!({"type": "chat", "text": "still here?"}))
            .await;
        let answer = loop {
            let frame = bea.recv().await;
            if frame["type"] == "chat" || frame["type"] == "error" {
                break frame;
            }
        };
        if answer["type"] == "error" {
            assert_eq!(answer["code"], "muted", "{answer}");
            break;
        }
        assert!(Instant::now() < deadline, "the mute never arrived");
        tokio::time::sleep(Duration::from_millis(600)).await;
    }
    server.stop().await;
}
