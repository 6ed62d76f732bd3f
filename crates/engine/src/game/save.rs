//! Saving and loading a game: the save format, and the consistency
//! check that refuses a hand-edited save breaking the invariants the rules
//! rely on.
//!
//! The save format is its own set of types ([`SavedGame`] and the saved forms
//! of a game's parts), converted to and from the in-memory [`Game`], so the
//! game's internals can change without changing what a save looks like, and
//! only these types know serde. Their fields, in their order, with their
//! names, are the format: a save written before this split reads the same
//! and is written back byte for byte (the referee's golden transcripts and
//! the fuzzer's seeds hold such saves).

use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::stats::{Record, ShotRecord};
use crate::command::{Action, Phase, Target};
use crate::error::RuleError;
use crate::geometry::{Cell, Size};
use crate::rules::{Mode, Rules, MAX_SHOTS, MAX_SIDE, MAX_SPECIAL_USES, MIN_SIDE};
use crate::ships;

use super::{bad, shared_sea, Board, Game, Mark, Scan, SeatState, Ship, Submission, Turn};

/// The save format's version, checked on load.
const SAVE_VERSION: u32 = 1;

/// A save: the format's version and the game.
#[derive(Serialize, Deserialize)]
struct SaveFile {
    broadside_save: u32,
    game: SavedGame,
}

/// A game as saved: every field of [`Game`], the generator's state included
/// (a loaded game goes on drawing the same numbers).
#[derive(Serialize, Deserialize)]
struct SavedGame {
    rules: Rules,
    /// Written in the form of `rand_pcg`'s own serde (`{"state":…}`).
    rng: Pcg64Mcg,
    phase: Phase,
    boards: Vec<SavedBoard>,
    block_origins: Vec<Cell>,
    seat_block: Vec<usize>,
    block_revealed: Vec<bool>,
    seats: Vec<SavedSeat>,
    ships: Vec<SavedShip>,
    scans: Vec<SavedScan>,
    turn: SavedTurn,
    salvo_rounds: u32,
    last_round_first: Option<usize>,
    winners: Vec<usize>,
    draw: bool,
    /// Absent in two-seat games, and in saves made before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    record: Option<SavedRecord>,
}

/// A [`Mark`], by its Rust name (`"Unknown"`, `"Miss"`, …).
#[derive(Clone, Copy, Serialize, Deserialize)]
enum SavedMark {
    Unknown,
    Miss,
    Water,
    Hit,
    Sunk,
    Unresolved,
}

#[derive(Serialize, Deserialize)]
struct SavedBoard {
    size: Size,
    ship_at: Vec<u16>,
    shot: Vec<bool>,
    mark: Vec<SavedMark>,
}

#[derive(Serialize, Deserialize)]
struct SavedShip {
    owner: usize,
    type_index: usize,
    board: usize,
    cells: Vec<Cell>,
    intact: u16,
    sunk: bool,
}

#[derive(Serialize, Deserialize)]
struct SavedScan {
    seat: usize,
    board: usize,
    at: Cell,
    ship: bool,
}

#[derive(Serialize, Deserialize)]
struct SavedSeat {
    fleet: Vec<usize>,
    bought: bool,
    ready: bool,
    round: u32,
    eliminated: bool,
    resigned: bool,
    ability_used: [Option<u32>; 4],
    special_uses: [u32; 3],
    ships: Vec<usize>,
}

#[derive(Serialize, Deserialize)]
struct SavedSubmission {
    shots: Vec<Target>,
    action: Option<Action>,
}

/// A [`Turn`], tagged by its Rust name (`"None"`, `{"Duel":{…}}`, `{"Salvo":{…}}`).
#[derive(Serialize, Deserialize)]
enum SavedTurn {
    None,
    Duel {
        seat: usize,
        shots: u32,
    },
    Salvo {
        number: u32,
        first: usize,
        submissions: Vec<Option<SavedSubmission>>,
    },
}

#[derive(Serialize, Deserialize)]
struct SavedRecord {
    shots: Vec<SavedShot>,
    sank: Vec<u32>,
}

#[derive(Serialize, Deserialize)]
struct SavedShot {
    seat: usize,
    board: usize,
    at: Cell,
    hit: bool,
}

