//! The benchmark behind `broadside-lab bench`: a strategy plays practice games
//! (seat 0 shoots, seat 1 never shoots back) against the same layouts that every
//! other strategy meets for the same seed, and the shots, turns and time per
//! move are summarized. [`versus`] is the tournament of `--versus`, [`args`]
//! the command's flags and output.

pub mod args;
pub mod versus;

use std::time::Instant;

use broadside_engine::{
    Cell, Command, Event, Game, Options, Phase, Placement, Preset, RuleError, Rules, Setup,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use broadside_ai::{Bot, Level, Strategy};

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub preset: Preset,
    pub strategy: Strategy,
    pub games: usize,
    pub seed: u64,
    /// Room options; `practice` is switched on whatever they say.
    pub options: Options,
    /// How the target fleet is laid out.
    pub layouts: Layouts,
}

/// Where the fleet the bot hunts comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layouts {
    /// The engine's random placement (`place_random`): ships largest first,
    /// each uniformly among the positions still free. What people's random
    /// button and the bots' plain layouts give.
    #[default]
    Engine,
    /// Uniform among all legal layouts of the fleet (exact, by rejection):
    /// what published benchmarks assume.
    Uniform,
    /// Laid out as a bot of that level lays out its own fleet (hard and up
    /// hide it from hunters, [`broadside_ai::layout::Hiding`]): what each level's
    /// hiding costs each strategy.
    Level(Level),
}

impl Layouts {
    pub fn id(self) -> &'static str {
        match self {
            Layouts::Engine => "engine",
            Layouts::Uniform => "uniform",
            Layouts::Level(level) => level.id(),
        }
    }

    pub fn from_id(id: &str) -> Option<Layouts> {
        [Layouts::Engine, Layouts::Uniform]
            .into_iter()
            .chain(Level::ALL.map(Layouts::Level))
            .find(|l| l.id() == id)
    }
}

/// Whole attempts of the rejection sampler before it gives up on a fleet.
const UNIFORM_ATTEMPTS: usize = 20_000_000;

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
    #[error("no uniform layout found in {0} attempts: this fleet packs too tightly for rejection sampling")]
    Uniform(usize),
    #[error("uniform layouts are drawn for a preset's own fleet; space fleets are bought in the shop (use engine layouts or a level)")]
    UniformBought,
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

/// The summary printed by `broadside-lab bench`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchReport {
    pub preset: String,
    pub strategy: String,
    pub layouts: String,
    pub seed: u64,
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
    /// How many games took each number of shots: `[shots, games]`, by shots
    /// (what `broadside-lab plot --kind shots` draws).
    pub histogram: Vec<[u32; 2]>,
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

