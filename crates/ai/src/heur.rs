//! The simpler strategies' scores: hunt-and-target with parity, and the classic
//! probability-density count. Higher scores are fired at first.

use crate::model::{Area, Known};

/// Hunt and target: fire next to open hits (along the line when two hits line
/// up), otherwise on a parity lattice of the smallest hidden ship.
pub fn hunt(area: &Area, parity_offset: usize) -> Vec<f64> {
    let size = area.size;
    let n = area.cells.len();
    let mut score = vec![0.0; n];
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
            if !area.cells[j].targetable() {
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
            if area.cells[i].targetable() {
                let c = size.cell(i);
                *s = if (c.col as usize + c.row as usize + parity_offset) % step == 0 {
                    1.0
                } else {
                    0.5
                };
            }
        }
    }
    for (i, s) in score.iter_mut().enumerate() {
        if !area.cells[i].targetable() {
            *s = 0.0;
        }
    }
    score
}

/// Probability density: every placement of every hidden ship that avoids known
/// water and sunk ships adds to its cells; placements through open hits weigh
/// far more, so hits are finished first.
pub fn density(area: &Area) -> Vec<f64> {
    let n = area.cells.len();
    let mut score = vec![0.0; n];
    let forbidden = area.closed_to_ships();
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
            let weight = count
                * if hits > 0 {
                    100.0f64.powi(hits as i32)
                } else {
                    1.0
                };
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
    use crate::model::test_area;

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
}
