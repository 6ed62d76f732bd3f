//! The cluster, for real: `broadside serve` nodes as separate processes sharing
//! one PostgreSQL database (fresh for each test) and one NATS server, and nginx
//! in front of them (tests/support/cluster.rs). The README's test command
//! (scripts/test.sh) installs and starts PostgreSQL, NATS and nginx where they
//! are missing; run alone, these tests fail when the services cannot be reached.

#[path = "../../server/tests/common/client.rs"]
mod client;
#[path = "../../server/tests/common/passkey.rs"]
mod passkey;
#[path = "../../server/tests/common/sign_up.rs"]
mod sign_up;
#[path = "support/cluster.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use client::*;
use serde_json::{json, Value};
use support::*;

/// The cluster tests run one at a time: each starts several nodes, and on two
/// cores, side by side, they would measure each other's load.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_across_two_nodes_survives_the_owner_being_killed() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("kill");
    let mut n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    // Ana on node 1 creates the room (node 1 owns it); Bea plays it from node 2.
    let (mut ana, mut bea, code) = duel_across(&n1, &n2).await;
    play_turns(&mut ana, &mut bea, 6).await;
    ana.drain(Duration::from_millis(200)).await;
    bea.drain(Duration::from_millis(200)).await;
    let ana_before = ana.state.clone().expect("Ana has a state");
    let bea_before = bea.state.clone().expect("Bea has a state");
    let ana_token = ana.token.clone().expect("Ana has a token");

    // The owner dies. Node 2 takes the room over once the lease runs out and
    // Bea, still connected to node 2, is given the game again.
    let killed = Instant::now();
    n1.kill();
    drop(ana);
    bea.state = None;
    let resumed = tokio::time::timeout(
        Duration::from_secs(LEASE_SECS + 10),
        bea.state_until(|_| true),
    )
    .await
    .expect("the game resumes on node 2 within the lease time");
    let failover = killed.elapsed();
    assert!(
        failover <= Duration::from_secs(LEASE_SECS + 5),
        "failover took {failover:?}"
    );
    assert_eq!(boards(&resumed), boards(&bea_before), "every shot is kept");
    assert_eq!(resumed["view"]["to_move"], bea_before["view"]["to_move"]);
    let deadline = resumed["deadline_ms"]
        .as_u64()
        .expect("the turn timer runs");
    let before = bea_before["deadline_ms"]
        .as_u64()
        .expect("the turn timer ran");
    assert!(
        deadline < before,
        "the timer keeps the time already spent ({deadline} ms left, {before} ms before)"
    );

    // Ana reconnects (to the surviving node) with her token: the same game.
    let mut ana = n2.returning(&ana_token, "Ana").await;
    ana.join(&code, "player").await;
    let again = ana.state_until(|_| true).await;
    assert_eq!(boards(&again), boards(&ana_before), "Ana's view is intact");
    let (ana_end, bea_end) = finish(&mut ana, &mut bea).await;
    assert_eq!(phase(&ana_end), "finished");
    assert_eq!(phase(&bea_end), "finished");
    eprintln!("failover after kill -9: {failover:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_is_fenced_off_and_lets_the_room_go() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("pause");
    let n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    let (mut ana, mut bea, code) = duel_across(&n1, &n2).await;
    play_turns(&mut ana, &mut bea, 4).await;
    let ana_token = ana.token.clone().expect("Ana has a token");

    // Node 1 stops (SIGSTOP) past its lease: node 2 takes the room.
    n1.signal(libc::SIGSTOP);
    bea.state = None;
    tokio::time::timeout(
        Duration::from_secs(LEASE_SECS + 10),
        bea.state_until(|_| true),
    )
    .await
    .expect("node 2 takes the room over");
    let mut ana2 = n2.returning(&ana_token, "Ana").await;
    ana2.join(&code, "player").await;
    play_turns(&mut ana2, &mut bea, 4).await;

    // Node 1 runs again: its lease is gone, its writes are refused, and it
    // lets the room go rather than play it a second time.
    n1.signal(libc::SIGCONT);
    let waited = Instant::now();
    while !n1.logged("another node owns it now") {
        assert!(
            waited.elapsed() < Duration::from_secs(LEASE_SECS + 5),
            "node 1 keeps the room: {:?}",
            n1.log.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Ana's old connection to node 1 is moved to the room's new owner.
    ana.state = None;
    let moved = ana.state_until(|_| true).await;
    bea.drain(Duration::from_millis(300)).await;
    let now = bea.state.clone().expect("Bea has a state");
    assert_eq!(
        moved["view"]["to_move"], now["view"]["to_move"],
        "one game, whichever node Ana's connection went to"
    );
    drop(ana);

    // The game as stored equals the game played: a third node that loads it
    // from the log alone shows Ana exactly what she saw.
    ana2.drain(Duration::from_millis(300)).await;
    let seen = ana2.state.clone().expect("Ana has a state");
    drop(ana2);
    drop(bea);
    drop(n2);
    drop(n1);
    let n3 = Node::start("n3", &db);
    let mut ana3 = n3.returning(&ana_token, "Ana").await;
    ana3.join(&code, "player").await;
    let replayed = ana3.state_until(|_| true).await;
    assert_eq!(boards(&replayed), boards(&seen));
    assert_eq!(replayed["view"]["to_move"], seen["view"]["to_move"]);
    let seqs = psql(
        &db.url,
        "SELECT count(*) = max(seq) FROM commands GROUP BY game_id",
    );
    assert_eq!(seqs, "t", "the log is gapless, each command once");
}

/// The soak: three nodes behind nginx, 300 games of two people each played
/// through the balancer by the lab's load generator (`broadside-lab load
/// --resume`, support's `lab_binary`) while one node is killed and started
/// again. No acknowledged shot is lost, every game's stored log replays to
/// exactly what its players saw last, and each log is gapless (one owner at a
/// time).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soak_behind_nginx_loses_nothing_when_a_node_dies() {
    let _serial = SERIAL.lock().await;
    const GAMES: usize = 300;
    let db = FreshDb::new("soak");
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    // nginx carries every client: the nodes trust it for their addresses.
    let flags = ["--trusted-proxy", "127.0.0.1"];
    let start = |i: usize| {
        Node::start_at(
            &format!("n{}", i + 1),
            &db,
            &format!("127.0.0.1:{}", ports[i]),
            LEASE_SECS,
            &flags,
        )
    };
    let mut nodes: Vec<Node> = (0..3).map(start).collect();
    let balancer = Balancer::start(&ports);
    let views = tempfile::NamedTempFile::new().expect("a temp file can be made");
    let load = Load::start(&[
        "--addr",
        &format!("127.0.0.1:{}", balancer.port),
        "--games",
        &GAMES.to_string(),
        "--seconds",
        "20",
        "--bot-percent",
        "0",
        "--pace-ms",
        "1000",
        "--resume",
        "--json",
        "--final-views",
        views.path().to_str().expect("a UTF-8 path"),
    ]);
    // Into the measured window (the ramp of 600 connections takes ~2 s),
    // then node 2 dies, and comes back a few seconds later.
    load.measuring().await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    nodes[1].kill();
    tokio::time::sleep(Duration::from_secs(LEASE_SECS + 2)).await;
    nodes[1] = start(1);
    let (succeeded, report) = load.report().await;
    eprintln!("soak report: {report}");
    assert!(succeeded, "broadside-lab load: {report}");
    assert_eq!(report["lost_acknowledged"], 0, "{report}");
    assert!(
        report["resumed"].as_u64().unwrap_or(0) > 0,
        "some games moved: {report}"
    );
    assert!(
        report["acknowledged"].as_u64().unwrap_or(0) > 1000,
        "{report}"
    );
    assert_eq!(
        report["games"], GAMES,
        "every game is running at the end: {report}"
    );

    // Every game's log, replayed on a node of its own, shows each player what
    // they saw last.
    for node in &nodes {
        node.signal(libc::SIGTERM);
    }
    for node in &mut nodes {
        let _ = node.child.wait();
    }
    let checker = Node::start("n9", &db);
    let lines = std::fs::read_to_string(views.path()).expect("the final views were written");
    let mut checked = 0;
    for line in lines.lines() {
        let last: Value = serde_json::from_str(line).expect("a JSON line");
        let token = last["token"].as_str().expect("a token");
        let mut client = Client::connect(checker.addr).await;
        client.hello(Some(token), "Checker").await;
        client
            .join(last["code"].as_str().expect("a code"), "player")
            .await;
        let state = client.state_until(|_| true).await;
        let rows = |boards: &Value| -> Vec<Value> {
            boards
                .as_array()
                .expect("boards")
                .iter()
                .map(|b| b["rows"].clone())
                .collect()
        };
        assert_eq!(
            rows(&state["view"]["boards"]),
            rows(&last["boards"]),
            "game {} as stored differs from what seat {} saw",
            last["code"],
            last["seat"]
        );
        checked += 1;
    }
    assert!(checked >= GAMES, "{checked} views checked");
    let gapless = psql(
        &db.url,
        "SELECT count(*) FROM (SELECT game_id FROM commands GROUP BY game_id HAVING count(*) <> max(seq)) AS gaps",
    );
    assert_eq!(gapless, "0", "every game's log is gapless");
    eprintln!("soak: {checked} final views equal their replayed games");
}

/// When a node dies, the rooms on other nodes stop counting its connections:
/// its people are shown disconnected within a few seconds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_people_of_a_dead_node_are_shown_disconnected() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("silent");
    let n1 = Node::start("n1", &db);
    let mut n2 = Node::start("n2", &db);
    let (mut ana, mut bea, _) = duel_across(&n1, &n2).await;
    play_turns(&mut ana, &mut bea, 1).await;
    let connected = |room: &Value| room["room"]["seats"][1]["connected"] == true;
    assert!(connected(ana.room.as_ref().expect("Ana has the room")));
    n2.kill();
    let waited = Instant::now();
    loop {
        let room = ana.expect_any("room").await;
        if !connected(&room) {
            break;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(15),
            "Bea stays connected"
        );
    }
    eprintln!(
        "a dead node's people shown disconnected after {:?}",
        waited.elapsed()
    );
}

