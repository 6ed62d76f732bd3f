//! `broadside-lab load` against a real `broadside serve`: the games run, shots
//! are answered and measured, nothing fails, and the report says so.
//!
//! The server is the `broadside` binary of the broadside crate. Cargo hands a
//! test only its own package's binaries (`CARGO_BIN_EXE_…`), so `broadside`
//! is looked for beside `broadside-lab`, in the same target directory and
//! profile. `cargo test --workspace` (the test command, scripts/test.sh)
//! builds both before any test runs; run alone, build it first:
//! `cargo build -p broadside` (with `--release` for a release test run).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// The longest a load run may take here (its window is a few seconds).
const WAIT: Duration = Duration::from_secs(60);

/// The load generator under test.
const LAB: &str = env!("CARGO_BIN_EXE_broadside-lab");

/// The `broadside` binary beside `broadside-lab`; the test fails, saying how
/// to build it, when it is not there.
fn broadside() -> PathBuf {
    let name = format!("broadside{}", std::env::consts::EXE_SUFFIX);
    let path = Path::new(LAB).with_file_name(name);
    assert!(
        path.is_file(),
        "the server binary {} is not built: these tests run it as `broadside serve`. \
         Build it into the same target directory first (`cargo build -p broadside`, with \
         `--release` for a release run), or run the whole workspace's tests \
         (`cargo test --workspace`), which builds every binary before any test runs",
        path.display()
    );
    path
}

