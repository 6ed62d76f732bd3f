//! The decoding of fuzz input: the games the targets start from and engine
//! commands and queries read from the input bytes.
//!
//! Decoding is structured (the `arbitrary` crate reads the input as a stream of
//! choices). Most choices are made relative to the game: seats that exist, cells
//! on or just off the board, cells the engine says are targetable. A few byte
//! values are kept for far-off numbers (huge seats, boards and coordinates), so
//! the fuzzer gets deep into real games and still tries hostile input.

use std::collections::BTreeMap;

use arbitrary::{Result, Unstructured};
use broadside_engine::{
    Action, Cell, Command, End, Game, Line, Mode, Options, Phase, Placement, Preset, Report,
    SalvoMode, Setup, Size, Target,
};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// Most commands one input may apply, so that no input runs for long.
pub const MAX_COMMANDS: usize = 600;

/// The games `engine_commands` and `save_load` start from: every preset, salvo
/// rounds with 3 to 6 seats, teams, the brasil hard rule, specials, practice.
pub fn preset_setup(choice: u8, seed: u64) -> Setup {
    let s = |preset, seats, options, teams| Setup {
        preset,
        seats,
        seed,
        options,
        teams,
    };
    let d = Options::default;
    let setups = [
        s(Preset::Classic, 2, d(), None),
        s(Preset::Hasbro, 2, d(), None),
        s(Preset::Brasil, 2, d(), None),
        s(Preset::Italia, 2, d(), None),
        s(Preset::Space, 2, d(), None),
        s(Preset::Shared, 2, d(), None),
        s(Preset::Shared, 3, d(), None),
        s(Preset::Shared, 4, d(), None),
        s(Preset::Shared, 5, d(), None),
        s(Preset::Shared, 6, d(), None),
        s(Preset::Shared, 4, d(), Some(vec![0, 0, 1, 1])),
        s(Preset::Classic, 3, d(), None),
        s(
            Preset::Hasbro,
            5,
            Options {
                salvo: Some(SalvoMode::Focus),
                ..d()
            },
            None,
        ),
        s(
            Preset::Classic,
            4,
            Options {
                specials: Some(true),
                ..d()
            },
            Some(vec![0, 1, 0, 1]),
        ),
        s(Preset::Classic, 6, d(), Some(vec![0, 1, 2, 0, 1, 2])),
        s(Preset::Space, 3, d(), None),
        s(
            Preset::Space,
            4,
            Options {
                credits: Some(300),
                ..d()
            },
            Some(vec![0, 1, 1, 0]),
        ),
        s(
            Preset::Space,
            6,
            Options {
                salvo: Some(SalvoMode::Focus),
                ..d()
            },
            None,
        ),
        s(
            Preset::Brasil,
            2,
            Options {
                report: Some(Report::PerVolley),
                ..d()
            },
            None,
        ),
        s(
            Preset::Brasil,
            2,
            Options {
                report: Some(Report::PerVolley),
                specials: Some(true),
                ..d()
            },
            None,
        ),
        s(
            Preset::Classic,
            2,
            Options {
                specials: Some(true),
                wide_uses: Some(3),
                bombard_uses: Some(2),
                radar_uses: Some(4),
                ..d()
            },
            None,
        ),
        s(
            Preset::Classic,
            2,
            Options {
                practice: Some(true),
                ..d()
            },
            None,
        ),
        s(
            Preset::Hasbro,
            3,
            Options {
                shots_per_opponent: Some(3),
                hit_again: Some(false),
                ..d()
            },
            None,
        ),
        s(
            Preset::Classic,
            2,
            Options {
                cols: Some(6),
                rows: Some(7),
                fleet: Some(vec![
                    broadside_engine::CustomShip {
                        id: "long".into(),
                        len: 4,
                        count: 1,
                    },
                    broadside_engine::CustomShip {
                        id: "dot".into(),
                        len: 1,
                        count: 3,
                    },
                ]),
                shots_per_turn: Some(2),
                hit_again: Some(false),
                ..d()
            },
            None,
        ),
    ];
    let count = setups.len();
    setups
        .into_iter()
        .nth(choice as usize % count)
        .expect("the index is reduced modulo the number of setups")
}

