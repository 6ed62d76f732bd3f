//! Ship abilities and specials: whether a seat has them, their cycles and uses
//! the checks of their aim and target, and what they do in a
//! duel: wide shot and air bombardment, radar and scanner
//! nuke, laser. The reserve has its own file, and in a
//! salvo round actions resolve in `salvo.rs`. Also [`action_area`], the
//! previews of their areas for the clients.

use crate::command::{Action, ActionKind, End, Event, Line, ScanCell};
use crate::error::RuleError;
use crate::geometry::{Cell, Size};
use crate::ships::ShipAbility;

use super::{Game, Mark, Scan};

/// The player's turn from which the air bombardment may be used.
const BOMBARD_FROM_ROUND: u32 = 10;

impl Game {
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

    pub(super) fn special_slot(kind: ActionKind) -> usize {
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

    /// Bounds of the action's aim, in docs/referee.md order (own board, own team, out
    /// of bounds). Reserve aims at the own field and has nothing to check here.
    pub(super) fn check_action_aim(&self, seat: usize, action: &Action) -> Result<(), RuleError> {
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

    /// Checks availability, uses and readiness (docs/referee.md order). `first_action`
    /// says whether nothing has been fired yet this turn.
    pub(super) fn check_action_ready(
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
    pub(super) fn area_cells(&self, seat: usize, action: &Action) -> Vec<Cell> {
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
    pub(super) fn check_action_target(
        &self,
        seat: usize,
        action: &Action,
    ) -> Result<(), RuleError> {
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

    pub(super) fn ability(&mut self, seat: usize, action: Action) -> Result<Vec<Event>, RuleError> {
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

    pub(super) fn scan(
        &mut self,
        seat: usize,
        board: usize,
        center: Cell,
        events: &mut Vec<Event>,
    ) {
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
    pub(super) fn beam(
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
}

pub(super) fn ship_ability(kind: ActionKind) -> ShipAbility {
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