/// The server process and its directory, both gone when the test ends.
struct Server {
    child: Child,
    dir: PathBuf,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts `broadside serve` on a free loopback port, bots moving at once.
fn serve(name: &str) -> Server {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is past 1970")
        .as_nanos();
    let dir = std::env::temp_dir().join(format!(
        "broadside-load-{name}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a temp dir can be made");
    let mut child = Command::new(broadside())
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--bot-delay-ms",
            "0",
            // The load of these tests must not be turned away as overload
            // (busy has its own tests in the server's suite).
            "--busy-lag-ms",
            "0",
            "--db",
        ])
        .arg(dir.join("db.sqlite"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the broadside binary starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut server = Server {
        child,
        dir,
        addr: String::new(),
    };
    let mut first = String::new();
    BufReader::new(stdout)
        .read_line(&mut first)
        .expect("the server prints its address");
    let start = first
        .find("http://")
        .expect("the first line names the address")
        + 7;
    server.addr = first[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '/')
        .collect();
    server
}

/// Runs `broadside-lab load` with `args` against the server and returns the
/// JSON object of its last stdout line.
fn load(server: &Server, args: &[&str]) -> Value {
    let mut child = Command::new(LAB)
        .args(["load", "--addr", &server.addr, "--json"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the broadside-lab binary starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the load run can be waited for") {
            break status;
        }
        if start.elapsed() > WAIT {
            let _ = child.kill();
            panic!("broadside-lab load did not finish within {WAIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_string(&mut stdout)
        .expect("stdout is text");
    child
        .stderr
        .take()
        .expect("stderr is piped")
        .read_to_string(&mut stderr)
        .expect("stderr is text");
    assert!(status.success(), "broadside-lab load failed: {stderr}");
    assert!(
        stderr.contains("measure") || stderr.contains("done"),
        "progress lines go to stderr: {stderr}"
    );
    let last = stdout.lines().last().expect("the load run prints a report");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("the last line is JSON ({e}): {last}"))
}

#[test]
fn ten_games_run_over_fifteen_connections_without_errors() {
    let server = serve("ten");
    let report = load(
        &server,
        &["--games", "10", "--seconds", "3", "--pace-ms", "200"],
    );
    assert_eq!(report["games"], 10, "{report}");
    assert_eq!(report["connections"], 15, "{report}");
    assert_eq!(report["errors"], 0, "{report}");
    let shots = report["shots"].as_u64().expect("shots is a count");
    assert!(shots > 0, "{report}");
    // Ten seats shoot about every 200 ms for 3 s (some answers are still in
    // flight at the end): far more than a handful, fewer than the ceiling.
    assert!((30..=300).contains(&shots), "{report}");
    let p50 = report["p50_ms"].as_f64().expect("p50_ms is a number");
    let p99 = report["p99_ms"].as_f64().expect("p99_ms is a number");
    let max = report["max_ms"].as_f64().expect("max_ms is a number");
    assert!(0.0 <= p50 && p50 <= p99 && p99 <= max, "{report}");
    assert!(max < 10_000.0, "{report}");
    assert!(report["shots_per_second"].as_f64().is_some_and(|s| s > 0.0));
    assert!(report["ramp_seconds"].as_f64().is_some(), "{report}");
    assert!(
        report["seconds"]
            .as_f64()
            .is_some_and(|s| (3.0..4.0).contains(&s)),
        "{report}"
    );
    // The server runs on this machine: found by its listening port.
    assert_eq!(report["server_pid"], server.child.id(), "{report}");
    assert!(
        report["server_rss_mib"]
            .as_f64()
            .is_some_and(|rss| rss > 0.0),
        "{report}"
    );
    assert!(report["client_cpu_seconds"].as_f64().is_some(), "{report}");
    // The server's CPU per shot, and where it went by thread: the async
    // workers are among them.
    assert!(
        report["server_cpu_ms_per_shot"]
            .as_f64()
            .is_some_and(|ms| ms >= 0.0),
        "{report}"
    );
    let threads = report["server_cpu_by_thread"]
        .as_object()
        .expect("the server's threads are read");
    assert!(
        threads.keys().any(|name| name.starts_with("tokio")),
        "{report}"
    );
    // No probe, no attack: their fields are there, empty.
    assert_eq!(report["pings"], 0, "{report}");
    assert!(report["ping_p99_ms"].is_null(), "{report}");
    assert_eq!(report["expensive_answers"], 0, "{report}");
    assert_eq!(report["extra_connections"], 0, "{report}");
}

#[test]
fn the_probe_and_the_attack_run_without_games() {
    let server = serve("probe");
    let report = load(
        &server,
        &[
            "--games",
            "0",
            "--expensive",
            "2",
            "--probe-ms",
            "20",
            "--seconds",
            "3",
        ],
    );
    assert_eq!(report["games"], 0, "{report}");
    assert_eq!(report["connections"], 0, "{report}");
    assert_eq!(report["shots"], 0, "{report}");
    assert!(report["p99_ms"].is_null(), "{report}");
    assert_eq!(report["errors"], 0, "{report}");
    // The probe and the two attackers.
    assert_eq!(report["extra_connections"], 3, "{report}");
    // A ping every 20 ms for 3 s, each answered.
    let pings = report["pings"].as_u64().expect("pings is a count");
    assert!((100..=151).contains(&pings), "{report}");
    assert_eq!(report["pings_lost"], 0, "{report}");
    let p50 = report["ping_p50_ms"]
        .as_f64()
        .expect("ping_p50_ms is a number");
    let p99 = report["ping_p99_ms"]
        .as_f64()
        .expect("ping_p99_ms is a number");
    let max = report["ping_max_ms"]
        .as_f64()
        .expect("ping_max_ms is a number");
    assert!(0.0 <= p50 && p50 <= p99 && p99 <= max, "{report}");
    // Two frames from each attacker, answered (by a refusal: the fleet does
    // not fit) as the server gets through the fit checks.
    assert_eq!(report["expensive_sent"], 4, "{report}");
    let answers = report["expensive_answers"]
        .as_u64()
        .expect("expensive_answers is a count");
    assert!((1..=4).contains(&answers), "{report}");
    assert!(
        report["expensive_last_answer_seconds"]
            .as_f64()
            .is_some_and(|s| s > 0.0 && s <= 3.5),
        "{report}"
    );
}

#[test]
fn no_games_and_nothing_else_is_refused() {
    let output = Command::new(LAB)
        .args([
            "load",
            "--addr",
            "127.0.0.1:9",
            "--games",
            "0",
            "--seconds",
            "1",
        ])
        .output()
        .expect("the broadside-lab binary starts");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--probe-ms"), "{stderr}");
}

#[test]
fn finished_games_are_followed_by_rematches() {
    let server = serve("rematch");
    // At 25 ms a move a game against a bot lasts about two seconds.
    let report = load(
        &server,
        &["--games", "4", "--seconds", "6", "--pace-ms", "25"],
    );
    assert_eq!(report["games"], 4, "{report}");
    assert_eq!(report["connections"], 6, "{report}");
    assert_eq!(report["errors"], 0, "{report}");
    assert!(
        report["games_finished"].as_u64().is_some_and(|n| n > 0),
        "{report}"
    );
}