/// A layout of `rules`' fleet drawn uniformly among all legal layouts: every
/// ship is put at a uniformly random position and rotation of the board, and
/// the whole draw is started again whenever two ships overlap (or touch, under
/// Each accepted draw is equally likely, so the layout is exactly
/// uniform; ships of one type are interchangeable, which changes nothing.
pub fn uniform_layout<R: Rng>(rules: &Rules, rng: &mut R) -> Result<Vec<Placement>, BenchError> {
    let size = rules.board;
    // Every placement of every ship, as (rotation, corner, cells).
    type Placements = Vec<(u8, Cell, Vec<usize>)>;
    let mut ships: Vec<(String, Placements)> = Vec::new();
    for &kind in &rules.fleet {
        let ship = &rules.catalogue[kind];
        let mut placements = Vec::new();
        for (rot, rotated) in ship.shape.distinct_rotations() {
            if rotated.width() > size.cols || rotated.height() > size.rows {
                continue;
            }
            for row in 0..=size.rows - rotated.height() {
                for col in 0..=size.cols - rotated.width() {
                    let cells = rotated
                        .cells()
                        .iter()
                        .map(|&(x, y)| size.index(Cell::new(col + x, row + y)))
                        .collect();
                    placements.push((rot, Cell::new(col, row), cells));
                }
            }
        }
        ships.push((ship.id.clone(), placements));
    }
    let reach = if rules.ships_may_touch { 0 } else { 1 };
    let mut taken = vec![0u32; size.cell_count()];
    let mut chosen = Vec::with_capacity(ships.len());
    for attempt in 1..=UNIFORM_ATTEMPTS {
        let stamp = attempt as u32;
        chosen.clear();
        let mut ok = true;
        for (_, placements) in &ships {
            if placements.is_empty() {
                return Err(BenchError::Uniform(0));
            }
            let pick = rng.random_range(0..placements.len());
            let (_, _, cells) = &placements[pick];
            if cells.iter().any(|&c| taken[c] == stamp) {
                ok = false;
                break;
            }
            // Claim the cells and, without touching, their neighbours.
            for &c in cells {
                let (col, row) = (
                    (c % size.cols as usize) as i32,
                    (c / size.cols as usize) as i32,
                );
                for dr in -reach..=reach {
                    for dc in -reach..=reach {
                        if size.contains_signed(col + dc, row + dr) {
                            taken[((row + dr) * size.cols as i32 + col + dc) as usize] = stamp;
                        }
                    }
                }
            }
            chosen.push(pick);
        }
        if ok {
            return Ok(ships
                .iter()
                .zip(&chosen)
                .map(|((id, placements), &pick)| Placement {
                    ship_type: id.clone(),
                    at: placements[pick].1,
                    rot: placements[pick].0,
                })
                .collect());
        }
    }
    Err(BenchError::Uniform(UNIFORM_ATTEMPTS))
}

/// The setup of game `index`: practice on, both fleets placed at random by the
/// engine in a fixed order (seat 0, then seat 1).
pub fn practice_game(
    preset: Preset,
    options: &Options,
    seed: u64,
    index: usize,
) -> Result<Game, BenchError> {
    practice_game_with(preset, options, Layouts::Engine, seed, index)
}

/// [`practice_game`] with the target fleet (seat 1's) laid out as `layouts` says.
pub fn practice_game_with(
    preset: Preset,
    options: &Options,
    layouts: Layouts,
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
        if layouts == Layouts::Uniform {
            return Err(BenchError::UniformBought);
        }
        for seat in 0..2 {
            let ships = broadside_ai::default_purchase(game.rules());
            game.apply(Command::Buy { seat, ships })
                .map_err(BenchError::Setup)?;
        }
    }
    for seat in 0..2 {
        let command = match layouts {
            Layouts::Uniform if seat == 1 => {
                let mut rng = Pcg64Mcg::seed_from_u64(game_seed(seed ^ 0x000f_1ee7, index));
                Command::Place {
                    seat,
                    ships: uniform_layout(game.rules(), &mut rng)?,
                }
            }
            Layouts::Level(level) if seat == 1 => {
                let seed = game_seed(seed ^ 0x00d1_dd3e, index);
                let mut bot = Bot::for_level(level, seed);
                bot.next_command(&game.view(Some(seat)), game.rules())
                    .ok_or(BenchError::NoMove)?
            }
            _ => Command::PlaceRandom { seat },
        };
        game.apply(command).map_err(BenchError::Setup)?;
    }
    Ok(game)
}

/// Applies a bot's command; an illegal one is the bot's error.
pub fn apply(game: &mut Game, command: Command) -> Result<Vec<Event>, BenchError> {
    game.apply(command.clone())
        .map_err(|error| BenchError::IllegalMove {
            command: Box::new(command),
            error,
        })
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
        let events = apply(&mut game, command)?;
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

/// Runs `job(index)` for every index below `count` on `threads` threads and
/// returns the results in index order; the first error stops the run.
/// `progress` hears how many jobs are done.
pub fn parallel_map<T: Send>(
    count: usize,
    threads: usize,
    job: &(dyn Fn(usize) -> Result<T, BenchError> + Sync),
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<T>, BenchError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    let failure: Mutex<Option<BenchError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, count.max(1)) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= count || stop.load(Ordering::Relaxed) {
                    break;
                }
                match job(index) {
                    Ok(value) => {
                        if let Ok(mut slots) = slots.lock() {
                            slots[index] = Some(value);
                        }
                        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                    Err(error) => {
                        stop.store(true, Ordering::Relaxed);
                        if let Ok(mut slot) = failure.lock() {
                            slot.get_or_insert(error);
                        }
                        break;
                    }
                }
            });
        }
    });
    if let Some(error) = failure.into_inner().ok().flatten() {
        return Err(error);
    }
    Ok(slots
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect())
}

