//! The simpler strategies' scores: hunt-and-target with parity, and the classic
//! probability-density count. Higher scores are fired at first.

use crate::model::{Area, FreshCells, Known};

/// Hunt and target: fire next to open hits (along the line when two hits line
/// up), otherwise on a parity lattice of the smallest hidden ship. Like a
/// careful person, it never fires where no hidden ship can still lie: on a
/// cell next to a sunk ship when ships may not touch (the shared sea reveals
/// no water ring, R-9.5), or in a gap too small for every ship still afloat.
pub fn hunt(area: &Area, parity_offset: usize) -> Vec<f64> {
    let size = area.size;
    let n = area.cells.len();
    let mut score = vec![0.0; n];
    let open = could_hold_ship(area);
    let aim = |i: usize| area.cells[i].targetable() && open[i];
    let hit = |col: i32, row: i32| {
        size.contains_signed(col, row)
            && area.cells[row as usize * size.cols as usize + col as usize] == Known::Hit
    };
    let mut targeting = false;
    for i in 0..n {
        if area.cells[i] == Known::Scanned {
            score[i] = 10.0;
            targeting = true;
        }
        if area.cells[i] != Known::Hit {
            continue;
        }
        let c = size.cell(i);
        let (col, row) = (c.col as i32, c.row as i32);
        let horizontal = hit(col - 1, row) || hit(col + 1, row);
        let vertical = hit(col, row - 1) || hit(col, row + 1);
        for (dc, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            // Walk past the hits of this line to the first cell beyond them.
            let (mut x, mut y) = (col + dc, row + dr);
            while hit(x, y) {
                x += dc;
                y += dr;
            }
            if !size.contains_signed(x, y) {
                continue;
            }
            let j = y as usize * size.cols as usize + x as usize;
            if !aim(j) {
                continue;
            }
            let along = (dc != 0 && horizontal) || (dr != 0 && vertical);
            let value = if along {
                6.0
            } else if horizontal || vertical {
                2.0
            } else {
                4.0
            };
            if value > score[j] {
                score[j] = value;
            }
            targeting = true;
        }
    }
    if !targeting {
        let smallest = area
            .ships
            .iter()
            .map(|s| area.types[s.kind].1.len())
            .min()
            .unwrap_or(1)
            .max(1);
        let step = if smallest >= 2 { smallest.min(4) } else { 1 };
        for (i, s) in score.iter_mut().enumerate() {
            if aim(i) {
                let c = size.cell(i);
                *s = if (c.col as usize + c.row as usize + parity_offset) % step == 0 {
                    1.0
                } else {
                    0.5
                };
            }
        }
    }
    // Hard rule: a volley that hit some of its cells leaves them "fired,
    // result unknown"; each is a hit with the volley's share of hits, and its
    // neighbours are worth looking at in that measure.
    for (i, &share) in fired_shares(area).iter().enumerate() {
        if share > 0.0 {
            let at = size.cell(i);
            for c in size.neighbours(at) {
                let j = size.index(c);
                // Diagonal neighbours hold the rest of a V-shaped seaplane.
                let straight = c.col == at.col || c.row == at.row;
                let value = if straight {
                    1.0 + 3.0 * share
                } else {
                    1.0 + share
                };
                if aim(j) && value > score[j] {
                    score[j] = value;
                }
            }
        }
    }
    for (i, s) in score.iter_mut().enumerate() {
        if !aim(i) {
            *s = 0.0;
        }
    }
    score
}

/// Per cell, whether a ship still hidden could cover it: some placement of a
/// hidden ship's type avoids known water, sunk ships and (where ships may not
/// touch) their neighbours. When nothing is left that fits — a view the
/// simple count cannot explain — every cell stays open.
pub fn could_hold_ship(area: &Area) -> Vec<bool> {
    let mut open = vec![false; area.cells.len()];
    let closed = area.closed_to_ships();
    let mut kinds: Vec<usize> = area.ships.iter().map(|s| s.kind).collect();
    kinds.sort_unstable();
    kinds.dedup();
    for kind in kinds {
        area.for_each_placement(kind, &closed, |_, cells| {
            for &i in cells {
                open[i] = true;
            }
        });
    }
    if !open
        .iter()
        .enumerate()
        .any(|(i, &o)| o && area.cells[i].targetable())
    {
        open.fill(true);
    }
    open
}

