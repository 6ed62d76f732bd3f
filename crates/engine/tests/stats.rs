//! End-of-game statistics (`Game::stats`): each seat's shots, hits, ships sunk
//! by its own shots and the cells it shot at, in a duel, in salvo rounds of
//! three and in the shared sea, checked against the events of the game; and
//! the all-seeing view that replays show (`Game::replay_view`).

mod common;

use broadside_engine::{
    Action, Cell, Command, Event, Game, Options, Phase, Preset, SeatStats, Setup, ShotCell,
    ShotResult, Target,
};
use common::*;

/// Plays the game to its end with timeouts (random placement, shots and
/// salvos) and returns every event on the way.
fn play_out(game: &mut Game) -> Vec<Event> {
    let mut events = Vec::new();
    for _ in 0..100_000 {
        if game.phase() == Phase::Finished {
            return events;
        }
        events.extend(game.apply(Command::Timeout).expect("a timeout applies"));
    }
    panic!("the game did not end");
}

/// The statistics the events announce: shots and hits per shooter, each
/// seat's cells, and the number of ships sunk.
fn from_events(seats: usize, events: &[Event]) -> (Vec<(u32, u32, Vec<ShotCell>)>, u32) {
    let mut per_seat = vec![(0, 0, Vec::new()); seats];
    let mut sunk = 0;
    for event in events {
        match event {
            Event::Shot {
                shooter,
                board,
                at,
                result,
                ..
            } => {
                let hit = *result != ShotResult::Miss;
                let seat = &mut per_seat[*shooter];
                seat.0 += 1;
                seat.1 += u32::from(hit);
                seat.2.push(ShotCell {
                    board: *board,
                    at: *at,
                    hit,
                });
            }
            Event::Sunk { .. } => sunk += 1,
            _ => {}
        }
    }
    for seat in &mut per_seat {
        seat.2.sort_by_key(|c| (c.board, c.at.row, c.at.col));
    }
    (per_seat, sunk)
}

/// Checks the statistics of a finished game against its events and returns them.
fn checked(game: &Game, events: &[Event]) -> Vec<SeatStats> {
    let stats = game.stats().expect("the game is over");
    let (expected, sunk) = from_events(game.seat_count(), events);
    assert_eq!(stats.len(), game.seat_count());
    for (seat, (s, (shots, hits, cells))) in stats.iter().zip(expected).enumerate() {
        assert_eq!(s.seat, seat);
        assert_eq!(s.shots, shots, "seat {seat}'s shots");
        assert_eq!(s.hits, hits, "seat {seat}'s hits");
        assert_eq!(s.cells, cells, "seat {seat}'s cells");
    }
    assert_eq!(
        stats.iter().map(|s| s.sunk).sum::<u32>(),
        sunk,
        "each sunk ship is credited to exactly one seat"
    );
    stats
}

fn shot(board: usize, col: u16, row: u16, hit: bool) -> ShotCell {
    ShotCell {
        board,
        at: Cell::new(col, row),
        hit,
    }
}

fn game(preset: Preset, seats: usize, seed: u64, options: Options) -> Game {
    Game::new(&Setup {
        preset,
        seats,
        seed,
        options,
        teams: None,
    })
    .expect("a valid setup")
}

#[test]
fn statistics_exist_only_once_the_game_is_over() {
    let mut game = battle(Preset::Classic, Options::default());
    fire(&mut game, 0, 1, 0, 0).unwrap();
    assert_eq!(game.stats(), None, "a running game keeps who hit what");
    play_out(&mut game);
    assert!(game.stats().is_some());
}

#[test]
fn a_duel_counts_each_seats_shots_hits_and_sinkings() {
    let mut game = battle(Preset::Classic, Options::default());
    let mut events = Vec::new();
    // Seat 0 sinks a submarine (9,9) and misses; then the clock plays on.
    events.extend(fire(&mut game, 0, 1, 9, 9).unwrap());
    events.extend(fire(&mut game, 0, 1, 4, 4).unwrap());
    events.extend(play_out(&mut game));
    let stats = checked(&game, &events);
    let winner = game.winners().expect("over")[0];
    let loser = 1 - winner;
    assert_eq!(stats[winner].sunk, 10, "the winner sank the whole fleet");
    let view = game.view(None);
    let sunk_of_winner = view.seats[winner].sunk.len() as u32;
    assert_eq!(stats[loser].sunk, sunk_of_winner);
    assert_eq!(stats[winner].hits, 20, "a classic fleet has 20 parts");
    assert!(stats[0].cells.contains(&shot(1, 9, 9, true)));
    assert!(stats[0].cells.contains(&shot(1, 4, 4, false)));
    // Every cell a seat shot at is on the other seat's board.
    assert!(stats[0].cells.iter().all(|c| c.board == 1));
    assert!(stats[1].cells.iter().all(|c| c.board == 0));
}

