//! Replays of finished games over HTTP: `GET /api/games/<id>` (docs/protocol.md,
//! "Replays").
//!
//! A replay is rebuilt by the engine from the stored setup and command log,
//! never kept as a second copy: every step is the stored command, its events
//! and the all-seeing view after it (`Game::replay_view`). Only finished games
//! are shown — their secrets are over — so a game still being played answers
//! exactly like a game that does not exist. Rebuilding a long game is
//! thousands of commands, so it runs on the CPU pool under the client's
//! share, like any other heavy work a client asks for.

use std::net::IpAddr;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use broadside_protocol::{ApiError, Replay, ReplayStep};
use serde::Serialize;

use crate::context::RoomContext;
use crate::cpu::{CpuError, Key};
use crate::db::{SeatRecord, StoredGame};

/// `GET /api/games/<id>` for the client at `ip`: the replay of a finished
/// game, or 404. It reads the database and works on the pool, and needs
/// nothing else of the server.
pub async fn game(context: &RoomContext, ip: IpAddr, id: &str) -> Response {
    // Only plain decimal ids: no sign, no spaces.
    let Some(id) = Some(id)
        .filter(|id| !id.is_empty() && id.len() <= 18 && id.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|id| id.parse::<i64>().ok())
    else {
        return not_found();
    };
    let stored = match context.db.load_game(id).await {
        Ok(Some(stored)) if stored.finished => stored,
        Ok(_) => return not_found(),
        Err(error) => return internal(&format!("game {id} cannot be read: {error}")),
    };
    let seats = match context.db.load_room(stored.room_code.clone()).await {
        Ok(Some((room, _))) => room.seats,
        Ok(None) => Vec::new(),
        Err(error) => return internal(&format!("the room of game {id} cannot be read: {error}")),
    };
    match context
        .cpu
        .run(Key::Client(ip), move || replay(&stored, &seats))
        .await
    {
        Ok(Ok(replay)) => answer(StatusCode::OK, &replay),
        Ok(Err(error)) => internal(&format!("game {id} does not replay: {error}")),
        Err(CpuError::Busy) => answer(
            StatusCode::TOO_MANY_REQUESTS,
            &ApiError::new("rate_limited"),
        ),
        Err(CpuError::Failed) => internal(&format!("the replay of game {id} failed")),
    }
}

fn answer(status: StatusCode, body: &impl Serialize) -> Response {
    let body = serde_json::to_string(body).expect("replays and errors are plain data");
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn not_found() -> Response {
    answer(StatusCode::NOT_FOUND, &ApiError::new("not_found"))
}

fn internal(message: &str) -> Response {
    tracing::error!(message, "replay");
    answer(
        StatusCode::INTERNAL_SERVER_ERROR,
        &ApiError::new("internal"),
    )
}

/// Rebuilds a stored game step by step (`stored::replay`). The room's code
/// is left out: it is the invitation to the room, where a rematch may be
/// running.
fn replay(stored: &StoredGame, seats: &[SeatRecord]) -> Result<Replay, String> {
    let mut initial = None;
    let mut steps = Vec::with_capacity(stored.commands.len());
    let replayed =
        crate::stored::replay(&stored.setup, &stored.commands, |step| match step.command {
            None => initial = Some(step.game.replay_view()),
            Some((_, command)) => steps.push(ReplayStep {
                command: command.clone(),
                events: step.game.replay_events(step.events),
                view: step.game.replay_view(),
            }),
        })
        .map_err(|e| e.to_string())?;
    Ok(Replay {
        id: stored.id,
        preset: replayed.setup.preset,
        seats: crate::protocol::seat_summaries(seats),
        finished_ms: stored.finished_ms,
        initial: initial.expect("a replay shows the game as set up first"),
        steps,
        stats: replayed.game.stats(),
    })
}
