//! Engine benchmarks (criterion), plus per-call percentiles that criterion does
//! not report.
//!
//! - random placement of every preset's fleet (and of the largest space fleet),
//!   target p99 < 2 ms (sea) and < 5 ms (space);
//! - a complete random-vs-random classic game (setup, placement, shots to the
//!   end, no rendering), target ≥ 10,000 games/s on one core;
//! - a complete 6-seat random-vs-random space game, target ≥ 1,000 games/s;
//! - the shop's fit check in its worst case, target < 20 ms.
//!
//! `cargo bench -p broadside-engine` prints the percentiles first, then runs
//! criterion.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use broadside_engine::{Command, Game, Options, Phase, Preset, Setup, Target};
use criterion::{criterion_group, Criterion};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn setup(preset: Preset, seats: usize, seed: u64) -> Setup {
    Setup {
        preset,
        seats,
        seed,
        options: Options::default(),
        teams: None,
    }
}

/// The largest fleet 500 credits buy (most cells within the type limits).
fn largest_space_fleet() -> BTreeMap<String, u32> {
    [
        ("dreadnought", 1),
        ("cruiser", 2),
        ("frigate", 2),
        ("corvette", 3),
        ("scout", 4),
        ("fighter", 4),
        ("lancer", 1),
    ]
    .into_iter()
    .map(|(id, n)| (id.to_string(), n))
    .collect()
}

/// A game ready for placement; space games have bought `fleet` (or the default).
fn placement_game(preset: Preset, fleet: Option<&BTreeMap<String, u32>>) -> Game {
    let mut game = Game::new(&setup(preset, 2, 1)).expect("valid preset");
    if preset == Preset::Space {
        match fleet {
            Some(fleet) => {
                for seat in 0..2 {
                    game.apply(Command::Buy {
                        seat,
                        ships: fleet.clone(),
                    })
                    .expect("a fleet within the shop's rules");
                }
            }
            None => {
                game.apply(Command::Timeout)
                    .expect("the shop timer buys the default fleet");
            }
        }
    }
    game
}

/// Plays a whole game where every seat fires at random targetable cells (salvo
/// rounds are filled at random by the round timer). Returns the commands applied.
fn random_game(preset: Preset, seats: usize, seed: u64) -> usize {
    let mut game = Game::new(&setup(preset, seats, seed)).expect("valid preset");
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut commands = 0;
    if game.phase() == Phase::Shop {
        game.apply(Command::Timeout).expect("default fleets");
    }
    for seat in 0..seats {
        game.apply(Command::PlaceRandom { seat })
            .expect("random placement");
    }
    // Per board, the cells not yet known to be untargetable.
    let size = game.rules().board;
    let mut open: Vec<Vec<broadside_engine::Cell>> =
        (0..seats).map(|_| size.cells().collect()).collect();
    while game.phase() == Phase::Battle {
        commands += 1;
        if game.in_salvo_round() {
            game.apply(Command::Timeout)
                .expect("a round can always be filled");
            continue;
        }
        let seat = game.to_move()[0];
        let board = game.target_boards(seat)[0];
        let cells = &mut open[board];
        loop {
            let index = rng.random_range(0..cells.len());
            let at = cells.swap_remove(index);
            if game.is_targetable(seat, board, at) {
                game.apply(Command::Fire {
                    seat,
                    target: Target { board, at },
                })
                .expect("a targetable cell");
                break;
            }
        }
    }
    commands
}

/// CPU time of this thread. The machine is shared with other work, so wall
/// time would measure the scheduler; thread CPU time measures one core's work.
fn thread_cpu_time() -> Duration {
    let mut spec = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own and pass by pointer.
    let result = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut spec) };
    assert_eq!(result, 0, "CLOCK_THREAD_CPUTIME_ID is available on Linux");
    Duration::new(spec.tv_sec as u64, spec.tv_nsec as u32)
}

fn percentiles(name: &str, runs: usize, mut f: impl FnMut(usize)) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|i| {
            let start = thread_cpu_time();
            f(i);
            thread_cpu_time() - start
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((runs as f64 * q) as usize).min(runs - 1)];
    println!(
        "{name:<40} p50 {:>9.3?}  p99 {:>9.3?}  max {:>9.3?}  ({runs} runs)",
        at(0.50),
        at(0.99),
        times[runs - 1]
    );
}

