//! Rule tests for three or more players, teams, the shared sea and the space
//! battle, named by the rule ids of docs/rules.md.

mod common;

use std::collections::BTreeMap;

use broadside_engine::{
    Action, Cell, Command, End, Event, Game, Options, Phase, Placement, Preset, RuleError,
    SalvoMode, Setup, ShotResult, Size, Target,
};
use common::*;

fn t(board: usize, col: u16, row: u16) -> Target {
    Target {
        board,
        at: Cell::new(col, row),
    }
}

fn salvo(game: &mut Game, seat: usize, shots: Vec<Target>) -> Result<Vec<Event>, RuleError> {
    game.apply(Command::Salvo {
        seat,
        shots,
        action: None,
    })
}

fn shot_results(events: &[Event]) -> Vec<(usize, usize, Cell, ShotResult)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Shot {
                shooter,
                board,
                at,
                result,
                ..
            } => Some((*shooter, *board, *at, *result)),
            _ => None,
        })
        .collect()
}

// ----- R-6 salvo rounds ---------------------------------------------------------------------------

#[test]
fn r_6_1_three_players_aim_in_secret_and_the_round_resolves_when_all_submitted() {
    let mut game = boats(3, Options::default(), None);
    assert!(game.in_salvo_round());
    assert_eq!(game.to_move(), vec![0, 1, 2]);
    let events = salvo(&mut game, 0, vec![t(1, 5, 5), t(2, 5, 5)]).unwrap();
    assert_eq!(
        events,
        vec![Event::SalvoSubmitted { seat: 0 }],
        "nothing is resolved yet"
    );
    assert_eq!(game.to_move(), vec![1, 2]);
    // The pending salvo is secret: no view shows it.
    assert_eq!(game.view(Some(1)).boards[1].at(Cell::new(5, 5)), '~');
    salvo(&mut game, 1, vec![t(0, 5, 5), t(2, 4, 5)]).unwrap();
    let events = salvo(&mut game, 2, vec![t(0, 4, 5), t(1, 4, 5)]).unwrap();
    assert_eq!(shot_results(&events).len(), 6);
    assert_eq!(game.to_move(), vec![0, 1, 2], "the next round opens");
}

#[test]
fn r_6_1_round_timeout_fills_missing_salvos_at_random() {
    let mut game = boats(3, Options::default(), None);
    salvo(&mut game, 0, vec![t(1, 5, 5), t(2, 5, 5)]).unwrap();
    let events = game.apply(Command::Timeout).unwrap();
    let results = shot_results(&events);
    assert_eq!(results.len(), 6);
    for seat in [1, 2] {
        let mine: Vec<_> = results.iter().filter(|r| r.0 == seat).collect();
        assert_eq!(
            mine.len(),
            2,
            "one random shot per opponent for seat {seat}"
        );
        assert!(mine.iter().all(|r| r.1 != seat));
    }
}

#[test]
fn r_6_2_each_salvo_is_one_round_for_every_participant() {
    let mut game = boats(3, Options::default(), None);
    game.apply(Command::Timeout).unwrap();
    game.apply(Command::Timeout).unwrap();
    let rounds = game.status().round;
    assert_eq!(rounds.values().copied().collect::<Vec<_>>(), vec![3, 3, 3]);
}

#[test]
fn r_6_3_spread_needs_exactly_the_shots_per_opponent() {
    let mut game = boats(
        3,
        Options {
            shots_per_opponent: Some(2),
            ..Options::default()
        },
        None,
    );
    let short = Command::Salvo {
        seat: 0,
        shots: vec![t(1, 5, 5), t(1, 5, 4), t(2, 5, 5)],
        action: None,
    };
    assert_eq!(
        refuse(&mut game, short),
        RuleError::WrongShotCount {
            expected: 2,
            got: 1
        }
    );
    let lopsided = Command::Salvo {
        seat: 0,
        shots: vec![t(1, 5, 5), t(1, 5, 4), t(1, 5, 3), t(2, 5, 5)],
        action: None,
    };
    assert!(matches!(
        refuse(&mut game, lopsided),
        RuleError::WrongShotCount { .. }
    ));
    salvo(
        &mut game,
        0,
        vec![t(1, 5, 5), t(1, 5, 4), t(2, 5, 5), t(2, 5, 4)],
    )
    .unwrap();
}

#[test]
fn r_6_3_focus_puts_every_shot_on_one_opponent() {
    let mut game = boats(
        3,
        Options {
            salvo: Some(SalvoMode::Focus),
            ..Options::default()
        },
        None,
    );
    let split = Command::Salvo {
        seat: 0,
        shots: vec![t(1, 5, 5), t(2, 5, 5)],
        action: None,
    };
    assert!(matches!(
        refuse(&mut game, split),
        RuleError::WrongShotCount { .. }
    ));
    salvo(&mut game, 0, vec![t(1, 5, 5), t(1, 4, 4)]).unwrap();
    let events = game.apply(Command::Timeout).unwrap();
    for seat in [1, 2] {
        let boards: Vec<usize> = shot_results(&events)
            .iter()
            .filter(|r| r.0 == seat)
            .map(|r| r.1)
            .collect();
        assert_eq!(boards.len(), 2, "2 × 1 shots");
        assert!(
            boards.iter().all(|&b| b == boards[0]),
            "the random fill picks one opponent"
        );
    }
}

/// The first `n` cells of `board` that `shooter` may target, leaving out the
/// boat of [`boats`] (row `board`, columns 0 and 1) and the cells in `skip`.
fn first_water(
    game: &Game,
    shooter: usize,
    board: usize,
    n: usize,
    skip: &[Target],
) -> Vec<Target> {
    game.targetable_cells(shooter, board)
        .into_iter()
        .filter(|c| !(c.row == board as u16 && c.col < 2))
        .map(|at| Target { board, at })
        .filter(|t| !skip.contains(t))
        .take(n)
        .collect()
}

#[test]
fn r_6_3_fewer_shots_only_when_fewer_cells_are_targetable() {
    let mut game = boats(
        3,
        Options {
            shots_per_opponent: Some(10),
            ..Options::default()
        },
        None,
    );
    for round in 0..2 {
        let a = first_water(&game, 0, 1, 10, &[]);
        let b = if round == 0 {
            first_water(&game, 2, 1, 10, &a)
        } else {
            a.clone()
        };
        let on_two = first_water(&game, 0, 2, 10, &[]);
        let on_zero = first_water(&game, 1, 0, 10, &[]);
        salvo(&mut game, 0, [a, on_two.clone()].concat()).unwrap();
        salvo(&mut game, 1, [on_zero.clone(), on_two].concat()).unwrap();
        salvo(&mut game, 2, [on_zero, b].concat()).unwrap();
    }
    // 34 water cells less 30 shot, plus the boat: 6 targetable cells are left.
    assert_eq!(game.targetable_cells(0, 1).len(), 6);
    // The seat's view says what is due on each opponent, as the check counts it.
    let targets = game.view(Some(0)).legal_targets.expect("seat 0 must act");
    let due: Vec<(usize, Option<usize>, u32, Option<u32>)> = targets
        .waters
        .iter()
        .map(|w| (w.board, w.block, w.targetable_cells, w.shots_due))
        .collect();
    assert_eq!(due, vec![(1, None, 6, Some(6)), (2, None, 16, Some(10))]);
    assert_eq!((targets.shots_in_turn, targets.volley), (None, false));
    let ten = first_water(&game, 0, 2, 10, &[]);
    let all_left: Vec<Target> = game
        .targetable_cells(0, 1)
        .into_iter()
        .map(|at| Target { board: 1, at })
        .collect();
    let too_many = [all_left[..6].to_vec(), all_left[..4].to_vec(), ten.clone()].concat();
    assert!(matches!(
        refuse(
            &mut game,
            Command::Salvo {
                seat: 0,
                shots: too_many,
                action: None
            }
        ),
        RuleError::DuplicateTarget | RuleError::WrongShotCount { .. }
    ));
    let five = [all_left[..5].to_vec(), ten.clone()].concat();
    assert_eq!(
        refuse(
            &mut game,
            Command::Salvo {
                seat: 0,
                shots: five,
                action: None
            }
        ),
        RuleError::WrongShotCount {
            expected: 6,
            got: 5
        }
    );
    salvo(&mut game, 0, [all_left, ten].concat()).unwrap();
    assert_eq!(
        game.view(Some(0)).legal_targets,
        None,
        "submitted: nothing is due"
    );
    assert_eq!(
        game.view(None).legal_targets,
        None,
        "a spectator aims at nothing"
    );
    assert!(game.view(Some(1)).legal_targets.is_some());
}

