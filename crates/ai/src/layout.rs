//! The bot's own fleet: what it buys in the space shop and where it hides its
//! ships. Layouts are drawn from a mix of styles so that no single pattern
//! (edges, centre, clusters) is what a hunter can count on.

use std::collections::BTreeMap;

use broadside_engine::placement::Packer;
use broadside_engine::{Cell, Mode, Placement, Rules, Shape, Size, View};
use rand::Rng;

use crate::model::{self, Area};
use crate::{prior, rollout};

/// A sensible shop purchase: the default fleet. With `vary`, four
/// times in ten the space station (reserve) instead of the dreadnought (nuke)
/// and the credits left over spent on a fighter: the levels that vary their
/// fleet do so, the stronger ones keep the dreadnought, which wins more
/// (docs/ai.md, "Space: the shop").
pub fn purchase<R: Rng>(rules: &Rules, vary: bool, rng: &mut R) -> BTreeMap<String, u32> {
    match crate::station_purchase(rules) {
        Some(ships) if vary && rng.random_bool(0.4) => ships,
        _ => crate::default_purchase(rules),
    }
}

/// How a layout is chosen among random candidates.
#[derive(Clone, Copy)]
enum Style {
    /// One uniform random layout.
    Plain,
    /// The candidate whose cells a density hunter rates lowest.
    Cold,
    /// The candidate whose ships lie farthest apart (no clusters to follow).
    Spread,
    /// The candidate whose ships lie closest together (confuses target mode
    /// where ships may touch).
    Huddle,
}

/// The most hunts (candidates times [`Hiding::trials`]) that judge a fleet's
/// candidates on a 10×10 board; bigger boards weigh fewer candidates, so that
/// laying a fleet takes about as long on any board.
const MAX_HUNTS: usize = 4096;

/// The hunts per candidate on sea boards bigger than 10×10 (see
/// [`Hiding::judged_on`]).
const BIG_BOARD_TRIALS: usize = 4;

/// The most random layouts drawn for a tight fleet's candidates (candidates
/// times [`Hiding::tight`]); beyond it the candidates are fewer. The bound
/// keeps laying a fleet in a game of three seats or more to a fraction of a
/// second on every board, space included: it leaves the admiral 64
/// candidates, each the tightest of 256 layouts (docs/ai.md, "Hiding the
/// fleet", the times to lay a fleet).
const MAX_TIGHT_LAYOUTS: usize = 16_384;

/// How a bot hides its fleet: the hardest of `candidates` random layouts
/// for a hunter to find ([`hidden`]). With no candidates, one of the plain
/// styles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hiding {
    pub candidates: usize,
    /// How many times each candidate is hunted, with other tie-breaks each
    /// time: the mean of more hunts tells the hard fleets from the lucky ones
    /// better (docs/ai.md, "The admiral's candidates: fewer, each hunted more
    /// often").
    pub trials: usize,
    /// How much a layout's unlikeliness under the engine's random placement
    /// counts, in shots per unit of log-probability: hunters that assume
    /// that placement (bayes) look there last.
    pub prior_weight: f64,
    /// In games of three seats or more, each candidate is the tightest of
    /// this many random layouts ([`tightest`]); 0 for none. With no hiding
    /// candidates it is the layout itself (see [`Hiding::tight_in`]).
    pub tight: usize,
    /// Where the fleet is kept tight, but not in space, whether the
    /// candidates are hunted by a density count that suspects as much
    /// ([`model::TIGHT_TILT`]), as hard and up hunt there, rather than by
    /// the plain count.
    pub suspicious: bool,
}

