//! The benchmark behind `broadside bench`: a strategy plays practice games
//! (seat 0 shoots, seat 1 never shoots back) against the same layouts that every
//! other strategy meets for the same seed, and the shots, turns and time per
//! move are summarized.

use std::time::Instant;

use broadside_engine::{Command, Event, Game, Options, Phase, Preset, RuleError, Setup};
use serde::Serialize;

use crate::{Bot, Strategy};

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub preset: Preset,
    pub strategy: Strategy,
    pub games: usize,
    pub seed: u64,
    /// Room options; `practice` is switched on whatever they say.
    pub options: Options,
}

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("the game cannot be set up: {0}")]
    Setup(RuleError),
    #[error("the bot made an illegal move {command:?}: {error}")]
    IllegalMove {
        command: Box<Command>,
        error: RuleError,
    },
    #[error("the bot had no move in a game that was not over")]
    NoMove,
    #[error("the game did not end after {0} moves")]
    Endless(usize),
}

/// One practice game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// Cells fired at the fleet until it sank (an area weapon counts its cells).
    pub shots: u32,
    /// Turns of the shooting seat.
    pub turns: u32,
    /// Milliseconds the bot took for each of its battle moves.
    pub move_ms: Vec<f64>,
    /// The same moves in CPU milliseconds of the bot's thread.
    pub move_cpu_ms: Vec<f64>,
}

/// The summary printed by `broadside bench`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchReport {
    pub preset: String,
    pub strategy: String,
    pub games: usize,
    pub mean: f64,
    pub median: f64,
    pub p95: f64,
    pub max: f64,
    pub mean_turns: f64,
    pub mean_ms: f64,
    pub p99_ms: f64,
    /// Thread CPU time per move: what one core spends, whatever else runs on
    /// the machine.
    pub mean_cpu_ms: f64,
    pub p99_cpu_ms: f64,
}

/// CPU time consumed by the calling thread, in milliseconds.
#[cfg(unix)]
pub fn thread_cpu_ms() -> f64 {
    let mut spec = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes into the timespec we own and pass.
    let result = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut spec) };
    if result != 0 {
        return 0.0;
    }
    spec.tv_sec as f64 * 1000.0 + spec.tv_nsec as f64 / 1e6
}

