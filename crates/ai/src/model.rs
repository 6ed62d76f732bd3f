//! What a seat knows about each opponent's waters, read from its view and from
//! the events it observed: the state of every cell and the ships still hidden
//! there. Every strategy decides from these [`Area`]s only.

use std::collections::{BTreeMap, BTreeSet};

use broadside_engine::{Cell, Event, Mode, Rules, Shape, Size, Target, View};

use crate::space_fleet::{guess_space_fleet, Fleet};

/// What the seat knows of one cell of an opponent's waters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Not shot and not revealed (`~`).
    Unknown,
    /// Certainly no intact ship part to find: a miss, a ring, a laser path, a
    /// scan, an empty block (`O . - =`).
    Water,
    /// A destroyed part of a ship that is not known to be sunk (`X ?`).
    Hit,
    /// A scanned ship part, still intact and targetable (`!`).
    Scanned,
    /// Fired in a hard-rule volley, result not known (`+`).
    Fired,
    /// A part of a sunk ship whose cells are known (`#`).
    Sunk,
}

impl Known {
    fn from_char(ch: char) -> Known {
        match ch {
            '~' => Known::Unknown,
            'X' | '?' => Known::Hit,
            '!' => Known::Scanned,
            '+' => Known::Fired,
            '#' => Known::Sunk,
            _ => Known::Water,
        }
    }

    /// Whether the seat may still shoot at the cell.
    pub fn targetable(self) -> bool {
        matches!(self, Known::Unknown | Known::Scanned)
    }

    /// Whether an intact or destroyed ship part is certainly there and must be
    /// explained by a hidden ship.
    pub fn must_be_ship(self) -> bool {
        matches!(self, Known::Hit | Known::Scanned)
    }
}

/// One ship the seat believes hidden in an area.
#[derive(Clone, Debug)]
pub struct HiddenShip {
    /// Index into [`Area::types`].
    pub kind: usize,
}

/// A hard-rule volley (or area special) of this seat on an area.
#[derive(Clone, Debug)]
pub struct VolleyFact {
    /// Local cell indices.
    pub cells: Vec<usize>,
    /// How many cells of each type of [`Area::types`] were hit.
    pub hits_by_kind: Vec<u32>,
}

/// One opponent's waters: a board (fleet duel, space) or a block of the shared sea.
#[derive(Clone, Debug)]
pub struct Area {
    pub board: usize,
    pub origin: Cell,
    pub size: Size,
    /// The owner, when the seat knows it.
    pub owner: Option<usize>,
    pub cells: Vec<Known>,
    /// The ship types that matter here: (type id, shape).
    pub types: Vec<(String, Shape)>,
    /// The ships to place in a hypothesis: the afloat ones, or under the hard
    /// rule the whole fleet (sunk cells are hidden there).
    pub ships: Vec<HiddenShip>,
    /// Ships of one owner may not touch.
    pub no_touch: bool,
    /// Hard rule: the hypothesis holds the whole fleet, and exactly
    /// `sunk_by_kind[t]` ships of kind t must lie on fired cells only.
    pub hard: bool,
    pub sunk_by_kind: Vec<u32>,
    pub volleys: Vec<VolleyFact>,
    /// Brasil easy rule: the ship type each announced hit belongs to.
    pub hit_kind: Vec<Option<usize>>,
    /// Sunk ships whose cells are known: (kind, local cells).
    pub sunk_ships: Vec<(usize, Vec<usize>)>,
    /// Per kind, its index in the rules' catalogue (the engine places a fleet
    /// largest first, then in catalogue order).
    pub ranks: Vec<usize>,
    /// Whether to assume the fleet was laid by the engine's random placement
    /// rather than uniformly among all legal layouts.
    pub sequential_prior: bool,
    /// How much less likely the sampler takes a ship placement for each cell
    /// it covers or touches that no known ship part (a hit, a scanned or
    /// sunk part) covers or touches, as `exp(-tight_tilt)` per cell: 0 for
    /// the prior alone. Fleets in games of three seats or more are kept
    /// tight (docs/ai.md, "Salvo games: the hunters suspect a tight
    /// fleet").
    pub tight_tilt: f64,
}

