//! The engine's random placement as the prior of the sampler.
//!
//! "🎲 Random" places a fleet ship by ship, largest first, each uniformly among
//! the positions the ships before it left free (a rotation is drawn first, then
//! an anchor). A layout `L` therefore has the probability
//! `Π_k q(p_k) / Q_k(L_<k)`, where `q` is the chance of drawing ship k's
//! position and `Q_k` the total chance of the positions still free for it.
//! That is far from uniform over layouts: without touching, uniform layouts
//! crowd the big ships against the edges (that leaves the most room for the
//! rest), while the engine spreads them almost evenly. A sampler that assumes
//! the wrong prior hunts the wrong cells.
//!
//! When one hidden ship moves, the factors `Q_k` of every ship placed after it
//! change. For rectangular ships the count of free positions that a candidate
//! blocks is a rectangle query over the anchors of each later ship, so one
//! Gibbs step costs a few prefix sums per later ship and O(1) per candidate.

use broadside_engine::Shape;

use crate::model::Area;

/// Whether a ship is a full rectangle: the only ships the prior models, so
/// the sampler assumes the engine's placement only for fleets of them.
pub(crate) fn rectangle(shape: &Shape) -> bool {
    shape.len() == shape.width() as usize * shape.height() as usize
}

/// Cells a ship forbids to later ships: itself, or itself and its ring
/// as an inclusive rectangle clipped to the area.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zone {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
}

impl Zone {
    pub(crate) fn around(cells: &[u16], cols: usize, rows: usize, no_touch: bool) -> Zone {
        let reach = i32::from(no_touch);
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for &c in cells {
            let (x, y) = ((c as usize % cols) as i32, (c as usize / cols) as i32);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        Zone {
            x0: (x0 - reach).max(0),
            y0: (y0 - reach).max(0),
            x1: (x1 + reach).min(cols as i32 - 1),
            y1: (y1 + reach).min(rows as i32 - 1),
        }
    }
}

/// One rotation of a ship kind: its extent and the chance `q` of drawing any
/// one of its anchors.
struct Rotation {
    w: usize,
    h: usize,
    q: f64,
}

enum Slot {
    /// A hidden ship of the sampler, by index.
    Hidden(usize),
    /// A ship whose cells are known (sunk).
    Fixed(usize, Zone),
}

pub(crate) struct SeqPrior {
    cols: usize,
    rows: usize,
    rotations: Vec<Vec<Rotation>>,
    /// The fleet in the engine's placement order.
    order: Vec<Slot>,
    /// Position of each hidden ship in `order`.
    rank: Vec<usize>,
    kind_of_ship: Vec<usize>,
    cover: Vec<u16>,
    blocked: Vec<i32>,
    anchors: Vec<Vec<i32>>,
    factor: Vec<f64>,
}

impl SeqPrior {
    /// The prior for an area, or `None` when the area's fleet was not placed
    /// by the engine's random placement or has ships that are not rectangles.
    pub(crate) fn new(area: &Area) -> Option<SeqPrior> {
        if !area.sequential_prior || area.hard {
            return None;
        }
        if !area.types.iter().all(|(_, shape)| rectangle(shape)) {
            return None;
        }
        let (cols, rows) = (area.size.cols as usize, area.size.rows as usize);
        let rotations = area
            .types
            .iter()
            .map(|(_, shape)| {
                let all = shape.distinct_rotations();
                let drawn = all.len() as f64;
                all.into_iter()
                    .filter(|(_, r)| r.width() as usize <= cols && r.height() as usize <= rows)
                    .map(|(_, r)| {
                        let (w, h) = (r.width() as usize, r.height() as usize);
                        Rotation {
                            w,
                            h,
                            q: 1.0 / (drawn * ((cols - w + 1) * (rows - h + 1)) as f64),
                        }
                    })
                    .collect()
            })
            .collect();
        // Largest first, then catalogue order, as the engine sorts a fleet.
        let key = |k: usize| (std::cmp::Reverse(area.types[k].1.len()), area.ranks[k]);
        let mut order: Vec<Slot> = Vec::new();
        for (k, cells) in &area.sunk_ships {
            let cells: Vec<u16> = cells.iter().map(|&c| c as u16).collect();
            order.push(Slot::Fixed(
                *k,
                Zone::around(&cells, cols, rows, area.no_touch),
            ));
        }
        for s in 0..area.ships.len() {
            order.push(Slot::Hidden(s));
        }
        let kind_of_slot = |slot: &Slot| match slot {
            Slot::Hidden(s) => area.ships[*s].kind,
            Slot::Fixed(k, _) => *k,
        };
        order.sort_by_key(|slot| key(kind_of_slot(slot)));
        let mut rank = vec![0; area.ships.len()];
        for (i, slot) in order.iter().enumerate() {
            if let Slot::Hidden(s) = slot {
                rank[*s] = i;
            }
        }
        Some(SeqPrior {
            cols,
            rows,
            rotations,
            order,
            rank,
            kind_of_ship: area.ships.iter().map(|s| s.kind).collect(),
            cover: vec![0; cols * rows],
            blocked: vec![0; (cols + 1) * (rows + 1)],
            anchors: Vec::new(),
            factor: Vec::new(),
        })
    }

    fn add(&mut self, zone: Zone) {
        for y in zone.y0..=zone.y1 {
            let row = y as usize * self.cols;
            for x in zone.x0..=zone.x1 {
                self.cover[row + x as usize] += 1;
            }
        }
    }

