//! The contract: what a game's last command stores with it (placings, and
//! when rated, the ratings `decisions::store_results` computes).

use std::sync::Arc;

use super::{duel, last_command, last_command_of, lobby, people, seat, start, Fresh, TTL};
use crate::db::{Db, RoomRecord, SeatKind};
use crate::ratings::Rating;

/// Each rated game's rating change of `player` must start where another
/// ended (from 1500 on), and the last end at the stored rating: no update
/// was lost.
async fn assert_ratings_chain(db: &Db, player: i64, games: usize) {
    let mut changes: Vec<(f64, f64)> = db
        .history(player, 100)
        .await
        .unwrap()
        .iter()
        .filter_map(|game| Some((game.rating_before?, game.rating_after?)))
        .collect();
    assert_eq!(changes.len(), games);
    let mut rating = Rating::default().rating;
    while let Some(next) = changes.iter().position(|c| c.0 == rating) {
        rating = changes.swap_remove(next).1;
    }
    assert!(changes.is_empty(), "changes not chained: {changes:?}");
    let stored = db.ratings(vec![player], "classic".into()).await.unwrap()[&player];
    assert_eq!(stored.rating, rating);
    assert_eq!(stored.games as usize, games);
}

async fn a_finishing_command_writes_the_results_and_ratings_with_it(fresh: Fresh) {
    let db = &fresh.db;
    let ids = people(db, &["Ana", "Bea", "Cy", "Dee"]).await;
    let [ana, bea, cy, dee] = ids[..] else {
        unreachable!()
    };
    let (lease, game_id) = duel(db, "RATED1", [ana, bea], TTL).await;
    db.record_command(
        last_command("RATED1", game_id, [ana, bea], ana, true),
        &lease,
    )
    .await
    .unwrap();
    let (room, _) = db.load_room("RATED1".into()).await.unwrap().unwrap();
    assert_eq!(room.phase, "finished");

    let board = db.leaderboard("classic".into(), 10).await.unwrap();
    let names: Vec<&str> = board.iter().map(|r| r.nickname.as_str()).collect();
    assert_eq!(names, ["Ana", "Bea"]);
    assert!(board[0].rating.rating > board[1].rating.rating);
    assert_eq!((board[0].rating.games, board[0].rating.wins), (1, 1));
    assert_eq!((board[1].rating.games, board[1].rating.wins), (1, 0));
    assert_eq!(db.leaderboard("classic".into(), 1).await.unwrap().len(), 1);
    assert!(db.leaderboard("other".into(), 10).await.unwrap().is_empty());
    let ratings = db
        .ratings(vec![ana, bea, cy], "classic".into())
        .await
        .unwrap();
    assert_eq!(ratings.keys().copied().collect::<Vec<_>>(), [ana, bea]);
    assert_eq!(ratings[&ana], board[0].rating);

    let won = &db.history(ana, 10).await.unwrap()[0];
    assert_eq!((won.game_id, won.code.as_str()), (game_id, "RATED1"));
    assert_eq!((won.placing, won.seats, won.firsts), (1, 2, 1));
    assert_eq!(won.finished_ms, 3);
    assert_eq!(won.rating_before, Some(1500.0));
    assert_eq!(won.rating_after, Some(ratings[&ana].rating));
    let lost = &db.history(bea, 10).await.unwrap()[0];
    assert_eq!(lost.placing, 2);
    assert_eq!(lost.rating_before, Some(1500.0));
    assert!(lost.rating_after < lost.rating_before);

    // An unrated game: results without ratings.
    let (lease, friendly) = duel(db, "FRIEND", [ana, bea], TTL).await;
    db.record_command(
        last_command("FRIEND", friendly, [ana, bea], bea, false),
        &lease,
    )
    .await
    .unwrap();
    let history = db.history(bea, 10).await.unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(
        (history[0].game_id, history[0].placing),
        (friendly, 1),
        "newest first"
    );
    assert_eq!(
        (history[0].rating_before, history[0].rating_after),
        (None, None)
    );
    assert_eq!(db.history(bea, 1).await.unwrap().len(), 1);
    assert_eq!(
        db.ratings(vec![ana, bea], "classic".into()).await.unwrap(),
        ratings,
        "unchanged"
    );

    // Games that end at once for the same people lose no update: neither
    // for rated people (Ana, Bea) nor for their first rated games (Cy, Dee).
    let mut lasts = Vec::new();
    for (n, two) in [[ana, bea], [cy, dee]]
        .into_iter()
        .cycle()
        .take(8)
        .enumerate()
    {
        let code = format!("RACE{n:02}");
        let (lease, game_id) = duel(db, &code, two, TTL).await;
        lasts.push((
            last_command(&code, game_id, two, two[n / 2 % 2], true),
            lease,
        ));
    }
    let start = Arc::new(tokio::sync::Barrier::new(lasts.len()));
    let mut ends = Vec::new();
    for (record, lease) in lasts {
        let (db, start) = (db.clone(), start.clone());
        ends.push(tokio::spawn(async move {
            start.wait().await;
            db.record_command(record, &lease).await
        }));
    }
    for end in ends {
        end.await
            .unwrap()
            .expect("every finishing command is stored");
    }
    assert_ratings_chain(db, ana, 5).await;
    assert_ratings_chain(db, bea, 5).await;
    assert_ratings_chain(db, cy, 4).await;
    assert_ratings_chain(db, dee, 4).await;
    let ratings = db.ratings(ids, "classic".into()).await.unwrap();
    let wins: Vec<u32> = ratings.values().map(|r| r.wins).collect();
    assert_eq!(wins, [3, 2, 2, 2], "Ana, Bea, Cy, Dee");
}
on_both!(
    a_finishing_command_writes_the_results_and_ratings_with_it,
    flavor = "multi_thread",
    worker_threads = 2
);

/// A rated game of one person against bots stores the placings but creates
/// and changes no rating: the person had nobody to be rated against.
async fn a_person_alone_among_bots_is_not_rated(fresh: Fresh) {
    let db = &fresh.db;
    let ana = people(db, &["Ana"]).await[0];
    let room = RoomRecord {
        seats: vec![
            seat(SeatKind::Person, Some(ana), None),
            seat(SeatKind::Bot, None, Some("easy")),
            seat(SeatKind::Bot, None, Some("hard")),
        ],
        ..lobby("ALONE1", ana)
    };
    let (lease, game_id) = start(db, room, TTL).await;
    let last = last_command_of("ALONE1", game_id, &[Some(ana), None, None], 0, true);
    db.record_command(last, &lease).await.unwrap();
    let history = db.history(ana, 10).await.unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!((history[0].placing, history[0].seats), (1, 3));
    assert_eq!(
        (history[0].rating_before, history[0].rating_after),
        (None, None)
    );
    assert!(db
        .ratings(vec![ana], "classic".into())
        .await
        .unwrap()
        .is_empty());
    assert!(
        db.leaderboard("classic".into(), 10)
            .await
            .unwrap()
            .is_empty(),
        "no rating row, not even a starting one"
    );
}
on_both!(a_person_alone_among_bots_is_not_rated);
