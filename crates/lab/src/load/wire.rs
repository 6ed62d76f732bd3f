//! The generator's side of the WebSocket protocol: opening connections (on
//! loopback from many source addresses), sending frames, and reading the
//! parts of the server's frames it needs (docs/protocol.md).

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering;

use anyhow::Result;
use broadside_protocol::ClientFrame;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;
use tokio::time::timeout_at;
use tokio_tungstenite::tungstenite::Message;

use super::shared::Shared;
use super::{Setup, Stop, Ws, PATIENCE};

/// The parts of a server frame the generator reads; the rest is skipped.
#[derive(Deserialize)]
pub(super) struct Frame {
    #[serde(rename = "type")]
    pub(super) kind: String,
    /// The stream number of a `state` or `change`.
    #[serde(default)]
    seq: u64,
    /// The view of a `state`, or the changed fields of a `change`.
    #[serde(default, rename = "view")]
    fields: Option<ViewFields>,
    /// The changed cells of a `change`.
    #[serde(default)]
    cells: Vec<CellChange>,
    /// The whole view, once [`ViewCopy::follow`] has read the frame.
    #[serde(skip)]
    pub(super) view: Option<View>,
    #[serde(default)]
    pub(super) events: Vec<Event>,
    #[serde(default)]
    pub(super) room: Option<Room>,
    /// The code of an `error`.
    #[serde(default)]
    pub(super) code: Option<String>,
    /// The refused frame's type, on an `error`.
    #[serde(default)]
    pub(super) request: Option<String>,
    /// The session token, on `welcome`.
    #[serde(default)]
    pub(super) token: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Room {
    pub(super) code: String,
}

#[derive(Clone, Deserialize, serde::Serialize)]
pub(super) struct View {
    pub(super) seat: Option<u64>,
    pub(super) phase: String,
    pub(super) to_move: Vec<u64>,
    pub(super) boards: Vec<Board>,
}

#[derive(Clone, Deserialize, serde::Serialize)]
pub(super) struct Board {
    pub(super) owner: Option<u64>,
    pub(super) rows: Vec<String>,
}

#[derive(Deserialize)]
pub(super) struct Event {
    pub(super) event: String,
    #[serde(default)]
    pub(super) seat: Option<u64>,
    #[serde(default)]
    pub(super) shooter: Option<u64>,
}

impl View {
    pub(super) fn my_move(&self) -> bool {
        self.seat.is_some_and(|seat| self.to_move.contains(&seat))
    }
}

/// The fields of a view the generator reads, each present or not: all of
/// them in a `state`, those that changed in a `change`.
#[derive(Deserialize)]
struct ViewFields {
    #[serde(default, deserialize_with = "present")]
    seat: Option<Option<u64>>,
    #[serde(default)]
    phase: Option<String>,
    #[serde(default)]
    to_move: Option<Vec<u64>>,
    #[serde(default)]
    boards: Option<Vec<Board>>,
}

/// A field that may be `null`, told apart from an absent one.
fn present<'de, T, D>(deserializer: D) -> Result<Option<T>, D::Error>
where
    T: Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    T::deserialize(deserializer).map(Some)
}

#[derive(Deserialize)]
struct CellChange {
    board: usize,
    at: [usize; 2],
    mark: char,
}

/// A connection's copy of its view, kept by `state` and `change` frames
/// (docs/protocol.md, "State and change").
#[derive(Default)]
pub(super) struct ViewCopy {
    seq: u64,
    view: Option<View>,
    resyncing: bool,
}

/// What [`ViewCopy::follow`] made of a frame.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Followed {
    /// Not a view's frame, or one read: a `change` now reads as the `state`
    /// it makes, with the whole view.
    Read,
    /// A `change` that does not follow the last frame: dropped; send
    /// `resync` if `ask`.
    OutOfStep { ask: bool },
}