/// The tilt towards tight fleets (`Area::tight_tilt`) that hard and up hunt
/// with in games of three seats or more but space, where the levels from
/// medium up keep their fleet tight. This value wins back most of the shots
/// a tight fleet costs for little against a fleet laid at random; a larger
/// one costs more there and wins no more (docs/ai.md, "Salvo games: the
/// hunters suspect a tight fleet").
pub const TIGHT_TILT: f64 = 0.3;

impl Area {
    /// An area of unknown cells hiding one ship of each type, under the plain
    /// rules (no hard-rule volleys, no hit types, a uniform prior).
    pub fn plain(size: Size, types: Vec<(String, Shape)>, no_touch: bool) -> Area {
        let n = size.cell_count();
        Area {
            board: 0,
            origin: Cell::new(0, 0),
            size,
            owner: None,
            cells: vec![Known::Unknown; n],
            hit_kind: vec![None; n],
            sunk_by_kind: vec![0; types.len()],
            ships: (0..types.len()).map(|kind| HiddenShip { kind }).collect(),
            ranks: (0..types.len()).collect(),
            types,
            no_touch,
            hard: false,
            volleys: Vec::new(),
            sunk_ships: Vec::new(),
            sequential_prior: false,
            tight_tilt: 0.0,
        }
    }

    pub fn target(&self, index: usize) -> Target {
        let local = self.size.cell(index);
        Target {
            board: self.board,
            at: Cell::new(self.origin.col + local.col, self.origin.row + local.row),
        }
    }

    pub fn local_index(&self, at: Cell) -> Option<usize> {
        if at.col < self.origin.col || at.row < self.origin.row {
            return None;
        }
        let local = Cell::new(at.col - self.origin.col, at.row - self.origin.row);
        self.size.contains(local).then(|| self.size.index(local))
    }

    pub fn targetable(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.cells.len()).filter(|&i| self.cells[i].targetable())
    }

    /// Calls `f(rotation, cells)` for every placement of ship type `kind` on
    /// the area that avoids the `closed` cells, rotation by rotation, then
    /// row by row; `rotation` numbers the type's distinct rotations that fit
    /// the board.
    pub fn for_each_placement(
        &self,
        kind: usize,
        closed: &[bool],
        mut f: impl FnMut(usize, &[usize]),
    ) {
        let size = self.size;
        let fitting = self.types[kind]
            .1
            .distinct_rotations()
            .into_iter()
            .filter(|(_, s)| s.width() <= size.cols && s.height() <= size.rows);
        let mut cells = Vec::new();
        for (rotation, (_, shape)) in fitting.enumerate() {
            for row in 0..=size.rows - shape.height() {
                'place: for col in 0..=size.cols - shape.width() {
                    cells.clear();
                    for &(x, y) in shape.cells() {
                        let index = (row + y) as usize * size.cols as usize + (col + x) as usize;
                        if closed[index] {
                            continue 'place;
                        }
                        cells.push(index);
                    }
                    f(rotation, &cells);
                }
            }
        }
    }

    /// Cells no hidden ship can cover: known water, sunk ships and, where ships
    /// may not touch, every neighbour of a sunk ship.
    pub fn closed_to_ships(&self) -> Vec<bool> {
        let mut closed: Vec<bool> = self
            .cells
            .iter()
            .map(|k| matches!(k, Known::Water | Known::Sunk))
            .collect();
        if self.no_touch {
            for (i, known) in self.cells.iter().enumerate() {
                if *known == Known::Sunk {
                    for c in self.size.neighbours(self.size.cell(i)) {
                        closed[self.size.index(c)] = true;
                    }
                }
            }
        }
        closed
    }

    /// Hits (or scanned parts) not yet explained by a sunk ship.
    pub fn open_hits(&self) -> usize {
        self.cells.iter().filter(|k| k.must_be_ship()).count()
    }

    /// Hidden ship cells still to be found (intact parts of afloat ships).
    pub fn cells_to_find(&self) -> usize {
        if self.hard {
            let total: usize = self.ships.iter().map(|s| self.types[s.kind].1.len()).sum();
            let fired_hits = self.cells.iter().filter(|k| **k == Known::Hit).count();
            // Fired cells of unknown result hold some of the rest; count them as half.
            let fired = self.cells.iter().filter(|k| **k == Known::Fired).count();
            total.saturating_sub(fired_hits + fired / 2).max(1)
        } else {
            let total: usize = self.ships.iter().map(|s| self.types[s.kind].1.len()).sum();
            let hits = self.cells.iter().filter(|k| **k == Known::Hit).count();
            total.saturating_sub(hits).max(1)
        }
    }

    fn kind_of(&mut self, id: &str, rules: &Rules) -> Option<usize> {
        if let Some(k) = self.types.iter().position(|(t, _)| t == id) {
            return Some(k);
        }
        let index = rules.type_index(id)?;
        self.types
            .push((id.to_string(), rules.catalogue[index].shape.clone()));
        self.ranks.push(index);
        Some(self.types.len() - 1)
    }
}

