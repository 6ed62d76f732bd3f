//! Accounts (issue 36): a guest becomes an account with a passkey and keeps
//! their games; another device signs in with the passkey, a recovery code or
//! a link code; sessions end one at a time or everywhere; only accounts play
//! rated. The passkeys are real P-256 keys (tests/common/passkey.rs) and the
//! server verifies them for real.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

async fn history(client: &mut Client) -> Vec<Value> {
    client.send(json!({"type": "history"})).await;
    client.expect("history").await["games"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// A second device: a guest of its own that signs in with `passkey`, then
/// connects again with the new session (as the browser does).
async fn device_signed_in(server: &TestServer, username: &str, passkey: &mut Passkey) -> Client {
    let mut device = server.person("Someone").await;
    let token = device.sign_in(username, passkey).await;
    let mut device = server.client().await;
    let welcome = device.hello(Some(&token), "Someone").await;
    let signed_in = welcome["username"].as_str().map(str::to_lowercase);
    assert_eq!(signed_in, Some(username.to_lowercase()), "{welcome}");
    device
}

#[tokio::test]
async fn a_guest_becomes_an_account_and_keeps_games_history_and_name() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut ana = server.person("Ana").await;
    let guest_token = ana.token.clone().expect("a token");
    let code = ana
        .create(json!({"preset": "classic", "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}))
        .await;
    ana.send(json!({"type": "start"})).await;
    play_to_end(&mut ana).await;
    let before = history(&mut ana).await;
    assert_eq!(before.len(), 1);
    assert_eq!(before[0]["code"], code.as_str());

    let (_passkey, account) = ana.sign_up("Ana").await;
    assert_eq!(account["username"], "Ana");
    assert_eq!(account["passkeys"].as_array().map(Vec::len), Some(1));
    assert_eq!(account["sessions"], 1);
    let codes = account["recovery_codes"]
        .as_array()
        .expect("codes shown once");
    assert_eq!(codes.len(), 10);
    assert_eq!(account["recovery_codes_left"], 10);
    // No rated game yet: no rating in any preset.
    assert_eq!(account["ratings"], json!([]));

    // The guest's token is the account's first session: same history, and
    // the welcome names the account.
    let mut again = server.client().await;
    let welcome = again.hello(Some(&guest_token), "Ana").await;
    assert_eq!(welcome["username"], "Ana");
    assert_eq!(history(&mut again).await, before);
    // The codes are never shown again.
    again.send(json!({"type": "account"})).await;
    let account = again.expect("account").await;
    assert!(account.get("recovery_codes").is_none(), "{account}");
    server.stop().await;
}

#[tokio::test]
async fn another_device_signs_in_with_the_passkey_and_sees_the_same_history() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut ana = server.person("Ana").await;
    ana.create(json!({"preset": "classic", "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}))
        .await;
    ana.send(json!({"type": "start"})).await;
    play_to_end(&mut ana).await;
    let (mut passkey, _) = ana.sign_up("Ana").await;
    let mut phone = device_signed_in(&server, "ana", &mut passkey).await;
    assert_eq!(history(&mut phone).await, history(&mut ana).await);
    phone.send(json!({"type": "account"})).await;
    let account = phone.expect("account").await;
    assert_eq!(account["sessions"], 2);
    assert!(account["passkeys"][0]["last_used"].is_i64(), "{account}");
    server.stop().await;
}

#[tokio::test]
async fn usernames_are_unique_whatever_their_case_or_look() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut ana = server.person("Ana").await;
    ana.sign_up("Anabela").await;
    let mut other = server.person("Other").await;
    for taken in ["anabela", "ANABELA", "\u{0410}nabela"] {
        other
            .send(json!({"type": "create_account", "username": taken}))
            .await;
        assert_eq!(other.expect_error().await, "username_taken", "{taken}");
    }
    other
        .send(json!({"type": "create_account", "username": "Al"}))
        .await;
    assert_eq!(other.expect_error().await, "bad_request");
    // An account cannot be made twice.
    ana.send(json!({"type": "create_account", "username": "Someone"}))
        .await;
    assert_eq!(ana.expect_error().await, "already_signed_in");
    server.stop().await;
}

#[tokio::test]
async fn a_wrong_passkey_or_a_replayed_assertion_does_not_sign_in() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut ana = server.person("Ana").await;
    let (mut passkey, _) = ana.sign_up("Ana").await;
    let mut mallory = server.person("Mallory").await;
    let (mut own, _) = mallory.sign_up("Mallory").await;
    // Mallory answers Ana's challenge with her own passkey.
    mallory
        .send(json!({"type": "sign_in", "username": "Ana"}))
        .await;
    let options = mallory.expect("passkey_request").await;
    let forged = own.assert(&options["options"]);
    mallory
        .send(json!({"type": "passkey_asserted", "credential": forged}))
        .await;
    assert_eq!(mallory.expect_error().await, "passkey_failed");
    // A real assertion, sent again, finds no challenge.
    mallory
        .send(json!({"type": "sign_in", "username": "Ana"}))
        .await;
    let options = mallory.expect("passkey_request").await;
    let real = passkey.assert(&options["options"]);
    mallory
        .send(json!({"type": "passkey_asserted", "credential": real.clone()}))
        .await;
    mallory.expect("signed_in").await;
    mallory
        .send(json!({"type": "passkey_asserted", "credential": real}))
        .await;
    assert_eq!(mallory.expect_error().await, "passkey_failed");
    // No such account.
    mallory
        .send(json!({"type": "sign_in", "username": "Nobody"}))
        .await;
    assert_eq!(mallory.expect_error().await, "sign_in_failed");
    server.stop().await;
}

#[tokio::test]
async fn a_recovery_code_signs_in_once() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut ana = server.person("Ana").await;
    let (_, account) = ana.sign_up("Ana").await;
    let code = account["recovery_codes"][3]
        .as_str()
        .expect("a code")
        .to_string();
    let mut laptop = server.person("Guest").await;
    let typed = code.to_lowercase().replace('-', " ");
    laptop
        .send(json!({"type": "recover", "username": "ANA", "code": typed}))
        .await;
    let signed_in = laptop.expect("signed_in").await;
    assert_eq!(signed_in["username"], "Ana");
    laptop
        .send(json!({"type": "recover", "username": "Ana", "code": code}))
        .await;
    assert_eq!(laptop.expect_error().await, "sign_in_failed");
    ana.send(json!({"type": "account"})).await;
    assert_eq!(ana.expect("account").await["recovery_codes_left"], 9);
    server.stop().await;
}

#[tokio::test]
async fn a_link_code_signs_another_device_in_both_ways() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut ana = server.person("Ana").await;
    ana.sign_up("Ana").await;

    // A signed-in device offers a code; a new browser enters it.
    ana.send(json!({"type": "link_offer"})).await;
    let offer = ana.expect("link_code").await;
    let code = offer["code"].as_str().expect("a code").to_string();
    assert_eq!(code.len(), 8);
    assert_eq!(offer["expires_in_ms"], 300_000);
    let mut browser = server.person("Guest").await;
    browser
        .send(json!({"type": "link_redeem", "code": code.to_lowercase()}))
        .await;
    assert_eq!(browser.expect("signed_in").await["username"], "Ana");
    // One use.
    let mut late = server.person("Late").await;
    late.send(json!({"type": "link_redeem", "code": code}))
        .await;
    assert_eq!(late.expect_error().await, "link_code_invalid");

    // The terminal asks for a code; a signed-in browser approves it, and
    // the waiting terminal is signed in.
    let mut terminal = server.person("Term").await;
    terminal.send(json!({"type": "link_request"})).await;
    let request = terminal.expect("link_code").await;
    let code = request["code"].as_str().expect("a code").to_string();
    // Nobody can redeem a request as if it were an offer.
    late.send(json!({"type": "link_redeem", "code": code}))
        .await;
    assert_eq!(late.expect_error().await, "link_code_invalid");
    // A guest cannot approve.
    late.send(json!({"type": "link_approve", "code": code}))
        .await;
    assert_eq!(late.expect_error().await, "not_signed_in");
    ana.send(json!({"type": "link_approve", "code": code}))
        .await;
    ana.expect("link_approved").await;
    let signed_in = terminal.expect("signed_in").await;
    assert_eq!(signed_in["username"], "Ana");
    let mut again = server.client().await;
    let welcome = again.hello(signed_in["token"].as_str(), "Term").await;
    assert_eq!(welcome["username"], "Ana");
    server.stop().await;
}

#[tokio::test]
async fn sign_out_everywhere_closes_the_other_sessions_within_two_seconds() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut ana = server.person("Ana").await;
    let (mut passkey, _) = ana.sign_up("Ana").await;
    let mut phone = device_signed_in(&server, "Ana", &mut passkey).await;
    let phone_token = phone.token.clone().expect("a token");
    let mut tablet = device_signed_in(&server, "Ana", &mut passkey).await;
    let started = Instant::now();
    ana.send(json!({"type": "sign_out_everywhere"})).await;
    let account = ana.expect("account").await;
    assert_eq!(account["sessions"], 1);
    for device in [&mut phone, &mut tablet] {
        let (code, _) = device.expect_close().await.expect("a close frame");
        assert_eq!(code, 4005);
    }
    assert!(started.elapsed() < Duration::from_secs(2));
    // The ended session's token is a stranger's now: a new guest.
    let mut again = server.client().await;
    let welcome = again.hello(Some(&phone_token), "Phone").await;
    assert!(welcome.get("username").is_none(), "{welcome}");
    assert_ne!(welcome["token"], phone_token.as_str());
    // Ana's own session goes on.
    ana.send(json!({"type": "account"})).await;
    ana.expect("account").await;

    // Signing out ends this session.
    ana.send(json!({"type": "sign_out"})).await;
    ana.expect("signed_out").await;
    let mut again = server.client().await;
    let token = ana.token.clone().expect("a token");
    let welcome = again.hello(Some(&token), "Ana").await;
    assert!(welcome.get("username").is_none(), "{welcome}");
    server.stop().await;
}

#[tokio::test]
async fn only_accounts_play_rated() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut guest = server.person("Guest").await;
    guest
        .send(json!({"type": "create_room", "preset": "classic", "rated": true}))
        .await;
    assert_eq!(guest.expect_error().await, "account_needed");
    guest
        .send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    assert_eq!(guest.expect("matching").await["rated"], false);
    guest.send(json!({"type": "cancel_match"})).await;
    guest.expect("match_cancelled").await;

    let mut ana = server.person("Ana").await;
    ana.sign_up("Ana").await;
    let code = ana
        .create(json!({"preset": "classic", "seats": 2, "rated": true}))
        .await;
    guest.send(json!({"type": "join_room", "code": code})).await;
    assert_eq!(guest.expect_error().await, "account_needed");
    // A guest may watch, and may play in an unrated room.
    guest.join(&code, "spectator").await;
    guest.send(json!({"type": "leave"})).await;
    guest.expect("left").await;
    ana.send(json!({"type": "set_options", "rated": false}))
        .await;
    guest.join(&code, "player").await;
    // With a guest seated the room cannot turn rated.
    ana.send(json!({"type": "set_options", "rated": true}))
        .await;
    assert_eq!(ana.expect_error().await, "account_needed");

    // An account's quick match is rated when the partner has one too; a
    // guest's partner plays casual.
    let mut bea = Client::connect_from(server.addr, "127.0.0.2").await;
    bea.hello(None, "Bea").await;
    bea.sign_up("Bea").await;
    let mut cid = Client::connect_from(server.addr, "127.0.0.3").await;
    cid.hello(None, "Cid").await;
    cid.sign_up("Cid").await;
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    assert_eq!(bea.expect("matching").await["rated"], true);
    cid.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    assert_eq!(cid.expect("room").await["room"]["setup"]["rated"], true);
    server.stop().await;
}