/// Plays every game of the benchmark on `threads` threads; the results are in
/// game order, whatever the threads.
pub fn games(
    config: &BenchConfig,
    threads: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<GameResult>, BenchError> {
    let job = |index: usize| {
        let game = practice_game_with(
            config.preset,
            &config.options,
            config.layouts,
            config.seed,
            index,
        )?;
        let bot = Bot::new(config.strategy, game_seed(config.seed ^ 0xb07, index));
        play_practice(game, bot)
    };
    parallel_map(config.games, threads, &job, progress)
}

/// Runs the whole benchmark on one thread; `progress` is called after every game.
pub fn run(
    config: &BenchConfig,
    progress: impl Fn(usize) + Sync,
) -> Result<BenchReport, BenchError> {
    let results = games(config, 1, &progress)?;
    Ok(summarize(config, &results))
}

/// Two strategies on the same games: the mean of `a`'s shots minus `b`'s,
/// game by game, with its 95 % confidence interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Paired {
    pub against: String,
    pub against_mean: f64,
    pub mean_difference: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Games where `a` needed fewer shots, as many, more.
    pub fewer: usize,
    pub equal: usize,
    pub more: usize,
}

/// The paired comparison of two runs over the same games.
pub fn paired(against: &str, a: &[GameResult], b: &[GameResult]) -> Paired {
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.shots as f64 - y.shots as f64)
        .collect();
    let n = d.len().max(1) as f64;
    let mean = d.iter().sum::<f64>() / n;
    let variance = if d.len() > 1 {
        d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let half = 1.959_964 * (variance / n).sqrt();
    Paired {
        against: against.to_string(),
        against_mean: b.iter().map(|r| r.shots as f64).sum::<f64>() / b.len().max(1) as f64,
        mean_difference: mean,
        ci_low: mean - half,
        ci_high: mean + half,
        fewer: d.iter().filter(|&&x| x < 0.0).count(),
        equal: d.iter().filter(|&&x| x == 0.0).count(),
        more: d.iter().filter(|&&x| x > 0.0).count(),
    }
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
        layouts: config.layouts.id().to_string(),
        seed: config.seed,
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
        histogram: histogram(results),
    }
}

