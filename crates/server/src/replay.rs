//! Replays of finished games over HTTP: `GET /api/games/<id>` (docs/protocol.md,
//! "Replays").
//!
//! A replay is rebuilt by the engine from the stored setup and command log:
//! every step is the stored command, its events and the all-seeing view after
//! it (`Game::replay_view`). Only finished games are shown — their secrets are
//! over — so a game still being played answers exactly like a game that does
//! not exist.
//!
//! **Built once.** A long game's replay is thousands of views: megabytes of
//! JSON and a fifth of a second of CPU. So it is built once — when the game
//! ends ([`prepare`], called by the room), or on the first request for a game
//! that ended before replays were kept — compressed with gzip, stored in the
//! database beside the game and kept in a bounded memory cache
//! (replay_cache.rs). Building and decompressing run on the cache's idle
//! thread, never on the CPU pool where bots think. A request then costs a
//! lookup: the compressed bytes go out as they are to every client that
//! accepts gzip, with a strong ETag and a year of `immutable` caching (a
//! finished game never changes), and `304 Not Modified` to a client that
//! already has them. Each address has a bucket of requests (429 with
//! `Retry-After` when it is empty).

use std::io::{Read, Write};
use std::net::IpAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use broadside_protocol::{codes, ApiError, Replay, ReplayStep};
use bytes::Bytes;
use futures_util::FutureExt;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::address::address_key;
use crate::context::RoomContext;
use crate::db::{SeatRecord, StoredGame};
use crate::replay_cache::{wait, Built, Failure, Flight};

/// How long a request waits for its replay to be built before it is told
/// to come back (the idle thread may be starved by a busy machine).
const BUILD_PATIENCE: Duration = Duration::from_secs(30);

/// Replays never change: a client (and any cache between) keeps one for a year.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// `GET /api/games/<id>` for the client at `ip` with the request's
/// `headers` (Accept-Encoding, If-None-Match): the replay of a finished
/// game, or 404.
pub async fn game(
    context: &Arc<RoomContext>,
    ip: IpAddr,
    id: &str,
    headers: &HeaderMap,
) -> Response {
    if let Err(retry) = context.replays.admit(address_key(ip)) {
        let mut response = answer(
            StatusCode::TOO_MANY_REQUESTS,
            &ApiError::new(codes::RATE_LIMITED),
        );
        let seconds = retry.as_secs().max(1).to_string();
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from_str(&seconds).expect("digits are a header value"),
        );
        return response;
    }
    // Only plain decimal ids: no sign, no spaces.
    let Some(id) = Some(id)
        .filter(|id| !id.is_empty() && id.len() <= 18 && id.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|id| id.parse::<i64>().ok())
    else {
        return not_found();
    };
    let built = match tokio::time::timeout(BUILD_PATIENCE, fetch(context, id)).await {
        Ok(Ok(built)) => built,
        Ok(Err(Failure::NotFound)) => return not_found(),
        Ok(Err(Failure::Busy)) | Err(_) => return busy(),
        Ok(Err(Failure::Internal(message))) => return internal(&message),
    };
    respond(context, &built, headers).await
}

/// Has the replay of game `id` built and stored soon, if it is a finished
/// game (the room calls this when its game ends). Runs on its own: nobody
/// waits for it.
pub fn prepare(context: &Arc<RoomContext>, id: i64) {
    let context = context.clone();
    tokio::spawn(async move {
        if let Err(Failure::Internal(message)) = fetch(&context, id).await {
            tracing::error!(game = id, error = %message, "the replay could not be built");
        }
    });
}

/// The replay of game `id`: from memory, from the store, or built — once,
/// however many ask at the same time.
async fn fetch(context: &Arc<RoomContext>, id: i64) -> Result<Arc<Built>, Failure> {
    match context.replays.begin(id) {
        Flight::Ready(built) => Ok(built),
        Flight::Wait(answer) => wait(answer).await,
        Flight::Lead(answer) => {
            // The work goes on even if this request goes away: others may
            // wait for it.
            let producer = context.clone();
            tokio::spawn(async move {
                // A panic is a bug: it fails this flight, not every later one.
                let produced = AssertUnwindSafe(produce(&producer, id))
                    .catch_unwind()
                    .await
                    .unwrap_or_else(|_| Err(Failure::Internal(format!("game {id}: a bug"))));
                producer.replays.finish(id, produced);
            });
            wait(answer).await
        }
    }
}

/// Reads the stored replay of game `id`, or builds and stores it.
async fn produce(context: &RoomContext, id: i64) -> Result<Arc<Built>, Failure> {
    let db = &context.db;
    let read = |error: crate::db::DbError| Failure::Internal(format!("game {id}: {error}"));
    if let Some((tag, gzip)) = db.load_replay(id).await.map_err(read)? {
        return Ok(Arc::new(Built {
            tag,
            gzip: Bytes::from(gzip),
        }));
    }
    let stored = match db.load_game(id).await.map_err(read)? {
        Some(stored) if stored.finished => stored,
        _ => return Err(Failure::NotFound),
    };
    let seats = match db.load_room(stored.room_code.clone()).await.map_err(read)? {
        Some((room, _)) => room.seats,
        None => Vec::new(),
    };
    let built = context
        .replays
        .run_idle(move || build(&stored, &seats))
        .await??;
    context.replays.count_build();
    tracing::info!(
        game = id,
        gzip_bytes = built.gzip.len(),
        builds = context.replays.builds(),
        cached_bytes = context.replays.memory_bytes(),
        "replay built"
    );
    if let Err(error) = db
        .store_replay(id, built.tag.clone(), built.gzip.to_vec(), context.now_ms())
        .await
    {
        // Served all the same; the next node or restart builds it again.
        tracing::warn!(game = id, %error, "the replay could not be stored");
    }
    Ok(Arc::new(built))
}

