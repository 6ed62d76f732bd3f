//! `broadside play --server URL --login` and the account online: the code's
//! screen (big letters, the page to approve it at, the countdown, a new code
//! when it expires), the token of the new session kept in the token file and
//! used for the next `hello`, "Signed in as NAME" with the account's ratings on
//! the start screen, the session ended on another device (4005) and a ban
//! (4006), and the moderation refusals in words, in every language.
//!
//! The link is a channel (`App::online_over`): what the client sends arrives
//! on a receiver, and the server's frames are handed to `update` as the
//! network thread hands them.

use std::path::PathBuf;
use std::sync::mpsc::Receiver;

use broadside_tui::{App, CloseReason, Config, Lang, Msg, NetEvent, Screen};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use serde_json::{json, Value};

/// A fresh directory for one test's token file.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("broadside-login-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}

/// A client of `http://127.0.0.1:9` keeping its token in `dir/token`.
fn client(lang: Lang, dir: &std::path::Path, login: bool) -> (App, Receiver<String>) {
    let (out, sent) = std::sync::mpsc::channel();
    let app = App::online_over(
        Config {
            server: Some("http://127.0.0.1:9".to_string()),
            nickname: Some("ana".to_string()),
            token_file: Some(dir.join("token")),
            lang,
            login,
            seed: Some(42),
            ..Config::default()
        },
        out,
    );
    (app, sent)
}

fn frame(app: &mut App, frame: Value) {
    app.update(Msg::Net(NetEvent::Frame(frame)));
}