/// How many games took each number of shots, by shots.
fn histogram(results: &[GameResult]) -> Vec<[u32; 2]> {
    let mut counts = std::collections::BTreeMap::new();
    for r in results {
        *counts.entry(r.shots).or_insert(0u32) += 1;
    }
    counts.into_iter().map(|(shots, n)| [shots, n]).collect()
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
    fn uniform_layouts_are_legal_and_differ_from_the_engines() {
        for preset in [Preset::Hasbro, Preset::Classic, Preset::Brasil] {
            let a = practice_game_with(preset, &Options::default(), Layouts::Uniform, 3, 0)
                .unwrap_or_else(|e| panic!("{preset:?}: {e}"));
            let b = practice_game_with(preset, &Options::default(), Layouts::Engine, 3, 0)
                .expect("engine layouts");
            assert_eq!(a.phase(), Phase::Battle);
            assert_ne!(a.save(), b.save());
        }
        // A bought fleet has no uniform layouts to draw: a clear error, not
        // a setup the engine refuses.
        let space = practice_game_with(Preset::Space, &Options::default(), Layouts::Uniform, 3, 0);
        assert!(matches!(space, Err(BenchError::UniformBought)));
    }

    /// On a 6×6 board without touching, with one ship of 6 cells and one of
    /// 1: the long ship on an edge line leaves 24 cells to the boat, inside
    /// only 18, so of the 4·24 + 8·18 = 240 layouts 96 have the long ship on
    /// an edge: 40 % — where the engine's largest-first placement gives 4/12.
    #[test]
    fn uniform_layouts_are_uniform() {
        let options = Options {
            cols: Some(6),
            rows: Some(6),
            fleet: Some(vec![
                broadside_engine::CustomShip {
                    id: "long".into(),
                    len: 6,
                    count: 1,
                },
                broadside_engine::CustomShip {
                    id: "boat".into(),
                    len: 1,
                    count: 1,
                },
            ]),
            ..Options::default()
        };
        let game = practice_game(Preset::Classic, &options, 1, 0).expect("small board");
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        let mut edge = 0;
        for _ in 0..4000 {
            let layout = uniform_layout(game.rules(), &mut rng).expect("a layout");
            let long = layout.iter().find(|p| p.ship_type == "long").expect("long");
            let line = if long.rot % 2 == 0 {
                long.at.row
            } else {
                long.at.col
            };
            edge += usize::from(line == 0 || line == 5);
        }
        // 1,600 expected; the standard deviation is 31.
        assert!((1500..1700).contains(&edge), "{edge}");
    }

    /// Every level lays a legal fleet in every preset, and the fleets the
    /// higher levels hide take the density count more shots to sink than
    /// the engine's random ones, on the same games.
    #[test]
    fn hidden_fleets_are_legal_and_take_longer_to_find() {
        for preset in [
            Preset::Classic,
            Preset::Hasbro,
            Preset::Brasil,
            Preset::Italia,
            Preset::Space,
        ] {
            for level in [Level::Hard, Level::Admiral] {
                let game =
                    practice_game_with(preset, &Options::default(), Layouts::Level(level), 5, 0)
                        .unwrap_or_else(|e| panic!("{preset:?} {level:?}: {e}"));
                assert_eq!(game.phase(), Phase::Battle);
            }
        }
        let config = |layouts| BenchConfig {
            preset: Preset::Classic,
            strategy: Strategy::Density,
            games: 60,
            seed: 3,
            options: Options::default(),
            layouts,
        };
        let plain = run(&config(Layouts::Engine), |_| {}).expect("engine layouts");
        let hidden = run(&config(Layouts::Level(Level::Expert)), |_| {}).expect("hidden");
        // Measured over 200 games: 55.1 against 61.1 shots; the standard
        // error of each mean over 60 games is about 1.
        assert!(
            hidden.mean > plain.mean + 2.5,
            "{} against {}",
            hidden.mean,
            plain.mean
        );
    }

    #[test]
    fn paired_differences_have_an_interval() {
        let result = |shots| GameResult {
            shots,
            turns: 1,
            move_ms: vec![],
            move_cpu_ms: vec![],
        };
        let a: Vec<GameResult> = [40, 42, 44, 46].into_iter().map(result).collect();
        let b: Vec<GameResult> = [41, 44, 45, 49].into_iter().map(result).collect();
        let p = paired("bayes", &a, &b);
        assert!((p.mean_difference + 1.75).abs() < 1e-9);
        assert!(p.ci_low < p.mean_difference && p.mean_difference < p.ci_high);
        assert_eq!((p.fewer, p.equal, p.more), (4, 0, 0));
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
            layouts: Layouts::Engine,
        };
        let report = run(&config, |_| {}).expect("hunt finishes classic");
        // Threads change nothing but the time.
        let one = games(&config, 1, &|_| {}).expect("games");
        let two = games(&config, 2, &|_| {}).expect("games");
        assert_eq!(
            one.iter().map(|r| r.shots).collect::<Vec<_>>(),
            two.iter().map(|r| r.shots).collect::<Vec<_>>()
        );
        assert_eq!(report.games, 3);
        // Twenty ship cells need at least twenty shots, and at most the board.
        assert!(report.mean >= 20.0 && report.max <= 100.0, "{report:?}");
        assert!(
            report.mean_turns >= 1.0 && report.mean_turns <= report.mean,
            "{report:?}"
        );
    }
}
