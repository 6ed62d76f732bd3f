//! The probe of `--probe-ms`: one connection without a room pings the
//! server on a fixed schedule through the measured window and times each
//! `pong`, to show whether cheap frames stay fast under load or an attack.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use broadside_protocol::ClientFrame;
use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::time::sleep_until;

use super::extras::{await_window, hello_extra, linger, Measuring, Window};
use super::shared::Shared;
use super::wire::{open_within, read, send};
use super::{Gauge, Setup, Stop, Ws, PATIENCE};

/// The probe: one connection without a room that sends a `ping` every
/// `interval` through the measured window and records the time to each
/// `pong` (the server answers the frames of one connection in order).
pub(super) async fn probe_task(
    shared: Arc<Shared>,
    setup: Arc<Setup>,
    interval: Duration,
    mut window: Window,
    mut stop: watch::Receiver<bool>,
) {
    let measuring = Measuring(&shared.extras_measuring);
    let Ok(mut ws) = open_within(&setup, &shared, &mut stop).await else {
        return;
    };
    let _open = Gauge::hold(&shared.extra_connections);
    let result = probe(&mut ws, &shared, interval, &mut window, &mut stop).await;
    drop(measuring);
    if result.is_ok() {
        linger(&mut ws, &mut stop).await;
    }
}

async fn probe(
    ws: &mut Ws,
    shared: &Shared,
    interval: Duration,
    window: &mut Window,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Stop> {
    hello_extra(ws, "load probe", shared, stop).await?;
    shared.extras_ready.fetch_add(1, Ordering::Relaxed);
    let (start, end) = await_window(ws, shared, window, stop).await?;
    let mut next = start;
    // When each ping whose pong is awaited was sent, oldest first.
    let mut waiting: VecDeque<Instant> = VecDeque::new();
    let lose = |waiting: &VecDeque<Instant>| {
        shared
            .pings_lost
            .fetch_add(waiting.len() as u64, Ordering::Relaxed);
    };
    loop {
        let sending = next < end;
        let overdue = waiting.front().map(|&sent| sent + PATIENCE);
        let timer = match (sending, overdue) {
            (true, Some(overdue)) => next.min(overdue),
            (true, None) => next,
            (false, Some(overdue)) => overdue,
            (false, None) => return Ok(()),
        };
        tokio::select! {
            message = ws.next() => {
                let frame = match read(message, shared) {
                    Ok(Some(frame)) => frame,
                    Ok(None) => continue,
                    Err(stop) => {
                        lose(&waiting);
                        return Err(stop);
                    }
                };
                match frame.kind.as_str() {
                    "pong" => {
                        if let Some(sent) = waiting.pop_front() {
                            shared.ping(sent.elapsed());
                        }
                    }
                    "error" => {
                        shared.error_frame(frame.code.as_deref().unwrap_or("error"));
                        // A ping dropped by the frame limit is never answered,
                        // and a pong carries no id: the pings awaited now can
                        // no longer be told apart, so none of them is timed.
                        lose(&waiting);
                        waiting.clear();
                    }
                    _ => {}
                }
            }
            _ = sleep_until(timer.into()) => {
                let now = Instant::now();
                if overdue.is_some_and(|overdue| now >= overdue) {
                    lose(&waiting);
                    shared.timeouts.fetch_add(1, Ordering::Relaxed);
                    return Err(Stop::Failed);
                }
                if sending && now >= next {
                    let sent = Instant::now();
                    send(ws, shared, &ClientFrame::Ping).await?;
                    waiting.push_back(sent);
                    shared.pings_sent.fetch_add(1, Ordering::Relaxed);
                    // On schedule; after a stall of the generator, one ping
                    // at once and the schedule from there.
                    next = (next + interval).max(now);
                }
            }
            _ = stop.changed() => {
                lose(&waiting);
                return Err(Stop::Over);
            }
        }
    }
}