#[tokio::test]
async fn the_account_frame_carries_the_ratings_of_rated_games() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_without_bot_offer(&db).await;
    let mut ana = server.person("Ana").await;
    ana.sign_up("Ana").await;
    // From another address: people of one address never rate each other.
    let mut bea = Client::connect_from(server.addr, "127.0.0.2").await;
    bea.hello(None, "Bea").await;
    bea.sign_up("Bea").await;
    ana.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    assert_eq!(ana.expect("matching").await["rated"], true);
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    ana.expect("room").await;
    bea.expect("room").await;
    ana.state_until(|s| phase(s) == "placement").await;
    bea.state_until(|s| phase(s) == "placement").await;
    tokio::join!(play_to_end(&mut ana), play_to_end(&mut bea));

    for client in [&mut ana, &mut bea] {
        client.send(json!({"type": "history"})).await;
        let history = client.expect_any("history").await;
        let after = history["games"][0]["rating"].as_f64().expect("rated");
        client.send(json!({"type": "account"})).await;
        let account = client.expect_any("account").await;
        let ratings = account["ratings"].as_array().expect("a list of ratings");
        assert_eq!(ratings.len(), 1, "{account}");
        let classic = &ratings[0];
        assert_eq!(classic["preset"], "classic");
        assert_eq!(classic["games"], 1);
        // One opponent met: provisional, as on the leaderboard.
        assert_eq!(classic["provisional"], true);
        // The rating the game's history shows, rounded.
        assert_eq!(classic["rating"].as_f64(), Some(after.round()), "{account}");
    }
    server.stop().await;
}
