//! The contract: the quick-match queue, and whom `decisions::take_partner`
//! pairs.

use std::sync::Arc;

use super::{people, waiting, Fresh};

async fn take_partner_pairs_two_and_never_three(fresh: Fresh) {
    let db = &fresh.db;
    let ids = people(db, &["Ana", "Bea", "Cy", "Dee"]).await;
    let [ana, bea, cy, dee] = ids[..] else {
        unreachable!()
    };
    db.enqueue(waiting(dee, "n2", 40), "other".into(), 0)
        .await
        .unwrap();
    for (since, (id, conn)) in [(ana, 10), (bea, 20), (cy, 30)].into_iter().enumerate() {
        db.enqueue(waiting(id, "n1", conn), "classic".into(), since as i64)
            .await
            .unwrap();
    }
    assert_eq!(db.waiting("classic".into()).await.unwrap(), 3);
    assert_eq!(
        db.take_partner(cy, 99).await.unwrap(),
        None,
        "another tab's"
    );
    assert_eq!(
        db.take_partner(cy, 30).await.unwrap(),
        Some(("classic".into(), waiting(ana, "n1", 10))),
        "the longest waiting"
    );
    assert_eq!(db.waiting("classic".into()).await.unwrap(), 1);
    assert_eq!(
        db.take_partner(ana, 10).await.unwrap(),
        None,
        "Ana is taken"
    );
    assert_eq!(
        db.take_partner(bea, 20).await.unwrap(),
        None,
        "nobody else waits for classic"
    );
    assert_eq!(db.waiting("classic".into()).await.unwrap(), 1);

    // Again from a new tab: the newest connection wins.
    db.enqueue(waiting(bea, "n2", 21), "classic".into(), 5)
        .await
        .unwrap();
    assert_eq!(db.waiting("classic".into()).await.unwrap(), 1);
    assert!(!db.dequeue(bea, 20).await.unwrap(), "not the waiting tab");
    assert_eq!(
        db.waiting("classic".into()).await.unwrap(),
        1,
        "an old tab's"
    );
    assert!(db.dequeue(bea, 21).await.unwrap(), "the waiting tab");
    assert_eq!(db.waiting("classic".into()).await.unwrap(), 0);
    assert!(!db.dequeue(bea, 21).await.unwrap(), "gone already");

    db.clear_queue("n1".into()).await.unwrap();
    assert_eq!(db.waiting("other".into()).await.unwrap(), 1, "n2's");
    db.clear_queue("n2".into()).await.unwrap();
    assert_eq!(db.waiting("other".into()).await.unwrap(), 0);

    // Waiting as long: the one who came first in the players' order.
    for id in [dee, bea, cy] {
        db.enqueue(waiting(id, "n1", id as u64), "classic".into(), 50)
            .await
            .unwrap();
    }
    assert_eq!(
        db.take_partner(dee, dee as u64).await.unwrap(),
        Some(("classic".into(), waiting(bea, "n1", bea as u64))),
        "ties go to the smaller id"
    );
    // Waiting for another preset now: paired within that one only.
    db.enqueue(waiting(ana, "n1", 11), "other".into(), 60)
        .await
        .unwrap();
    assert_eq!(db.take_partner(ana, 11).await.unwrap(), None);
    assert_eq!(db.waiting("classic".into()).await.unwrap(), 1, "Cy");
}
on_both!(take_partner_pairs_two_and_never_three);

/// Nodes pairing at once from one queue: each person is paired at most
/// once, and everybody finds a partner in the end.
async fn concurrent_takers_pair_each_person_once(fresh: Fresh) {
    let mut nodes = vec![fresh.db.clone()];
    for _ in 0..2 {
        nodes.push(fresh.another_node().await);
    }
    let names: Vec<String> = (0..12).map(|n| format!("P{n}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let ids = people(&nodes[0], &names).await;
    for round in 0..3 {
        for (since, &id) in ids.iter().enumerate() {
            let node = format!("n{}", since % nodes.len());
            nodes[since % nodes.len()]
                .enqueue(
                    waiting(id, &node, id as u64),
                    "classic".into(),
                    since as i64,
                )
                .await
                .unwrap();
        }
        let start = Arc::new(tokio::sync::Barrier::new(ids.len()));
        let mut takers = Vec::new();
        for (n, &id) in ids.iter().enumerate() {
            let (db, start) = (nodes[n % nodes.len()].clone(), start.clone());
            takers.push(tokio::spawn(async move {
                start.wait().await;
                let taken = db.take_partner(id, id as u64).await.unwrap();
                taken.map(|(preset, partner)| {
                    assert_eq!(preset, "classic");
                    (id, partner.player_id)
                })
            }));
        }
        let mut pairs = Vec::new();
        for taker in takers {
            pairs.extend(taker.await.unwrap());
        }
        let mut paired: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        paired.sort();
        paired.dedup();
        assert_eq!(paired.len(), 2 * pairs.len(), "round {round}: {pairs:?}");
        assert!(!pairs.is_empty(), "round {round}: somebody pairs");
        let queued = nodes[0].waiting("classic".into()).await.unwrap() as usize;
        assert_eq!(queued + paired.len(), ids.len(), "round {round}: {pairs:?}");
        // The rest pair one after the other.
        for &id in &ids {
            if let Some((_, partner)) = nodes[1].take_partner(id, id as u64).await.unwrap() {
                pairs.push((id, partner.player_id));
            }
        }
        let mut paired: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        paired.sort();
        assert_eq!(paired, ids, "round {round}: each once: {pairs:?}");
        assert_eq!(nodes[2].waiting("classic".into()).await.unwrap(), 0);
    }
}
on_both!(
    concurrent_takers_pair_each_person_once,
    flavor = "multi_thread",
    worker_threads = 2
);