#[test]
fn r_6_3_in_focus_each_opponent_may_take_the_whole_salvo() {
    let game = boats(
        4,
        Options {
            salvo: Some(SalvoMode::Focus),
            shots_per_opponent: Some(2),
            ..Options::default()
        },
        None,
    );
    let targets = game.view(Some(1)).legal_targets.unwrap();
    let due: Vec<(usize, u32, Option<u32>)> = targets
        .waters
        .iter()
        .map(|w| (w.board, w.targetable_cells, w.shots_due))
        .collect();
    assert_eq!(
        due,
        vec![(0, 36, Some(6)), (2, 36, Some(6)), (3, 36, Some(6))]
    );
}

#[test]
fn r_6_4_two_shooters_on_one_cell_both_hit_it() {
    let mut game = boats(3, Options::default(), None);
    salvo(&mut game, 0, vec![t(1, 5, 5), t(2, 0, 2)]).unwrap();
    salvo(&mut game, 1, vec![t(0, 5, 5), t(2, 0, 2)]).unwrap();
    let events = salvo(&mut game, 2, vec![t(0, 4, 5), t(1, 4, 5)]).unwrap();
    let on_cell: Vec<_> = shot_results(&events)
        .into_iter()
        .filter(|r| r.1 == 2 && r.2 == Cell::new(0, 2))
        .collect();
    assert_eq!(on_cell.len(), 2);
    assert!(on_cell.iter().all(|r| r.3 == ShotResult::Hit));
    let within = Command::Salvo {
        seat: 0,
        shots: vec![t(1, 5, 4), t(1, 5, 4)],
        action: None,
    };
    assert!(matches!(
        refuse(&mut game, within),
        RuleError::WrongShotCount { .. } | RuleError::DuplicateTarget
    ));
}

#[test]
fn r_6_6_a_ship_sunk_in_the_round_reports_sunk_for_every_hit_on_it() {
    let mut game = boats(3, Options::default(), None);
    salvo(&mut game, 0, vec![t(1, 5, 5), t(2, 0, 2)]).unwrap();
    salvo(&mut game, 1, vec![t(0, 5, 5), t(2, 1, 2)]).unwrap();
    let events = salvo(&mut game, 2, vec![t(0, 4, 5), t(1, 4, 5)]).unwrap();
    let results: Vec<_> = shot_results(&events)
        .into_iter()
        .filter(|r| r.1 == 2)
        .collect();
    assert_eq!(results.len(), 2);
    assert!(
        results.iter().all(|r| r.3 == ShotResult::Sunk),
        "{results:?}"
    );
    assert!(events.contains(&Event::Eliminated { seat: 2 }));
}

#[test]
fn r_6_6_the_first_seat_rotates_by_round() {
    let mut game = boats(3, Options::default(), None);
    let firsts: Vec<usize> = (0..3)
        .map(|_| {
            let events = game.apply(Command::Timeout).unwrap();
            events
                .iter()
                .find_map(|e| match e {
                    Event::RoundStarted { first, .. } => Some(*first),
                    _ => None,
                })
                .unwrap_or(usize::MAX)
        })
        .collect();
    // Rounds 2, 3 and 4 start with seats 1, 2, 0 — unless a seat was eliminated.
    assert_eq!(&firsts[..1], &[1]);
}

#[test]
fn r_6_7_two_survivors_continue_as_a_duel_from_the_rounds_first_seat() {
    let mut game = boats(3, Options::default(), None);
    // Round 1 (first seat 0): seats 0 and 1 sink seat 2.
    salvo(&mut game, 0, vec![t(1, 5, 5), t(2, 0, 2)]).unwrap();
    salvo(&mut game, 1, vec![t(0, 5, 5), t(2, 1, 2)]).unwrap();
    let events = salvo(&mut game, 2, vec![t(0, 4, 5), t(1, 4, 5)]).unwrap();
    assert!(!game.in_salvo_round());
    assert!(
        events.contains(&Event::TurnStarted { seat: 0 }),
        "f = 0 is alive and starts"
    );
    assert_eq!(game.to_move(), vec![0]);
    // Now a duel: shoot again on a hit.
    fire(&mut game, 0, 1, 0, 1).unwrap();
    assert_eq!(game.to_move(), vec![0]);
}

#[test]
fn r_6_7_the_duel_skips_an_eliminated_first_seat() {
    let mut game = boats(3, Options::default(), None);
    // Round 1 ends without losses; round 2 starts with seat 1, which is sunk.
    game.apply(Command::Salvo {
        seat: 0,
        shots: vec![t(1, 5, 5), t(2, 5, 5)],
        action: None,
    })
    .unwrap();
    game.apply(Command::Salvo {
        seat: 1,
        shots: vec![t(0, 5, 5), t(2, 4, 5)],
        action: None,
    })
    .unwrap();
    game.apply(Command::Salvo {
        seat: 2,
        shots: vec![t(0, 4, 5), t(1, 4, 5)],
        action: None,
    })
    .unwrap();
    salvo(&mut game, 0, vec![t(1, 0, 1), t(2, 5, 4)]).unwrap();
    salvo(&mut game, 2, vec![t(0, 3, 5), t(1, 1, 1)]).unwrap();
    let events = salvo(&mut game, 1, vec![t(0, 2, 5), t(2, 4, 4)]).unwrap();
    assert!(events.contains(&Event::Eliminated { seat: 1 }));
    assert!(
        events.contains(&Event::TurnStarted { seat: 2 }),
        "f = 1 is out, so seat 2 starts"
    );
}

#[test]
fn r_6_8_simultaneous_last_eliminations_are_a_draw() {
    let mut game = boats(3, Options::default(), None);
    // Everyone sinks everyone in one round: shots_per_opponent 2 needed.
    let mut game2 = boats(
        3,
        Options {
            shots_per_opponent: Some(2),
            ..Options::default()
        },
        None,
    );
    salvo(
        &mut game2,
        0,
        vec![t(1, 0, 1), t(1, 1, 1), t(2, 0, 2), t(2, 1, 2)],
    )
    .unwrap();
    salvo(
        &mut game2,
        1,
        vec![t(0, 0, 0), t(0, 1, 0), t(2, 5, 5), t(2, 4, 4)],
    )
    .unwrap();
    let events = salvo(
        &mut game2,
        2,
        vec![t(0, 5, 5), t(0, 4, 4), t(1, 5, 5), t(1, 4, 4)],
    )
    .unwrap();
    assert!(
        events.contains(&Event::GameOver {
            winners: vec![0, 1, 2],
            draw: true
        }),
        "{events:?}"
    );
    assert_eq!(game2.phase(), Phase::Finished);
    // A single survivor wins outright.
    salvo(&mut game, 0, vec![t(1, 0, 1), t(2, 0, 2)]).unwrap();
    salvo(&mut game, 1, vec![t(0, 5, 5), t(2, 1, 2)]).unwrap();
    salvo(&mut game, 2, vec![t(0, 4, 5), t(1, 1, 1)]).unwrap();
    assert_eq!(
        game.winners(),
        Some(&[0usize][..]),
        "seats 1 and 2 sank together, seat 0 survives and wins"
    );
    assert!(!game.is_draw());
}