/// Whatever node each person is on: invite codes, chat, spectators,
/// `my_games`, the end of a game and a rematch all work across nodes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_spectators_my_games_and_rematch_work_across_nodes() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("features");
    let n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    let (mut ana, mut bea, code) = duel_across(&n1, &n2).await;
    let mut cai = n2.person("Cai").await;
    let room = cai.join(&code, "spectator").await;
    assert_eq!(room["room"]["you"]["spectator"], true);
    assert!(cai.state_until(|_| true).await["view"]["seat"].is_null());

    bea.send(json!({"type": "chat", "text": "good luck"})).await;
    for client in [&mut ana, &mut cai] {
        let chat = client.expect_any("chat").await;
        assert_eq!(
            (chat["from"].as_str(), chat["text"].as_str()),
            (Some("Bea"), Some("good luck"))
        );
    }
    bea.send(json!({"type": "my_games"})).await;
    let games = bea.expect_any("games").await;
    assert_eq!(games["games"][0]["code"], code.as_str());

    let (ana_end, bea_end) = finish(&mut ana, &mut bea).await;
    assert_eq!(phase(&ana_end), "finished");
    assert_eq!(phase(&bea_end), "finished");
    let watched = cai.state_until(|s| phase(s) == "finished").await;
    assert!(
        watched["view"]["seat"].is_null(),
        "the spectator watched to the end"
    );

    // Bea, on the other node, offers the rematch and Ana accepts: both get
    // the new game.
    bea.send(json!({"type": "rematch"})).await;
    while ana.expect("room").await["room"]["rematch"]["from"] != 1 {}
    ana.send(json!({"type": "rematch"})).await;
    ana.state_until(|s| phase(s) == "placement").await;
    bea.state_until(|s| phase(s) == "placement").await;
}

