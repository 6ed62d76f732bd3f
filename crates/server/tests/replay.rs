//! Replays over HTTP (`GET /api/games/<id>`, `/g/<id>`) and the end-of-game
//! statistics of the `state` frame.

use crate::common;

use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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

/// An HTTP answer: status, headers (names in lower case) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `GET path` with `headers`, from the loopback address `from` (Linux
/// routes all of 127/8 to the loopback, so each is a client of its own).
async fn get_from(addr: SocketAddr, from: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let from: IpAddr = from.parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    let mut stream = socket.connect(addr).await.expect("the server listens");
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header ends the head");
    let head = String::from_utf8_lossy(&response[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line with a code");
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_lowercase(), value.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: response[split + 4..].to_vec(),
    }
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut json)
        .expect("the body is gzip");
    json
}

/// Runs SQL on the database `db` stands for (SQLite's `?1` or PostgreSQL's
/// `$1` for the game id) and answers the first column of the first row as
/// a number (a count), or 0 for a statement that answers nothing.
fn sql(db: &Path, statement: &str, game: i64) -> i64 {
    let Some(admin) = postgres_admin() else {
        let conn = rusqlite::Connection::open(db).unwrap();
        let sqlite = statement.replace("$1", "?1");
        if statement.starts_with("SELECT") {
            return conn.query_row(&sqlite, [game], |r| r.get(0)).unwrap();
        }
        conn.execute(&sqlite, [game]).unwrap();
        return 0;
    };
    let url = postgres_url(&admin, db);
    let statement = statement.to_string();
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(connection);
                if statement.starts_with("SELECT") {
                    client.query_one(&statement, &[&game]).await.unwrap().get(0)
                } else {
                    client.execute(&statement, &[&game]).await.unwrap();
                    0
                }
            })
    })
    .join()
    .unwrap()
}

/// Issue 34: a long game's replay was 3.3 MB of JSON rebuilt on every
/// request. It is served gzip-compressed to clients that take it (the same
/// JSON once decoded), with a strong ETag per representation, a year of
/// immutable caching and 304 to a client that has it already.
#[tokio::test]
async fn a_replay_is_served_compressed_with_an_etag_and_long_caching() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (mut ana, code) = classic_with_bots(&server, 2, "medium").await;
    let end = play_to_end(&mut ana).await;
    let plain = check_replay(server.addr, &db, &code, &end).await;
    let (id, _, _) = stored_game(&db, &code);
    let path = format!("/api/games/{id}");

    let zipped = get_from(
        server.addr,
        "127.0.0.1",
        &path,
        &[("Accept-Encoding", "gzip, br")],
    )
    .await;
    assert_eq!(zipped.status, 200);
    assert_eq!(zipped.header("content-encoding"), Some("gzip"));
    assert_eq!(zipped.header("content-type"), Some("application/json"));
    assert_eq!(zipped.header("vary"), Some("Accept-Encoding"));
    assert_eq!(
        zipped.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let json = gunzip(&zipped.body);
    let decoded: Value = serde_json::from_slice(&json).expect("gzip of JSON");
    assert_eq!(decoded, plain, "the same replay");
    assert!(
        zipped.body.len() * 4 < json.len(),
        "compressed: {} of {} bytes",
        zipped.body.len(),
        json.len()
    );
    let etag = zipped.header("etag").expect("an ETag").to_string();
    assert!(
        etag.starts_with('"') && etag.ends_with('"'),
        "strong: {etag}"
    );

    // The client has it: 304, no body, the same tag.
    let again = get_from(
        server.addr,
        "127.0.0.1",
        &path,
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &etag)],
    )
    .await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));

    // Without gzip: the JSON itself, under a tag of its own.
    let identity = get_from(server.addr, "127.0.0.1", &path, &[("If-None-Match", &etag)]).await;
    assert_eq!(identity.status, 200);
    assert_eq!(identity.header("content-encoding"), None);
    assert_eq!(identity.body, json, "the same bytes as the decoded gzip");
    let plain_etag = identity.header("etag").expect("an ETag").to_string();
    assert_ne!(plain_etag, etag);
    let cached = get_from(
        server.addr,
        "127.0.0.1",
        &path,
        &[("If-None-Match", &plain_etag)],
    )
    .await;
    assert_eq!(cached.status, 304);
    server.stop().await;
}

/// Issue 34: replay requests are limited per address — a burst, then a few a
/// minute — with 429 and Retry-After; other addresses are not held back.
#[tokio::test]
async fn replay_requests_are_limited_per_address() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut answered = 0;
    let limited = loop {
        let answer = get_from(server.addr, "127.0.0.5", "/api/games/12345", &[]).await;
        if answer.status != 404 {
            break answer;
        }
        answered += 1;
        assert!(answered <= 30, "more than the burst was answered");
    };
    assert_eq!(answered, 30, "the burst");
    assert_eq!(limited.status, 429);
    let retry: u64 = limited
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    let body: Value = serde_json::from_slice(&limited.body).unwrap();
    assert_eq!(body, json!({"error": "rate_limited"}));
    let other = get_from(server.addr, "127.0.0.6", "/api/games/12345", &[]).await;
    assert_eq!(other.status, 404, "another address is not limited");
    server.stop().await;
}

/// Issue 34: a replay is built once, when its game ends, and stored: after
/// a restart it is read back as built — even with the game's log gone, so
/// nothing rebuilt it.
#[tokio::test]
async fn a_replay_is_built_when_its_game_ends_and_read_back_after_a_restart() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (mut ana, code) = classic_with_bots(&server, 2, "easy").await;
    play_to_end(&mut ana).await;
    let (id, _, commands) = stored_game(&db, &code);
    assert!(!commands.is_empty());
    // Nobody asked for it: it is built and stored when the game ends.
    let waited = Instant::now();
    while sql(&db, "SELECT count(*) FROM replays WHERE game_id = $1", id) == 0 {
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "the replay was not stored when the game ended"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let path = format!("/api/games/{id}");
    let gzip = [("Accept-Encoding", "gzip")];
    let before = get_from(server.addr, "127.0.0.1", &path, &gzip).await;
    assert_eq!(before.status, 200);
    drop(ana);
    server.stop().await;

    sql(&db, "DELETE FROM commands WHERE game_id = $1", id);
    let server = TestServer::start(&db).await;
    let after = get_from(server.addr, "127.0.0.1", &path, &gzip).await;
    assert_eq!(after.status, 200);
    assert_eq!(after.header("etag"), before.header("etag"));
    assert_eq!(
        gunzip(&after.body),
        gunzip(&before.body),
        "as built at the end"
    );
    server.stop().await;
}