impl Hiding {
    /// The candidates weighed on a board and the hunts each: at most
    /// [`MAX_HUNTS`] hunts in all on a 10×10 board and proportionally fewer
    /// on bigger ones. In space every level's count of candidates is scaled
    /// down with the board: its abilities strike whole columns and squares,
    /// which the density hunter that judges the candidates ignores, and
    /// there more candidates hide the fleet worse (docs/ai.md, "Hiding the
    /// fleet"). On the sea boards bigger than 10×10 (brasil, italia) the
    /// hunts go to more candidates, [`BIG_BOARD_TRIALS`] hunts each: a fleet
    /// there has more places to hide, and the admiral's fleets hide worse
    /// with fewer candidates hunted more often (docs/ai.md, "The admiral's
    /// candidates: fewer, each hunted more often").
    fn judged_on(self, size: Size, space: bool) -> (usize, usize) {
        let cells = size.cell_count().max(1);
        let trials = self.trials.max(1);
        if space {
            (
                (self.candidates * 100 / cells).clamp(1, self.candidates),
                trials,
            )
        } else if cells > 100 && trials > BIG_BOARD_TRIALS {
            let candidates = self.candidates * trials / BIG_BOARD_TRIALS;
            let most = MAX_HUNTS * 100 / cells / BIG_BOARD_TRIALS;
            (candidates.min(most).max(1), BIG_BOARD_TRIALS)
        } else {
            let most = MAX_HUNTS * 100 / cells / trials;
            (self.candidates.min(most).max(1), trials)
        }
    }

    /// How many random layouts each candidate is the tightest of in a game
    /// of `seats` seats; 0 for none. Only from three seats on: in salvo
    /// rounds every opponent fires at the board, and it falls when its last
    /// ship is found, so a tight fleet lasts longer. Not for the plain
    /// styles in space, where medium does better with its usual layouts
    /// (docs/ai.md, "Salvo games: a tight fleet").
    fn tight_in(self, seats: usize, space: bool) -> usize {
        if seats < 3 || (space && self.candidates == 0) {
            0
        } else {
            self.tight
        }
    }
}

/// A layout for the seat's whole fleet, in board coordinates, or `None` when
/// the view does not say what to place. With hiding candidates it is the
/// hardest of them for hunters to find ([`hidden`]); otherwise, in a game
/// where the fleet is kept tight ([`Hiding::tight_in`]), the tightest of
/// several random layouts, else one of the styles.
pub fn layout<R: Rng>(
    seat: usize,
    hiding: Hiding,
    view: &View,
    rules: &Rules,
    rng: &mut R,
) -> Option<Vec<Placement>> {
    let fleet = view.seats[seat].fleet.clone()?;
    let origin = match view.mode {
        Mode::SharedSea => {
            view.blocks
                .as_ref()?
                .iter()
                .find(|b| b.owner == Some(seat))?
                .origin
        }
        _ => Cell::new(0, 0),
    };
    let area = rules.board;
    let mut ids: Vec<String> = fleet
        .into_iter()
        .flat_map(|(id, n)| std::iter::repeat_n(id, n as usize))
        .collect();
    ids.sort_by_key(|id| {
        std::cmp::Reverse(
            rules
                .type_index(id)
                .map(|i| rules.catalogue[i].shape.len())
                .unwrap_or(0),
        )
    });
    let shapes: Vec<&Shape> = ids
        .iter()
        .map(|id| rules.type_index(id).map(|i| &rules.catalogue[i].shape))
        .collect::<Option<_>>()?;
    let space = view.mode == Mode::Space;
    let tight = hiding.tight_in(view.seats.len(), space);
    let found = if hiding.candidates > 0 {
        let (mut candidates, trials) = hiding.judged_on(area, space);
        if let Some(most) = MAX_TIGHT_LAYOUTS.checked_div(tight) {
            candidates = candidates.min(most).max(1);
        }
        // The sampler assumes the engine's placement only for fleets of
        // rectangles (`prior::SeqPrior`). Elsewhere, with a tight fleet, the
        // prior's term only trades tightness away; in duels it stays, as the
        // admiral wins more with it there (docs/ai.md, "Space: the admiral's
        // fleet").
        let rectangles = shapes.iter().all(|s| prior::rectangle(s));
        let prior_weight = if rectangles || tight == 0 {
            hiding.prior_weight
        } else {
            0.0
        };
        let judge = Hiding {
            candidates,
            trials,
            prior_weight,
            tight,
            suspicious: hiding.suspicious && tight > 0 && !space,
        };
        hidden(area, rules.ships_may_touch, &shapes, judge, rng)?
    } else if tight > 0 {
        tightest(area, rules.ships_may_touch, &shapes, tight, rng)?
    } else {
        styled(area, rules.ships_may_touch, &shapes, rng)?
    };
    Some(
        found
            .into_iter()
            .zip(ids)
            .map(|((rot, at), id)| Placement {
                ship_type: id,
                at: Cell::new(origin.col + at.col, origin.row + at.row),
                rot,
            })
            .collect(),
    )
}

