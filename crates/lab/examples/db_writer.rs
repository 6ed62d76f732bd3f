//! Measures the SQLite writer alone: GAMES running games each append a command
//! every PACE_MS (±50 %, the load generator's pace), one after the other as a
//! room does, and the time from `record_command` to its commit is recorded.
//! Seven commands in ten pass the turn (the room's summary changes), as misses
//! do in a duel.
//!
//! `cargo run --release -p broadside-lab --example db_writer -- GAMES SECONDS [PACE_MS] [DB]`
//!
//! DB is a file path (default: a fresh file in the system's temporary folder)
//! or `:memory:`. Prints one JSON line: commands per second, commits, and the
//! latency's p50, p99 and maximum in milliseconds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use broadside_server::db::{CommandRecord, Lease, RoomRecord, SeatKind, SeatRecord};
use broadside_server::Db;
use rand::{Rng, SeedableRng};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| -> u64 {
        args.get(i)
            .map(|a| a.parse().expect("a whole number"))
            .unwrap_or(default)
    };
    let games = number(0, 10_000) as usize;
    let seconds = number(1, 20);
    let pace_ms = number(2, 2_000);
    let folder = tempfile_dir();
    let db = match args.get(3).map(String::as_str) {
        Some(":memory:") => Db::open_in_memory().expect("an in-memory database"),
        Some(path) => Db::open(std::path::Path::new(path)).expect("the database"),
        None => Db::open(&folder.join("writer.sqlite")).expect("the database"),
    };
    let db = Arc::new(db);

    // The rooms and their games, as the server would create them.
    let started = Instant::now();
    let mut rooms = Vec::with_capacity(games);
    for n in 0..games {
        let player = db
            .create_player(format!("token {n}").into_bytes(), format!("P{n}"), 1)
            .await
            .expect("a player");
        let seat = |kind, player_id| SeatRecord {
            kind,
            player_id,
            nickname: None,
            level: None,
            account: false,
        };
        let mut room = RoomRecord {
            code: format!("R{n:07}"),
            setup: r#"{"preset":"classic","seats":2}"#.into(),
            host: 0,
            seats: vec![
                seat(SeatKind::Person, Some(player)),
                seat(SeatKind::Bot, None),
            ],
            game_number: 0,
            phase: "lobby".into(),
            to_move: "[]".into(),
            public: false,
        };
        let lease = db
            .create_room(room.clone(), 1, "a", Duration::from_secs(60))
            .await
            .expect("the room")
            .expect("a free code");
        room.game_number = 1;
        room.phase = "battle".into();
        let id = db
            .start_game(room.clone(), r#"{"seed":1}"#.into(), None, 2, &lease)
            .await
            .expect("a game");
        rooms.push((room, lease, id));
    }
    eprintln!("{games} rooms made in {:.1?}", started.elapsed());

    let (commits_before, jobs_before) = db.stats();
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::with_capacity(games);
    for (n, (room, lease, id)) in rooms.into_iter().enumerate() {
        let db = db.clone();
        tasks.push(tokio::spawn(async move {
            drive(&db, room, lease, id, pace_ms, until, n as u64).await
        }));
    }
    let mut latencies: Vec<u32> = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("a game's task"));
    }
    let (commits, jobs) = db.stats();
    latencies.sort_unstable();
    let at = |q: f64| -> f64 {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q).round() as usize)
            .map_or(0.0, |&us| us as f64 / 1000.0)
    };
    println!(
        "{}",
        serde_json::json!({
            "games": games,
            "seconds": seconds,
            "pace_ms": pace_ms,
            "commands": latencies.len(),
            "commands_per_s": latencies.len() as f64 / seconds as f64,
            "commits": commits - commits_before,
            "jobs": jobs - jobs_before,
            "p50_ms": at(0.5),
            "p99_ms": at(0.99),
            "max_ms": at(1.0),
        })
    );
    drop(db);
    let _ = std::fs::remove_dir_all(folder);
}

/// One game: a command every `pace_ms` ±50 %, each after the last one's commit.
async fn drive(
    db: &Db,
    room: RoomRecord,
    lease: Lease,
    id: i64,
    pace_ms: u64,
    until: Instant,
    seed: u64,
) -> Vec<u32> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut latencies = Vec::new();
    let mut seq = 0u64;
    let mut turn = 0u32;
    // Start at a random moment of the first pace, as players do.
    tokio::time::sleep(Duration::from_millis(rng.random_range(0..pace_ms.max(1)))).await;
    while Instant::now() < until {
        seq += 1;
        let passes = rng.random_bool(0.7);
        if passes {
            turn ^= 1;
        }
        let record = CommandRecord {
            room_code: room.code.clone(),
            game_id: id,
            seq,
            command: format!(
                r#"{{"type":"fire","seat":{turn},"target":1,"cell":[{},{}]}}"#,
                seq % 10,
                seq / 10 % 10
            ),
            at_ms: seq as i64,
            deadline_ms: Some(1_000_000 + seq as i64),
            phase: "battle",
            to_move: format!("[{turn}]"),
            finished: false,
            summary_changed: passes,
            results: None,
        };
        let sent = Instant::now();
        db.record_command(record, &lease)
            .await
            .expect("the command is stored");
        latencies.push(sent.elapsed().as_micros().min(u32::MAX as u128) as u32);
        let pause = rng.random_range(pace_ms / 2..=pace_ms * 3 / 2);
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
    latencies
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("broadside-writer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}
