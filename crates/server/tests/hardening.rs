//! Issue 12: the server on the open internet. One test (or more) per finding of
//! the attack report: frames that crashed or froze the server, slow readers,
//! sockets that never spoke, code sweeps, seeing more than a seat may, spoofed
//! names, frames that broke the WebSocket, and floods that never ended.

use crate::common;

use std::time::{Duration, Instant};

use broadside_server::Config;
use common::{temp_db, Client, TestServer, PATIENCE};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn config() -> Config {
    Config {
        bot_delay: Duration::ZERO,
        ..Config::default()
    }
}

/// Finding 1: ship counts that wrapped a `u32` built 2^32 ships and the
/// allocation killed the process, for every game on the server.
#[tokio::test]
async fn a_fleet_of_four_billion_ships_is_refused_and_the_server_lives() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let fleet =
        json!([{"id": "a", "len": 1, "count": 1}, {"id": "b", "len": 1, "count": 4294967295u64}]);
    ana.send(json!({"type": "create_room", "preset": "classic", "options": {"fleet": fleet}}))
        .await;
    assert_eq!(ana.expect_error().await, "bad_command");
    // The same options through set_options.
    ana.create(json!({"preset": "classic"})).await;
    ana.send(json!({"type": "set_options", "options": {"fleet": fleet}}))
        .await;
    assert_eq!(ana.expect_error().await, "bad_command");
    let mut bea = server.person("Bea").await;
    bea.send(json!({"type": "ping"})).await;
    bea.expect("pong").await;
    server.stop().await;
}

/// The custom fleet whose fit check is a long search (about 0.3 s each).
fn expensive_options() -> Value {
    json!({"cols": 26, "rows": 26, "fleet": [{"id": "a", "len": 7, "count": 40}]})
}

/// Finding 2: forty expensive fit checks from two connections froze every
/// other person for seconds (a ping took up to 11 s). They now run on the
/// pool, below the async workers, so a third person's pings stay prompt. The
/// bound here is generous (a liveness check, not the latency target, which
/// `broadside-lab load` measures).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expensive_frames_from_two_people_do_not_stall_a_third() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            cpu_threads: 2,
            ..config()
        },
    )
    .await;
    let mut attackers = Vec::new();
    for name in ["Eve", "Mal"] {
        let mut attacker = server.person(name).await;
        attacker.create(json!({"preset": "classic"})).await;
        for _ in 0..20 {
            attacker
                .send(json!({"type": "set_options", "options": expensive_options()}))
                .await;
        }
        attackers.push(attacker);
    }
    let mut ana = server.person("Ana").await;
    let mut worst = Duration::ZERO;
    for _ in 0..40 {
        let sent = Instant::now();
        ana.send(json!({"type": "ping"})).await;
        ana.expect("pong").await;
        worst = worst.max(sent.elapsed());
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        worst < Duration::from_millis(1500),
        "a ping took {worst:?} while others flooded the fit check"
    );
    // The attackers' frames are answered too (room frames or refusals).
    for attacker in &mut attackers {
        attacker.send(json!({"type": "ping"})).await;
        attacker.expect_any("pong").await;
    }
    server.stop().await;
}

/// Finding 3: a player that stopped reading while the room sent large frames
/// was silently dropped from its room and lived on as a zombie (pings answered,
/// commands never). Now the server ends such a connection (close 4003, or the
/// socket after the send timeout) and the person simply rejoins.
#[tokio::test]
async fn a_reader_that_cannot_keep_up_is_closed_not_kept_as_a_zombie() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            outbox_frames: 8,
            outbox_bytes: 64 * 1024,
            send_timeout: Duration::from_secs(1),
            frames_per_second: 1e6,
            frame_burst: 1_000_000,
            ..config()
        },
    )
    .await;
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(json!({"preset": "classic", "seats": 6, "options": {"turn_seconds": 0, "place_seconds": 0}}))
        .await;
    // Bea joins through a socket with a tiny receive buffer and stops reading.
    let mut bea = Client::connect_with_receive_buffer(server.addr, 2048).await;
    bea.hello(None, "Bea").await;
    bea.join(&code, "player").await;
    // Ana makes the room send many large frames: every set_options is a `room`
    // frame (with the fleet and the rules' catalogue) to everybody. Loopback
    // sockets buffer a few megabytes before a send blocks.
    let fleet: Vec<Value> = (0..40)
        .map(|n| json!({"id": format!("ship-with-a-long-name-{n:02}"), "len": 1 + n % 3, "count": 1}))
        .collect();
    let options =
        json!({"cols": 26, "rows": 26, "fleet": fleet, "turn_seconds": 0, "place_seconds": 0});
    let mut sent = 0;
    for _ in 0..800 {
        ana.send(json!({"type": "set_options", "options": options}))
            .await;
        sent += ana.expect("room").await.to_string().len();
    }
    assert!(sent > 6 << 20, "{sent} bytes");
    // Bea's connection ends: it does not stay open without its frames.
    let closed = bea.expect_close().await;
    if let Some((code, _)) = &closed {
        assert_eq!(*code, 4003, "{closed:?}");
    }
    // Ana is unaffected.
    ana.send(json!({"type": "ping"})).await;
    ana.expect("pong").await;
    server.stop().await;
}

