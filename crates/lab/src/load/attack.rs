//! The attack of `--expensive`: at the start of the measured window two
//! connections each open a room and send a flood of `set_options` frames
//! whose fleet takes the server a long fit check, and their answers are
//! counted (not as errors): do expensive frames queue up behind each other
//! while the probe and the games stay fast?

use std::sync::atomic::Ordering;
use std::sync::Arc;

use broadside_engine::{CustomShip, Options, Preset};
use broadside_protocol::{ClientFrame, CreateRoom, SetOptions};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::watch;
use tokio::time::timeout_at;
use tokio_tungstenite::tungstenite::Message;

use super::extras::{await_window, hello_extra, linger, Measuring, Window};
use super::shared::Shared;
use super::wire::{expect, open_within, read, send};
use super::{Gauge, Setup, Stop, Ws};

/// Connections of the attack of `--expensive`.
pub(super) const ATTACKERS: usize = 2;
/// The options of the attack's `set_options` frames: 40 ships of length 7 on
/// 26×26 cells, a fleet whose fit check is a long search (it does not fit).
fn expensive_options() -> Options {
    Options {
        cols: Some(26),
        rows: Some(26),
        fleet: Some(vec![CustomShip {
            id: "a".to_owned(),
            len: 7,
            count: 40,
        }]),
        ..Options::default()
    }
}

/// One connection of the attack: when the window opens it creates a room and
/// sends `frames` expensive `set_options` frames at once, then counts their
/// answers until all are in or the window is over.
pub(super) async fn attack_task(
    shared: Arc<Shared>,
    setup: Arc<Setup>,
    index: usize,
    frames: usize,
    mut window: Window,
    mut stop: watch::Receiver<bool>,
) {
    let measuring = Measuring(&shared.extras_measuring);
    let Ok(mut ws) = open_within(&setup, &shared, &mut stop).await else {
        return;
    };
    let _open = Gauge::hold(&shared.extra_connections);
    let result = attack(&mut ws, &shared, index, frames, &mut window, &mut stop).await;
    drop(measuring);
    if result.is_ok() {
        linger(&mut ws, &mut stop).await;
    }
}

async fn attack(
    ws: &mut Ws,
    shared: &Shared,
    index: usize,
    frames: usize,
    window: &mut Window,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Stop> {
    hello_extra(ws, &format!("load attack {index}"), shared, stop).await?;
    shared.extras_ready.fetch_add(1, Ordering::Relaxed);
    let (start, end) = await_window(ws, shared, window, stop).await?;
    send(
        ws,
        shared,
        &ClientFrame::CreateRoom(Box::new(CreateRoom {
            preset: Preset::Classic,
            seats: 2,
            options: None,
            teams: None,
            bots: Vec::new(),
            public: false,
            rated: false,
        })),
    )
    .await?;
    expect(ws, "room", shared, stop).await?;
    let text = ClientFrame::SetOptions(Box::new(SetOptions {
        options: Some(expensive_options()),
        ..SetOptions::default()
    }))
    .to_text();
    let (mut sink, mut stream) = ws.split();
    let sender = async {
        for _ in 0..frames {
            if sink.feed(Message::text(text.clone())).await.is_err() {
                return;
            }
            shared.expensive_sent.fetch_add(1, Ordering::Relaxed);
        }
        let _ = sink.flush().await;
    };
    let reader = async {
        let mut answers = 0;
        while answers < frames {
            let Ok(message) = timeout_at(end.into(), stream.next()).await else {
                return;
            };
            let Ok(frame) = read(message, shared) else {
                return;
            };
            let Some(frame) = frame else { continue };
            let kind = match frame.kind.as_str() {
                "room" => "room",
                "error" => frame.code.as_deref().unwrap_or("error"),
                _ => continue,
            };
            answers += 1;
            shared.expensive_answer(kind, start.elapsed());
        }
    };
    tokio::select! {
        _ = async { tokio::join!(timeout_at(end.into(), sender), reader) } => Ok(()),
        _ = stop.changed() => Err(Stop::Over),
    }
}
