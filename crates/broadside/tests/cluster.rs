//! The cluster, for real: `broadside serve` nodes as separate processes sharing
//! one PostgreSQL database (fresh for each test) and one NATS server.
//!
//! PostgreSQL and NATS are found through `BROADSIDE_TEST_POSTGRES` (an admin
//! URL; default `postgres://root@127.0.0.1:5432/postgres`) and
//! `BROADSIDE_TEST_NATS` (default `nats://127.0.0.1:4222`). The README's test
//! command (scripts/test.sh) installs and starts both where they are missing;
//! run alone, these tests fail when the services cannot be reached.

#[path = "../../server/tests/common/client.rs"]
mod client;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use client::*;
use serde_json::{json, Value};

/// The lease the nodes of these tests hold rooms for: a dead node's rooms
/// move within about this time.
const LEASE_SECS: u64 = 3;

fn admin_url() -> String {
    std::env::var("BROADSIDE_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/postgres".into())
}

fn nats_url() -> String {
    std::env::var("BROADSIDE_TEST_NATS").unwrap_or_else(|_| "nats://127.0.0.1:4222".into())
}

fn psql(url: &str, sql: &str) -> String {
    let output = Command::new("psql")
        .args([
            url,
            "-X",
            "-q",
            "-t",
            "-A",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            sql,
        ])
        .output()
        .expect("psql runs (scripts/test.sh installs PostgreSQL)");
    assert!(
        output.status.success(),
        "psql {sql:?} failed (is PostgreSQL running? scripts/test.sh starts it): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// A fresh database for one test, dropped at the end.
struct FreshDb {
    name: String,
    url: String,
}

impl FreshDb {
    fn new(test: &str) -> FreshDb {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("the clock is past 1970")
            .as_nanos();
        let name = format!(
            "bs_cluster_{test}_{}_{}",
            std::process::id(),
            nanos % 1_000_000_000
        );
        psql(&admin_url(), &format!("CREATE DATABASE {name}"));
        let admin = admin_url();
        let base = admin
            .rsplit_once('/')
            .expect("the admin URL names a database")
            .0;
        FreshDb {
            url: format!("{base}/{name}"),
            name,
        }
    }
}

impl Drop for FreshDb {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .args([
                &admin_url(),
                "-X",
                "-q",
                "-c",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
            ])
            .output();
    }
}

/// One node: a `broadside serve` process and what it says on stderr.
struct Node {
    name: String,
    child: Child,
    addr: std::net::SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
}

impl Node {
    fn start(name: &str, db: &FreshDb) -> Node {
        Node::start_at(name, db, "127.0.0.1:0", &[])
    }

    /// A node on `addr` with more `serve` flags.
    fn start_at(name: &str, db: &FreshDb, addr: &str, flags: &[&str]) -> Node {
        let mut child = Command::new(env!("CARGO_BIN_EXE_broadside"))
            .args(["serve", "--addr", addr, "--bot-delay-ms", "0"])
            .args(["--db", &db.url, "--bus", &nats_url(), "--node", name])
            .args(["--lease-secs", &LEASE_SECS.to_string()])
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the broadside binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("the node prints its address");
        let start = first.find("http://").unwrap_or_else(|| {
            panic!("node {name} did not start: {first:?} (are PostgreSQL and NATS running?)")
        }) + 7;
        let addr: String = first[start..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '/')
            .collect();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().expect("stderr is piped");
        {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    log.lock().unwrap().push(line);
                }
            });
        }
        Node {
            name: name.to_string(),
            child,
            addr: addr.parse().expect("a socket address"),
            log,
        }
    }

    fn signal(&self, signal: i32) {
        let pid = self.child.id() as i32;
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "signal {signal} to node {}", self.name);
    }

    fn kill(&mut self) {
        self.child.kill().expect("the node can be killed");
        self.child.wait().expect("the killed node is reaped");
    }

    fn logged(&self, needle: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(needle))
    }

    async fn person(&self, nickname: &str) -> Client {
        let mut client = Client::connect(self.addr).await;
        client.hello(None, nickname).await;
        client
    }

    async fn returning(&self, token: &str, nickname: &str) -> Client {
        let mut client = Client::connect(self.addr).await;
        client.hello(Some(token), nickname).await;
        client
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        // A paused node cannot die until it runs again.
        self.signal_quietly(libc::SIGCONT);
        if std::thread::panicking() {
            for line in self.log.lock().unwrap().iter() {
                eprintln!("node {}: {line}", self.name);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Node {
    fn signal_quietly(&self, signal: i32) {
        // SAFETY: as in `signal`; a dead child just makes kill(2) fail.
        unsafe {
            libc::kill(self.child.id() as i32, signal);
        }
    }
}

/// A duel between Ana and Bea with a turn timer, placed and in battle.
fn duel() -> Value {
    json!({"preset": "classic", "options": {
        "turn_seconds": 120, "place_seconds": 0, "first": 0, "hit_again": false}})
}

/// Plays `turns` shots by whoever is to move, through either client.
async fn play_turns(ana: &mut Client, bea: &mut Client, turns: usize) {
    ana.state_until(|s| phase(s) == "battle").await;
    bea.state_until(|s| phase(s) == "battle").await;
    for _ in 0..turns {
        let state = ana.state_until(|s| phase(s) == "battle").await;
        let (shooter, other) = if my_move(&state) {
            (&mut *ana, &mut *bea)
        } else {
            (&mut *bea, &mut *ana)
        };
        let state = shooter.state_until(my_move).await;
        let me = state["view"]["seat"].clone();
        shooter.command(first_unknown_target(&state)).await;
        shooter.state = None;
        while !moved_by(&shooter.expect("state").await, &me) {}
        other.state = None;
        while !moved_by(&other.expect("state").await, &me) {}
    }
}

/// The shots on both boards as a seat sees them (its view's boards).
fn boards(state: &Value) -> Value {
    state["view"]["boards"].clone()
}

/// Both people play to the end, each on their own connection.
async fn finish(ana: &mut Client, bea: &mut Client) -> (Value, Value) {
    tokio::join!(play_to_end(ana), play_to_end(bea))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_across_two_nodes_survives_the_owner_being_killed() {
    let db = FreshDb::new("kill");
    let mut n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    // Ana on node 1 creates the room (node 1 owns it); Bea plays it from node 2.
    let mut ana = n1.person("Ana").await;
    let mut bea = n2.person("Bea").await;
    let code = ana.create(duel()).await;
    bea.join(&code, "player").await;
    ana.send(json!({"type": "start"})).await;
    ana.command(json!({"cmd": "place_random"})).await;
    bea.command(json!({"cmd": "place_random"})).await;
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
    let db = FreshDb::new("pause");
    let n1 = Node::start("n1", &db);
    let n2 = Node::start("n2", &db);
    let mut ana = n1.person("Ana").await;
    let mut bea = n2.person("Bea").await;
    let code = ana.create(duel()).await;
    bea.join(&code, "player").await;
    ana.send(json!({"type": "start"})).await;
    ana.command(json!({"cmd": "place_random"})).await;
    bea.command(json!({"cmd": "place_random"})).await;
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

/// A loopback port nobody listens on (for processes that need it up front).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a loopback port can be bound")
        .port()
}

/// The project's nginx in front of `upstreams` (scripts/services.sh), stopped
/// when dropped.
struct Balancer {
    dir: tempfile::TempDir,
    port: u16,
}

impl Balancer {
    fn start(upstreams: &[u16]) -> Balancer {
        let dir = tempfile::tempdir().expect("a temp dir can be made");
        let port = free_port();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/services.sh");
        let status = Command::new("bash")
            .arg(script)
            .arg("nginx-start")
            .arg(dir.path())
            .arg(port.to_string())
            .args(upstreams.iter().map(u16::to_string))
            .status()
            .expect("bash runs scripts/services.sh");
        assert!(status.success(), "nginx starts in front of the nodes");
        Balancer { dir, port }
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/services.sh");
        let _ = Command::new("bash")
            .arg(script)
            .arg("nginx-stop")
            .arg(self.dir.path())
            .status();
    }
}

/// The soak: three nodes behind nginx, 300 games of two people each played
/// through the balancer while one node is killed and started again. No
/// acknowledged shot is lost, every game's stored log replays to exactly what
/// its players saw last, and each log is gapless (one owner at a time).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soak_behind_nginx_loses_nothing_when_a_node_dies() {
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
            &flags,
        )
    };
    let mut nodes: Vec<Node> = (0..3).map(start).collect();
    let balancer = Balancer::start(&ports);
    let views = tempfile::NamedTempFile::new().expect("a temp file can be made");
    let mut load = Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args(["load", "--addr", &format!("127.0.0.1:{}", balancer.port)])
        .args(["--games", &GAMES.to_string(), "--seconds", "20", "--bot-percent", "0"])
        .args(["--pace-ms", "1000", "--resume", "--json", "--final-views"])
        .arg(views.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("broadside load starts");
    let load_err = load.stderr.take().expect("stderr is piped");
    let measuring = Arc::new(Mutex::new(Vec::new()));
    {
        let measuring = measuring.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(load_err).lines().map_while(Result::ok) {
                measuring.lock().unwrap().push(line);
            }
        });
    }
    // Into the measured window (the ramp of 600 connections takes ~2 s),
    // then node 2 dies, and comes back a few seconds later.
    let ramp_over = Instant::now();
    while !measuring.lock().unwrap().iter().any(|l| l.contains("measure")) {
        assert!(ramp_over.elapsed() < Duration::from_secs(60), "the load never got going");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(4)).await;
    nodes[1].kill();
    tokio::time::sleep(Duration::from_secs(LEASE_SECS + 2)).await;
    nodes[1] = start(1);
    let output = tokio::task::spawn_blocking(move || load.wait_with_output())
        .await
        .expect("the wait does not panic")
        .expect("broadside load ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or("{}"))
        .unwrap_or_else(|_| panic!("a JSON report: {stdout} {:?}", measuring.lock().unwrap()));
    eprintln!("soak report: {report}");
    assert!(output.status.success(), "broadside load: {report}");
    assert_eq!(report["lost_acknowledged"], 0, "{report}");
    assert!(report["resumed"].as_u64().unwrap_or(0) > 0, "some games moved: {report}");
    assert!(report["acknowledged"].as_u64().unwrap_or(0) > 1000, "{report}");
    assert_eq!(report["games"], GAMES, "every game is running at the end: {report}");

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
        client.join(last["code"].as_str().expect("a code"), "player").await;
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