/// A seat's own waters: its board, or its block of the shared sea.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waters {
    pub board: usize,
    pub origin: Cell,
    pub size: Size,
}

impl Waters {
    /// `seat`'s waters as `view` shows them; `None` where the view does not
    /// say which they are (another seat's secret block of the shared sea).
    pub fn of(seat: usize, view: &View, rules: &Rules) -> Option<Waters> {
        match view.mode {
            Mode::SharedSea => view
                .blocks
                .as_deref()?
                .iter()
                .find(|b| b.owner == Some(seat))
                .map(|b| Waters {
                    board: 0,
                    origin: b.origin,
                    size: rules.board,
                }),
            _ => view
                .boards
                .iter()
                .position(|b| b.owner == Some(seat))
                .map(|board| Waters {
                    board,
                    origin: Cell::new(0, 0),
                    size: view.board_size,
                }),
        }
    }

    fn holds(self, board: usize, cell: Cell) -> bool {
        board == self.board
            && cell.col >= self.origin.col
            && cell.row >= self.origin.row
            && self.size.contains(Cell::new(
                cell.col - self.origin.col,
                cell.row - self.origin.row,
            ))
    }
}

/// What a bot remembers from the events it observed: the facts a view does not
/// keep (hard-rule volley counts, hit types of the brasil easy rule).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    volleys: Vec<(usize, usize, Vec<Cell>, Vec<String>)>,
    typed_hits: Vec<(usize, Cell, String)>,
    /// Per seat, the cells this bot foresaw it firing at in the salvo round
    /// being played (see `decide.rs`), checked when the round resolves.
    foreseen: BTreeMap<usize, BTreeSet<(usize, Cell)>>,
    /// Per seat: foreseen cells it did fire at, and cells foreseen.
    foresight: BTreeMap<usize, (u32, u32)>,
    /// Per shooter, every shot it was seen firing: (board, cell).
    shots: BTreeMap<usize, Vec<(usize, Cell)>>,
}

impl Memory {
    /// How often the cells this bot foresaw `seat` firing at in a salvo round
    /// were where it fired: near 1 for a seat that ranks cells as this bot
    /// does, near 0 for one that shoots at random or aims otherwise. With no
    /// evidence yet, an even chance.
    pub fn foresees(&self, seat: usize) -> f64 {
        let (right, foreseen) = self.foresight.get(&seat).copied().unwrap_or((0, 0));
        // Two pseudo-observations, one of each.
        (right as f64 + 1.0) / (foreseen as f64 + 2.0)
    }

    /// How much of `shooter`'s fire went at `waters`, the seat's own
    /// board or block: its shots there over all its shots, with one
    /// pseudo-shot at each of the `seats` (a seat not seen firing yet counts
    /// as shooting at random).
    pub fn shoots_at(&self, shooter: usize, waters: Waters, seats: usize) -> f64 {
        let shots = self.shots.get(&shooter).map_or(&[][..], Vec::as_slice);
        let at = shots.iter().filter(|&&(b, c)| waters.holds(b, c)).count();
        (at as f64 + 1.0) / (shots.len() as f64 + seats.max(1) as f64)
    }