// ----- R-7 space ---------------------------------------------------------------------------------

fn space(seats: usize, options: Options) -> Game {
    Game::new(&Setup {
        preset: Preset::Space,
        seats,
        seed: 4,
        options,
        teams: None,
    })
    .unwrap()
}

fn buy(list: &[(&str, u32)]) -> BTreeMap<String, u32> {
    list.iter().map(|(id, n)| (id.to_string(), *n)).collect()
}

#[test]
fn r_7_1_space_is_twenty_by_ten_with_shop_placement_battle() {
    let mut game = space(2, Options::default());
    assert_eq!(game.rules().board, Size::new(20, 10));
    assert_eq!(game.phase(), Phase::Shop);
    game.apply(Command::Buy {
        seat: 0,
        ships: buy(&[("scout", 1)]),
    })
    .unwrap();
    game.apply(Command::Buy {
        seat: 1,
        ships: buy(&[("scout", 1)]),
    })
    .unwrap();
    assert_eq!(game.phase(), Phase::Placement);
    game.apply(Command::PlaceRandom { seat: 0 }).unwrap();
    game.apply(Command::PlaceRandom { seat: 1 }).unwrap();
    assert_eq!(game.phase(), Phase::Battle);
}

#[test]
fn r_7_2_the_shop_checks_prices_capital_limits_and_budget() {
    let mut game = space(2, Options::default());
    let lancer = game
        .rules()
        .catalogue
        .iter()
        .find(|t| t.id == "lancer")
        .unwrap()
        .price;
    assert_eq!(lancer, 40, "3 cells × 10 + 10 for the ability");
    let two_capitals = Command::Buy {
        seat: 0,
        ships: buy(&[("dreadnought", 1), ("station", 1)]),
    };
    assert_eq!(refuse(&mut game, two_capitals), RuleError::CapitalLimit);
    let over_limit = Command::Buy {
        seat: 0,
        ships: buy(&[("lancer", 3)]),
    };
    assert_eq!(
        refuse(&mut game, over_limit),
        RuleError::TypeLimit("lancer".into())
    );
    let too_dear = Command::Buy {
        seat: 0,
        ships: buy(&[
            ("dreadnought", 1),
            ("cruiser", 2),
            ("spirit", 2),
            ("lancer", 2),
            ("frigate", 2),
            ("corvette", 3),
        ]),
    };
    assert_eq!(
        refuse(&mut game, too_dear),
        RuleError::OverBudget {
            cost: 510,
            credits: 500
        }
    );
    let nothing = Command::Buy {
        seat: 0,
        ships: BTreeMap::new(),
    };
    assert!(matches!(
        refuse(&mut game, nothing),
        RuleError::BadCommand(_)
    ));
    let small = space(
        2,
        Options {
            cols: Some(6),
            rows: Some(6),
            ..Options::default()
        },
    );
    let big = buy(&[("dreadnought", 1), ("cruiser", 2), ("frigate", 2)]);
    assert_eq!(
        small.check_purchase(&big).unwrap_err(),
        RuleError::FleetDoesNotFit
    );
}

#[test]
fn r_7_2_capital_counts_too_large_to_add_are_over_the_capital_limit() {
    // Found by fuzzing (engine_setup): the counts wrapped around to 0 capital
    // ships (and overflowed, a panic in debug builds).
    let mut game = space(2, Options::default());
    let wrapped = Command::Buy {
        seat: 0,
        ships: buy(&[("dreadnought", 1), ("station", u32::MAX)]),
    };
    assert_eq!(refuse(&mut game, wrapped), RuleError::CapitalLimit);
}

#[test]
fn r_7_2_an_empty_shop_gets_the_default_fleet_on_timeout() {
    let mut game = space(2, Options::default());
    game.apply(Command::Buy {
        seat: 0,
        ships: buy(&[("scout", 1)]),
    })
    .unwrap();
    game.apply(Command::Timeout).unwrap();
    let view = game.view(Some(1));
    let fleet = view.seats[1].fleet.clone().unwrap();
    assert_eq!(fleet.values().sum::<u32>(), 14);
    let cells: u32 = fleet
        .iter()
        .map(|(id, n)| {
            n * game
                .rules()
                .catalogue
                .iter()
                .find(|t| &t.id == id)
                .unwrap()
                .shape
                .len() as u32
        })
        .sum();
    assert_eq!(cells, 46);
    let cost: u32 = fleet
        .iter()
        .map(|(id, n)| {
            n * game
                .rules()
                .catalogue
                .iter()
                .find(|t| &t.id == id)
                .unwrap()
                .price
        })
        .sum();
    assert_eq!(cost, 500);
    // With fewer credits: the largest affordable prefix.
    let mut poor = space(
        2,
        Options {
            credits: Some(150),
            ..Options::default()
        },
    );
    poor.apply(Command::Timeout).unwrap();
    let fleet = poor.view(Some(0)).seats[0].fleet.clone().unwrap();
    assert_eq!(fleet, buy(&[("dreadnought", 1), ("lancer", 2)]));
}

#[test]
fn r_7_3_on_a_small_field_the_default_fleet_is_the_largest_prefix_that_fits() {
    // Found by fuzzing (engine_setup): the whole default fleet does not fit 6×6,
    // so a seat whose shop timer ran out could never place it: a placement
    // timeout was refused after placing the other seats, and resigning in
    // placement panicked.
    let small = |seats| {
        space(
            seats,
            Options {
                cols: Some(6),
                rows: Some(6),
                ..Options::default()
            },
        )
    };
    let mut game = small(2);
    game.apply(Command::Timeout).unwrap();
    let fleet = game.view(Some(0)).seats[0].fleet.clone().unwrap();
    assert_eq!(
        fleet,
        buy(&[("dreadnought", 1), ("lancer", 2), ("spirit", 1)])
    );
    assert!(game.check_purchase(&fleet).is_ok(), "it fits the field");
    game.apply(Command::PlaceRandom { seat: 0 }).unwrap();
    game.apply(Command::PlaceRandom { seat: 1 }).unwrap();
    assert_eq!(game.phase(), Phase::Battle);

    let mut game = small(3);
    game.apply(Command::Buy {
        seat: 0,
        ships: buy(&[("scout", 1)]),
    })
    .unwrap();
    game.apply(Command::Timeout).unwrap();
    game.apply(Command::Resign { seat: 1 }).unwrap();
    game.apply(Command::Timeout).unwrap();
    assert_eq!(game.phase(), Phase::Battle);

    // Resigning in the shop gives the same fleet, which is then placed at random.
    let mut game = small(3);
    for seat in 0..2 {
        game.apply(Command::Buy {
            seat,
            ships: buy(&[("scout", 1)]),
        })
        .unwrap();
    }
    game.apply(Command::Resign { seat: 2 }).unwrap();
    assert_eq!(game.phase(), Phase::Placement);
    game.apply(Command::Timeout).unwrap();
    assert_eq!(game.phase(), Phase::Battle);
}

#[test]
fn r_7_3_catalogue_shapes_turn_four_ways() {
    let game = space(2, Options::default());
    let cells: Vec<(String, usize, usize)> = game
        .rules()
        .catalogue
        .iter()
        .map(|t| {
            (
                t.id.clone(),
                t.shape.len(),
                t.shape.distinct_rotations().len(),
            )
        })
        .collect();
    let expect = [
        ("fighter", 1, 1),
        ("scout", 2, 2),
        ("corvette", 3, 4),
        ("lancer", 3, 2),
        ("frigate", 4, 2),
        ("spirit", 4, 4),
        ("cruiser", 5, 4),
        ("dreadnought", 6, 4),
        ("station", 5, 1),
    ];
    for (id, n, rotations) in expect {
        assert!(cells.contains(&(id.to_string(), n, rotations)), "{id}");
    }
}

