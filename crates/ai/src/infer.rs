//! Bayesian inference of where the hidden ships lie: a Gibbs sampler over whole
//! fleet layouts consistent with everything the seat knows.
//!
//! A state places every hidden ship of an [`Area`]. Layouts that break a rule
//! of the game (off the board, on known water, on a sunk ship or next to it
//! under, overlapping) are never visited. Observations that are hard to
//! satisfy by construction — every hit explained, no afloat ship entirely hit,
//! hard-rule volley counts per type, the number of sunk ships per type — form an
//! energy: each broken observation costs one unit, and the chain samples layouts
//! with probability ∝ exp(−β·energy). Only zero-energy layouts are the posterior;
//! the tempering lets the chain walk between them through nearly consistent
//! ones.
//!
//! Each Gibbs step re-places one ship given the others, choosing among all its
//! candidate placements by weight. The per-cell estimates are Rao-Blackwellized:
//! instead of counting only the drawn placement, each step adds the whole
//! conditional distribution of the ship (restricted to zero energy), which gives
//! smooth probabilities from few sweeps.

use rand::Rng;

use crate::model::{Area, FreshCells, Known};
use crate::prior::{SeqPrior, Zone};
use crate::rollout::Layout;

/// exp(−β) per unit of energy: a broken observation costs a factor of ~50.
const BETA: f64 = 3.9;
const NONE: u32 = u32::MAX;
const ALL_HIT: u8 = 1;
const ALL_FIRED: u8 = 2;

/// Every placement of one ship kind that avoids statically forbidden cells.
struct Candidates {
    cells: Vec<u16>,
    start: Vec<u32>,
    special: Vec<u16>,
    special_start: Vec<u32>,
    flags: Vec<u8>,
    /// Index of the candidate's rotation among the rotations that fit.
    rotation: Vec<u8>,
    /// What the candidate forbids to ships placed after it (for the prior).
    zone: Vec<Zone>,
}

impl Candidates {
    fn len(&self) -> usize {
        self.flags.len()
    }
    fn cells(&self, i: usize) -> &[u16] {
        &self.cells[self.start[i] as usize..self.start[i + 1] as usize]
    }
    fn special(&self, i: usize) -> &[u16] {
        &self.special[self.special_start[i] as usize..self.special_start[i + 1] as usize]
    }
}

/// Search effort of one inference.
#[derive(Clone, Copy, Debug)]
pub struct Effort {
    /// Candidate placements evaluated in total (the cost of the sampler).
    pub evaluations: usize,
    pub min_sweeps: usize,
    pub max_sweeps: usize,
}

impl Default for Effort {
    fn default() -> Self {
        Effort {
            evaluations: 120_000,
            min_sweeps: 12,
            max_sweeps: 160,
        }
    }
}

struct Sampler<'a> {
    area: &'a Area,
    kinds: usize,
    cands: Vec<Candidates>,
    neighbours: Vec<Vec<u16>>,
    must: Vec<bool>,
    volley_of: Vec<u32>,
    required: Vec<i32>,
    block: Vec<u16>,
    cover: Vec<i32>,
    pos: Vec<u32>,
    volley_count: Vec<i32>,
    fully_fired: Vec<i32>,
    energy: i32,
    weight_of: Vec<f64>,
    prior: Option<SeqPrior>,
    /// Per kind, each candidate's factor for the cells it would add around a
    /// tight fleet (`Area::tight_tilt`); empty when there is no tilt.
    tilt: Vec<Vec<f64>>,
}

/// The probability that each cell of the area holds a hidden intact ship part,
/// estimated from layouts consistent with what is known. Cells that are not
/// targetable get 0.
pub fn probabilities<R: Rng>(area: &Area, effort: Effort, rng: &mut R) -> Vec<f64> {
    estimate(area, effort, rng, None)
}

/// [`probabilities`], and the consistent layouts the chain visited: one per
/// recorded sweep, at most `max` of them, evenly spread over the chain.
pub fn probabilities_and_layouts<R: Rng>(
    area: &Area,
    effort: Effort,
    max: usize,
    rng: &mut R,
) -> (Vec<f64>, Vec<Layout>) {
    let mut layouts = Vec::new();
    let p = estimate(area, effort, rng, Some((&mut layouts, max)));
    (p, layouts)
}

