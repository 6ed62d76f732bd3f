//! The decisions of the storage, made once above the backends: what a
//! finished game writes (placings, then `ratings::rate` on the ratings locked
//! in the game's last transaction), whom the quick-match queue pairs, whether
//! a stored command log is sound (gapless, its game present), and how stored
//! numbers and names become records (anything out of range is corruption).

use std::collections::BTreeMap;

use super::store::{
    Claim, GameRows, ModerationStore, QueueStore, ResultRow, ResultsTx, StoredRoom,
};
use super::{
    CommandRecord, DbError, GameRecord, GameResults, RoomRecord, SeatKind, SeatRecord, StoredGame,
    Waiting,
};
use crate::ratings::{self, Rating};

// ----- commands and results ------------------------------------------------------

/// A command may be stored: its sequence number fits the log's column.
pub(crate) fn check_command(record: &CommandRecord) -> Result<(), DbError> {
    match i64::try_from(record.seq) {
        Ok(_) => Ok(()),
        Err(_) => Err(DbError::Corrupt(format!("command number {}", record.seq))),
    }
}

/// The same two people count at most this many rated games against each
/// other in [`PAIR_WINDOW_MS`]; a game past it is stored unrated.
pub const PAIR_GAMES: u32 = 3;

/// The pair limit's window: the last 24 hours (rolling), by the server's
/// clock.
pub const PAIR_WINDOW_MS: i64 = 24 * 60 * 60 * 1000;

/// A finished game's result rows and, when it is rated, its people's new
/// ratings, written through `tx`: the transaction of the game's last command,
/// after its fence. A person alone (among bots) has nobody to be rated
/// against: nothing of their rating is read, created or changed. A game
/// whose people include a pair that has already played [`PAIR_GAMES`] rated
/// games in the window is stored unrated (every pair, so that a room of
/// many seats cannot carry a pair past the limit).
pub(crate) async fn store_results<T: ResultsTx>(
    tx: &mut T,
    game_id: i64,
    at_ms: i64,
    results: &GameResults,
) -> Result<(), DbError> {
    let placings = results.placings();
    let mut before = BTreeMap::new();
    let mut after = BTreeMap::new();
    if results.rated && placings.len() >= 2 {
        let players: Vec<i64> = placings.keys().copied().collect();
        let locked = tx.lock_ratings(&players, &results.preset, at_ms).await?;
        let pairs = pairs_of(&players);
        let played = tx
            .rated_games_of_pairs(&pairs, at_ms - PAIR_WINDOW_MS)
            .await?;
        if played.iter().all(|&games| games < PAIR_GAMES) {
            before = locked;
            after = ratings::rate(&placings, &before);
            tx.write_ratings(&results.preset, at_ms, &after).await?;
            tx.write_rated_pairs(game_id, &results.preset, at_ms, &pairs)
                .await?;
        }
    }
    tx.write_results(game_id, &result_rows(results, &before, &after))
        .await
}

/// Every pair of distinct people, each as `(smaller id, larger id)`.
fn pairs_of(players: &[i64]) -> Vec<(i64, i64)> {
    let mut people = players.to_vec();
    people.sort_unstable();
    people.dedup();
    let mut pairs = Vec::new();
    for (index, &a) in people.iter().enumerate() {
        for &b in &people[index + 1..] {
            pairs.push((a, b));
        }
    }
    pairs
}

/// Each seat's result row: placing, and its person's rating change if the
/// game changed it.
fn result_rows(
    results: &GameResults,
    before: &BTreeMap<i64, Rating>,
    after: &BTreeMap<i64, Rating>,
) -> Vec<ResultRow> {
    results
        .seats
        .iter()
        .map(|seat| {
            let change = seat.rating_change(before, after);
            ResultRow {
                seat: seat.seat,
                player_id: seat.player_id,
                placing: seat.placing,
                rating_before: change.map(|c| c.0),
                rating_after: change.map(|c| c.1),
            }
        })
        .collect()
}

// ----- the quick-match queue -----------------------------------------------------