impl From<Mark> for SavedMark {
    fn from(mark: Mark) -> Self {
        match mark {
            Mark::Unknown => SavedMark::Unknown,
            Mark::Miss => SavedMark::Miss,
            Mark::Water => SavedMark::Water,
            Mark::Hit => SavedMark::Hit,
            Mark::Sunk => SavedMark::Sunk,
            Mark::Unresolved => SavedMark::Unresolved,
        }
    }
}

impl From<SavedMark> for Mark {
    fn from(mark: SavedMark) -> Self {
        match mark {
            SavedMark::Unknown => Mark::Unknown,
            SavedMark::Miss => Mark::Miss,
            SavedMark::Water => Mark::Water,
            SavedMark::Hit => Mark::Hit,
            SavedMark::Sunk => Mark::Sunk,
            SavedMark::Unresolved => Mark::Unresolved,
        }
    }
}

impl From<&Board> for SavedBoard {
    fn from(board: &Board) -> Self {
        SavedBoard {
            size: board.size,
            ship_at: board.ship_at.clone(),
            shot: board.shot.clone(),
            mark: board.mark.iter().map(|&m| m.into()).collect(),
        }
    }
}

impl From<SavedBoard> for Board {
    fn from(board: SavedBoard) -> Self {
        Board {
            size: board.size,
            ship_at: board.ship_at,
            shot: board.shot,
            mark: board.mark.into_iter().map(Mark::from).collect(),
        }
    }
}

impl From<&Ship> for SavedShip {
    fn from(ship: &Ship) -> Self {
        SavedShip {
            owner: ship.owner,
            type_index: ship.type_index,
            board: ship.board,
            cells: ship.cells.clone(),
            intact: ship.intact,
            sunk: ship.sunk,
        }
    }
}

impl From<SavedShip> for Ship {
    fn from(ship: SavedShip) -> Self {
        Ship {
            owner: ship.owner,
            type_index: ship.type_index,
            board: ship.board,
            cells: ship.cells,
            intact: ship.intact,
            sunk: ship.sunk,
        }
    }
}

impl From<&Scan> for SavedScan {
    fn from(scan: &Scan) -> Self {
        SavedScan {
            seat: scan.seat,
            board: scan.board,
            at: scan.at,
            ship: scan.ship,
        }
    }
}

impl From<SavedScan> for Scan {
    fn from(scan: SavedScan) -> Self {
        Scan {
            seat: scan.seat,
            board: scan.board,
            at: scan.at,
            ship: scan.ship,
        }
    }
}

impl From<&SeatState> for SavedSeat {
    fn from(seat: &SeatState) -> Self {
        SavedSeat {
            fleet: seat.fleet.clone(),
            bought: seat.bought,
            ready: seat.ready,
            round: seat.round,
            eliminated: seat.eliminated,
            resigned: seat.resigned,
            ability_used: seat.ability_used,
            special_uses: seat.special_uses,
            ships: seat.ships.clone(),
        }
    }
}

impl From<SavedSeat> for SeatState {
    fn from(seat: SavedSeat) -> Self {
        SeatState {
            fleet: seat.fleet,
            bought: seat.bought,
            ready: seat.ready,
            round: seat.round,
            eliminated: seat.eliminated,
            resigned: seat.resigned,
            ability_used: seat.ability_used,
            special_uses: seat.special_uses,
            ships: seat.ships,
        }
    }
}

impl From<&Submission> for SavedSubmission {
    fn from(submission: &Submission) -> Self {
        SavedSubmission {
            shots: submission.shots.clone(),
            action: submission.action.clone(),
        }
    }
}

impl From<SavedSubmission> for Submission {
    fn from(submission: SavedSubmission) -> Self {
        Submission {
            shots: submission.shots,
            action: submission.action,
        }
    }
}

impl From<&Turn> for SavedTurn {
    fn from(turn: &Turn) -> Self {
        match turn {
            Turn::None => SavedTurn::None,
            Turn::Duel { seat, shots } => SavedTurn::Duel {
                seat: *seat,
                shots: *shots,
            },
            Turn::Salvo {
                number,
                first,
                submissions,
            } => SavedTurn::Salvo {
                number: *number,
                first: *first,
                submissions: submissions
                    .iter()
                    .map(|s| s.as_ref().map(SavedSubmission::from))
                    .collect(),
            },
        }
    }
}

