//! Presets, room options and the resolved rule set of a game.
//!
//! Variants are data: a [`Rules`] value says everything in which presets differ,
//! and the engine reads it at the few points where behaviour changes.

use serde::{Deserialize, Serialize};

use crate::error::RuleError;
use crate::geometry::{LetterAxis, Size};
use crate::ships::{self, ShipType};

/// A named rule set with defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    Classic,
    Shared,
    Space,
    Brasil,
    Italia,
    Hasbro,
}

impl Preset {
    pub const ALL: [Preset; 6] = [
        Preset::Classic,
        Preset::Shared,
        Preset::Space,
        Preset::Brasil,
        Preset::Italia,
        Preset::Hasbro,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Preset::Classic => "classic",
            Preset::Shared => "shared",
            Preset::Space => "space",
            Preset::Brasil => "brasil",
            Preset::Italia => "italia",
            Preset::Hasbro => "hasbro",
        }
    }

    pub fn from_id(id: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.id() == id)
    }

    pub fn mode(self) -> Mode {
        match self {
            Preset::Shared => Mode::SharedSea,
            Preset::Space => Mode::Space,
            _ => Mode::FleetDuel,
        }
    }

    /// The seat counts the preset allows.
    pub fn max_seats(self) -> usize {
        match self {
            Preset::Brasil | Preset::Italia => 2,
            _ => 6,
        }
    }
}

/// How the seas are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    FleetDuel,
    SharedSea,
    Space,
}

/// How hits are reported in brasil.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Report {
    PerShot,
    PerVolley,
}

/// How a salvo is spread over the opponents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SalvoMode {
    Spread,
    Focus,
}

/// One entry of a custom fleet: `count` straight ships of `len` cells.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CustomShip {
    pub id: String,
    pub len: u16,
    pub count: u32,
}

/// The options a room may set; every field is optional and falls back to the
/// preset's default. Names are those of docs/rules.md and docs/referee.md.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub water_ring: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_again: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub salvo: Option<SalvoMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shots_per_opponent: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credits: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specials: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wide_uses: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bombard_uses: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radar_uses: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ships_may_touch: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cols: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<Vec<CustomShip>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shots_per_turn: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_shots_per_turn: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_seconds: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_seconds: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_seconds: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shop_seconds: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spectators_see_all: Option<bool>,
    /// Solo practice (an extension beyond docs/rules.md, for training and for
    /// measuring bots): two seats, seat 0 shoots at seat 1's fleet and seat 1
    /// never shoots, so seat 0 keeps the turn until the fleet is sunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub practice: Option<bool>,
}

/// Board sides allowed for custom boards.
pub const MIN_SIDE: u16 = 6;
pub const MAX_SIDE: u16 = 26;
/// Most ships a custom fleet may hold, to keep games sane.
pub const MAX_FLEET_SHIPS: u32 = 40;
/// Most shots per opponent in a salvo, and per turn.
pub const MAX_SHOTS: u32 = 10;
/// Most uses of one special per game.
pub const MAX_SPECIAL_USES: u32 = 20;

/// Everything that is needed to start a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Setup {
    pub preset: Preset,
    pub seats: usize,
    pub seed: u64,
    #[serde(default)]
    pub options: Options,
    /// A team number per seat, or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<Vec<u32>>,
}

/// The resolved rule set of one game: the preset's defaults with the room's
/// options applied and checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Rules {
    pub preset: Preset,
    pub mode: Mode,
    pub seats: usize,
    /// Size of one board (fleet duel, space) or of one block (shared sea).
    pub board: Size,
    pub letter_axis: LetterAxis,
    /// Every ship type that can appear in this game.
    pub catalogue: Vec<ShipType>,
    /// The fleet every seat places, as catalogue indices, largest ships first
    /// (empty in space, where each seat buys its own).
    pub fleet: Vec<usize>,
    pub water_ring: bool,
    pub hit_again: bool,
    /// Shots that make up one turn when hits do not grant more (brasil: 3).
    pub shots_per_turn: u32,
    /// Cap on shots in one turn under `hit_again` (space: 3).
    pub max_shots_per_turn: Option<u32>,
    pub report: Report,
    pub specials: bool,
    pub wide_uses: u32,
    pub bombard_uses: u32,
    pub radar_uses: u32,
    pub ships_may_touch: bool,
    pub salvo: SalvoMode,
    pub shots_per_opponent: u32,
    pub credits: u32,
    /// Team number per seat; every seat its own team when the room has none.
    pub teams: Vec<u32>,
    pub has_teams: bool,
    pub first: Option<usize>,
    pub turn_seconds: u32,
    pub round_seconds: u32,
    pub place_seconds: u32,
    pub shop_seconds: u32,
    pub spectators_see_all: bool,
    /// Solo practice: see [`Options::practice`].
    pub practice: bool,
}

fn bad(message: impl Into<String>) -> RuleError {
    RuleError::BadCommand(message.into())
}