/// One of the layout styles, drawn at random: a plain random layout, or the
/// best of a few candidates by coldness, spread or huddle.
fn styled<R: Rng>(
    area: Size,
    may_touch: bool,
    shapes: &[&Shape],
    rng: &mut R,
) -> Option<Vec<(u8, Cell)>> {
    let style = match rng.random_range(0..10) {
        0..=3 => Style::Plain,
        4..=5 => Style::Cold,
        6..=8 => Style::Spread,
        _ if may_touch => Style::Huddle,
        _ => Style::Spread,
    };
    let tries = match style {
        Style::Plain => 1,
        _ => 6,
    };
    let heat = heat_map(area, shapes);
    let mut best: Option<(f64, Vec<(u8, Cell)>)> = None;
    for _ in 0..tries {
        let Some(found) = Packer::new(area, may_touch).fill(shapes, rng) else {
            continue;
        };
        let cells: Vec<Vec<Cell>> = found
            .iter()
            .zip(shapes)
            .map(|(&(rot, at), shape)| {
                shape
                    .place(at, rot)
                    .into_iter()
                    .map(|(c, r)| Cell::new(c as u16, r as u16))
                    .collect()
            })
            .collect();
        let score = match style {
            Style::Plain => 0.0,
            Style::Cold => cells.iter().flatten().map(|&c| heat[area.index(c)]).sum(),
            Style::Spread => -closeness(&cells),
            Style::Huddle => closeness(&cells),
        };
        if best.as_ref().is_none_or(|(b, _)| score < *b) {
            best = Some((score, found));
        }
    }
    best.map(|(_, found)| found)
}

/// The layout of `tries` random ones whose ships have the fewest cells
/// around them (the cells a sinking reveals as water, or rules out where
/// ships may not touch). In salvo rounds each opponent fires the same number
/// of shots at a board, and the board falls when its last ship is found:
/// every cell ruled out for free brings that nearer.
pub fn tightest<R: Rng>(
    size: Size,
    may_touch: bool,
    shapes: &[&Shape],
    tries: usize,
    rng: &mut R,
) -> Option<Vec<(u8, Cell)>> {
    let mut best: Option<(usize, Vec<(u8, Cell)>)> = None;
    for _ in 0..tries.max(1) {
        let Some(found) = Packer::new(size, may_touch).fill(shapes, rng) else {
            continue;
        };
        let around = cells_around(size, shapes, &found);
        if best.as_ref().is_none_or(|(b, _)| around < *b) {
            best = Some((around, found));
        }
    }
    best.map(|(_, found)| found)
}

/// How many cells touch a ship of the layout without being part of one.
fn cells_around(size: Size, shapes: &[&Shape], found: &[(u8, Cell)]) -> usize {
    const FREE: u8 = 0;
    const AROUND: u8 = 1;
    const SHIP: u8 = 2;
    let mut mark = vec![FREE; size.cell_count()];
    for (&(rot, at), shape) in found.iter().zip(shapes) {
        for (c, r) in shape.place(at, rot) {
            mark[size.index(Cell::new(c as u16, r as u16))] = SHIP;
        }
    }
    for i in 0..mark.len() {
        if mark[i] == SHIP {
            for c in size.neighbours(size.cell(i)) {
                let j = size.index(c);
                if mark[j] == FREE {
                    mark[j] = AROUND;
                }
            }
        }
    }
    mark.iter().filter(|&&m| m == AROUND).count()
}

