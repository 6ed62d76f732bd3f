//! The brasil hard rule: a turn is one volley of three shots,
//! announced as counts and ship types only.

use crate::command::{Event, Phase};
use crate::error::RuleError;
use crate::geometry::Cell;

use super::{Game, Mark};

impl Game {
    pub(super) fn volley(&mut self, seat: usize, cells: &[Cell]) -> Result<Vec<Event>, RuleError> {
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
        let expected = self.volley_shots_due(seat);
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

    /// The shots the hard-rule volley of `seat` must have now:
    /// `shots_per_turn`, fewer only when fewer cells of the opponent's board
    /// are left to target. The volley check and the seat's view both use it.
    pub(crate) fn volley_shots_due(&self, seat: usize) -> u32 {
        let board = self.duel_opponent(seat);
        let available = self.targetable_cells(seat, board).len() as u32;
        self.rules.shots_per_turn.min(available)
    }

    /// Shoots cells and announces them as a hard-rule volley: counts and types
    /// only, cells marked known only when all missed or all hit.
    pub(super) fn resolve_volley(
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
}