    /// Multiplies the weight of each candidate of hidden ship `s` by the prior
    /// probability of the layout with `s` there (up to a constant). `zone_of`
    /// gives the zone of a candidate of a kind; `pos` the candidate each hidden
    /// ship holds (`u32::MAX` when it is left out).
    pub(crate) fn weigh(
        &mut self,
        s: usize,
        pos: &[u32],
        zone_of: impl Fn(usize, usize) -> Zone,
        rotation_of: impl Fn(usize, usize) -> usize,
        scratch: &mut [(u32, f64, i32)],
    ) {
        let kind = self.kind_of_ship[s];
        self.cover.iter_mut().for_each(|c| *c = 0);
        let zone_at = |slot: &Slot| -> Option<Zone> {
            match *slot {
                Slot::Hidden(t) if pos[t] != u32::MAX => {
                    Some(zone_of(self.kind_of_ship[t], pos[t] as usize))
                }
                Slot::Hidden(_) => None,
                Slot::Fixed(_, zone) => Some(zone),
            }
        };
        let before: Vec<Zone> = self.order[..self.rank[s]]
            .iter()
            .filter_map(zone_at)
            .collect();
        let after: Vec<(usize, Option<Zone>)> = self.order[self.rank[s] + 1..]
            .iter()
            .filter(|slot| !matches!(slot, Slot::Hidden(t) if pos[*t] == u32::MAX))
            .map(|slot| {
                let k = match *slot {
                    Slot::Hidden(t) => self.kind_of_ship[t],
                    Slot::Fixed(k, _) => k,
                };
                (k, zone_at(slot))
            })
            .collect();
        for zone in before {
            self.add(zone);
        }
        let mut factor = std::mem::take(&mut self.factor);
        factor.clear();
        factor.extend(
            scratch
                .iter()
                .map(|&(c, _, _)| self.rotations[kind][rotation_of(kind, c as usize)].q),
        );
        let zones: Vec<Zone> = scratch
            .iter()
            .map(|&(c, _, _)| zone_of(kind, c as usize))
            .collect();
        for (later, zone) in after {
            self.divide_by_room(later, &zones, &mut factor);
            if let Some(zone) = zone {
                self.add(zone);
            }
        }
        for (entry, f) in scratch.iter_mut().zip(&factor) {
            entry.1 *= f;
        }
        self.factor = factor;
    }

    /// Divides each candidate's factor by the room `Q_k` left for a later ship
    /// of kind `k` when the candidate's zone is added to what `cover` holds.
    fn divide_by_room(&mut self, k: usize, zones: &[Zone], factor: &mut [f64]) {
        let (cols, rows) = (self.cols, self.rows);
        let stride = cols + 1;
        for y in 0..rows {
            let mut run = 0;
            for x in 0..cols {
                run += i32::from(self.cover[y * cols + x] > 0);
                self.blocked[(y + 1) * stride + x + 1] = self.blocked[y * stride + x + 1] + run;
            }
        }
        let blocked = &self.blocked;
        let rect = |x0: usize, y0: usize, x1: usize, y1: usize| {
            blocked[(y1 + 1) * stride + x1 + 1] + blocked[y0 * stride + x0]
                - blocked[y0 * stride + x1 + 1]
                - blocked[(y1 + 1) * stride + x0]
        };
        let rotations = &self.rotations[k];
        self.anchors.resize_with(rotations.len(), Vec::new);
        let mut total = 0.0;
        for (r, rot) in rotations.iter().enumerate() {
            let (aw, ah) = (cols - rot.w + 1, rows - rot.h + 1);
            let grid = &mut self.anchors[r];
            grid.clear();
            grid.resize((aw + 1) * (ah + 1), 0);
            let mut free = 0;
            for ay in 0..ah {
                let mut run = 0;
                for ax in 0..aw {
                    let ok = rect(ax, ay, ax + rot.w - 1, ay + rot.h - 1) == 0;
                    run += i32::from(ok);
                    free += i32::from(ok);
                    grid[(ay + 1) * (aw + 1) + ax + 1] = grid[ay * (aw + 1) + ax + 1] + run;
                }
            }
            total += free as f64 * rot.q;
        }
        for (zone, f) in zones.iter().zip(factor.iter_mut()) {
            let mut lost = 0.0;
            for (r, rot) in rotations.iter().enumerate() {
                let (aw, ah) = ((cols - rot.w + 1) as i32, (rows - rot.h + 1) as i32);
                let x0 = (zone.x0 - rot.w as i32 + 1).max(0);
                let y0 = (zone.y0 - rot.h as i32 + 1).max(0);
                let x1 = zone.x1.min(aw - 1);
                let y1 = zone.y1.min(ah - 1);
                if x0 > x1 || y0 > y1 {
                    continue;
                }
                let g = &self.anchors[r];
                let s = (aw + 1) as usize;
                let (x0, y0, x1, y1) = (x0 as usize, y0 as usize, x1 as usize, y1 as usize);
                let count = g[(y1 + 1) * s + x1 + 1] + g[y0 * s + x0]
                    - g[y0 * s + x1 + 1]
                    - g[(y1 + 1) * s + x0];
                lost += count as f64 * rot.q;
            }
            let room = total - lost;
            *f /= room.max(1e-12);
        }
    }
}