/// Plays `moves` timeouts, saves, then plays the game out both on and from
/// the save: the two ends and their statistics must agree. Returns the save.
fn saved_midway(mut game: Game, moves: usize) -> String {
    let mut events = Vec::new();
    for _ in 0..moves {
        events.extend(game.apply(Command::Timeout).unwrap());
    }
    let saved = game.save();
    let mut loaded = Game::load(&saved).unwrap();
    let mut rest = events.clone();
    rest.extend(play_out(&mut game));
    events.extend(play_out(&mut loaded));
    assert_eq!(rest, events);
    assert_eq!(checked(&game, &events), checked(&loaded, &events));
    saved
}

#[test]
fn a_duel_loaded_from_a_save_keeps_its_statistics() {
    let saved = saved_midway(battle(Preset::Classic, Options::default()), 30);
    assert!(
        !saved.contains("\"record\""),
        "two-seat saves are as they were"
    );
}

#[test]
fn brasil_volleys_count_every_cell_of_the_volley() {
    let mut game = battle(
        Preset::Brasil,
        Options {
            report: Some(broadside_engine::Report::PerVolley),
            ..Options::default()
        },
    );
    let events = play_out(&mut game);
    let stats = game.stats().unwrap();
    let mut shots = [0u32; 2];
    let mut hits = [0u32; 2];
    for event in &events {
        if let Event::Volley {
            shooter,
            cells,
            hits: h,
            ..
        } = event
        {
            shots[*shooter] += cells.len() as u32;
            hits[*shooter] += h;
        }
    }
    for seat in 0..2 {
        assert_eq!(stats[seat].shots, shots[seat]);
        assert_eq!(stats[seat].hits, hits[seat]);
        assert_eq!(stats[seat].cells.len() as u32, shots[seat]);
    }
    let winner = game.winners().unwrap()[0];
    assert_eq!(stats[winner].sunk, 15, "a brasil fleet has 15 ships");
}

fn t(board: usize, col: u16, row: u16) -> Target {
    Target {
        board,
        at: Cell::new(col, row),
    }
}

fn salvo(game: &mut Game, seat: usize, shots: Vec<Target>) -> Vec<Event> {
    game.apply(Command::Salvo {
        seat,
        shots,
        action: None,
    })
    .unwrap()
}

#[test]
fn a_salvo_round_credits_a_ship_to_one_seat_only() {
    // Three seats with one boat each, at (0, s)..(1, s) of seat s's board.
    let mut game = boats(3, Options::default(), None);
    let mut events = Vec::new();
    // Seats 0 and 1 each hit one half of seat 2's boat in the same round.
    events.extend(salvo(&mut game, 0, vec![t(1, 5, 5), t(2, 0, 2)]));
    events.extend(salvo(&mut game, 1, vec![t(0, 5, 5), t(2, 1, 2)]));
    events.extend(salvo(&mut game, 2, vec![t(0, 4, 5), t(1, 4, 5)]));
    assert!(events.contains(&Event::Eliminated { seat: 2 }));
    events.extend(play_out(&mut game));
    let stats = checked(&game, &events);
    assert!(stats[0].cells.contains(&shot(1, 5, 5, false)));
    assert!(stats[0].cells.contains(&shot(2, 0, 2, true)));
    assert!(stats[1].cells.contains(&shot(2, 1, 2, true)));
    // Both shots were hits, but only one of them sank the boat: the one struck
    // last in the round's order, which starts at its first seat — seat 0 in
    // the first round — so seat 1's. The duel's winner sank the other
    // boat.
    let winner = game.winners().unwrap()[0];
    let mut expected = [0u32; 3];
    expected[1] += 1;
    expected[winner] += 1;
    assert_eq!(
        stats.iter().map(|s| s.sunk).collect::<Vec<_>>(),
        expected.to_vec()
    );
    assert_eq!(stats[2].sunk, 0, "seat 2 sank nothing");
}