impl Rules {
    /// Resolves a setup into rules, refusing anything out of range.
    pub fn resolve(setup: &Setup) -> Result<Rules, RuleError> {
        let preset = setup.preset;
        let options = &setup.options;
        let seats = setup.seats;
        if seats < 2 || seats > preset.max_seats() {
            return Err(bad(match preset.max_seats() {
                2 => format!("{} is played by 2 players", preset.id()),
                max => format!("{} is played by 2 to {max} players", preset.id()),
            }));
        }
        let (default_size, letter_axis) = match preset {
            Preset::Space => (Size::new(20, 10), LetterAxis::Rows),
            Preset::Brasil => (Size::new(15, 15), LetterAxis::Columns),
            Preset::Italia => (Size::new(16, 16), LetterAxis::Columns),
            _ => (Size::new(10, 10), LetterAxis::Rows),
        };
        let cols = options.cols.unwrap_or(default_size.cols);
        let rows = options.rows.unwrap_or(default_size.rows);
        for side in [cols, rows] {
            if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
                return Err(bad(format!(
                    "board sides must be {MIN_SIDE} to {MAX_SIDE} cells"
                )));
            }
        }
        let board = Size::new(cols, rows);

        let (mut catalogue, mut fleet) = match preset {
            Preset::Space => (ships::space_catalogue(), Vec::new()),
            _ => {
                let entries = match preset {
                    Preset::Hasbro => ships::hasbro_catalogue(),
                    Preset::Italia => ships::italia_catalogue(),
                    Preset::Brasil => ships::brasil_catalogue(),
                    _ => ships::classic_catalogue(),
                };
                expand(entries)
            }
        };
        if let Some(custom) = &options.fleet {
            if preset == Preset::Space {
                return Err(bad("a space fleet is bought in the shop"));
            }
            let (custom_catalogue, custom_fleet) = custom_fleet(custom, board)?;
            catalogue = custom_catalogue;
            fleet = custom_fleet;
        }
        // Largest ships first: random placement and the fit check work best so.
        fleet.sort_by_key(|&t| std::cmp::Reverse(catalogue[t].shape.len()));

        let ships_may_touch = options.ships_may_touch.unwrap_or(preset == Preset::Hasbro);
        let report = options.report.unwrap_or(Report::PerShot);
        if options.report.is_some() && preset != Preset::Brasil {
            return Err(bad("the report option belongs to brasil"));
        }
        // the ring is forced off under ships_may_touch, never used in the
        // shared sea, and the hard rule reveals no cells of a sunk ship.
        let water_ring = options.water_ring.unwrap_or(true)
            && !ships_may_touch
            && preset != Preset::Shared
            && report == Report::PerShot;
        let hit_again = options
            .hit_again
            .unwrap_or(!matches!(preset, Preset::Italia | Preset::Brasil));
        if preset == Preset::Brasil && options.hit_again == Some(true) {
            return Err(bad("brasil fires a fixed volley of shots each turn"));
        }
        let shots_per_turn = options
            .shots_per_turn
            .unwrap_or(if preset == Preset::Brasil { 3 } else { 1 });
        if !(1..=MAX_SHOTS).contains(&shots_per_turn) {
            return Err(bad(format!("shots_per_turn must be 1 to {MAX_SHOTS}")));
        }
        if shots_per_turn > 1 && hit_again {
            return Err(bad(
                "shots_per_turn above 1 cannot be combined with hit_again",
            ));
        }
        if report == Report::PerVolley && shots_per_turn < 2 {
            return Err(bad("the hard rule needs a volley of 2 or more shots"));
        }
        let max_shots_per_turn = match options.max_shots_per_turn {
            Some(n) if (1..=MAX_SHOTS).contains(&n) => Some(n),
            Some(_) => return Err(bad(format!("max_shots_per_turn must be 1 to {MAX_SHOTS}"))),
            None if preset == Preset::Space => Some(3),
            None => None,
        };
        let specials = options.specials.unwrap_or(preset == Preset::Italia);
        if specials && preset == Preset::Space {
            return Err(bad("space battles have abilities, not specials"));
        }
        let uses = |value: Option<u32>, default: u32| -> Result<u32, RuleError> {
            let n = value.unwrap_or(default);
            if n > MAX_SPECIAL_USES {
                return Err(bad(format!("special uses must be 0 to {MAX_SPECIAL_USES}")));
            }
            Ok(n)
        };
        let wide_uses = uses(options.wide_uses, 1)?;
        let bombard_uses = uses(options.bombard_uses, 1)?;
        let radar_uses = uses(options.radar_uses, 2)?;
        let shots_per_opponent = options.shots_per_opponent.unwrap_or(2);
        if !(1..=MAX_SHOTS).contains(&shots_per_opponent) {
            return Err(bad(format!("shots_per_opponent must be 1 to {MAX_SHOTS}")));
        }
        let credits = options.credits.unwrap_or(500);
        if options.credits.is_some() && preset != Preset::Space {
            return Err(bad("credits belong to the space battle"));
        }
        if !(10..=5000).contains(&credits) {
            return Err(bad("credits must be 10 to 5000"));
        }
        if let Some(first) = options.first {
            if first >= seats {
                return Err(bad("first must be a seat of this game"));
            }
        }
        let (teams, has_teams) = match &setup.teams {
            None => ((0..seats as u32).collect(), false),
            Some(teams) => {
                check_teams(teams, seats)?;
                (teams.clone(), true)
            }
        };
        let timer = |value: Option<u32>, default: u32| -> Result<u32, RuleError> {
            let n = value.unwrap_or(default);
            if n > 24 * 3600 {
                return Err(bad("timers are at most one day"));
            }
            Ok(n)
        };
        let rules = Rules {
            preset,
            mode: preset.mode(),
            seats,
            board,
            letter_axis,
            catalogue,
            fleet,
            water_ring,
            hit_again,
            shots_per_turn,
            max_shots_per_turn,
            report,
            specials,
            wide_uses,
            bombard_uses,
            radar_uses,
            ships_may_touch,
            salvo: options.salvo.unwrap_or(SalvoMode::Spread),
            shots_per_opponent,
            credits,
            teams,
            has_teams,
            first: options.first,
            turn_seconds: timer(options.turn_seconds, 60)?,
            round_seconds: timer(options.round_seconds, 90)?,
            place_seconds: timer(options.place_seconds, 180)?,
            shop_seconds: timer(options.shop_seconds, 120)?,
            spectators_see_all: options.spectators_see_all.unwrap_or(false),
            practice: options.practice.unwrap_or(false),
        };
        if rules.practice && (seats != 2 || rules.has_teams) {
            return Err(bad(
                "practice is played by one shooter against one fleet (2 seats)",
            ));
        }
        // The presets' own fleets on their own boards are known to fit (the
        // random placement tests show it); custom ones are checked.
        let custom = options.fleet.is_some() || options.cols.is_some() || options.rows.is_some();
        if custom && rules.mode != Mode::Space {
            let shapes: Vec<_> = rules
                .fleet
                .iter()
                .map(|&t| &rules.catalogue[t].shape)
                .collect();
            if !crate::placement::fleet_fits(board, &shapes, ships_may_touch) {
                return Err(RuleError::FleetDoesNotFit);
            }
        }
        Ok(rules)
    }

    /// The ship type of a catalogue index.
    pub fn ship_type(&self, type_index: usize) -> &ShipType {
        &self.catalogue[type_index]
    }

    /// The catalogue index of a ship type id.
    pub fn type_index(&self, id: &str) -> Option<usize> {
        self.catalogue.iter().position(|t| t.id == id)
    }

    pub fn same_team(&self, a: usize, b: usize) -> bool {
        self.teams[a] == self.teams[b]
    }

    /// Whether the brasil hard rule is in force.
    pub fn per_volley(&self) -> bool {
        self.report == Report::PerVolley
    }
}

