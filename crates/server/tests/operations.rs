//! What an operator relies on: `/metrics` in the Prometheus text format
//! (checked with promtool), `/readyz`, and `busy` when the node is
//! overloaded while running games go on.

use std::time::{Duration, Instant};

use broadside_server::Config;
use serde_json::{json, Value};

fn untimed() -> Value {
    json!({"turn_seconds": 0, "place_seconds": 0, "round_seconds": 0, "shop_seconds": 0})
}

use crate::common::*;

/// `promtool` from the test command (scripts/services.sh installs it).
fn promtool() -> String {
    std::env::var("BROADSIDE_PROMTOOL").unwrap_or_else(|_| "promtool".into())
}

/// The value of the first sample named `name` whose labels hold every one
/// of `labels` (`key="value"`, separated by commas).
fn sample(text: &str, name: &str, labels: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find(|line| {
            line.split([' ', '{']).next() == Some(name)
                && labels.split(',').all(|label| line.contains(label))
        })
        .and_then(|line| line.rsplit(' ').next())
        .and_then(|value| value.parse().ok())
}

async fn metrics_text(server: &TestServer) -> String {
    let (status, headers, body) = http_get(server.addr, "/metrics").await;
    assert!(status.contains("200"), "{status}");
    assert!(
        headers.contains("content-type: text/plain; version=0.0.4"),
        "{headers}"
    );
    String::from_utf8(body).expect("the metrics are UTF-8")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_a_game_and_pass_promtool_and_the_node_is_ready() {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let (status, _, body) = http_get(server.addr, "/readyz").await;
    assert!(status.contains("200"), "{status}");
    assert_eq!(body, b"ready\n");

    let mut ana = server.person("Ana").await;
    ana.create(
        json!({"preset": "classic", "options": untimed(), "bots": [{"seat": 1, "level": "easy"}]}),
    )
    .await;
    ana.send(json!({"type": "start"})).await;
    play_to_end(&mut ana).await;
    // The room counts itself as finished once its actor is through with the
    // last move (the replay is built first): the figures follow within moments.
    let finished_room = "phase=\"finished\",preset=\"classic\"";
    let asked = std::time::Instant::now();
    let text = loop {
        let text = metrics_text(&server).await;
        let counted = sample(&text, "broadside_rooms", finished_room).unwrap_or(0.0) >= 1.0;
        if counted || asked.elapsed() > Duration::from_secs(10) {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };

    for (name, labels) in [
        ("broadside_games_started_total", "preset=\"classic\""),
        ("broadside_games_finished_total", "preset=\"classic\""),
        ("broadside_frames_in_total", "type=\"command\""),
        ("broadside_frames_out_total", "type=\"state\""),
        ("broadside_shot_update_seconds_count", ""),
        ("broadside_db_write_seconds_count", ""),
        // (The recorder is the process's: other tests' rooms are counted
        // too, so the label names this test's preset as well.)
        ("broadside_rooms", finished_room),
    ] {
        let value =
            sample(&text, name, labels).unwrap_or_else(|| panic!("{name}{{{labels}}} in\n{text}"));
        assert!(value >= 1.0, "{name}{{{labels}}} = {value}");
    }
    // This server's own gauges: Ana's connection is open.
    assert!(sample(&text, "broadside_connections", "").unwrap() >= 1.0);
    assert!(sample(&text, "broadside_sessions", "").unwrap() >= 1.0);
    for name in [
        "broadside_scheduling_lag_seconds",
        "broadside_cpu_queue",
        "broadside_leases_held",
    ] {
        assert!(sample(&text, name, "").is_some(), "{name} in\n{text}");
    }
    assert!(text.contains("# HELP broadside_shot_update_seconds"));
    assert!(text.contains("broadside_shot_update_seconds_bucket{le=\"0.005\"}"));

    // promtool reads the text as Prometheus would, and finds nothing wrong.
    let mut check = std::process::Command::new(promtool())
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool runs (scripts/test.sh installs it; or: apt-get install prometheus)");
    use std::io::Write;
    check
        .stdin
        .take()
        .expect("a pipe")
        .write_all(text.as_bytes())
        .expect("promtool reads");
    let out = check.wait_with_output().expect("promtool ends");
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    server.stop().await;
}

/// Keeps both of the runtime's worker threads busy in turns (a CPU-bound
/// stretch of 30 ms each, then a yield) until `until`: the node's own
/// measure of its scheduling lag rises as it would under real load.
fn overload(until: Instant) -> Vec<tokio::task::JoinHandle<()>> {
    (0..2)
        .map(|_| {
            tokio::spawn(async move {
                while Instant::now() < until {
                    let busy = Instant::now();
                    while busy.elapsed() < Duration::from_millis(30) {
                        std::hint::spin_loop();
                    }
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect()
}

/// Reads frames until an `error` or a `room` arrives.
async fn answer(client: &mut Client) -> Value {
    loop {
        let frame = client.recv().await;
        if frame["type"] == "error" || frame["type"] == "room" {
            return frame;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overloaded_node_refuses_new_games_with_busy_and_running_games_go_on() {
    let (_dir, db) = temp_db();
    let server = TestServer::start_with(
        &db,
        Config {
            bot_delay: Duration::ZERO,
            // Low, yet above what a loaded test machine's idle runtime shows.
            busy_lag: Duration::from_millis(15),
            ..Config::default()
        },
    )
    .await;
    // A game under way before the load comes.
    let mut ana = server.person("Ana").await;
    ana.create(
        json!({"preset": "classic", "options": untimed(), "bots": [{"seat": 1, "level": "easy"}]}),
    )
    .await;
    ana.send(json!({"type": "start"})).await;
    ana.state_until(|s| phase(s) == "placement").await;
    let mut bea = server.person("Bea").await;

    let load = overload(Instant::now() + Duration::from_secs(4));
    // The lag follows within a few hundred milliseconds.
    let busy = tokio::time::timeout(Duration::from_secs(3), async {
        loop {
            bea.send(json!({"type": "create_room", "preset": "classic"}))
                .await;
            let frame = answer(&mut bea).await;
            if frame["type"] == "error" {
                return frame;
            }
            bea.send(json!({"type": "leave"})).await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("an overloaded node says busy");
    assert_eq!(busy["code"], "busy", "{busy}");
    assert_eq!(busy["request"], "create_room");
    assert!(busy["retry_after_ms"].as_u64().unwrap() >= 2000, "{busy}");
    let (status, _, body) = http_get(server.addr, "/readyz").await;
    assert!(status.contains("503"), "{status}");
    assert_eq!(body, b"not ready: overloaded\n");
    // A quick match is refused the same way.
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let refused = bea.expect("error").await;
    assert_eq!(refused["code"], "busy", "{refused}");
    // The running game goes on: its placement and a shot are accepted.
    ana.command(json!({"cmd": "place_random"})).await;
    let state = ana
        .state_until(|s| phase(s) == "battle" && my_move(s))
        .await;
    ana.command(first_unknown_target(&state)).await;
    ana.state = None;
    ana.state_until(|s| moved_by(s, &json!(0))).await;

    for task in load {
        task.await.expect("the load ends");
    }
    // Once the load is gone, the node takes new games again.
    let admitted = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            bea.send(json!({"type": "create_room", "preset": "classic"}))
                .await;
            if answer(&mut bea).await["type"] == "room" {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(admitted.is_ok(), "a node back to normal takes new games");
    let text = metrics_text(&server).await;
    assert!(
        sample(
            &text,
            "broadside_busy_refusals_total",
            "request=\"create_room\""
        )
        .unwrap()
            >= 1.0
    );
    server.stop().await;
}
