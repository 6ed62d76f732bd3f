//! Bots for Broadside. A bot sees exactly what a person in its seat sees — the
//! seat's [`View`], the room's public [`Rules`] and the events announced to the
//! seat — and answers with the [`Command`] that seat should send next.
//!
//! Architecture invariant: this crate never looks inside a [`broadside_engine::Game`]
//! on behalf of a seat; the only inputs of a decision are the seat's view and
//! the events it observed (as [`broadside_engine::Game::events_for`] gives them).
//!
//! Strategies, weakest first: `random`, `hunt` (hunt and target with parity),
//! `density` (count the placements of the hidden ships) and `bayes` (sample whole
//! layouts consistent with everything known, see [`infer`]) and `admiral`
//! (bayes that, late in a duel, plays each likely shot out to the end against
//! the posterior's fleets, see [`rollout`]).

mod decide;
mod heur;
pub mod infer;
pub mod layout;
pub mod model;
mod prior;
pub mod rollout;
mod space_fleet;

use broadside_engine::{Command, Event, Phase, Rules, View};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// How a bot chooses its shots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// A uniformly random targetable cell.
    Random,
    /// Hunt on a parity lattice, then target the neighbours of hits.
    Hunt,
    /// Fire where most placements of the hidden ships overlap.
    Density,
    /// Fire where a ship most likely is, given everything observed.
    Bayes,
    /// Bayes, thinking ahead where it pays: late in a duel it plays the
    /// likeliest shots out to the end against fleets drawn from the
    /// posterior and takes another shot than bayes's only where that clearly
    /// sinks the fleet sooner.
    Admiral,
}

impl Strategy {
    pub const ALL: [Strategy; 5] = [
        Strategy::Random,
        Strategy::Hunt,
        Strategy::Density,
        Strategy::Bayes,
        Strategy::Admiral,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Hunt => "hunt",
            Strategy::Density => "density",
            Strategy::Bayes => "bayes",
            Strategy::Admiral => "admiral",
        }
    }

    pub fn from_id(id: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.id() == id)
    }

    /// Whether the bot varies its space fleet (the station instead of the
    /// dreadnought, at times), as easy and medium do; the stronger levels buy
    /// the fleet that wins more (docs/ai.md, "Space: the shop").
    pub fn varies_fleet(self) -> bool {
        matches!(self, Strategy::Random | Strategy::Hunt)
    }

    /// Whether the strategy uses the space scanner whenever it can, also
    /// while a hit waits to be finished: expert and admiral do; the levels
    /// below, and every level with italia's radar, look only while hunting
    /// with no likely cell in sight. A scanned ship part is a sure hit, and a
    /// sure hit is one more shot in a hit-again turn (docs/ai.md, "Space:
    /// abilities").
    pub fn keen_scanner(self) -> bool {
        matches!(self, Strategy::Bayes | Strategy::Admiral)
    }

    /// Whether the strategy fires its laser as soon as it is worth most of
    /// the shots it replaces (the admiral), rather than only where it beats
    /// them by a margin (docs/ai.md, "Space: abilities").
    pub fn keen_laser(self) -> bool {
        self == Strategy::Admiral
    }

    /// Whether the strategy, in games of three seats or more but space,
    /// hunts as if every fleet were kept tight ([`model::TIGHT_TILT`]), as
    /// the levels from medium up keep theirs: hard and up do (docs/ai.md,
    /// "Hiding from a suspicious hunter").
    pub fn suspects_tight(self) -> bool {
        matches!(
            self,
            Strategy::Density | Strategy::Bayes | Strategy::Admiral
        )
    }

    /// How hard the strategy hides its own fleet (see [`layout::Hiding`]):
    /// the levels above medium hide it from hunters that count placements,
    /// each more than the one below, and the admiral also from hunters that
    /// assume the engine's random placement (bayes). In games of three seats
    /// or more medium and up also keep their fleet tight
    /// ([`layout::tightest`]), and the admiral hides it from hunters that
    /// suspect as much ([`Strategy::suspects_tight`]). The counts below, and
    /// the measurements behind them, are in docs/ai.md, "Hiding the fleet".
    pub fn hiding(self) -> layout::Hiding {
        let (candidates, trials, prior_weight, tight, suspicious) = match self {
            Strategy::Random => (0, 0, 0.0, 0, false),
            Strategy::Hunt => (0, 0, 0.0, 8, false),
            Strategy::Density => (8, 4, 0.0, 64, false),
            Strategy::Bayes => (64, 4, 0.0, 64, false),
            Strategy::Admiral => (256, 16, 10.0, 256, true),
        };
        layout::Hiding {
            candidates,
            trials,
            prior_weight,
            tight,
            suspicious,
        }
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
    Admiral,
}

