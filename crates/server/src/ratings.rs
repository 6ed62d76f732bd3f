//! Ratings: Glicko-2 (the `skillratings` crate), one rating per preset.
//!
//! A rated game between people updates the rating of each person who played
//! it. Every game counts as a set of pairwise results by final placing: each
//! person wins against every person placed below them, loses against every
//! person placed above them and draws with those placed alike (team-mates, or
//! seats eliminated by the same move). Bots take no part: their seats are
//! left out of the pairs. All of a game's results form one rating period, so
//! the order of the pairs does not matter.

use std::collections::BTreeMap;

use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// A rating deviation above this marks a rating as provisional (too few
/// games to trust it), as lichess does.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// A rating stays provisional, and off the leaderboard, until its person
/// has met this many different people in rated games of the preset (so
/// that a pair of tokens cannot put one of them on top).
pub const MIN_OPPONENTS: u32 = 5;

/// One person's rating in one preset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub games: u32,
    pub wins: u32,
    /// Different people met in rated games of the preset, as read (from
    /// the rated pairs; not a stored column, and not changed by `rate`).
    pub opponents: u32,
}

impl Default for Rating {
    fn default() -> Self {
        let start = Glicko2Rating::new();
        Rating {
            rating: start.rating,
            deviation: start.deviation,
            volatility: start.volatility,
            games: 0,
            wins: 0,
            opponents: 0,
        }
    }
}

impl Rating {
    /// Too new to trust: shown as provisional and left off the leaderboard.
    pub fn provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION || self.opponents < MIN_OPPONENTS
    }

    fn glicko(&self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }
}

/// The ratings after a game: `placings` maps each person to their placing
/// (1 is first), `before` holds their ratings before the game (missing: a
/// first game). People who had nobody to play against are left out.
pub fn rate(
    placings: &BTreeMap<i64, u32>,
    before: &BTreeMap<i64, Rating>,
) -> BTreeMap<i64, Rating> {
    let config = Glicko2Config::new();
    let rating_of = |player: &i64| before.get(player).copied().unwrap_or_default();
    let mut after = BTreeMap::new();
    for (&player, &placing) in placings {
        let results: Vec<(Glicko2Rating, Outcomes)> = placings
            .iter()
            .filter(|&(&other, _)| other != player)
            .map(|(other, &theirs)| {
                let outcome = match placing.cmp(&theirs) {
                    std::cmp::Ordering::Less => Outcomes::WIN,
                    std::cmp::Ordering::Greater => Outcomes::LOSS,
                    std::cmp::Ordering::Equal => Outcomes::DRAW,
                };
                (rating_of(other).glicko(), outcome)
            })
            .collect();
        if results.is_empty() {
            continue;
        }
        let old = rating_of(&player);
        let new = glicko2_rating_period(&old.glicko(), &results, &config);
        let won = results.iter().any(|(_, o)| *o == Outcomes::WIN) && placing == 1;
        after.insert(
            player,
            Rating {
                rating: new.rating,
                deviation: new.deviation,
                volatility: new.volatility,
                games: old.games + 1,
                wins: old.wins + u32::from(won),
                opponents: old.opponents,
            },
        );
    }
    after
}

/// Each seat's final placing (1 is first): the winners (a team wins
/// together; in a draw every seat still in the game) first, then the seats
/// that lost at the very end, then the seats knocked out earlier, the later
/// out the better. `out` lists the seats knocked out, one group per move that
/// knocked them out, in order; seats of one group share their placing.
pub fn placings(seats: usize, winners: &[usize], out: &[Vec<usize>]) -> Vec<u32> {
    let knocked_out: Vec<usize> = out.iter().flatten().copied().collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let first: Vec<usize> = if winners.is_empty() {
        (0..seats).filter(|s| !knocked_out.contains(s)).collect()
    } else {
        winners.to_vec()
    };
    let last: Vec<usize> = (0..seats)
        .filter(|s| !first.contains(s) && !knocked_out.contains(s))
        .collect();
    groups.push(first);
    groups.push(last);
    for group in out.iter().rev() {
        let group: Vec<usize> = group
            .iter()
            .copied()
            .filter(|s| !groups[0].contains(s))
            .collect();
        groups.push(group);
    }
    let mut placing = vec![0; seats];
    let mut placed = 0u32;
    for group in groups.into_iter().filter(|g| !g.is_empty()) {
        for &seat in &group {
            if seat < seats {
                placing[seat] = placed + 1;
            }
        }
        placed += group.len() as u32;
    }
    placing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placings_follow_the_order_of_elimination() {
        // A duel: the winner, then the loser (no elimination event needed).
        assert_eq!(placings(2, &[1], &[]), vec![2, 1]);
        // Four seats: 3 out first, then 0 and 2 together, 1 wins.
        assert_eq!(placings(4, &[1], &[vec![3], vec![0, 2]]), vec![2, 1, 2, 4]);
        // Teams: 0 and 2 win together; 3 out first, 1 lost at the end.
        assert_eq!(placings(4, &[0, 2], &[vec![3]]), vec![1, 3, 1, 4]);
        // A draw: everybody still in shares the first place.
        assert_eq!(placings(3, &[], &[vec![2]]), vec![1, 1, 3]);
    }

    #[test]
    fn the_winner_of_a_duel_gains_what_the_loser_loses() {
        let placings = BTreeMap::from([(1, 1), (2, 2)]);
        let after = rate(&placings, &BTreeMap::new());
        let (ana, bea) = (after[&1], after[&2]);
        assert!(ana.rating > 1500.0 && bea.rating < 1500.0);
        assert!(((ana.rating - 1500.0) + (bea.rating - 1500.0)).abs() < 1e-6);
        assert!(ana.deviation < 350.0, "a game makes the rating surer");
        assert_eq!((ana.games, ana.wins, bea.games, bea.wins), (1, 1, 1, 0));
    }

    #[test]
    fn placings_count_pairwise_and_ties_draw() {
        // Four people: one winner, two eliminated together, one first out.
        let placings = BTreeMap::from([(1, 1), (2, 2), (3, 2), (4, 4)]);
        let after = rate(&placings, &BTreeMap::new());
        assert!(after[&1].rating > after[&2].rating);
        assert!((after[&2].rating - after[&3].rating).abs() < 1e-9);
        assert!(after[&3].rating > after[&4].rating);
        assert_eq!(after[&2].wins, 0, "only the first place wins");
    }

    #[test]
    fn a_person_alone_among_bots_is_not_rated() {
        let after = rate(&BTreeMap::from([(7, 1)]), &BTreeMap::new());
        assert!(after.is_empty());
    }

    #[test]
    fn beating_a_stronger_player_gains_more() {
        let strong = Rating {
            rating: 1800.0,
            deviation: 60.0,
            ..Rating::default()
        };
        let weak = Rating {
            rating: 1400.0,
            deviation: 60.0,
            ..Rating::default()
        };
        let upset = rate(
            &BTreeMap::from([(1, 1), (2, 2)]),
            &BTreeMap::from([(1, weak), (2, strong)]),
        );
        let expected = rate(
            &BTreeMap::from([(1, 2), (2, 1)]),
            &BTreeMap::from([(1, weak), (2, strong)]),
        );
        let gain = upset[&1].rating - weak.rating;
        let other_gain = expected[&2].rating - strong.rating;
        assert!(gain > other_gain, "{gain} against {other_gain}");
    }
}