/// Builds a stored game's replay: its JSON, the JSON's tag and the JSON
/// compressed.
fn build(stored: &StoredGame, seats: &[SeatRecord]) -> Result<Built, Failure> {
    let replay = replay(stored, seats).map_err(|error| {
        Failure::Internal(format!("game {} does not replay: {error}", stored.id))
    })?;
    let json = serde_json::to_vec(&replay).expect("a replay is plain data and always serializes");
    let tag: String = Sha256::digest(&json)[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(json.len() / 8),
        flate2::Compression::default(),
    );
    encoder
        .write_all(&json)
        .and_then(|()| encoder.finish())
        .map(|gzip| Built {
            tag,
            gzip: Bytes::from(gzip),
        })
        .map_err(|error| Failure::Internal(format!("gzip: {error}")))
}

/// The answer for a built replay: gzip as stored to a client that takes it,
/// else the JSON (decompressed on the idle thread); 304 when the client
/// already has this representation.
async fn respond(context: &RoomContext, built: &Built, headers: &HeaderMap) -> Response {
    let gzip = accepts_gzip(headers);
    // Each representation has its own strong tag.
    let etag = if gzip {
        format!("\"{}.gz\"", built.tag)
    } else {
        format!("\"{}\"", built.tag)
    };
    let etag_value = HeaderValue::from_str(&etag).expect("hex digits are a header value");
    let mut response = if matches_etag(headers, &etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else if gzip {
        let mut response = (StatusCode::OK, built.gzip.clone()).into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        response
    } else {
        let compressed = built.gzip.clone();
        let json = context.replays.run_idle(move || gunzip(&compressed)).await;
        match json {
            Ok(Ok(json)) => (StatusCode::OK, json).into_response(),
            Ok(Err(error)) => return internal(&format!("a stored replay: {error}")),
            Err(Failure::Internal(message)) => return internal(&message),
            Err(_) => return busy(),
        }
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::ETAG, etag_value);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    response
}

fn gunzip(gzip: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut json = Vec::with_capacity(gzip.len() * 8);
    flate2::read::GzDecoder::new(gzip).read_to_end(&mut json)?;
    Ok(json)
}

/// Whether `Accept-Encoding` takes gzip (named, or `*`, with a q-value
/// above zero).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut gzip = None;
    let mut any = None;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let quality = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .filter_map(|q| q.trim().parse::<f32>().ok())
                .next()
                .unwrap_or(1.0);
            match coding.as_str() {
                "gzip" | "x-gzip" => gzip = Some(quality > 0.0),
                "*" => any = Some(quality > 0.0),
                _ => {}
            }
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// Whether `If-None-Match` names `etag` (or is `*`), compared weakly as
/// RFC 9110 has it for this header.
fn matches_etag(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|tag| tag.trim())
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

fn answer(status: StatusCode, body: &impl Serialize) -> Response {
    let body = serde_json::to_string(body).expect("replays and errors are plain data");
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn not_found() -> Response {
    answer(StatusCode::NOT_FOUND, &ApiError::new("not_found"))
}

/// The idle thread has too much waiting (or the machine is too busy to
/// build now): 503, come back in a few seconds.
fn busy() -> Response {
    let mut response = answer(
        StatusCode::SERVICE_UNAVAILABLE,
        &ApiError::new(codes::RATE_LIMITED),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

fn internal(message: &str) -> Response {
    tracing::error!(message, "replay");
    answer(
        StatusCode::INTERNAL_SERVER_ERROR,
        &ApiError::new(codes::INTERNAL),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn gzip_is_taken_when_named_or_starred_with_a_positive_quality() {
        for (accept, gzip) in [
            ("gzip, deflate, br", true),
            ("br;q=1.0, gzip;q=0.8", true),
            ("*", true),
            ("identity", false),
            ("gzip;q=0", false),
            ("gzip;q=0, *", false),
            ("*;q=0", false),
            ("x-gzip", true),
        ] {
            assert_eq!(
                accepts_gzip(&headers(&[("accept-encoding", accept)])),
                gzip,
                "{accept}"
            );
        }
        assert!(!accepts_gzip(&HeaderMap::new()), "no header: identity");
    }

    #[test]
    fn if_none_match_compares_weakly_and_takes_star() {
        let etag = "\"abc.gz\"";
        for (header, matched) in [
            ("\"abc.gz\"", true),
            ("W/\"abc.gz\"", true),
            ("\"x\", \"abc.gz\"", true),
            ("*", true),
            ("\"abc\"", false),
        ] {
            assert_eq!(
                matches_etag(&headers(&[("if-none-match", header)]), etag),
                matched,
                "{header}"
            );
        }
    }
}