/// If `me` still waits (from `conn`), pairs them with whoever has waited
/// longest for the same preset (ties: the smaller player id), taking both out
/// of the queue at once; answers the preset and the partner. A candidate
/// somebody else is pairing right now is passed over for the next; if `me`
/// is taken meanwhile, nobody is paired. Two people of whom one blocks the
/// other are never paired.
pub(crate) async fn take_partner<S: QueueStore + ModerationStore>(
    store: &S,
    me: i64,
    conn: u64,
) -> Result<Option<(String, Waiting)>, DbError> {
    let Some((preset, mut queued)) = store.queued_with(me, conn).await? else {
        return Ok(None);
    };
    queued.retain(|q| q.waiting.player_id != me);
    let others: Vec<i64> = queued.iter().map(|q| q.waiting.player_id).collect();
    let blocked = if others.is_empty() {
        Vec::new()
    } else {
        store.blocked_either_way(me, others).await?
    };
    queued.retain(|q| !blocked.contains(&q.waiting.player_id));
    queued.sort_by_key(|q| (q.since_ms, q.waiting.player_id));
    for candidate in queued {
        match store
            .claim_pair(me, conn, &preset, candidate.waiting.player_id)
            .await?
        {
            Claim::Paired(partner) => return Ok(Some((preset, partner))),
            Claim::NotWaiting => return Ok(None),
            Claim::PartnerTaken => {}
        }
    }
    Ok(None)
}

// ----- reading games back --------------------------------------------------------

/// The log must be gapless (its sequence numbers 1, 2, 3, …): a missing
/// command would replay into another game.
pub(crate) fn check_gapless(id: i64, seqs: impl Iterator<Item = i64>) -> Result<(), DbError> {
    for (expected, seq) in (1i64..).zip(seqs) {
        if seq != expected {
            return Err(DbError::Corrupt(format!(
                "game {id}: command {expected} is missing"
            )));
        }
    }
    Ok(())
}

/// A room and its current game, checked: the game the room points at must
/// exist and its log be gapless.
pub(crate) fn room_and_game(
    stored: StoredRoom,
) -> Result<(RoomRecord, Option<GameRecord>), DbError> {
    let game = match (stored.game_id, stored.game) {
        (None, _) => None,
        (Some(id), None) => return Err(DbError::Corrupt(format!("game {id} is missing"))),
        (Some(_), Some(rows)) => Some(current_game(rows)?),
    };
    Ok((stored.room, game))
}

/// A room's current game: its deadline is the last command's (the game's own
/// until the first).
fn current_game(rows: GameRows) -> Result<GameRecord, DbError> {
    check_gapless(rows.id, rows.log.iter().map(|logged| logged.seq))?;
    let deadline_ms = match rows.log.last() {
        Some(last) => last.deadline_ms,
        None => rows.deadline_ms,
    };
    Ok(GameRecord {
        id: rows.id,
        number: rows.number,
        setup: rows.setup,
        deadline_ms,
        commands: rows.log.into_iter().map(|logged| logged.command).collect(),
    })
}

/// A game read by its id, checked: gapless; a finished game ended when it was
/// last written.
pub(crate) fn stored_game(rows: GameRows) -> Result<StoredGame, DbError> {
    check_gapless(rows.id, rows.log.iter().map(|logged| logged.seq))?;
    Ok(StoredGame {
        id: rows.id,
        room_code: rows.room_code,
        number: rows.number,
        setup: rows.setup,
        commands: rows.log.into_iter().map(|logged| logged.command).collect(),
        finished: rows.finished,
        finished_ms: rows.finished.then_some(rows.updated_ms),
    })
}

// ----- stored values -------------------------------------------------------------

/// A stored count or rank (game number, games, wins, a placing, a count).
pub(crate) fn small(value: i64, what: &str) -> Result<u32, DbError> {
    u32::try_from(value).map_err(|_| DbError::Corrupt(format!("{what} {value}")))
}

/// A stored non-negative number as an index (seat, host); a negative one is 0.
pub(crate) fn index(value: i64) -> usize {
    usize::try_from(value).unwrap_or(0)
}

