//! The bot's own fleet: what it buys in the space shop and where it hides its
//! ships. Layouts are drawn from a mix of styles so that no single pattern
//! (edges, centre, clusters) is what a hunter can count on.

use std::collections::BTreeMap;

use broadside_engine::placement::Packer;
use broadside_engine::{Cell, Mode, Placement, Rules, Shape, Size, View};
use rand::Rng;

/// A sensible shop purchase: the default fleet, sometimes with the
/// space station (reserve) instead of the dreadnought (nuke) and the credits
/// left over spent on a fighter.
pub fn purchase<R: Rng>(rules: &Rules, rng: &mut R) -> BTreeMap<String, u32> {
    match station_purchase(rules) {
        Some(ships) if rng.random_bool(0.4) => ships,
        _ => crate::default_purchase(rules),
    }
}

/// The default fleet with the space station instead of the dreadnought, and a
/// fighter more if the credits saved pay for it; `None` without a dreadnought.
pub fn station_purchase(rules: &Rules) -> Option<BTreeMap<String, u32>> {
    let mut ships = crate::default_purchase(rules);
    if !ships.contains_key("dreadnought") {
        return None;
    }
    let price = |id: &str| rules.type_index(id).map(|i| rules.catalogue[i].price);
    let limit = |id: &str| {
        rules
            .type_index(id)
            .map(|i| rules.catalogue[i].limit)
            .unwrap_or(0)
    };
    let spent: u32 = ships
        .iter()
        .filter_map(|(id, n)| price(id).map(|p| p * n))
        .sum();
    let (dread, station, fighter) = (price("dreadnought")?, price("station")?, price("fighter")?);
    ships.remove("dreadnought");
    ships.insert("station".to_string(), 1);
    let left = rules.credits.saturating_sub(spent - dread + station);
    let fighters = ships.get("fighter").copied().unwrap_or(0);
    if left >= fighter && fighters < limit("fighter") {
        ships.insert("fighter".to_string(), fighters + 1);
    }
    Some(ships)
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

/// A layout for the seat's whole fleet, in board coordinates, or `None` when
/// the view does not say what to place.
pub fn layout<R: Rng>(
    seat: usize,
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
    let style = match rng.random_range(0..10) {
        0..=3 => Style::Plain,
        4..=5 => Style::Cold,
        6..=8 => Style::Spread,
        _ if rules.ships_may_touch => Style::Huddle,
        _ => Style::Spread,
    };
    let tries = match style {
        Style::Plain => 1,
        _ => 6,
    };
    let heat = heat_map(area, &shapes);
    let mut best: Option<(f64, Vec<(u8, Cell)>)> = None;
    for _ in 0..tries {
        let Some(found) = Packer::new(area, rules.ships_may_touch).fill(&shapes, rng) else {
            continue;
        };
        let cells: Vec<Vec<Cell>> = found
            .iter()
            .zip(&shapes)
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
    let (_, found) = best?;
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
