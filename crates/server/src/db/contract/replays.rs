//! The contract: finished games' replays as built once (replay.rs), and the
//! leases on nodes' names (cluster.rs, `NodeName`).

use std::time::Duration;

use super::{game_room, Backend, Fresh, TTL};
use crate::db::NodeClaim;

async fn a_replay_is_stored_once_and_read_back(fresh: Fresh) {
    let db = &fresh.db;
    let (_, _, game_id) = game_room(db, "REPLAY1", TTL).await;
    assert_eq!(db.load_replay(game_id).await.unwrap(), None);
    let gzip = vec![0x1f, 0x8b, 0, 255, 7];
    db.store_replay(game_id, "abc".into(), gzip.clone(), 5)
        .await
        .unwrap();
    assert_eq!(
        db.load_replay(game_id).await.unwrap(),
        Some(("abc".to_string(), gzip.clone()))
    );
    // Another node that built it too: the first copy stays (they are equal).
    let other = fresh.another_node().await;
    other
        .store_replay(game_id, "def".into(), vec![1], 6)
        .await
        .unwrap();
    assert_eq!(
        db.load_replay(game_id).await.unwrap(),
        Some(("abc".to_string(), gzip))
    );
    assert_eq!(db.load_replay(game_id + 1).await.unwrap(), None);
}
on_both!(a_replay_is_stored_once_and_read_back);

async fn a_live_node_keeps_its_name(fresh: Fresh) {
    let db = &fresh.db;
    let ttl = Duration::from_secs(30);
    let claim = |instance: &str| db.claim_node("n1".into(), instance.into(), ttl);
    assert_eq!(claim("first").await.unwrap(), NodeClaim::Held);
    assert_eq!(
        claim("first").await.unwrap(),
        NodeClaim::Held,
        "its own again"
    );
    let taken = claim("second").await.unwrap();
    if fresh.backend == Backend::Sqlite {
        // One process owns the file: names never clash there.
        assert_eq!(taken, NodeClaim::Held);
        return;
    }
    let NodeClaim::Taken {
        instance,
        expires_in,
    } = taken
    else {
        panic!("a live name was taken over: {taken:?}");
    };
    assert_eq!(instance, "first");
    assert!(expires_in > Duration::from_secs(20) && expires_in <= ttl);
    assert_eq!(
        db.claim_node("n2".into(), "second".into(), ttl)
            .await
            .unwrap(),
        NodeClaim::Held,
        "other names are free"
    );
    assert!(db
        .renew_node("n1".into(), "first".into(), ttl)
        .await
        .unwrap());
    assert!(!db
        .renew_node("n1".into(), "second".into(), ttl)
        .await
        .unwrap());

    // An expired name (its process died) is free; its old holder cannot
    // renew it any more.
    let short = Duration::from_millis(1);
    assert_eq!(
        db.claim_node("n3".into(), "dead".into(), short)
            .await
            .unwrap(),
        NodeClaim::Held
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(
        db.claim_node("n3".into(), "new".into(), ttl).await.unwrap(),
        NodeClaim::Held
    );
    assert!(!db
        .renew_node("n3".into(), "dead".into(), ttl)
        .await
        .unwrap());

    // Given up, the name is free at once.
    db.release_node("n1".into(), "second".into()).await.unwrap();
    assert!(
        matches!(claim("second").await.unwrap(), NodeClaim::Taken { .. }),
        "not the holder's release"
    );
    db.release_node("n1".into(), "first".into()).await.unwrap();
    assert_eq!(claim("second").await.unwrap(), NodeClaim::Held);
}
on_both!(a_live_node_keeps_its_name);
