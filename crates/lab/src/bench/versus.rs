//! The tournament behind `broadside-lab bench --versus`: bots of two levels play
//! whole games against each other — shop, placement, battle, abilities — in
//! every preset and mode, and the share of games each level wins is counted.
//!
//! Seats alternate between the two levels and swap every game, so neither
//! level keeps the first move or a seat's team; a game's seed depends only on
//! the run's seed and the game's index, so every pairing meets the same games.

use broadside_engine::{Game, Options, Phase, Preset, Report, SalvoMode, Setup};
use serde::Serialize;

use broadside_ai::{Bot, Level};

use super::{apply, game_seed, parallel_map, BenchError};

/// One kind of game of the tournament.
#[derive(Clone, Debug)]
pub struct Arena {
    /// A short stable name ("duel", "brasil-hard", "salvo-focus-6", …).
    pub id: &'static str,
    pub preset: Preset,
    pub seats: usize,
    pub options: Options,
    /// The team of each seat, when teams play.
    pub teams: Option<Vec<u32>>,
}

/// Every mode the rule book has, as the tournament plays it.
pub fn arenas() -> Vec<Arena> {
    let arena = |id, preset, seats, options, teams| Arena {
        id,
        preset,
        seats,
        options,
        teams,
    };
    let salvo = |mode| Options {
        salvo: Some(mode),
        ..Options::default()
    };
    vec![
        arena("duel", Preset::Classic, 2, Options::default(), None),
        arena("hasbro", Preset::Hasbro, 2, Options::default(), None),
        arena("brasil-easy", Preset::Brasil, 2, Options::default(), None),
        arena(
            "brasil-hard",
            Preset::Brasil,
            2,
            Options {
                report: Some(Report::PerVolley),
                ..Options::default()
            },
            None,
        ),
        arena(
            "italia-specials",
            Preset::Italia,
            2,
            Options {
                specials: Some(true),
                ..Options::default()
            },
            None,
        ),
        arena(
            "salvo-spread-4",
            Preset::Classic,
            4,
            salvo(SalvoMode::Spread),
            None,
        ),
        arena(
            "salvo-focus-6",
            Preset::Classic,
            6,
            salvo(SalvoMode::Focus),
            None,
        ),
        arena(
            "teams-2v2",
            Preset::Classic,
            4,
            Options::default(),
            Some(vec![0, 1, 0, 1]),
        ),
        arena("shared-sea-4", Preset::Shared, 4, Options::default(), None),
        arena("space-duel", Preset::Space, 2, Options::default(), None),
        arena("space-4", Preset::Space, 4, Options::default(), None),
    ]
}

/// The arena called `id`.
pub fn arena(id: &str) -> Option<Arena> {
    arenas().into_iter().find(|a| a.id == id)
}

/// Which level plays seat `seat` of game `index`: the levels alternate around
/// the table, and swap every other game.
pub fn seat_level(a: Level, b: Level, seat: usize, index: usize) -> Level {
    if (seat + index) % 2 == 0 {
        a
    } else {
        b
    }
}

/// The outcome of one game for level `a`: 1 when only its seats won, 0 when
/// only the other level's did, the share of winners otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    pub score_a: f64,
    pub moves: usize,
}

/// Plays game `index` of a pairing to its end.
pub fn play(
    arena: &Arena,
    a: Level,
    b: Level,
    seed: u64,
    index: usize,
) -> Result<Outcome, BenchError> {
    let setup = Setup {
        preset: arena.preset,
        seats: arena.seats,
        seed: game_seed(seed, index),
        options: arena.options.clone(),
        teams: arena.teams.clone(),
    };
    let mut game = Game::new(&setup).map_err(BenchError::Setup)?;
    let levels: Vec<Level> = (0..arena.seats)
        .map(|seat| seat_level(a, b, seat, index))
        .collect();
    let mut bots: Vec<Bot> = levels
        .iter()
        .enumerate()
        .map(|(seat, level)| Bot::for_level(*level, game_seed(seed ^ 0x5eed, index * 8 + seat)))
        .collect();
    let limit = game.rules().board.cell_count() * arena.seats * 8 + 200;
    let mut moves = 0;
    while game.phase() != Phase::Finished {
        for seat in game.to_move() {
            if game.phase() == Phase::Finished || !game.to_move().contains(&seat) {
                continue;
            }
            moves += 1;
            if moves > limit {
                return Err(BenchError::Endless(moves));
            }
            let view = game.view(Some(seat));
            let command = bots[seat]
                .next_command(&view, game.rules())
                .ok_or(BenchError::NoMove)?;
            let events = apply(&mut game, command)?;
            for (s, bot) in bots.iter_mut().enumerate() {
                bot.observe(&game.events_for(Some(s), &events));
            }
        }
    }
    let winners = game.winners().unwrap_or(&[]);
    let score_a = if winners.is_empty() {
        0.5
    } else {
        winners.iter().filter(|&&s| levels[s] == a).count() as f64 / winners.len() as f64
    };
    Ok(Outcome { score_a, moves })
}

