//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

use broadside_engine::{
    Cell, Command, CustomShip, Event, Game, Options, Phase, Placement, Preset, RuleError, Setup,
    Target,
};

pub fn setup(preset: Preset, seats: usize, options: Options) -> Setup {
    Setup {
        preset,
        seats,
        seed: 7,
        options,
        teams: None,
    }
}

pub fn new_game(preset: Preset, options: Options) -> Game {
    Game::new(&setup(preset, 2, options)).expect("valid setup")
}

pub fn p(ship: &str, col: u16, row: u16, rot: u8) -> Placement {
    Placement {
        ship_type: ship.to_string(),
        at: Cell::new(col, row),
        rot,
    }
}

/// A legal classic layout: the battleship on row A from column 1.
pub fn classic_layout() -> Vec<Placement> {
    vec![
        p("battleship", 0, 0, 0),
        p("cruiser", 0, 2, 0),
        p("cruiser", 0, 4, 0),
        p("destroyer", 0, 6, 0),
        p("destroyer", 0, 8, 0),
        p("destroyer", 5, 0, 1),
        p("submarine", 9, 9, 0),
        p("submarine", 9, 0, 0),
        p("submarine", 7, 9, 0),
        p("submarine", 5, 9, 0),
    ]
}

/// A legal hasbro layout (ships may touch there, this one does on purpose).
pub fn hasbro_layout() -> Vec<Placement> {
    vec![
        p("carrier", 0, 0, 0),
        p("battleship", 0, 1, 0),
        p("cruiser", 0, 2, 0),
        p("submarine", 0, 3, 0),
        p("destroyer", 0, 4, 0),
    ]
}

/// A legal brasil layout on 15×15 (columns are letters there).
pub fn brasil_layout() -> Vec<Placement> {
    vec![
        p("carrier", 0, 0, 0),
        p("battleship", 0, 2, 0),
        p("battleship", 0, 4, 0),
        p("cruiser", 0, 6, 0),
        p("cruiser", 0, 8, 0),
        p("cruiser", 0, 10, 0),
        p("submarine", 6, 0, 0),
        p("submarine", 8, 0, 0),
        p("submarine", 10, 0, 0),
        p("submarine", 12, 0, 0),
        p("seaplane", 6, 3, 0),
        p("seaplane", 10, 3, 0),
        p("seaplane", 6, 7, 0),
        p("seaplane", 10, 7, 0),
        p("seaplane", 6, 11, 0),
    ]
}

/// A legal italia layout on 16×16.
pub fn italia_layout() -> Vec<Placement> {
    vec![
        p("carrier", 0, 0, 0),
        p("battleship", 0, 2, 0),
        p("battleship", 0, 4, 0),
        p("cruiser", 0, 6, 0),
        p("cruiser", 0, 8, 0),
        p("cruiser", 0, 10, 0),
        p("destroyer", 0, 12, 0),
        p("destroyer", 0, 14, 0),
        p("destroyer", 6, 0, 0),
        p("destroyer", 9, 0, 0),
        p("submarine", 12, 0, 0),
        p("submarine", 14, 0, 0),
        p("submarine", 6, 2, 0),
        p("submarine", 8, 2, 0),
        p("submarine", 10, 2, 0),
    ]
}

pub fn layout_for(preset: Preset) -> Vec<Placement> {
    match preset {
        Preset::Hasbro => hasbro_layout(),
        Preset::Brasil => brasil_layout(),
        Preset::Italia => italia_layout(),
        _ => classic_layout(),
    }
}

/// A two-seat game of `preset` in battle, both seats on the preset's fixed
/// layout, seat 0 to move.
pub fn battle(preset: Preset, mut options: Options) -> Game {
    options.first = Some(0);
    let mut game = new_game(preset, options);
    for seat in 0..2 {
        game.apply(Command::Place {
            seat,
            ships: layout_for(preset),
        })
        .expect("legal layout");
    }
    assert_eq!(game.phase(), Phase::Battle);
    game
}

pub fn fire(
    game: &mut Game,
    seat: usize,
    board: usize,
    col: u16,
    row: u16,
) -> Result<Vec<Event>, RuleError> {
    game.apply(Command::Fire {
        seat,
        target: Target {
            board,
            at: Cell::new(col, row),
        },
    })
}

/// Applies a command that must be refused, and checks that nothing changed.
pub fn refuse(game: &mut Game, command: Command) -> RuleError {
    let before = game.save();
    let error = game
        .apply(command)
        .expect_err("the command must be refused");
    assert_eq!(before, game.save(), "a refused command changed the game");
    error
}

/// The rows of `board` as `seat` sees them.
pub fn rows(game: &Game, seat: Option<usize>, board: usize) -> Vec<String> {
    game.view(seat).boards[board].rows.clone()
}

pub fn shots(events: &[Event]) -> Vec<(Cell, broadside_engine::ShotResult, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Shot {
                at, result, ship, ..
            } => Some((*at, *result, ship.clone())),
            _ => None,
        })
        .collect()
}

/// Small seas for quick multiplayer games: one boat of two cells on 6×6.
pub fn boats(seats: usize, options: Options, teams: Option<Vec<u32>>) -> Game {
    let options = Options {
        cols: Some(6),
        rows: Some(6),
        fleet: Some(vec![CustomShip {
            id: "boat".into(),
            len: 2,
            count: 1,
        }]),
        shots_per_opponent: options.shots_per_opponent.or(Some(1)),
        ..options
    };
    let mut game = Game::new(&Setup {
        preset: Preset::Classic,
        seats,
        seed: 3,
        options,
        teams,
    })
    .unwrap();
    for seat in 0..seats {
        // Seat s has its boat at (0, s) .. (1, s): easy to aim at.
        let at = Cell::new(0, seat as u16);
        game.apply(Command::Place {
            seat,
            ships: vec![p("boat", at.col, at.row, 0)],
        })
        .unwrap();
    }
    assert_eq!(game.phase(), Phase::Battle);
    game
}