/// A two-seat space battle with fixed fleets and layouts, seat 0 first.
fn space_battle(
    fleet0: &[(&str, u32)],
    layout0: Vec<Placement>,
    fleet1: &[(&str, u32)],
    layout1: Vec<Placement>,
) -> Game {
    let mut game = space(
        2,
        Options {
            first: Some(0),
            ..Options::default()
        },
    );
    game.apply(Command::Buy {
        seat: 0,
        ships: buy(fleet0),
    })
    .unwrap();
    game.apply(Command::Buy {
        seat: 1,
        ships: buy(fleet1),
    })
    .unwrap();
    game.apply(Command::Place {
        seat: 0,
        ships: layout0,
    })
    .unwrap();
    game.apply(Command::Place {
        seat: 1,
        ships: layout1,
    })
    .unwrap();
    game
}

fn standard_space() -> Game {
    space_battle(
        &[("dreadnought", 1), ("lancer", 1), ("spirit", 1)],
        vec![
            p("dreadnought", 0, 0, 0),
            p("lancer", 10, 0, 0),
            p("spirit", 15, 5, 0),
        ],
        &[("station", 1), ("lancer", 1), ("scout", 1)],
        vec![
            p("station", 0, 0, 0),
            p("lancer", 10, 5, 1),
            p("scout", 17, 9, 0),
        ],
    )
}

/// The seat to move fires at a cell of its opponent that is water (the owner's
/// view shows the truth), in columns 13 to 19, so the turn ends.
fn miss(game: &mut Game) {
    let seat = game.to_move()[0];
    let board = 1 - seat;
    let truth = game.view(Some(board));
    let at = game
        .targetable_cells(seat, board)
        .into_iter()
        .rev()
        .find(|c| c.col >= 13 && truth.boards[board].at(*c) == '~')
        .expect("water is left");
    fire(game, seat, board, at.col, at.row).unwrap();
    assert_eq!(game.to_move(), vec![board], "a miss ends the turn");
}

/// Both seats miss `rounds` times each.
fn pass_rounds(game: &mut Game, rounds: u16) {
    for _ in 0..rounds * 2 {
        miss(game);
    }
}

#[test]
fn r_4_3_space_turns_end_after_three_shots_even_on_hits() {
    let mut game = standard_space();
    fire(&mut game, 0, 1, 10, 5).unwrap();
    fire(&mut game, 0, 1, 10, 6).unwrap();
    assert_eq!(game.to_move(), vec![0]);
    fire(&mut game, 0, 1, 10, 7).unwrap();
    assert_eq!(game.to_move(), vec![1], "the third shot ends the turn");
}

#[test]
fn r_7_4_opponents_see_only_ship_counts() {
    let game = standard_space();
    let view = game.view(Some(0));
    assert_eq!(view.seats[1].fleet, None);
    assert_eq!(view.seats[1].ships_afloat, 3);
    assert!(view.seats[0].fleet.is_some());
    assert!(view.ships.iter().all(|s| s.owner == 0));
}

#[test]
fn r_7_5_abilities_follow_their_cycles_and_end_the_turn() {
    let mut game = standard_space();
    let laser = |game: &mut Game, seat: usize| {
        game.apply(Command::Ability {
            seat,
            action: Action::Laser {
                board: 1 - seat,
                column: 14,
                from: End::Top,
            },
        })
    };
    assert_eq!(
        laser(&mut game, 0).unwrap_err(),
        RuleError::AbilityNotReady { next_round: 3 }
    );
    pass_rounds(&mut game, 2);
    assert_eq!(game.round_of(0), 3);
    laser(&mut game, 0).unwrap();
    assert_eq!(game.to_move(), vec![1], "an ability ends the turn");
    miss(&mut game);
    assert_eq!(
        laser(&mut game, 0).unwrap_err(),
        RuleError::AbilityNotReady { next_round: 6 }
    );
    assert_eq!(game.view(Some(0)).abilities["laser"].next_round, 6);
}

#[test]
fn r_7_5_an_ability_needs_a_ship_of_its_type_afloat() {
    let mut game = standard_space();
    pass_rounds(&mut game, 2);
    // Seat 0 sinks seat 1's lancer (3 shots), then seat 1 may not fire its laser.
    for row in 5..8 {
        fire(&mut game, 0, 1, 10, row).unwrap();
    }
    let laser = Command::Ability {
        seat: 1,
        action: Action::Laser {
            board: 0,
            column: 3,
            from: End::Top,
        },
    };
    assert_eq!(refuse(&mut game, laser), RuleError::AbilityUnavailable);
}

#[test]
fn r_7_6_laser_passes_water_and_wreckage_and_hits_the_first_intact_part() {
    let mut game = standard_space();
    pass_rounds(&mut game, 2);
    // Seat 0 wrecks the top of seat 1's lancer with a shot first... its laser
    // from the top then passes the wreck and hits the next part.
    fire(&mut game, 0, 1, 10, 5).unwrap();
    miss(&mut game);
    miss(&mut game);
    let events = game
        .apply(Command::Ability {
            seat: 0,
            action: Action::Laser {
                board: 1,
                column: 10,
                from: End::Top,
            },
        })
        .unwrap();
    assert_eq!(
        shots(&events),
        vec![(Cell::new(10, 6), ShotResult::Hit, None)]
    );
    let revealed: Vec<Cell> = events
        .iter()
        .filter_map(|e| match e {
            Event::Revealed { cells, .. } => Some(cells.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(
        revealed,
        (0..5).map(|r| Cell::new(10, r)).collect::<Vec<_>>()
    );
}

#[test]
fn r_7_6_a_laser_that_meets_nothing_reveals_the_column() {
    let mut game = standard_space();
    pass_rounds(&mut game, 2);
    let events = game
        .apply(Command::Ability {
            seat: 0,
            action: Action::Laser {
                board: 1,
                column: 14,
                from: End::Bottom,
            },
        })
        .unwrap();
    assert!(shots(&events).is_empty());
    let column: String = (0..10)
        .map(|r| game.view(Some(0)).boards[1].at(Cell::new(14, r)))
        .collect();
    assert_eq!(column, "..........");
    assert_eq!(
        game.view(None).boards[1].at(Cell::new(14, 0)),
        '.',
        "a laser's path is common knowledge"
    );
}

#[test]
fn r_7_7_scanner_is_private_and_clipped() {
    let mut game = standard_space();
    pass_rounds(&mut game, 5);
    assert_eq!(game.round_of(0), 6);
    let events = game
        .apply(Command::Ability {
            seat: 0,
            action: Action::Scanner {
                board: 1,
                center: Cell::new(0, 0),
            },
        })
        .unwrap();
    let Some(Event::Scan { cells, .. }) = events.iter().find(|e| matches!(e, Event::Scan { .. }))
    else {
        panic!("a scan event")
    };
    assert_eq!(cells.len(), 4, "clipped at the corner");
    let view = game.view(Some(0)).boards[1].rows.clone();
    assert_eq!(&view[0][..2], "-!");
    assert_eq!(&view[1][..2], "!!");
    assert_eq!(
        &game.view(Some(1)).boards[1].rows[0][..2],
        "~*",
        "the owner does not see the scan"
    );
    assert_eq!(&game.view(None).boards[1].rows[0][..2], "~~");
}

#[test]
fn r_7_8_nuke_explodes_on_a_hit_and_clips_at_the_edge() {
    let mut game = standard_space();
    pass_rounds(&mut game, 8);
    assert_eq!(game.round_of(0), 9);
    let events = game
        .apply(Command::Ability {
            seat: 0,
            action: Action::Nuke {
                board: 1,
                at: Cell::new(0, 1),
            },
        })
        .unwrap();
    // Manhattan ≤ 2 around (0, 1), clipped at the left and top edges: 8 cells.
    let fired = shots(&events);
    assert_eq!(fired.len(), 8, "{fired:?}");
    assert!(
        fired.iter().any(|s| s.1 == ShotResult::Sunk),
        "the station sinks"
    );
    // A nuke that misses is a single miss.
    let mut other = standard_space();
    pass_rounds(&mut other, 8);
    let events = other
        .apply(Command::Ability {
            seat: 0,
            action: Action::Nuke {
                board: 1,
                at: Cell::new(5, 5),
            },
        })
        .unwrap();
    assert_eq!(
        shots(&events),
        vec![(Cell::new(5, 5), ShotResult::Miss, None)]
    );
}

#[test]
fn r_7_9_reserve_brings_three_fighters_to_free_untouched_cells() {
    let mut game = standard_space();
    pass_rounds(&mut game, 8);
    miss(&mut game);
    assert_eq!(game.to_move(), vec![1]);
    let too_close = Command::Ability {
        seat: 1,
        action: Action::Reserve {
            board: None,
            cells: Some(vec![Cell::new(3, 0), Cell::new(5, 5), Cell::new(7, 7)]),
        },
    };
    assert_eq!(
        refuse(&mut game, too_close),
        RuleError::NotTargetable,
        "(3, 0) touches the station"
    );
    let events = game
        .apply(Command::Ability {
            seat: 1,
            action: Action::Reserve {
                board: None,
                cells: None,
            },
        })
        .unwrap();
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Reinforced {
            seat: 1,
            count: 3,
            ..
        }
    )));
    assert_eq!(game.view(Some(0)).seats[1].ships_afloat, 6);
    assert!(game
        .events_for(Some(0), &events)
        .iter()
        .all(|e| !matches!(e, Event::Reinforced { cells: Some(_), .. })));
    // The fighters do not count against the purchase limit and keep.
    let own = game.view(Some(1));
    let fighters: Vec<_> = own
        .ships
        .iter()
        .filter(|s| s.owner == 1 && s.ship_type == "fighter")
        .collect();
    assert_eq!(fighters.len(), 3);
}