/// The result of one pairing in one arena.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pairing {
    pub arena: String,
    /// The stronger level claimed (the one above).
    pub a: String,
    pub b: String,
    pub games: usize,
    /// Games won by `a`'s seats (a shared win counts its share).
    pub wins_a: f64,
    pub wins_b: f64,
    /// `wins_a / games`, and its 95 % Wilson interval.
    pub rate_a: f64,
    pub low: f64,
    pub high: f64,
    pub mean_moves: f64,
}

/// The 95 % Wilson score interval of `wins` successes in `n` trials.
pub fn wilson(wins: f64, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let z = 1.959_964;
    let p = wins / n;
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / denominator;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Plays `games` games of `a` against `b` in `arena` on `threads` threads;
/// `progress` hears the number of games done.
pub fn pairing(
    arena: &Arena,
    a: Level,
    b: Level,
    games: usize,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Pairing, BenchError> {
    let job = |index: usize| play(arena, a, b, seed, index);
    let outcomes = parallel_map(games, threads, &job, progress)?;
    let wins_a: f64 = outcomes.iter().map(|o| o.score_a).sum();
    let n = outcomes.len();
    let (low, high) = wilson(wins_a, n);
    Ok(Pairing {
        arena: arena.id.to_string(),
        a: a.id().to_string(),
        b: b.id().to_string(),
        games: n,
        wins_a,
        wins_b: n as f64 - wins_a,
        rate_a: if n == 0 { 0.0 } else { wins_a / n as f64 },
        low,
        high,
        mean_moves: outcomes.iter().map(|o| o.moves as f64).sum::<f64>() / n.max(1) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_alternate_and_swap() {
        let (a, b) = (Level::Hard, Level::Medium);
        let game0: Vec<Level> = (0..4).map(|s| seat_level(a, b, s, 0)).collect();
        let game1: Vec<Level> = (0..4).map(|s| seat_level(a, b, s, 1)).collect();
        assert_eq!(game0, vec![a, b, a, b]);
        assert_eq!(game1, vec![b, a, b, a]);
        // Teams 0,1,0,1 put each level on one team.
        let teams = arena("teams-2v2")
            .and_then(|a| a.teams)
            .expect("teams arena");
        for index in 0..2 {
            for seat in 0..4 {
                let same_team: Vec<usize> = (0..4).filter(|&s| teams[s] == teams[seat]).collect();
                assert!(same_team
                    .iter()
                    .all(|&s| seat_level(a, b, s, index) == seat_level(a, b, seat, index)));
            }
        }
    }

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let (low, high) = wilson(60.0, 100);
        assert!(
            low > 0.49 && low < 0.6 && high > 0.6 && high < 0.7,
            "{low} {high}"
        );
        assert_eq!(wilson(0.0, 0), (0.0, 1.0));
    }

    #[test]
    fn every_arena_sets_up() {
        for arena in arenas() {
            let setup = Setup {
                preset: arena.preset,
                seats: arena.seats,
                seed: 1,
                options: arena.options.clone(),
                teams: arena.teams.clone(),
            };
            Game::new(&setup).unwrap_or_else(|e| panic!("{}: {e}", arena.id));
        }
    }

    #[test]
    fn a_stronger_level_wins_a_short_duel_pairing() {
        let arena = arena("duel").expect("duel");
        let result =
            pairing(&arena, Level::Medium, Level::Easy, 12, 3, 2, &|_| {}).expect("games end");
        assert_eq!(result.games, 12);
        assert!((result.wins_a + result.wins_b - 12.0).abs() < 1e-9);
        // Hunting beats random shooting nearly always.
        assert!(result.rate_a >= 0.75, "{result:?}");
    }
}
