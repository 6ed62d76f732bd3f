//! Issue 34, items 5 and 8: limits that hold (behind a trusted proxy, per
//! IPv6 /64, per network, never against one's own rejoin, chat apart),
//! nicknames that cannot look blank, and the HTTP side (security headers on
//! every response, WebSocket upgrades only from the server's own pages).
//! Each test fails on the code before the issue.

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use broadside_server::Config;
use common::{http_get, temp_db, Client, TestServer};
use serde_json::json;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

fn config() -> Config {
    Config {
        bot_delay: Duration::ZERO,
        ..Config::default()
    }
}

/// A server that trusts the loopback as its load balancer: a test names the
/// client it stands for in `X-Real-IP`.
fn behind_proxy(config: Config) -> Config {
    Config {
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..config
    }
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens the WebSocket with extra request headers; the HTTP status of a
/// refused upgrade as the error.
async fn upgrade_with(addr: SocketAddr, headers: &[(&str, &str)]) -> Result<Socket, u16> {
    let mut request = format!("ws://{addr}/ws")
        .into_client_request()
        .expect("a valid URL");
    for (name, value) in headers {
        request.headers_mut().insert(
            HeaderName::from_bytes(name.as_bytes()).expect("a valid header name"),
            HeaderValue::from_str(value).expect("a valid header value"),
        );
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(other) => panic!("the upgrade failed without an HTTP answer: {other}"),
    }
}

/// A person whose connection a trusted proxy carries for client `ip`.
async fn proxied_person(server: &TestServer, ip: &str, nickname: &str) -> Client {
    let socket = upgrade_with(server.addr, &[("x-real-ip", ip)])
        .await
        .unwrap_or_else(|status| panic!("client {ip} gets in, not {status}"));
    let mut client = Client::over(socket);
    client.hello(None, nickname).await;
    client
}

/// Sends a `join_room` by an unknown code and returns the error's code.
async fn guess(client: &mut Client, code: &str) -> String {
    client
        .send(json!({"type": "join_room", "code": code}))
        .await;
    client.expect_error().await
}

/// Finding: behind `--trusted-proxy` only the proxy's own address had an
/// entry, so the client's buckets never applied (150 of 150 guesses went
/// through). Now each client named in X-Real-IP has its own ration.
#[tokio::test]
async fn behind_a_trusted_proxy_unknown_codes_are_rationed_per_client() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        behind_proxy(Config {
            unknown_code_burst: 3,
            unknown_codes_per_minute: 0.0,
            ..config()
        }),
    )
    .await;
    let mut prober = proxied_person(&server, "198.51.100.7", "Probe").await;
    for code in ["AAAAAAAAAA", "BBBBBBBBBB", "CCCCCCCCCC"] {
        assert_eq!(guess(&mut prober, code).await, "room_not_found");
    }
    assert_eq!(guess(&mut prober, "DDDDDDDDDD").await, "rate_limited");
    // The same client on a new connection is still over its ration.
    let mut again = proxied_person(&server, "198.51.100.7", "Probe 2").await;
    assert_eq!(guess(&mut again, "EEEEEEEEEE").await, "rate_limited");
    // Another client of the same proxy has a ration of its own.
    let mut other = proxied_person(&server, "198.51.100.8", "Other").await;
    assert_eq!(guess(&mut other, "FFFFFFFFFF").await, "room_not_found");
    server.stop().await;
}

/// Finding: a proxied client had no connection cap at all; now it is
/// counted at the upgrade like a direct client.
#[tokio::test]
async fn behind_a_trusted_proxy_each_client_has_its_own_connection_cap() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        behind_proxy(Config {
            max_per_address: 2,
            ..config()
        }),
    )
    .await;
    let client = [("x-real-ip", "198.51.100.7")];
    let first = upgrade_with(server.addr, &client).await.expect("first");
    let _second = upgrade_with(server.addr, &client).await.expect("second");
    assert_eq!(upgrade_with(server.addr, &client).await.err(), Some(503));
    // The proxy itself and its other clients are not held by that client.
    let _other = upgrade_with(server.addr, &[("x-real-ip", "198.51.100.8")])
        .await
        .expect("another client of the proxy");
    // A closed connection frees the client's place.
    drop(first);
    let mut back = None;
    for _ in 0..50 {
        if let Ok(socket) = upgrade_with(server.addr, &client).await {
            back = Some(socket);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(back.is_some(), "a freed place can be taken");
    server.stop().await;
}

/// Finding: caps keyed on exact addresses, and one IPv6 /64 holds billions.
/// Every address of a /64 is one client.
#[tokio::test]
async fn the_addresses_of_one_ipv6_64_are_one_client() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        behind_proxy(Config {
            unknown_code_burst: 2,
            unknown_codes_per_minute: 0.0,
            ..config()
        }),
    )
    .await;
    let mut first = proxied_person(&server, "2001:db8:1:2::1", "One").await;
    for code in ["AAAAAAAAAA", "BBBBBBBBBB"] {
        assert_eq!(guess(&mut first, code).await, "room_not_found");
    }
    let mut same_64 = proxied_person(&server, "2001:db8:1:2:ffff:ffff:ffff:fffe", "Two").await;
    assert_eq!(guess(&mut same_64, "CCCCCCCCCC").await, "rate_limited");
    let mut next_64 = proxied_person(&server, "2001:db8:1:3::1", "Three").await;
    assert_eq!(guess(&mut next_64, "DDDDDDDDDD").await, "room_not_found");
    server.stop().await;
}