/// What the decoders need to know of a game that does not change while it runs.
pub struct Table {
    /// The whole area a cell may lie in: one board, or the whole shared sea.
    pub area: Size,
    pub boards: usize,
    pub seats: usize,
}

impl Table {
    pub fn of(game: &Game) -> Table {
        let view = game.view(None);
        let rows = view.boards.first().map_or(0, |b| b.rows.len());
        let cols = view
            .boards
            .first()
            .and_then(|b| b.rows.first())
            .map_or(0, |r| r.len());
        Table {
            area: Size::new(cols as u16, rows as u16),
            boards: view.boards.len(),
            seats: game.seat_count(),
        }
    }
}

/// A seat: mostly one that exists or one that must move, sometimes one that does not.
pub fn seat(u: &mut Unstructured, game: &Game, table: &Table) -> Result<usize> {
    let b: u8 = u.arbitrary()?;
    Ok(match b {
        0..=0x7f => b as usize % table.seats.max(1),
        0x80..=0xef => {
            let movers = game.to_move();
            if movers.is_empty() {
                b as usize % table.seats.max(1)
            } else {
                movers[b as usize % movers.len()]
            }
        }
        0xf0..=0xfd => table.seats + (b - 0xf0) as usize,
        0xfe => u32::MAX as usize,
        0xff => usize::MAX,
    })
}

/// A board index: one of the boards, one just past them, or a huge one.
pub fn board(u: &mut Unstructured, table: &Table) -> Result<usize> {
    let b: u8 = u.arbitrary()?;
    Ok(match b {
        0..=0xf7 => b as usize % (table.boards + 1),
        0xf8..=0xfe => u32::MAX as usize,
        0xff => usize::MAX,
    })
}

/// A coordinate on a side of `side` cells: on it, one or two past it, or far off.
pub fn coordinate(u: &mut Unstructured, side: u16) -> Result<u16> {
    let b: u8 = u.arbitrary()?;
    Ok(match b {
        0..=0xef => (b as u32 % (side as u32 + 2)) as u16,
        _ => u16::MAX - (b - 0xf0) as u16,
    })
}

pub fn cell(u: &mut Unstructured, table: &Table) -> Result<Cell> {
    Ok(Cell::new(
        coordinate(u, table.area.cols)?,
        coordinate(u, table.area.rows)?,
    ))
}

/// A short list, its length drawn from one byte.
fn list<T>(
    u: &mut Unstructured,
    max: usize,
    mut item: impl FnMut(&mut Unstructured) -> Result<T>,
) -> Result<Vec<T>> {
    let n = u.int_in_range(0..=max)?;
    (0..n).map(|_| item(u)).collect()
}

/// A ship type id: one of the game's catalogue, or one it does not know.
pub fn ship_type(u: &mut Unstructured, game: &Game) -> Result<String> {
    let catalogue = &game.rules().catalogue;
    let b: u8 = u.arbitrary()?;
    Ok(match b {
        0..=0xef if !catalogue.is_empty() => catalogue[b as usize % catalogue.len()].id.clone(),
        0xf0..=0xff => {
            let s: &str = u.arbitrary()?;
            s.to_string()
        }
        _ => String::new(),
    })
}

/// A shop order: a few ship types (mostly of the catalogue) with small counts,
/// now and then a huge one.
pub fn purchase(u: &mut Unstructured, game: &Game) -> Result<BTreeMap<String, u32>> {
    let mut ships = BTreeMap::new();
    for _ in 0..u.int_in_range(0..=8)? {
        let count = match u.arbitrary::<u8>()? {
            c @ 0..=0xef => (c % 4) as u32,
            _ => u.arbitrary()?,
        };
        ships.insert(ship_type(u, game)?, count);
    }
    Ok(ships)
}

