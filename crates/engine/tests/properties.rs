//! Property tests over random command sequences, legal and illegal, in every
//! preset and mode:
//! - nothing panics, and a refused command changes nothing;
//! - replaying (seed, commands) reproduces every view and every answer;
//! - no view of a seat reveals what that seat may not know: an opponent's intact
//!   ship part, another team's scan, a secret block owner, or the composition of a
//!   space fleet;
//! - the legal targets in the view of the seat to move follow from that view
//!   (each count is the count of `~` and `!` in those waters), and a move
//!   built from the view alone, with the shots it says are due, is accepted;
//! - after every accepted command, for every seat and the spectators, the
//!   protocol's change from the view before to the view after, sent as a
//!   `change` frame and read back, turns the old view into the new one
//!   exactly, and says nothing the new view does not.

use std::collections::{BTreeMap, BTreeSet};

use broadside_engine::{
    Action, Cell, Command, End, Event, Game, Line, Mode, Options, Phase, Preset, Report, SalvoMode,
    Setup, Target, View,
};
use broadside_protocol::{apply_change, change_between, ChangeFrame, ServerFrame, ViewCopy};
use proptest::prelude::*;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The setups the properties run over: every preset, 2 to 6 seats, teams, the
/// hard rule, specials and focus salvos.
fn setups() -> Vec<Setup> {
    let mut out = Vec::new();
    let s = |preset, seats, options, teams| Setup {
        preset,
        seats,
        seed: 0,
        options,
        teams,
    };
    for preset in Preset::ALL {
        out.push(s(preset, 2, Options::default(), None));
    }
    out.push(s(
        Preset::Brasil,
        2,
        Options {
            report: Some(Report::PerVolley),
            ..Options::default()
        },
        None,
    ));
    out.push(s(
        Preset::Brasil,
        2,
        Options {
            specials: Some(true),
            report: Some(Report::PerVolley),
            ..Options::default()
        },
        None,
    ));
    out.push(s(
        Preset::Classic,
        2,
        Options {
            specials: Some(true),
            ..Options::default()
        },
        None,
    ));
    out.push(s(Preset::Classic, 3, Options::default(), None));
    out.push(s(
        Preset::Classic,
        4,
        Options {
            specials: Some(true),
            ..Options::default()
        },
        Some(vec![0, 1, 0, 1]),
    ));
    out.push(s(
        Preset::Hasbro,
        5,
        Options {
            salvo: Some(SalvoMode::Focus),
            ..Options::default()
        },
        None,
    ));
    out.push(s(Preset::Shared, 3, Options::default(), None));
    out.push(s(Preset::Shared, 5, Options::default(), None));
    out.push(s(
        Preset::Shared,
        4,
        Options::default(),
        Some(vec![0, 0, 1, 1]),
    ));
    out.push(s(Preset::Space, 3, Options::default(), None));
    out.push(s(
        Preset::Space,
        4,
        Options {
            credits: Some(300),
            ..Options::default()
        },
        Some(vec![0, 1, 1, 0]),
    ));
    out.push(s(
        Preset::Space,
        6,
        Options {
            salvo: Some(SalvoMode::Focus),
            ..Options::default()
        },
        None,
    ));
    out
}

fn cell_near(rng: &mut Pcg64Mcg, game: &Game) -> Cell {
    let size = game.view(None).boards[0].rows.len() as i32;
    let width = game.view(None).boards[0].rows[0].len() as i32;
    let coordinate = |rng: &mut Pcg64Mcg, max: i32| {
        let v = rng.random_range(-1..=max);
        if v < 0 {
            u16::MAX
        } else {
            v as u16
        }
    };
    Cell::new(coordinate(rng, width), coordinate(rng, size))
}

fn random_action(rng: &mut Pcg64Mcg, game: &Game, board: usize) -> Action {
    let center = cell_near(rng, game);
    match rng.random_range(0..7) {
        0 => Action::Laser {
            board,
            column: center.col,
            from: if rng.random() { End::Top } else { End::Bottom },
        },
        1 => Action::Scanner { board, center },
        2 => Action::Nuke { board, at: center },
        3 => Action::Reserve {
            board: Some(board),
            cells: None,
        },
        4 => Action::Wide { board, center },
        5 => Action::Bombard {
            board,
            line: if rng.random() {
                Line::Row(center.row)
            } else {
                Line::Column(center.col)
            },
        },
        _ => Action::Radar { board, center },
    }
}