/// Finding: 256 addresses filled the global cap and locked everyone out.
/// One network (IPv4 /24, IPv6 /48) holds at most its share of the cap, so
/// newcomers from elsewhere still get in.
#[tokio::test]
async fn one_network_cannot_take_the_whole_server() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        behind_proxy(Config {
            max_connections: 20,
            network_share_percent: 10,
            ..config()
        }),
    )
    .await;
    let addr = server.addr;
    let open = |ip: &'static str| async move { upgrade_with(addr, &[("x-real-ip", ip)]).await };
    let _a = open("198.51.100.1").await.expect("within the /24's share");
    let _b = open("198.51.100.2").await.expect("within the /24's share");
    assert_eq!(
        open("198.51.100.3").await.err(),
        Some(503),
        "past the share"
    );
    let _c = open("2001:db8:5:1::1")
        .await
        .expect("within the /48's share");
    let _d = open("2001:db8:5:2::1")
        .await
        .expect("within the /48's share");
    assert_eq!(
        open("2001:db8:5:3::1").await.err(),
        Some(503),
        "past the share"
    );
    // Somebody new from another network gets in.
    let mut newcomer = Client::over(open("203.0.113.9").await.expect("a newcomer"));
    newcomer.hello(None, "New").await;
    server.stop().await;
}

/// Finding: somebody behind the same NAT could spend the address's ration
/// of unknown codes and make a person's rejoin of the own running game
/// answer `rate_limited`.
#[tokio::test]
async fn rejoining_the_own_game_is_never_rate_limited() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            unknown_code_burst: 2,
            unknown_codes_per_minute: 0.0,
            ..config()
        },
    )
    .await;
    let mut ana = server.person("Ana").await;
    let code = ana
        .create(json!({"preset": "classic", "bots": [{"seat": 1, "level": "easy"}]}))
        .await;
    ana.send(json!({"type": "start"})).await;
    ana.expect("state").await;
    let token = ana.token.clone().expect("a token");
    drop(ana);
    // A neighbour on the same address sweeps codes until refused.
    let mut neighbour = server.person("Neighbour").await;
    for code in ["AAAAAAAAAA", "BBBBBBBBBB"] {
        assert_eq!(guess(&mut neighbour, code).await, "room_not_found");
    }
    assert_eq!(guess(&mut neighbour, "CCCCCCCCCC").await, "rate_limited");
    // Ana comes back to her game all the same (the code in any case).
    let mut ana = server.client().await;
    ana.hello(Some(&token), "Ana").await;
    let room = ana.join(&code.to_lowercase(), "player").await;
    assert_eq!(room["room"]["you"]["seat"], 0);
    // A stranger with the right code is still refused while over the ration.
    let mut stranger = server.person("Stranger").await;
    stranger
        .send(json!({"type": "join_room", "code": code, "as": "spectator"}))
        .await;
    assert_eq!(stranger.expect_error().await, "rate_limited");
    server.stop().await;
}

/// Finding: chat had no rate of its own (180 lines of 500 characters in
/// 0.58 s). Lines past the ration are refused with `chat_rate_limited`;
/// other frames still work.
#[tokio::test]
async fn chat_has_its_own_rate() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            chat_burst: 3,
            chat_per_minute: 0.0,
            ..config()
        },
    )
    .await;
    let mut ana = server.person("Ana").await;
    ana.create(json!({"preset": "classic"})).await;
    for n in 0..3 {
        ana.send(json!({"type": "chat", "text": format!("line {n}")}))
            .await;
        assert_eq!(ana.expect("chat").await["text"], format!("line {n}"));
    }
    ana.send(json!({"type": "chat", "text": "one too many"}))
        .await;
    let refused = ana.recv().await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "chat_rate_limited", "{refused}");
    assert_eq!(refused["request"], "chat", "{refused}");
    ana.send(json!({"type": "my_games"})).await;
    ana.expect("games").await;
    server.stop().await;
}