/// A node stopped with SIGTERM hands its rooms over at once: the game goes
/// on on another node well within the lease time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_stopped_gracefully_hands_its_rooms_over_at_once() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("sigterm");
    let mut n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    let (mut ana, mut bea, code) = duel_across(&n1, &n2).await;
    play_turns(&mut ana, &mut bea, 2).await;
    bea.drain(Duration::from_millis(200)).await;
    let before = boards(&bea.state.clone().expect("Bea has a state"));
    let stopped = Instant::now();
    n1.signal(libc::SIGTERM);
    bea.state = None;
    let resumed = bea.state_until(|_| true).await;
    let took = stopped.elapsed();
    assert_eq!(boards(&resumed), before, "every shot is kept");
    assert!(
        took < Duration::from_secs(LEASE_SECS),
        "the room moved in {took:?}, not at once"
    );
    n1.child.wait().expect("node 1 exits");
    // Ana comes back through the surviving node and the game goes on.
    let token = ana.token.clone().expect("Ana has a token");
    drop(ana);
    let mut ana = n2.returning(&token, "Ana").await;
    ana.join(&code, "player").await;
    play_turns(&mut ana, &mut bea, 2).await;
    eprintln!("graceful hand-over: {took:?}");
}

/// A `broadside-lab load` run beside a test: its progress lines (stderr)
/// are collected as they come, its JSON report read at the end.
struct Load {
    child: std::process::Child,
    progress: Arc<Mutex<Vec<String>>>,
}

