//! How frames reach a connection: its [`Outbox`], a bounded queue the
//! connection drains into its socket, or — for a connection on another node
//! of the cluster — a [`RemoteSink`] that carries them there.
//!
//! Below the rooms: a room sends to its members through their outboxes and
//! knows nothing of sockets or of the bus. The cluster implements
//! [`RemoteSink`]; this module does not know it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{mpsc, Notify};

/// Identifies one WebSocket connection.
pub type ConnId = u64;

/// Hands out connection ids (and rooms' pool keys). Ids name members in rooms
/// that several nodes' connections share: a random high half per process
/// keeps each node's ids apart.
pub struct ConnIds(AtomicU64);

impl ConnIds {
    /// Ids starting at `first`.
    pub fn starting_at(first: u64) -> ConnIds {
        ConnIds(AtomicU64::new(first))
    }

    /// Ids whose high half is random (a new one per process).
    pub fn random() -> ConnIds {
        ConnIds::starting_at((crate::secret::new_seed().unwrap_or(0) >> 32) << 32 | 1)
    }

    pub fn next(&self) -> ConnId {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}

/// Frames for connections on other nodes (the cluster's bus).
pub trait RemoteSink: Send + Sync {
    /// Queues a frame for connection `conn` on `node`; `false` if it could
    /// not be (the member is then dropped as too slow).
    fn send_frame(&self, node: &str, conn: ConnId, frame: String) -> bool;
    /// Hands connection `conn` on `node` a control.
    fn send_control(&self, node: &str, conn: ConnId, control: Control);
    /// Whether `node` has been heard from lately (its connections live).
    fn is_alive(&self, node: &str) -> bool;
}

/// Frames to one connection, already serialized: a bounded queue that the
/// connection drains into its socket. When a frame does not fit (the client
/// reads too slowly), the frame is dropped and the connection is told to
/// close itself (`stalled`), so it never lives on silently without its frames.
/// A connection on another node of the cluster is reached over the bus.
#[derive(Clone)]
pub enum Outbox {
    Local(LocalOutbox),
    Remote {
        sink: Arc<dyn RemoteSink>,
        node: String,
        conn: ConnId,
    },
}

#[derive(Clone)]
pub struct LocalOutbox {
    frames: mpsc::Sender<String>,
    /// Bytes queued and not yet taken by the connection.
    queued: Arc<AtomicUsize>,
    max_bytes: usize,
    stalled: Arc<Notify>,
    control: mpsc::UnboundedSender<Control>,
}

/// What a room (or the cluster, or a quick match) asks of a connection
/// besides frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// The room moved to another node: join it afresh.
    Rejoin(String),
    /// A quick match paired this person into a new room: join it.
    Join(String),
    /// The connection's session was ended elsewhere: close (4005).
    SignOut,
    /// The person was banned: close (4006).
    Banned,
    /// The person's mute changed: muted until then (unix ms), or not.
    Muted(Option<i64>),
}

/// The connection's end of its outbox.
pub struct Inbox {
    frames: mpsc::Receiver<String>,
    queued: Arc<AtomicUsize>,
    pub stalled: Arc<Notify>,
}

/// The connection's end of its controls.
pub type Controls = mpsc::UnboundedReceiver<Control>;

impl Outbox {
    /// A queue of at most `max_frames` frames and `max_bytes` bytes.
    pub fn new(max_frames: usize, max_bytes: usize) -> (Outbox, Inbox, Controls) {
        let (frames, receiver) = mpsc::channel(max_frames.max(1));
        let (control, control_receiver) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let stalled = Arc::new(Notify::new());
        (
            Outbox::Local(LocalOutbox {
                frames,
                queued: queued.clone(),
                max_bytes,
                stalled: stalled.clone(),
                control,
            }),
            Inbox {
                frames: receiver,
                queued,
                stalled,
            },
            control_receiver,
        )
    }

    /// The outbox of connection `conn` on another node.
    pub fn remote(sink: Arc<dyn RemoteSink>, node: String, conn: ConnId) -> Outbox {
        Outbox::Remote { sink, node, conn }
    }

    /// Queues a frame; `false` if it could not be (the connection is then told
    /// it stalled, or is already gone).
    pub fn send(&self, frame: String) -> bool {
        match self {
            Outbox::Local(local) => local.send(frame),
            Outbox::Remote { sink, node, conn } => sink.send_frame(node, *conn, frame),
        }
    }

    /// Tells the connection to join room `code` afresh (it moved).
    pub fn rejoin(&self, code: &str) {
        self.control(Control::Rejoin(code.to_string()));
    }

    /// Hands the connection a control, wherever it is.
    pub fn control(&self, control: Control) {
        match self {
            Outbox::Local(local) => {
                let _ = local.control.send(control);
            }
            Outbox::Remote { sink, node, conn } => sink.send_control(node, *conn, control),
        }
    }

    /// Whether the connection may still be there: a local one always, one
    /// on another node while that node is heard from (it died with its
    /// connections otherwise).
    pub fn node_alive(&self) -> bool {
        match self {
            Outbox::Local(_) => true,
            Outbox::Remote { sink, node, .. } => sink.is_alive(node),
        }
    }
}

impl LocalOutbox {
    fn send(&self, frame: String) -> bool {
        let size = frame.len();
        if self.queued.fetch_add(size, Ordering::AcqRel) + size > self.max_bytes {
            self.queued.fetch_sub(size, Ordering::AcqRel);
            self.stalled.notify_one();
            return false;
        }
        match self.frames.try_send(frame) {
            Ok(()) => true,
            Err(error) => {
                self.queued.fetch_sub(size, Ordering::AcqRel);
                if matches!(error, mpsc::error::TrySendError::Full(_)) {
                    self.stalled.notify_one();
                }
                false
            }
        }
    }
}

impl Inbox {
    /// The next frame to write to the socket.
    pub async fn recv(&mut self) -> Option<String> {
        let frame = self.frames.recv().await?;
        self.queued.fetch_sub(frame.len(), Ordering::AcqRel);
        Some(frame)
    }

    /// The next frame if one is queued (a closing connection sends what is
    /// queued first; tests read a room's frames so).
    pub fn try_recv(&mut self) -> Option<String> {
        let frame = self.frames.try_recv().ok()?;
        self.queued.fetch_sub(frame.len(), Ordering::AcqRel);
        Some(frame)
    }
}
