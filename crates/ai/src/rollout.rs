//! The admiral's look-ahead: policy rollouts.
//!
//! For each candidate shot the admiral plays the rest of the game many times,
//! against fleets drawn from the posterior (the bayes sampler's layouts), with
//! the density count as the policy after that first shot, and fires where the
//! fewest shots followed. All candidates meet the same fleets and the same
//! tie-breaks (common random numbers), so the comparison measures the shot,
//! not the luck of the draw. This is one step of policy iteration on top of
//! density: with exact values it can only do better than density, which on
//! the fleet duels is as strong as bayes (docs/ai.md, "Shots to sink a
//! fleet").
//!
//! The density count is kept incrementally over a fixed table of placements:
//! a miss retires the placements through it, a hit multiplies theirs by 100,
//! a sinking retires the ship's cells (and under its ring). Counts are
//! exact integers, so retiring a heavy placement leaves no residue.

use crate::model::{Area, FreshCells, Known};

/// A placement through a hit weighs this much more per hit (as `heur::density`).
const HIT_FACTOR: u128 = 100;

/// The tight tilt's factors are fixed-point numbers with this many bits after
/// the point, so the counts stay exact integers.
const TILT_BITS: u32 = 32;

/// One fleet the sampler found consistent with what is known: per hidden ship,
/// its kind and its local cells.
pub type Layout = Vec<(usize, Vec<u16>)>;

const UNKNOWN: u8 = 0;
const WATER: u8 = 1;
const HIT: u8 = 2;
const SUNK: u8 = 3;

/// The placements of an area's hidden ships that are still possible, and what
/// the density policy knows, ready to be copied for each rollout.
pub struct World {
    n: usize,
    /// Placement `p` covers `cells[start[p]..start[p + 1]]`.
    cells: Vec<u16>,
    start: Vec<u32>,
    kind: Vec<u16>,
    /// Cell → the placements through it: `by_cell[by_cell_start[c]..]`.
    by_cell: Vec<u32>,
    by_cell_start: Vec<u32>,
    /// Kind → its placements.
    by_kind: Vec<Vec<u32>>,
    neighbours: Vec<Vec<u16>>,
    no_touch: bool,
    /// The tight tilt, where the area has one.
    tilt: Option<Tilt>,
    base: State,
}

/// The tight tilt of a world: per count of fresh cells its fixed-point
/// factor, and per cell the placements whose cells or their neighbours
/// include it (`by_cell[start[c]..start[c + 1]]`).
struct Tilt {
    factor: Vec<u128>,
    by_cell: Vec<u32>,
    start: Vec<u32>,
}

#[derive(Clone)]
struct State {
    known: Vec<u8>,
    alive: Vec<bool>,
    hits: Vec<u8>,
    score: Vec<u128>,
    count: Vec<u32>,
    /// With a tight tilt: per placement, the cells it covers or touches that
    /// no known ship part covers or touches; per cell, whether one does.
    fresh: Vec<u8>,
    covered: Vec<bool>,
}

/// Tie-breaks inside one rollout: a fixed random priority per cell (a
/// splitmix64 hash of the rollout's seed and the cell). Two rollouts with the
/// same seed that reach the same knowledge by different orders of shots go
/// on identically from there, which keeps the candidates' rollouts coupled.
#[derive(Clone, Copy)]
struct Ties(u64);