fn estimate<R: Rng>(
    area: &Area,
    effort: Effort,
    rng: &mut R,
    mut layouts: Option<(&mut Vec<Layout>, usize)>,
) -> Vec<f64> {
    let mut sampler = Sampler::new(area);
    let n = area.cells.len();
    let mut result = vec![0.0; n];
    if !sampler.initialize(rng) {
        return result;
    }
    let work: usize = sampler
        .active_ships()
        .map(|s| sampler.cands[area.ships[s].kind].len())
        .sum::<usize>()
        .max(1);
    let sweeps = (effort.evaluations / work).clamp(effort.min_sweeps, effort.max_sweeps);
    let burn_in = (sweeps / 8).max(2);
    let every = layouts
        .as_ref()
        .map_or(1, |(_, max)| sweeps.div_ceil((*max).max(1)));
    let ships = area.ships.len();
    let mut exact_num = vec![0.0f64; ships * n];
    let mut exact_den = vec![0.0f64; ships];
    let mut soft_num = vec![0.0f64; ships * n];
    let mut soft_den = vec![0.0f64; ships];
    let mut scratch: Vec<(u32, f64, i32)> = Vec::new();
    let mut order: Vec<usize> = sampler.active_ships().collect();
    for sweep in 0..burn_in + sweeps {
        // A fresh random order per sweep keeps identical ships from locking in.
        for i in (1..order.len()).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        let record = sweep >= burn_in;
        for &s in &order {
            sampler.step(s, rng, &mut scratch);
            if !record {
                continue;
            }
            let kind = area.ships[s].kind;
            let total: f64 = scratch.iter().map(|&(_, w, _)| w).sum();
            if total <= 0.0 {
                continue;
            }
            let mut zero = 0.0;
            for &(c, w, e) in &scratch {
                let p = w / total;
                for &cell in sampler.cands[kind].cells(c as usize) {
                    soft_num[s * n + cell as usize] += p;
                    if e == 0 {
                        exact_num[s * n + cell as usize] += p;
                    }
                }
                if e == 0 {
                    zero += p;
                }
            }
            exact_den[s] += zero;
            soft_den[s] += 1.0;
        }
        if let Some((out, max)) = layouts.as_mut() {
            let complete = sampler.pos.iter().all(|&p| p != NONE);
            if record && sampler.energy == 0 && complete && out.len() < *max && sweep % every == 0 {
                out.push(sampler.layout());
            }
        }
    }
    for s in sampler.active_ships() {
        let (num, den) = if exact_den[s] > 1e-9 {
            (&exact_num, exact_den[s])
        } else {
            (&soft_num, soft_den[s])
        };
        if den <= 0.0 {
            continue;
        }
        for (c, r) in result.iter_mut().enumerate() {
            *r += num[s * n + c] / den;
        }
    }
    for (r, known) in result.iter_mut().zip(&area.cells) {
        *r = if known.targetable() { r.min(1.0) } else { 0.0 };
    }
    result
}

impl<'a> Sampler<'a> {
    fn new(area: &'a Area) -> Self {
        let size = area.size;
        let n = area.cells.len();
        let kinds = area.types.len();
        let neighbours: Vec<Vec<u16>> = (0..n)
            .map(|i| {
                size.neighbours(size.cell(i))
                    .map(|c| size.index(c) as u16)
                    .collect()
            })
            .collect();
        let forbidden = area.closed_to_ships();
        let must: Vec<bool> = area.cells.iter().map(|k| k.must_be_ship()).collect();
        let mut volley_of = vec![NONE; n];
        let mut required = vec![0i32; area.volleys.len() * kinds];
        for (v, fact) in area.volleys.iter().enumerate() {
            for &c in &fact.cells {
                volley_of[c] = v as u32;
            }
            for k in 0..kinds {
                required[v * kinds + k] = fact.hits_by_kind.get(k).copied().unwrap_or(0) as i32;
            }
        }
        let cands = (0..kinds)
            .map(|k| {
                let mut out = Candidates {
                    cells: Vec::new(),
                    start: vec![0],
                    special: Vec::new(),
                    special_start: vec![0],
                    flags: Vec::new(),
                    rotation: Vec::new(),
                    zone: Vec::new(),
                };
                area.for_each_placement(k, &forbidden, |r, placement| {
                    let first = out.cells.len();
                    out.cells.extend(placement.iter().map(|&c| c as u16));
                    let cells = &out.cells[first..];
                    let mut flags = 0;
                    if !area.hard && cells.iter().all(|&c| area.cells[c as usize] == Known::Hit) {
                        flags |= ALL_HIT;
                    }
                    if area.hard
                        && cells
                            .iter()
                            .all(|&c| matches!(area.cells[c as usize], Known::Hit | Known::Fired))
                    {
                        flags |= ALL_FIRED;
                    }
                    for &c in cells {
                        if must[c as usize] || volley_of[c as usize] != NONE {
                            out.special.push(c);
                        }
                    }
                    out.special_start.push(out.special.len() as u32);
                    out.start.push(out.cells.len() as u32);
                    out.flags.push(flags);
                    out.rotation.push(r as u8);
                    out.zone.push(Zone::around(
                        &out.cells[first..],
                        size.cols as usize,
                        size.rows as usize,
                        area.no_touch,
                    ));
                });
                out
            })
            .collect();
        let weight_of = (0..64).map(|e| (-BETA * e as f64).exp()).collect();
        Sampler {
            area,
            kinds,
            cands,
            neighbours,
            must,
            volley_of,
            required,
            block: vec![0; n],
            cover: vec![-1; n],
            pos: vec![NONE; area.ships.len()],
            volley_count: vec![0; area.volleys.len() * kinds],
            fully_fired: vec![0; kinds],
            energy: 0,
            weight_of,
            prior: SeqPrior::new(area),
            tilt: Vec::new(),
        }
        .tilted()
    }