impl Load {
    fn start(args: &[&str]) -> Load {
        let mut child = Command::new(lab_binary())
            .arg("load")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("broadside-lab load starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let progress = Arc::new(Mutex::new(Vec::new()));
        {
            let progress = progress.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    progress.lock().unwrap().push(line);
                }
            });
        }
        Load { child, progress }
    }

    /// Waits (at most a minute) until every game runs and the measured
    /// window has begun.
    async fn measuring(&self) {
        let waited = Instant::now();
        while !self
            .progress
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("measure"))
        {
            assert!(
                waited.elapsed() < Duration::from_secs(60),
                "the load never got going"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits for the end: whether the run succeeded, and its JSON report.
    async fn report(self) -> (bool, Value) {
        let Load { child, progress } = self;
        let output = tokio::task::spawn_blocking(move || child.wait_with_output())
            .await
            .expect("the wait does not panic")
            .expect("broadside-lab load ends");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let report = serde_json::from_str(stdout.lines().last().unwrap_or("{}"))
            .unwrap_or_else(|_| panic!("a JSON report: {stdout} {:?}", progress.lock().unwrap()));
        (output.status.success(), report)
    }
}

/// A port P with P+1..P+3 free too: scripts/cluster.sh puts its balancer on
/// P and its nodes on the ports after it.
fn four_free_ports() -> u16 {
    loop {
        let port = free_port();
        if port < 65000
            && (1..=3).all(|i| std::net::TcpListener::bind(("127.0.0.1", port + i)).is_ok())
        {
            return port;
        }
    }
}

/// A rolling deploy at CI scale: scripts/cluster.sh runs three nodes behind
/// nginx, `broadside-lab load --resume` plays 100 games through it, and
/// `scripts/cluster.sh roll` restarts every node in turn (SIGTERM, drain,
/// hand-over, start, ready). No game is aborted and no acknowledged shot is
/// lost; the longest a shot waited for its answer is printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_deploy_of_three_nodes_loses_no_game_and_no_shot() {
    let _serial = SERIAL.lock().await;
    const GAMES: usize = 100;
    let db = FreshDb::new("roll");
    let logs = tempfile::tempdir().expect("a temp dir can be made");
    let logs_dir = logs.path().to_str().expect("a UTF-8 path").to_string();
    let port = four_free_ports();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/cluster.sh");
    let mut cluster = Command::new(&script)
        .env("BROADSIDE_BIN", binary())
        .args(["--nodes", "3", "--port", &port.to_string()])
        .args(["--db", &db.url, "--bus", &nats_url(), "--logs", &logs_dir])
        .args(["--", "--trusted-proxy", "127.0.0.1", "--drain-ms", "1000"])
        .args([
            "--lease-secs",
            &LEASE_SECS.to_string(),
            "--bot-delay-ms",
            "0",
        ])
        .args(["--busy-lag-ms", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("scripts/cluster.sh starts");
    let mut first = String::new();
    BufReader::new(cluster.stdout.take().expect("stdout is piped"))
        .read_line(&mut first)
        .expect("the cluster says it runs");
    assert!(first.starts_with("Broadside cluster"), "{first:?}");
    let load = Load::start(&[
        "--addr",
        &format!("127.0.0.1:{port}"),
        "--games",
        &GAMES.to_string(),
        "--seconds",
        "25",
        "--bot-percent",
        "0",
        "--pace-ms",
        "1000",
        "--resume",
        "--json",
    ]);
    load.measuring().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rolled = Instant::now();
    let roll = tokio::task::spawn_blocking({
        let script = script.clone();
        let logs_dir = logs_dir.clone();
        move || {
            Command::new(script)
                .args(["roll", "--logs", &logs_dir])
                .output()
        }
    })
    .await
    .expect("the wait does not panic")
    .expect("scripts/cluster.sh roll runs");
    let roll_took = rolled.elapsed();
    let roll_out = format!(
        "{}{}",
        String::from_utf8_lossy(&roll.stdout),
        String::from_utf8_lossy(&roll.stderr)
    );
    assert!(roll.status.success(), "the roll: {roll_out}");
    assert!(roll_out.contains("rolled every node"), "{roll_out}");
    let (succeeded, report) = load.report().await;
    eprintln!("rolling deploy in {roll_took:?}: {roll_out}report: {report}");
    // SIGTERM stops the nodes and nginx (the script's own trap).
    // SAFETY: kill(2) on our own child's pid has no memory effects.
    unsafe { libc::kill(cluster.id() as i32, libc::SIGTERM) };
    let _ = tokio::task::spawn_blocking(move || cluster.wait()).await;
    assert!(succeeded, "broadside-lab load: {report}");
    assert!(
        roll_took < Duration::from_secs(23),
        "the roll ended within the load's window: {roll_took:?}"
    );
    assert_eq!(report["games"], GAMES, "no game aborted: {report}");
    assert_eq!(report["lost_acknowledged"], 0, "{report}");
    assert!(
        report["resumed"].as_u64().unwrap_or(0) > 0,
        "games moved: {report}"
    );
    assert!(
        report["acknowledged"].as_u64().unwrap_or(0) > 500,
        "{report}"
    );
}

/// A node told to stop with a drain time says "not ready" at once (a load
/// balancer stops sending it people), goes on serving through the drain, and
/// then hands its rooms over: the game goes on on the other node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draining_node_is_not_ready_within_a_second_and_its_game_goes_on() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("drain");
    let mut n1 = Node::start_at(
        "n1",
        &db,
        "127.0.0.1:0",
        LEASE_SECS,
        &["--drain-ms", "2000"],
    );
    let n2 = Node::start("n2", &db);
    let (status, _, _) = http_get(n1.addr, "/readyz").await;
    assert!(status.contains("200"), "{status}");
    let (mut ana, mut bea, _code) = duel_across(&n1, &n2).await;
    play_turns(&mut ana, &mut bea, 1).await;
    let stopped = Instant::now();
    n1.signal(libc::SIGTERM);
    loop {
        let (status, _, body) = http_get(n1.addr, "/readyz").await;
        if status.contains("503") {
            assert_eq!(body, b"not ready: draining\n");
            break;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(1),
            "still ready: {status}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let unready = stopped.elapsed();
    assert!(unready < Duration::from_secs(1), "{unready:?}");
    // Still serving while it drains: the game goes on.
    play_turns(&mut ana, &mut bea, 1).await;
    n1.child.wait().expect("node 1 exits after the drain");
    let before = boards(&bea.state.clone().expect("Bea has a state"));
    assert!(
        stopped.elapsed() >= Duration::from_secs(2),
        "the drain lasted"
    );
    bea.state = None;
    let resumed = bea.state_until(|_| true).await;
    assert_eq!(boards(&resumed), before, "every shot is kept");
    eprintln!("not ready {unready:?} after SIGTERM");
}

/// Quick match across nodes: the queue lives in PostgreSQL, and the person
/// waiting on the other node is told over NATS to join the new room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_on_two_nodes_are_paired_by_quick_match() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("match");
    let n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    let mut ana = n1.person("Ana").await;
    // From another address: people of one address never rate each other.
    let mut bea = Client::connect_from(n2.addr, "127.0.0.2").await;
    bea.hello(None, "Bea").await;
    // Rated play needs an account on both sides.
    ana.sign_up("Ana").await;
    bea.sign_up("Bea").await;
    ana.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let matching = ana.expect("matching").await;
    assert_eq!(matching["waiting"], 1);
    assert_eq!(matching["rated"], true);
    bea.send(json!({"type": "quick_match", "preset": "classic"}))
        .await;
    let ana_room = ana.expect("room").await;
    let bea_room = bea.expect("room").await;
    assert_eq!(ana_room["room"]["code"], bea_room["room"]["code"]);
    ana.state_until(|s| phase(s) == "placement").await;
    bea.state_until(|s| phase(s) == "placement").await;
    let (ana_end, bea_end) = finish(&mut ana, &mut bea).await;
    assert_eq!(phase(&ana_end), "finished");
    assert_eq!(phase(&bea_end), "finished");
    // The rated result is visible from either node (the leaderboard waits
    // for five opponents: the history shows it).
    for client in [&mut ana, &mut bea] {
        client.send(json!({"type": "history"})).await;
        let history = client.expect_any("history").await;
        let change = &history["games"][0]["rating_change"];
        assert!(change.is_number(), "a rated game: {history}");
    }
}

/// The frames a subscription to a room's subject saw, as JSON, until `until`
/// says stop (each read within a few seconds).
async fn requests_until(
    seen: &mut async_nats::Subscriber,
    mut until: impl FnMut(&Value) -> bool,
) -> Vec<(usize, Value)> {
    use futures_util::StreamExt;
    let mut requests = Vec::new();
    // Every message seen, for the failure's text: this test has timed out
    // on loaded machines (once in several clean runs) without saying where.
    let mut others = Vec::new();
    loop {
        let message = tokio::time::timeout(Duration::from_secs(30), seen.next())
            .await
            .unwrap_or_else(|_| {
                panic!("no request crossed the bus in 30 s; seen: requests {requests:?}, other ops {others:?}")
            })
            .expect("the subscription lasts");
        let op: Value = serde_json::from_slice(&message.payload).expect("requests are JSON");
        if op["op"] != "request" {
            others.push(op["op"].clone());
            continue;
        }
        let frame: Value = serde_json::from_str(op["text"].as_str().expect("a frame's text"))
            .expect("the frame is JSON");
        let done = until(&frame);
        requests.push((message.payload.len(), frame));
        if done {
            return requests;
        }
    }
}

/// Issue 34: a node forwarded a client's frame as it came, unknown fields
/// and all (60 KB of junk per frame crossed the bus). Now only the typed
/// frame travels, written again, and what would still be too large is
/// refused with `too_large` before it leaves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_forward_only_the_typed_frame() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("typed");
    let n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    // The room lives on node 1; Bea's frames reach it from node 2.
    let (mut ana, mut bea, code) = duel_across(&n1, &n2).await;
    let bus = async_nats::connect(nats_url()).await.expect("NATS answers");
    let mut seen = bus
        .subscribe(format!("bs.room.{code}"))
        .await
        .expect("a subscription");
    bus.flush().await.expect("the subscription is in place");

    let junk = "x".repeat(60_000);
    bea.send(json!({"type": "chat", "text": "hi", "junk": junk}))
        .await;
    let chat = ana.expect_any("chat").await;
    assert_eq!(chat["text"], "hi", "the frame itself arrives");
    let requests = requests_until(&mut seen, |frame| frame["type"] == "chat").await;
    let (bytes, frame) = requests.last().expect("the chat crossed");
    assert_eq!(frame, &json!({"type": "chat", "text": "hi"}));
    assert!(*bytes < 1024, "{bytes} bytes crossed the bus");

    // A command with junk inside travels as the engine reads it.
    bea.send(json!({"type": "command", "id": 9, "command": {
        "cmd": "fire", "target": {"board": 0, "at": [0, 0]}, "junk": junk}}))
        .await;
    let requests = requests_until(&mut seen, |frame| frame["type"] == "command").await;
    let (bytes, frame) = requests.last().expect("the command crossed");
    assert_eq!(
        frame,
        &json!({"type": "command", "id": 9, "command": {
            "cmd": "fire", "target": {"board": 0, "at": [0, 0]}}})
    );
    assert!(*bytes < 1024, "{bytes} bytes crossed the bus");
    // (Ana moves first: the owner refused it as it would a local move.)
    let first = bea.expect_any("error").await;
    assert_eq!(first["id"], 9, "{first}");
    assert_ne!(first["code"], "too_large");

    // What is still over the limit without unknown fields (a command the
    // engine cannot read goes as it came) is refused on Bea's node.
    bea.send(json!({"type": "command", "id": 10, "command": {
        "cmd": "fire", "target": junk}}))
        .await;
    let refused = bea.expect_any("error").await;
    assert_eq!(refused["code"], "too_large", "{refused}");
    assert_eq!(refused["id"], 10);
    bea.send(json!({"type": "chat", "text": "after"})).await;
    let requests = requests_until(&mut seen, |frame| frame["text"] == "after").await;
    assert!(
        requests.iter().all(|(bytes, _)| *bytes < 1024),
        "nothing large crossed: {:?}",
        requests.iter().map(|(bytes, _)| bytes).collect::<Vec<_>>()
    );
}

/// Runs `broadside serve` as node `name` on `db` and waits for it to end
/// (it should not start): its exit status and what it wrote to stderr. A
/// process still serving after the lease time and a margin is killed and
/// fails the test.
fn serve_to_the_end(name: &str, db: &FreshDb) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(binary())
        .args(["serve", "--addr", "127.0.0.1:0", "--bot-delay-ms", "0"])
        .args(["--busy-lag-ms", "0"])
        .args(["--db", &db.url, "--bus", &nats_url(), "--node", name])
        .args(["--lease-secs", &LEASE_SECS.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let stderr = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECS + 15);
    // No event tells a process's end here (no tokio process support in
    // these tests): look every 100 ms.
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "a second node named {name} is still serving: {}",
                reader.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    (status, reader.join().expect("stderr is read"))
}

/// Issue 34: two nodes started with the same `--node` both ran rooms. A
/// node holds a lease on its name while it runs; a second process under a
/// live node's name refuses to start, saying why, while the name of a node
/// that died is free again within the lease time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_refuses_to_start_under_a_live_nodes_name() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("names");
    let mut n1 = Node::start("n1", &db);
    // n1 serves (it answers only once it holds its name).
    let mut ana = n1.person("Ana").await;
    ana.create(duel()).await;
    let (status, stderr) = {
        let db = &db;
        tokio::task::block_in_place(|| serve_to_the_end("n1", db))
    };
    assert!(!status.success(), "a second n1 ran: {stderr}");
    assert!(
        stderr.contains("the node name \"n1\" is held by another live node"),
        "{stderr}"
    );
    // The first n1 serves on.
    ana.create(duel()).await;

    // Killed, its name frees itself once its lease runs out: a new n1
    // starts (after waiting that out) and serves.
    n1.kill();
    let restarted = Instant::now();
    let n1 = Node::start("n1", &db);
    let mut bea = n1.person("Bea").await;
    bea.create(duel()).await;
    assert!(
        restarted.elapsed() < Duration::from_secs(LEASE_SECS + 10),
        "{:?}",
        restarted.elapsed()
    );
}