#[test]
fn r_7_9_reserve_brings_fewer_when_fewer_cells_are_free() {
    // Seat 0's 6×6 field leaves only the 3×3 corner (3..5, 3..5) free of its
    // ships and their neighbours; seat 1 shoots most of it, so at most one
    // fighter fits when the reserve is ready.
    let options = Options {
        cols: Some(6),
        rows: Some(6),
        first: Some(1),
        ..Options::default()
    };
    let mut game = Game::new(&Setup {
        preset: Preset::Space,
        seats: 2,
        seed: 1,
        options,
        teams: None,
    })
    .unwrap();
    game.apply(Command::Buy {
        seat: 0,
        ships: buy(&[("station", 1), ("scout", 2)]),
    })
    .unwrap();
    game.apply(Command::Buy {
        seat: 1,
        ships: buy(&[("scout", 1)]),
    })
    .unwrap();
    let layout = vec![
        p("station", 0, 0, 0),
        p("scout", 4, 0, 1),
        p("scout", 0, 4, 0),
    ];
    game.apply(Command::Place {
        seat: 0,
        ships: layout,
    })
    .unwrap();
    game.apply(Command::Place {
        seat: 1,
        ships: vec![p("scout", 0, 0, 0)],
    })
    .unwrap();
    let mut seat1_shots = [
        (3, 3),
        (4, 3),
        (5, 3),
        (3, 4),
        (5, 4),
        (3, 5),
        (0, 0),
        (2, 0),
        (3, 0),
        (5, 0),
    ]
    .into_iter();
    let mut seat0_shots = (0..6u16).flat_map(|c| [(c, 5), (c, 4), (c, 3)]);
    while game.round_of(0) < 9 {
        let (seat, (col, row)) = match game.to_move()[0] {
            1 => (1, seat1_shots.next().unwrap()),
            _ => (0, seat0_shots.next().unwrap()),
        };
        fire(&mut game, seat, 1 - seat, col, row).unwrap();
        assert_eq!(game.to_move(), vec![1 - seat], "misses only");
    }
    let (col, row) = seat1_shots.next().unwrap();
    fire(&mut game, 1, 0, col, row).unwrap();
    assert_eq!(game.to_move(), vec![0]);
    let too_few = Command::Ability {
        seat: 0,
        action: Action::Reserve {
            board: None,
            cells: Some(vec![]),
        },
    };
    assert!(matches!(
        refuse(&mut game, too_few),
        RuleError::WrongShotCount { .. }
    ));
    let events = game
        .apply(Command::Ability {
            seat: 0,
            action: Action::Reserve {
                board: None,
                cells: None,
            },
        })
        .unwrap();
    let count = events.iter().find_map(|e| match e {
        Event::Reinforced { count, .. } => Some(*count),
        _ => None,
    });
    assert_eq!(count, Some(1), "only one of (4,4), (4,5), (5,5) fits");
}

#[test]
fn r_7_5_ability_cycles_carry_over_from_salvo_rounds_into_the_duel() {
    // Three space players; seat 2 is sunk in round 1, then a duel follows and the
    // rounds keep counting: a laser first becomes ready in round 3.
    let mut game = space(
        3,
        Options {
            shots_per_opponent: Some(1),
            ..Options::default()
        },
    );
    for seat in 0..3 {
        let ships = if seat == 2 {
            buy(&[("fighter", 1)])
        } else {
            buy(&[("lancer", 1), ("fighter", 1)])
        };
        game.apply(Command::Buy { seat, ships }).unwrap();
    }
    game.apply(Command::Place {
        seat: 0,
        ships: vec![p("lancer", 0, 0, 0), p("fighter", 19, 9, 0)],
    })
    .unwrap();
    game.apply(Command::Place {
        seat: 1,
        ships: vec![p("lancer", 0, 0, 0), p("fighter", 19, 9, 0)],
    })
    .unwrap();
    game.apply(Command::Place {
        seat: 2,
        ships: vec![p("fighter", 5, 5, 0)],
    })
    .unwrap();
    salvo(&mut game, 0, vec![t(1, 10, 5), t(2, 5, 5)]).unwrap();
    salvo(&mut game, 1, vec![t(0, 10, 5), t(2, 6, 6)]).unwrap();
    salvo(&mut game, 2, vec![t(0, 11, 5), t(1, 11, 5)]).unwrap();
    assert!(!game.in_salvo_round(), "two left: a duel");
    assert_eq!(game.round_of(0), 2);
    let seat = game.to_move()[0];
    let laser = Command::Ability {
        seat,
        action: Action::Laser {
            board: 1 - seat,
            column: 0,
            from: End::Top,
        },
    };
    assert_eq!(
        refuse(&mut game, laser.clone()),
        RuleError::AbilityNotReady { next_round: 3 }
    );
    let other = 1 - seat;
    fire(&mut game, seat, other, 12, 5).unwrap();
    fire(&mut game, other, seat, 12, 5).unwrap();
    assert_eq!(game.round_of(seat), 3);
    game.apply(laser).unwrap();
}

// ----- R-8 teams ------------------------------------------------------------------------------------

#[test]
fn r_8_1_teams_need_four_players() {
    let teams = |seats, teams: Vec<u32>| {
        Game::new(&Setup {
            preset: Preset::Classic,
            seats,
            seed: 1,
            options: Options::default(),
            teams: Some(teams),
        })
    };
    assert!(teams(3, vec![0, 1, 0]).is_err());
    assert!(teams(4, vec![0, 0, 0, 0]).is_err());
    assert!(teams(4, vec![0, 1, 0, 1]).is_ok());
}

