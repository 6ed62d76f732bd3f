//! The game state and its one entry point for change, [`Game::apply`].
//!
//! Every command is checked completely before anything changes, so a refused
//! command leaves the game exactly as it was. All randomness comes from the seeded
//! generator stored in the game, so (seed, commands) replays a game exactly.
//!
//! This file holds the state, [`Game::new`], the seat, block and targeting
//! helpers every rule uses, the dispatch of commands and read
//! access. The rules live one family to a file: `shop.rs`, `placement.rs`
//! `duel.rs`, `shots.rs`, `volley.rs`, `actions.rs`
//! `reserve.rs`, `salvo.rs`, `timeout.rs`
//! (the clock), `end.rs` and `save.rs`.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::command::{Action, Command, Event, Phase, Target};
use crate::error::RuleError;
use crate::geometry::{Cell, Size};
use crate::rules::{Mode, Rules, Setup};
use stats::Record;

mod actions;
mod duel;
mod end;
mod placement;
mod reserve;
mod salvo;
mod save;
mod shop;
mod shots;
pub mod stats;
mod timeout;
mod volley;

pub use actions::action_area;
pub use reserve::{RESERVE_FIGHTERS, RESERVE_TYPE};

/// What every opponent knows of a cell: the common knowledge of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    Unknown,
    /// A shot fell in the water (`O`).
    Miss,
    /// Water revealed without a shot: water ring, laser (`.`).
    Water,
    /// A destroyed part not known to belong to a sunk ship (`X` or `?`).
    Hit,
    /// A part of a sunk ship (`#`).
    Sunk,
    /// Fired in a hard-rule volley, result not known (`+`).
    Unresolved,
}

/// One grid of cells with the truth and the common knowledge about it.
#[derive(Clone, Debug)]
pub(crate) struct Board {
    pub(crate) size: Size,
    /// Per cell: 0 for water, else 1 + the index of the ship there.
    pub(crate) ship_at: Vec<u16>,
    /// Per cell: whether it was ever shot (a shot ship part is destroyed).
    pub(crate) shot: Vec<bool>,
    pub(crate) mark: Vec<Mark>,
}

impl Board {
    fn new(size: Size) -> Self {
        let n = size.cell_count();
        Board {
            size,
            ship_at: vec![0; n],
            shot: vec![false; n],
            mark: vec![Mark::Unknown; n],
        }
    }

    pub(crate) fn ship(&self, cell: Cell) -> Option<usize> {
        match self.ship_at[self.size.index(cell)] {
            0 => None,
            n => Some(n as usize - 1),
        }
    }
}

/// One ship on a board.
#[derive(Clone, Debug)]
pub(crate) struct Ship {
    pub(crate) owner: usize,
    pub(crate) type_index: usize,
    pub(crate) board: usize,
    pub(crate) cells: Vec<Cell>,
    /// Parts not yet destroyed.
    pub(crate) intact: u16,
    /// Set when the sinking has been announced.
    pub(crate) sunk: bool,
}

/// A private scan result (scanner, radar).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scan {
    pub(crate) seat: usize,
    pub(crate) board: usize,
    pub(crate) at: Cell,
    pub(crate) ship: bool,
}

/// Everything the game holds about one seat.
#[derive(Clone, Debug)]
pub(crate) struct SeatState {
    /// The seat's fleet as catalogue indices, largest first (bought in space).
    pub(crate) fleet: Vec<usize>,
    pub(crate) bought: bool,
    pub(crate) ready: bool,
    /// The seat's current round: 1 when the battle starts.
    pub(crate) round: u32,
    pub(crate) eliminated: bool,
    pub(crate) resigned: bool,
    /// Round of the last use of each ship ability, by
    /// [`ShipAbility::index`](crate::ships::ShipAbility::index).
    pub(crate) ability_used: [Option<u32>; 4],
    /// Uses left of wide, bombard, radar.
    pub(crate) special_uses: [u32; 3],
    /// Index into `Game::ships` of each ship of the seat.
    pub(crate) ships: Vec<usize>,
}

/// A salvo as submitted, kept secret until the round resolves.
#[derive(Clone, Debug)]
pub(crate) struct Submission {
    pub(crate) shots: Vec<Target>,
    pub(crate) action: Option<Action>,
}

/// Whose move it is in the battle.
#[derive(Clone, Debug)]
pub(crate) enum Turn {
    /// No battle yet, or the game is over.
    None,
    /// Two players alive: `seat` shoots; `shots` already fired this turn.
    Duel { seat: usize, shots: u32 },
    /// Three or more alive: a secret simultaneous round.
    Salvo {
        number: u32,
        first: usize,
        submissions: Vec<Option<Submission>>,
    },
}

