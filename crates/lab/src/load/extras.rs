//! What the probe and the attack share: their connections say hello, wait
//! for the measured window (answering the server's pings meanwhile), and stay
//! open after their measurement until the run is over.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use broadside_protocol::{ClientFrame, Hello};
use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::time::timeout_at;
use tokio_tungstenite::tungstenite::Message;

use super::shared::Shared;
use super::wire::{expect, read, send};
use super::{Stop, Ws};

/// Counts down `Shared::extras_measuring` when dropped: the measurement of
/// a probe or attack task is over (or has failed).
pub(super) struct Measuring<'a>(pub(super) &'a AtomicUsize);

impl Drop for Measuring<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Keeps a probe or attack connection open after its measurement, reading and
/// dropping what arrives, until the run is over; then says goodbye.
pub(super) async fn linger(ws: &mut Ws, stop: &mut watch::Receiver<bool>) {
    while !*stop.borrow_and_update() {
        tokio::select! {
            message = ws.next() => match message {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                Some(Ok(_)) => {}
            },
            changed = stop.changed() => {
                if changed.is_err() {
                    break;
                }
            }
        }
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    let _ = timeout_at(deadline, ws.close(None)).await;
}

/// The measured window, `(start, end)`, once it is open.
pub(super) type Window = watch::Receiver<Option<(Instant, Instant)>>;

/// Waits for the measured window to open while reading `ws` (which answers
/// the server's pings, so a long ramp does not close an idle connection).
pub(super) async fn await_window(
    ws: &mut Ws,
    shared: &Shared,
    window: &mut Window,
    stop: &mut watch::Receiver<bool>,
) -> Result<(Instant, Instant), Stop> {
    loop {
        if let Some(open) = *window.borrow_and_update() {
            return Ok(open);
        }
        tokio::select! {
            changed = window.changed() => {
                if changed.is_err() {
                    return Err(Stop::Over);
                }
            }
            message = ws.next() => {
                if let Some(frame) = read(message, shared)? {
                    if frame.kind == "error" {
                        shared.error_frame(frame.code.as_deref().unwrap_or("error"));
                    }
                }
            }
            _ = stop.changed() => return Err(Stop::Over),
        }
    }
}

/// Says hello on a new connection of the probe or the attack and waits for
/// the welcome.
pub(super) async fn hello_extra(
    ws: &mut Ws,
    nickname: &str,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Stop> {
    send(ws, shared, &hello(None, Some(nickname.to_owned()))).await?;
    expect(ws, "welcome", shared, stop).await?;
    Ok(())
}

/// The `hello` of a generator's connection: in English, with the token of a
/// returning player or the nickname of a new one.
pub(super) fn hello(token: Option<String>, nickname: Option<String>) -> ClientFrame {
    ClientFrame::Hello(Hello {
        token,
        nickname,
        lang: Some("en".to_owned()),
    })
}