#[test]
fn r_8_2_team_mates_are_never_targets() {
    let mut game = boats(4, Options::default(), Some(vec![0, 1, 0, 1]));
    let at_mate = Command::Salvo {
        seat: 0,
        shots: vec![t(1, 5, 5), t(2, 5, 5), t(3, 5, 5)],
        action: None,
    };
    assert_eq!(refuse(&mut game, at_mate), RuleError::OwnTeam);
    // Spread counts only opponents: one shot for each of seats 1 and 3.
    salvo(&mut game, 0, vec![t(1, 5, 5), t(3, 5, 5)]).unwrap();
}

#[test]
fn r_8_3_team_mates_see_each_others_ships_and_scans() {
    let mut game = boats(
        4,
        Options {
            specials: Some(true),
            ..Options::default()
        },
        Some(vec![0, 1, 0, 1]),
    );
    let view = game.view(Some(2));
    assert_eq!(
        view.boards[0].at(Cell::new(0, 0)),
        '*',
        "seat 2 sees seat 0's boat"
    );
    assert_eq!(view.boards[1].at(Cell::new(0, 1)), '~');
    game.apply(Command::Salvo {
        seat: 0,
        shots: vec![t(3, 5, 5)],
        action: Some(Action::Radar {
            board: 1,
            center: Cell::new(1, 1),
        }),
    })
    .unwrap();
    game.apply(Command::Timeout).unwrap();
    assert_eq!(
        game.view(Some(2)).boards[1].at(Cell::new(0, 1)),
        '!',
        "the team shares the radar"
    );
    assert_eq!(game.view(Some(3)).boards[1].at(Cell::new(0, 1)), '*');
    assert_eq!(game.view(None).boards[1].at(Cell::new(0, 1)), '~');
}

#[test]
fn r_8_4_the_last_team_afloat_wins() {
    let mut game = boats(
        4,
        Options {
            shots_per_opponent: Some(2),
            ..Options::default()
        },
        Some(vec![0, 1, 0, 1]),
    );
    salvo(
        &mut game,
        0,
        vec![t(1, 0, 1), t(1, 1, 1), t(3, 0, 3), t(3, 1, 3)],
    )
    .unwrap();
    salvo(
        &mut game,
        2,
        vec![t(1, 5, 5), t(1, 4, 4), t(3, 5, 5), t(3, 4, 4)],
    )
    .unwrap();
    salvo(
        &mut game,
        1,
        vec![t(0, 5, 5), t(0, 4, 4), t(2, 5, 5), t(2, 4, 4)],
    )
    .unwrap();
    let events = salvo(
        &mut game,
        3,
        vec![t(0, 5, 4), t(0, 4, 5), t(2, 5, 4), t(2, 4, 5)],
    )
    .unwrap();
    assert!(
        events.contains(&Event::GameOver {
            winners: vec![0, 2],
            draw: false
        }),
        "{events:?}"
    );
}

// ----- R-9 the shared sea ---------------------------------------------------------------------------

fn shared(seats: usize, teams: Option<Vec<u32>>) -> Game {
    Game::new(&Setup {
        preset: Preset::Shared,
        seats,
        seed: 6,
        options: Options {
            first: Some(0),
            ..Options::default()
        },
        teams,
    })
    .unwrap()
}

#[test]
fn r_9_1_block_layouts_for_two_to_six_seats() {
    for (seats, size) in [
        (2, (20, 10)),
        (3, (30, 10)),
        (4, (20, 20)),
        (5, (30, 20)),
        (6, (30, 20)),
    ] {
        let game = shared(seats, None);
        let view = game.view(None);
        assert_eq!(
            (view.boards[0].rows[0].len(), view.boards[0].rows.len()),
            size,
            "{seats} seats"
        );
        let blocks = view.blocks.unwrap();
        assert_eq!(blocks.len(), if seats == 5 { 6 } else { seats });
        if seats == 5 {
            assert!(
                blocks[5].empty && blocks[5].origin == Cell::new(20, 10),
                "the empty block is the last"
            );
            assert_eq!(view.boards[0].at(Cell::new(25, 15)), '=');
        }
        let origins: Vec<Cell> = game.status().blocks.unwrap().values().copied().collect();
        let mut unique = origins.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), seats, "one block per seat");
    }
}

#[test]
fn r_9_2_fleets_lie_in_the_own_block_and_may_touch_across_borders() {
    let mut game = shared(2, None);
    let blocks = game.status().blocks.unwrap();
    let (a, b) = (blocks[&0], blocks[&1]);
    let shifted = |origin: Cell| -> Vec<Placement> {
        classic_layout()
            .into_iter()
            .map(|mut pl| {
                pl.at = Cell::new(pl.at.col + origin.col, pl.at.row + origin.row);
                pl
            })
            .collect()
    };
    assert_eq!(
        refuse(
            &mut game,
            Command::Place {
                seat: 0,
                ships: shifted(b)
            }
        ),
        RuleError::OutsideOwnWaters
    );
    game.apply(Command::Place {
        seat: 0,
        ships: shifted(a),
    })
    .unwrap();
    // Seat 1 mirrors the layout so its submarine at (9, 0) of the block next to
    // seat 0's lies right across the border: allowed.
    game.apply(Command::Place {
        seat: 1,
        ships: shifted(b),
    })
    .unwrap();
    assert_eq!(game.phase(), Phase::Battle);
}

#[test]
fn r_9_3_block_owners_are_secret_and_hits_show_a_question_mark() {
    // Even with two seats, where the owner could be deduced, hits show «?».
    let mut game = shared(2, None);
    for seat in 0..2 {
        game.apply(Command::PlaceRandom { seat }).unwrap();
    }
    let view = game.view(Some(0));
    let blocks = view.blocks.clone().unwrap();
    let own = game.status().blocks.unwrap()[&0];
    for block in &blocks {
        assert_eq!(
            block.owner.is_some(),
            block.origin == own,
            "only the own block's owner is known"
        );
    }
    // Seat 0 finds a ship part of another block.
    let target = game
        .view(Some(1))
        .ships
        .iter()
        .find(|s| s.owner == 1)
        .unwrap()
        .cells[0];
    let single = game
        .view(Some(1))
        .ships
        .iter()
        .find(|s| s.owner == 1 && s.cells.len() > 1)
        .unwrap()
        .cells[0];
    let _ = target;
    fire(&mut game, 0, 0, single.col, single.row).unwrap();
    assert_eq!(game.view(Some(0)).boards[0].at(single), '?');
    assert_eq!(game.view(None).boards[0].at(single), '?');
    assert_eq!(
        game.view(Some(1)).boards[0].at(single),
        'X',
        "the owner knows"
    );
    assert!(game
        .view(Some(0))
        .blocks
        .unwrap()
        .iter()
        .all(|b| b.owner != Some(1)));
}

#[test]
fn r_9_3_a_sinking_reveals_the_owner_of_the_block() {
    let mut game = shared(3, None);
    for seat in 0..3 {
        game.apply(Command::PlaceRandom { seat }).unwrap();
    }
    let submarine = game
        .view(Some(2))
        .ships
        .iter()
        .find(|s| s.owner == 2 && s.cells.len() == 1)
        .unwrap()
        .cells[0];
    let shots: Vec<Target> = {
        let mut shots = vec![Target {
            board: 0,
            at: submarine,
        }];
        let own = game.status().blocks.unwrap();
        let b1 = own[&1];
        let cell = game
            .targetable_cells(0, 0)
            .into_iter()
            .find(|c| {
                c.col >= b1.col && c.col < b1.col + 10 && c.row >= b1.row && c.row < b1.row + 10
            })
            .unwrap();
        shots.push(Target { board: 0, at: cell });
        shots.push(Target {
            board: 0,
            at: game
                .targetable_cells(0, 0)
                .into_iter()
                .find(|c| {
                    c.col >= b1.col
                        && c.col < b1.col + 10
                        && *c != cell
                        && c.row >= b1.row
                        && c.row < b1.row + 10
                })
                .unwrap(),
        });
        shots
    };
    // Spread with 2 per opponent: one opponent gets the submarine + another cell.
    let blocks = game.status().blocks.unwrap();
    let b2 = blocks[&2];
    let extra = game
        .targetable_cells(0, 0)
        .into_iter()
        .find(|c| {
            c.col >= b2.col
                && c.col < b2.col + 10
                && c.row >= b2.row
                && c.row < b2.row + 10
                && *c != submarine
        })
        .unwrap();
    let mut all = shots;
    all.push(Target {
        board: 0,
        at: extra,
    });
    salvo(&mut game, 0, all).unwrap();
    game.apply(Command::Timeout).unwrap();
    let view = game.view(Some(0));
    assert_eq!(view.boards[0].at(submarine), '#');
    assert!(view
        .blocks
        .unwrap()
        .iter()
        .any(|b| b.owner == Some(2) && b.origin == b2));
}