/// A game of Broadside. Clone it to explore; [`Game::save`] it,
/// through its saved form in `save.rs`.
#[derive(Clone, Debug)]
pub struct Game {
    pub(crate) rules: Rules,
    /// The only source of randomness (never shown to any client).
    pub(crate) rng: Pcg64Mcg,
    pub(crate) phase: Phase,
    pub(crate) boards: Vec<Board>,
    /// Shared sea: the origin of each block, by block index.
    pub(crate) block_origins: Vec<Cell>,
    /// Shared sea: the block of each seat (dealt at random, R-9.3).
    pub(crate) seat_block: Vec<usize>,
    /// Shared sea: blocks whose owner a sinking revealed.
    pub(crate) block_revealed: Vec<bool>,
    pub(crate) seats: Vec<SeatState>,
    pub(crate) ships: Vec<Ship>,
    pub(crate) scans: Vec<Scan>,
    pub(crate) turn: Turn,
    /// Salvo rounds played so far (R-6.6 counts them from 1).
    pub(crate) salvo_rounds: u32,
    /// The first seat of the last salvo round, for.
    pub(crate) last_round_first: Option<usize>,
    pub(crate) winners: Vec<usize>,
    pub(crate) draw: bool,
    /// Who fired each shot and whose shot sank each ship, for
    /// [`Game::stats`]. Kept with three or more seats only: with two, every
    /// shot at a seat's waters was the other seat's, so the boards are the
    /// whole record (and a two-seat save reads as it always did). Saves made
    /// before it existed load with an empty record.
    pub(crate) record: Option<Record>,
}

/// A summary for the all-seeing referee (`state`), never sent to a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Status {
    pub phase: Phase,
    pub to_move: Vec<usize>,
    pub alive: Vec<usize>,
    pub winner: Option<Vec<usize>>,
    pub draw: bool,
    pub round: BTreeMap<usize, u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<BTreeMap<usize, Cell>>,
}

fn bad(message: impl Into<String>) -> RuleError {
    RuleError::BadCommand(message.into())
}

/// The shared sea of: its size and the origin of each block, in block order.
fn shared_sea(rules: &Rules) -> (Size, Vec<Cell>) {
    let (across, down) = match rules.seats {
        2 => (2, 1),
        3 => (3, 1),
        4 => (2, 2),
        _ => (3, 2),
    };
    let size = rules.board;
    let origins = (0..across * down)
        .map(|b| {
            Cell::new(
                (b % across) as u16 * size.cols,
                (b / across) as u16 * size.rows,
            )
        })
        .collect();
    let sea = Size::new(size.cols * across as u16, size.rows * down as u16);
    (sea, origins)
}