/// A `LIMIT` for SQL.
pub(crate) fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// A rating from its stored columns.
pub(crate) fn stored_rating(
    rating: f64,
    deviation: f64,
    volatility: f64,
    games: i64,
    wins: i64,
) -> Result<Rating, DbError> {
    Ok(Rating {
        rating,
        deviation,
        volatility,
        games: small(games, "games")?,
        wins: small(wins, "wins")?,
        opponents: 0,
    })
}

/// A seat from its stored columns.
pub(crate) fn stored_seat(
    kind: &str,
    player_id: Option<i64>,
    nickname: Option<String>,
    level: Option<String>,
    account: bool,
) -> Result<SeatRecord, DbError> {
    Ok(SeatRecord {
        kind: SeatKind::from_stored(kind)?,
        player_id,
        nickname,
        level,
        account,
    })
}

#[cfg(test)]
mod tests {
    use super::super::store::Logged;
    use super::super::SeatResult;
    use super::*;

    fn rows(seqs: &[i64]) -> GameRows {
        GameRows {
            id: 7,
            room_code: "QWERTY".into(),
            number: 1,
            setup: "{}".into(),
            deadline_ms: Some(5),
            finished: false,
            updated_ms: 9,
            log: seqs
                .iter()
                .map(|&seq| Logged {
                    seq,
                    command: format!("{seq}"),
                    deadline_ms: Some(100 + seq),
                })
                .collect(),
        }
    }

    fn room() -> RoomRecord {
        RoomRecord {
            code: "QWERTY".into(),
            setup: "{}".into(),
            host: 0,
            seats: Vec::new(),
            game_number: 1,
            phase: "battle".into(),
            to_move: "[]".into(),
            public: false,
        }
    }

    #[test]
    fn a_log_with_a_gap_or_a_missing_game_is_corrupt() {
        let stored = |game_id, game| StoredRoom {
            room: room(),
            game_id,
            game,
        };
        let (_, game) = room_and_game(stored(Some(7), Some(rows(&[1, 2])))).unwrap();
        let game = game.unwrap();
        assert_eq!(game.commands, ["1", "2"]);
        assert_eq!(game.deadline_ms, Some(102), "the last command's");
        let (_, game) = room_and_game(stored(Some(7), Some(rows(&[])))).unwrap();
        assert_eq!(game.unwrap().deadline_ms, Some(5), "the game's own");
        assert!(room_and_game(stored(None, None)).unwrap().1.is_none());
        for (broken, says) in [
            (stored(Some(7), Some(rows(&[1, 3]))), "command 2 is missing"),
            (stored(Some(7), Some(rows(&[2]))), "command 1 is missing"),
            (stored(Some(8), None), "game 8 is missing"),
        ] {
            match room_and_game(broken) {
                Err(DbError::Corrupt(message)) => assert!(message.contains(says), "{message}"),
                other => panic!("{says}: not {other:?}"),
            }
        }
        assert!(matches!(
            stored_game(rows(&[1, 1])),
            Err(DbError::Corrupt(_))
        ));
        let finished = GameRows {
            finished: true,
            ..rows(&[1])
        };
        assert_eq!(stored_game(finished).unwrap().finished_ms, Some(9));
        assert_eq!(stored_game(rows(&[1])).unwrap().finished_ms, None);
    }

    #[test]
    fn stored_values_out_of_range_are_corrupt() {
        assert!(matches!(small(-1, "games"), Err(DbError::Corrupt(_))));
        assert!(matches!(
            small(i64::from(u32::MAX) + 1, "wins"),
            Err(DbError::Corrupt(_))
        ));
        assert_eq!(index(-3), 0);
        assert_eq!(SeatKind::from_stored("bot").unwrap(), SeatKind::Bot);
        assert!(matches!(
            stored_seat("robot", None, None, None, false),
            Err(DbError::Corrupt(_))
        ));
        let record = CommandRecord {
            room_code: "QWERTY".into(),
            game_id: 1,
            seq: u64::MAX,
            command: "{}".into(),
            at_ms: 0,
            deadline_ms: None,
            phase: "battle",
            to_move: "[]".into(),
            finished: false,
            summary_changed: false,
            results: None,
        };
        assert!(matches!(check_command(&record), Err(DbError::Corrupt(_))));
    }

