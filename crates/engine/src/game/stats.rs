//! End-of-game statistics: what each seat fired, what it struck and which
//! ships its shots sank, with the cells it shot at (the heat map).
//!
//! They are computed from the game's own record of who fired each shot,
//! which [`Game`] keeps as it applies commands (in saves too), so they are
//! right in every mode: in a salvo round every seat's shots are its own, in
//! the shared sea a shot belongs to its shooter, not to the sea. With two
//! seats no record is needed: every shot at one seat's waters was the other
//! seat's, so the boards say it all.

use serde::{Deserialize, Serialize};

use super::Game;
use crate::command::Phase;
use crate::geometry::Cell;

/// One shot as it landed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShotRecord {
    pub(crate) seat: usize,
    pub(crate) board: usize,
    pub(crate) at: Cell,
    /// Whether a ship part lay on the cell.
    pub(crate) hit: bool,
}

/// Who fired each shot, and how many ships each seat's shots sank.
#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    /// Every shot in the order it landed.
    pub(crate) shots: Vec<ShotRecord>,
    /// Per seat: the ships whose last intact part a shot of that seat destroyed.
    pub(crate) sank: Vec<u32>,
}

impl Record {
    pub(crate) fn new(seats: usize) -> Record {
        Record {
            shots: Vec::new(),
            sank: vec![0; seats],
        }
    }
}

/// A cell a seat shot at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ShotCell {
    /// The board (the owner's seat; 0 in the shared sea).
    pub board: usize,
    pub at: Cell,
    /// Whether the shot struck a ship part.
    pub hit: bool,
}

/// One seat's shooting over a whole game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeatStats {
    pub seat: usize,
    /// Cells this seat's fire landed on: a shot, each cell of a volley or of
    /// an area (wide shot, bombardment, a nuke's explosion), a laser's target.
    pub shots: u32,
    /// Those that struck a ship part (accuracy is `hits / shots`).
    pub hits: u32,
    /// Ships sunk by this seat: those whose last intact part one of its shots
    /// destroyed. When shots land together (a salvo round, R-6.6) the ship
    /// goes to the shot struck last in the round's resolution order: the
    /// round's seats from its first seat, shots and areas, then nukes'
    /// explosions, then lasers.
    pub sunk: u32,
    /// Every cell shot at, sorted by board, row and column: the heat map.
    pub cells: Vec<ShotCell>,
}

impl Game {
    /// Each seat's statistics, in seat order, once the game is over; `None`
    /// while it runs, because they tell who shot where and what each shot
    /// struck, which the rules keep secret until the end (the hard rule's
    /// volleys, R-5.3; the salvos of a round still open, R-6.1).
    pub fn stats(&self) -> Option<Vec<SeatStats>> {
        (self.phase == Phase::Finished).then(|| self.tally())
    }

    fn tally(&self) -> Vec<SeatStats> {
        let seats = self.rules.seats;
        let mut stats: Vec<SeatStats> = (0..seats)
            .map(|seat| SeatStats {
                seat,
                shots: 0,
                hits: 0,
                sunk: 0,
                cells: Vec::new(),
            })
            .collect();
        let mut count = |seat: usize, board: usize, at: Cell, hit: bool| {
            let s = &mut stats[seat];
            s.shots += 1;
            s.hits += u32::from(hit);
            s.cells.push(ShotCell { board, at, hit });
        };
        match &self.record {
            Some(record) => {
                for shot in &record.shots {
                    count(shot.seat, shot.board, shot.at, shot.hit);
                }
                for (seat, &sank) in record.sank.iter().enumerate() {
                    stats[seat].sunk = sank;
                }
            }
            None => {
                // Two seats (0 and 1, so `1 - owner` is the other): a shot
                // cell of one seat's waters is the other seat's shot.
                for (index, board) in self.boards.iter().enumerate() {
                    for at in board.size.cells() {
                        let cell = board.size.index(at);
                        if !board.shot[cell] {
                            continue;
                        }
                        if let Some(owner) = self.owner_of(index, at) {
                            count(1 - owner, index, at, board.ship_at[cell] != 0);
                        }
                    }
                }
                for ship in self.ships.iter().filter(|ship| ship.intact == 0) {
                    stats[1 - ship.owner].sunk += 1;
                }
            }
        }
        for s in &mut stats {
            s.cells.sort_by_key(|c| (c.board, c.at.row, c.at.col));
        }
        stats
    }
}
