//! Placement: checking a player's layout, random placement
//! and the check that a fleet fits a board at all.
//!
//! The packer works in the local coordinates of one placement area (a board, or a
//! block of the shared sea) and keeps, per cell, how many placed ships forbid it;
//! counts rather than flags let the exhaustive search undo a placement cheaply.

use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::geometry::{Cell, Size};
use crate::ships::Shape;

/// One ship of a layout as a player sends it: its type, anchor and rotation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Placement {
    #[serde(rename = "type")]
    pub ship_type: String,
    pub at: Cell,
    pub rot: u8,
}

/// One rotation of a shape, ready for fast checks.
#[derive(Clone, Debug)]
struct Variant {
    rot: u8,
    cells: Vec<(u16, u16)>,
    width: u16,
    height: u16,
}

fn variants(shape: &Shape) -> Vec<Variant> {
    shape
        .distinct_rotations()
        .into_iter()
        .map(|(rot, s)| Variant {
            rot,
            width: s.width(),
            height: s.height(),
            cells: s.cells().to_vec(),
        })
        .collect()
}

/// Attempts of the randomized greedy placement before the exhaustive search.
const GREEDY_ATTEMPTS: usize = 40;
/// Random candidate draws per ship before listing every candidate.
const RANDOM_DRAWS: usize = 24;
/// Search nodes the exhaustive search may visit before it gives up. It bounds
/// the worst fit check to a few milliseconds; a fleet the search cannot place
/// within it is refused, so only fleets that are really hard to place are lost.
const SEARCH_NODES: usize = 20_000;
/// The seed of the fit check's search. Random placement of a whole fleet falls
/// back to the very same search, so a fleet the fit check accepted can always be
/// placed.
const FIT_SEED: u64 = 0x05ee_df17;

/// A placement area with the ships placed so far.
pub struct Packer {
    size: Size,
    may_touch: bool,
    /// Per cell: how many placed ships occupy it or (under) touch it.
    forbidden: Vec<u8>,
}

impl Packer {
    pub fn new(size: Size, may_touch: bool) -> Self {
        Packer {
            size,
            may_touch,
            forbidden: vec![0; size.cell_count()],
        }
    }

    /// Marks a cell as unusable without a ship on it (e.g. a cell already shot).
    pub fn block(&mut self, cell: Cell) {
        let index = self.size.index(cell);
        self.forbidden[index] = self.forbidden[index].saturating_add(1);
    }

    fn fits(&self, variant: &Variant, col: u16, row: u16) -> bool {
        variant.cells.iter().all(|&(x, y)| {
            self.forbidden[(row + y) as usize * self.size.cols as usize + (col + x) as usize] == 0
        })
    }

    fn mark(&mut self, cells: &[(u16, u16)], col: u16, row: u16, add: bool) {
        let cols = self.size.cols as i32;
        for &(x, y) in cells {
            let (c, r) = ((col + x) as i32, (row + y) as i32);
            let reach = if self.may_touch { 0 } else { 1 };
            for dr in -reach..=reach {
                for dc in -reach..=reach {
                    if self.size.contains_signed(c + dc, r + dr) {
                        let index = ((r + dr) * cols + c + dc) as usize;
                        if add {
                            self.forbidden[index] += 1;
                        } else {
                            self.forbidden[index] -= 1;
                        }
                    }
                }
            }
        }
    }

    /// Adds a ship that is already known to be legal.
    pub fn add(&mut self, shape: &Shape, rot: u8, at: Cell) {
        let rotated = shape.rotated(rot);
        self.mark(rotated.cells(), at.col, at.row, true);
    }

    fn candidates(&self, variants: &[Variant], out: &mut Vec<(u16, u16, u16)>) {
        out.clear();
        for (v, variant) in variants.iter().enumerate() {
            if variant.width > self.size.cols || variant.height > self.size.rows {
                continue;
            }
            for row in 0..=(self.size.rows - variant.height) {
                for col in 0..=(self.size.cols - variant.width) {
                    if self.fits(variant, col, row) {
                        out.push((v as u16, col, row));
                    }
                }
            }
        }
    }

    fn random_draw<R: Rng>(&self, variants: &[Variant], rng: &mut R) -> Option<(u16, u16, u16)> {
        for _ in 0..RANDOM_DRAWS {
            let v = rng.random_range(0..variants.len());
            let variant = &variants[v];
            if variant.width > self.size.cols || variant.height > self.size.rows {
                continue;
            }
            let col = rng.random_range(0..=self.size.cols - variant.width);
            let row = rng.random_range(0..=self.size.rows - variant.height);
            if self.fits(variant, col, row) {
                return Some((v as u16, col, row));
            }
        }
        None
    }

    /// Places `shapes` (in this order) at random around what is already placed.
    /// Returns `(rot, at)` per shape in area coordinates, or `None` if no layout was
    /// found (which, for a fleet that passed [`fleet_fits`], does not happen).
    pub fn fill<R: Rng>(&mut self, shapes: &[&Shape], rng: &mut R) -> Option<Vec<(u8, Cell)>> {
        let empty = self.forbidden.iter().all(|&f| f == 0);
        if let Some(found) = self.fill_with(shapes, rng) {
            return Some(found);
        }
        if empty {
            // Repeat the fit check's own search, which succeeded for this fleet.
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(FIT_SEED);
            return self.fill_with(shapes, &mut rng);
        }
        None
    }