/// Per cell, the share of hits of the hard-rule volley that left it "fired,
/// result unknown" (0 elsewhere): the chance it is a hit, as far as the
/// simpler strategies reason.
fn fired_shares(area: &Area) -> Vec<f64> {
    let mut shares = vec![0.0; area.cells.len()];
    for volley in &area.volleys {
        let hits: u32 = volley.hits_by_kind.iter().sum();
        let share = hits as f64 / volley.cells.len().max(1) as f64;
        for &i in &volley.cells {
            if area.cells[i] == Known::Fired {
                shares[i] = share;
            }
        }
    }
    shares
}

/// Probability density: every placement of every hidden ship that avoids known
/// water and sunk ships adds to its cells; placements through open hits weigh
/// far more, so hits are finished first.
pub fn density(area: &Area) -> Vec<f64> {
    let n = area.cells.len();
    let mut score = vec![0.0; n];
    let forbidden = area.closed_to_ships();
    let shares = fired_shares(area);
    // The tight tilt, where the area asks for it (`Area::tight_tilt`).
    let mut fresh = (area.tight_tilt != 0.0).then(|| FreshCells::new(area));
    for k in 0..area.types.len() {
        let count = area.ships.iter().filter(|s| s.kind == k).count() as f64;
        if count == 0.0 {
            continue;
        }
        area.for_each_placement(k, &forbidden, |_, cells| {
            let hits = cells
                .iter()
                .filter(|&&i| area.cells[i].must_be_ship())
                .count();
            if !area.hard && hits == cells.len() {
                // A ship entirely hit would have sunk.
                return;
            }
            // A fired cell of unknown result counts as its volley's share of a hit.
            let fired: f64 = cells.iter().map(|&i| shares[i]).sum();
            let tilt = fresh.as_mut().map_or(1.0, |f| {
                (-area.tight_tilt * f.count(cells.iter().copied()) as f64).exp()
            });
            let weight = count * 100.0f64.powf(hits as f64 + fired) * tilt;
            for &index in cells {
                if area.cells[index].targetable() {
                    score[index] += weight;
                }
            }
        });
    }
    // A scanned part is a sure hit: fired before any cell that is only likely.
    let top = score.iter().copied().fold(0.0, f64::max);
    for (i, s) in score.iter_mut().enumerate() {
        if area.cells[i] == Known::Scanned {
            *s = top * 2.0 + 1.0;
        }
    }
    score
}

/// Scales scores to rough hit probabilities: the area's scores sum to the
/// number of ship cells still to find, and none exceeds 1. Abilities compare
/// these across areas and with thresholds.
pub fn as_probabilities(area: &Area, score: &mut [f64]) {
    let total: f64 = score.iter().sum();
    if total <= 0.0 {
        return;
    }
    let scale = area.cells_to_find() as f64 / total;
    for s in score.iter_mut() {
        *s = (*s * scale).min(1.0);
    }
}

#[cfg(test)]
mod tests {
    use broadside_engine::Cell;

    use super::*;
    use crate::model::{test_area, VolleyFact};

    /// Hard rule: a volley of three that hit twice leaves its cells "fired,
    /// result unknown"; both simpler strategies look next to them first, and
    /// not next to the cells of a volley that hit once.
    #[test]
    fn a_volley_that_hit_draws_the_next_shots_to_its_cells() {
        let mut a = test_area(
            &[
                "~~~~~~~", "~+~~~~~", "~~~~~~~", "~~~~~~~", "~~~~+~~", "~~~~~~~", "~~~~~~~",
            ],
            &[3, 2],
            false,
        );
        a.hard = true;
        let cell = |col, row| a.size.index(Cell::new(col, row));
        // Volleys: (1,1) with two water cells elsewhere hit once; (4,4) and two
        // others hit twice. Only the fired cells of unknown result matter.
        a.volleys = vec![
            VolleyFact {
                cells: vec![cell(1, 1), 0, 6],
                hits_by_kind: vec![1, 0],
            },
            VolleyFact {
                cells: vec![cell(4, 4), 42, 48],
                hits_by_kind: vec![1, 1],
            },
        ];
        let near = |score: &[f64], col: u16, row: u16| {
            [(0, 1), (2, 1), (1, 0), (1, 2)]
                .iter()
                .map(|&(dc, dr): &(i32, i32)| {
                    score[cell((col as i32 + dc - 1) as u16, (row as i32 + dr - 1) as u16)]
                })
                .fold(0.0, f64::max)
        };
        for score in [hunt(&a, 0), density(&a)] {
            let best = (0..score.len())
                .max_by(|&x, &y| score[x].total_cmp(&score[y]))
                .expect("cells");
            let at = a.size.cell(best);
            assert_eq!(
                at.col.abs_diff(4) + at.row.abs_diff(4),
                1,
                "{at:?} in {score:?}"
            );
            assert!(near(&score, 1, 1) > score[cell(5, 1)], "{score:?}");
        }
    }

