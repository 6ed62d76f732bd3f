//! The game state and its one entry point for change, [`Game::apply`].
//!
//! Every command is checked completely before anything changes, so a refused
//! command leaves the game exactly as it was. All randomness comes from the seeded
//! generator stored in the game, so (seed, commands) replays a game exactly.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use crate::command::{
    Action, ActionKind, Command, End, Event, Line, Phase, ScanCell, ShotResult, Target,
};
use crate::error::RuleError;
use crate::geometry::{Cell, Size};
use crate::placement::{Packer, Placement};
use crate::rules::{
    Mode, Preset, Rules, SalvoMode, Setup, MAX_SHOTS, MAX_SIDE, MAX_SPECIAL_USES, MIN_SIDE,
};
use crate::ships::{self, ShipAbility, SPACE_DEFAULT_FLEET};
use crate::stats::{Record, ShotRecord};

/// What every opponent knows of a cell: the common knowledge of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Scan {
    pub(crate) seat: usize,
    pub(crate) board: usize,
    pub(crate) at: Cell,
    pub(crate) ship: bool,
}

/// Everything the game holds about one seat.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SeatState {
    /// The seat's fleet as catalogue indices, largest first (bought in space).
    pub(crate) fleet: Vec<usize>,
    pub(crate) bought: bool,
    pub(crate) ready: bool,
    /// The seat's current round: 1 when the battle starts.
    pub(crate) round: u32,
    pub(crate) eliminated: bool,
    pub(crate) resigned: bool,
    /// Round of the last use of each ship ability, by [`ShipAbility::index`].
    pub(crate) ability_used: [Option<u32>; 4],
    /// Uses left of wide, bombard, radar.
    pub(crate) special_uses: [u32; 3],
    /// Index into `Game::ships` of each ship of the seat.
    pub(crate) ships: Vec<usize>,
}

/// A salvo as submitted, kept secret until the round resolves.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Submission {
    pub(crate) shots: Vec<Target>,
    pub(crate) action: Option<Action>,
}

/// Whose move it is in the battle.
#[derive(Clone, Debug, Serialize, Deserialize)]
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

/// A game of Broadside. Clone it to explore; serialize it to save.
#[derive(Clone, Debug, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) record: Option<Record>,
}