    fn fill_with<R: Rng>(&mut self, shapes: &[&Shape], rng: &mut R) -> Option<Vec<(u8, Cell)>> {
        let all: Vec<Vec<Variant>> = shapes.iter().map(|s| variants(s)).collect();
        let mut candidates = Vec::new();
        for _ in 0..GREEDY_ATTEMPTS {
            let mut chosen: Vec<(usize, u16, u16, u16)> = Vec::with_capacity(shapes.len());
            let mut failed = false;
            for (ship, variants) in all.iter().enumerate() {
                let pick = match self.random_draw(variants, rng) {
                    Some(pick) => Some(pick),
                    None => {
                        self.candidates(variants, &mut candidates);
                        if candidates.is_empty() {
                            None
                        } else {
                            Some(candidates[rng.random_range(0..candidates.len())])
                        }
                    }
                };
                match pick {
                    Some((v, col, row)) => {
                        self.mark(&variants[v as usize].cells, col, row, true);
                        chosen.push((ship, v, col, row));
                    }
                    None => {
                        failed = true;
                        break;
                    }
                }
            }
            if !failed {
                return Some(
                    chosen
                        .iter()
                        .map(|&(ship, v, col, row)| {
                            (all[ship][v as usize].rot, Cell::new(col, row))
                        })
                        .collect(),
                );
            }
            for &(ship, v, col, row) in chosen.iter().rev() {
                self.mark(&all[ship][v as usize].cells, col, row, false);
            }
        }
        self.search(shapes, &all, rng)
    }

    /// Exhaustive depth-first search with a node budget. Consecutive ships of the
    /// same shape are placed in increasing candidate order, so permutations of
    /// identical ships are not searched twice.
    fn search<R: Rng>(
        &mut self,
        shapes: &[&Shape],
        all: &[Vec<Variant>],
        rng: &mut R,
    ) -> Option<Vec<(u8, Cell)>> {
        struct Search<'a, R> {
            all: &'a [Vec<Variant>],
            same_as_previous: Vec<bool>,
            nodes: usize,
            chosen: Vec<(u16, u16, u16)>,
            rng: &'a mut R,
        }
        fn key(size: Size, (v, col, row): (u16, u16, u16)) -> usize {
            (row as usize * size.cols as usize + col as usize) * 4 + v as usize
        }
        fn go<R: Rng>(packer: &mut Packer, search: &mut Search<R>, ship: usize) -> bool {
            if ship == search.all.len() {
                return true;
            }
            search.nodes += 1;
            if search.nodes > SEARCH_NODES {
                return false;
            }
            let mut candidates = Vec::new();
            packer.candidates(&search.all[ship], &mut candidates);
            if search.same_as_previous[ship] {
                let floor = key(packer.size, search.chosen[ship - 1]);
                candidates.retain(|&c| key(packer.size, c) > floor);
            }
            candidates.shuffle(search.rng);
            for candidate in candidates {
                let cells = &search.all[ship][candidate.0 as usize].cells;
                packer.mark(cells, candidate.1, candidate.2, true);
                search.chosen.push(candidate);
                if go(packer, search, ship + 1) {
                    return true;
                }
                search.chosen.pop();
                let cells = &search.all[ship][candidate.0 as usize].cells;
                packer.mark(cells, candidate.1, candidate.2, false);
                if search.nodes > SEARCH_NODES {
                    return false;
                }
            }
            false
        }
        let same_as_previous = (0..shapes.len())
            .map(|i| i > 0 && shapes[i] == shapes[i - 1])
            .collect();
        let mut search = Search {
            all,
            same_as_previous,
            nodes: 0,
            chosen: Vec::new(),
            rng,
        };
        if go(self, &mut search, 0) {
            Some(
                search
                    .chosen
                    .iter()
                    .enumerate()
                    .map(|(ship, &(v, col, row))| (all[ship][v as usize].rot, Cell::new(col, row)))
                    .collect(),
            )
        } else {
            None
        }
    }
}

/// Cells a shape needs under the no-touch rule: the union of the 2×2 squares whose
/// top-left corners are its cells. These unions are disjoint for ships that do not
/// touch, and all lie in the board grown by one column and one row.
fn padded_area(shape: &Shape) -> usize {
    let mut cells: Vec<(u16, u16)> = shape
        .cells()
        .iter()
        .flat_map(|&(x, y)| [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)])
        .collect();
    cells.sort_unstable();
    cells.dedup();
    cells.len()
}

/// Whether a valid layout of `shapes` exists on an empty area. Decided by
/// a counting bound, then a seeded search; a fleet the search cannot place within
/// its budget is refused, so no game ever meets an unplaceable fleet later.
pub fn fleet_fits(size: Size, shapes: &[&Shape], may_touch: bool) -> bool {
    if shapes.is_empty() {
        return true;
    }
    let needed: usize = if may_touch {
        shapes.iter().map(|s| s.len()).sum()
    } else {
        shapes.iter().map(|s| padded_area(s)).sum()
    };
    let available = if may_touch {
        size.cell_count()
    } else {
        (size.cols as usize + 1) * (size.rows as usize + 1)
    };
    if needed > available {
        return false;
    }
    let mut order: Vec<&Shape> = shapes.to_vec();
    order.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(FIT_SEED);
    Packer::new(size, may_touch)
        .fill_with(&order, &mut rng)
        .is_some()
}
