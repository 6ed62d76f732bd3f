//! Bots play every preset and mode against each other: no illegal move, no panic.

use broadside_ai::infer::Effort;
use broadside_ai::{Bot, Level, Strategy};
use broadside_engine::{Command, Game, Options, Phase, Preset, Report, SalvoMode, Setup};

/// Little thinking per move, so that thousands of games stay quick; the
/// inference itself is the same.
const LIGHT: Effort = Effort {
    evaluations: 6_000,
    min_sweeps: 1,
    max_sweeps: 12,
};

/// What one game showed.
#[derive(Default)]
struct Seen {
    abilities: usize,
    places: usize,
}

/// Plays one game to the end; panics on an illegal move or a game that stalls.
fn play(setup: &Setup, strategies: &[Strategy], effort: Effort, seen: &mut Seen) -> Game {
    let mut game = Game::new(setup).expect("valid setup");
    let mut bots: Vec<Bot> = (0..setup.seats)
        .map(|s| {
            Bot::new(strategies[s % strategies.len()], setup.seed * 31 + s as u64)
                .with_effort(effort)
        })
        .collect();
    let mut moves = 0;
    while game.phase() != Phase::Finished {
        moves += 1;
        assert!(moves < 20_000, "game does not end: {setup:?}");
        let movers = game.to_move();
        assert!(!movers.is_empty(), "nobody to move in {:?}", game.phase());
        for seat in movers {
            if game.phase() == Phase::Finished || !game.to_move().contains(&seat) {
                continue;
            }
            let view = game.view(Some(seat));
            let command = bots[seat]
                .next_command(&view, game.rules())
                .expect("a seat to move has a move");
            match &command {
                Command::Ability { .. }
                | Command::Salvo {
                    action: Some(_), ..
                } => seen.abilities += 1,
                Command::Place { .. } => seen.places += 1,
                _ => {}
            }
            match game.apply(command.clone()) {
                Ok(events) => {
                    for (s, bot) in bots.iter_mut().enumerate() {
                        bot.observe(&game.events_for(Some(s), &events));
                    }
                }
                Err(error) => panic!("illegal bot move {command:?}: {error} in {setup:?}"),
            }
        }
    }
    game
}

fn setup(
    preset: Preset,
    seats: usize,
    seed: u64,
    options: Options,
    teams: Option<Vec<u32>>,
) -> Setup {
    Setup {
        preset,
        seats,
        seed,
        options,
        teams,
    }
}

/// Every strategy, on every preset and seat count, in every mode variant.
#[test]
fn every_strategy_finishes_every_preset_and_mode() {
    let mut games = 0;
    let mut seen = Seen::default();
    for strategy in Strategy::ALL {
        for preset in Preset::ALL {
            for seats in 2..=preset.max_seats() {
                {
                    let seed = seats as u64;
                    let game = play(
                        &setup(preset, seats, seed, Options::default(), None),
                        &[strategy],
                        LIGHT,
                        &mut seen,
                    );
                    assert!(game.winners().is_some());
                    games += 1;
                }
            }
        }
        let hard = Options {
            report: Some(Report::PerVolley),
            ..Options::default()
        };
        let focus = Options {
            salvo: Some(SalvoMode::Focus),
            ..Options::default()
        };
        let specials = Options {
            specials: Some(true),
            ..Options::default()
        };
        let variants = [
            setup(Preset::Brasil, 2, 1, hard.clone(), None),
            setup(
                Preset::Brasil,
                2,
                2,
                Options {
                    specials: Some(true),
                    ..hard
                },
                None,
            ),
            setup(Preset::Classic, 5, 1, focus.clone(), None),
            setup(Preset::Space, 4, 1, focus, None),
            setup(
                Preset::Shared,
                4,
                1,
                Options::default(),
                Some(vec![0, 1, 0, 1]),
            ),
            setup(
                Preset::Space,
                4,
                2,
                Options::default(),
                Some(vec![0, 0, 1, 1]),
            ),
            setup(Preset::Classic, 3, 1, specials.clone(), None),
            setup(Preset::Hasbro, 2, 1, specials, None),
            setup(
                Preset::Space,
                2,
                3,
                Options {
                    credits: Some(200),
                    ..Options::default()
                },
                None,
            ),
            setup(
                Preset::Italia,
                2,
                3,
                Options {
                    cols: Some(8),
                    rows: Some(8),
                    fleet: Some(vec![broadside_engine::CustomShip {
                        id: "boat".into(),
                        len: 3,
                        count: 3,
                    }]),
                    ..Options::default()
                },
                None,
            ),
        ];
        for variant in &variants {
            play(variant, &[strategy], LIGHT, &mut seen);
            games += 1;
        }
    }
    // Mixed tables: every strategy against every other.
    for preset in Preset::ALL {
        let seats = preset.max_seats().min(4);
        play(
            &setup(preset, seats, 9, Options::default(), None),
            &Strategy::ALL,
            LIGHT,
            &mut seen,
        );
        games += 1;
    }
    assert!(games > 120, "{games}");
    assert!(seen.places > 0, "bots place their own layouts");
    assert!(seen.abilities > 0, "bots use abilities and specials");
}

/// The two strongest bots, as people meet them, on every preset: expert
/// against admiral.
#[test]
fn expert_and_admiral_bots_finish_every_preset_at_full_effort() {
    let mut seen = Seen::default();
    for preset in Preset::ALL {
        let setup = setup(preset, 2, 4, Options::default(), None);
        let mut game = Game::new(&setup).expect("valid setup");
        let mut bots = [
            Bot::for_level(Level::Expert, 0),
            Bot::for_level(Level::Admiral, 1),
        ];
        let mut moves = 0;
        while game.phase() != Phase::Finished {
            moves += 1;
            assert!(moves < 5_000, "{preset:?} does not end");
            for seat in game.to_move() {
                if !game.to_move().contains(&seat) {
                    continue;
                }
                let view = game.view(Some(seat));
                let command = bots[seat]
                    .next_command(&view, game.rules())
                    .expect("a move");
                if matches!(command, Command::Place { .. }) {
                    seen.places += 1;
                }
                let events = game
                    .apply(command.clone())
                    .unwrap_or_else(|e| panic!("illegal {command:?}: {e}"));
                for (s, bot) in bots.iter_mut().enumerate() {
                    bot.observe(&game.events_for(Some(s), &events));
                }
            }
        }
    }
    assert_eq!(seen.places, 12);
}

/// Thousands of quick games of the fast strategies over every mode (issue 7,
/// acceptance 5).
#[test]
fn thousands_of_games_without_an_illegal_move() {
    let mut seen = Seen::default();
    let mut games = 0;
    let light = Effort {
        evaluations: 2_000,
        min_sweeps: 1,
        max_sweeps: 4,
    };
    for seed in 0..200u64 {
        for preset in Preset::ALL {
            let seats = 2 + (seed as usize % (preset.max_seats() - 1));
            let strategies = [
                Strategy::Random,
                Strategy::Hunt,
                Strategy::Density,
                Strategy::Bayes,
            ];
            let pick = [
                strategies[seed as usize % 4],
                strategies[(seed as usize + 1) % 4],
            ];
            let mut options = Options::default();
            if preset == Preset::Brasil && seed % 2 == 0 {
                options.report = Some(Report::PerVolley);
            }
            if seats >= 3 && seed % 3 == 0 {
                options.salvo = Some(SalvoMode::Focus);
            }
            play(
                &setup(preset, seats, 100 + seed, options, None),
                &pick,
                light,
                &mut seen,
            );
            games += 1;
        }
    }
    assert!(games >= 1_200);
}