#[test]
fn r_9_4_the_seat_to_move_owes_shots_to_every_opponent_block_in_block_order() {
    let mut game = shared(5, None);
    for seat in 0..5 {
        game.apply(Command::PlaceRandom { seat }).unwrap();
    }
    let origins = game.status().blocks.unwrap();
    let blocks: Vec<Cell> = game
        .view(Some(0))
        .blocks
        .unwrap()
        .iter()
        .map(|b| b.origin)
        .collect();
    let block_of = |seat: usize| blocks.iter().position(|&o| o == origins[&seat]).unwrap();
    let mut opponents: Vec<usize> = (1..5).map(block_of).collect();
    opponents.sort_unstable();
    let targets = game.view(Some(0)).legal_targets.unwrap();
    // By block, never by owner: the order tells nothing of whose block is whose.
    let due: Vec<(usize, Option<usize>, u32, Option<u32>)> = targets
        .waters
        .iter()
        .map(|w| (w.board, w.block, w.targetable_cells, w.shots_due))
        .collect();
    let expected: Vec<_> = opponents
        .iter()
        .map(|&b| (0, Some(b), 100, Some(2)))
        .collect();
    assert_eq!(due, expected);
    assert!(!opponents.contains(&block_of(0)) && !opponents.contains(&5));
}

#[test]
fn r_9_4_the_own_block_and_the_empty_block_are_not_targets() {
    let mut game = shared(5, None);
    for seat in 0..5 {
        game.apply(Command::PlaceRandom { seat }).unwrap();
    }
    let own = game.status().blocks.unwrap()[&0];
    assert!(game
        .targetable_cells(0, 0)
        .iter()
        .all(|c| !(c.col >= own.col
            && c.col < own.col + 10
            && c.row >= own.row
            && c.row < own.row + 10)));
    assert!(
        !game.is_targetable(0, 0, Cell::new(25, 15)),
        "the empty block"
    );
    let mut shots = Vec::new();
    for opponent in 1..5 {
        let origin = game.status().blocks.unwrap()[&opponent];
        shots.push(Target {
            board: 0,
            at: Cell::new(origin.col + 9, origin.row + 9),
        });
        shots.push(Target {
            board: 0,
            at: Cell::new(origin.col + 8, origin.row + 9),
        });
    }
    let with_own = {
        let mut s = shots.clone();
        s[0] = Target { board: 0, at: own };
        s
    };
    assert_eq!(
        refuse(
            &mut game,
            Command::Salvo {
                seat: 0,
                shots: with_own,
                action: None
            }
        ),
        RuleError::OwnBoard
    );
}

/// Targetable cells of `seat` inside the block of `owner`, intact parts of
/// that owner first when `prefer_ships`.
fn block_targets(game: &Game, seat: usize, owner: usize, prefer_ships: bool) -> Vec<Cell> {
    let origin = game.status().blocks.unwrap()[&owner];
    let truth = game.view(Some(owner));
    let mut cells: Vec<Cell> = game
        .targetable_cells(seat, 0)
        .into_iter()
        .filter(|c| {
            c.col >= origin.col
                && c.col < origin.col + 10
                && c.row >= origin.row
                && c.row < origin.row + 10
        })
        .collect();
    if prefer_ships {
        cells.sort_by_key(|c| truth.boards[0].at(*c) != '*');
    }
    cells
}

#[test]
fn r_9_5_eliminated_blocks_are_revealed_and_no_longer_targets() {
    let mut game = shared(3, None);
    for seat in 0..3 {
        game.apply(Command::PlaceRandom { seat }).unwrap();
    }
    let victim_cells: Vec<Cell> = game
        .view(Some(2))
        .ships
        .iter()
        .filter(|s| s.owner == 2)
        .flat_map(|s| s.cells.clone())
        .collect();
    let mut rounds = 0;
    while game.is_alive(2) {
        rounds += 1;
        assert!(rounds < 30, "seat 2 sinks within 30 rounds");
        let mut shots: Vec<Target> = block_targets(&game, 0, 2, true)
            .into_iter()
            .take(2)
            .map(|at| Target { board: 0, at })
            .collect();
        shots.extend(
            block_targets(&game, 0, 1, false)
                .into_iter()
                .rev()
                .take(2)
                .map(|at| Target { board: 0, at }),
        );
        salvo(&mut game, 0, shots).unwrap();
        game.apply(Command::Timeout).unwrap();
        if game.phase() != Phase::Battle {
            break;
        }
    }
    assert!(!game.is_alive(2));
    let origin = game.status().blocks.unwrap()[&2];
    let view = game.view(Some(0));
    let block = view
        .blocks
        .clone()
        .unwrap()
        .into_iter()
        .find(|b| b.origin == origin)
        .unwrap();
    assert_eq!((block.owner, block.eliminated), (Some(2), true));
    let unknown = (0..10)
        .flat_map(|r| (0..10).map(move |c| Cell::new(origin.col + c, origin.row + r)))
        .find(|c| view.boards[0].at(*c) == '=')
        .expect("unknown cells of an eliminated block show '='");
    assert!(!game.is_targetable(0, 0, unknown));
    assert!(
        victim_cells.iter().all(|c| view.boards[0].at(*c) == '#'),
        "what was found stays visible"
    );
    assert!(
        !view.boards[0].rows.concat().contains('.'),
        "no water ring in the shared sea"
    );
}

// ----- vision ------------------------------------------------------------------------------------

#[test]
fn r_11_4_eliminated_players_watch_with_full_vision() {
    let mut game = boats(3, Options::default(), None);
    salvo(&mut game, 0, vec![t(1, 5, 5), t(2, 0, 2)]).unwrap();
    salvo(&mut game, 1, vec![t(0, 5, 5), t(2, 1, 2)]).unwrap();
    salvo(&mut game, 2, vec![t(0, 4, 5), t(1, 4, 5)]).unwrap();
    let view = game.view(Some(2));
    assert!(view.full_vision);
    assert_eq!(view.boards[0].at(Cell::new(0, 0)), '*');
    assert_eq!(view.boards[1].at(Cell::new(0, 1)), '*');
    assert!(!game.view(Some(0)).full_vision);
    assert_eq!(game.view(Some(0)).boards[1].at(Cell::new(0, 1)), '~');
}

#[test]
fn r_11_4_spectators_see_common_knowledge_unless_the_room_shows_all() {
    let game = battle(Preset::Classic, Options::default());
    assert!(game
        .view(None)
        .boards
        .iter()
        .all(|b| b.rows.iter().all(|r| !r.contains('*'))));
    let all = battle(
        Preset::Classic,
        Options {
            spectators_see_all: Some(true),
            ..Options::default()
        },
    );
    assert!(all
        .view(None)
        .boards
        .iter()
        .all(|b| b.rows.concat().matches('*').count() == 20));
    assert!(
        !all.view(Some(0)).full_vision,
        "players still see only their own"
    );
}

