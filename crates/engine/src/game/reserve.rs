//! The reserve: where its fighters may land, the check of chosen
//! cells, cells drawn at random, and the landing itself.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::command::Event;
use crate::error::RuleError;
use crate::geometry::Cell;

use super::{Game, Mark};

/// Fighters a reserve brings.
pub const RESERVE_FIGHTERS: usize = 3;

/// The ship type the reserve lands.
pub const RESERVE_TYPE: &str = "fighter";

impl Game {
    /// Lands a reserve squadron on the chosen cells, or at random.
    pub(super) fn land_reserve(
        &mut self,
        seat: usize,
        cells: Option<&Vec<Cell>>,
        events: &mut Vec<Event>,
    ) {
        let cells = match cells {
            Some(cells) => cells.clone(),
            None => self.random_reserve_cells(seat),
        };
        let fighter = self
            .rules
            .type_index(RESERVE_TYPE)
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

    /// Checks chosen reserve cells in docs/referee.md order: count, bounds, then
    /// each cell's legality.
    pub(super) fn check_reserve_cells(&self, seat: usize, cells: &[Cell]) -> Result<(), RuleError> {
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
}
