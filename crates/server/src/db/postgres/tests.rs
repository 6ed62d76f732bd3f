//! What only the PostgreSQL backend does: concurrent migrations, leases and
//! the fence (a room taken over, a write in flight). The rest is the contract
//! suite's (db/contract); like it, these tests need `BROADSIDE_TEST_POSTGRES`
//! and fail without it (db/testing.rs).

use std::time::Duration;

use super::migrations::MIGRATIONS;
use super::rooms::ADD_CHAT;
use super::Postgres;
use crate::db::contract::{
    chat, command, duel, game_room, last_command, lobby, people, Backend, Fresh, TTL,
};
use crate::db::store::PlayerStore;
use crate::db::testing::scratch;
use crate::db::{DbError, Lease, Owner};

#[tokio::test]
async fn migrations_run_once_even_when_nodes_start_together() {
    let scratch = scratch().await;
    let (a, b, c) = tokio::join!(
        Postgres::connect(&scratch.url),
        Postgres::connect(&scratch.url),
        Postgres::connect(&scratch.url)
    );
    let a = a.expect("migrates");
    b.expect("waits for the first, then finds nothing to do");
    c.expect("likewise");
    let player = a
        .create_player(b"h".to_vec(), "Ana".into(), 1)
        .await
        .unwrap();
    drop(a);
    let again = Postgres::connect(&scratch.url).await.expect("reconnects");
    assert_eq!(
        again.player_by_token_hash(b"h".to_vec()).await.unwrap(),
        Some((player, "Ana".to_string()))
    );
    let client = again.pool.get().await.unwrap();
    let versions: Vec<i32> = client
        .query(
            "SELECT version FROM schema_migrations ORDER BY version",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(versions, (1..=MIGRATIONS.len() as i32).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_room_taken_over_fences_its_old_owner() {
    let fresh = Fresh::open(Backend::Postgres).await;
    let db = &fresh.db;
    // Node a's lease lasts a millisecond, so it has expired when b looks.
    let (player, a, game_id) = game_room(db, "FENCED", Duration::from_millis(1)).await;
    db.record_command(command("FENCED", game_id, 1), &a)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(db.expired_leases(10).await.unwrap(), vec!["FENCED"]);
    assert!(!db.owner("FENCED".into()).await.unwrap().unwrap().live);
    let b = db
        .acquire("FENCED".into(), "b", TTL)
        .await
        .unwrap()
        .expect("an expired lease is taken");
    assert!(b.token > a.token, "{} after {}", b.token, a.token);
    assert_eq!(
        db.owner("FENCED".into()).await.unwrap(),
        Some(Owner {
            node: "b".into(),
            token: b.token,
            live: true
        })
    );
    assert!(db.expired_leases(10).await.unwrap().is_empty());

    // Every write of the old owner is refused, and writes nothing.
    let fenced = |result: Result<(), DbError>| matches!(result, Err(DbError::Fenced(code)) if code == "FENCED");
    assert!(fenced(
        db.record_command(command("FENCED", game_id, 2), &a).await
    ));
    assert!(fenced(db.add_chat("FENCED".into(), chat("late"), &a).await));
    let mut room = lobby("FENCED", player);
    room.phase = "battle".into();
    room.game_number = 1;
    assert!(fenced(db.save_room(room.clone(), 9, &a).await));
    assert!(matches!(
        db.start_game(room.clone(), "{}".into(), None, 9, &a).await,
        Err(DbError::Fenced(_))
    ));
    assert!(!db.renew(&a, TTL).await.unwrap(), "a's lease is gone");
    let (_, game) = db.load_room("FENCED".into()).await.unwrap().unwrap();
    assert_eq!(
        game.unwrap().commands.len(),
        1,
        "a's late command is not stored"
    );
    assert!(db
        .recent_chat("FENCED".into(), 10)
        .await
        .unwrap()
        .is_empty());
    // Releasing a lost lease leaves the new owner's alone.
    db.release(&a, true).await.unwrap();
    db.release(&a, false).await.unwrap();
    assert!(db.owner("FENCED".into()).await.unwrap().unwrap().live);

    // The new owner's writes go through.
    db.record_command(command("FENCED", game_id, 2), &b)
        .await
        .unwrap();
    db.add_chat("FENCED".into(), chat("hello"), &b)
        .await
        .unwrap();
    db.save_room(room.clone(), 10, &b).await.unwrap();
    assert!(db.renew(&b, TTL).await.unwrap());
    let (_, game) = db.load_room("FENCED".into()).await.unwrap().unwrap();
    assert_eq!(game.unwrap().commands.len(), 2);
    assert_eq!(db.recent_chat("FENCED".into(), 10).await.unwrap().len(), 1);
    // A write under a token the room never had is fenced too.
    let forged = Lease {
        token: b.token + 1000,
        ..b.clone()
    };
    assert!(fenced(
        db.add_chat("FENCED".into(), chat("forged"), &forged).await
    ));
}

#[tokio::test]
async fn leases_are_refused_while_live_and_handed_over_at_once() {
    let fresh = Fresh::open(Backend::Postgres).await;
    let db = &fresh.db;
    let (_, a, game_id) = game_room(db, "LEASED", TTL).await;
    assert!(db
        .acquire("LEASED".into(), "b", TTL)
        .await
        .unwrap()
        .is_none());
    assert!(db
        .acquire("NOROOM".into(), "b", TTL)
        .await
        .unwrap()
        .is_none());
    assert!(db.owner("NOROOM".into()).await.unwrap().is_none());
    assert!(db.renew(&a, TTL).await.unwrap());

    // A restarted node takes its own room back at once, with a new token
    // that fences its earlier self.
    let a2 = db
        .acquire("LEASED".into(), "a", TTL)
        .await
        .unwrap()
        .expect("the same node re-acquires");
    assert!(a2.token > a.token);
    assert!(matches!(
        db.record_command(command("LEASED", game_id, 1), &a).await,
        Err(DbError::Fenced(_))
    ));
    db.record_command(command("LEASED", game_id, 1), &a2)
        .await
        .unwrap();

    // Handed over: listed as expired at once and taken by another node.
    assert!(db.expired_leases(10).await.unwrap().is_empty());
    db.release(&a2, true).await.unwrap();
    assert_eq!(db.expired_leases(10).await.unwrap(), vec!["LEASED"]);
    assert!(db.expired_leases(0).await.unwrap().is_empty());
    let b = db
        .acquire("LEASED".into(), "b", TTL)
        .await
        .unwrap()
        .expect("a handed-over room is free");
    assert!(b.token > a2.token);
    assert!(!db.renew(&a2, TTL).await.unwrap(), "taken over");

    // Released for good: nobody owns it until it is joined again.
    db.release(&b, false).await.unwrap();
    assert!(db.owner("LEASED".into()).await.unwrap().is_none());
    assert!(db.expired_leases(10).await.unwrap().is_empty());
    let c = db
        .acquire("LEASED".into(), "c", TTL)
        .await
        .unwrap()
        .expect("a released room is free");
    assert!(c.token > b.token);
}

/// A node taking a room over waits for the old owner's write that passed
/// the fence, so that the log it then reads holds that write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeover_waits_for_a_write_in_flight() {
    let fresh = Fresh::open(Backend::Postgres).await;
    let db = fresh.db.clone();
    let (_, a, _) = game_room(&db, "INFLIGHT", Duration::from_millis(1)).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    // The old owner's chat line, passed the fence but not yet committed.
    let raw = Postgres::connect(fresh.url()).await.unwrap();
    let mut client = raw.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let passed: i64 = tx
        .query_one(
            ADD_CHAT,
            &[
                &"INFLIGHT",
                &a.token,
                &Some(0i64),
                &"Ana",
                &"in flight",
                &5i64,
                &false,
            ],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(passed, 1);
    let taker = {
        let db = db.clone();
        tokio::spawn(async move { db.acquire("INFLIGHT".into(), "b", TTL).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!taker.is_finished(), "the takeover waits for the write");
    tx.commit().await.unwrap();
    let b = taker.await.unwrap().unwrap().expect("then takes the room");
    assert!(b.token > a.token);
    let lines = db.recent_chat("INFLIGHT".into(), 10).await.unwrap();
    assert_eq!(lines.len(), 1, "and finds the line stored");
    assert!(matches!(
        db.add_chat("INFLIGHT".into(), chat("late"), &a).await,
        Err(DbError::Fenced(_))
    ));
}

#[tokio::test]
async fn a_fenced_finishing_command_writes_nothing() {
    let fresh = Fresh::open(Backend::Postgres).await;
    let db = &fresh.db;
    let ids = people(db, &["Ana", "Bea"]).await;
    let two = [ids[0], ids[1]];
    let (a, game_id) = duel(db, "FENCEF", two, Duration::from_millis(1)).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let b = db
        .acquire("FENCEF".into(), "b", TTL)
        .await
        .unwrap()
        .expect("an expired lease is taken");
    let last = last_command("FENCEF", game_id, two, two[0], true);
    assert!(matches!(
        db.record_command(last.clone(), &a).await,
        Err(DbError::Fenced(code)) if code == "FENCEF"
    ));
    let (room, game) = db.load_room("FENCEF".into()).await.unwrap().unwrap();
    assert_eq!(game.unwrap().commands.len(), 2, "no command");
    assert_eq!(room.phase, "battle", "no room update");
    for player in two {
        assert!(
            db.history(player, 10).await.unwrap().is_empty(),
            "no results"
        );
    }
    assert!(db
        .ratings(two.to_vec(), "classic".into())
        .await
        .unwrap()
        .is_empty());
    assert!(db
        .leaderboard("classic".into(), 10)
        .await
        .unwrap()
        .is_empty());

    // The new owner's goes through.
    db.record_command(last, &b).await.unwrap();
    assert_eq!(db.history(two[0], 10).await.unwrap().len(), 1);
    let rated = db.ratings(two.to_vec(), "classic".into()).await.unwrap();
    assert_eq!(rated.len(), 2, "both rated");
    assert!(rated.values().all(|r| r.games == 1));
}
