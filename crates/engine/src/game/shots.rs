//! How shots land, for every kind of fire from one shot to a salvo
//! round: destroying parts and recording who fired (for [`Game::stats`]),
//! announcing miss, hit and sunk, then settling
//! sinkings, water rings, eliminations and the end (R-6.6 step 6).

use super::stats::ShotRecord;
use crate::command::{Event, ShotResult};
use crate::geometry::Cell;
use crate::rules::{Mode, Preset};

use super::{Game, Mark};

impl Game {
    /// Whether a hit announces the ship type (brasil easy rule, R-5.2).
    fn announces_hit_type(&self) -> bool {
        self.rules.preset == Preset::Brasil
    }

    /// Shoots cells of one board at once (one shot, or an area), announces the
    /// results, then settles sinkings and the end. Returns whether anything was hit.
    pub(super) fn shoot(
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
    pub(super) fn announce_shot(&mut self, shooter: usize, board: usize, at: Cell) -> Event {
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
    pub(super) fn strike(&mut self, shooter: usize, board: usize, cells: &[Cell]) -> u32 {
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
    pub(super) fn settle(
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
}