/// Signing out everywhere on one node closes the account's other sessions
/// on the other node within two seconds (over the bus).
#[tokio::test]
async fn signing_out_everywhere_closes_sessions_on_every_node() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("sign_out");
    let n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    let mut ana = n1.person("Ana").await;
    let (mut passkey, _) = ana.sign_up("Ana").await;
    let mut guest = n2.person("Phone").await;
    let token = guest.sign_in("Ana", &mut passkey).await;
    let mut phone = n2.returning(&token, "Phone").await;
    phone.send(json!({"type": "account"})).await;
    assert_eq!(phone.expect("account").await["username"], "Ana");
    let started = Instant::now();
    ana.send(json!({"type": "sign_out_everywhere"})).await;
    ana.expect("account").await;
    let (code, _) = phone.expect_close().await.expect("a close frame");
    assert_eq!(code, 4005);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "{took:?}");
}

/// `broadside admin ban` on the shared database closes the banned person's
/// connection on another node within two seconds (each node follows the
/// operators' log), and `admin log` shows why.
#[tokio::test]
async fn a_ban_by_the_admin_command_closes_a_connection_on_any_node() {
    let _serial = SERIAL.lock().await;
    let db = FreshDb::new("ban");
    let _n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    let mut mallory = n2.person("Mallory").await;
    mallory.sign_up("Mallory").await;
    let started = Instant::now();
    let admin = |args: &[&str]| {
        let out = Command::new(binary())
            .arg("admin")
            .args(["--db", &db.url])
            .args(args)
            .output()
            .expect("broadside admin runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let done = admin(&["ban", "mallory", "--days", "3", "--reason", "cheating"]);
    assert_eq!(done.trim(), "Mallory is banned for 3 days");
    let (code, _) = mallory.expect_close().await.expect("a close frame");
    assert_eq!(code, 4006);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "{took:?}");
    let log = admin(&["log"]);
    assert!(log.contains("ban") && log.contains("cheating"), "{log}");
}