    /// Records what `store_results` asks of a transaction.
    #[derive(Default)]
    struct Recorder {
        /// The rated games every pair has played in the window already.
        played: u32,
        pairs: Vec<(i64, i64)>,
        locked: Vec<i64>,
        ratings: BTreeMap<i64, Rating>,
        results: Vec<ResultRow>,
    }

    impl ResultsTx for Recorder {
        async fn lock_ratings(
            &mut self,
            players: &[i64],
            _preset: &str,
            _at_ms: i64,
        ) -> Result<BTreeMap<i64, Rating>, DbError> {
            self.locked.extend(players);
            Ok(players.iter().map(|&p| (p, Rating::default())).collect())
        }

        async fn write_ratings(
            &mut self,
            _preset: &str,
            _at_ms: i64,
            ratings: &BTreeMap<i64, Rating>,
        ) -> Result<(), DbError> {
            self.ratings.extend(ratings);
            Ok(())
        }

        async fn rated_games_of_pairs(
            &mut self,
            pairs: &[(i64, i64)],
            _since_ms: i64,
        ) -> Result<Vec<u32>, DbError> {
            Ok(pairs.iter().map(|_| self.played).collect())
        }

        async fn write_rated_pairs(
            &mut self,
            _game_id: i64,
            _preset: &str,
            _at_ms: i64,
            pairs: &[(i64, i64)],
        ) -> Result<(), DbError> {
            self.pairs.extend_from_slice(pairs);
            Ok(())
        }

        async fn write_results(
            &mut self,
            _game_id: i64,
            rows: &[ResultRow],
        ) -> Result<(), DbError> {
            self.results.extend_from_slice(rows);
            Ok(())
        }
    }

    fn results(rated: bool, people: &[Option<i64>]) -> GameResults {
        GameResults {
            preset: "classic".into(),
            rated,
            seats: people
                .iter()
                .enumerate()
                .map(|(seat, &player_id)| SeatResult {
                    seat,
                    player_id,
                    placing: seat as u32 + 1,
                })
                .collect(),
        }
    }

    fn store(results: &GameResults) -> Recorder {
        store_after(results, 0)
    }

    fn store_after(results: &GameResults, played: u32) -> Recorder {
        use futures_util::FutureExt;
        let mut tx = Recorder {
            played,
            ..Recorder::default()
        };
        store_results(&mut tx, 1, 2, results)
            .now_or_never()
            .expect("the recorder never waits")
            .unwrap();
        tx
    }

    #[test]
    fn results_rate_people_only_against_people() {
        let duel = store(&results(true, &[Some(3), Some(4)]));
        assert_eq!(duel.locked, [3, 4]);
        assert_eq!(duel.pairs, [(3, 4)]);
        assert_eq!(duel.ratings.len(), 2);
        assert_eq!(duel.results[0].rating_before, Some(1500.0));
        assert_eq!(duel.results[0].rating_after, Some(duel.ratings[&3].rating));

        // Alone among bots: results, and no rating touched.
        let alone = store(&results(true, &[Some(3), None]));
        assert!(alone.locked.is_empty() && alone.ratings.is_empty());
        assert_eq!(alone.results.len(), 2);
        assert_eq!(alone.results[1].player_id, None);
        assert_eq!(alone.results[0].rating_after, None);

        // Unrated: results only.
        let friendly = store(&results(false, &[Some(3), Some(4)]));
        assert!(friendly.locked.is_empty() && friendly.ratings.is_empty());
        assert_eq!(friendly.results.len(), 2);
    }

    #[test]
    fn a_pair_past_its_daily_games_is_stored_unrated() {
        let third = store_after(&results(true, &[Some(3), Some(4)]), PAIR_GAMES - 1);
        assert_eq!(third.ratings.len(), 2, "the third game of the day counts");
        let fourth = store_after(&results(true, &[Some(3), Some(4)]), PAIR_GAMES);
        assert!(fourth.ratings.is_empty() && fourth.pairs.is_empty());
        assert_eq!(fourth.results.len(), 2);
        assert_eq!(fourth.results[0].rating_before, None, "no change shown");
        assert_eq!(pairs_of(&[5, 3, 4]), [(3, 4), (3, 5), (4, 5)]);
    }
}
