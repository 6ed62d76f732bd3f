//! What only the SQLite backend does: its file, its writer's group commit and
//! its trivial leases. The rest is the contract suite's (db/contract).

use std::sync::Arc;
use std::time::Duration;

use crate::db::contract::{command, lobby, TTL};
use crate::db::{Db, Lease};

#[tokio::test]
async fn migrations_run_once_and_reopen_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("db.sqlite");
    let db = Db::open(&path).unwrap();
    let player = db
        .create_player(b"hash".to_vec(), "Ana".into(), 1)
        .await
        .unwrap();
    let lease = db
        .create_room(lobby("ABCDEF", player), 2, "a", TTL)
        .await
        .unwrap()
        .unwrap();
    db.save_room(lobby("ABCDEF", player), 2, &lease)
        .await
        .unwrap();
    drop(db);
    let db = Db::open(&path).unwrap();
    assert_eq!(
        db.player_by_token_hash(b"hash".to_vec()).await.unwrap(),
        Some((player, "Ana".to_string()))
    );
    let (room, game) = db.load_room("ABCDEF".into()).await.unwrap().unwrap();
    assert_eq!(room.seats.len(), 2);
    assert_eq!(room.seats[0].nickname.as_deref(), Some("Ana"));
    assert!(game.is_none());
}

/// Many rooms' writes arriving together share commits, each caller hears
/// of its own write only once it is committed, and a failing write rolls
/// back alone.
#[tokio::test]
async fn concurrent_writes_are_grouped_and_a_failure_stays_alone() {
    let db = Arc::new(Db::open_in_memory().unwrap());
    let player = db
        .create_player(b"h".to_vec(), "Ana".into(), 1)
        .await
        .unwrap();
    let mut room = lobby("QWERTY", player);
    let lease = db
        .create_room(room.clone(), 1, "a", TTL)
        .await
        .unwrap()
        .unwrap();
    room.game_number = 1;
    let game_id = db
        .start_game(room, "{}".into(), None, 2, &lease)
        .await
        .unwrap();
    let (commits_before, _) = db.stats();
    let mut writes = Vec::new();
    for seq in 1..=200u64 {
        let (db, lease) = (db.clone(), lease.clone());
        writes.push(tokio::spawn(async move {
            db.record_command(command("QWERTY", game_id, seq), &lease)
                .await
        }));
    }
    // A duplicate sequence number is refused by the primary key.
    let duplicate = db.record_command(command("QWERTY", game_id, 1), &lease);
    let mut results = Vec::new();
    for write in writes {
        results.push(write.await.unwrap());
    }
    let duplicate = duplicate.await;
    assert!(results.iter().all(Result::is_ok));
    assert!(duplicate.is_err(), "seq 1 is stored once");
    let (commits, jobs) = db.stats();
    assert!(
        commits - commits_before < 201,
        "{} commits for 201 writes",
        commits - commits_before
    );
    assert!(jobs >= 204);
    let (_, game) = db.load_room("QWERTY".into()).await.unwrap().unwrap();
    assert_eq!(game.unwrap().commands.len(), 200);
}

/// One process owns the file: every room is its own, at once and for good.
#[tokio::test]
async fn leases_are_trivial() {
    let db = Db::open_in_memory().unwrap();
    assert!(!db.is_shared());
    let own = |code: &str, node: &str| Lease {
        code: code.into(),
        node: node.into(),
        token: 0,
    };
    let player = db
        .create_player(b"h".to_vec(), "Ana".into(), 1)
        .await
        .unwrap();
    let lease = db
        .create_room(lobby("TRIVIA", player), 1, "a", TTL)
        .await
        .unwrap();
    assert_eq!(lease, Some(own("TRIVIA", "a")));
    for node in ["a", "b"] {
        assert_eq!(
            db.acquire("TRIVIA".into(), node, TTL).await.unwrap(),
            Some(own("TRIVIA", node))
        );
    }
    let lease = own("TRIVIA", "a");
    assert!(db.renew(&lease, Duration::ZERO).await.unwrap());
    db.release(&lease, true).await.unwrap();
    assert!(db.expired_leases(10).await.unwrap().is_empty());
    assert_eq!(db.owner("TRIVIA".into()).await.unwrap(), None);
    // A lease is never fenced: any token writes.
    let other = Lease {
        token: 7,
        ..lease.clone()
    };
    db.add_chat("TRIVIA".into(), crate::db::contract::chat("hi"), &other)
        .await
        .unwrap();
}