/// Finding 4: sockets that never said hello, silent sessions, half-sent HTTP
/// requests and stalled partial frames stayed open forever.
#[tokio::test]
async fn silent_sockets_are_closed_with_a_reason() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            hello_timeout: Duration::from_millis(500),
            request_timeout: Duration::from_millis(500),
            ping_interval: Duration::from_millis(200),
            idle_timeout: Duration::from_millis(800),
            ..config()
        },
    )
    .await;
    // No hello.
    let mut mute = server.client().await;
    assert_eq!(mute.expect_close().await.map(|c| c.0), Some(4001));
    // Hello, then nothing: not even the pongs (this client does not read, so
    // it does not answer the server's pings).
    let mut silent = server.person("Sid").await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(silent.expect_close().await.map(|c| c.0), Some(4002));
    // A client that reads answers the pings and stays.
    let mut alive = server.person("Ana").await;
    // (Reading answers the pings; the server's pings keep the read going.)
    let _ = tokio::time::timeout(Duration::from_millis(1500), alive.drain(PATIENCE)).await;
    alive.send(json!({"type": "ping"})).await;
    alive.expect("pong").await;
    // Half an HTTP request.
    let mut half = TcpStream::connect(server.addr).await.unwrap();
    half.write_all(b"GET /ws HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    assert!(
        closed_within(&mut half, PATIENCE).await,
        "a half request is dropped"
    );
    // A partial frame: the header of a 60 KB text frame and one byte of it.
    let mut partial = raw_websocket(server.addr).await;
    let mut frame = vec![0x81, 0x80 | 127];
    frame.extend_from_slice(&60_000u64.to_be_bytes());
    frame.extend_from_slice(&[0, 0, 0, 0, b'{']);
    partial.write_all(&frame).await.unwrap();
    assert!(
        closed_within(&mut partial, PATIENCE).await,
        "a stalled frame is dropped"
    );
    server.stop().await;
}

/// Finding 4: connections per address are capped; the others still get in.
#[tokio::test]
async fn connections_per_address_are_capped() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            max_per_address: 3,
            ..config()
        },
    )
    .await;
    let mut held = Vec::new();
    for name in ["A", "B", "C"] {
        held.push(server.person(name).await);
    }
    let refused = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr)).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 503)
        }
        other => panic!("a fourth connection is refused with 503, got {other:?}"),
    }
    // Closing one frees its place.
    drop(held.pop());
    let mut again = None;
    for _ in 0..50 {
        if let Ok((socket, _)) =
            tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr)).await
        {
            again = Some(socket);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(again.is_some(), "a freed place can be taken");
    server.stop().await;
}

/// Finding 5: codes could be swept at ~19,000 a second. Codes are longer, and
/// joins by unknown codes are rationed per address, across reconnections.
#[tokio::test]
async fn unknown_codes_are_rationed_per_address() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            unknown_code_burst: 5,
            unknown_codes_per_minute: 0.5,
            ..config()
        },
    )
    .await;
    let mut host = server.person("Host").await;
    let real = host.create(json!({"preset": "classic"})).await;
    assert_eq!(real.len(), 10);
    let mut prober = server.person("Probe").await;
    for code in ["AAAAAAAAAA", "BBBBBBBBBB", "CCCCCCCCCC"] {
        prober
            .send(json!({"type": "join_room", "code": code}))
            .await;
        assert_eq!(prober.expect_error().await, "room_not_found");
    }
    // A new connection from the same address does not start afresh.
    let mut prober = server.person("Probe 2").await;
    for code in ["DDDDDDDDDD", "junk"] {
        prober
            .send(json!({"type": "join_room", "code": code}))
            .await;
        assert_eq!(prober.expect_error().await, "room_not_found");
    }
    prober
        .send(json!({"type": "join_room", "code": "EEEEEEEEEE"}))
        .await;
    assert_eq!(prober.expect_error().await, "rate_limited");
    // Even a right guess is refused while the address is over its ration.
    prober
        .send(json!({"type": "join_room", "code": real}))
        .await;
    assert_eq!(prober.expect_error().await, "rate_limited");
    server.stop().await;
}

