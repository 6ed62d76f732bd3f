//! Commands (what a seat asks for) and events (what happened).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::geometry::Cell;
use crate::placement::Placement;

/// A cell of a board: the owner's seat in fleet duel and space, 0 in the shared sea.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Target {
    pub board: usize,
    pub at: Cell,
}

/// Where a laser enters its column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// Row A, the first row.
    Top,
    /// The last row.
    Bottom,
}

/// A whole row or a whole column (air bombardment, R-10.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Line {
    Row(u16),
    Column(u16),
}

/// Something used instead of a shot: a space ability or an italia special
///
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    Laser {
        board: usize,
        column: u16,
        from: End,
    },
    Scanner {
        board: usize,
        center: Cell,
    },
    Nuke {
        board: usize,
        at: Cell,
    },
    /// Fighters on the player's own field; random cells when `cells` is `None`.
    Reserve {
        /// The opponent whose shots the reserve replaces in a salvo round.
        board: Option<usize>,
        cells: Option<Vec<Cell>>,
    },
    Wide {
        board: usize,
        center: Cell,
    },
    Bombard {
        board: usize,
        line: Line,
    },
    Radar {
        board: usize,
        center: Cell,
    },
}

/// The kinds of [`Action`], with the stable ids used in views and answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Laser,
    Scanner,
    Nuke,
    Reserve,
    Wide,
    Bombard,
    Radar,
}

impl ActionKind {
    pub fn id(self) -> &'static str {
        match self {
            ActionKind::Laser => "laser",
            ActionKind::Scanner => "scanner",
            ActionKind::Nuke => "nuke",
            ActionKind::Reserve => "reserve",
            ActionKind::Wide => "wide",
            ActionKind::Bombard => "bombard",
            ActionKind::Radar => "radar",
        }
    }

    /// Whether this is an italia special rather than a ship's ability.
    pub fn is_special(self) -> bool {
        matches!(
            self,
            ActionKind::Wide | ActionKind::Bombard | ActionKind::Radar
        )
    }
}

impl Action {
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Laser { .. } => ActionKind::Laser,
            Action::Scanner { .. } => ActionKind::Scanner,
            Action::Nuke { .. } => ActionKind::Nuke,
            Action::Reserve { .. } => ActionKind::Reserve,
            Action::Wide { .. } => ActionKind::Wide,
            Action::Bombard { .. } => ActionKind::Bombard,
            Action::Radar { .. } => ActionKind::Radar,
        }
    }

    /// The board the action aims at, if it aims at one.
    pub fn board(&self) -> Option<usize> {
        match *self {
            Action::Laser { board, .. }
            | Action::Scanner { board, .. }
            | Action::Nuke { board, .. }
            | Action::Wide { board, .. }
            | Action::Bombard { board, .. }
            | Action::Radar { board, .. } => Some(board),
            Action::Reserve { board, .. } => board,
        }
    }
}

/// Everything a seat (or the clock) can ask of a game. [`crate::Game::apply`] is
/// the only way to change a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Command {
    /// Space shop: the whole fleet of a seat.
    Buy {
        seat: usize,
        ships: BTreeMap<String, u32>,
    },
    /// The whole fleet at once; the seat is then ready.
    Place { seat: usize, ships: Vec<Placement> },
    /// The whole fleet placed at random.
    PlaceRandom { seat: usize },
    /// One shot in a duel.
    Fire { seat: usize, target: Target },
    /// A brasil hard-rule volley.
    Volley { seat: usize, cells: Vec<Cell> },
    /// An ability or special in a duel.
    Ability { seat: usize, action: Action },
    /// A secret salvo in a round of three or more.
    Salvo {
        seat: usize,
        shots: Vec<Target>,
        action: Option<Action>,
    },
    /// The running timer expires.
    Timeout,
    /// The seat gives up.
    Resign { seat: usize },
}

/// The outcome of one shot on one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShotResult {
    Miss,
    Hit,
    Sunk,
}

/// The phases of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Shop,
    Placement,
    Battle,
    Finished,
}

impl Phase {
    pub fn id(self) -> &'static str {
        match self {
            Phase::Shop => "shop",
            Phase::Placement => "placement",
            Phase::Battle => "battle",
            Phase::Finished => "finished",
        }
    }
}

/// What happened. Events go to every viewer through
/// [`crate::Game::events_for`], which removes what a viewer may not know.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A seat bought its fleet; only the number of ships is public.
    Bought {
        seat: usize,
        ships: u32,
    },
    /// A seat placed its fleet and is ready.
    Ready {
        seat: usize,
    },
    PhaseChanged {
        phase: Phase,
    },
    /// A duel turn begins.
    TurnStarted {
        seat: usize,
    },
    /// A salvo round begins; `to_move` are the seats that must submit.
    RoundStarted {
        round: u32,
        first: usize,
        to_move: Vec<usize>,
    },
    /// A seat submitted its secret salvo (the content stays secret until the round resolves).
    SalvoSubmitted {
        seat: usize,
    },
    /// One cell was shot. `ship` names the type only where the rules announce it:
    /// on a sinking, and on every hit in the brasil easy rule.
    Shot {
        shooter: usize,
        board: usize,
        at: Cell,
        result: ShotResult,
        #[serde(skip_serializing_if = "Option::is_none")]
        ship: Option<String>,
    },
    /// A brasil hard-rule volley (or an area special under the hard rule): only
    /// counts and types are announced.
    Volley {
        shooter: usize,
        board: usize,
        cells: Vec<Cell>,
        hits: u32,
        types_hit: Vec<String>,
        sunk: Vec<String>,
    },
    /// Cells revealed as water without a shot (water ring, laser path).
    Revealed {
        board: usize,
        cells: Vec<Cell>,
    },
    /// A ship sank. `cells` is `None` where the hard rule keeps them hidden.
    Sunk {
        owner: usize,
        ship: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cells: Option<Vec<Cell>>,
    },
    /// An ability or special was used.
    ActionUsed {
        seat: usize,
        kind: ActionKind,
        #[serde(skip_serializing_if = "Option::is_none")]
        board: Option<usize>,
    },
    /// A private scan (scanner, radar): seen only by the seat and its team.
    Scan {
        seat: usize,
        board: usize,
        cells: Vec<ScanCell>,
    },
    /// Reserve fighters arrived; the cells are seen only by the seat and its team.
    Reinforced {
        seat: usize,
        count: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        cells: Option<Vec<Cell>>,
    },
    Resigned {
        seat: usize,
    },
    Eliminated {
        seat: usize,
    },
    GameOver {
        winners: Vec<usize>,
        draw: bool,
    },
}

/// One scanned cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScanCell {
    pub at: Cell,
    pub ship: bool,
}