fn print_percentiles() {
    println!("Per-call CPU time of one thread (one core):");
    for preset in [
        Preset::Classic,
        Preset::Hasbro,
        Preset::Italia,
        Preset::Brasil,
        Preset::Shared,
    ] {
        let game = placement_game(preset, None);
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        percentiles(&format!("random placement {}", preset.id()), 10_000, |_| {
            black_box(game.random_layout(0, &mut rng).expect("fits"));
        });
    }
    let game = placement_game(Preset::Space, None);
    let mut rng = Pcg64Mcg::seed_from_u64(9);
    percentiles("random placement space default fleet", 10_000, |_| {
        black_box(game.random_layout(0, &mut rng).expect("fits"));
    });
    let largest = largest_space_fleet();
    let game = placement_game(Preset::Space, Some(&largest));
    percentiles("random placement space largest fleet", 10_000, |_| {
        black_box(game.random_layout(0, &mut rng).expect("fits"));
    });
    let shop = Game::new(&setup(Preset::Space, 2, 1)).unwrap();
    percentiles("shop fit check, largest fleet", 200, |_| {
        black_box(shop.check_purchase(&largest).expect("fits"));
    });
    worst_fit_check();
    games_per_second("classic random-vs-random games", Preset::Classic, 2, 20_000);
    games_per_second("6-seat space random games", Preset::Space, 6, 2_000);
}

/// Plays `games` whole random games on one thread and prints the rate.
fn games_per_second(name: &str, preset: Preset, seats: usize, games: u64) {
    let start = thread_cpu_time();
    for seed in 0..games {
        black_box(random_game(preset, seats, seed));
    }
    let elapsed = thread_cpu_time() - start;
    println!(
        "{name}: {:.0} games/s ({games} games in {elapsed:.2?})",
        games as f64 / elapsed.as_secs_f64()
    );
}

/// Searches for the slowest shop fit check: random purchases within the shop's
/// rules on every field size from 6×6 to 20×10, where fleets that barely fit
/// or barely do not fit make the search work hardest.
fn worst_fit_check() {
    let mut rng = Pcg64Mcg::seed_from_u64(77);
    let mut worst = (Duration::ZERO, String::new());
    let mut checks = 0;
    for cols in 6..=20u16 {
        for rows in 6..=10u16 {
            let options = Options {
                cols: Some(cols),
                rows: Some(rows),
                ..Options::default()
            };
            let shop = Game::new(&Setup {
                options,
                ..setup(Preset::Space, 2, 1)
            })
            .unwrap();
            let catalogue = shop.rules().catalogue.clone();
            for _ in 0..40 {
                let mut ships = BTreeMap::new();
                let mut credits = 500;
                for _ in 0..30 {
                    let ship = &catalogue[rng.random_range(0..catalogue.len())];
                    let count = ships.get(&ship.id).copied().unwrap_or(0);
                    let capital = ship.capital
                        && ships
                            .keys()
                            .any(|id| catalogue.iter().any(|t| &t.id == id && t.capital));
                    if ship.price <= credits && count < ship.limit && !capital {
                        credits -= ship.price;
                        ships.insert(ship.id.clone(), count + 1);
                    }
                }
                let start = thread_cpu_time();
                let fits = shop.check_purchase(&ships).is_ok();
                let elapsed = thread_cpu_time() - start;
                checks += 1;
                if elapsed > worst.0 {
                    worst = (elapsed, format!("{cols}x{rows}, fits: {fits}, {ships:?}"));
                }
            }
        }
    }
    println!(
        "shop fit check, worst of {checks} random purchases: {:.3?} ({})",
        worst.0, worst.1
    );
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("placement");
    for preset in [
        Preset::Classic,
        Preset::Hasbro,
        Preset::Italia,
        Preset::Brasil,
        Preset::Space,
    ] {
        let game = placement_game(preset, None);
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        group.bench_function(preset.id(), |b| {
            b.iter(|| game.random_layout(0, &mut rng).expect("fits"))
        });
    }
    let game = placement_game(Preset::Space, Some(&largest_space_fleet()));
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    group.bench_function("space_largest", |b| {
        b.iter(|| game.random_layout(0, &mut rng).expect("fits"))
    });
    group.finish();

    let mut group = c.benchmark_group("game");
    let mut seed = 0;
    group.bench_function("classic_random_vs_random", |b| {
        b.iter(|| {
            seed += 1;
            random_game(Preset::Classic, 2, seed)
        })
    });
    group.bench_function("space_6_seats_random", |b| {
        b.iter(|| {
            seed += 1;
            random_game(Preset::Space, 6, seed)
        })
    });
    group.finish();

    let shop = Game::new(&setup(Preset::Space, 2, 1)).unwrap();
    let largest = largest_space_fleet();
    c.bench_function("shop_fit_check_largest", |b| {
        b.iter(|| shop.check_purchase(&largest).expect("fits"))
    });
}

criterion_group! {
    name = engine;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = benches
}

fn main() {
    print_percentiles();
    engine();
    Criterion::default().configure_from_args().final_summary();
}