    /// Fills the candidates' factors when the area asks for a tilt: by
    /// `exp(-tight_tilt)` per cell the candidate covers or touches that no
    /// known ship part (a hit, a scanned or sunk part) already covers or
    /// touches. It is a factor per ship, not per layout, because weighing
    /// whole layouts by the cells around the fleet lets the hypothetical
    /// ships cluster anywhere and finds tight fleets less well (docs/ai.md,
    /// "Salvo games: the hunters suspect a tight fleet").
    fn tilted(mut self) -> Self {
        let tight = self.area.tight_tilt;
        if tight == 0.0 {
            return self;
        }
        let mut fresh = FreshCells::new(self.area);
        self.tilt = self
            .cands
            .iter()
            .map(|cands| {
                (0..cands.len())
                    .map(|c| {
                        let cells = cands.cells(c);
                        let around = fresh.count(cells.iter().map(|&i| i as usize));
                        (-tight * around as f64).exp()
                    })
                    .collect()
            })
            .collect();
        self
    }

    /// The tilt factor of candidate `c` of `kind` (1 without a tilt).
    fn tilt(&self, kind: usize, c: usize) -> f64 {
        self.tilt.get(kind).map_or(1.0, |t| t[c])
    }

    /// The current placement of every ship: (kind, cells).
    fn layout(&self) -> Layout {
        self.active_ships()
            .map(|s| {
                let kind = self.area.ships[s].kind;
                (kind, self.cands[kind].cells(self.pos[s] as usize).to_vec())
            })
            .collect()
    }