/// The hardest of `hiding.candidates` random layouts for hunters to find:
/// each candidate is hunted `hiding.trials` times by the density count
/// (with other tie-breaks each time, [`rollout::World::play_out`]), which
/// with `hiding.suspicious` suspects a tight fleet ([`model::TIGHT_TILT`]);
/// its score is the mean of those shots, plus `hiding.prior_weight` times
/// minus the log of its chance under the engine's random placement, and the
/// highest score is kept. With `hiding.tight` above 0 each candidate is the
/// tightest of that many random layouts ([`tightest`]). `shapes` must be in
/// placement order (largest first); the result is `(rotation, corner)` per
/// shape in area coordinates.
pub fn hidden<R: Rng>(
    size: Size,
    may_touch: bool,
    shapes: &[&Shape],
    hiding: Hiding,
    rng: &mut R,
) -> Option<Vec<(u8, Cell)>> {
    let Hiding {
        candidates,
        trials,
        prior_weight,
        tight,
        suspicious,
    } = hiding;
    let mut area = empty_area(size, may_touch, shapes);
    if suspicious {
        area.tight_tilt = model::TIGHT_TILT;
    }
    let world = rollout::World::new(&area);
    let mut best: Option<(f64, Vec<(u8, Cell)>)> = None;
    let seeds: Vec<u64> = (0..trials.max(1)).map(|_| rng.random()).collect();
    for _ in 0..candidates.max(1) {
        let found = if tight > 0 {
            tightest(size, may_touch, shapes, tight, rng)?
        } else {
            Packer::new(size, may_touch).fill(shapes, rng)?
        };
        let Some(world) = &world else {
            return Some(found);
        };
        let layout = as_layout(size, shapes, &found);
        let shots: u64 = seeds
            .iter()
            .map(|&seed| {
                let first = world.density_choice(seed).unwrap_or(0);
                u64::from(world.play_out(&layout, first, seed))
            })
            .sum();
        let mut score = shots as f64 / seeds.len() as f64;
        if prior_weight > 0.0 {
            score -= prior_weight * engine_log_prior(&area, &layout);
        }
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, found));
        }
    }
    best.map(|(_, found)| found)
}

/// A layout as `(rotation, corner)` per shape, as the rollouts take it: per
/// ship its kind (its index in `shapes`) and its cells.
fn as_layout(size: Size, shapes: &[&Shape], found: &[(u8, Cell)]) -> rollout::Layout {
    found
        .iter()
        .zip(shapes)
        .enumerate()
        .map(|(kind, (&(rot, at), shape))| {
            let cells = shape
                .place(at, rot)
                .into_iter()
                .map(|(c, r)| size.index(Cell::new(c as u16, r as u16)) as u16)
                .collect();
            (kind, cells)
        })
        .collect()
}

