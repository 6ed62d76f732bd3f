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

    // One game, one opponent: provisional, off the leaderboard.
    assert!(db
        .leaderboard("classic".into(), 10)
        .await
        .unwrap()
        .is_empty());
    let ratings = db
        .ratings(vec![ana, bea, cy], "classic".into())
        .await
        .unwrap();
    assert_eq!(ratings.keys().copied().collect::<Vec<_>>(), [ana, bea]);
    assert!(ratings[&ana].rating > ratings[&bea].rating);
    assert_eq!((ratings[&ana].games, ratings[&ana].wins), (1, 1));
    assert_eq!((ratings[&bea].games, ratings[&bea].wins), (1, 0));
    assert_eq!((ratings[&ana].opponents, ratings[&bea].opponents), (1, 1));
    assert!(ratings[&ana].provisional());

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
    // (Each pair plays at most its three rated games of the day.)
    let mut lasts = Vec::new();
    for (n, two) in [
        [ana, bea],
        [cy, dee],
        [ana, cy],
        [bea, dee],
        [ana, dee],
        [bea, cy],
    ]
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
    let met: Vec<u32> = ratings.values().map(|r| r.opponents).collect();
    assert_eq!(met, [3, 3, 3, 3]);
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

/// The same two people count at most `PAIR_GAMES` rated games in a day: the
/// next is stored with its placings and no rating change, and the pair is
/// counted again once the first of those games is a day old.
async fn a_pair_counts_three_rated_games_a_day(fresh: Fresh) {
    use crate::db::decisions::{PAIR_GAMES, PAIR_WINDOW_MS};
    let db = &fresh.db;
    let ids = people(db, &["Ana", "Bea"]).await;
    let two = [ids[0], ids[1]];
    let play = |n: u32, at_ms: i64| async move {
        let code = format!("PAIR{n:02}");
        let (lease, game_id) = duel(db, &code, two, TTL).await;
        let mut last = last_command(&code, game_id, two, two[0], true);
        last.at_ms = at_ms;
        db.record_command(last, &lease).await.unwrap();
        db.history(two[1], 1).await.unwrap().remove(0)
    };
    for n in 0..PAIR_GAMES {
        let game = play(n, 1_000 + i64::from(n)).await;
        assert!(game.rating_after.is_some(), "game {n} is rated");
    }
    let before = db.ratings(two.to_vec(), "classic".into()).await.unwrap();
    let past = play(PAIR_GAMES, 2_000).await;
    assert_eq!((past.rating_before, past.rating_after), (None, None));
    assert_eq!(past.placing, 2, "the placings are stored all the same");
    let after = db.ratings(two.to_vec(), "classic".into()).await.unwrap();
    assert_eq!(before, after, "no rating changed");
    // A day after the first: one game of the three has left the window.
    let later = play(PAIR_GAMES + 1, 1_000 + PAIR_WINDOW_MS).await;
    assert!(later.rating_after.is_some());
}
on_both!(a_pair_counts_three_rated_games_a_day);

/// The leaderboard lists a rating only once it is no longer provisional:
/// a deviation of at most 110 and five different opponents met. (Ana plays
/// each of four people three times a day for two days, winning every other
/// game: her deviation falls to about 93.)
async fn the_leaderboard_needs_five_opponents_and_a_sure_rating(fresh: Fresh) {
    use crate::db::decisions::PAIR_WINDOW_MS;
    use crate::ratings::{MIN_OPPONENTS, PROVISIONAL_DEVIATION};
    let db = &fresh.db;
    let ids = people(db, &["Ana", "Bea", "Cy", "Dee", "Eve", "Fay"]).await;
    let ana = ids[0];
    let play = |n: i64, other: i64, at_ms: i64| async move {
        let code = format!("BOARD{n:02}");
        let (lease, game_id) = duel(db, &code, [ana, other], TTL).await;
        let winner = if n % 2 == 0 { ana } else { other };
        let mut last = last_command(&code, game_id, [ana, other], winner, true);
        last.at_ms = at_ms;
        db.record_command(last, &lease).await.unwrap();
    };
    let mut n = 0;
    for day in 0..2 {
        for &other in &ids[1..5] {
            for _ in 0..3 {
                play(n, other, 1_000 + day * PAIR_WINDOW_MS + n).await;
                n += 1;
            }
        }
    }
    let sure = db.ratings(vec![ana], "classic".into()).await.unwrap()[&ana];
    assert_eq!(sure.games, 24, "every game rated");
    assert!(sure.deviation <= PROVISIONAL_DEVIATION, "{sure:?}");
    assert_eq!(sure.opponents, MIN_OPPONENTS - 1);
    assert!(sure.provisional());
    assert!(
        db.leaderboard("classic".into(), 10)
            .await
            .unwrap()
            .is_empty(),
        "four opponents are not enough"
    );
    play(n, ids[5], 1_000 + 2 * PAIR_WINDOW_MS).await;
    let board = db.leaderboard("classic".into(), 10).await.unwrap();
    let names: Vec<&str> = board.iter().map(|r| r.nickname.as_str()).collect();
    assert_eq!(names, ["Ana"], "the others met one person each");
    assert_eq!(board[0].rating.opponents, MIN_OPPONENTS);
    assert!(!board[0].rating.provisional());
}
on_both!(the_leaderboard_needs_five_opponents_and_a_sure_rating);