/// The save format's version, checked on load.
const SAVE_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct SaveFile {
    broadside_save: u32,
    game: Game,
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

/// Above any round, turn or shot count a real game reaches; a save holding a
/// larger one is refused (counters then have room to grow without overflow).
const MAX_COUNT: u32 = 1_000_000;

/// Fighters a reserve brings.
pub const RESERVE_FIGHTERS: usize = 3;
/// The player's turn from which the air bombardment may be used.
const BOMBARD_FROM_ROUND: u32 = 10;

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

    /// The saved game as a string.
    pub fn save(&self) -> String {
        serde_json::to_string(&SaveFile {
            broadside_save: SAVE_VERSION,
            game: self.clone(),
        })
        .expect("a game is plain data and always serializes")
    }

    /// A game from [`Game::save`]'s string.
    pub fn load(saved: &str) -> Result<Game, RuleError> {
        let mut file: SaveFile =
            serde_json::from_str(saved).map_err(|e| bad(format!("unreadable save: {e}")))?;
        if file.broadside_save != SAVE_VERSION {
            return Err(bad("this save comes from another version of Broadside"));
        }
        let game = &mut file.game;
        if game.record.is_none() && game.rules.seats > 2 {
            // A save from before the record: statistics count from here on.
            game.record = Some(Record::new(game.rules.seats));
        }
        file.game.check_consistent()?;
        Ok(file.game)
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
    /// REFEREE.md: own board, own team, out of bounds.
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

    // ----- shop (R-7.2) -----------------------------------------------------------

    /// Checks a purchase and returns the fleet as catalogue indices, largest first.
    pub fn check_purchase(&self, ships: &BTreeMap<String, u32>) -> Result<Vec<usize>, RuleError> {
        let mut fleet = Vec::new();
        let mut capitals: u32 = 0;
        let mut cost: u64 = 0;
        for id in ships.keys() {
            if self.rules.type_index(id).is_none() {
                return Err(RuleError::UnknownShip(id.clone()));
            }
        }
        for (id, &count) in ships {
            let index = self.rules.type_index(id).expect("checked above");
            let ship_type = &self.rules.catalogue[index];
            if ship_type.capital {
                // Saturating: counts come from clients, and a wrapped sum of
                // huge ones would pass the capital limit.
                capitals = capitals.saturating_add(count);
            }
            cost += ship_type.price as u64 * count as u64;
            fleet.extend(std::iter::repeat_n(index, count.min(64) as usize));
        }
        if capitals > 1 {
            return Err(RuleError::CapitalLimit);
        }
        for (id, &count) in ships {
            let index = self.rules.type_index(id).expect("checked above");
            if count > self.rules.catalogue[index].limit {
                return Err(RuleError::TypeLimit(id.clone()));
            }
        }
        if cost > self.rules.credits as u64 {
            return Err(RuleError::OverBudget {
                cost: cost.min(u32::MAX as u64) as u32,
                credits: self.rules.credits,
            });
        }
        if fleet.is_empty() {
            return Err(bad("a fleet needs at least one ship"));
        }
        fleet.sort_by_key(|&t| (std::cmp::Reverse(self.rules.catalogue[t].shape.len()), t));
        let shapes: Vec<_> = fleet
            .iter()
            .map(|&t| &self.rules.catalogue[t].shape)
            .collect();
        if !crate::placement::fleet_fits(self.rules.board, &shapes, self.rules.ships_may_touch) {
            return Err(RuleError::FleetDoesNotFit);
        }
        Ok(fleet)
    }

    fn buy(&mut self, seat: usize, ships: &BTreeMap<String, u32>) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Shop)?;
        let fleet = self.check_purchase(ships)?;
        let mut events = Vec::new();
        self.set_fleet(seat, fleet, &mut events);
        self.maybe_end_shop(&mut events);
        Ok(events)
    }

    fn set_fleet(&mut self, seat: usize, fleet: Vec<usize>, events: &mut Vec<Event>) {
        events.push(Event::Bought {
            seat,
            ships: fleet.len() as u32,
        });
        self.seats[seat].fleet = fleet;
        self.seats[seat].bought = true;
    }

    /// the default fleet, or its largest prefix the credits pay for. On a
    /// custom field too small for it, the largest such prefix that fits: a seat
    /// gets this fleet without a fit check of its own (shop timeout, resigning)
    /// and must always be able to place it.
    fn default_space_fleet(&self) -> Vec<usize> {
        let mut credits = self.rules.credits;
        let mut prefix = Vec::new();
        for id in SPACE_DEFAULT_FLEET {
            let index = self
                .rules
                .type_index(id)
                .expect("the default fleet uses catalogue ids");
            let price = self.rules.catalogue[index].price;
            if price > credits {
                break;
            }
            credits -= price;
            prefix.push(index);
        }
        while !prefix.is_empty() {
            let mut fleet = prefix.clone();
            fleet.sort_by_key(|&t| (std::cmp::Reverse(self.rules.catalogue[t].shape.len()), t));
            let shapes: Vec<_> = fleet
                .iter()
                .map(|&t| &self.rules.catalogue[t].shape)
                .collect();
            if crate::placement::fleet_fits(self.rules.board, &shapes, self.rules.ships_may_touch) {
                return fleet;
            }
            prefix.pop();
        }
        prefix
    }

    fn maybe_end_shop(&mut self, events: &mut Vec<Event>) {
        if self.seats.iter().all(|s| s.bought) {
            self.phase = Phase::Placement;
            events.push(Event::PhaseChanged {
                phase: Phase::Placement,
            });
        }
    }

    // ----- placement (R-2) --------------------------------------------------------

    /// Checks a layout for `seat` without changing anything; the placement UI uses
    /// this to preview legality. Returns each ship's type and board cells.
    pub fn check_layout(
        &self,
        seat: usize,
        ships: &[Placement],
    ) -> Result<Vec<(usize, Vec<Cell>)>, RuleError> {
        self.check_seat(seat)?;
        for placement in ships {
            if self.rules.type_index(&placement.ship_type).is_none() {
                return Err(RuleError::UnknownShip(placement.ship_type.clone()));
            }
            if placement.rot > 3 {
                return Err(bad("rot must be 0, 1, 2 or 3"));
            }
        }
        let mut wanted = self.seats[seat].fleet.clone();
        let mut given: Vec<usize> = ships
            .iter()
            .map(|p| self.rules.type_index(&p.ship_type).expect("checked above"))
            .collect();
        wanted.sort_unstable();
        given.sort_unstable();
        if wanted != given {
            return Err(RuleError::WrongFleet);
        }
        self.check_ships_partial(seat, ships)
    }

    /// Checks ships that may be only part of the fleet (no fleet check): bounds,
    /// own waters, overlap and touching, in the order of REFEREE.md.
    pub fn check_ships_partial(
        &self,
        seat: usize,
        ships: &[Placement],
    ) -> Result<Vec<(usize, Vec<Cell>)>, RuleError> {
        self.check_seat(seat)?;
        let (board, origin, area) = self.placement_area(seat);
        let board_size = self.boards[board].size;
        let mut laid = Vec::with_capacity(ships.len());
        for placement in ships {
            let type_index = self
                .rules
                .type_index(&placement.ship_type)
                .ok_or_else(|| RuleError::UnknownShip(placement.ship_type.clone()))?;
            let cells = self.rules.catalogue[type_index]
                .shape
                .place(placement.at, placement.rot);
            if cells
                .iter()
                .any(|&(c, r)| !board_size.contains_signed(c, r))
            {
                return Err(RuleError::OutOfBounds);
            }
            laid.push((
                type_index,
                cells
                    .iter()
                    .map(|&(c, r)| Cell::new(c as u16, r as u16))
                    .collect::<Vec<_>>(),
            ));
        }
        let inside = |cell: Cell| {
            cell.col >= origin.col
                && cell.row >= origin.row
                && cell.col < origin.col + area.cols
                && cell.row < origin.row + area.rows
        };
        if laid
            .iter()
            .any(|(_, cells)| cells.iter().any(|&c| !inside(c)))
        {
            return Err(RuleError::OutsideOwnWaters);
        }
        let mut owner = vec![u16::MAX; board_size.cell_count()];
        for (ship, (_, cells)) in laid.iter().enumerate() {
            for &cell in cells {
                let index = board_size.index(cell);
                if owner[index] != u16::MAX {
                    return Err(RuleError::ShipsOverlap);
                }
                owner[index] = ship as u16;
            }
        }
        if !self.rules.ships_may_touch {
            for (ship, (_, cells)) in laid.iter().enumerate() {
                for &cell in cells {
                    for n in board_size.neighbours(cell) {
                        let other = owner[board_size.index(n)];
                        if other != u16::MAX && other != ship as u16 {
                            return Err(RuleError::ShipsTouch);
                        }
                    }
                }
            }
        }
        Ok(laid)
    }

    fn place(&mut self, seat: usize, ships: &[Placement]) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Placement)?;
        let laid = self.check_layout(seat, ships)?;
        Ok(self.commit_layout(seat, laid))
    }

    /// A random layout of the seat's whole fleet, drawn from `rng`. The
    /// engine uses its own generator; a client preview may pass another one.
    pub fn random_layout<R: Rng>(
        &self,
        seat: usize,
        rng: &mut R,
    ) -> Result<Vec<Placement>, RuleError> {
        self.random_completion(seat, &[], rng)
    }

    /// Completes a partial layout at random ("🎲 Random" places the remaining
    /// ships, R-2.7). `fixed` must be legal on its own and part of the fleet.
    pub fn random_completion<R: Rng>(
        &self,
        seat: usize,
        fixed: &[Placement],
        rng: &mut R,
    ) -> Result<Vec<Placement>, RuleError> {
        self.check_seat(seat)?;
        let laid = self.check_ships_partial(seat, fixed)?;
        let mut remaining = self.seats[seat].fleet.clone();
        for (type_index, _) in &laid {
            match remaining.iter().position(|t| t == type_index) {
                Some(i) => {
                    remaining.remove(i);
                }
                None => return Err(RuleError::WrongFleet),
            }
        }
        let (_, origin, area) = self.placement_area(seat);
        let mut packer = Packer::new(area, self.rules.ships_may_touch);
        for placement in fixed {
            let type_index = self
                .rules
                .type_index(&placement.ship_type)
                .expect("checked above");
            let local = Cell::new(placement.at.col - origin.col, placement.at.row - origin.row);
            packer.add(
                &self.rules.catalogue[type_index].shape,
                placement.rot,
                local,
            );
        }
        let shapes: Vec<_> = remaining
            .iter()
            .map(|&t| &self.rules.catalogue[t].shape)
            .collect();
        let found = packer
            .fill(&shapes, rng)
            .ok_or(RuleError::FleetDoesNotFit)?;
        let mut out = fixed.to_vec();
        out.extend(
            remaining
                .iter()
                .zip(found)
                .map(|(&t, (rot, at))| Placement {
                    ship_type: self.rules.catalogue[t].id.clone(),
                    at: Cell::new(at.col + origin.col, at.row + origin.row),
                    rot,
                }),
        );
        Ok(out)
    }

    fn place_random(&mut self, seat: usize) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Placement)?;
        let mut rng = self.rng.clone();
        let layout = self.random_layout(seat, &mut rng)?;
        let laid = self.check_layout(seat, &layout)?;
        self.rng = rng;
        Ok(self.commit_layout(seat, laid))
    }

    /// Puts a checked layout on the board (replacing an earlier one) and starts
    /// the battle once every seat is ready.
    fn commit_layout(&mut self, seat: usize, laid: Vec<(usize, Vec<Cell>)>) -> Vec<Event> {
        let (board, _, _) = self.placement_area(seat);
        // Replace an earlier layout of this seat: placement may be changed until
        // the battle starts. Ship indices are compacted to keep them dense.
        if !self.seats[seat].ships.is_empty() {
            let old: Vec<usize> = std::mem::take(&mut self.seats[seat].ships);
            let mut keep = Vec::with_capacity(self.ships.len());
            for (index, ship) in self.ships.drain(..).enumerate() {
                if !old.contains(&index) {
                    keep.push(ship);
                }
            }
            self.ships = keep;
            self.reindex_ships();
        }
        for (type_index, cells) in laid {
            self.add_ship(seat, board, type_index, cells);
        }
        self.seats[seat].ready = true;
        let mut events = vec![Event::Ready { seat }];
        if self.seats.iter().all(|s| s.ready) {
            self.start_battle(&mut events);
        }
        events
    }

    fn add_ship(
        &mut self,
        seat: usize,
        board: usize,
        type_index: usize,
        cells: Vec<Cell>,
    ) -> usize {
        let index = self.ships.len();
        let b = &mut self.boards[board];
        for &cell in &cells {
            let i = b.size.index(cell);
            b.ship_at[i] = index as u16 + 1;
        }
        self.ships.push(Ship {
            owner: seat,
            type_index,
            board,
            intact: cells.len() as u16,
            cells,
            sunk: false,
        });
        self.seats[seat].ships.push(index);
        index
    }

    fn reindex_ships(&mut self) {
        for board in &mut self.boards {
            board.ship_at.iter_mut().for_each(|s| *s = 0);
        }
        for seat in &mut self.seats {
            seat.ships.clear();
        }
        for (index, ship) in self.ships.iter().enumerate() {
            let b = &mut self.boards[ship.board];
            for &cell in &ship.cells {
                let i = b.size.index(cell);
                b.ship_at[i] = index as u16 + 1;
            }
            self.seats[ship.owner].ships.push(index);
        }
    }

    fn start_battle(&mut self, events: &mut Vec<Event>) {
        self.phase = Phase::Battle;
        events.push(Event::PhaseChanged {
            phase: Phase::Battle,
        });
        for seat in &mut self.seats {
            seat.round = 1;
        }
        if self.alive_seats().len() >= 3 {
            self.start_round(events);
        } else {
            let first = match self.rules.first {
                _ if self.rules.practice => 0,
                Some(first) => first,
                None => self.rng.random_range(0..self.rules.seats),
            };
            self.turn = Turn::Duel {
                seat: first,
                shots: 0,
            };
            events.push(Event::TurnStarted { seat: first });
        }
    }

    // ----- shooting ----------------------------------------------------------------

    /// The seat to move in a duel, after the phase checks of REFEREE.md.
    fn duel_mover(&self, seat: usize) -> Result<u32, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Battle)?;
        match self.turn {
            Turn::Duel { seat: mover, shots } => {
                if mover != seat {
                    Err(RuleError::NotYourTurn)
                } else {
                    Ok(shots)
                }
            }
            _ => Err(RuleError::WrongPhase),
        }
    }

    fn fire(&mut self, seat: usize, target: Target) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Battle)?;
        if self.rules.per_volley() {
            return Err(RuleError::WrongPhase);
        }
        self.duel_mover(seat)?;
        self.check_target(seat, target)?;
        let mut events = Vec::new();
        let hit = self.shoot(seat, target.board, &[target.at], &mut events);
        self.after_shot(seat, hit, &mut events);
        Ok(events)
    }

    /// Whether a hit announces the ship type (brasil easy rule, R-5.2).
    fn announces_hit_type(&self) -> bool {
        self.rules.preset == Preset::Brasil
    }

    /// Shoots cells of one board at once (one shot, or an area), announces the
    /// results, then settles sinkings and the end. Returns whether anything was hit.
    fn shoot(
        &mut self,
        shooter: usize,
        board: usize,
        cells: &[Cell],
        events: &mut Vec<Event>,
    ) -> bool {
        let hits = self.strike(shooter, board, cells);
        self.settle(events, |game, events| {
            for &cell in cells {
                let shot = game.announce_shot(shooter, board, cell);
                events.push(shot);
            }
        });
        hits > 0
    }

    /// Marks a struck cell in the common knowledge and describes the shot. Run
    /// before sinkings are settled, so `sunk` means the ship sank with this
    /// shot or with others landing at the same time.
    fn announce_shot(&mut self, shooter: usize, board: usize, at: Cell) -> Event {
        let announces_type = self.announces_hit_type();
        let b = &mut self.boards[board];
        let index = b.size.index(at);
        let (result, ship) = match b.ship(at) {
            None => {
                b.mark[index] = Mark::Miss;
                (ShotResult::Miss, None)
            }
            Some(s) => {
                if b.mark[index] == Mark::Unknown {
                    b.mark[index] = Mark::Hit;
                }
                let id = self.rules.catalogue[self.ships[s].type_index].id.clone();
                if self.ships[s].intact == 0 {
                    (ShotResult::Sunk, Some(id))
                } else if announces_type {
                    (ShotResult::Hit, Some(id))
                } else {
                    (ShotResult::Hit, None)
                }
            }
        };
        Event::Shot {
            shooter,
            board,
            at,
            result,
            ship,
        }
    }

    /// Destroys what lies on the cells, fired by `shooter`; marks come later.
    /// Returns the parts hit. Every shot is recorded for [`Game::stats`], also
    /// one landing on a cell another shot of the same salvo round struck first
    /// (it hits what is there, but destroys nothing more).
    fn strike(&mut self, shooter: usize, board: usize, cells: &[Cell]) -> u32 {
        let mut hits = 0;
        for &cell in cells {
            let b = &mut self.boards[board];
            let index = b.size.index(cell);
            let ship = b.ship(cell);
            let first = !b.shot[index];
            b.shot[index] = true;
            let mut sank = false;
            if let (true, Some(ship)) = (first, ship) {
                self.ships[ship].intact -= 1;
                hits += 1;
                sank = self.ships[ship].intact == 0;
            }
            if let Some(record) = &mut self.record {
                record.shots.push(ShotRecord {
                    seat: shooter,
                    board,
                    at: cell,
                    hit: ship.is_some(),
                });
                if sank {
                    record.sank[shooter] += 1;
                }
            }
        }
        hits
    }

    /// Runs `announce` (which reports shots while sinkings are not yet marked),
    /// then decides sinkings, water rings, eliminations and the end (R-6.6 step 6).
    fn settle(
        &mut self,
        events: &mut Vec<Event>,
        announce: impl FnOnce(&mut Game, &mut Vec<Event>),
    ) {
        announce(self, events);
        let hidden = self.rules.per_volley();
        for ship_index in 0..self.ships.len() {
            let ship = &self.ships[ship_index];
            if ship.sunk || ship.intact > 0 {
                continue;
            }
            self.ships[ship_index].sunk = true;
            let ship = self.ships[ship_index].clone();
            let id = self.rules.catalogue[ship.type_index].id.clone();
            if hidden {
                events.push(Event::Sunk {
                    owner: ship.owner,
                    ship: id,
                    cells: None,
                });
                continue;
            }
            if self.rules.mode == Mode::SharedSea {
                let block = self.block_of(ship.cells[0]);
                self.block_revealed[block] = true;
            }
            let board = &mut self.boards[ship.board];
            for &cell in &ship.cells {
                let index = board.size.index(cell);
                board.mark[index] = Mark::Sunk;
            }
            events.push(Event::Sunk {
                owner: ship.owner,
                ship: id,
                cells: Some(ship.cells.clone()),
            });
            if self.rules.water_ring {
                let mut ring = Vec::new();
                for &cell in &ship.cells {
                    for n in board.size.neighbours(cell) {
                        let index = board.size.index(n);
                        if board.mark[index] == Mark::Unknown && board.ship_at[index] == 0 {
                            board.mark[index] = Mark::Water;
                            ring.push(n);
                        }
                    }
                }
                if !ring.is_empty() {
                    ring.sort_by_key(|c| (c.row, c.col));
                    events.push(Event::Revealed {
                        board: ship.board,
                        cells: ring,
                    });
                }
            }
        }
        let out: Vec<usize> = (0..self.rules.seats)
            .filter(|&seat| {
                !self.seats[seat].eliminated
                    && self.seats[seat]
                        .ships
                        .iter()
                        .all(|&s| self.ships[s].intact == 0)
            })
            .collect();
        if out.is_empty() {
            return;
        }
        let mut alive_before = self.alive_seats();
        alive_before.extend(&out);
        alive_before.sort_unstable();
        for seat in out {
            self.eliminate(seat, events);
        }
        self.check_end(&alive_before, events);
    }

    fn eliminate(&mut self, seat: usize, events: &mut Vec<Event>) {
        self.seats[seat].eliminated = true;
        if self.rules.mode == Mode::SharedSea {
            let block = self.seat_block[seat];
            self.block_revealed[block] = true;
        }
        events.push(Event::Eliminated { seat });
    }

    /// Ends the game when at most one team has ships afloat.
    fn check_end(&mut self, alive_before: &[usize], events: &mut Vec<Event>) {
        if self.phase == Phase::Finished {
            return;
        }
        let alive = self.alive_seats();
        let mut teams: Vec<u32> = alive.iter().map(|&s| self.rules.teams[s]).collect();
        teams.sort_unstable();
        teams.dedup();
        if teams.len() > 1 {
            return;
        }
        let (winning_teams, draw): (Vec<u32>, bool) = if teams.len() == 1 {
            (teams, false)
        } else {
            let mut before: Vec<u32> = alive_before.iter().map(|&s| self.rules.teams[s]).collect();
            before.sort_unstable();
            before.dedup();
            (before, true)
        };
        self.winners = (0..self.rules.seats)
            .filter(|&s| winning_teams.contains(&self.rules.teams[s]))
            .filter(|&s| {
                self.rules.has_teams
                    || draw && alive_before.contains(&s)
                    || !draw && alive.contains(&s)
            })
            .collect();
        self.draw = draw;
        self.phase = Phase::Finished;
        self.turn = Turn::None;
        events.push(Event::GameOver {
            winners: self.winners.clone(),
            draw,
        });
        events.push(Event::PhaseChanged {
            phase: Phase::Finished,
        });
    }

    /// Continues or ends a duel turn after a shot.
    fn after_shot(&mut self, seat: usize, hit: bool, events: &mut Vec<Event>) {
        if self.phase == Phase::Finished {
            // The winning shot ends the turn too.
            self.seats[seat].round += 1;
            return;
        }
        let Turn::Duel { shots, .. } = &mut self.turn else {
            return;
        };
        *shots += 1;
        let shots = *shots;
        let more = if self.rules.shots_per_turn > 1 {
            shots < self.rules.shots_per_turn
        } else {
            self.rules.hit_again && hit && self.rules.max_shots_per_turn.is_none_or(|m| shots < m)
        };
        if !more {
            self.end_turn(seat, events);
        }
    }

    /// Ends the seat's duel turn: its round advances and the next living seat
    /// (that is not a team-mate) moves.
    fn end_turn(&mut self, seat: usize, events: &mut Vec<Event>) {
        self.seats[seat].round += 1;
        if self.phase == Phase::Finished {
            return;
        }
        let seats = self.rules.seats;
        if self.rules.practice {
            // Practice: the target fleet never shoots back.
            self.turn = Turn::Duel { seat, shots: 0 };
            events.push(Event::TurnStarted { seat });
            return;
        }
        let next = (1..=seats)
            .map(|k| (seat + k) % seats)
            .find(|&s| self.is_alive(s) && (s == seat || !self.rules.same_team(s, seat)))
            .unwrap_or(seat);
        self.turn = Turn::Duel {
            seat: next,
            shots: 0,
        };
        events.push(Event::TurnStarted { seat: next });
    }

    // ----- the brasil hard rule (R-5.3) ---------------------------------------------

    fn duel_opponent(&self, seat: usize) -> usize {
        (0..self.rules.seats)
            .find(|&s| s != seat && self.is_alive(s) && !self.rules.same_team(s, seat))
            .unwrap_or(seat)
    }

    fn volley(&mut self, seat: usize, cells: &[Cell]) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Battle)?;
        if !self.rules.per_volley() {
            return Err(RuleError::WrongPhase);
        }
        self.duel_mover(seat)?;
        let board = self.duel_opponent(seat);
        let size = self.boards[board].size;
        if cells.iter().any(|&c| !size.contains(c)) {
            return Err(RuleError::OutOfBounds);
        }
        let available = self.targetable_cells(seat, board).len() as u32;
        let expected = self.rules.shots_per_turn.min(available);
        if cells.len() as u32 != expected {
            return Err(RuleError::WrongShotCount {
                expected,
                got: cells.len() as u32,
            });
        }
        for (i, cell) in cells.iter().enumerate() {
            if cells[..i].contains(cell) {
                return Err(RuleError::DuplicateTarget);
            }
        }
        if cells.iter().any(|&c| !self.is_targetable(seat, board, c)) {
            return Err(RuleError::NotTargetable);
        }
        let mut events = Vec::new();
        self.resolve_volley(seat, board, cells, &mut events);
        self.end_turn(seat, &mut events);
        Ok(events)
    }

    /// Shoots cells and announces them as a hard-rule volley: counts and types
    /// only, cells marked known only when all missed or all hit.
    fn resolve_volley(
        &mut self,
        shooter: usize,
        board: usize,
        cells: &[Cell],
        events: &mut Vec<Event>,
    ) {
        let sunk_before: Vec<bool> = self.ships.iter().map(|s| s.sunk).collect();
        let hits = self.strike(shooter, board, cells);
        let mut types_hit: Vec<String> = cells
            .iter()
            .filter_map(|&c| self.boards[board].ship(c))
            .map(|s| self.rules.catalogue[self.ships[s].type_index].id.clone())
            .collect();
        types_hit.sort();
        let mark = if hits == 0 {
            Mark::Miss
        } else if hits as usize == cells.len() {
            Mark::Hit
        } else {
            Mark::Unresolved
        };
        for &cell in cells {
            let index = self.boards[board].size.index(cell);
            self.boards[board].mark[index] = mark;
        }
        let mut sunk: Vec<String> = self
            .ships
            .iter()
            .enumerate()
            .filter(|(i, s)| !sunk_before[*i] && s.intact == 0)
            .map(|(_, s)| self.rules.catalogue[s.type_index].id.clone())
            .collect();
        sunk.sort();
        let volley = Event::Volley {
            shooter,
            board,
            cells: cells.to_vec(),
            hits,
            types_hit,
            sunk,
        };
        self.settle(events, |_, events| events.push(volley));
    }

    // ----- abilities and specials (R-7.5 to) -----------------------------

    /// Whether `seat` has the action in this game at all, and a ship to use it.
    fn action_available(&self, seat: usize, kind: ActionKind) -> bool {
        match kind {
            ActionKind::Wide | ActionKind::Bombard | ActionKind::Radar => self.rules.specials,
            _ => {
                let ability = ship_ability(kind);
                self.seats[seat].ships.iter().any(|&s| {
                    let ship = &self.ships[s];
                    ship.intact > 0
                        && self.rules.catalogue[ship.type_index].ability == Some(ability)
                })
            }
        }
    }

    /// The round from which a ship ability is ready again.
    pub fn ability_next_round(&self, seat: usize, ability: ShipAbility) -> u32 {
        let cycle = ability.cycle();
        match self.seats[seat].ability_used[ability.index()] {
            None => cycle,
            Some(used) => used + cycle,
        }
    }

    fn special_slot(kind: ActionKind) -> usize {
        match kind {
            ActionKind::Wide => 0,
            ActionKind::Bombard => 1,
            _ => 2,
        }
    }

    /// Uses left of a special.
    pub fn special_uses_left(&self, seat: usize, kind: ActionKind) -> u32 {
        self.seats[seat].special_uses[Self::special_slot(kind)]
    }

    /// Bounds of the action's aim, in REFEREE.md order (own board, own team, out
    /// of bounds). Reserve aims at the own field and has nothing to check here.
    fn check_action_aim(&self, seat: usize, action: &Action) -> Result<(), RuleError> {
        match *action {
            Action::Reserve { .. } => Ok(()),
            Action::Laser { board, column, .. } => {
                self.check_aim(seat, board, None)?;
                if column >= self.boards[board].size.cols {
                    return Err(RuleError::OutOfBounds);
                }
                Ok(())
            }
            Action::Bombard { board, line } => {
                self.check_aim(seat, board, None)?;
                let size = self.boards[board].size;
                let inside = match line {
                    Line::Row(row) => row < size.rows,
                    Line::Column(col) => col < size.cols,
                };
                if !inside {
                    return Err(RuleError::OutOfBounds);
                }
                Ok(())
            }
            Action::Scanner { board, center }
            | Action::Nuke { board, at: center }
            | Action::Wide { board, center }
            | Action::Radar { board, center } => self.check_aim(seat, board, Some(center)),
        }
    }

    /// Checks availability, uses and readiness (REFEREE.md order). `first_action`
    /// says whether nothing has been fired yet this turn.
    fn check_action_ready(
        &self,
        seat: usize,
        kind: ActionKind,
        first_action: bool,
    ) -> Result<(), RuleError> {
        if !self.action_available(seat, kind) {
            return Err(RuleError::AbilityUnavailable);
        }
        let round = self.seats[seat].round;
        if kind.is_special() {
            if self.special_uses_left(seat, kind) == 0 {
                return Err(RuleError::NoUsesLeft);
            }
            if kind == ActionKind::Bombard && round < BOMBARD_FROM_ROUND {
                return Err(RuleError::AbilityNotReady {
                    next_round: BOMBARD_FROM_ROUND,
                });
            }
            if !first_action {
                return Err(RuleError::AbilityNotReady {
                    next_round: round + 1,
                });
            }
        } else {
            let next_round = self.ability_next_round(seat, ship_ability(kind));
            if round < next_round {
                return Err(RuleError::AbilityNotReady { next_round });
            }
        }
        Ok(())
    }

    /// The cells an action would cover on its board, for previews in the
    /// clients; see [`action_area`]. Empty for an action aimed at no board.
    pub fn action_area(&self, action: &Action) -> Vec<Cell> {
        match action.board().filter(|&b| b < self.boards.len()) {
            Some(board) => action_area(action, self.boards[board].size),
            None => Vec::new(),
        }
    }

    /// The cells an area action would shoot: its area, clipped, that `seat` may
    /// still target.
    fn area_cells(&self, seat: usize, action: &Action) -> Vec<Cell> {
        let board = action.board().unwrap_or(seat);
        let size = self.boards[board].size;
        let area: Vec<Cell> = match *action {
            Action::Wide { center, .. } => size.square3(center).collect(),
            Action::Bombard {
                line: Line::Row(row),
                ..
            } => (0..size.cols).map(|c| Cell::new(c, row)).collect(),
            Action::Bombard {
                line: Line::Column(col),
                ..
            } => (0..size.rows).map(|r| Cell::new(col, r)).collect(),
            Action::Nuke { at, .. } => manhattan2(size, at),
            Action::Laser { column, .. } => (0..size.rows).map(|r| Cell::new(column, r)).collect(),
            _ => Vec::new(),
        };
        let mut cells: Vec<Cell> = area
            .into_iter()
            .filter(|&c| self.is_targetable(seat, board, c))
            .collect();
        cells.sort_by_key(|c| (c.row, c.col));
        cells
    }

    /// Checks the target of an action once it is known to be ready.
    fn check_action_target(&self, seat: usize, action: &Action) -> Result<(), RuleError> {
        match action {
            Action::Nuke { board, at } => {
                if !self.is_targetable(seat, *board, *at) {
                    return Err(RuleError::NotTargetable);
                }
            }
            Action::Wide { .. } | Action::Bombard { .. } | Action::Laser { .. } => {
                if self.area_cells(seat, action).is_empty() {
                    return Err(RuleError::NotTargetable);
                }
            }
            Action::Reserve {
                cells: Some(cells), ..
            } => self.check_reserve_cells(seat, cells)?,
            Action::Scanner { board, center } | Action::Radar { board, center } => {
                if self
                    .owner_of(*board, *center)
                    .is_some_and(|o| self.seats[o].eliminated)
                {
                    return Err(RuleError::NotTargetable);
                }
            }
            Action::Reserve { cells: None, .. } => {}
        }
        Ok(())
    }

    fn ability(&mut self, seat: usize, action: Action) -> Result<Vec<Event>, RuleError> {
        let shots = self.duel_mover(seat)?;
        self.check_action_aim(seat, &action)?;
        self.check_action_ready(seat, action.kind(), shots == 0)?;
        self.check_action_target(seat, &action)?;
        let mut events = Vec::new();
        self.perform(seat, &action, &mut events);
        self.end_turn(seat, &mut events);
        Ok(events)
    }

    /// Carries out a checked action and books its use.
    fn perform(&mut self, seat: usize, action: &Action, events: &mut Vec<Event>) {
        let kind = action.kind();
        let round = self.seats[seat].round;
        if kind.is_special() {
            self.seats[seat].special_uses[Self::special_slot(kind)] -= 1;
        } else {
            self.seats[seat].ability_used[ship_ability(kind).index()] = Some(round);
        }
        events.push(Event::ActionUsed {
            seat,
            kind,
            board: action.board(),
        });
        match action {
            Action::Wide { board, .. } | Action::Bombard { board, .. } => {
                let cells = self.area_cells(seat, action);
                if self.rules.per_volley() {
                    self.resolve_volley(seat, *board, &cells, events);
                } else {
                    self.shoot(seat, *board, &cells, events);
                }
            }
            Action::Radar { board, center } | Action::Scanner { board, center } => {
                self.scan(seat, *board, *center, events);
            }
            Action::Nuke { board, at } => {
                let explodes = self.boards[*board].ship(*at).is_some();
                let cells = if explodes {
                    self.area_cells(seat, action)
                } else {
                    vec![*at]
                };
                self.shoot(seat, *board, &cells, events);
            }
            Action::Laser {
                board,
                column,
                from,
            } => self.laser(seat, *board, *column, *from, events),
            Action::Reserve { cells, .. } => self.land_reserve(seat, cells.as_ref(), events),
        }
    }

    fn scan(&mut self, seat: usize, board: usize, center: Cell, events: &mut Vec<Event>) {
        let size = self.boards[board].size;
        let mut cells: Vec<ScanCell> = size
            .square3(center)
            .map(|at| ScanCell {
                at,
                ship: self.boards[board].ship(at).is_some(),
            })
            .collect();
        cells.sort_by_key(|c| (c.at.row, c.at.col));
        for c in &cells {
            self.scans.push(Scan {
                seat,
                board,
                at: c.at,
                ship: c.ship,
            });
        }
        events.push(Event::Scan { seat, board, cells });
    }

    /// the beam runs from one end and destroys the first intact part.
    fn laser(
        &mut self,
        seat: usize,
        board: usize,
        column: u16,
        from: End,
        events: &mut Vec<Event>,
    ) {
        if let Some(cell) = self.beam(board, column, from, events) {
            self.shoot(seat, board, &[cell], events);
        }
    }

    /// Runs a laser beam along a column from one end: reveals the water it
    /// passes (wreckage lets it through) and returns the first intact part, or
    /// reveals the whole column if there is none. Cells already struck in the
    /// current salvo round count as wreckage or shot water.
    fn beam(
        &mut self,
        board: usize,
        column: u16,
        from: End,
        events: &mut Vec<Event>,
    ) -> Option<Cell> {
        let rows = self.boards[board].size.rows;
        let order: Vec<u16> = match from {
            End::Top => (0..rows).collect(),
            End::Bottom => (0..rows).rev().collect(),
        };
        let mut passed = Vec::new();
        let mut target = None;
        for row in order {
            let cell = Cell::new(column, row);
            let b = &self.boards[board];
            let index = b.size.index(cell);
            match b.ship(cell) {
                Some(_) if !b.shot[index] => {
                    target = Some(cell);
                    break;
                }
                Some(_) => {}
                None if b.mark[index] == Mark::Unknown && !b.shot[index] => passed.push(cell),
                None => {}
            }
        }
        if !passed.is_empty() {
            let b = &mut self.boards[board];
            for &cell in &passed {
                let index = b.size.index(cell);
                b.mark[index] = Mark::Water;
            }
            passed.sort_by_key(|c| (c.row, c.col));
            events.push(Event::Revealed {
                board,
                cells: passed,
            });
        }
        target
    }

    /// Lands a reserve squadron on the chosen cells, or at random.
    fn land_reserve(&mut self, seat: usize, cells: Option<&Vec<Cell>>, events: &mut Vec<Event>) {
        let cells = match cells {
            Some(cells) => cells.clone(),
            None => self.random_reserve_cells(seat),
        };
        let fighter = self
            .rules
            .type_index("fighter")
            .expect("a reserve needs a station, so this is space, which has fighters");
        let (board, _, _) = self.placement_area(seat);
        for &cell in &cells {
            self.add_ship(seat, board, fighter, vec![cell]);
        }
        events.push(Event::Reinforced {
            seat,
            count: cells.len() as u32,
            cells: Some(cells),
        });
    }

    /// Cells where a reserve fighter may land: empty, never shot, never
    /// revealed or scanned by an opponent, and not touching an own ship.
    fn reserve_allowed(&self, seat: usize, taken: &[Cell]) -> impl Fn(Cell) -> bool + '_ {
        let (board, origin, area) = self.placement_area(seat);
        let taken = taken.to_vec();
        move |cell: Cell| {
            let b = &self.boards[board];
            let inside = cell.col >= origin.col
                && cell.row >= origin.row
                && cell.col < origin.col + area.cols
                && cell.row < origin.row + area.rows;
            if !inside || !b.size.contains(cell) {
                return false;
            }
            let index = b.size.index(cell);
            let near_own = |c: Cell| {
                b.ship(c).is_some_and(|s| self.ships[s].owner == seat) || taken.contains(&c)
            };
            b.ship_at[index] == 0
                && !b.shot[index]
                && b.mark[index] == Mark::Unknown
                && !self.scans.iter().any(|s| {
                    s.board == board && s.at == cell && !self.rules.same_team(s.seat, seat)
                })
                && !near_own(cell)
                && !b.size.neighbours(cell).any(near_own)
        }
    }

    /// Checks chosen reserve cells in REFEREE.md order: count, bounds, then
    /// each cell's legality.
    fn check_reserve_cells(&self, seat: usize, cells: &[Cell]) -> Result<(), RuleError> {
        let (board, _, _) = self.placement_area(seat);
        let size = self.boards[board].size;
        let count_error = || RuleError::WrongShotCount {
            expected: RESERVE_FIGHTERS as u32,
            got: cells.len() as u32,
        };
        if cells.is_empty() || cells.len() > RESERVE_FIGHTERS {
            return Err(count_error());
        }
        if cells.iter().any(|&c| !size.contains(c)) {
            return Err(RuleError::OutOfBounds);
        }
        // Fewer than three only when three do not fit.
        if cells.len() < RESERVE_FIGHTERS && self.reserve_cells_possible(seat) > cells.len() {
            return Err(count_error());
        }
        for (i, &cell) in cells.iter().enumerate() {
            if cells[..i].contains(&cell) {
                return Err(RuleError::DuplicateTarget);
            }
            if !self.reserve_allowed(seat, &cells[..i])(cell) {
                return Err(RuleError::NotTargetable);
            }
        }
        Ok(())
    }

    fn random_reserve_cells(&mut self, seat: usize) -> Vec<Cell> {
        let mut rng = self.rng.clone();
        let cells = self.random_reserve_from(seat, &[], &mut rng);
        self.rng = rng;
        cells
    }

    /// How many reserve fighters fit, found by placing them in a fixed order.
    fn reserve_cells_possible(&self, seat: usize) -> usize {
        let mut rng = Pcg64Mcg::seed_from_u64(0);
        self.random_reserve_from(seat, &[], &mut rng).len()
    }

    fn random_reserve_from<R: Rng>(&self, seat: usize, start: &[Cell], rng: &mut R) -> Vec<Cell> {
        let (board, _, _) = self.placement_area(seat);
        let size = self.boards[board].size;
        let mut chosen = start.to_vec();
        while chosen.len() < RESERVE_FIGHTERS {
            let allowed = self.reserve_allowed(seat, &chosen);
            let options: Vec<Cell> = size.cells().filter(|&c| allowed(c)).collect();
            if options.is_empty() {
                break;
            }
            chosen.push(options[rng.random_range(0..options.len())]);
        }
        chosen
    }

    // ----- salvo rounds (R-6) ----------------------------------------------------------

    fn start_round(&mut self, events: &mut Vec<Event>) {
        self.salvo_rounds += 1;
        let seats = self.rules.seats;
        let first = (self.salvo_rounds as usize - 1) % seats;
        self.turn = Turn::Salvo {
            number: self.salvo_rounds,
            first,
            submissions: vec![None; seats],
        };
        self.last_round_first = Some(first);
        events.push(Event::RoundStarted {
            round: self.salvo_rounds,
            first,
            to_move: self.alive_seats(),
        });
    }

    fn salvo(
        &mut self,
        seat: usize,
        shots: Vec<Target>,
        action: Option<Action>,
    ) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Battle)?;
        let Turn::Salvo { submissions, .. } = &self.turn else {
            return Err(RuleError::WrongPhase);
        };
        if !self.is_alive(seat) {
            return Err(RuleError::NotYourTurn);
        }
        if submissions[seat].is_some() {
            return Err(RuleError::AlreadySubmitted);
        }
        let submission = Submission { shots, action };
        self.check_salvo(seat, &submission)?;
        let mut events = Vec::new();
        if let Turn::Salvo { submissions, .. } = &mut self.turn {
            submissions[seat] = Some(submission);
        }
        events.push(Event::SalvoSubmitted { seat });
        if self.round_complete() {
            self.resolve_round(&mut events);
        }
        Ok(events)
    }

    /// The opponents a seat must (spread) or may (focus) shoot at in a round; in
    /// the shared sea each opponent stands for that opponent's block.
    pub fn salvo_opponents(&self, seat: usize) -> Vec<usize> {
        (0..self.rules.seats)
            .filter(|&s| s != seat && self.is_alive(s) && !self.rules.same_team(s, seat))
            .collect()
    }

    /// The opponent whose waters hold a target.
    fn target_owner(&self, target: &Target) -> Option<usize> {
        self.owner_of(target.board, target.at)
    }

    /// The waters of an opponent: its board, or its block of the shared sea.
    fn opponent_area(&self, opponent: usize) -> (usize, Cell, Size) {
        match self.rules.mode {
            Mode::SharedSea => (
                0,
                self.block_origins[self.seat_block[opponent]],
                self.rules.board,
            ),
            _ => (opponent, Cell::new(0, 0), self.boards[opponent].size),
        }
    }

    /// How many cells of `opponent`'s waters `seat` may target, counting no
    /// further than `limit` (the salvo check only needs to know whether a full
    /// share of shots is possible).
    fn count_targetable(&self, seat: usize, opponent: usize, limit: u32) -> u32 {
        let (board, origin, size) = self.opponent_area(opponent);
        let mut count = 0;
        for row in 0..size.rows {
            for col in 0..size.cols {
                if self.is_targetable(seat, board, Cell::new(origin.col + col, origin.row + row)) {
                    count += 1;
                    if count == limit {
                        return count;
                    }
                }
            }
        }
        count
    }

    /// Up to `count` distinct random cells `seat` may target in an area of a
    /// board. Boards are mostly unknown for most of a game, so random draws are
    /// tried first and the full list is built only when they keep failing.
    fn random_targets(
        &mut self,
        seat: usize,
        board: usize,
        origin: Cell,
        size: Size,
        count: usize,
    ) -> Vec<Cell> {
        let mut chosen: Vec<Cell> = Vec::with_capacity(count);
        for _ in 0..count * 24 {
            if chosen.len() == count {
                return chosen;
            }
            let at = Cell::new(
                origin.col + self.rng.random_range(0..size.cols),
                origin.row + self.rng.random_range(0..size.rows),
            );
            if self.is_targetable(seat, board, at) && !chosen.contains(&at) {
                chosen.push(at);
            }
        }
        let mut rest: Vec<Cell> = (0..size.rows)
            .flat_map(|r| (0..size.cols).map(move |c| Cell::new(origin.col + c, origin.row + r)))
            .filter(|&c| self.is_targetable(seat, board, c) && !chosen.contains(&c))
            .collect();
        rest.shuffle(&mut self.rng);
        rest.truncate(count - chosen.len());
        chosen.extend(rest);
        chosen
    }

    /// Checks a salvo in REFEREE.md order.
    fn check_salvo(&self, seat: usize, submission: &Submission) -> Result<(), RuleError> {
        for target in &submission.shots {
            self.check_aim(seat, target.board, Some(target.at))?;
        }
        if let Some(action) = &submission.action {
            self.check_action_aim(seat, action)?;
            if action.board().is_none() {
                return Err(bad("in a salvo round the reserve names the opponent whose shots it replaces (board)"));
            }
        }
        let opponents = self.salvo_opponents(seat);
        let action_opponent = match &submission.action {
            None => None,
            Some(Action::Reserve {
                board: Some(board), ..
            }) => {
                if self.rules.mode == Mode::SharedSea {
                    return Err(bad("the shared sea has no reserve"));
                }
                Some(*board)
            }
            Some(action) => {
                let board = action.board().expect("checked above");
                match self.rules.mode {
                    Mode::SharedSea => match action {
                        Action::Scanner { center, .. }
                        | Action::Nuke { at: center, .. }
                        | Action::Wide { center, .. }
                        | Action::Radar { center, .. } => self.owner_of(board, *center),
                        _ => return Err(bad("lines cannot be aimed in the shared sea")),
                    },
                    _ => Some(board),
                }
            }
        };
        if let Some(opponent) = action_opponent {
            if opponent == seat {
                return Err(RuleError::OwnBoard);
            }
            if opponent >= self.rules.seats || !opponents.contains(&opponent) {
                if opponent < self.rules.seats && self.rules.same_team(opponent, seat) {
                    return Err(RuleError::OwnTeam);
                }
                return Err(RuleError::NotTargetable);
            }
        }
        // Shots per opponent.
        let per = self.rules.shots_per_opponent;
        let mut counts: BTreeMap<usize, u32> = BTreeMap::new();
        for target in &submission.shots {
            match self.target_owner(target) {
                Some(owner) if opponents.contains(&owner) => *counts.entry(owner).or_default() += 1,
                _ => return Err(RuleError::NotTargetable),
            }
        }
        match self.rules.salvo {
            SalvoMode::Spread => {
                for &opponent in &opponents {
                    let got = counts.get(&opponent).copied().unwrap_or(0);
                    let expected = if Some(opponent) == action_opponent {
                        0
                    } else {
                        self.count_targetable(seat, opponent, per)
                    };
                    if got != expected {
                        return Err(RuleError::WrongShotCount { expected, got });
                    }
                }
            }
            SalvoMode::Focus => {
                let total = per * opponents.len() as u32;
                if counts.len() > 1 {
                    // Every shot goes to one opponent: count what went elsewhere.
                    let largest = counts.values().copied().max().unwrap_or(0);
                    return Err(RuleError::WrongShotCount {
                        expected: largest,
                        got: submission.shots.len() as u32,
                    });
                }
                match (counts.keys().next(), action_opponent) {
                    (Some(_), Some(_)) => {
                        // An ability replaces the whole salvo in focus mode.
                        return Err(RuleError::WrongShotCount {
                            expected: 0,
                            got: submission.shots.len() as u32,
                        });
                    }
                    (Some(&opponent), None) => {
                        let expected = self.count_targetable(seat, opponent, total);
                        let got = submission.shots.len() as u32;
                        if got != expected {
                            return Err(RuleError::WrongShotCount { expected, got });
                        }
                    }
                    (None, None) => {
                        return Err(RuleError::WrongShotCount {
                            expected: total,
                            got: 0,
                        });
                    }
                    (None, Some(_)) => {}
                }
            }
        }
        for (i, target) in submission.shots.iter().enumerate() {
            if submission.shots[..i].contains(target) {
                return Err(RuleError::DuplicateTarget);
            }
        }
        if let Some(action) = &submission.action {
            self.check_action_ready(seat, action.kind(), true)?;
        }
        for target in &submission.shots {
            if !self.is_targetable(seat, target.board, target.at) {
                return Err(RuleError::NotTargetable);
            }
        }
        if let Some(action) = &submission.action {
            self.check_action_target(seat, action)?;
        }
        Ok(())
    }

    fn round_complete(&self) -> bool {
        match &self.turn {
            Turn::Salvo { submissions, .. } => {
                (0..self.rules.seats).all(|s| !self.is_alive(s) || submissions[s].is_some())
            }
            _ => false,
        }
    }

    /// A random salvo for a seat that did not submit.
    fn random_submission(&mut self, seat: usize) -> Submission {
        let opponents = self.salvo_opponents(seat);
        let per = self.rules.shots_per_opponent as usize;
        let mut shots = Vec::new();
        let draw = |game: &mut Game, opponent: usize, count: usize| {
            let (board, origin, size) = game.opponent_area(opponent);
            game.random_targets(seat, board, origin, size, count)
                .into_iter()
                .map(move |at| Target { board, at })
                .collect::<Vec<_>>()
        };
        match self.rules.salvo {
            SalvoMode::Spread => {
                for &opponent in &opponents {
                    shots.extend(draw(self, opponent, per));
                }
            }
            SalvoMode::Focus => {
                if !opponents.is_empty() {
                    let opponent = opponents[self.rng.random_range(0..opponents.len())];
                    shots.extend(draw(self, opponent, per * opponents.len()));
                }
            }
        }
        Submission {
            shots,
            action: None,
        }
    }

    /// Resolves a complete round in the fixed order of.
    fn resolve_round(&mut self, events: &mut Vec<Event>) {
        let Turn::Salvo {
            first, submissions, ..
        } = std::mem::replace(&mut self.turn, Turn::None)
        else {
            return;
        };
        let seats = self.rules.seats;
        let order: Vec<usize> = (0..seats).map(|k| (first + k) % seats).collect();
        let subs: Vec<(usize, Submission)> = order
            .iter()
            .filter_map(|&s| submissions[s].clone().map(|sub| (s, sub)))
            .collect();
        let participants: Vec<usize> = subs.iter().map(|(s, _)| *s).collect();
        // Book every action's use first, so a ship sunk in this round still acts.
        for (seat, sub) in &subs {
            if let Some(action) = &sub.action {
                let kind = action.kind();
                let round = self.seats[*seat].round;
                if kind.is_special() {
                    self.seats[*seat].special_uses[Self::special_slot(kind)] -= 1;
                } else {
                    self.seats[*seat].ability_used[ship_ability(kind).index()] = Some(round);
                }
                events.push(Event::ActionUsed {
                    seat: *seat,
                    kind,
                    board: action.board(),
                });
            }
        }
        // (1) reserves land.
        for (seat, sub) in &subs {
            if let Some(Action::Reserve { cells, .. }) = &sub.action {
                self.land_reserve(*seat, cells.as_ref(), events);
            }
        }
        // (2) scanners and radars look.
        for (seat, sub) in &subs {
            if let Some(Action::Scanner { board, center } | Action::Radar { board, center }) =
                &sub.action
            {
                self.scan(*seat, *board, *center, events);
            }
        }
        // (3) plain shots, nuke targets and area specials land at once.
        let mut landed: Vec<(usize, usize, Cell)> = Vec::new();
        let mut nukes: Vec<(usize, usize, Cell)> = Vec::new();
        for (seat, sub) in &subs {
            for target in &sub.shots {
                landed.push((*seat, target.board, target.at));
            }
            match &sub.action {
                Some(Action::Nuke { board, at }) => {
                    landed.push((*seat, *board, *at));
                    // A nuke explodes if its target held an intact part before
                    // this round's shots landed.
                    let b = &self.boards[*board];
                    if b.ship(*at).is_some() && !b.shot[b.size.index(*at)] {
                        nukes.push((*seat, *board, *at));
                    }
                }
                Some(action @ (Action::Wide { board, .. } | Action::Bombard { board, .. })) => {
                    for cell in self.area_cells(*seat, action) {
                        landed.push((*seat, *board, cell));
                    }
                }
                _ => {}
            }
        }
        for &(seat, board, at) in &landed {
            self.strike(seat, board, &[at]);
        }
        // (4) nukes that hit explode.
        for &(seat, board, at) in &nukes {
            // The same area as in a duel: cells this round already shot are
            // known now and left out.
            for cell in self.area_cells(seat, &Action::Nuke { board, at }) {
                landed.push((seat, board, cell));
                self.strike(seat, board, &[cell]);
            }
        }
        // (5) lasers, in seat order from the round's first seat.
        let mut laser_events = Vec::new();
        for (seat, sub) in &subs {
            if let Some(Action::Laser {
                board,
                column,
                from,
            }) = &sub.action
            {
                if let Some(cell) = self.beam(*board, *column, *from, &mut laser_events) {
                    self.strike(*seat, *board, &[cell]);
                    landed.push((*seat, *board, cell));
                }
            }
        }
        // (6) sinkings, rings, eliminations, the end.
        self.settle(events, move |game, events| {
            events.extend(laser_events);
            for (shooter, board, at) in landed {
                let shot = game.announce_shot(shooter, board, at);
                events.push(shot);
            }
        });
        for seat in participants {
            self.seats[seat].round += 1;
        }
        if self.phase == Phase::Finished {
            return;
        }
        if self.alive_seats().len() >= 3 {
            self.start_round(events);
        } else {
            // the first survivor from the last round's first seat.
            let f = self.last_round_first.unwrap_or(0);
            let next = (0..seats)
                .map(|k| (f + k) % seats)
                .find(|&s| self.is_alive(s))
                .expect("the game is not over, so someone is alive");
            self.turn = Turn::Duel {
                seat: next,
                shots: 0,
            };
            events.push(Event::TurnStarted { seat: next });
        }
    }

    // ----- the clock and resigning ----------------------------------------------------

    fn timeout(&mut self) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        match self.phase {
            Phase::Finished => return Err(RuleError::GameOver),
            Phase::Shop => {
                let fleet = self.default_space_fleet();
                for seat in 0..self.rules.seats {
                    if !self.seats[seat].bought {
                        self.set_fleet(seat, fleet.clone(), &mut events);
                    }
                }
                self.maybe_end_shop(&mut events);
            }
            Phase::Placement => {
                for seat in 0..self.rules.seats {
                    if !self.seats[seat].ready && self.phase == Phase::Placement {
                        events.extend(self.place_random(seat)?);
                    }
                }
            }
            Phase::Battle => match self.turn.clone() {
                Turn::Duel { seat, shots } => self.duel_timeout(seat, shots, &mut events),
                Turn::Salvo { submissions, .. } => {
                    for seat in 0..self.rules.seats {
                        if self.is_alive(seat) && submissions[seat].is_none() {
                            let submission = self.random_submission(seat);
                            if let Turn::Salvo { submissions, .. } = &mut self.turn {
                                submissions[seat] = Some(submission);
                            }
                            events.push(Event::SalvoSubmitted { seat });
                        }
                    }
                    self.resolve_round(&mut events);
                }
                Turn::None => return Err(RuleError::WrongPhase),
            },
        }
        Ok(events)
    }

    /// the due shot (brasil: every remaining shot of the turn) falls at random.
    fn duel_timeout(&mut self, seat: usize, shots: u32, events: &mut Vec<Event>) {
        let board = match self.rules.mode {
            Mode::SharedSea => 0,
            _ => self.duel_opponent(seat),
        };
        if self.rules.per_volley() {
            let size = self.boards[board].size;
            let count = self.rules.shots_per_turn as usize;
            let cells = self.random_targets(seat, board, Cell::new(0, 0), size, count);
            self.resolve_volley(seat, board, &cells, events);
            self.end_turn(seat, events);
            return;
        }
        let count = if self.rules.shots_per_turn > 1 {
            self.rules.shots_per_turn - shots
        } else {
            1
        };
        for _ in 0..count {
            if self.phase == Phase::Finished {
                break;
            }
            let size = self.boards[board].size;
            let Some(at) = self
                .random_targets(seat, board, Cell::new(0, 0), size, 1)
                .pop()
            else {
                self.end_turn(seat, events);
                break;
            };
            let hit = self.shoot(seat, board, &[at], events);
            self.after_shot(seat, hit, events);
        }
    }

    fn resign(&mut self, seat: usize) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        if self.phase == Phase::Finished {
            return Err(RuleError::GameOver);
        }
        if self.seats[seat].eliminated {
            return Err(RuleError::WrongPhase);
        }
        let mut events = vec![Event::Resigned { seat }];
        let alive_before = self.alive_seats();
        self.seats[seat].resigned = true;
        self.eliminate(seat, &mut events);
        self.check_end(&alive_before, &mut events);
        if self.phase == Phase::Finished {
            return Ok(events);
        }
        match (self.phase, self.turn.clone()) {
            (Phase::Shop, _) if !self.seats[seat].bought => {
                let fleet = self.default_space_fleet();
                self.set_fleet(seat, fleet, &mut events);
                self.maybe_end_shop(&mut events);
            }
            (Phase::Placement, _) if !self.seats[seat].ready => {
                let placed = self
                    .place_random(seat)
                    .expect("a fleet that passed the fit check always has a random layout");
                events.extend(placed);
            }
            (Phase::Battle, Turn::Duel { seat: mover, .. }) if mover == seat => {
                self.end_turn(seat, &mut events);
            }
            // An open round goes on for the others; it resolves when the last of
            // them has submitted (then a duel follows if two are left).
            (Phase::Battle, Turn::Salvo { .. }) if self.round_complete() => {
                self.resolve_round(&mut events);
            }
            _ => {}
        }
        Ok(events)
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