    /// Notes the cells this bot foresees `seat` firing at in this salvo round.
    pub fn foresee(&mut self, seat: usize, cells: BTreeSet<(usize, Cell)>) {
        self.foreseen.insert(seat, cells);
    }

    pub fn observe(&mut self, events: &[Event]) {
        let mut fired: BTreeMap<usize, BTreeSet<(usize, Cell)>> = BTreeMap::new();
        for event in events {
            if let Event::Shot {
                shooter, board, at, ..
            } = event
            {
                fired.entry(*shooter).or_default().insert((*board, *at));
            }
        }
        // A round resolved: check what was foreseen of each seat.
        if !fired.is_empty() {
            for (seat, cells) in std::mem::take(&mut self.foreseen) {
                let right = fired
                    .get(&seat)
                    .map_or(0, |f| cells.intersection(f).count());
                let entry = self.foresight.entry(seat).or_default();
                entry.0 += right as u32;
                entry.1 += cells.len() as u32;
            }
        }
        for event in events {
            if let Event::Shot {
                shooter, board, at, ..
            } = event
            {
                self.shots.entry(*shooter).or_default().push((*board, *at));
            }
            match event {
                Event::Volley {
                    shooter,
                    board,
                    cells,
                    types_hit,
                    ..
                } => {
                    self.volleys
                        .push((*shooter, *board, cells.clone(), types_hit.clone()));
                }
                Event::Shot {
                    board,
                    at,
                    ship: Some(ship),
                    ..
                } => {
                    self.typed_hits.push((*board, *at, ship.clone()));
                }
                _ => {}
            }
        }
    }
}

/// The opponents' areas the seat may shoot at, as the view shows them.
pub fn areas(seat: usize, view: &View, rules: &Rules, memory: &Memory) -> Vec<Area> {
    let my_team = view.seats[seat].team;
    let mut out = Vec::new();
    match view.mode {
        Mode::SharedSea => {
            let board = &view.boards[0];
            for block in view.blocks.as_deref().unwrap_or_default() {
                if block.empty || block.eliminated {
                    continue;
                }
                if block.owner.is_some_and(|o| view.seats[o].team == my_team) {
                    continue;
                }
                let cells = read_cells(board, block.origin, rules.board);
                out.push(build(
                    view,
                    rules,
                    memory,
                    seat,
                    0,
                    block.origin,
                    rules.board,
                    block.owner,
                    cells,
                ));
            }
        }
        _ => {
            for board in &view.boards {
                let Some(owner) = board.owner else { continue };
                if view.seats[owner].team == my_team || !view.seats[owner].alive {
                    continue;
                }
                let cells = read_cells(board, Cell::new(0, 0), view.board_size);
                out.push(build(
                    view,
                    rules,
                    memory,
                    seat,
                    owner,
                    Cell::new(0, 0),
                    view.board_size,
                    Some(owner),
                    cells,
                ));
            }
        }
    }
    out
}