impl ViewCopy {
    pub(super) fn follow(&mut self, frame: &mut Frame) -> Followed {
        match frame.kind.as_str() {
            "state" => {
                let Some(fields) = frame.fields.take() else {
                    return Followed::Read;
                };
                let view = View {
                    seat: fields.seat.flatten(),
                    phase: fields.phase.unwrap_or_default(),
                    to_move: fields.to_move.unwrap_or_default(),
                    boards: fields.boards.unwrap_or_default(),
                };
                self.seq = frame.seq;
                self.view = Some(view.clone());
                self.resyncing = false;
                frame.view = Some(view);
                Followed::Read
            }
            "change" => {
                let Some(view) = self.view.as_mut().filter(|_| frame.seq == self.seq + 1) else {
                    let ask = !self.resyncing;
                    self.resyncing = true;
                    return Followed::OutOfStep { ask };
                };
                if let Some(fields) = frame.fields.take() {
                    if let Some(seat) = fields.seat {
                        view.seat = seat;
                    }
                    if let Some(phase) = fields.phase {
                        view.phase = phase;
                    }
                    if let Some(to_move) = fields.to_move {
                        view.to_move = to_move;
                    }
                    if let Some(boards) = fields.boards {
                        view.boards = boards;
                    }
                }
                for cell in &frame.cells {
                    let [col, row] = cell.at;
                    let line = view
                        .boards
                        .get_mut(cell.board)
                        .and_then(|board| board.rows.get_mut(row));
                    if let Some(line) = line.filter(|l| {
                        col < l.len() && l.is_char_boundary(col) && l.is_char_boundary(col + 1)
                    }) {
                        let mut buffer = [0; 4];
                        line.replace_range(col..col + 1, cell.mark.encode_utf8(&mut buffer));
                    }
                }
                self.seq = frame.seq;
                frame.kind = "state".to_string();
                frame.view = Some(view.clone());
                Followed::Read
            }
            _ => Followed::Read,
        }
    }
}

/// Opens a WebSocket to the server; on loopback from a source address of its
/// own (127.0.0.1 to 127.0.0.250 in turn), so that the ephemeral ports of one
/// address are not exhausted.
pub(super) async fn open(setup: &Setup, shared: &Shared) -> Result<Ws> {
    let attempt = shared.attempts.fetch_add(1, Ordering::Relaxed);
    let stream = match setup.addr {
        SocketAddr::V4(v4) if v4.ip().is_loopback() => {
            let socket = TcpSocket::new_v4()?;
            let source = Ipv4Addr::new(127, 0, 0, 1 + (attempt % 250) as u8);
            socket.bind(SocketAddr::new(source.into(), 0))?;
            socket.connect(setup.addr).await?
        }
        addr => TcpStream::connect(addr).await?,
    };
    stream.set_nodelay(true)?;
    let (ws, _) = tokio_tungstenite::client_async_with_config(
        setup.url.as_str(),
        stream,
        Some(setup.ws_config),
    )
    .await?;
    Ok(ws)
}

/// Opens a connection within `PATIENCE`, counting a failure.
pub(super) async fn open_within(
    setup: &Setup,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<Ws, Stop> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    tokio::select! {
        result = timeout_at(deadline, open(setup, shared)) => match result {
            Ok(Ok(ws)) => Ok(ws),
            Ok(Err(_)) | Err(_) => {
                shared.connect_errors.fetch_add(1, Ordering::Relaxed);
                Err(Stop::Failed)
            }
        },
        _ = stop.changed() => Err(Stop::Over),
    }
}

pub(super) async fn send(ws: &mut Ws, shared: &Shared, frame: &ClientFrame) -> Result<(), Stop> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    match timeout_at(deadline, ws.send(Message::text(frame.to_text()))).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => {
            shared.closed.fetch_add(1, Ordering::Relaxed);
            Err(Stop::Failed)
        }
        Err(_) => {
            shared.timeouts.fetch_add(1, Ordering::Relaxed);
            Err(Stop::Failed)
        }
    }
}

/// Reads one frame from a received message: `Ok(None)` for frames that carry
/// no text (pings and pongs), `Err` (counted) for a close or a broken frame.
pub(super) fn read(
    message: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
    shared: &Shared,
) -> Result<Option<Frame>, Stop> {
    match message {
        Some(Ok(Message::Text(text))) => match serde_json::from_str::<Frame>(text.as_str()) {
            Ok(frame) => Ok(Some(frame)),
            Err(_) => {
                shared.error_frame("unreadable_frame");
                Ok(None)
            }
        },
        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
            shared.closed.fetch_add(1, Ordering::Relaxed);
            Err(Stop::Failed)
        }
        Some(Ok(_)) => Ok(None),
    }
}

/// Reads frames until one of type `kind` arrives. An `error` frame (counted)
/// fails the setup.
pub(super) async fn expect(
    ws: &mut Ws,
    kind: &str,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Result<Frame, Stop> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let message = tokio::select! {
            message = timeout_at(deadline, ws.next()) => message,
            _ = stop.changed() => return Err(Stop::Over),
        };
        let Ok(message) = message else {
            shared.timeouts.fetch_add(1, Ordering::Relaxed);
            return Err(Stop::Failed);
        };
        let Some(frame) = read(message, shared)? else {
            continue;
        };
        if frame.kind == kind {
            return Ok(frame);
        }
        if frame.kind == "error" {
            shared.error_frame(frame.code.as_deref().unwrap_or("error"));
            return Err(Stop::Failed);
        }
    }
}