/// An action of any kind with fields from the input.
pub fn action(u: &mut Unstructured, table: &Table) -> Result<Action> {
    let kind: u8 = u.arbitrary()?;
    let board = board(u, table)?;
    let at = cell(u, table)?;
    Ok(match kind % 7 {
        0 => Action::Laser {
            board,
            column: at.col,
            from: if u.arbitrary()? {
                End::Top
            } else {
                End::Bottom
            },
        },
        1 => Action::Scanner { board, center: at },
        2 => Action::Nuke { board, at },
        3 => Action::Reserve {
            board: if u.arbitrary()? { Some(board) } else { None },
            cells: if u.arbitrary()? {
                Some(list(u, 5, |u| cell(u, table))?)
            } else {
                None
            },
        },
        4 => Action::Wide { board, center: at },
        5 => Action::Bombard {
            board,
            line: if u.arbitrary()? {
                Line::Row(at.row)
            } else {
                Line::Column(at.col)
            },
        },
        _ => Action::Radar { board, center: at },
    })
}

/// The cells `seat` may shoot at, grouped by opponent (by block in the shared sea).
pub fn opponent_targets(game: &Game, seat: usize) -> Vec<Vec<Target>> {
    let opponents = game.salvo_opponents(seat);
    match game.rules().mode {
        Mode::SharedSea => {
            let Some(blocks) = game.status().blocks else {
                return Vec::new();
            };
            let size = game.rules().board;
            let cells = game.targetable_cells(seat, 0);
            opponents
                .into_iter()
                .filter_map(|o| blocks.get(&o).copied())
                .map(|origin| {
                    cells
                        .iter()
                        .filter(|c| {
                            c.col >= origin.col
                                && c.col < origin.col + size.cols
                                && c.row >= origin.row
                                && c.row < origin.row + size.rows
                        })
                        .map(|&at| Target { board: 0, at })
                        .collect()
                })
                .collect()
        }
        _ => opponents
            .into_iter()
            .map(|o| {
                game.targetable_cells(seat, o)
                    .into_iter()
                    .map(|at| Target { board: o, at })
                    .collect()
            })
            .collect(),
    }
}

/// Picks `n` entries of `from` by indices read from the input (repeats possible).
fn pick<T: Copy>(u: &mut Unstructured, from: &[T], n: usize) -> Result<Vec<T>> {
    if from.is_empty() {
        return Ok(Vec::new());
    }
    (0..n)
        .map(|_| Ok(from[u.arbitrary::<u16>()? as usize % from.len()]))
        .collect()
}

/// The seat that must move (or seat 0).
fn mover(u: &mut Unstructured, game: &Game) -> Result<usize> {
    let movers = game.to_move();
    Ok(if movers.is_empty() {
        0
    } else {
        movers[u.arbitrary::<u8>()? as usize % movers.len()]
    })
}

/// Placements read straight from the input.
fn raw_placements(u: &mut Unstructured, game: &Game, table: &Table) -> Result<Vec<Placement>> {
    list(u, 16, |u| {
        Ok(Placement {
            ship_type: ship_type(u, game)?,
            at: cell(u, table)?,
            rot: match u.arbitrary::<u8>()? {
                r @ 0..=0xef => r % 4,
                r => r,
            },
        })
    })
}

/// A random layout of the seat's fleet, sometimes with one ship moved, turned,
/// dropped, doubled or renamed.
fn layout(u: &mut Unstructured, game: &Game, table: &Table, seat: usize) -> Result<Vec<Placement>> {
    let mut rng = Pcg64Mcg::seed_from_u64(u.arbitrary()?);
    let mut ships = game.random_layout(seat, &mut rng).unwrap_or_default();
    if ships.is_empty() {
        return Ok(ships);
    }
    let i = u.arbitrary::<u8>()? as usize % ships.len();
    match u.arbitrary::<u8>()? % 8 {
        0 => ships[i].at = cell(u, table)?,
        1 => ships[i].rot = u.arbitrary::<u8>()? % 4,
        2 => {
            ships.remove(i);
        }
        3 => ships.push(ships[i].clone()),
        4 => ships[i].ship_type = ship_type(u, game)?,
        5 => ships.swap(0, i),
        _ => {}
    }
    Ok(ships)
}