fn expand(entries: Vec<(ShipType, u32)>) -> (Vec<ShipType>, Vec<usize>) {
    let mut catalogue = Vec::new();
    let mut fleet = Vec::new();
    for (index, (ship_type, count)) in entries.into_iter().enumerate() {
        catalogue.push(ship_type);
        fleet.extend(std::iter::repeat_n(index, count as usize));
    }
    (catalogue, fleet)
}

fn custom_fleet(
    custom: &[CustomShip],
    board: Size,
) -> Result<(Vec<ShipType>, Vec<usize>), RuleError> {
    if custom.is_empty() {
        return Err(bad("a fleet needs at least one ship"));
    }
    let mut total = 0u32;
    let mut entries = Vec::new();
    for (index, entry) in custom.iter().enumerate() {
        let id_ok = !entry.id.is_empty()
            && entry.id.len() <= 24
            && entry
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !id_ok {
            return Err(bad("ship ids are 1 to 24 letters, digits, '-' or '_'"));
        }
        if custom[..index].iter().any(|e| e.id == entry.id) {
            return Err(bad(format!("ship id '{}' is used twice", entry.id)));
        }
        if entry.len == 0 || entry.len > board.cols.max(board.rows) {
            return Err(RuleError::FleetDoesNotFit);
        }
        if entry.count == 0 {
            return Err(bad("every ship of a fleet needs a count of 1 or more"));
        }
        // Checked: counts come from clients, and a wrapped sum once let a fleet
        // of 2^32 ships past this limit.
        total = total.saturating_add(entry.count);
        if total > MAX_FLEET_SHIPS {
            return Err(bad(format!("a fleet has at most {MAX_FLEET_SHIPS} ships")));
        }
        let mut ship_type = ShipType {
            id: entry.id.clone(),
            name: entry.id.clone(),
            shape: ships::Shape::line(entry.len),
            price: 0,
            limit: 0,
            capital: false,
            ability: None,
        };
        ship_type.name = entry.id.clone();
        entries.push((ship_type, entry.count));
    }
    Ok(expand(entries))
}

fn check_teams(teams: &[u32], seats: usize) -> Result<(), RuleError> {
    if teams.len() != seats {
        return Err(bad("teams needs one team number per seat"));
    }
    if seats < 4 {
        return Err(bad("teams need four or more players"));
    }
    let mut distinct: Vec<u32> = teams.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < 2 {
        return Err(bad("teams need at least two teams"));
    }
    Ok(())
}