/// The targetable cells of each opponent of `seat`, as the engine says.
fn opponent_cells(game: &Game, seat: usize) -> Vec<Vec<Target>> {
    let status = game.status();
    match game.rules().mode {
        Mode::SharedSea => {
            let blocks = status.blocks.expect("the shared sea has blocks");
            let size = game.rules().board;
            game.salvo_opponents(seat)
                .into_iter()
                .map(|o| {
                    let origin = blocks[&o];
                    game.targetable_cells(seat, 0)
                        .into_iter()
                        .filter(|c| {
                            c.col >= origin.col
                                && c.col < origin.col + size.cols
                                && c.row >= origin.row
                                && c.row < origin.row + size.rows
                        })
                        .map(|at| Target { board: 0, at })
                        .collect()
                })
                .collect()
        }
        _ => game
            .salvo_opponents(seat)
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

/// A command that is often legal and sometimes not.
fn next_command(rng: &mut Pcg64Mcg, game: &Game) -> Command {
    let seats = game.seat_count();
    let movers = game.to_move();
    let seat = if rng.random_bool(0.85) && !movers.is_empty() {
        *movers.choose(rng).unwrap()
    } else {
        rng.random_range(0..=seats)
    };
    if rng.random_bool(0.04) {
        return Command::Timeout;
    }
    if rng.random_bool(0.01) {
        return Command::Resign { seat };
    }
    match game.phase() {
        Phase::Shop => {
            let catalogue = &game.rules().catalogue;
            let mut ships = BTreeMap::new();
            for _ in 0..rng.random_range(1..12) {
                *ships
                    .entry(catalogue.choose(rng).unwrap().id.clone())
                    .or_insert(0) += 1;
            }
            Command::Buy { seat, ships }
        }
        Phase::Placement => {
            if seat < seats && rng.random_bool(0.3) {
                let mut layout = game.random_layout(seat, rng).unwrap_or_default();
                if let Some(ship) = layout.first_mut() {
                    if rng.random_bool(0.5) {
                        ship.at = cell_near(rng, game);
                        ship.rot = rng.random_range(0..4);
                    }
                }
                Command::Place {
                    seat,
                    ships: layout,
                }
            } else {
                Command::PlaceRandom { seat }
            }
        }
        Phase::Battle | Phase::Finished => {
            let board = rng.random_range(0..=seats);
            if seat >= seats || rng.random_bool(0.1) {
                return Command::Fire {
                    seat,
                    target: Target {
                        board,
                        at: cell_near(rng, game),
                    },
                };
            }
            let groups = opponent_cells(game, seat);
            if game.in_salvo_round() {
                let per = game.rules().shots_per_opponent as usize;
                let mut shots = Vec::new();
                let mut action = None;
                match game.rules().salvo {
                    SalvoMode::Spread => {
                        for (i, cells) in groups.iter().enumerate() {
                            if i == 0 && rng.random_bool(0.25) {
                                let target_board = cells.first().map(|t| t.board).unwrap_or(board);
                                action = Some(random_action(rng, game, target_board));
                                continue;
                            }
                            let mut cells = cells.clone();
                            cells.shuffle(rng);
                            shots.extend(cells.into_iter().take(per));
                        }
                    }
                    SalvoMode::Focus => {
                        if let Some(cells) = groups
                            .iter()
                            .filter(|g| !g.is_empty())
                            .collect::<Vec<_>>()
                            .choose(rng)
                        {
                            let mut cells = (*cells).clone();
                            cells.shuffle(rng);
                            shots.extend(cells.into_iter().take(per * groups.len()));
                        }
                    }
                }
                return Command::Salvo {
                    seat,
                    shots,
                    action,
                };
            }
            let all: Vec<Target> = groups.into_iter().flatten().collect();
            if game.rules().report == Report::PerVolley && rng.random_bool(0.8) {
                let mut cells: Vec<Cell> = all.iter().map(|t| t.at).collect();
                cells.shuffle(rng);
                cells.truncate(3);
                return Command::Volley { seat, cells };
            }
            if rng.random_bool(0.15) || all.is_empty() {
                let target_board = all.first().map(|t| t.board).unwrap_or(board);
                let mut action = random_action(rng, game, target_board);
                if let (Action::Nuke { at, .. } | Action::Wide { center: at, .. }, Some(t)) =
                    (&mut action, all.choose(rng))
                {
                    *at = t.at;
                }
                return Command::Ability { seat, action };
            }
            Command::Fire {
                seat,
                target: *all.choose(rng).unwrap(),
            }
        }
    }
}

/// What a seat may know besides its own waters, gathered from announcements.
#[derive(Default, Clone)]
struct Knowledge {
    /// (team, board, cell) of every scan.
    scans: BTreeSet<(u32, usize, Cell)>,
    /// Seats whose ownership a sinking made public (shared sea).
    revealed_owners: BTreeSet<usize>,
}

fn learn(knowledge: &mut Knowledge, game: &Game, events: &[Event]) {
    for event in events {
        match event {
            Event::Scan { seat, board, cells } => {
                for c in cells {
                    knowledge
                        .scans
                        .insert((game.rules().teams[*seat], *board, c.at));
                }
            }
            Event::Sunk { owner, .. } | Event::Eliminated { seat: owner } => {
                knowledge.revealed_owners.insert(*owner);
            }
            _ => {}
        }
    }
}

/// Checks that `view` (of `seat`, without full vision) holds nothing more than
/// the seat may know, against `truth`, the all-seeing view of the same game.
fn check_no_leak(
    game: &Game,
    seat: usize,
    view: &View,
    truth: &View,
    knowledge: &Knowledge,
) -> Result<(), String> {
    if view.full_vision {
        return Ok(());
    }
    let rules = game.rules();
    let team = rules.teams[seat];
    let block_owner = |cell: Cell| -> Option<usize> {
        let size = rules.board;
        truth.blocks.as_ref().and_then(|blocks| {
            blocks
                .iter()
                .find(|b| {
                    cell.col >= b.origin.col
                        && cell.col < b.origin.col + size.cols
                        && cell.row >= b.origin.row
                        && cell.row < b.origin.row + size.rows
                })
                .and_then(|b| b.owner)
        })
    };
    for (board_index, (seen, real)) in view.boards.iter().zip(&truth.boards).enumerate() {
        for (row, (seen_row, real_row)) in seen.rows.iter().zip(&real.rows).enumerate() {
            for (col, (s, r)) in seen_row.chars().zip(real_row.chars()).enumerate() {
                let cell = Cell::new(col as u16, row as u16);
                let owner = match rules.mode {
                    Mode::SharedSea => block_owner(cell),
                    _ => Some(board_index),
                };
                let friendly = owner.is_some_and(|o| rules.teams[o] == team);
                if friendly {
                    continue;
                }
                let scanned = knowledge.scans.contains(&(team, board_index, cell));
                if r == '*' && !(s == '~' || s == '=' || (s == '!' && scanned)) {
                    return Err(format!("seat {seat} sees '{s}' on an intact part at {cell:?} of board {board_index}"));
                }
                if (s == '!' || s == '-') && !scanned {
                    return Err(format!("seat {seat} sees another team's scan at {cell:?}"));
                }
                if s == 'X' && rules.mode == Mode::SharedSea {
                    let known = owner.is_some_and(|o| knowledge.revealed_owners.contains(&o));
                    if !known {
                        return Err(format!("seat {seat} sees the owner of a hit at {cell:?}"));
                    }
                }
            }
        }
    }
    for ship in &view.ships {
        if rules.teams[ship.owner] != team && !ship.sunk {
            return Err(format!(
                "seat {seat} sees an afloat ship of seat {}",
                ship.owner
            ));
        }
    }
    if let Some(blocks) = &view.blocks {
        for block in blocks {
            if let Some(owner) = block.owner {
                if rules.teams[owner] != team && !knowledge.revealed_owners.contains(&owner) {
                    return Err(format!(
                        "seat {seat} knows the secret owner of block {:?}",
                        block.origin
                    ));
                }
            }
        }
    }
    if rules.mode == Mode::Space {
        for other in &view.seats {
            if rules.teams[other.seat] != team && other.fleet.is_some() {
                return Err(format!(
                    "seat {seat} sees the space fleet of seat {}",
                    other.seat
                ));
            }
        }
    }
    Ok(())
}

/// Checks the legal targets of `seat`'s view against the view itself and
/// against the engine: every count is what the seat can read off its boards,
/// and a salvo or volley that aims the shots due at cells the view shows as
/// targetable is accepted (so a client that reads the view never disagrees).
fn check_legal_targets(game: &Game, seat: usize, view: &View) -> Result<(), String> {
    let Some(targets) = &view.legal_targets else {
        if view.phase == Phase::Battle && view.to_move.contains(&seat) {
            return Err(format!("seat {seat} must act but has no legal targets"));
        }
        return Ok(());
    };
    let size = game.rules().board;
    // The targetable cells of some waters as the view shows them.
    let shown = |board: usize, block: Option<usize>| -> Vec<Cell> {
        let origin = match (block, &view.blocks) {
            (Some(b), Some(blocks)) => blocks[b].origin,
            _ => Cell::new(0, 0),
        };
        let rows = &view.boards[board].rows;
        let mut cells = Vec::new();
        for (row, line) in rows.iter().enumerate() {
            for (col, mark) in line.chars().enumerate() {
                let cell = Cell::new(col as u16, row as u16);
                let inside = block.is_none()
                    || (cell.col >= origin.col
                        && cell.col < origin.col + size.cols
                        && cell.row >= origin.row
                        && cell.row < origin.row + size.rows);
                if inside && (mark == '~' || mark == '!') {
                    cells.push(cell);
                }
            }
        }
        cells
    };
    let mut previous = None;
    for waters in &targets.waters {
        let key = (waters.board, waters.block);
        if previous.is_some_and(|p| p >= key) {
            return Err(format!(
                "seat {seat}'s legal targets are not in board and block order"
            ));
        }
        previous = Some(key);
        let cells = shown(waters.board, waters.block);
        if cells.len() as u32 != waters.targetable_cells {
            return Err(format!(
                "seat {seat} reads {} targetable cells in {key:?} but is told {}",
                cells.len(),
                waters.targetable_cells
            ));
        }
    }
    let aim = |waters: &broadside_engine::TargetWaters| -> Vec<Target> {
        let due = waters.shots_due.unwrap_or(0) as usize;
        shown(waters.board, waters.block)
            .into_iter()
            .take(due)
            .map(|at| Target {
                board: waters.board,
                at,
            })
            .collect()
    };
    let command = if view.salvo_round {
        let shots = match game.rules().salvo {
            SalvoMode::Spread => targets.waters.iter().flat_map(aim).collect(),
            SalvoMode::Focus => targets.waters.first().map(aim).unwrap_or_default(),
        };
        Command::Salvo {
            seat,
            shots,
            action: None,
        }
    } else if targets.volley {
        let cells: Vec<Cell> = targets.waters.iter().flat_map(aim).map(|t| t.at).collect();
        if Some(cells.len() as u32) != targets.shots_in_turn {
            return Err(format!("seat {seat}'s volley is due on no waters"));
        }
        Command::Volley { seat, cells }
    } else {
        return Ok(());
    };
    game.clone()
        .apply(command.clone())
        .map(|_| ())
        .map_err(|e| {
            format!("the move seat {seat}'s view says is due was refused ({e}): {command:?}")
        })
}

/// The change from `old` to `new`, as the server sends it in a `change` frame
/// and a client reads it back, applied to `old`, must give `new`; and every
/// field and cell it carries must be the new view's own.
fn check_change(old: &View, new: &View) -> Result<(), String> {
    let (patch, cells) = change_between(old, new);
    let frame = ServerFrame::Change(Box::new(ChangeFrame {
        seq: 8,
        view: patch.clone(),
        cells: cells.clone(),
        events: Vec::new(),
        deadline_ms: None,
        stats: None,
    }));
    let read: ServerFrame = serde_json::from_str(&frame.to_text())
        .map_err(|e| format!("a change frame does not read back: {e}"))?;
    let ServerFrame::Change(read) = read else {
        return Err("a change frame read back as another frame".into());
    };
    let mut copy = ViewCopy::default();
    copy.replace(7, old.clone());
    let applied = copy
        .apply(read.seq, &read.view, &read.cells)
        .map_err(|_| "the change did not follow its own stream".to_string())?;
    if applied != new {
        return Err(format!(
            "the change {} turned the old view into another than the new one",
            frame.to_text()
        ));
    }
    // Nothing beyond the new view: each field sent is the new view's value,
    // each cell the new view's mark.
    let mut only_patch = new.clone();
    apply_change(&mut only_patch, &patch, &[]);
    if only_patch != *new {
        return Err("the change carries a field the new view does not hold".into());
    }
    for cell in &cells {
        if new.boards[cell.board].at(cell.at) != cell.mark {
            return Err(format!(
                "the change carries a mark the new view does not: {cell:?}"
            ));
        }
    }
    if old == new && (!patch.is_empty() || !cells.is_empty()) {
        return Err("an unchanged view gave a change".into());
    }
    Ok(())
}

/// Plays `steps` random commands and checks the properties along the way.
/// Returns whether the game reached its end.
fn run(setup_index: usize, seed: u64, steps: usize) -> Result<bool, String> {
    let mut setup = setups()[setup_index].clone();
    setup.seed = seed;
    let mut game = Game::new(&setup).map_err(|e| format!("setup refused: {e}"))?;
    // The twin with spectators_see_all plays the same game and gives the truth.
    let mut seeing = setup.clone();
    seeing.options.spectators_see_all = Some(true);
    let mut twin = Game::new(&seeing).unwrap();
    let mut replay = Game::new(&setup).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x9e37_79b9);
    let mut knowledge = vec![Knowledge::default(); setup.seats];
    // The views as the last frame showed them: one per seat, then the
    // spectators'.
    let mut shown: Vec<View> = (0..setup.seats)
        .map(|seat| game.view(Some(seat)))
        .chain([game.view(None)])
        .collect();
    for _ in 0..steps {
        if game.phase() == Phase::Finished && rng.random_bool(0.5) {
            break;
        }
        let command = next_command(&mut rng, &game);
        let before = game.save();
        let outcome = game.apply(command.clone());
        let twin_outcome = twin.apply(command.clone());
        let replay_outcome = replay.apply(command.clone());
        if outcome != replay_outcome {
            return Err(format!("replay answered differently to {command:?}"));
        }
        if outcome.is_ok() != twin_outcome.is_ok() {
            return Err(format!("the all-seeing twin diverged on {command:?}"));
        }
        match outcome {
            Err(_) => {
                if game.save() != before {
                    return Err(format!("refused {command:?} changed the game"));
                }
            }
            Ok(events) => {
                let truth = twin.view(None);
                for (seat, known) in knowledge.iter_mut().enumerate() {
                    learn(known, &game, &game.events_for(Some(seat), &events));
                    let view = game.view(Some(seat));
                    if view != replay.view(Some(seat)) {
                        return Err(format!("replay view of seat {seat} differs"));
                    }
                    check_no_leak(&game, seat, &view, &truth, known)?;
                    check_legal_targets(&game, seat, &view)?;
                    check_change(&shown[seat], &view).map_err(|e| format!("seat {seat}: {e}"))?;
                    shown[seat] = view;
                }
                let spectator = game.view(None);
                if spectator != replay.view(None) {
                    return Err("replay spectator view differs".into());
                }
                check_change(&shown[setup.seats], &spectator)
                    .map_err(|e| format!("spectators: {e}"))?;
                shown[setup.seats] = spectator;
            }
        }
    }
    Ok(game.phase() == Phase::Finished)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_commands_never_panic_replay_exactly_and_never_leak(
        setup_index in 0..setups().len(),
        seed in any::<u64>(),
    ) {
        if let Err(message) = run(setup_index, seed, 600) {
            prop_assert!(false, "{}", message);
        }
    }
}

#[test]
fn every_setup_runs_a_long_random_game() {
    let mut finished = 0;
    let mut games = 0;
    for index in 0..setups().len() {
        for seed in 0..3 {
            games += 1;
            if run(index, seed, 3_000).unwrap_or_else(|m| panic!("setup {index}, seed {seed}: {m}"))
            {
                finished += 1;
            }
        }
    }
    // The generator plays mostly legal moves, so most games reach their end
    // (some end early on a random resignation, which also counts).
    assert!(
        finished * 10 >= games * 8,
        "only {finished} of {games} games ended"
    );
}
