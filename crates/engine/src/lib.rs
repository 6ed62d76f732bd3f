//! The rules engine of Broadside: the pure game logic of every preset of
//! `docs/rules.md`, with no IO, no clock and no global randomness.
//!
//! A [`Game`] is created from a [`Setup`], changed only through
//! [`Game::apply`] (commands in, [`Event`]s out, a typed [`RuleError`] and no
//! change on refusal), and read through [`Game::view`], which holds exactly what
//! one seat may know. The seeded generator lives inside the game, so a seed and
//! a list of commands replay a game exactly; [`Game::save`] and [`Game::load`]
//! carry it along.
//!
//! Architecture invariant: this crate knows nothing of sockets, files, clocks,
//! threads or JSON transports; rules live here and nowhere else.

pub mod command;
pub mod error;
pub mod game;
pub mod geometry;
pub mod intent;
pub mod placement;
pub mod rules;
pub mod ships;
pub mod view;

pub use command::{
    Action, ActionKind, Command, End, Event, Line, Phase, ScanCell, ShotResult, Target,
};
pub use error::RuleError;
pub use game::stats::{self, SeatStats, ShotCell};
pub use game::{action_area, Game, Status, RESERVE_FIGHTERS, RESERVE_TYPE};
pub use geometry::{label, parse_label, Cell, LabelError, LetterAxis, Size};
pub use intent::Intent;
pub use placement::Placement;
pub use rules::{CustomShip, Mode, Options, Preset, Report, Rules, SalvoMode, Setup};
pub use ships::{Shape, ShipAbility, ShipType};
pub use view::{
    AbilityView, BlockView, BoardView, LegalTargets, SeatView, ShipView, TargetWaters, View,
};
