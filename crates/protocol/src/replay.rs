//! The answers of `GET /api/games/<ID>` (docs/protocol.md, "Replays"): not a
//! WebSocket frame, but the same kind of contract for the same clients.

use broadside_engine::{Command, Event, Preset, SeatStats, View};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::server::SeatSummary;

/// The replay of a finished game, every view and event all-seeing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Replay {
    /// The game's number in the database.
    pub id: i64,
    pub preset: Preset,
    /// The room's seats.
    pub seats: Vec<SeatSummary>,
    /// When the game ended (unix milliseconds).
    pub finished_ms: Option<i64>,
    /// The view before the first command.
    pub initial: View,
    /// One per stored command, in order.
    pub steps: Vec<ReplayStep>,
    /// Each seat's shooting over the whole game.
    pub stats: Option<Vec<SeatStats>>,
}

/// One stored command of a replay, the events it caused and the view after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplayStep {
    /// The engine command exactly as stored, with its seat (`timeout` for a
    /// timer that ran out).
    pub command: Command,
    pub events: Vec<Event>,
    pub view: View,
}

/// The body of a replay request that failed: `not_found` (404),
/// `rate_limited` (429) or `internal` (500).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApiError {
    pub error: String,
}

impl ApiError {
    pub fn new(error: &str) -> ApiError {
        ApiError {
            error: error.to_string(),
        }
    }
}