/// The natural log of the chance that the engine's random placement (R-2.6:
/// largest first, a rotation drawn, then an anchor, drawn again until the
/// ship fits) lays out exactly `layout` on an empty `area` whose types are
/// the ships in placement order.
fn engine_log_prior(area: &Area, layout: &rollout::Layout) -> f64 {
    let size = area.size;
    let mut closed = vec![false; size.cell_count()];
    let mut total = 0.0;
    for (kind, cells) in layout {
        let shape = &area.types[*kind].1;
        let drawn = shape.distinct_rotations().len() as f64;
        // The chance of drawing one given anchor, per rotation that fits.
        let chance: Vec<f64> = shape
            .distinct_rotations()
            .into_iter()
            .filter(|(_, r)| r.width() <= size.cols && r.height() <= size.rows)
            .map(|(_, r)| {
                let anchors =
                    (size.cols - r.width() + 1) as f64 * (size.rows - r.height() + 1) as f64;
                1.0 / (drawn * anchors)
            })
            .collect();
        let mut own: Vec<usize> = cells.iter().map(|&c| c as usize).collect();
        own.sort_unstable();
        let (mut room, mut mine) = (0.0, 1e-12);
        area.for_each_placement(*kind, &closed, |rotation, placed| {
            room += chance[rotation];
            if placed.len() == own.len() && placed.iter().all(|c| own.binary_search(c).is_ok()) {
                mine = chance[rotation];
            }
        });
        total += (mine / f64::max(room, 1e-12)).ln();
        for &c in cells {
            closed[c as usize] = true;
            if area.no_touch {
                for n in size.neighbours(size.cell(c as usize)) {
                    closed[size.index(n)] = true;
                }
            }
        }
    }
    total
}

/// An empty area holding one ship of each shape, the types in placement
/// order: where a density hunter starts.
fn empty_area(size: Size, may_touch: bool, shapes: &[&Shape]) -> Area {
    let types: Vec<(String, Shape)> = shapes
        .iter()
        .enumerate()
        .map(|(i, &s)| (format!("ship{i}"), s.clone()))
        .collect();
    Area::plain(size, types, !may_touch)
}

/// How many placements of the fleet's ships cover each cell of an empty area:
/// what a density hunter fires at first.
fn heat_map(size: Size, shapes: &[&Shape]) -> Vec<f64> {
    let mut heat = vec![0.0; size.cell_count()];
    for shape in shapes {
        for (_, rotated) in shape.distinct_rotations() {
            let (w, h) = (rotated.width(), rotated.height());
            if w > size.cols || h > size.rows {
                continue;
            }
            for row in 0..=size.rows - h {
                for col in 0..=size.cols - w {
                    for &(x, y) in rotated.cells() {
                        heat[(row + y) as usize * size.cols as usize + (col + x) as usize] += 1.0;
                    }
                }
            }
        }
    }
    heat
}

