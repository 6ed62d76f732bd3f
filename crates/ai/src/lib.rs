//! Bots for Broadside. A bot sees exactly what a person in its seat sees — the
//! seat's [`View`] and the room's public [`Rules`] — and answers with the
//! [`Command`] that seat should send next.
//!
//! Architecture invariant: this crate never looks inside a [`broadside_engine::Game`]
//! on behalf of a seat; the only input of a decision is the seat's view.

use broadside_engine::{Cell, Command, Mode, Phase, Rules, SalvoMode, Target, View};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// How a bot chooses its shots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// A uniformly random targetable cell.
    Random,
}

impl Strategy {
    pub const ALL: [Strategy; 1] = [Strategy::Random];

    pub fn id(self) -> &'static str {
        match self {
            Strategy::Random => "random",
        }
    }

    pub fn from_id(id: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.id() == id)
    }
}

/// Difficulty levels offered to people, mapped onto strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Easy,
    Medium,
    Hard,
    Expert,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Easy, Level::Medium, Level::Hard, Level::Expert];

    pub fn id(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Expert => "expert",
        }
    }

    pub fn from_id(id: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.id() == id)
    }

    pub fn strategy(self) -> Strategy {
        Strategy::Random
    }
}

/// A bot for one seat. Keep one per seat for the whole game: strategies may
/// remember what they inferred.
#[derive(Clone, Debug)]
pub struct Bot {
    strategy: Strategy,
    rng: Pcg64Mcg,
}

impl Bot {
    pub fn new(strategy: Strategy, seed: u64) -> Self {
        Bot { strategy, rng: Pcg64Mcg::seed_from_u64(seed) }
    }

    pub fn for_level(level: Level, seed: u64) -> Self {
        Bot::new(level.strategy(), seed)
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Tells the bot what was announced, exactly as its seat receives it (the
    /// events of [`broadside_engine::Game::events_for`] for its seat). Drivers call
    /// this after every accepted command, before asking for the next move.
    pub fn observe(&mut self, _events: &[broadside_engine::Event]) {}

    /// The command the bot's seat should send now, or `None` when the seat has
    /// nothing to do. `view` must be the view of the bot's own seat.
    pub fn next_command(&mut self, view: &View, rules: &Rules) -> Option<Command> {
        let seat = view.seat?;
        if !view.to_move.contains(&seat) {
            return None;
        }
        match view.phase {
            Phase::Shop => Some(Command::Buy { seat, ships: default_purchase(rules) }),
            Phase::Placement => Some(Command::PlaceRandom { seat }),
            Phase::Battle => Some(self.battle_command(seat, view, rules)),
            Phase::Finished => None,
        }
    }

    fn battle_command(&mut self, seat: usize, view: &View, rules: &Rules) -> Command {
        let groups = target_groups(seat, view);
        if view.salvo_round {
            let per = rules.shots_per_opponent as usize;
            let mut shots = Vec::new();
            match rules.salvo {
                SalvoMode::Spread => {
                    for cells in &groups {
                        shots.extend(self.pick(cells, per));
                    }
                }
                SalvoMode::Focus => {
                    let live: Vec<&Vec<Target>> = groups.iter().filter(|g| !g.is_empty()).collect();
                    if let Some(cells) = live.choose(&mut self.rng) {
                        shots.extend(self.pick(cells, per * groups.len()));
                    }
                }
            }
            return Command::Salvo { seat, shots, action: None };
        }
        let all: Vec<Target> = groups.into_iter().flatten().collect();
        if rules.per_volley() {
            let left = rules.shots_per_turn as usize;
            let cells = self.pick(&all, left).into_iter().map(|t| t.at).collect();
            return Command::Volley { seat, cells };
        }
        let target = all[self.rng.random_range(0..all.len())];
        Command::Fire { seat, target }
    }

    fn pick(&mut self, cells: &[Target], count: usize) -> Vec<Target> {
        let mut cells = cells.to_vec();
        cells.shuffle(&mut self.rng);
        cells.truncate(count);
        cells
    }
}

/// The targetable cells of each opponent, as the view shows them: `~` (unknown)
/// and `!` (scanned ship part). In the shared sea each opponent is a block.
pub fn target_groups(seat: usize, view: &View) -> Vec<Vec<Target>> {
    let targetable = |ch: char| ch == '~' || ch == '!';
    match view.mode {
        Mode::SharedSea => {
            let board = &view.boards[0];
            let size = view.board_size;
            let blocks = view.blocks.as_deref().unwrap_or_default();
            blocks
                .iter()
                .filter(|b| !b.empty && !b.eliminated)
                .filter(|b| b.owner.is_none_or(|o| view.seats[o].team != view.seats[seat].team))
                .map(|b| {
                    let mut cells = Vec::new();
                    for row in 0..size.rows {
                        for col in 0..size.cols {
                            let at = Cell::new(b.origin.col + col, b.origin.row + row);
                            if targetable(board.at(at)) {
                                cells.push(Target { board: 0, at });
                            }
                        }
                    }
                    cells
                })
                .collect()
        }
        _ => view
            .boards
            .iter()
            .filter_map(|b| {
                let owner = b.owner?;
                let opponent = view.seats[owner].team != view.seats[seat].team && view.seats[owner].alive;
                opponent.then(|| {
                    let mut cells = Vec::new();
                    for (row, line) in b.rows.iter().enumerate() {
                        for (col, ch) in line.chars().enumerate() {
                            if targetable(ch) {
                                cells.push(Target { board: owner, at: Cell::new(col as u16, row as u16) });
                            }
                        }
                    }
                    cells
                })
            })
            .collect(),
    }
}

/// The default space fleet of R-7.3 (or its largest affordable prefix).
pub fn default_purchase(rules: &Rules) -> std::collections::BTreeMap<String, u32> {
    let mut credits = rules.credits;
    let mut ships = std::collections::BTreeMap::new();
    for id in broadside_engine::ships::SPACE_DEFAULT_FLEET {
        let Some(index) = rules.type_index(id) else { continue };
        let price = rules.catalogue[index].price;
        if price > credits {
            break;
        }
        credits -= price;
        *ships.entry(id.to_string()).or_insert(0) += 1;
    }
    ships
}
