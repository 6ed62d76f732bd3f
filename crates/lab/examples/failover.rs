//! Measures failover: two cluster nodes on a fresh PostgreSQL database and
//! NATS; in each round Ana plays from the room's owner and Bea from the other
//! node, the owner is killed (SIGKILL) mid-game, and the time from the kill to
//! Bea's first state from the new owner is taken. The killed node is started
//! again for the next round (and owns the next room).
//!
//! ```sh
//! cargo build --release -p broadside
//! cargo run --release -p broadside-lab --example failover -- 20 6
//! ```
//!
//! Arguments: the number of kills (default 20) and the lease in seconds
//! (default 6, the server's own default). Prints one JSON line. PostgreSQL and
//! NATS as for the cluster tests (`BROADSIDE_TEST_POSTGRES`,
//! `BROADSIDE_TEST_NATS`; scripts/services.sh starts them).

#[path = "../../server/tests/common/client.rs"]
mod client;
#[path = "../../broadside/tests/support/cluster.rs"]
mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::*;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let kills: usize = args
        .next()
        .map_or(20, |a| a.parse().expect("kills: a number"));
    let lease: u64 = args
        .next()
        .map_or(6, |a| a.parse().expect("lease: seconds"));
    let db = FreshDb::new("failover");
    let start = |name: &str| Node::start_at(name, &db, "127.0.0.1:0", lease, &[]);
    let mut owner = start("n1");
    let mut other = start("n2");
    let mut samples = Vec::with_capacity(kills);
    for round in 0..kills {
        let (mut ana, mut bea, _) = duel_across(&owner, &other).await;
        play_turns(&mut ana, &mut bea, 2).await;
        bea.drain(Duration::from_millis(100)).await;
        let before = boards(&bea.state.clone().expect("Bea has a state"));
        let killed = Instant::now();
        owner.kill();
        drop(ana);
        bea.state = None;
        let resumed = bea.state_until(|_| true).await;
        let took = killed.elapsed();
        assert_eq!(
            boards(&resumed),
            before,
            "round {round}: every shot is kept"
        );
        eprintln!("round {round}: {took:?}");
        samples.push(took.as_secs_f64() * 1000.0);
        drop(bea);
        // The survivor owns the next room; the killed node comes back.
        let name = owner.name.clone();
        owner = std::mem::replace(&mut other, start(&name));
    }
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    let round1 = |x: f64| (x * 10.0).round() / 10.0;
    println!(
        "{}",
        json!({
            "kills": kills,
            "lease_secs": lease,
            "p50_ms": round1(at(0.5)),
            "p99_ms": round1(at(0.99)),
            "max_ms": round1(samples[samples.len() - 1]),
            "min_ms": round1(samples[0]),
        })
    );
}