/// Finding: blank-looking nicknames (U+3164, U+2800, a lone combining
/// grapheme joiner…) passed. Names need a letter or digit and may hold
/// nothing that draws as blank.
#[tokio::test]
async fn blank_looking_nicknames_are_refused() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut client = server.client().await;
    for name in [
        "\u{2800}",
        "\u{3164}",
        "\u{200B}",
        "\u{115F}",
        "\u{FFA0}",
        "\u{034F}",
        "Ana\u{3164}\u{3164}",
        "A\u{2800}na",
        "!?!",
        "—.—",
    ] {
        client
            .send(json!({"type": "hello", "token": null, "nickname": name}))
            .await;
        let answer = client.recv().await;
        assert_eq!(answer["type"], "error", "{name:?}: {answer}");
        assert_eq!(answer["code"], "bad_request", "{name:?}: {answer}");
    }
    let welcome = client.hello(None, "Ana 2").await;
    assert_eq!(welcome["nickname"], "Ana 2");
    server.stop().await;
}

/// Finding: no Content-Security-Policy, frame-ancestors, nosniff or
/// Referrer-Policy. Every response carries them.
#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    for path in [
        "/",
        "/r/ABCDEFGHIJ",
        "/style.css",
        "/healthz",
        "/api/games/999999",
        "/nothing",
    ] {
        let (status, headers, _) = http_get(server.addr, path).await;
        let header = |name: &str| {
            headers
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{name}: ")))
                .map(str::to_string)
                .unwrap_or_else(|| panic!("{path} ({status}) has no {name}: {headers}"))
        };
        let policy = header("content-security-policy");
        assert!(policy.contains("default-src 'self'"), "{path}: {policy}");
        assert!(
            policy.contains("frame-ancestors 'none'"),
            "{path}: {policy}"
        );
        assert_eq!(header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header("referrer-policy"), "no-referrer", "{path}");
    }
    server.stop().await;
}

/// Finding: WebSocket upgrades from any Origin were accepted, so any site's
/// page could play in a visitor's name. Only the server's own pages (and
/// `--allow-origin`) may; clients that send no Origin are not web pages.
#[tokio::test]
async fn websocket_upgrades_from_another_origin_are_refused() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            allowed_origins: vec!["https://play.example.org".into()],
            ..config()
        },
    )
    .await;
    let addr = server.addr;
    let origin =
        |origin: String| async move { upgrade_with(addr, &[("origin", origin.as_str())]).await };
    assert_eq!(origin("https://evil.example".into()).await.err(), Some(403));
    assert_eq!(origin("null".into()).await.err(), Some(403));
    let other_port = if addr.port() == 1 { 2 } else { addr.port() - 1 };
    assert_eq!(
        origin(format!("http://127.0.0.1:{other_port}")).await.err(),
        Some(403),
        "another port of the same host is another site's page"
    );
    let mut own = Client::over(
        origin(format!("http://{addr}"))
            .await
            .expect("the server's own page"),
    );
    own.hello(None, "Ana").await;
    origin("https://play.example.org".into())
        .await
        .expect("an allowed origin");
    // The terminal client and bots send no Origin.
    server.person("Terminal").await;
    server.stop().await;
}

/// Finding: quick_match made rooms outside the room limit (418 rated rooms
/// in 5 seconds from one address). A pairing is a new room of the pairing
/// address; an address out of rooms cannot queue.
#[tokio::test]
async fn quick_match_pairings_count_as_new_rooms() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            room_burst: 1,
            rooms_per_minute: 0.0,
            ..config()
        },
    )
    .await;
    let mut ana = server.person("Ana").await;
    let mut bea = server.person("Bea").await;
    ana.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    ana.expect("matching").await;
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    bea.expect("room").await;
    ana.expect("room").await;
    let mut cai = server.person("Cai").await;
    cai.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let refused = cai.recv().await;
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    assert_eq!(refused["request"], "quick_match", "{refused}");
    cai.send(json!({"type": "create_room", "preset": "classic"}))
        .await;
    assert_eq!(cai.expect_error().await, "rate_limited");
    server.stop().await;
}
