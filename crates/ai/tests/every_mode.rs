//! Bots play every preset and mode against each other: no illegal move, no panic.

use broadside_ai::{Bot, Strategy};
use broadside_engine::{Game, Options, Phase, Preset, Setup};

/// Plays one game to the end; panics on an illegal move or a game that stalls.
fn play(setup: &Setup, strategy: Strategy) -> Game {
    let mut game = Game::new(setup).expect("valid setup");
    let mut bots: Vec<Bot> = (0..setup.seats).map(|s| Bot::new(strategy, setup.seed * 31 + s as u64)).collect();
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
            let command = bots[seat].next_command(&view, game.rules()).expect("a seat to move has a move");
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

#[test]
fn random_bots_finish_every_preset_and_seat_count() {
    let mut games = 0;
    for preset in Preset::ALL {
        for seats in 2..=preset.max_seats() {
            for seed in 0..6 {
                let setup = Setup { preset, seats, seed, options: Options::default(), teams: None };
                let game = play(&setup, Strategy::Random);
                assert!(game.winners().is_some());
                games += 1;
            }
        }
    }
    for seed in 0..6 {
        let hard = Options { report: Some(broadside_engine::Report::PerVolley), ..Options::default() };
        play(&Setup { preset: Preset::Brasil, seats: 2, seed, options: hard, teams: None }, Strategy::Random);
        let focus = Options { salvo: Some(broadside_engine::SalvoMode::Focus), ..Options::default() };
        play(&Setup { preset: Preset::Classic, seats: 5, seed, options: focus, teams: None }, Strategy::Random);
        play(&Setup { preset: Preset::Shared, seats: 4, seed, options: Options::default(), teams: Some(vec![0, 1, 0, 1]) }, Strategy::Random);
        games += 3;
    }
    assert!(games > 100);
}