fn read_cells(board: &broadside_engine::BoardView, origin: Cell, size: Size) -> Vec<Known> {
    size.cells()
        .map(|c| Known::from_char(board.at(Cell::new(origin.col + c.col, origin.row + c.row))))
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn build(
    view: &View,
    rules: &Rules,
    memory: &Memory,
    seat: usize,
    board: usize,
    origin: Cell,
    size: Size,
    owner: Option<usize>,
    cells: Vec<Known>,
) -> Area {
    let hard = rules.per_volley();
    let mut area = Area {
        board,
        origin,
        size,
        owner,
        cells,
        types: Vec::new(),
        ships: Vec::new(),
        no_touch: !rules.ships_may_touch,
        hard,
        sunk_by_kind: Vec::new(),
        volleys: Vec::new(),
        hit_kind: Vec::new(),
        sunk_ships: Vec::new(),
        ranks: Vec::new(),
        // A space fleet is bought, so its composition is a guess.
        sequential_prior: view.mode != Mode::Space,
        tight_tilt: 0.0,
    };
    // Sunk ships whose cells the view shows, in this area.
    let mut sunk_here: Vec<String> = Vec::new();
    for ship in &view.ships {
        if !ship.sunk || ship.cells.is_empty() || owner.is_some_and(|o| o != ship.owner) {
            continue;
        }
        let local: Option<Vec<usize>> = ship.cells.iter().map(|&c| area.local_index(c)).collect();
        if let Some(local) = local {
            if let Some(k) = area.kind_of(&ship.ship_type, rules) {
                area.sunk_ships.push((k, local));
            }
            sunk_here.push(ship.ship_type.clone());
        }
    }
    let fleet: Fleet = match owner.and_then(|o| view.seats[o].fleet.clone()) {
        Some(fleet) => fleet,
        None if view.mode == Mode::Space => {
            let o = owner.expect("space boards always have an owner");
            let seat = &view.seats[o];
            guess_space_fleet(rules, &seat.sunk, seat.ships_afloat, seat.ships_total)
        }
        None => {
            let mut fleet = Fleet::new();
            for &t in &rules.fleet {
                *fleet.entry(rules.catalogue[t].id.clone()).or_insert(0) += 1;
            }
            fleet
        }
    };
    let mut remaining = fleet.clone();
    if hard {
        // The whole fleet is hidden; the sunk types come from the seat list.
        let sunk = owner
            .map(|o| view.seats[o].sunk.clone())
            .unwrap_or_default();
        for (id, count) in &fleet {
            if let Some(k) = area.kind_of(id, rules) {
                for _ in 0..*count {
                    area.ships.push(HiddenShip { kind: k });
                }
            }
        }
        area.sunk_by_kind = vec![0; area.types.len()];
        for id in sunk {
            if let Some(k) = area.types.iter().position(|(t, _)| *t == id) {
                area.sunk_by_kind[k] += 1;
            }
        }
        for (shooter, b, cells, types_hit) in &memory.volleys {
            if *shooter != seat || *b != board {
                continue;
            }
            let local: Vec<usize> = cells.iter().filter_map(|&c| area.local_index(c)).collect();
            let mut hits_by_kind = vec![0; area.types.len()];
            for id in types_hit {
                if let Some(k) = area.types.iter().position(|(t, _)| t == id) {
                    hits_by_kind[k] += 1;
                }
            }
            area.volleys.push(VolleyFact {
                cells: local,
                hits_by_kind,
            });
        }
    } else {
        for id in &sunk_here {
            if let Some(n) = remaining.get_mut(id) {
                *n = n.saturating_sub(1);
            }
        }
        for (id, count) in &remaining {
            if let Some(k) = area.kind_of(id, rules) {
                for _ in 0..*count {
                    area.ships.push(HiddenShip { kind: k });
                }
            }
        }
        area.sunk_by_kind = vec![0; area.types.len()];
        area.hit_kind = vec![None; area.cells.len()];
        for (b, at, id) in &memory.typed_hits {
            if *b != board {
                continue;
            }
            if let (Some(i), Some(k)) = (
                area.local_index(*at),
                area.types.iter().position(|(t, _)| t == id),
            ) {
                if area.cells[i] == Known::Hit {
                    area.hit_kind[i] = Some(k);
                }
            }
        }
    }
    // Largest ships first: they are the hardest to fit.
    let types = area.types.clone();
    area.ships
        .sort_by_key(|s| std::cmp::Reverse(types[s.kind].1.len()));
    area
}

/// Counts the cells a ship placement covers or touches that no known ship
/// part (a hit, a scanned or sunk part) already covers or touches: what the
/// tight tilt (`Area::tight_tilt`) weighs a placement by.
pub struct FreshCells {
    size: Size,
    /// Cells a known ship part covers or touches.
    covered: Vec<bool>,
    /// The last placement that counted each cell, so each counts once.
    seen: Vec<u32>,
    stamp: u32,
}

impl FreshCells {
    pub fn new(area: &Area) -> FreshCells {
        let size = area.size;
        let known = |i: usize| area.cells[i].must_be_ship() || area.cells[i] == Known::Sunk;
        let covered = (0..area.cells.len())
            .map(|i| known(i) || size.neighbours(size.cell(i)).any(|c| known(size.index(c))))
            .collect();
        FreshCells {
            size,
            covered,
            seen: vec![u32::MAX; area.cells.len()],
            stamp: 0,
        }
    }

    /// The fresh cells of one placement, given by its cells' indices.
    pub fn count(&mut self, cells: impl IntoIterator<Item = usize>) -> usize {
        let mut fresh = 0;
        self.visit(cells, |_, covered| fresh += usize::from(!covered));
        fresh
    }

    /// Calls `f` once for each cell one placement (its cells' indices)
    /// covers or touches, with whether a known ship part covers or touches
    /// that cell.
    pub fn visit(
        &mut self,
        cells: impl IntoIterator<Item = usize>,
        mut f: impl FnMut(usize, bool),
    ) {
        self.stamp = self.stamp.wrapping_add(1);
        for i in cells {
            let around = self.size.neighbours(self.size.cell(i));
            for j in std::iter::once(i).chain(around.map(|c| self.size.index(c))) {
                if self.seen[j] != self.stamp {
                    self.seen[j] = self.stamp;
                    f(j, self.covered[j]);
                }
            }
        }
    }

    /// Per cell, whether a known ship part covers or touches it.
    pub fn into_covered(self) -> Vec<bool> {
        self.covered
    }
}

/// An area for unit tests, from view rows (`~` unknown, `X` hit, `!` scanned,
/// `#` sunk, `+` fired with unknown result, anything else water), hiding one straight ship of each length.
#[cfg(test)]
pub(crate) fn test_area(rows: &[&str], lengths: &[u16], no_touch: bool) -> Area {
    let cells: Vec<Known> = rows
        .iter()
        .flat_map(|r| r.chars())
        .map(|ch| match ch {
            '~' => Known::Unknown,
            'X' => Known::Hit,
            '!' => Known::Scanned,
            '#' => Known::Sunk,
            '+' => Known::Fired,
            _ => Known::Water,
        })
        .collect();
    let types: Vec<(String, Shape)> = lengths
        .iter()
        .map(|&len| (format!("ship{len}"), Shape::line(len)))
        .collect();
    let mut area = Area::plain(
        Size::new(rows[0].len() as u16, rows.len() as u16),
        types,
        no_touch,
    );
    area.board = 1;
    area.owner = Some(1);
    area.cells = cells;
    area
}

#[cfg(test)]
mod tests {
    use super::*;
    use broadside_engine::{Options, Preset, Setup};

    fn space_rules() -> Rules {
        Rules::resolve(&Setup {
            preset: Preset::Space,
            seats: 2,
            seed: 1,
            options: Options::default(),
            teams: None,
        })
        .expect("space rules")
    }

    /// the count is all a seat shows of a space fleet. Fourteen ships
    /// is the default fleet; fifteen or more (the reserve adds fighters) is
    /// the fleet with the space station, which a dreadnought cannot explain.
    #[test]
    fn the_space_fleet_guess_follows_the_public_count() {
        let rules = space_rules();
        let default = crate::default_purchase(&rules);
        let default_count: u32 = default.values().sum();
        assert_eq!(
            guess_space_fleet(&rules, &[], default_count, default_count),
            default
        );
        let station = crate::station_purchase(&rules).expect("a dreadnought to swap");
        let station_count: u32 = station.values().sum();
        assert_eq!(station_count, default_count + 1);
        let guess = guess_space_fleet(&rules, &[], station_count, station_count);
        assert_eq!(guess, station);
        assert!(!guess.contains_key("dreadnought"));
        // After a reserve: three fighters more, afloat and in total.
        let guess = guess_space_fleet(&rules, &[], station_count + 3, station_count + 3);
        assert_eq!(guess.get("station"), Some(&1));
        assert_eq!(guess["fighter"], station["fighter"] + 3);
        // A sunk station is taken off the guess.
        let guess = guess_space_fleet(
            &rules,
            &["station".to_string()],
            station_count - 1,
            station_count,
        );
        assert!(!guess.contains_key("station") && !guess.contains_key("dreadnought"));
    }

    /// What a purchase costs, or `None` if the engine's shop would refuse it
    ///
    fn legal_cost(rules: &Rules, fleet: &Fleet) -> Option<u32> {
        let game = broadside_engine::Game::new(&Setup {
            preset: Preset::Space,
            seats: 2,
            seed: 1,
            options: Options::default(),
            teams: None,
        })
        .expect("a space game");
        game.check_purchase(fleet).ok()?;
        fleet
            .iter()
            .map(|(id, &n)| Some(n * rules.catalogue[rules.type_index(id)?].price))
            .sum()
    }

    /// A fleet unlike the bots' is guessed from the shop, not from the
    /// default fleet: seventeen small ships are not searched for a capital
    /// ship and two cruisers, which the credits could not have paid for.
    #[test]
    fn an_unusual_space_fleet_is_guessed_from_what_the_shop_allows() {
        let rules = space_rules();
        let guess = guess_space_fleet(&rules, &[], 17, 17);
        assert_eq!(guess.values().sum::<u32>(), 17, "{guess:?}");
        assert_eq!(legal_cost(&rules, &guess), Some(rules.credits), "{guess:?}");
        // Fewer ships than the default: a few big ones, still affordable.
        let guess = guess_space_fleet(&rules, &[], 9, 9);
        assert_eq!(guess.values().sum::<u32>(), 9, "{guess:?}");
        assert!(legal_cost(&rules, &guess).is_some(), "{guess:?}");
        // Three corvettes sunk: the default has one, so the guess has three
        // and the count afloat is what is left.
        let sunk = vec!["corvette".to_string(); 3];
        let guess = guess_space_fleet(&rules, &sunk, 11, 14);
        assert_eq!(guess.values().sum::<u32>(), 11, "{guess:?}");
        assert!(!guess.contains_key("corvette"), "{guess:?}");
        let mut bought = guess.clone();
        bought.insert("corvette".to_string(), 3);
        assert!(legal_cost(&rules, &bought).is_some(), "{bought:?}");
    }

    /// Every legal purchase, drawn at random, is explained by a legal guess
    /// that holds its sunk types and its count afloat.
    #[test]
    fn every_legal_space_fleet_gets_a_legal_guess() {
        use rand::{Rng, SeedableRng};
        let rules = space_rules();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let shop: Vec<usize> = (0..rules.catalogue.len())
            .filter(|&i| rules.catalogue[i].price > 0)
            .collect();
        let mut checked = 0;
        while checked < 300 {
            let mut fleet = Fleet::new();
            for _ in 0..rng.random_range(1..20) {
                let t = &rules.catalogue[shop[rng.random_range(0..shop.len())]];
                *fleet.entry(t.id.clone()).or_insert(0) += 1;
            }
            if legal_cost(&rules, &fleet).is_none() {
                continue;
            }
            checked += 1;
            let total: u32 = fleet.values().sum();
            let mut list: Vec<String> = fleet
                .iter()
                .flat_map(|(id, &n)| std::iter::repeat_n(id.clone(), n as usize))
                .collect();
            let keep = rng.random_range(1..=list.len());
            let sunk = list.split_off(keep);
            let guess = guess_space_fleet(&rules, &sunk, keep as u32, total);
            assert_eq!(
                guess.values().sum::<u32>(),
                keep as u32,
                "{fleet:?} {sunk:?} {guess:?}"
            );
            let mut bought = guess.clone();
            for id in &sunk {
                *bought.entry(id.clone()).or_insert(0) += 1;
            }
            assert!(
                legal_cost(&rules, &bought).is_some(),
                "{fleet:?} {sunk:?} {bought:?}"
            );
        }
    }
}