/// One command decoded from the input: raw ones (any field), and "smart" ones
/// built from what the engine says is legal, which carry games to their end.
pub fn command(u: &mut Unstructured, game: &Game, table: &Table) -> Result<Command> {
    let kind: u8 = u.arbitrary()?;
    Ok(match kind % 32 {
        0 | 1 => Command::PlaceRandom {
            seat: seat(u, game, table)?,
        },
        2 | 3 => {
            let seat = seat(u, game, table)?;
            let ships = if seat < table.seats {
                layout(u, game, table, seat)?
            } else {
                raw_placements(u, game, table)?
            };
            Command::Place { seat, ships }
        }
        4 => Command::Place {
            seat: seat(u, game, table)?,
            ships: raw_placements(u, game, table)?,
        },
        5 | 6 => Command::Buy {
            seat: seat(u, game, table)?,
            ships: purchase(u, game)?,
        },
        7 | 8 => Command::Fire {
            seat: seat(u, game, table)?,
            target: Target {
                board: board(u, table)?,
                at: cell(u, table)?,
            },
        },
        9..=14 => {
            let seat = mover(u, game)?;
            let all: Vec<Target> = opponent_targets(game, seat).concat();
            match pick(u, &all, 1)?.first() {
                Some(&target) => Command::Fire { seat, target },
                None => Command::Timeout,
            }
        }
        15 => Command::Volley {
            seat: seat(u, game, table)?,
            cells: list(u, 12, |u| cell(u, table))?,
        },
        16 | 17 => {
            let seat = mover(u, game)?;
            let all: Vec<Cell> = opponent_targets(game, seat)
                .concat()
                .into_iter()
                .map(|t| t.at)
                .collect();
            let n = game.rules().shots_per_turn as usize;
            let n = match u.arbitrary::<u8>()? {
                0..=0xdf => n,
                b => (b - 0xe0) as usize,
            };
            Command::Volley {
                seat,
                cells: pick(u, &all, n)?,
            }
        }
        18 | 19 => Command::Ability {
            seat: seat(u, game, table)?,
            action: action(u, table)?,
        },
        20 | 21 => {
            // An ability aimed at a cell the mover may still target.
            let seat = mover(u, game)?;
            let mut action = action(u, table)?;
            let all: Vec<Target> = opponent_targets(game, seat).concat();
            if let Some(t) = pick(u, &all, 1)?.first() {
                aim(&mut action, *t);
            }
            Command::Ability { seat, action }
        }
        22 => Command::Salvo {
            seat: seat(u, game, table)?,
            shots: list(u, 12, |u| {
                Ok(Target {
                    board: board(u, table)?,
                    at: cell(u, table)?,
                })
            })?,
            action: if u.arbitrary()? {
                Some(action(u, table)?)
            } else {
                None
            },
        },
        23..=27 => smart_salvo(u, game, table)?,
        28 => Command::Timeout,
        29 if u.arbitrary::<u8>()? < 0x20 => Command::Resign {
            seat: seat(u, game, table)?,
        },
        _ => {
            let seat = mover(u, game)?;
            let all: Vec<Target> = opponent_targets(game, seat).concat();
            match pick(u, &all, 1)?.first() {
                Some(&target) => Command::Fire { seat, target },
                None => Command::PlaceRandom { seat },
            }
        }
    })
}

/// Aims an action at a target (board and cell).
fn aim(action: &mut Action, t: Target) {
    match action {
        Action::Laser { board, column, .. } => {
            *board = t.board;
            *column = t.at.col;
        }
        Action::Scanner { board, center }
        | Action::Wide { board, center }
        | Action::Radar { board, center }
        | Action::Nuke { board, at: center } => {
            *board = t.board;
            *center = t.at;
        }
        Action::Bombard { board, line } => {
            *board = t.board;
            *line = match line {
                Line::Row(_) => Line::Row(t.at.row),
                Line::Column(_) => Line::Column(t.at.col),
            };
        }
        Action::Reserve { board, .. } => {
            if board.is_some() {
                *board = Some(t.board);
            }
        }
    }
}

