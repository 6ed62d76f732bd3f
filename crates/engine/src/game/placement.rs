//! The placement phase: checking a layout (bounds, own waters, overlap,
//! touching), random and partly random layouts, committing a
//! layout, and the start of the battle once every seat is ready: the first
//! player of a duel or the first salvo round. The packing search
//! itself is in `crate::placement`.

use rand::Rng;

use crate::command::{Event, Phase};
use crate::error::RuleError;
use crate::geometry::Cell;
use crate::placement::{Packer, Placement};

use super::{bad, Game, Ship, Turn};

impl Game {
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
    /// own waters, overlap and touching, in the order of docs/referee.md.
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

    pub(super) fn place(
        &mut self,
        seat: usize,
        ships: &[Placement],
    ) -> Result<Vec<Event>, RuleError> {
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

    pub(super) fn place_random(&mut self, seat: usize) -> Result<Vec<Event>, RuleError> {
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

    pub(super) fn add_ship(
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
            // A seat that resigned before the battle never moves first.
            let alive = self.alive_seats();
            let first = match self.rules.first {
                _ if self.rules.practice => 0,
                Some(first) if alive.contains(&first) => first,
                Some(_) | None => alive[self.rng.random_range(0..alive.len())],
            };
            self.turn = Turn::Duel {
                seat: first,
                shots: 0,
            };
            events.push(Event::TurnStarted { seat: first });
        }
    }
}
