//! Why a command was refused. A refused command never changes the game.

use serde::{Deserialize, Serialize};

/// A refused command, with a stable code (docs/referee.md) that clients translate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum RuleError {
    #[error("bad command: {0}")]
    BadCommand(String),
    #[error("the game is over")]
    GameOver,
    #[error("this move is not possible in this phase of the game")]
    WrongPhase,
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("you cannot target your own waters")]
    OwnBoard,
    #[error("you cannot target a team-mate")]
    OwnTeam,
    #[error("there is no ship type '{0}' in this game")]
    UnknownShip(String),
    #[error("a fleet may hold only one capital ship (Dreadnought or Space Station)")]
    CapitalLimit,
    #[error("too many ships of type '{0}'")]
    TypeLimit(String),
    #[error("this fleet costs {cost} credits; you have {credits}")]
    OverBudget { cost: u32, credits: u32 },
    #[error("this fleet does not fit on the board")]
    FleetDoesNotFit,
    #[error("the ships placed are not the fleet of this game")]
    WrongFleet,
    #[error("outside the board")]
    OutOfBounds,
    #[error("ships must lie in your own waters")]
    OutsideOwnWaters,
    #[error("ships overlap")]
    ShipsOverlap,
    #[error("ships of one player may not touch, not even diagonally")]
    ShipsTouch,
    #[error("expected {expected} shots, got {got}")]
    WrongShotCount { expected: u32, got: u32 },
    #[error("a cell may be targeted only once per salvo")]
    DuplicateTarget,
    #[error("this ability is not available")]
    AbilityUnavailable,
    #[error("no uses of this special are left")]
    NoUsesLeft,
    #[error("this ability is not ready yet (ready in round {next_round})")]
    AbilityNotReady { next_round: u32 },
    #[error("that cell cannot be targeted")]
    NotTargetable,
    #[error("this seat has already submitted its salvo")]
    AlreadySubmitted,
}

impl RuleError {
    /// The stable identifier of docs/referee.md.
    pub fn code(&self) -> &'static str {
        match self {
            RuleError::BadCommand(_) => "bad_command",
            RuleError::GameOver => "game_over",
            RuleError::WrongPhase => "wrong_phase",
            RuleError::NotYourTurn => "not_your_turn",
            RuleError::OwnBoard => "own_board",
            RuleError::OwnTeam => "own_team",
            RuleError::UnknownShip(_) => "unknown_ship",
            RuleError::CapitalLimit => "capital_limit",
            RuleError::TypeLimit(_) => "type_limit",
            RuleError::OverBudget { .. } => "over_budget",
            RuleError::FleetDoesNotFit => "fleet_does_not_fit",
            RuleError::WrongFleet => "wrong_fleet",
            RuleError::OutOfBounds => "out_of_bounds",
            RuleError::OutsideOwnWaters => "outside_own_waters",
            RuleError::ShipsOverlap => "ships_overlap",
            RuleError::ShipsTouch => "ships_touch",
            RuleError::WrongShotCount { .. } => "wrong_shot_count",
            RuleError::DuplicateTarget => "duplicate_target",
            RuleError::AbilityUnavailable => "ability_unavailable",
            RuleError::NoUsesLeft => "no_uses_left",
            RuleError::AbilityNotReady { .. } => "ability_not_ready",
            RuleError::NotTargetable => "not_targetable",
            RuleError::AlreadySubmitted => "already_submitted",
        }
    }
}