/// A salvo for a seat that must still submit: the right number of targetable
/// cells per opponent (spread) or on one opponent (focus), sometimes with an
/// action in place of one opponent's shots, sometimes one shot too many or few.
fn smart_salvo(u: &mut Unstructured, game: &Game, table: &Table) -> Result<Command> {
    let seat = mover(u, game)?;
    let groups = opponent_targets(game, seat);
    let per = game.rules().shots_per_opponent as usize;
    let mut shots = Vec::new();
    let mut action_slot = None;
    let with_action = u.arbitrary::<u8>()? < 0x30;
    match game.rules().salvo {
        SalvoMode::Spread => {
            for (i, cells) in groups.iter().enumerate() {
                if i == 0 && with_action {
                    let mut a = action(u, table)?;
                    if let Some(t) = pick(u, cells, 1)?.first() {
                        aim(&mut a, *t);
                    }
                    action_slot = Some(a);
                    continue;
                }
                shots.extend(distinct(u, cells, per)?);
            }
        }
        SalvoMode::Focus => {
            if !groups.is_empty() {
                let g = &groups[u.arbitrary::<u8>()? as usize % groups.len()];
                shots.extend(distinct(u, g, per * groups.len())?);
            }
        }
    }
    match u.arbitrary::<u8>()? {
        0xf0..=0xf7 => {
            shots.pop();
        }
        0xf8..=0xff => {
            if let Some(&t) = shots.first() {
                shots.push(t);
            }
        }
        _ => {}
    }
    Ok(Command::Salvo {
        seat,
        shots,
        action: action_slot,
    })
}

/// `n` distinct entries of `from` (all of them when it is shorter), chosen by the input.
fn distinct<T: Copy>(u: &mut Unstructured, from: &[T], n: usize) -> Result<Vec<T>> {
    let mut left: Vec<T> = from.to_vec();
    let mut out = Vec::new();
    while out.len() < n && !left.is_empty() {
        let i = u.arbitrary::<u16>()? as usize % left.len();
        out.push(left.swap_remove(i));
    }
    Ok(out)
}

/// A query the server and the clients make with a player's input between
/// commands; none may panic, and none changes the game (they take `&Game`).
pub fn query(u: &mut Unstructured, game: &Game, table: &Table) -> Result<()> {
    let seat = u.arbitrary::<u8>()? as usize % table.seats.max(1);
    match u.arbitrary::<u8>()? % 4 {
        0 => {
            let ships = if u.arbitrary()? {
                layout(u, game, table, seat)?
            } else {
                raw_placements(u, game, table)?
            };
            if game.check_ships_partial(seat, &ships).is_ok() {
                let _ = game.check_layout(seat, &ships);
            }
        }
        1 => {
            let mut fixed = if u.arbitrary()? {
                layout(u, game, table, seat)?
            } else {
                raw_placements(u, game, table)?
            };
            fixed.truncate(u.arbitrary::<u8>()? as usize % (fixed.len() + 1));
            let mut rng = Pcg64Mcg::seed_from_u64(u.arbitrary()?);
            if let Ok(ships) = game.random_completion(seat, &fixed, &mut rng) {
                // A completion is a whole legal layout of the fleet,
                // whenever the game is still placing.
                if game.phase() == Phase::Placement {
                    if let Err(e) = game.check_layout(seat, &ships) {
                        panic!("random_completion gave a layout check_layout refuses: {e}");
                    }
                }
            }
        }
        2 => {
            let action = action(u, table)?;
            let _ = game.action_area(&action);
        }
        _ => {
            let b = board(u, table)?;
            let c = cell(u, table)?;
            let _ = game.is_targetable(seat, b, c);
            let _ = game.targetable_cells(seat, b);
        }
    }
    Ok(())
}