impl From<SavedTurn> for Turn {
    fn from(turn: SavedTurn) -> Self {
        match turn {
            SavedTurn::None => Turn::None,
            SavedTurn::Duel { seat, shots } => Turn::Duel { seat, shots },
            SavedTurn::Salvo {
                number,
                first,
                submissions,
            } => Turn::Salvo {
                number,
                first,
                submissions: submissions
                    .into_iter()
                    .map(|s| s.map(Submission::from))
                    .collect(),
            },
        }
    }
}

impl From<&Record> for SavedRecord {
    fn from(record: &Record) -> Self {
        SavedRecord {
            shots: record
                .shots
                .iter()
                .map(|shot| SavedShot {
                    seat: shot.seat,
                    board: shot.board,
                    at: shot.at,
                    hit: shot.hit,
                })
                .collect(),
            sank: record.sank.clone(),
        }
    }
}

impl From<SavedRecord> for Record {
    fn from(record: SavedRecord) -> Self {
        Record {
            shots: record
                .shots
                .into_iter()
                .map(|shot| ShotRecord {
                    seat: shot.seat,
                    board: shot.board,
                    at: shot.at,
                    hit: shot.hit,
                })
                .collect(),
            sank: record.sank,
        }
    }
}

impl From<&Game> for SavedGame {
    fn from(game: &Game) -> Self {
        SavedGame {
            rules: game.rules.clone(),
            rng: game.rng.clone(),
            phase: game.phase,
            boards: game.boards.iter().map(SavedBoard::from).collect(),
            block_origins: game.block_origins.clone(),
            seat_block: game.seat_block.clone(),
            block_revealed: game.block_revealed.clone(),
            seats: game.seats.iter().map(SavedSeat::from).collect(),
            ships: game.ships.iter().map(SavedShip::from).collect(),
            scans: game.scans.iter().map(SavedScan::from).collect(),
            turn: SavedTurn::from(&game.turn),
            salvo_rounds: game.salvo_rounds,
            last_round_first: game.last_round_first,
            winners: game.winners.clone(),
            draw: game.draw,
            record: game.record.as_ref().map(SavedRecord::from),
        }
    }
}

impl From<SavedGame> for Game {
    fn from(saved: SavedGame) -> Self {
        Game {
            rules: saved.rules,
            rng: saved.rng,
            phase: saved.phase,
            boards: saved.boards.into_iter().map(Board::from).collect(),
            block_origins: saved.block_origins,
            seat_block: saved.seat_block,
            block_revealed: saved.block_revealed,
            seats: saved.seats.into_iter().map(SeatState::from).collect(),
            ships: saved.ships.into_iter().map(Ship::from).collect(),
            scans: saved.scans.into_iter().map(Scan::from).collect(),
            turn: Turn::from(saved.turn),
            salvo_rounds: saved.salvo_rounds,
            last_round_first: saved.last_round_first,
            winners: saved.winners,
            draw: saved.draw,
            record: saved.record.map(Record::from),
        }
    }
}

/// Above any round, turn or shot count a real game reaches; a save holding a
/// larger one is refused (counters then have room to grow without overflow).
const MAX_COUNT: u32 = 1_000_000;

impl Game {
    /// The saved game as a string.
    pub fn save(&self) -> String {
        serde_json::to_string(&SaveFile {
            broadside_save: SAVE_VERSION,
            game: SavedGame::from(self),
        })
        .expect("a saved game is plain data with string keys and always serializes")
    }

    /// A game from [`Game::save`]'s string.
    pub fn load(saved: &str) -> Result<Game, RuleError> {
        let file: SaveFile =
            serde_json::from_str(saved).map_err(|e| bad(format!("unreadable save: {e}")))?;
        if file.broadside_save != SAVE_VERSION {
            return Err(bad("this save comes from another version of Broadside"));
        }
        let mut game = Game::from(file.game);
        if game.record.is_none() && game.rules.seats > 2 {
            // A save from before the record: statistics count from here on.
            game.record = Some(Record::new(game.rules.seats));
        }
        game.check_consistent()?;
        Ok(game)
    }