/// Without a per-thread clock, wall time since the first call stands in.
#[cfg(not(unix))]
pub fn thread_cpu_ms() -> f64 {
    use std::sync::OnceLock;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// The seed of game `index` of a run with `seed`: the same for every strategy,
/// so all strategies meet the same layouts (SplitMix64 of the pair).
pub fn game_seed(seed: u64, index: usize) -> u64 {
    let mut z = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (index as u64).wrapping_add(0x632b_e59b_d9b4_e019);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The setup of game `index`: practice on, both fleets placed at random by the
/// engine in a fixed order (seat 0, then seat 1).
pub fn practice_game(
    preset: Preset,
    options: &Options,
    seed: u64,
    index: usize,
) -> Result<Game, BenchError> {
    let options = Options {
        practice: Some(true),
        ..options.clone()
    };
    let setup = Setup {
        preset,
        seats: 2,
        seed: game_seed(seed, index),
        options,
        teams: None,
    };
    let mut game = Game::new(&setup).map_err(BenchError::Setup)?;
    if game.phase() == Phase::Shop {
        for seat in 0..2 {
            let ships = crate::default_purchase(game.rules());
            game.apply(Command::Buy { seat, ships })
                .map_err(BenchError::Setup)?;
        }
    }
    for seat in 0..2 {
        game.apply(Command::PlaceRandom { seat })
            .map_err(BenchError::Setup)?;
    }
    Ok(game)
}

/// Plays one practice game with a bot in seat 0.
pub fn play_practice(mut game: Game, mut bot: Bot) -> Result<GameResult, BenchError> {
    let mut shots = 0u32;
    let mut move_ms = Vec::new();
    let mut move_cpu_ms = Vec::new();
    let limit = game.rules().board.cell_count() * 4 + 100;
    while game.phase() != Phase::Finished {
        if move_ms.len() > limit {
            return Err(BenchError::Endless(move_ms.len()));
        }
        let view = game.view(Some(0));
        let started = Instant::now();
        let cpu = thread_cpu_ms();
        let command = bot
            .next_command(&view, game.rules())
            .ok_or(BenchError::NoMove)?;
        move_cpu_ms.push(thread_cpu_ms() - cpu);
        move_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        let events = game
            .apply(command.clone())
            .map_err(|error| BenchError::IllegalMove {
                command: Box::new(command),
                error,
            })?;
        for event in &events {
            match event {
                Event::Shot { shooter: 0, .. } => shots += 1,
                Event::Volley {
                    shooter: 0, cells, ..
                } => shots += cells.len() as u32,
                _ => {}
            }
        }
        bot.observe(&game.events_for(Some(0), &events));
    }
    Ok(GameResult {
        shots,
        turns: game.round_of(0).saturating_sub(1),
        move_ms,
        move_cpu_ms,
    })
}

/// Runs the whole benchmark; `progress` is called after every game.
pub fn run(
    config: &BenchConfig,
    mut progress: impl FnMut(usize),
) -> Result<BenchReport, BenchError> {
    let mut results = Vec::with_capacity(config.games);
    for index in 0..config.games {
        let game = practice_game(config.preset, &config.options, config.seed, index)?;
        let bot = Bot::new(config.strategy, game_seed(config.seed ^ 0xb07, index));
        results.push(play_practice(game, bot)?);
        progress(index + 1);
    }
    Ok(summarize(config, &results))
}

/// The statistics of a set of games.
pub fn summarize(config: &BenchConfig, results: &[GameResult]) -> BenchReport {
    let mut shots: Vec<f64> = results.iter().map(|r| r.shots as f64).collect();
    shots.sort_by(f64::total_cmp);
    let mut ms: Vec<f64> = results
        .iter()
        .flat_map(|r| r.move_ms.iter().copied())
        .collect();
    ms.sort_by(f64::total_cmp);
    let mut cpu: Vec<f64> = results
        .iter()
        .flat_map(|r| r.move_cpu_ms.iter().copied())
        .collect();
    cpu.sort_by(f64::total_cmp);
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let turns: Vec<f64> = results.iter().map(|r| r.turns as f64).collect();
    BenchReport {
        preset: config.preset.id().to_string(),
        strategy: config.strategy.id().to_string(),
        games: results.len(),
        mean: mean(&shots),
        median: quantile(&shots, 0.5),
        p95: quantile(&shots, 0.95),
        max: shots.last().copied().unwrap_or(0.0),
        mean_turns: mean(&turns),
        mean_ms: mean(&ms),
        p99_ms: quantile(&ms, 0.99),
        mean_cpu_ms: mean(&cpu),
        p99_cpu_ms: quantile(&cpu, 0.99),
    }
}

/// The `q` quantile of sorted values (nearest rank; the median of an even count
/// is the mean of the middle two).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    if q == 0.5 && sorted.len() % 2 == 0 {
        let m = sorted.len() / 2;
        return (sorted[m - 1] + sorted[m]) / 2.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_use_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.95), 4.0);
        assert_eq!(quantile(&[1.0, 3.0, 5.0], 0.5), 3.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }

    #[test]
    fn every_strategy_meets_the_same_layouts() {
        let a = practice_game(Preset::Hasbro, &Options::default(), 7, 3).expect("hasbro sets up");
        let b = practice_game(Preset::Hasbro, &Options::default(), 7, 3).expect("hasbro sets up");
        assert_eq!(a.save(), b.save());
        let c = practice_game(Preset::Hasbro, &Options::default(), 7, 4).expect("hasbro sets up");
        assert_ne!(a.save(), c.save());
    }

    #[test]
    fn a_practice_game_counts_every_shot() {
        let config = BenchConfig {
            preset: Preset::Classic,
            strategy: Strategy::Hunt,
            games: 3,
            seed: 1,
            options: Options::default(),
        };
        let report = run(&config, |_| {}).expect("hunt finishes classic");
        assert_eq!(report.games, 3);
        // Twenty ship cells need at least twenty shots, and at most the board.
        assert!(report.mean >= 20.0 && report.max <= 100.0, "{report:?}");
        assert!(
            report.mean_turns >= 1.0 && report.mean_turns <= report.mean,
            "{report:?}"
        );
    }
}