    /// Hunt never fires where no hidden ship can lie: next to a sunk ship when
    /// ships may not touch (the shared sea reveals no water ring), or in a gap
    /// too short for every ship afloat. Where ships may touch, the cells next
    /// to a sunk ship stay open.
    #[test]
    fn hunt_skips_cells_no_hidden_ship_can_cover() {
        let rows = [
            "##~~~~~", "~~~~~~~", "~~~~~~~", "~~~~~~~", "~~~~.~~", "~~~.~.~", "~~~.~.~",
        ];
        let near_sunk = [(0, 1), (1, 1), (2, 0), (2, 1)];
        let short_gap = [(4, 5), (4, 6)];
        for no_touch in [true, false] {
            let a = test_area(&rows, &[3], no_touch);
            let score = hunt(&a, 0);
            for i in a.targetable() {
                let c = a.size.cell(i);
                let at = (c.col, c.row);
                let closed = short_gap.contains(&at) || (no_touch && near_sunk.contains(&at));
                assert_eq!(
                    score[i] == 0.0,
                    closed,
                    "{at:?} no_touch={no_touch}: {score:?}"
                );
            }
        }
        // A view nothing fits leaves every targetable cell open.
        let a = test_area(&["~.~", "...", "~.~"], &[3], true);
        assert!(a.targetable().all(|i| hunt(&a, 0)[i] > 0.0));
    }

    #[test]
    fn density_fires_a_scanned_part_before_a_cell_that_is_only_likely() {
        // Two hits in a row make the cells at their ends far likelier than
        // anything else by count, but the scanned part is certain.
        let a = test_area(
            &["~~~~~~", "~XX~~~", "~~~~~~", "~~~~~~", "~~~~!~", "~~~~~~"],
            &[4, 1],
            true,
        );
        let score = density(&a);
        let best = (0..score.len())
            .max_by(|&x, &y| score[x].total_cmp(&score[y]))
            .expect("cells");
        assert_eq!(a.size.cell(best), Cell::new(4, 4), "{score:?}");
    }

    /// The tight tilt weighs each placement by exp(-tilt) per cell it covers
    /// or touches beyond those a known ship part covers or touches: on an
    /// empty 5×5 board a two-cell ship in the corner covers or touches 6
    /// cells, one in the middle 12, so the corner, half as likely without
    /// the tilt, becomes the likelier; next to a hit only the cells beyond
    /// the hit's own square count.
    #[test]
    fn density_with_a_tight_tilt_weighs_placements_by_their_fresh_cells() {
        let t = 0.5;
        let mut a = test_area(&["~~~~~"; 5], &[2], true);
        let (corner, centre) = (a.size.index(Cell::new(0, 0)), a.size.index(Cell::new(2, 2)));
        let plain = density(&a);
        assert_eq!((plain[corner], plain[centre]), (2.0, 4.0));
        a.tight_tilt = t;
        let tilted = density(&a);
        assert!(
            (tilted[corner] - 2.0 * (-6.0 * t).exp()).abs() < 1e-12,
            "{tilted:?}"
        );
        assert!(
            (tilted[centre] - 4.0 * (-12.0 * t).exp()).abs() < 1e-12,
            "{tilted:?}"
        );
        // A hit at the centre: what its 3×3 square holds is not fresh. Of the
        // placements through the cell right of it, the one through the hit
        // (weighed 100 for it) and the one further right add the column
        // beyond the square, 3 cells; the two upright ones 6.
        a.cells[centre] = Known::Hit;
        let next = a.size.index(Cell::new(3, 2));
        let expected = 101.0 * (-3.0 * t).exp() + 2.0 * (-6.0 * t).exp();
        assert!(
            (density(&a)[next] - expected).abs() < 1e-9,
            "{:?}",
            density(&a)
        );
    }
}
