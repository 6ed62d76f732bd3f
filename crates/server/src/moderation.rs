//! Moderation among strangers: what a ban and a mute mean on a node.
//!
//! The operators act with `broadside admin` on the database
//! (`db::set_sanction`, which also logs the action). Every node follows the
//! operators' log ([`follow`]): within a second of a ban, every connection of
//! the banned person on every node is closed (4006), and a mute reaches
//! their connections. A banned person's `hello`, sign-in and rated play are
//! refused with `banned`; a muted person's chat lines with `muted`.
//! Blocks and reports are the players' own (connection/, room/).

use std::sync::{Arc, Weak};
use std::time::Duration;

use broadside_protocol::{codes, Refusal};

use crate::conns::Conns;
use crate::context::RoomContext;
use crate::db::Sanction;
use crate::lifecycle::Lifecycle;

/// How often a node reads the operators' log.
pub const FOLLOW_EVERY: Duration = Duration::from_millis(500);

/// Whether the person is banned at `now_ms`, and until when.
pub fn banned_until(sanction: Option<&Sanction>, now_ms: i64) -> Option<i64> {
    sanction
        .and_then(|s| s.banned_until_ms)
        .filter(|&until| until > now_ms)
}

/// Whether the person is muted at `now_ms`, and until when.
pub fn muted_until(sanction: Option<&Sanction>, now_ms: i64) -> Option<i64> {
    sanction
        .and_then(|s| s.muted_until_ms)
        .filter(|&until| until > now_ms)
}

/// The refusal of a banned person.
pub fn banned(until: i64) -> Refusal {
    Refusal::new(
        codes::BANNED,
        if until == i64::MAX {
            "this player is banned from this server".to_string()
        } else {
            format!("this player is banned from this server until {until} (unix ms)")
        },
    )
}

/// The refusal of a muted person's chat line.
pub fn muted(until: i64) -> Refusal {
    Refusal::new(
        codes::MUTED,
        format!("this player may not chat until {until} (unix ms)"),
    )
}

/// Follows the operators' log until shutdown: each new sanction reaches the
/// connections of its person on this node.
pub async fn follow(context: Arc<RoomContext>, conns: Weak<Conns>, lifecycle: Arc<Lifecycle>) {
    let _alive = lifecycle.alive_token();
    let mut shutdown = lifecycle.shutdown_signal();
    // Only what happens from now on: earlier bans are checked at `hello`.
    let mut seen = match context.db.moderation_log(1).await {
        Ok(lines) => lines.first().map_or(0, |line| line.id),
        Err(error) => {
            tracing::warn!(%error, "the operators' log could not be read");
            0
        }
    };
    let mut tick = tokio::time::interval(FOLLOW_EVERY);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = shutdown.changed() => return,
        }
        let Some(conns) = conns.upgrade() else { return };
        match context.db.sanctions_since(seen).await {
            Ok(changes) => {
                for (sanction, line) in changes {
                    seen = seen.max(line);
                    conns.sanction(&sanction, context.now_ms());
                }
            }
            Err(error) => tracing::warn!(%error, "the operators' log could not be read"),
        }
    }
}
