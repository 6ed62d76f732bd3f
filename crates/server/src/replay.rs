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

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use broadside_engine::{Command, Game, Setup};
use serde_json::{json, Value};

use crate::cpu::{CpuError, Key};
use crate::db::{SeatRecord, StoredGame};
use crate::server::{ClientAddr, Shared};

/// `GET /api/games/<id>`: the replay of a finished game, or 404.
pub async fn game(
    State(shared): State<Arc<Shared>>,
    Extension(ClientAddr(ip)): Extension<ClientAddr>,
    Path(id): Path<String>,
) -> Response {
    // Only plain decimal ids: no sign, no spaces.
    let Some(id) = Some(id.as_str())
        .filter(|id| !id.is_empty() && id.len() <= 18 && id.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|id| id.parse::<i64>().ok())
    else {
        return not_found();
    };
    let stored = match shared.db.load_game(id).await {
        Ok(Some(stored)) if stored.finished => stored,
        Ok(_) => return not_found(),
        Err(error) => return internal(&format!("game {id} cannot be read: {error}")),
    };
    let seats = match shared.db.load_room(stored.room_code.clone()).await {
        Ok(Some((room, _))) => room.seats,
        Ok(None) => Vec::new(),
        Err(error) => return internal(&format!("the room of game {id} cannot be read: {error}")),
    };
    match shared
        .cpu
        .run(Key::Client(ip), move || replay(&stored, &seats))
        .await
    {
        Ok(Ok(replay)) => answer(StatusCode::OK, &replay),
        Ok(Err(error)) => internal(&format!("game {id} does not replay: {error}")),
        Err(CpuError::Busy) => answer(
            StatusCode::TOO_MANY_REQUESTS,
            &json!({"error": "rate_limited"}),
        ),
        Err(CpuError::Failed) => internal(&format!("the replay of game {id} failed")),
    }
}

fn answer(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn not_found() -> Response {
    answer(StatusCode::NOT_FOUND, &json!({"error": "not_found"}))
}

fn internal(message: &str) -> Response {
    eprintln!("broadside: replay: {message}");
    answer(
        StatusCode::INTERNAL_SERVER_ERROR,
        &json!({"error": "internal"}),
    )
}

/// Rebuilds a stored game step by step. The room's code is left out: it is
/// the invitation to the room, where a rematch may be running.
fn replay(stored: &StoredGame, seats: &[SeatRecord]) -> Result<Value, String> {
    let setup: Setup = serde_json::from_str(&stored.setup).map_err(|e| e.to_string())?;
    let mut game = Game::new(&setup).map_err(|e| e.to_string())?;
    let initial = game.replay_view();
    let mut steps = Vec::with_capacity(stored.commands.len());
    for (index, text) in stored.commands.iter().enumerate() {
        let command: Command = serde_json::from_str(text)
            .map_err(|e| format!("command {} is unreadable: {e}", index + 1))?;
        let events = game
            .apply(command.clone())
            .map_err(|e| format!("command {} no longer applies: {e}", index + 1))?;
        steps.push(json!({
            "command": command,
            "events": game.replay_events(&events),
            "view": game.replay_view(),
        }));
    }
    let seats: Vec<Value> = seats
        .iter()
        .enumerate()
        .map(|(seat, s)| json!({"seat": seat, "kind": s.kind, "nickname": s.nickname, "level": s.level}))
        .collect();
    Ok(json!({
        "id": stored.id,
        "preset": setup.preset.id(),
        "seats": seats,
        "finished_ms": stored.finished_ms,
        "initial": initial,
        "steps": steps,
        "stats": game.stats(),
    }))
}
