//! The simple strategies fire where their own score is highest.

use broadside_ai::{Bot, Strategy};
use broadside_engine::{Cell, Command, Game, Options, Placement, Preset, Setup, Target};

fn ship(id: &str, col: u16, row: u16, rot: u8) -> Placement {
    Placement {
        ship_type: id.to_string(),
        at: Cell::new(col, row),
        rot,
    }
}

/// A practice game of the hasbro preset where seat 0 has just hit the carrier
/// lying along the top edge at B1 (column 1, row 0).
fn after_a_hit_next_to_the_corner() -> Game {
    let setup = Setup {
        preset: Preset::Hasbro,
        seats: 2,
        seed: 5,
        options: Options {
            practice: Some(true),
            ..Options::default()
        },
        teams: None,
    };
    let mut game = Game::new(&setup).expect("a hasbro game");
    game.apply(Command::PlaceRandom { seat: 0 }).unwrap();
    game.apply(Command::Place {
        seat: 1,
        ships: vec![
            ship("carrier", 0, 0, 0),
            ship("battleship", 0, 9, 0),
            ship("cruiser", 9, 2, 1),
            ship("submarine", 5, 5, 0),
            ship("destroyer", 3, 7, 1),
        ],
    })
    .unwrap();
    game.apply(Command::Fire {
        seat: 0,
        target: Target {
            board: 1,
            at: Cell::new(1, 0),
        },
    })
    .unwrap();
    game
}

/// Placements through the hit cover C1 most (both horizontal spans), A1 and
/// B2 less. Every neighbour's hit probability is capped at 1.0, so only the
/// raw count can tell them apart; before it did, the choice among the three
/// was random.
#[test]
fn density_follows_a_hit_where_most_placements_pass() {
    for seed in 0..24 {
        let game = after_a_hit_next_to_the_corner();
        let mut bot = Bot::new(Strategy::Density, seed);
        let command = bot
            .next_command(&game.view(Some(0)), game.rules())
            .expect("seat 0 is to move after a hit");
        let Command::Fire { target, .. } = command else {
            panic!("a duel turn is a shot: {command:?}");
        };
        assert_eq!(
            (target.board, target.at),
            (1, Cell::new(2, 0)),
            "seed {seed}"
        );
    }
}