#[test]
fn salvo_games_of_three_count_each_seats_own_shots() {
    for seed in 0..6 {
        let mut game = game(Preset::Classic, 3, seed, Options::default());
        let events = play_out(&mut game);
        let stats = checked(&game, &events);
        let view = game.view(None);
        let sunk: u32 = view.seats.iter().map(|s| s.sunk.len() as u32).sum();
        assert_eq!(stats.iter().map(|s| s.sunk).sum::<u32>(), sunk);
        assert!(
            stats.iter().all(|s| s.sunk < 20),
            "nobody sank both other fleets' 20 ships alone: {stats:?}"
        );
        for s in &stats {
            assert!(s.cells.iter().all(|c| c.board != s.seat), "own board");
            assert!(s.hits <= s.shots);
        }
    }
}

#[test]
fn a_salvo_game_keeps_its_record_through_a_save() {
    let saved = saved_midway(game(Preset::Classic, 3, 11, Options::default()), 12);
    assert!(saved.contains("\"record\""));

    // A save from before the record loads; its statistics start at the load.
    // (The record is the game's last field; the generator's state is too
    // large a number for a JSON value, so the text is cut instead.)
    let record = saved.find(",\"record\":").expect("the record is saved");
    let old = format!("{}}}}}", &saved[..record]);
    let mut loaded = Game::load(&old).expect("an old save still loads");
    let after = play_out(&mut loaded);
    checked(&loaded, &after);
}

#[test]
fn shared_sea_shots_belong_to_their_shooters() {
    for (seats, seed) in [(2, 1), (3, 2), (4, 3), (5, 4)] {
        let mut game = game(Preset::Shared, seats, seed, Options::default());
        let events = play_out(&mut game);
        let stats = checked(&game, &events);
        let blocks = game.status().blocks.expect("the shared sea has blocks");
        let size = game.rules().board;
        let owner_of = |at: Cell| {
            blocks
                .iter()
                .find(|(_, o)| {
                    at.col >= o.col
                        && at.row >= o.row
                        && at.col - o.col < size.cols
                        && at.row - o.row < size.rows
                })
                .map(|(&seat, _)| seat)
        };
        for s in &stats {
            for c in &s.cells {
                assert_eq!(c.board, 0, "one board in the shared sea");
                let owner = owner_of(c.at).expect("shots land in a seat's block");
                assert_ne!(owner, s.seat, "seat {} shot its own block", s.seat);
            }
        }
        let sunk: u32 = game
            .view(None)
            .seats
            .iter()
            .map(|s| s.sunk.len() as u32)
            .sum();
        assert_eq!(stats.iter().map(|s| s.sunk).sum::<u32>(), sunk);
    }
}

#[test]
fn an_area_special_counts_each_cell_it_shoots() {
    let mut game = battle(Preset::Italia, Options::default());
    let mut events = game
        .apply(Command::Ability {
            seat: 0,
            action: Action::Wide {
                board: 1,
                center: Cell::new(1, 1),
            },
        })
        .unwrap();
    // The 3×3 square around (1, 1): the carrier's first three cells on row 0
    // and the battleship's on row 2 are hit, row 1 is water.
    events.extend(play_out(&mut game));
    let stats = checked(&game, &events);
    for col in 0..3 {
        for row in 0..3 {
            assert!(stats[0].cells.contains(&shot(1, col, row, row != 1)));
        }
    }
}

#[test]
fn space_games_count_every_seat() {
    for (seats, seed) in [(2, 5), (3, 6)] {
        let mut game = game(Preset::Space, seats, seed, Options::default());
        let events = play_out(&mut game);
        checked(&game, &events);
    }
}

#[test]
fn the_replay_view_sees_everything_while_the_game_runs() {
    for (preset, seats) in [
        (Preset::Classic, 3),
        (Preset::Shared, 4),
        (Preset::Space, 2),
    ] {
        let mut game = game(preset, seats, 9, Options::default());
        // A twin whose spectators see everything is the reference.
        let mut twin = self::game(
            preset,
            seats,
            9,
            Options {
                spectators_see_all: Some(true),
                ..Options::default()
            },
        );
        for _ in 0..8 {
            let events = game.apply(Command::Timeout).unwrap();
            let twin_events = twin.apply(Command::Timeout).unwrap();
            assert_eq!(game.replay_view(), twin.view(None));
            assert_eq!(
                game.replay_events(&events),
                twin_events,
                "nothing is hidden"
            );
            assert_ne!(game.phase(), Phase::Finished);
        }
        assert!(game.replay_view().full_vision);
        assert_ne!(game.view(None), game.replay_view(), "spectators see less");
    }
}
