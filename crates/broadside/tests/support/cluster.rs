//! Real cluster nodes for tests and measurements: a fresh PostgreSQL database,
//! `broadside serve` processes on one NATS server, nginx in front, and duels
//! played through them (used by tests/cluster.rs and by the lab's
//! crates/lab/examples/failover.rs).
//!
//! PostgreSQL and NATS are found through `BROADSIDE_TEST_POSTGRES` (an admin
//! URL; default `postgres://root@127.0.0.1:5432/postgres`) and
//! `BROADSIDE_TEST_NATS` (default `nats://127.0.0.1:4222`).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::client::*;

/// The lease the nodes of these tests hold rooms for: a dead node's rooms
/// move within about this time.
pub const LEASE_SECS: u64 = 3;

/// The `broadside` binary: the one Cargo built for the tests, or for an
/// example the one beside its directory (build it first).
pub fn binary() -> std::path::PathBuf {
    match option_env!("CARGO_BIN_EXE_broadside") {
        Some(path) => path.into(),
        None => std::env::current_exe()
            .expect("the example knows its path")
            .parent()
            .and_then(|examples| examples.parent())
            .expect("examples live in the target directory")
            .join("broadside"),
    }
}

/// The lab's `broadside-lab` binary (the load generator), beside `broadside`
/// in the same target directory. Cargo builds a package's binaries for its own
/// tests only: `cargo test --workspace` (scripts/test.sh) builds it, a run of
/// this crate's tests alone needs `cargo build -p broadside-lab` first.
pub fn lab_binary() -> std::path::PathBuf {
    let name = format!("broadside-lab{}", std::env::consts::EXE_SUFFIX);
    let path = binary().with_file_name(name);
    assert!(
        path.is_file(),
        "the load generator {} is not built: build it into the same target directory \
         (`cargo build -p broadside-lab`, with `--release` for a release run), or run the \
         whole workspace's tests (`cargo test --workspace`)",
        path.display()
    );
    path
}

pub fn admin_url() -> String {
    std::env::var("BROADSIDE_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/postgres".into())
}

pub fn nats_url() -> String {
    std::env::var("BROADSIDE_TEST_NATS").unwrap_or_else(|_| "nats://127.0.0.1:4222".into())
}

pub fn psql(url: &str, sql: &str) -> String {
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
pub struct FreshDb {
    pub name: String,
    pub url: String,
}

impl FreshDb {
    pub fn new(test: &str) -> FreshDb {
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
pub struct Node {
    pub name: String,
    pub child: Child,
    pub addr: std::net::SocketAddr,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Node {
    pub fn start(name: &str, db: &FreshDb) -> Node {
        Node::start_at(name, db, "127.0.0.1:0", LEASE_SECS, &[])
    }

    /// A node on `addr` holding rooms for `lease_secs`, with more `serve` flags.
    pub fn start_at(name: &str, db: &FreshDb, addr: &str, lease_secs: u64, flags: &[&str]) -> Node {
        let mut child = Command::new(binary())
            .args(["serve", "--addr", addr, "--bot-delay-ms", "0"])
            // A loaded test machine must not turn new games away (busy has
            // its own tests).
            .args(["--busy-lag-ms", "0"])
            .args(["--db", &db.url, "--bus", &nats_url(), "--node", name])
            .args(["--lease-secs", &lease_secs.to_string()])
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
            .collect::<String>()
            // Printed as localhost (for passkeys); the node listens on loopback.
            .replace("localhost", "127.0.0.1");
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

    pub fn signal(&self, signal: i32) {
        let pid = self.child.id() as i32;
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "signal {signal} to node {}", self.name);
    }

    pub fn kill(&mut self) {
        self.child.kill().expect("the node can be killed");
        self.child.wait().expect("the killed node is reaped");
    }

    pub fn logged(&self, needle: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(needle))
    }

    pub async fn person(&self, nickname: &str) -> Client {
        let mut client = Client::connect(self.addr).await;
        client.hello(None, nickname).await;
        client
    }

    pub async fn returning(&self, token: &str, nickname: &str) -> Client {
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
    pub fn signal_quietly(&self, signal: i32) {
        // SAFETY: as in `signal`; a dead child just makes kill(2) fail.
        unsafe {
            libc::kill(self.child.id() as i32, signal);
        }
    }
}

/// A duel between Ana and Bea with a turn timer, placed and in battle.
pub fn duel() -> Value {
    json!({"preset": "classic", "options": {
        "turn_seconds": 120, "place_seconds": 0, "first": 0, "hit_again": false}})
}

/// Ana on `ana_node` creates a duel (that node owns it), Bea joins it from
/// `bea_node`, both place at random: the game is in battle. Returns both
/// clients and the room's code.
pub async fn duel_across(ana_node: &Node, bea_node: &Node) -> (Client, Client, String) {
    let mut ana = ana_node.person("Ana").await;
    let mut bea = bea_node.person("Bea").await;
    let code = ana.create(duel()).await;
    bea.join(&code, "player").await;
    ana.send(json!({"type": "start"})).await;
    // Bea's frames reach the room over NATS: she places once she has seen the
    // game start, or her command could overtake Ana's start.
    ana.state_until(|s| phase(s) == "placement").await;
    bea.state_until(|s| phase(s) == "placement").await;
    ana.command(json!({"cmd": "place_random"})).await;
    bea.command(json!({"cmd": "place_random"})).await;
    (ana, bea, code)
}

/// Plays `turns` shots by whoever is to move, through either client.
pub async fn play_turns(ana: &mut Client, bea: &mut Client, turns: usize) {
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
pub fn boards(state: &Value) -> Value {
    state["view"]["boards"].clone()
}

/// Both people play to the end, each on their own connection.
pub async fn finish(ana: &mut Client, bea: &mut Client) -> (Value, Value) {
    tokio::join!(play_to_end(ana), play_to_end(bea))
}

/// A loopback port nobody listens on (for processes that need it up front).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a loopback port can be bound")
        .port()
}

/// The project's nginx in front of `upstreams` (scripts/services.sh), stopped
/// when dropped.
pub struct Balancer {
    dir: tempfile::TempDir,
    pub port: u16,
}

impl Balancer {
    pub fn start(upstreams: &[u16]) -> Balancer {
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