impl Ties {
    fn priority(self, cell: usize) -> u64 {
        let mut z = self.0 ^ (cell as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Whether rollouts model the rules of this area: no hard-rule volleys, no
/// typed hits, no scans or fired cells of unknown result, ships to find.
pub fn applies(area: &Area) -> bool {
    !area.hard
        && area.volleys.is_empty()
        && area.hit_kind.iter().all(Option::is_none)
        && area
            .cells
            .iter()
            .all(|k| !matches!(k, Known::Scanned | Known::Fired))
        && !area.ships.is_empty()
}

impl World {
    /// The world of an area, or `None` where rollouts do not model the rules
    /// (hard-rule volleys, hit types, scans and fired cells of unknown result).
    pub fn new(area: &Area) -> Option<World> {
        if !applies(area) {
            return None;
        }
        let size = area.size;
        let n = area.cells.len();
        let closed = area.closed_to_ships();
        let known: Vec<u8> = area
            .cells
            .iter()
            .map(|k| match k {
                Known::Unknown | Known::Scanned => UNKNOWN,
                Known::Hit => HIT,
                Known::Sunk => SUNK,
                Known::Water | Known::Fired => WATER,
            })
            .collect();
        let mut count = vec![0u32; area.types.len()];
        for s in &area.ships {
            count[s.kind] += 1;
        }
        let mut cells = Vec::new();
        let mut start = vec![0u32];
        let mut kind = Vec::new();
        let mut hits = Vec::new();
        for (k, _) in count.iter().enumerate().filter(|(_, &c)| c > 0) {
            area.for_each_placement(k, &closed, |_, placement| {
                let on_hits = placement.iter().filter(|&&c| known[c] == HIT).count();
                if on_hits == placement.len() {
                    // Entirely hit: it would have sunk.
                    return;
                }
                cells.extend(placement.iter().map(|&c| c as u16));
                start.push(cells.len() as u32);
                kind.push(k as u16);
                hits.push(on_hits as u8);
            });
        }
        let placements = kind.len();
        let mut per_cell = vec![0u32; n + 1];
        for &c in &cells {
            per_cell[c as usize + 1] += 1;
        }
        for c in 0..n {
            per_cell[c + 1] += per_cell[c];
        }
        let by_cell_start = per_cell.clone();
        let mut fill = per_cell;
        let mut by_cell = vec![0u32; cells.len()];
        let mut by_kind = vec![Vec::new(); area.types.len()];
        for p in 0..placements {
            for &c in &cells[start[p] as usize..start[p + 1] as usize] {
                by_cell[fill[c as usize] as usize] = p as u32;
                fill[c as usize] += 1;
            }
            by_kind[kind[p] as usize].push(p as u32);
        }
        let neighbours: Vec<Vec<u16>> = (0..n)
            .map(|i| {
                size.neighbours(size.cell(i))
                    .map(|c| size.index(c) as u16)
                    .collect()
            })
            .collect();
        let (tilt, fresh, covered) = if area.tight_tilt != 0.0 {
            let (tilt, fresh, covered) = Tilt::new(area, &cells, &start);
            (Some(tilt), fresh, covered)
        } else {
            (None, Vec::new(), Vec::new())
        };
        let mut world = World {
            n,
            cells,
            start,
            kind,
            by_cell,
            by_cell_start,
            by_kind,
            neighbours,
            no_touch: area.no_touch,
            tilt,
            base: State {
                known,
                alive: vec![true; placements],
                hits,
                score: vec![0; n],
                count,
                fresh,
                covered,
            },
        };
        let mut score = vec![0u128; n];
        for p in 0..placements {
            let w = world.weight(&world.base, p);
            for &c in world.placement(p) {
                score[c as usize] += w;
            }
        }
        world.base.score = score;
        Some(world)
    }

    fn placement(&self, p: usize) -> &[u16] {
        &self.cells[self.start[p] as usize..self.start[p + 1] as usize]
    }

    fn covering(&self, c: usize) -> &[u32] {
        &self.by_cell[self.by_cell_start[c] as usize..self.by_cell_start[c + 1] as usize]
    }

    fn weight(&self, state: &State, p: usize) -> u128 {
        state.count[self.kind[p] as usize] as u128 * self.unit(state, p)
    }

    /// A placement's weight per hidden ship of its kind.
    fn unit(&self, state: &State, p: usize) -> u128 {
        let unit = HIT_FACTOR.pow(state.hits[p] as u32);
        match &self.tilt {
            Some(tilt) => unit * tilt.factor[state.fresh[p] as usize],
            None => unit,
        }
    }

    /// With a tight tilt, a ship part found at `c` covers it and its
    /// neighbours: every placement that covers or touches one of those not
    /// covered before has a fresh cell fewer, and weighs more.
    fn cover(&self, state: &mut State, c: usize) {
        let Some(tilt) = &self.tilt else {
            return;
        };
        for x in std::iter::once(c).chain(self.neighbours[c].iter().map(|&j| j as usize)) {
            if state.covered[x] {
                continue;
            }
            state.covered[x] = true;
            for &p in &tilt.by_cell[tilt.start[x] as usize..tilt.start[x + 1] as usize] {
                let p = p as usize;
                if !state.alive[p] {
                    state.fresh[p] -= 1;
                    continue;
                }
                let old = self.weight(state, p);
                state.fresh[p] -= 1;
                let added = self.weight(state, p) - old;
                for &y in self.placement(p) {
                    state.score[y as usize] += added;
                }
            }
        }
    }

    fn retire(&self, state: &mut State, p: usize) {
        if !state.alive[p] {
            return;
        }
        let w = self.weight(state, p);
        for &c in self.placement(p) {
            state.score[c as usize] -= w;
        }
        state.alive[p] = false;
    }

    fn miss(&self, state: &mut State, c: usize) {
        state.known[c] = WATER;
        for &p in self.covering(c) {
            self.retire(state, p as usize);
        }
    }

    fn hit(&self, state: &mut State, c: usize) {
        state.known[c] = HIT;
        self.cover(state, c);
        for &p in self.covering(c) {
            let p = p as usize;
            if !state.alive[p] {
                continue;
            }
            let len = self.start[p + 1] - self.start[p];
            if state.hits[p] as u32 + 1 == len {
                self.retire(state, p);
                state.hits[p] += 1;
                continue;
            }
            let old = self.weight(state, p);
            state.hits[p] += 1;
            let added = self.weight(state, p) - old;
            for &x in self.placement(p) {
                state.score[x as usize] += added;
            }
        }
    }

    /// A ship of `kind` sank on `ship`: its cells and, under, its ring
    /// are closed, and one ship fewer of its kind is hidden.
    fn sink(&self, state: &mut State, kind: usize, ship: &[u16]) {
        for &c in ship {
            for &p in self.covering(c as usize) {
                self.retire(state, p as usize);
            }
            state.known[c as usize] = SUNK;
        }
        if self.no_touch {
            for &c in ship {
                for &j in &self.neighbours[c as usize] {
                    if state.known[j as usize] == UNKNOWN {
                        self.miss(state, j as usize);
                    }
                }
            }
        }
        let before = state.count[kind];
        for &p in &self.by_kind[kind] {
            let p = p as usize;
            if !state.alive[p] {
                continue;
            }
            let unit = self.unit(state, p);
            for &c in self.placement(p) {
                state.score[c as usize] -= unit;
            }
            if before == 1 {
                state.alive[p] = false;
            }
        }
        state.count[kind] = before.saturating_sub(1);
    }

    /// The density policy's shot: the unknown cell with the highest count,
    /// ties broken by `ties`.
    fn choose(&self, state: &State, ties: Ties) -> Option<usize> {
        let mut best: Option<(u128, u64, usize)> = None;
        for c in 0..self.n {
            if state.known[c] != UNKNOWN {
                continue;
            }
            let s = state.score[c];
            match best {
                Some((top, _, _)) if s < top => {}
                Some((top, rank, _)) if s == top => {
                    let r = ties.priority(c);
                    if r > rank {
                        best = Some((s, r, c));
                    }
                }
                _ => best = Some((s, ties.priority(c), c)),
            }
        }
        best.map(|b| b.2)
    }

    /// The density policy's choice in the current position.
    pub fn density_choice(&self, seed: u64) -> Option<usize> {
        self.choose(&self.base, Ties(seed))
    }

    /// Shots to sink every hidden ship of `layout` when the first shot goes to
    /// `first` and the density policy fires the rest.
    pub fn play_out(&self, layout: &Layout, first: usize, seed: u64) -> u32 {
        let mut state = self.base.clone();
        let mut owner = vec![u8::MAX; self.n];
        let mut left: Vec<u32> = Vec::with_capacity(layout.len());
        for (s, (_, ship)) in layout.iter().enumerate() {
            let mut intact = 0;
            for &c in ship {
                owner[c as usize] = s as u8;
                intact += u32::from(state.known[c as usize] == UNKNOWN);
            }
            left.push(intact);
        }
        let mut afloat = left.iter().filter(|&&l| l > 0).count();
        let ties = Ties(seed);
        let mut shots = 0;
        let mut next = Some(first);
        while afloat > 0 {
            let Some(c) = next else { break };
            shots += 1;
            match owner[c] {
                u8::MAX => self.miss(&mut state, c),
                s => {
                    self.hit(&mut state, c);
                    let s = s as usize;
                    left[s] -= 1;
                    if left[s] == 0 {
                        self.sink(&mut state, layout[s].0, &layout[s].1);
                        afloat -= 1;
                    }
                }
            }
            if shots as usize >= self.n {
                break;
            }
            next = self.choose(&state, ties);
        }
        shots
    }
}

impl Tilt {
    /// The tilt of `area` over the placements `cells[start[p]..start[p + 1]]`,
    /// each placement's fresh cells as the area is known, and per cell
    /// whether a known ship part covers or touches it (`model::FreshCells`).
    fn new(area: &Area, cells: &[u16], start: &[u32]) -> (Tilt, Vec<u8>, Vec<bool>) {
        let mut fresh_cells = FreshCells::new(area);
        let placements = start.len().saturating_sub(1);
        let mut fresh = Vec::with_capacity(placements);
        let mut touched: Vec<Vec<u32>> = vec![Vec::new(); area.cells.len()];
        for p in 0..placements {
            let placement = &cells[start[p] as usize..start[p + 1] as usize];
            let mut count = 0u8;
            fresh_cells.visit(placement.iter().map(|&c| c as usize), |x, covered| {
                touched[x].push(p as u32);
                count += u8::from(!covered);
            });
            fresh.push(count);
        }
        let most = fresh.iter().copied().max().unwrap_or(0) as usize;
        let one = (1u128 << TILT_BITS) as f64;
        let factor = (0..=most)
            .map(|f| ((-area.tight_tilt * f as f64).exp() * one).round().max(1.0) as u128)
            .collect();
        let mut start = vec![0u32];
        let mut by_cell = Vec::new();
        for list in touched {
            by_cell.extend(list);
            start.push(by_cell.len() as u32);
        }
        (
            Tilt {
                factor,
                by_cell,
                start,
            },
            fresh,
            fresh_cells.into_covered(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heur;
    use crate::model::test_area;

    /// The incremental count equals `heur::density` recomputed from scratch
    /// after every shot of a whole game, with and without a tight tilt (then
    /// up to the fixed point's rounding).
    #[test]
    fn incremental_counts_match_density_recomputed() {
        for (no_touch, tilt) in [(false, 0.0), (true, 0.0), (false, 0.3), (true, 0.3)] {
            let rows = ["~~~~~~~"; 7];
            let mut a = test_area(&rows, &[4, 3, 2], no_touch);
            a.tight_tilt = tilt;
            let one = if tilt == 0.0 {
                1.0
            } else {
                (1u128 << TILT_BITS) as f64
            };
            let world = World::new(&a).expect("plain area");
            // Ships: 4 across the top row, 3 down column 6, 2 at the bottom.
            let layout: Layout = vec![
                (0, vec![0, 1, 2, 3]),
                (1, vec![13, 20, 27]),
                (2, vec![43, 44]),
            ];
            let mut state = world.base.clone();
            let first = world.density_choice(99).expect("a cell");
            let ties = Ties(7);
            let mut left = [4u32, 3, 2];
            let mut order = Vec::new();
            while left.iter().any(|&l| l > 0) {
                let c = match order.is_empty() {
                    true => first,
                    false => world.choose(&state, ties).expect("a cell"),
                };
                order.push(c);
                match layout
                    .iter()
                    .position(|(_, cells)| cells.contains(&(c as u16)))
                {
                    None => {
                        world.miss(&mut state, c);
                        a.cells[c] = Known::Water;
                    }
                    Some(s) => {
                        world.hit(&mut state, c);
                        a.cells[c] = Known::Hit;
                        left[s] -= 1;
                        if left[s] == 0 {
                            world.sink(&mut state, layout[s].0, &layout[s].1);
                            for &x in &layout[s].1 {
                                a.cells[x as usize] = Known::Sunk;
                            }
                            if no_touch {
                                for x in a.closed_to_ships().iter().enumerate() {
                                    if *x.1 && a.cells[x.0] == Known::Unknown {
                                        a.cells[x.0] = Known::Water;
                                    }
                                }
                            }
                            a.ships.retain(|h| h.kind != s);
                        }
                    }
                }
                let fresh = heur::density(&a);
                for (i, known) in a.cells.iter().enumerate() {
                    if known.targetable() {
                        let ours = state.score[i] as f64 / one;
                        let off = (ours - fresh[i]).abs();
                        assert!(
                            off <= 1e-6 * fresh[i].abs(),
                            "cell {i} after {order:?}: {ours} against {}",
                            fresh[i]
                        );
                    }
                }
            }
            let shots = world.play_out(&layout, order[0], 7);
            assert_eq!(shots as usize, order.len(), "the same game, played out");
        }
    }

    #[test]
    fn a_rollout_sinks_every_ship() {
        let a = test_area(
            &["~~~~~", "~X~~~", "~~~~~", "~~~~~", "~~~~~"],
            &[3, 2],
            false,
        );
        let world = World::new(&a).expect("plain area");
        let layout: Layout = vec![(0, vec![1, 6, 11]), (1, vec![23, 24])];
        for first in [0, 11, 24] {
            let shots = world.play_out(&layout, first, 1);
            assert!((4..=24).contains(&shots), "{shots}");
        }
    }
}