fn press(app: &mut App, code: KeyCode) {
    app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// Every frame the client has sent since the last call.
fn sent_frames(sent: &Receiver<String>) -> Vec<Value> {
    sent.try_iter()
        .map(|text| serde_json::from_str(&text).expect("the client sends JSON"))
        .collect()
}

fn types(frames: &[Value]) -> Vec<String> {
    frames
        .iter()
        .map(|f| f["type"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The link comes up: the client's `hello` (what it sent before is let go).
fn connected(app: &mut App, sent: &Receiver<String>) -> Value {
    sent_frames(sent);
    app.update(Msg::Net(NetEvent::Connected));
    let frames = sent_frames(sent);
    assert_eq!(types(&frames), ["hello"]);
    frames[0].clone()
}

/// The screen as text, one line per row.
fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal =
        Terminal::new(TestBackend::new(width, height)).expect("the test backend never fails");
    terminal
        .draw(|f| f.render_widget(app, f.area()))
        .expect("drawing into memory never fails");
    let buffer = terminal.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..height {
        let line: String = (0..width)
            .map(|x| buffer[(x, y)].symbol().to_string())
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn notice(app: &App) -> String {
    app.notice
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default()
}

fn account_frame(username: &str, ratings: Value) -> Value {
    json!({"type": "account", "username": username, "created": 1764423000000i64,
           "passkeys": [], "sessions": 2, "recovery_codes_left": 10, "ratings": ratings})
}

#[test]
fn login_shows_the_code_and_signs_the_terminal_in_for_this_run_and_the_next() {
    let dir = temp_dir("flow");
    std::fs::write(dir.join("token"), "guest-token").expect("a token file");
    let (mut app, sent) = client(Lang::En, &dir, true);
    // The guest's hello first, then the request for a code (no My games).
    assert_eq!(connected(&mut app, &sent)["token"], "guest-token");
    frame(
        &mut app,
        json!({"type": "welcome", "token": "guest-token", "nickname": "ana"}),
    );
    assert_eq!(types(&sent_frames(&sent)), ["link_request"]);
    assert_eq!(app.screen, Screen::Login);
    assert!(screen(&app, 80, 24).contains("Asking the server for a code…"));

    // The code, in big letters and as text, the page, the countdown.
    frame(
        &mut app,
        json!({"type": "link_code", "code": "K7QM2PXW", "expires_in_ms": 300_500}),
    );
    let shown = screen(&app, 80, 24);
    insta::assert_snapshot!("login_code_80x24", shown);
    assert!(shown.contains("Your code: K7QM2PXW"), "{shown}");
    assert!(shown.contains('█'), "big letters: {shown}");
    assert!(
        shown.contains("Open http://127.0.0.1:9 in a browser"),
        "{shown}"
    );
    // (The emoji is two cells wide: the test screen shows a blank after it.)
    assert!(
        shown.contains("👤") && shown.contains("→ Approve a device"),
        "{shown}"
    );
    assert!(shown.contains("Valid for 5:00"), "{shown}");

    // Approved in the browser: the new session's token is kept and the
    // terminal connects again with it.
    frame(
        &mut app,
        json!({"type": "signed_in", "token": "account-token", "username": "Ana"}),
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("token")).ok().as_deref(),
        Some("account-token")
    );
    assert_eq!(connected(&mut app, &sent)["token"], "account-token");
    frame(
        &mut app,
        json!({"type": "welcome", "token": "account-token", "nickname": "Ana", "username": "Ana"}),
    );
    let asked = types(&sent_frames(&sent));
    assert!(asked.contains(&"account".to_string()), "{asked:?}");
    assert!(asked.contains(&"my_games".to_string()), "{asked:?}");
    assert_eq!(app.screen, Screen::NewGame);
    assert_eq!(
        notice(&app),
        "Signed in as Ana: this terminal stays signed in next time."
    );
    // The account's ratings, as the server tells them.
    frame(
        &mut app,
        account_frame(
            "Ana",
            json!([{"preset": "classic", "rating": 1662.0, "provisional": true, "games": 3},
                   {"preset": "hasbro", "rating": 1478.0, "provisional": false, "games": 24}]),
        ),
    );
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("Signed in as Ana · ratings: Classic 1662?, Hasbro 1478"),
        "{shown}"
    );
    assert!(shown.contains("provisional"), "the ? is explained: {shown}");
    drop(app);

    // The next run, without --login: signed in from the start.
    let (mut app, sent) = client(Lang::En, &dir, false);
    assert_eq!(connected(&mut app, &sent)["token"], "account-token");
    frame(
        &mut app,
        json!({"type": "welcome", "token": "account-token", "nickname": "Ana", "username": "Ana"}),
    );
    assert!(types(&sent_frames(&sent)).contains(&"account".to_string()));
    assert!(screen(&app, 80, 24).contains("Signed in as Ana"));
    frame(&mut app, account_frame("Ana", json!([])));
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("Signed in as Ana · no rated games yet"),
        "{shown}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_expired_code_offers_a_new_one_and_q_quits() {
    let dir = temp_dir("expired");
    let (mut app, sent) = client(Lang::En, &dir, true);
    connected(&mut app, &sent);
    frame(
        &mut app,
        json!({"type": "welcome", "token": "guest", "nickname": "ana"}),
    );
    assert_eq!(types(&sent_frames(&sent)), ["link_request"]);
    // The countdown runs out here…
    frame(
        &mut app,
        json!({"type": "link_code", "code": "ABCDEFGH", "expires_in_ms": 0}),
    );
    app.update(Msg::Tick);
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("This code has expired. n asks for a new one; q quits."),
        "{shown}"
    );
    assert!(shown.contains("n new code"), "{shown}");
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(types(&sent_frames(&sent)), ["link_request"]);
    assert!(screen(&app, 80, 24).contains("Asking the server for a code…"));
    // …or the server says so first.
    frame(
        &mut app,
        json!({"type": "link_code", "code": "JKMNPQRS", "expires_in_ms": 300000}),
    );
    frame(
        &mut app,
        json!({"type": "error", "code": "link_code_invalid",
               "message": "that code is unknown, used or expired", "request": "link_request"}),
    );
    assert!(screen(&app, 80, 24).contains("This code has expired."));
    // A dropped link asks for a new code on the next welcome (a code waits
    // on the connection that asked for it).
    app.update(Msg::Net(NetEvent::Closed(CloseReason::Lost)));
    connected(&mut app, &sent);
    frame(
        &mut app,
        json!({"type": "welcome", "token": "guest", "nickname": "ana"}),
    );
    assert_eq!(types(&sent_frames(&sent)), ["link_request"]);
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_login_screen_and_the_account_line_speak_every_language() {
    for lang in Lang::ALL {
        let dir = temp_dir(&format!("lang-{}", lang.id()));
        let (mut app, sent) = client(lang, &dir, true);
        connected(&mut app, &sent);
        frame(
            &mut app,
            json!({"type": "welcome", "token": "guest", "nickname": "ana"}),
        );
        frame(
            &mut app,
            json!({"type": "link_code", "code": "K7QM2PXW", "expires_in_ms": 300000}),
        );
        let shown = screen(&app, 100, 30);
        assert!(shown.contains("K7QM2PXW"), "{}: {shown}", lang.id());
        assert!(shown.contains("👤"), "{}: {shown}", lang.id());
        assert!(
            !shown.contains("tui."),
            "{}: a key untranslated: {shown}",
            lang.id()
        );
        frame(
            &mut app,
            json!({"type": "signed_in", "token": "account", "username": "Ana"}),
        );
        connected(&mut app, &sent);
        frame(
            &mut app,
            json!({"type": "welcome", "token": "account", "nickname": "Ana", "username": "Ana"}),
        );
        frame(
            &mut app,
            account_frame(
                "Ana",
                json!([{"preset": "classic", "rating": 1662.0, "provisional": true, "games": 1}]),
            ),
        );
        let shown = screen(&app, 100, 30);
        assert!(shown.contains("Ana"), "{}: {shown}", lang.id());
        assert!(shown.contains("1662?"), "{}: {shown}", lang.id());
        assert!(!shown.contains("tui."), "{}: {shown}", lang.id());
        if lang != Lang::En {
            assert!(!shown.contains("Signed in as"), "{}: {shown}", lang.id());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_session_ended_elsewhere_forgets_the_token_and_plays_on_as_a_guest() {
    let dir = temp_dir("ended");
    std::fs::write(dir.join("token"), "account-token").expect("a token file");
    let (mut app, sent) = client(Lang::En, &dir, false);
    connected(&mut app, &sent);
    frame(
        &mut app,
        json!({"type": "welcome", "token": "account-token", "nickname": "Ana", "username": "Ana"}),
    );
    assert!(app.account.is_some());
    app.update(Msg::Net(NetEvent::Closed(CloseReason::SignedOut)));
    assert!(!dir.join("token").exists(), "the token is forgotten");
    assert!(app.account.is_none());
    assert_eq!(
        notice(&app),
        "This terminal was signed out from another device: you play as a guest now."
    );
    // It connects again (at once) as a new guest, and keeps that token.
    assert_eq!(connected(&mut app, &sent)["token"], Value::Null);
    frame(
        &mut app,
        json!({"type": "welcome", "token": "new-guest", "nickname": "ana"}),
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("token")).ok().as_deref(),
        Some("new-guest")
    );
    assert!(!screen(&app, 80, 24).contains("Signed in as"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ban_is_told_and_the_terminal_does_not_reconnect() {
    let dir = temp_dir("banned");
    let (mut app, sent) = client(Lang::PtPt, &dir, false);
    connected(&mut app, &sent);
    frame(
        &mut app,
        json!({"type": "error", "code": "banned",
               "message": "this player is banned from this server", "request": "hello"}),
    );
    assert_eq!(notice(&app), "Os operadores deste servidor baniram-te.");
    app.update(Msg::Net(NetEvent::Closed(CloseReason::Banned)));
    assert_eq!(
        notice(&app),
        "Os operadores deste servidor baniram-te; este terminal não volta a ligar-se. q sai."
    );
    // No retry is scheduled: ticks go by without a new link.
    for _ in 0..20 {
        app.update(Msg::Tick);
    }
    assert!(sent_frames(&sent).is_empty());
    assert!(notice(&app).contains("baniram-te"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn moderation_and_account_refusals_are_told_in_every_language() {
    let codes = [
        ("banned", "The operators of this server have banned you."),
        (
            "muted",
            "The operators of this server have muted you: your chat lines are not sent.",
        ),
        (
            "not_allowed",
            "You cannot join that room: you or its host blocks the other.",
        ),
        ("no_such_player", "No other person sits there."),
        (
            "account_needed",
            "Rated games need an account: sign in with broadside play --server URL --login.",
        ),
        (
            "link_code_invalid",
            "That code is unknown, used or expired.",
        ),
    ];
    for lang in Lang::ALL {
        let dir = temp_dir(&format!("refusals-{}", lang.id()));
        let (mut app, sent) = client(lang, &dir, false);
        connected(&mut app, &sent);
        frame(
            &mut app,
            json!({"type": "welcome", "token": "t", "nickname": "ana"}),
        );
        for (code, english) in codes {
            frame(
                &mut app,
                json!({"type": "error", "code": code, "message": "the server's English", "request": "chat"}),
            );
            let text = notice(&app);
            assert!(
                !text.is_empty() && !text.contains("tui."),
                "{}: {text}",
                lang.id()
            );
            assert!(
                !text.contains("the server's English"),
                "{}: {text}",
                lang.id()
            );
            if lang == Lang::En {
                assert_eq!(text, english);
            } else {
                assert_ne!(text, english, "{} {code}", lang.id());
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