impl Level {
    pub const ALL: [Level; 5] = [
        Level::Easy,
        Level::Medium,
        Level::Hard,
        Level::Expert,
        Level::Admiral,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Expert => "expert",
            Level::Admiral => "admiral",
        }
    }

    pub fn from_id(id: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.id() == id)
    }

    pub fn strategy(self) -> Strategy {
        match self {
            Level::Easy => Strategy::Random,
            Level::Medium => Strategy::Hunt,
            Level::Hard => Strategy::Density,
            Level::Expert => Strategy::Bayes,
            Level::Admiral => Strategy::Admiral,
        }
    }
}

/// A bot for one seat. Keep one per seat for the whole game: it remembers the
/// announcements a view does not keep (hard-rule volley counts, hit types).
#[derive(Clone, Debug)]
pub struct Bot {
    strategy: Strategy,
    rng: Pcg64Mcg,
    memory: model::Memory,
    /// Which parity lattice the hunt strategy walks, drawn once per game.
    parity_offset: usize,
    /// This bot's own order among opponents it has no reason to prefer
    /// (see `decide::focus_victim`), fixed for the game.
    grudge: u64,
    effort: infer::Effort,
}

impl Bot {
    pub fn new(strategy: Strategy, seed: u64) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let parity_offset = rand::Rng::random_range(&mut rng, 0..4);
        Bot {
            strategy,
            rng,
            memory: model::Memory::default(),
            parity_offset,
            grudge: decide::mix(seed ^ 0x6772_7564_6765),
            effort: infer::Effort::default(),
        }
    }

    pub fn for_level(level: Level, seed: u64) -> Self {
        Bot::new(level.strategy(), seed)
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Sets how hard the `bayes` strategy thinks (tests use less to run fast).
    pub fn with_effort(mut self, effort: infer::Effort) -> Self {
        self.effort = effort;
        self
    }

    /// Tells the bot what was announced, exactly as its seat receives it (the
    /// events of [`broadside_engine::Game::events_for`] for its seat). Drivers call
    /// this after every accepted command, before asking for the next move.
    pub fn observe(&mut self, events: &[Event]) {
        self.memory.observe(events);
    }

    /// The command the bot's seat should send now, or `None` when the seat has
    /// nothing to do. `view` must be the view of the bot's own seat.
    pub fn next_command(&mut self, view: &View, rules: &Rules) -> Option<Command> {
        let seat = view.seat?;
        if !view.to_move.contains(&seat) {
            return None;
        }
        match view.phase {
            Phase::Shop => Some(Command::Buy {
                seat,
                ships: layout::purchase(rules, self.strategy.varies_fleet(), &mut self.rng),
            }),
            Phase::Placement => Some(
                match layout::layout(seat, self.strategy.hiding(), view, rules, &mut self.rng) {
                    Some(ships) => Command::Place { seat, ships },
                    None => Command::PlaceRandom { seat },
                },
            ),
            Phase::Battle => self.battle_command(seat, view, rules),
            Phase::Finished => None,
        }
    }
}

/// The default space fleet of R-7.3 (or its largest affordable prefix).
pub fn default_purchase(rules: &Rules) -> std::collections::BTreeMap<String, u32> {
    let mut credits = rules.credits;
    let mut ships = std::collections::BTreeMap::new();
    for id in broadside_engine::ships::SPACE_DEFAULT_FLEET {
        let Some(index) = rules.type_index(id) else {
            continue;
        };
        let price = rules.catalogue[index].price;
        if price > credits {
            break;
        }
        credits -= price;
        *ships.entry(id.to_string()).or_insert(0) += 1;
    }
    ships
}

/// The default fleet with the space station instead of the dreadnought, and a
/// fighter more if the credits saved pay for it; `None` without a dreadnought.
pub fn station_purchase(rules: &Rules) -> Option<std::collections::BTreeMap<String, u32>> {
    let mut ships = default_purchase(rules);
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