#[test]
fn r_6_6_lasers_fire_after_the_rounds_shots_and_pass_their_wreckage() {
    let mut game = space(
        3,
        Options {
            shots_per_opponent: Some(1),
            ..Options::default()
        },
    );
    for seat in 0..3 {
        game.apply(Command::Buy {
            seat,
            ships: buy(&[("lancer", 1), ("scout", 1)]),
        })
        .unwrap();
    }
    for seat in 0..3 {
        game.apply(Command::Place {
            seat,
            ships: vec![p("lancer", 0, 0, 0), p("scout", 5, 0, 1)],
        })
        .unwrap();
    }
    assert_eq!(game.phase(), Phase::Battle);
    // Two rounds of misses in the far corner.
    for round in 0..2u16 {
        for seat in 0..3 {
            let shots = (0..3)
                .filter(|&b| b != seat)
                .map(|b| t(b, 19 - round, 9 - seat as u16))
                .collect();
            salvo(&mut game, seat, shots).unwrap();
        }
    }
    assert_eq!(game.round_of(1), 3);
    // Round 3: seat 0 shoots the top of seat 2's scout while seat 1's laser runs
    // down the same column: the laser comes later and hits the part below.
    salvo(&mut game, 0, vec![t(1, 15, 5), t(2, 5, 0)]).unwrap();
    game.apply(Command::Salvo {
        seat: 1,
        shots: vec![t(0, 15, 5)],
        action: Some(Action::Laser {
            board: 2,
            column: 5,
            from: End::Top,
        }),
    })
    .unwrap();
    let events = salvo(&mut game, 2, vec![t(0, 15, 6), t(1, 15, 6)]).unwrap();
    let on_scout: Vec<_> = shot_results(&events)
        .into_iter()
        .filter(|r| r.1 == 2)
        .collect();
    assert_eq!(
        on_scout,
        vec![
            (0, 2, Cell::new(5, 0), ShotResult::Sunk),
            (1, 2, Cell::new(5, 1), ShotResult::Sunk)
        ],
        "the plain shot lands first, the laser passes its wreck"
    );
}

#[test]
fn r_6_6_reserves_land_before_the_rounds_shots() {
    let mut game = space(
        3,
        Options {
            shots_per_opponent: Some(1),
            ..Options::default()
        },
    );
    for seat in 0..3 {
        let ships = if seat == 0 {
            buy(&[("station", 1)])
        } else {
            buy(&[("scout", 1)])
        };
        game.apply(Command::Buy { seat, ships }).unwrap();
    }
    game.apply(Command::Place {
        seat: 0,
        ships: vec![p("station", 0, 0, 0)],
    })
    .unwrap();
    for seat in 1..3 {
        game.apply(Command::Place {
            seat,
            ships: vec![p("scout", 0, 0, 0)],
        })
        .unwrap();
    }
    for round in 0..8u16 {
        for seat in 0..3 {
            let shots = (0..3)
                .filter(|&b| b != seat)
                .map(|b| t(b, 19 - round, 9 - seat as u16))
                .collect();
            salvo(&mut game, seat, shots).unwrap();
        }
    }
    assert_eq!(game.round_of(0), 9);
    game.apply(Command::Salvo {
        seat: 0,
        shots: vec![t(2, 10, 5)],
        action: Some(Action::Reserve {
            board: Some(1),
            cells: Some(vec![Cell::new(10, 5), Cell::new(12, 5), Cell::new(14, 5)]),
        }),
    })
    .unwrap();
    salvo(&mut game, 1, vec![t(0, 10, 5), t(2, 10, 6)]).unwrap();
    let events = salvo(&mut game, 2, vec![t(0, 12, 6), t(1, 10, 6)]).unwrap();
    let on_fighter: Vec<_> = shot_results(&events)
        .into_iter()
        .filter(|r| r.1 == 0 && r.2 == Cell::new(10, 5))
        .collect();
    assert_eq!(
        on_fighter,
        vec![(1, 0, Cell::new(10, 5), ShotResult::Sunk)],
        "the new fighter was already there"
    );
}

#[test]
fn r_6_5_an_ability_replaces_the_shots_on_one_opponent() {
    let mut game = boats(
        3,
        Options {
            specials: Some(true),
            shots_per_opponent: Some(2),
            ..Options::default()
        },
        None,
    );
    let radar = Action::Radar {
        board: 1,
        center: Cell::new(1, 1),
    };
    // With the radar on seat 1, shots go only to seat 2.
    let extra = Command::Salvo {
        seat: 0,
        shots: vec![t(1, 5, 5), t(2, 5, 5), t(2, 4, 4)],
        action: Some(radar.clone()),
    };
    assert_eq!(
        refuse(&mut game, extra),
        RuleError::WrongShotCount {
            expected: 0,
            got: 1
        }
    );
    game.apply(Command::Salvo {
        seat: 0,
        shots: vec![t(2, 5, 5), t(2, 4, 4)],
        action: Some(radar),
    })
    .unwrap();
    let events = game.apply(Command::Timeout).unwrap();
    assert!(shot_results(&events)
        .iter()
        .filter(|r| r.0 == 0)
        .all(|r| r.1 == 2));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Scan {
            seat: 0,
            board: 1,
            ..
        }
    )));
    // One ability per round: the command has room for one only, and a second
    // radar is limited by its uses.
    assert_eq!(
        game.special_uses_left(0, broadside_engine::ActionKind::Radar),
        1
    );
}

#[test]
fn action_areas_for_previews_are_clipped_to_the_board() {
    let game = battle(Preset::Italia, Options::default());
    assert_eq!(
        game.action_area(&Action::Wide {
            board: 1,
            center: Cell::new(0, 0)
        })
        .len(),
        4
    );
    assert_eq!(
        game.action_area(&Action::Nuke {
            board: 1,
            at: Cell::new(0, 1)
        })
        .len(),
        8
    );
    assert_eq!(
        game.action_area(&Action::Nuke {
            board: 1,
            at: Cell::new(8, 8)
        })
        .len(),
        13
    );
    assert_eq!(
        game.action_area(&Action::Bombard {
            board: 1,
            line: broadside_engine::Line::Row(3)
        })
        .len(),
        16
    );
    assert!(game
        .action_area(&Action::Radar {
            board: 1,
            center: Cell::new(16, 0)
        })
        .is_empty());
    assert!(game
        .action_area(&Action::Reserve {
            board: None,
            cells: None
        })
        .is_empty());
}

// ----- resigning before the battle (R-11.2) -----------------------------------------------------

#[test]
fn a_seat_that_resigns_in_the_shop_is_placed_at_random_and_never_awaited() {
    let mut game = space(3, Options::default());
    game.apply(Command::Resign { seat: 2 }).unwrap();
    for seat in [0, 1] {
        game.apply(Command::Buy {
            seat,
            ships: buy(&[("scout", 1)]),
        })
        .unwrap();
    }
    assert_eq!(game.phase(), Phase::Placement);
    assert_eq!(
        game.to_move(),
        vec![0, 1],
        "nobody waits for the resigned seat"
    );
    game.apply(Command::PlaceRandom { seat: 0 }).unwrap();
    game.apply(Command::PlaceRandom { seat: 1 }).unwrap();
    assert_eq!(game.phase(), Phase::Battle);
}

#[test]
fn a_seat_that_resigned_in_placement_never_gets_the_first_turn() {
    for seed in 0..24 {
        let mut game = Game::new(&Setup {
            seed,
            ..setup(Preset::Classic, 3, Options::default())
        })
        .unwrap();
        game.apply(Command::Resign { seat: 2 }).unwrap();
        game.apply(Command::PlaceRandom { seat: 0 }).unwrap();
        game.apply(Command::PlaceRandom { seat: 1 }).unwrap();
        assert_eq!(game.phase(), Phase::Battle);
        assert!(!game.in_salvo_round(), "two are left: a duel");
        let first = game.to_move();
        assert!(
            first == vec![0] || first == vec![1],
            "seed {seed}: {first:?}"
        );
    }
}