    /// Guards against hand-edited saves that would break invariants the code
    /// relies on: a rule set within what `Rules::resolve` allows, boards and
    /// blocks laid out as `Game::new` lays them, ships where the boards say they
    /// are with their intact parts counted, submitted salvos aimed at cells that
    /// exist, and every index and counter in range.
    fn check_consistent(&self) -> Result<(), RuleError> {
        let ok = |consistent: bool| {
            if consistent {
                Ok(())
            } else {
                Err(bad("unreadable save: inconsistent game"))
            }
        };
        let rules = &self.rules;
        let seats = rules.seats;
        let catalogue = rules.catalogue.len();
        let side = |n: u16| (MIN_SIDE..=MAX_SIDE).contains(&n);
        let shots = |n: u32| (1..=MAX_SHOTS).contains(&n);
        ok((2..=rules.preset.max_seats()).contains(&seats)
            && self.seats.len() == seats
            && rules.mode == rules.preset.mode()
            && side(rules.board.cols)
            && side(rules.board.rows)
            && rules.teams.len() == seats
            && rules.first.is_none_or(|f| f < seats)
            && rules.fleet.iter().all(|&t| t < catalogue)
            && shots(rules.shots_per_turn)
            && rules.max_shots_per_turn.is_none_or(shots)
            && shots(rules.shots_per_opponent)
            && !(rules.shots_per_turn > 1 && rules.hit_again)
            && !(rules.per_volley() && rules.shots_per_turn < 2)
            && [rules.wide_uses, rules.bombard_uses, rules.radar_uses]
                .iter()
                .all(|&n| n <= MAX_SPECIAL_USES)
            && !(rules.specials && rules.mode == Mode::SharedSea)
            && !(rules.practice && (seats != 2 || rules.has_teams)))?;
        // Ship types: small shapes; abilities only in space, whose catalogue
        // (with the default fleet's ids) is the shop's.
        ok(rules.catalogue.iter().all(|t| {
            !t.shape.is_empty()
                && t.shape
                    .cells()
                    .iter()
                    .all(|&(x, y)| x < MAX_SIDE && y < MAX_SIDE)
        }))?;
        match rules.mode {
            Mode::Space => ok(rules.catalogue == ships::space_catalogue())?,
            _ => ok(rules.catalogue.iter().all(|t| t.ability.is_none()))?,
        }
        // The shop belongs to space; a game that is not over has two sides alive.
        ok(self.phase != Phase::Shop || rules.mode == Mode::Space)?;
        if self.phase != Phase::Finished {
            let mut teams: Vec<u32> = (0..seats)
                .filter(|&s| !self.seats[s].eliminated)
                .map(|s| rules.teams[s])
                .collect();
            teams.sort_unstable();
            teams.dedup();
            ok(teams.len() >= 2)?;
        }

        // Boards and blocks as `Game::new` lays them out.
        match rules.mode {
            Mode::SharedSea => {
                let (sea, origins) = shared_sea(rules);
                let mut dealt = self.seat_block.clone();
                dealt.sort_unstable();
                dealt.dedup();
                ok(self.boards.len() == 1
                    && self.boards[0].size == sea
                    && self.block_revealed.len() == origins.len()
                    && self.seat_block.len() == seats
                    && dealt.len() == seats
                    && dealt.iter().all(|&b| b < origins.len())
                    && self.block_origins == origins)?;
            }
            _ => ok(self.boards.len() == seats
                && self.boards.iter().all(|b| b.size == rules.board)
                && self.block_origins.is_empty()
                && self.seat_block.is_empty()
                && self.block_revealed.is_empty())?,
        }
        for board in &self.boards {
            let n = board.size.cell_count();
            ok(board.ship_at.len() == n && board.shot.len() == n && board.mark.len() == n)?;
        }

        // Ships: in their owner's waters, on cells whose `ship_at` names them
        // (and on no others), with the parts not shot counted as intact.
        for (index, ship) in self.ships.iter().enumerate() {
            ok(ship.owner < seats && ship.type_index < catalogue)?;
            let (board, origin, area) = self.placement_area(ship.owner);
            ok(ship.board == board
                && ship.cells.len() == rules.catalogue[ship.type_index].shape.len())?;
            let b = &self.boards[board];
            for &cell in &ship.cells {
                ok(cell.col >= origin.col
                    && cell.row >= origin.row
                    && cell.col - origin.col < area.cols
                    && cell.row - origin.row < area.rows
                    && b.size.contains(cell)
                    && b.ship_at[b.size.index(cell)] as usize == index + 1)?;
            }
            let intact = ship
                .cells
                .iter()
                .filter(|&&c| !b.shot[b.size.index(c)])
                .count();
            ok(ship.intact as usize == intact && (!ship.sunk || intact == 0))?;
        }
        let laid: usize = self.ships.iter().map(|s| s.cells.len()).sum();
        let named: usize = self
            .boards
            .iter()
            .map(|b| b.ship_at.iter().filter(|&&s| s != 0).count())
            .sum();
        ok(laid == named)?;

        // Seats: each ship in its owner's list once, fleets of known types,
        // counters in range.
        let mut listed = vec![false; self.ships.len()];
        for (s, seat) in self.seats.iter().enumerate() {
            ok(seat.fleet.iter().all(|&t| t < catalogue)
                && seat.round <= MAX_COUNT
                && seat.ability_used.iter().flatten().all(|&r| r <= MAX_COUNT)
                && seat.special_uses.iter().all(|&n| n <= MAX_SPECIAL_USES))?;
            for &i in &seat.ships {
                ok(i < listed.len() && !listed[i] && self.ships[i].owner == s)?;
                listed[i] = true;
            }
        }
        ok(listed.iter().all(|&l| l))?;

        ok(self.scans.iter().all(|scan| {
            scan.seat < seats
                && scan.board < self.boards.len()
                && self.boards[scan.board].size.contains(scan.at)
        }))?;
        // The record of shots: kept with three or more seats, naming seats
        // and cells that exist, at most one sinking per ship.
        ok(self.record.is_some() == (seats > 2))?;
        if let Some(record) = &self.record {
            ok(record.sank.len() == seats
                && record.sank.iter().map(|&n| n as usize).sum::<usize>() <= self.ships.len()
                && record.shots.len() <= MAX_COUNT as usize
                && record.shots.iter().all(|shot| {
                    shot.seat < seats
                        && shot.board < self.boards.len()
                        && self.boards[shot.board].size.contains(shot.at)
                }))?;
        }
        ok(self.salvo_rounds <= MAX_COUNT
            && self.last_round_first.is_none_or(|f| f < seats)
            && self.winners.iter().all(|&w| w < seats))?;

        // The turn, and the salvos submitted in an open round: aimed at cells
        // that exist, with actions this game has (they resolve unchecked).
        match &self.turn {
            Turn::None => {}
            Turn::Duel { seat, shots } => ok(*seat < seats
                && *shots <= MAX_COUNT
                && (rules.shots_per_turn == 1 || *shots <= rules.shots_per_turn))?,
            Turn::Salvo {
                number,
                first,
                submissions,
            } => {
                ok(*number <= MAX_COUNT && *first < seats && submissions.len() == seats)?;
                for (seat, submission) in submissions.iter().enumerate() {
                    let Some(submission) = submission else {
                        continue;
                    };
                    for target in &submission.shots {
                        ok(self.check_aim(seat, target.board, Some(target.at)).is_ok())?;
                    }
                    let Some(action) = &submission.action else {
                        continue;
                    };
                    let kind = action.kind();
                    ok(self.check_action_aim(seat, action).is_ok())?;
                    if kind.is_special() {
                        ok(rules.specials
                            && self.seats[seat].special_uses[Self::special_slot(kind)] > 0)?;
                    } else {
                        ok(rules.mode == Mode::Space)?;
                    }
                    if let Action::Reserve {
                        cells: Some(cells), ..
                    } = action
                    {
                        let (board, origin, area) = self.placement_area(seat);
                        let size = self.boards[board].size;
                        ok(cells.iter().all(|&c| {
                            size.contains(c)
                                && c.col >= origin.col
                                && c.row >= origin.row
                                && c.col - origin.col < area.cols
                                && c.row - origin.row < area.rows
                        }))?;
                    }
                }
            }
        }
        Ok(())
    }
}