/// The sum over pairs of ships of the inverse of their closest distance.
fn closeness(ships: &[Vec<Cell>]) -> f64 {
    let mut total = 0.0;
    for (i, a) in ships.iter().enumerate() {
        for b in &ships[i + 1..] {
            let mut nearest = u32::MAX;
            for p in a {
                for q in b {
                    let d = (p.col as i32 - q.col as i32).unsigned_abs()
                        + (p.row as i32 - q.row as i32).unsigned_abs();
                    nearest = nearest.min(d);
                }
            }
            total += 1.0 / nearest.max(1) as f64;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The admiral hunts each candidate sixteen times on a 10×10 board; on
    /// the bigger sea boards the same hunts go to more candidates, and in
    /// space the candidates shrink with the board. Expert's judging is the
    /// same everywhere but space.
    #[test]
    fn the_hunts_that_judge_candidates_depend_on_the_board() {
        let admiral = crate::Strategy::Admiral.hiding();
        let expert = crate::Strategy::Bayes.hiding();
        let judged = |h: Hiding, cols, rows, space| h.judged_on(Size::new(cols, rows), space);
        assert_eq!(judged(admiral, 10, 10, false), (256, 16));
        assert_eq!(judged(admiral, 15, 15, false), (455, 4));
        assert_eq!(judged(admiral, 16, 16, false), (400, 4));
        assert_eq!(judged(admiral, 20, 10, true), (128, 16));
        assert_eq!(judged(admiral, 8, 8, false), (256, 16));
        for (cols, rows) in [(10, 10), (15, 15), (16, 16)] {
            assert_eq!(judged(expert, cols, rows, false), (64, 4));
        }
        // Never more hunts than the board's share of MAX_HUNTS.
        for side in 5..=26 {
            let (candidates, trials) = judged(admiral, side, side, false);
            let cells = usize::from(side) * usize::from(side);
            assert!(
                candidates * trials <= (MAX_HUNTS * 100 / cells).max(trials),
                "{side}"
            );
        }
    }

    /// Every legal layout of a 3-cell and a 2-cell ship on a 4×4 board, ships
    /// not touching, as `rollout::Layout`s.
    fn all_layouts(size: Size, shapes: &[&Shape]) -> Vec<rollout::Layout> {
        let place = |shape: &Shape| -> Vec<Vec<u16>> {
            let mut out = Vec::new();
            for (_, r) in shape.distinct_rotations() {
                for row in 0..=size.rows - r.height() {
                    for col in 0..=size.cols - r.width() {
                        out.push(
                            r.cells()
                                .iter()
                                .map(|&(x, y)| size.index(Cell::new(col + x, row + y)) as u16)
                                .collect(),
                        );
                    }
                }
            }
            out
        };
        let touches = |a: &[u16], b: &[u16]| {
            a.iter().any(|&p| {
                let p = size.cell(p as usize);
                b.iter().any(|&q| {
                    let q = size.cell(q as usize);
                    p.col.abs_diff(q.col) <= 1 && p.row.abs_diff(q.row) <= 1
                })
            })
        };
        let mut out = Vec::new();
        for a in place(shapes[0]) {
            for b in place(shapes[1]) {
                if !touches(&a, &b) {
                    out.push(vec![(0, a.clone()), (1, b)]);
                }
            }
        }
        out
    }

    /// The engine's placement draws some layout every time, so the chances
    /// of all legal layouts add up to one.
    #[test]
    fn the_engine_prior_sums_to_one_over_all_layouts() {
        let size = Size::new(4, 4);
        let (long, short) = (Shape::line(3), Shape::line(2));
        let shapes = [&long, &short];
        let layouts = all_layouts(size, &shapes);
        assert!(layouts.len() > 20, "{}", layouts.len());
        let total: f64 = layouts
            .iter()
            .map(|l| engine_log_prior(&empty_area(size, false, &shapes), l).exp())
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
    }

    /// Mean shots a density hunter that suspects a tight fleet takes to sink
    /// fleets hidden by `hiding` on the classic board (ships not touching).
    fn suspicious_hunt(hiding: Hiding, fleets: u64) -> f64 {
        use rand::SeedableRng;
        let size = Size::new(10, 10);
        let lines: Vec<Shape> = [5, 4, 3, 3, 2].into_iter().map(Shape::line).collect();
        let shapes: Vec<&Shape> = lines.iter().collect();
        let mut area = empty_area(size, false, &shapes);
        area.tight_tilt = model::TIGHT_TILT;
        let hunter = rollout::World::new(&area).expect("a plain area has a world");
        let mut shots = 0;
        for seed in 0..fleets {
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
            let found = hidden(size, false, &shapes, hiding, &mut rng).expect("a layout");
            let layout = as_layout(size, &shapes, &found);
            // Other tie-breaks than the hider's own trials.
            let tie = 1_000 + seed;
            let first = hunter.density_choice(tie).unwrap_or(0);
            shots += hunter.play_out(&layout, first, tie);
        }
        f64::from(shots) / fleets as f64
    }

    /// A tight fleet judged by a hunter that suspects tightness is harder
    /// for such a hunter to find than one judged by the plain count.
    #[test]
    fn fleets_hidden_from_a_suspicious_hunter_take_it_longer() {
        let judge = |suspicious| Hiding {
            candidates: 16,
            trials: 4,
            prior_weight: 0.0,
            tight: 16,
            suspicious,
        };
        let plain = suspicious_hunt(judge(false), 60);
        let wary = suspicious_hunt(judge(true), 60);
        assert!(wary > plain + 4.0, "plain {plain:.2}, suspicious {wary:.2}");
    }
}
