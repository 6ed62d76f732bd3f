//! `--resume` and `--final-views`: a connection that drops (its node died,
//! the server restarted) connects again with its token and rejoins its game;
//! every later state is checked to still show each shot acknowledged before
//! (the cluster's promise that an acknowledged move is never lost); at the
//! end every seat's last view is recorded so a server can be checked against
//! it.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use broadside_protocol::{ClientFrame, JoinRoom, Role};
use futures_util::StreamExt;
use serde_json::json;
use tokio::sync::watch;
use tokio::time::timeout_at;

use super::extras::hello;
use super::player::Player;
use super::shared::Shared;
use super::wire::{expect, open_within, read, send, View};
use super::{Setup, Stop, Ws, RETRY};

/// How long a dropped connection keeps trying to rejoin its game.
const RESUME_PATIENCE: Duration = Duration::from_secs(30);

/// Connects a player again with its token and rejoins the room (`--resume`).
pub(super) async fn resume(
    player: &mut Player<'_>,
    code: &str,
    setup: &Setup,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Stop> {
    let token = player.token.clone().ok_or(Stop::Failed)?;
    let give_up = Instant::now() + RESUME_PATIENCE;
    loop {
        let attempt: Result<Ws, Stop> = async {
            let mut ws = open_within(setup, shared, stop).await?;
            send(&mut ws, shared, &hello(Some(token.clone()), None)).await?;
            expect(&mut ws, "welcome", shared, stop).await?;
            send(&mut ws, shared, &join(code)).await?;
            expect(&mut ws, "room", shared, stop).await?;
            Ok(ws)
        }
        .await;
        match attempt {
            Ok(ws) => {
                player.ws = ws;
                shared.resumed.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            Err(Stop::Over) => return Err(Stop::Over),
            Err(Stop::Failed) if Instant::now() < give_up => {
                tokio::select! {
                    _ = tokio::time::sleep(RETRY) => {}
                    _ = stop.changed() => return Err(Stop::Over),
                }
            }
            Err(Stop::Failed) => return Err(Stop::Failed),
        }
    }
}

/// Forgets a player's move in flight (it may have been lost with a node):
/// the player decides again from its next state.
pub(super) fn forget_in_flight(
    player: &mut Player<'_>,
    p: usize,
    in_flight: &mut VecDeque<(usize, Instant)>,
) {
    player.pending = None;
    player.aiming = None;
    player.next_at = None;
    in_flight.retain(|&(shooter, _)| shooter != p);
}

/// Counts the acknowledged shots a new state no longer shows as shot (a new
/// game, in placement, starts the list afresh).
pub(super) fn check_acknowledged(player: &mut Player<'_>, view: Option<&View>, shared: &Shared) {
    let Some(view) = view else { return };
    if view.phase == "placement" || view.phase == "shop" {
        player.acked.clear();
        return;
    }
    let before = player.acked.len();
    player.acked.retain(|&(board, col, row)| {
        let shown = view
            .boards
            .iter()
            .find(|b| b.owner == Some(board))
            .and_then(|b| b.rows.get(row))
            .and_then(|line| line.as_bytes().get(col).copied());
        shown != Some(b'~')
    });
    let lost = before - player.acked.len();
    if lost > 0 {
        shared
            .lost_acknowledged
            .fetch_add(lost as u64, Ordering::Relaxed);
    }
}

/// Waits for the answers of the moves in flight (and whatever the room sends
/// with them) for a moment, then records every seat's last view.
pub(super) async fn record_final_views(players: &mut [Player<'_>], code: &str, shared: &Shared) {
    let give_up = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let mut heard = false;
        for player in players.iter_mut() {
            let quiet = tokio::time::Instant::now() + Duration::from_millis(300);
            while let Ok(Some(message)) = timeout_at(quiet.min(give_up), player.ws.next()).await {
                let Ok(Some(mut frame)) = read(Some(message), shared) else {
                    break;
                };
                heard = true;
                // A change out of step is not asked for again: the views
                // recorded are those the connection could follow.
                let _ = player.copy.follow(&mut frame);
                if frame.kind == "state" && frame.view.is_some() {
                    player.view = frame.view;
                }
            }
        }
        let waiting = players.iter().any(|p| p.pending.is_some());
        if (!heard && !waiting) || tokio::time::Instant::now() >= give_up {
            break;
        }
        for player in players.iter_mut() {
            player.pending = None;
        }
    }
    let mut views = shared.final_views.lock().unwrap_or_else(|e| e.into_inner());
    for player in players.iter() {
        if let (Some(view), Some(token)) = (&player.view, &player.token) {
            views.push(json!({"code": code, "token": token, "seat": view.seat,
                "phase": view.phase, "boards": view.boards}));
        }
    }
}

/// The `join_room` frame that takes a player's seat in room `code`.
pub(super) fn join(code: &str) -> ClientFrame {
    ClientFrame::JoinRoom(JoinRoom {
        code: code.to_owned(),
        role: Role::Player,
    })
}

#[cfg(test)]
mod tests {
    use super::super::wire::Board;
    use super::*;
    use tokio::net::TcpStream;

    /// A state that no longer shows an acknowledged shot counts it as lost,
    /// once; a new game's placement starts the list afresh.
    #[tokio::test]
    async fn acknowledged_shots_missing_from_a_later_state_are_counted() {
        let (ws, _) = ws_pair().await;
        let shared = Shared::new().expect("a histogram");
        let mut player = Player::new(ws, &shared);
        player.acked = vec![(1, 0, 0), (1, 2, 1)];
        let board = |rows: &[&str]| Board {
            owner: Some(1),
            rows: rows.iter().map(|r| r.to_string()).collect(),
        };
        let state = |phase: &str, rows: &[&str]| View {
            seat: Some(0),
            phase: phase.into(),
            to_move: vec![0],
            boards: vec![board(rows)],
        };
        let mut lost_after = |phase: &str, rows: &[&str]| {
            check_acknowledged(&mut player, Some(&state(phase, rows)), &shared);
            shared.lost_acknowledged.load(Ordering::Relaxed)
        };
        assert_eq!(lost_after("battle", &["o~~", "~~X"]), 0);
        assert_eq!(lost_after("battle", &["o~~", "~~~"]), 1);
        assert_eq!(lost_after("battle", &["o~~", "~~~"]), 1, "counted once");
        assert_eq!(lost_after("placement", &["~~~", "~~~"]), 1);
        assert!(player.acked.is_empty());
    }

    /// Both ends of a WebSocket over loopback.
    async fn ws_pair() -> (Ws, Ws) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let addr = listener.local_addr().expect("bound");
        let server = tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.expect("accepts");
            tokio_tungstenite::accept_async(tcp)
                .await
                .expect("upgrades")
        });
        let tcp = TcpStream::connect(addr).await.expect("connects");
        let (client, _) = tokio_tungstenite::client_async(format!("ws://{addr}/ws"), tcp)
            .await
            .expect("handshake");
        (client, server.await.expect("the server side"))
    }
}