    fn active_ships(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.pos.len()).filter(|&s| self.pos[s] != NONE)
    }

    fn weight(&self, energy: i32) -> f64 {
        self.weight_of[energy.clamp(0, 63) as usize]
    }

    /// The energy of the broken observations with nothing placed.
    fn empty_energy(&self) -> i32 {
        let mut e = self.must.iter().filter(|&&m| m).count() as i32;
        e += self.required.iter().map(|r| r.abs()).sum::<i32>();
        if self.area.hard {
            e += self
                .area
                .sunk_by_kind
                .iter()
                .map(|&r| r as i32)
                .sum::<i32>();
        }
        e
    }

    fn fits(&self, kind: usize, c: usize) -> bool {
        self.cands[kind]
            .cells(c)
            .iter()
            .all(|&i| self.block[i as usize] == 0)
    }

    /// How the energy changes when candidate `c` of `kind` is added now.
    fn delta(&self, kind: usize, c: usize) -> i32 {
        let cands = &self.cands[kind];
        let flags = cands.flags[c];
        let mut d = 0;
        let special = cands.special(c);
        if !special.is_empty() {
            let mut touched: [(u32, i32); 8] = [(NONE, 0); 8];
            let mut used = 0;
            for &cell in special {
                let cell = cell as usize;
                if self.must[cell]
                    && self
                        .area
                        .hit_kind
                        .get(cell)
                        .copied()
                        .flatten()
                        .is_none_or(|k| k == kind)
                {
                    d -= 1;
                }
                let v = self.volley_of[cell];
                if v != NONE {
                    match touched[..used].iter().position(|t| t.0 == v) {
                        Some(t) => touched[t].1 += 1,
                        None if used < 8 => {
                            touched[used] = (v, 1);
                            used += 1;
                        }
                        None => {}
                    }
                }
            }
            for &(v, added) in &touched[..used] {
                let index = v as usize * self.kinds + kind;
                let now = self.volley_count[index];
                let want = self.required[index];
                d += (now + added - want).abs() - (now - want).abs();
            }
        }
        if flags & ALL_HIT != 0 {
            d += 1;
        }
        if flags & ALL_FIRED != 0 {
            let want = self.area.sunk_by_kind[kind] as i32;
            let now = self.fully_fired[kind];
            d += (now + 1 - want).abs() - (now - want).abs();
        }
        d
    }

    fn mark(&mut self, kind: usize, c: usize, add: bool) {
        let step: i32 = if add { 1 } else { -1 };
        let no_touch = self.area.no_touch;
        let cands = &self.cands[kind];
        for &cell in cands.cells(c) {
            let cell = cell as usize;
            if add {
                self.block[cell] += 1;
                self.cover[cell] = kind as i32;
            } else {
                self.block[cell] -= 1;
                self.cover[cell] = -1;
            }
            if no_touch {
                for &j in &self.neighbours[cell] {
                    if add {
                        self.block[j as usize] += 1;
                    } else {
                        self.block[j as usize] -= 1;
                    }
                }
            }
            let v = self.volley_of[cell];
            if v != NONE {
                self.volley_count[v as usize * self.kinds + kind] += step;
            }
        }
        if cands.flags[c] & ALL_FIRED != 0 {
            self.fully_fired[kind] += step;
        }
    }

    fn place(&mut self, s: usize, c: usize) {
        let kind = self.area.ships[s].kind;
        self.energy += self.delta(kind, c);
        self.mark(kind, c, true);
        self.pos[s] = c as u32;
    }

    fn remove(&mut self, s: usize) {
        let kind = self.area.ships[s].kind;
        let c = self.pos[s] as usize;
        self.mark(kind, c, false);
        self.energy -= self.delta(kind, c);
        self.pos[s] = NONE;
    }

    /// Fills `scratch` with (candidate, weight, energy after) for ship `s` and
    /// draws its new placement from them.
    fn step<R: Rng>(&mut self, s: usize, rng: &mut R, scratch: &mut Vec<(u32, f64, i32)>) {
        let kind = self.area.ships[s].kind;
        self.remove(s);
        scratch.clear();
        let mut total = 0.0;
        for c in 0..self.cands[kind].len() {
            if !self.fits(kind, c) {
                continue;
            }
            let e = self.energy + self.delta(kind, c);
            let w = self.weight(e) * self.tilt(kind, c);
            total += w;
            scratch.push((c as u32, w, e));
        }
        if let Some(prior) = self.prior.as_mut() {
            let cands = &self.cands;
            prior.weigh(
                s,
                &self.pos,
                |k, c| cands[k].zone[c],
                |k, c| cands[k].rotation[c] as usize,
                scratch,
            );
            total = scratch.iter().map(|&(_, w, _)| w).sum();
        }
        let chosen = draw(scratch, total, rng);
        self.place(s, chosen);
    }

    /// A first layout, ship by ship, each drawn by weight; ships that find no
    /// room after a few attempts are left out of the hypothesis.
    fn initialize<R: Rng>(&mut self, rng: &mut R) -> bool {
        let ships = self.area.ships.len();
        let mut scratch = Vec::new();
        for attempt in 0..12 {
            self.block.iter_mut().for_each(|b| *b = 0);
            self.cover.iter_mut().for_each(|c| *c = -1);
            self.volley_count.iter_mut().for_each(|c| *c = 0);
            self.fully_fired.iter_mut().for_each(|c| *c = 0);
            self.pos.iter_mut().for_each(|p| *p = NONE);
            self.energy = self.empty_energy();
            let mut complete = true;
            for s in 0..ships {
                let kind = self.area.ships[s].kind;
                scratch.clear();
                let mut total = 0.0;
                for c in 0..self.cands[kind].len() {
                    if self.fits(kind, c) {
                        let e = self.energy + self.delta(kind, c);
                        let w = self.weight(e) * self.tilt(kind, c);
                        total += w;
                        scratch.push((c as u32, w, e));
                    }
                }
                if scratch.is_empty() {
                    complete = false;
                    // On the last attempt keep the partial layout.
                    if attempt < 11 {
                        break;
                    }
                    continue;
                }
                let chosen = draw(&scratch, total, rng);
                self.place(s, chosen);
            }
            if complete {
                return true;
            }
        }
        self.pos.iter().any(|&p| p != NONE)
    }
}

fn draw<R: Rng>(scratch: &[(u32, f64, i32)], total: f64, rng: &mut R) -> usize {
    debug_assert!(!scratch.is_empty());
    let mut r = rng.random::<f64>() * total;
    for &(c, w, _) in scratch {
        if r < w {
            return c as usize;
        }
        r -= w;
    }
    scratch[scratch.len() - 1].0 as usize
}