fn ship_ability(kind: ActionKind) -> ShipAbility {
    match kind {
        ActionKind::Laser => ShipAbility::Laser,
        ActionKind::Scanner => ShipAbility::Scanner,
        ActionKind::Nuke => ShipAbility::Nuke,
        _ => ShipAbility::Reserve,
    }
}

/// The cells an action would cover on a board of `size`, for previews in the
/// clients (which must not compute rule areas themselves): the 3×3 square of a
/// wide shot, radar or scanner, the line of a bombardment, the
/// column of a laser, and the area a nuke shoots if it explodes,
/// all clipped to the board. Empty for a reserve or an aim off the board.
pub fn action_area(action: &Action, size: Size) -> Vec<Cell> {
    let mut cells: Vec<Cell> = match *action {
        Action::Wide { center, .. }
        | Action::Radar { center, .. }
        | Action::Scanner { center, .. }
            if size.contains(center) =>
        {
            size.square3(center).collect()
        }
        Action::Nuke { at, .. } if size.contains(at) => manhattan2(size, at),
        Action::Bombard {
            line: Line::Row(row),
            ..
        } if row < size.rows => (0..size.cols).map(|c| Cell::new(c, row)).collect(),
        Action::Bombard {
            line: Line::Column(col),
            ..
        }
        | Action::Laser { column: col, .. }
            if col < size.cols =>
        {
            (0..size.rows).map(|r| Cell::new(col, r)).collect()
        }
        _ => Vec::new(),
    };
    cells.sort_by_key(|c| (c.row, c.col));
    cells
}

/// Cells at Manhattan distance at most 2 from `center`, clipped.
fn manhattan2(size: Size, center: Cell) -> Vec<Cell> {
    let mut cells = Vec::with_capacity(13);
    for dr in -2i32..=2 {
        for dc in -2i32..=2 {
            if dr.abs() + dc.abs() <= 2 {
                let (c, r) = (center.col as i32 + dc, center.row as i32 + dr);
                if size.contains_signed(c, r) {
                    cells.push(Cell::new(c as u16, r as u16));
                }
            }
        }
    }
    cells
}