impl Game {
    /// Starts a game: the shop (space) or the placement phase.
    pub fn new(setup: &Setup) -> Result<Game, RuleError> {
        let rules = Rules::resolve(setup)?;
        if rules.specials && rules.mode == Mode::SharedSea {
            return Err(bad("specials are not played in the shared sea"));
        }
        let mut rng = Pcg64Mcg::seed_from_u64(setup.seed);
        let seats = rules.seats;
        let (boards, block_origins, seat_block) = match rules.mode {
            Mode::SharedSea => {
                let (sea, origins) = shared_sea(&rules);
                let mut deal: Vec<usize> = (0..seats).collect();
                deal.shuffle(&mut rng);
                (vec![Board::new(sea)], origins, deal)
            }
            _ => (
                (0..seats).map(|_| Board::new(rules.board)).collect(),
                Vec::new(),
                Vec::new(),
            ),
        };
        let blocks = block_origins.len();
        let space = rules.mode == Mode::Space;
        let seat_state = SeatState {
            fleet: rules.fleet.clone(),
            bought: !space,
            ready: false,
            round: 0,
            eliminated: false,
            resigned: false,
            ability_used: [None; 4],
            special_uses: [rules.wide_uses, rules.bombard_uses, rules.radar_uses],
            ships: Vec::new(),
        };
        Ok(Game {
            phase: if space { Phase::Shop } else { Phase::Placement },
            seats: vec![seat_state; seats],
            rules,
            rng,
            boards,
            block_origins,
            seat_block,
            block_revealed: vec![false; blocks],
            ships: Vec::new(),
            scans: Vec::new(),
            turn: Turn::None,
            salvo_rounds: 0,
            last_round_first: None,
            winners: Vec::new(),
            draw: false,
            record: (seats > 2).then(|| Record::new(seats)),
        })
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    // ----- seats, teams, blocks -------------------------------------------------

    fn check_seat(&self, seat: usize) -> Result<(), RuleError> {
        if seat >= self.rules.seats {
            return Err(bad(format!("there is no seat {seat}")));
        }
        Ok(())
    }

    pub fn seat_count(&self) -> usize {
        self.rules.seats
    }

    pub fn is_alive(&self, seat: usize) -> bool {
        !self.seats[seat].eliminated
    }

    pub fn alive_seats(&self) -> Vec<usize> {
        (0..self.rules.seats)
            .filter(|&s| self.is_alive(s))
            .collect()
    }

    /// The board and the area (origin, size) where a seat places its fleet.
    pub fn placement_area(&self, seat: usize) -> (usize, Cell, Size) {
        match self.rules.mode {
            Mode::SharedSea => (
                0,
                self.block_origins[self.seat_block[seat]],
                self.rules.board,
            ),
            _ => (seat, Cell::new(0, 0), self.rules.board),
        }
    }

    /// The block of the shared sea a cell lies in.
    pub(crate) fn block_of(&self, cell: Cell) -> usize {
        let size = self.rules.board;
        let across = self.boards[0].size.cols / size.cols;
        (cell.row / size.rows) as usize * across as usize + (cell.col / size.cols) as usize
    }

    /// The seat whose waters hold a cell: the board's owner in fleet duel and
    /// space, the block's owner in the shared sea (`None` for the empty block).
    pub(crate) fn owner_of(&self, board: usize, cell: Cell) -> Option<usize> {
        match self.rules.mode {
            Mode::SharedSea => {
                let block = self.block_of(cell);
                self.seat_block.iter().position(|&b| b == block)
            }
            _ => Some(board),
        }
    }

    /// Whether `viewer` sees every ship everywhere.
    pub fn full_vision(&self, viewer: Option<usize>) -> bool {
        self.phase == Phase::Finished
            || match viewer {
                None => self.rules.spectators_see_all,
                Some(seat) => self.seats[seat].eliminated,
            }
    }

    /// Whether `viewer` knows the truth of the waters of `owner` (own or team-mate).
    pub(crate) fn sees_waters_of(&self, viewer: Option<usize>, owner: usize) -> bool {
        viewer.is_some_and(|v| self.rules.same_team(v, owner))
    }

    // ----- targeting -------------------------------------------------------------

    /// Whether `seat` knows the cell is water or already shot.
    fn known_to(&self, seat: usize, board: usize, cell: Cell) -> bool {
        let b = &self.boards[board];
        let index = b.size.index(cell);
        b.shot[index]
            || b.mark[index] != Mark::Unknown
            || self.scans.iter().any(|s| {
                s.board == board && s.at == cell && !s.ship && self.rules.same_team(s.seat, seat)
            })
    }

    /// Checks that `seat` may aim at the waters holding `target`, in the order of
    /// docs/referee.md: own board, own team, out of bounds.
    fn check_aim(&self, seat: usize, board: usize, cell: Option<Cell>) -> Result<(), RuleError> {
        if board >= self.boards.len() {
            return Err(RuleError::OutOfBounds);
        }
        let size = self.boards[board].size;
        let owner = match self.rules.mode {
            Mode::SharedSea => match cell {
                Some(cell) if size.contains(cell) => self.owner_of(board, cell),
                _ => return Err(RuleError::OutOfBounds),
            },
            _ => Some(board),
        };
        if let Some(owner) = owner {
            if owner == seat {
                return Err(RuleError::OwnBoard);
            }
            if self.rules.same_team(owner, seat) {
                return Err(RuleError::OwnTeam);
            }
        }
        if let Some(cell) = cell {
            if !size.contains(cell) {
                return Err(RuleError::OutOfBounds);
            }
        }
        Ok(())
    }

    /// Whether `seat` may shoot at the cell; the cell is on the board.
    pub fn is_targetable(&self, seat: usize, board: usize, cell: Cell) -> bool {
        if board >= self.boards.len() || !self.boards[board].size.contains(cell) {
            return false;
        }
        match self.owner_of(board, cell) {
            None => false,
            Some(owner) => {
                !self.rules.same_team(owner, seat)
                    && !self.seats[owner].eliminated
                    && !self.known_to(seat, board, cell)
            }
        }
    }

    fn check_target(&self, seat: usize, target: Target) -> Result<(), RuleError> {
        self.check_aim(seat, target.board, Some(target.at))?;
        if !self.is_targetable(seat, target.board, target.at) {
            return Err(RuleError::NotTargetable);
        }
        Ok(())
    }

    /// Every cell `seat` may shoot at on `board`, row by row.
    pub fn targetable_cells(&self, seat: usize, board: usize) -> Vec<Cell> {
        if board >= self.boards.len() {
            return Vec::new();
        }
        self.boards[board]
            .size
            .cells()
            .filter(|&c| self.is_targetable(seat, board, c))
            .collect()
    }

    /// The opponents' boards `seat` may aim at in a duel: the sea in the shared
    /// sea, else the boards of living opponents.
    pub fn target_boards(&self, seat: usize) -> Vec<usize> {
        match self.rules.mode {
            Mode::SharedSea => vec![0],
            _ => (0..self.rules.seats)
                .filter(|&s| !self.rules.same_team(s, seat) && self.is_alive(s))
                .collect(),
        }
    }

    // ----- the entry point -------------------------------------------------------

    /// Applies the intent of the seat `seat`, which the caller (the host of
    /// the game) knows and the sender of the intent cannot choose; as
    /// [`Game::apply`] otherwise.
    pub fn apply_as(
        &mut self,
        seat: usize,
        intent: crate::Intent,
    ) -> Result<Vec<Event>, RuleError> {
        self.apply(intent.by(seat))
    }

    /// Applies a command. On success returns what happened; on error nothing
    /// changed.
    pub fn apply(&mut self, command: Command) -> Result<Vec<Event>, RuleError> {
        match command {
            Command::Buy { seat, ships } => self.buy(seat, &ships),
            Command::Place { seat, ships } => self.place(seat, &ships),
            Command::PlaceRandom { seat } => self.place_random(seat),
            Command::Fire { seat, target } => self.fire(seat, target),
            Command::Volley { seat, cells } => self.volley(seat, &cells),
            Command::Ability { seat, action } => self.ability(seat, action),
            Command::Salvo {
                seat,
                shots,
                action,
            } => self.salvo(seat, shots, action),
            Command::Timeout => self.timeout(),
            Command::Resign { seat } => self.resign(seat),
        }
    }

    fn check_phase(&self, phase: Phase) -> Result<(), RuleError> {
        if self.phase == Phase::Finished {
            return Err(RuleError::GameOver);
        }
        if self.phase != phase {
            return Err(RuleError::WrongPhase);
        }
        Ok(())
    }

    // ----- read access ------------------------------------------------------------------

    /// Seats that must act now.
    pub fn to_move(&self) -> Vec<usize> {
        match self.phase {
            Phase::Shop => (0..self.rules.seats)
                .filter(|&s| !self.seats[s].bought)
                .collect(),
            Phase::Placement => (0..self.rules.seats)
                .filter(|&s| !self.seats[s].ready)
                .collect(),
            Phase::Finished => Vec::new(),
            Phase::Battle => match &self.turn {
                Turn::Duel { seat, .. } => vec![*seat],
                Turn::Salvo { submissions, .. } => (0..self.rules.seats)
                    .filter(|&s| self.is_alive(s) && submissions[s].is_none())
                    .collect(),
                Turn::None => Vec::new(),
            },
        }
    }

    /// Whether the battle is in a salvo round rather than a duel.
    pub fn in_salvo_round(&self) -> bool {
        matches!(self.turn, Turn::Salvo { .. })
    }

    /// Shots already fired in the current duel turn.
    pub fn shots_this_turn(&self) -> u32 {
        match self.turn {
            Turn::Duel { shots, .. } => shots,
            _ => 0,
        }
    }

    pub fn round_of(&self, seat: usize) -> u32 {
        self.seats[seat].round
    }

    pub fn winners(&self) -> Option<&[usize]> {
        (self.phase == Phase::Finished).then_some(self.winners.as_slice())
    }

    pub fn is_draw(&self) -> bool {
        self.draw
    }

    /// The referee's all-seeing summary.
    pub fn status(&self) -> Status {
        Status {
            phase: self.phase,
            to_move: self.to_move(),
            alive: self.alive_seats(),
            winner: self.winners().map(|w| w.to_vec()),
            draw: self.draw,
            round: (0..self.rules.seats)
                .map(|s| (s, self.seats[s].round))
                .collect(),
            blocks: (self.rules.mode == Mode::SharedSea).then(|| {
                (0..self.rules.seats)
                    .map(|s| (s, self.block_origins[self.seat_block[s]]))
                    .collect()
            }),
        }
    }
}
