//! One seat played by the generator: its connection, what it last saw, the
//! frame it waits to have answered and the shots acknowledged to it.

use std::time::Instant;

use tokio::sync::watch;

use super::shared::Shared;
use super::wire::{open_within, View, ViewCopy};
use super::{Gauge, Setup, Stop, Ws};

/// What a player waits for after its own frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Expect {
    Ready,
    Shot,
    NewGame,
}

/// One seat played by the generator: a connection and what it knows.
pub(super) struct Player<'a> {
    pub(super) ws: Ws,
    pub(super) _open: Gauge<'a>,
    pub(super) view: Option<View>,
    /// The view as the last `state` or `change` left it.
    pub(super) copy: ViewCopy,
    /// The frame sent and not answered yet.
    pub(super) pending: Option<(Expect, Instant)>,
    /// When this player acts next.
    pub(super) next_at: Option<Instant>,
    /// The session token (to connect again with `--resume`).
    pub(super) token: Option<String>,
    /// The cell of the shot in flight, as `(board, col, row)`.
    pub(super) aiming: Option<(u64, usize, usize)>,
    /// The cells of this game's acknowledged shots: every later state must
    /// show them shot.
    pub(super) acked: Vec<(u64, usize, usize)>,
}

impl<'a> Player<'a> {
    pub(super) fn new(ws: Ws, shared: &'a Shared) -> Player<'a> {
        Player {
            ws,
            _open: Gauge::hold(&shared.connections),
            view: None,
            copy: ViewCopy::default(),
            pending: None,
            next_at: None,
            token: None,
            aiming: None,
            acked: Vec::new(),
        }
    }

    pub(super) fn seat(&self) -> Option<u64> {
        self.view.as_ref().and_then(|v| v.seat)
    }
}

/// Opens the connection of a player within `PATIENCE`, counting a failure.
pub(super) async fn connect<'a>(
    setup: &Setup,
    shared: &'a Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<Player<'a>, Stop> {
    let ws = open_within(setup, shared, stop).await?;
    Ok(Player::new(ws, shared))
}