/// Finding 5: with `spectators_see_all`, a player joined the own room a second
/// time as a spectator and saw every enemy ship.
#[tokio::test]
async fn a_player_cannot_watch_the_own_game_as_an_all_seeing_spectator() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(json!({"preset": "classic", "options": {"spectators_see_all": true, "turn_seconds": 0, "place_seconds": 0},
                       "bots": [{"seat": 1, "level": "easy"}]}))
        .await;
    ana.send(json!({"type": "start"})).await;
    ana.expect("state").await;
    let mut twin = server.client().await;
    twin.hello(ana.token.as_deref(), "Ana").await;
    twin.send(json!({"type": "join_room", "code": code, "as": "spectator"}))
        .await;
    assert_eq!(twin.expect_error().await, "seated");
    // Somebody without a seat may watch with the room's full vision.
    let mut guest = server.person("Gus").await;
    let room = guest.join(&code, "spectator").await;
    assert_eq!(room["room"]["you"]["spectator"], true);
    server.stop().await;
}

/// Finding 5: nicknames with bidi overrides and invisible characters could
/// pass for somebody else's name.
#[tokio::test]
async fn spoofing_nicknames_are_refused() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut client = server.client().await;
    for name in ["\u{202E}anA", "Ana\u{200B}", "An\u{200D}a"] {
        client
            .send(json!({"type": "hello", "token": null, "nickname": name}))
            .await;
        assert_eq!(client.expect_error().await, "bad_request", "{name:?}");
    }
    client.hello(None, "Ana").await;
    server.stop().await;
}

/// Finding 5: frames over the limit and text that is not UTF-8 dropped the TCP
/// connection without a close frame (the browser saw 1006).
#[tokio::test]
async fn broken_frames_close_with_a_close_frame() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    for size in [70 * 1024, 2 << 20] {
        let mut client = server.person("Ana").await;
        let oversized = json!({"type": "chat", "text": "x".repeat(size)}).to_string();
        client.send_text(oversized).await;
        let closed = client.expect_close().await;
        assert_eq!(closed.map(|c| c.0), Some(1009), "{size} bytes");
    }
    let mut raw = raw_websocket(server.addr).await;
    // A masked text frame (mask 0) holding bytes that are not UTF-8.
    raw.write_all(&[0x81, 0x82, 0, 0, 0, 0, 0xff, 0xfe])
        .await
        .unwrap();
    assert_eq!(read_close_code(&mut raw).await, Some(1007));
    // The server is fine.
    let mut bea = server.person("Bea").await;
    bea.send(json!({"type": "ping"})).await;
    bea.expect("pong").await;
    server.stop().await;
}

/// Finding 5: "close after 2,000 dropped frames" never triggered, because
/// every token the bucket refilled reset the count.
#[tokio::test]
async fn a_flood_that_does_not_stop_is_closed() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            frame_burst: 20,
            frames_per_second: 50.0,
            flood_close: 100,
            ..config()
        },
    )
    .await;
    let mut flood = server.person("Flo").await;
    let ping = json!({"type": "ping"}).to_string();
    let closed = tokio::time::timeout(PATIENCE, async {
        loop {
            if flood.try_send_text(ping.clone()).await.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the flood is closed in time");
    assert_eq!(flood.expect_close().await.map(|c| c.0), Some(4004));
    server.stop().await;
}

/// Finding 5: protocol.md promised `bad_command` for unknown options; the
/// server refuses a misspelt option as a malformed frame, `bad_request`.
#[tokio::test]
async fn unknown_options_are_a_bad_request() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    ana.send(json!({"type": "create_room", "options": {"colz": 12}}))
        .await;
    assert_eq!(ana.expect_error().await, "bad_request");
    server.stop().await;
}

/// A WebSocket handshake by hand, for frames a client library will not send.
async fn raw_websocket(addr: std::net::SocketAddr) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        tcp.read_exact(&mut byte).await.unwrap();
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    tcp
}

/// Whether the server closes `tcp` within `wait` (reads until end of stream).
async fn closed_within(tcp: &mut TcpStream, wait: Duration) -> bool {
    let mut buffer = [0u8; 4096];
    tokio::time::timeout(wait, async {
        loop {
            match tcp.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(_) => continue,
            }
        }
    })
    .await
    .is_ok()
}

/// Reads server frames (unmasked) until a close frame, and returns its code.
async fn read_close_code(tcp: &mut TcpStream) -> Option<u16> {
    tokio::time::timeout(PATIENCE, async {
        loop {
            let mut head = [0u8; 2];
            tcp.read_exact(&mut head).await.ok()?;
            let mut len = u64::from(head[1] & 0x7f);
            if len == 126 {
                let mut ext = [0u8; 2];
                tcp.read_exact(&mut ext).await.ok()?;
                len = u64::from(u16::from_be_bytes(ext));
            } else if len == 127 {
                let mut ext = [0u8; 8];
                tcp.read_exact(&mut ext).await.ok()?;
                len = u64::from_be_bytes(ext);
            }
            let mut payload = vec![0u8; len as usize];
            tcp.read_exact(&mut payload).await.ok()?;
            if head[0] & 0x0f == 0x8 {
                return (payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]));
            }
        }
    })
    .await
    .expect("the server answers in time")
}
