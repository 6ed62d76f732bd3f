//! The cluster: nodes that share one PostgreSQL database and one NATS bus.
//!
//! Exactly one node owns each room (it holds the room's lease, db.rs) and runs
//! its actor; a person may be connected to any node. A connection whose room
//! lives on another node *links* to it over NATS:
//!
//! - `bs.room.<CODE>` — the owner's actor listens here for its remote members'
//!   requests ([`RemoteOp`]: join, a room frame, leave, disconnect, sync), each
//!   answered on the request's reply subject once the actor has taken it.
//! - `bs.node.<NODE>` — the frames a room sends to the connections of NODE,
//!   one NATS message per frame (header `conn`: the connection), published in
//!   order by one task per node, so a connection's frames keep their order.
//!   The header `rejoin` instead tells the connection to join its room afresh
//!   (its owner lost it).
//! - `bs.owner.<CODE>` — a node that takes a room (or gives it up) says so
//!   here; connections linked to the previous owner join the room again, which
//!   finds its new owner (or takes the room).
//!
//! Nothing routes frames between nodes except NATS; the database decides who
//! owns what.
//!
//! Above the rooms (it hands remote members' requests to a room's actor) and
//! below the registry, which opens a room's door here when it starts an
//! actor. Rooms reach remote members through [`RemoteSink`], which the
//! cluster implements, without knowing the cluster.

use std::collections::HashMap;
use std::net::IpAddr;
use std::str::FromStr;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::conns::Conns;
use crate::outbox::{ConnId, Control, Outbox, RemoteSink};
use crate::protocol::{self, Refusal, Role};
use crate::room::{Joining, Person, Request, RoomMsg};

/// Frames waiting to be published before a room drops a remote member as too
/// slow (as a local member's outbox would).
const OUTGOING: usize = 65_536;

/// How long a request to a room's owner may take before the owner is taken
/// for gone (it may be dead or paused; then its lease decides).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// A room frame or control for one connection on another node.
struct Outgoing {
    node: String,
    conn: ConnId,
    body: Body,
}

enum Body {
    Frame(String),
    Control(Control),
}

/// What a connection asks of a room on another node.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RemoteOp {
    Join {
        node: String,
        conn: ConnId,
        player_id: i64,
        nickname: String,
        role: Role,
        ip: IpAddr,
    },
    /// A room frame, as the client sent it (the owner reads it again).
    Request {
        node: String,
        conn: ConnId,
        text: String,
    },
    Leave {
        node: String,
        conn: ConnId,
    },
    Disconnect {
        node: String,
        conn: ConnId,
    },
    Sync,
}

/// Why a request to another node failed.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// Nobody answers for the room: its owner is gone, paused or has just
    /// let it go. The room must be looked up again.
    #[error("the room's server does not answer")]
    Gone,
    #[error("the bus: {0}")]
    Bus(String),
}

/// How often a node says it is alive (`bs.alive.NODE`).
const HEARTBEAT: Duration = Duration::from_secs(2);
/// A node not heard from for this long is taken for dead: rooms elsewhere drop
/// its connections from their members.
const SILENCE: Duration = Duration::from_secs(7);

/// A node's place in the cluster.
pub struct Cluster {
    client: async_nats::Client,
    node: String,
    outgoing: mpsc::Sender<Outgoing>,
    /// When each other node was last heard from.
    heard: Mutex<HashMap<String, Instant>>,
    started: Instant,
}

/// A node name must be usable in NATS subjects and unique in the cluster.
pub fn valid_node_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl Cluster {
    /// Connects to the bus as `node` and starts the task that publishes
    /// frames for other nodes.
    pub async fn connect(url: &str, node: &str) -> Result<Arc<Cluster>, LinkError> {
        let client = async_nats::ConnectOptions::new()
            .name(format!("broadside-{node}"))
            .request_timeout(Some(REQUEST_TIMEOUT))
            // Keep trying while the bus restarts; frames meanwhile are lost
            // and rooms heal by rejoining.
            .retry_on_initial_connect()
            .connect(url)
            .await
            .map_err(|e| LinkError::Bus(e.to_string()))?;
        let (outgoing, queue) = mpsc::channel(OUTGOING);
        tokio::spawn(publish(client.clone(), queue));
        Ok(Arc::new(Cluster {
            client,
            node: node.to_string(),
            outgoing,
            heard: Mutex::new(HashMap::new()),
            started: Instant::now(),
        }))
    }

    /// Notes that `node` just spoke (a heartbeat or a request).
    fn heard_from(&self, node: &str) {
        let mut heard = self.heard.lock().unwrap_or_else(|p| p.into_inner());
        heard.insert(node.to_string(), Instant::now());
    }

    pub fn node(&self) -> &str {
        &self.node
    }

    /// Says that this node now owns `code` (`owner: None`: nobody does).
    pub async fn announce_owner(&self, code: &str, owner: Option<&str>) {
        let payload = Bytes::from(owner.unwrap_or("").to_string());
        if let Err(error) = self
            .client
            .publish(format!("bs.owner.{code}"), payload)
            .await
        {
            tracing::warn!(room = %code, %error, "bus: cannot announce the room's owner");
        }
    }

    /// Sends one request to the owner of `code` and waits for its answer.
    pub async fn request(&self, code: &str, op: &RemoteOp) -> Result<(), LinkError> {
        self.ask(code, op)
            .await?
            .map_err(|refusal| LinkError::Bus(refusal.message))
    }

    /// Sends one request to the owner of `code`; the owner's refusal (a join's
    /// room_full, …) is the inner error, for the client.
    pub async fn ask(&self, code: &str, op: &RemoteOp) -> Result<Result<(), Refusal>, LinkError> {
        let payload =
            serde_json::to_vec(op).expect("a remote request is plain data and always serializes");
        let answer = self
            .client
            .request(format!("bs.room.{code}"), payload.into())
            .await
            .map_err(|error| {
                use async_nats::client::RequestErrorKind;
                match error.kind() {
                    RequestErrorKind::NoResponders | RequestErrorKind::TimedOut => LinkError::Gone,
                    _ => LinkError::Bus(error.to_string()),
                }
            })?;
        serde_json::from_slice(&answer.payload)
            .map_err(|e| LinkError::Bus(format!("an unreadable answer: {e}")))
    }

    /// Listens for the remote members' requests to a room this node owns and
    /// hands them to its actor, until the returned task is aborted.
    pub async fn serve_room(
        self: &Arc<Self>,
        code: &str,
        actor: mpsc::Sender<RoomMsg>,
    ) -> Result<JoinHandle<()>, LinkError> {
        let mut requests = self
            .client
            .subscribe(format!("bs.room.{code}"))
            .await
            .map_err(|e| LinkError::Bus(e.to_string()))?;
        let cluster = self.clone();
        Ok(tokio::spawn(async move {
            while let Some(message) = requests.next().await {
                let Some(reply) = message.reply.clone() else {
                    continue;
                };
                let answer = match serde_json::from_slice::<RemoteOp>(&message.payload) {
                    Ok(op) => cluster.forward(op, &actor).await,
                    Err(error) => Err(Refusal::bad_request(format!(
                        "an unreadable request from another node: {error}"
                    ))),
                };
                let payload = serde_json::to_vec(&answer)
                    .expect("an answer is plain data and always serializes");
                let _ = cluster.client.publish(reply, payload.into()).await;
            }
        }))
    }

    /// Hands one remote request to the room's actor; answers once the actor
    /// has it (joins and disconnects: once it has done it).
    async fn forward(
        self: &Arc<Self>,
        op: RemoteOp,
        actor: &mpsc::Sender<RoomMsg>,
    ) -> Result<(), Refusal> {
        let closed = || Refusal::new("room_not_found", "the room is closed");
        if let RemoteOp::Join { node, .. } | RemoteOp::Request { node, .. } = &op {
            self.heard_from(node);
        }
        match op {
            RemoteOp::Join {
                node,
                conn,
                player_id,
                nickname,
                role,
                ip,
            } => {
                let (reply, answer) = oneshot::channel();
                let message = RoomMsg::Join(Box::new(Joining {
                    conn,
                    person: Person {
                        player_id,
                        nickname,
                    },
                    role,
                    ip,
                    outbox: Outbox::remote(self.clone(), node, conn),
                    reply,
                }));
                actor.send(message).await.map_err(|_| closed())?;
                answer.await.map_err(|_| closed())?
            }
            RemoteOp::Request { conn, text, .. } => {
                let (frame, id) = protocol::parse(&text).map_err(|e| e.refusal)?;
                let request = Request::from_frame(frame)
                    .ok_or_else(|| Refusal::bad_request("this frame is not for a room"))?;
                actor
                    .send(RoomMsg::Request {
                        conn,
                        request: Box::new(request),
                        id,
                    })
                    .await
                    .map_err(|_| closed())
            }
            RemoteOp::Leave { conn, .. } => actor
                .send(RoomMsg::Leave { conn })
                .await
                .map_err(|_| closed()),
            RemoteOp::Disconnect { conn, .. } => {
                let (done, confirmed) = oneshot::channel();
                actor
                    .send(RoomMsg::Disconnect {
                        conn,
                        done: Some(done),
                    })
                    .await
                    .map_err(|_| closed())?;
                confirmed.await.map_err(|_| closed())
            }
            RemoteOp::Sync => {
                let (done, synced) = oneshot::channel();
                actor
                    .send(RoomMsg::Sync { done })
                    .await
                    .map_err(|_| closed())?;
                synced.await.map_err(|_| closed())
            }
        }
    }

    /// Delivers what other nodes send this node's connections, and rejoins
    /// connections whose room changed owner. Runs until the server stops.
    pub async fn serve_node(self: Arc<Self>, conns: Weak<Conns>) -> Result<(), LinkError> {
        let bus = |e: async_nats::SubscribeError| LinkError::Bus(e.to_string());
        let mut frames = self
            .client
            .subscribe(format!("bs.node.{}", self.node))
            .await
            .map_err(bus)?;
        let mut owners = self.client.subscribe("bs.owner.*").await.map_err(bus)?;
        let mut alive = self.client.subscribe("bs.alive.*").await.map_err(bus)?;
        let mut heartbeat = tokio::time::interval(HEARTBEAT);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = heartbeat.tick() => {
                        if conns.strong_count() == 0 {
                            break;
                        }
                        let subject = format!("bs.alive.{}", self.node);
                        let _ = self.client.publish(subject, Bytes::new()).await;
                    }
                    Some(message) = alive.next() => {
                        self.heard_from(message.subject.as_str().trim_start_matches("bs.alive."));
                    }
                    Some(message) = frames.next() => {
                        let Some(conns) = conns.upgrade() else { break };
                        deliver(&conns, &message);
                    }
                    Some(message) = owners.next() => {
                        let Some(conns) = conns.upgrade() else { break };
                        let code = message.subject.as_str().trim_start_matches("bs.owner.");
                        let owner = String::from_utf8_lossy(&message.payload);
                        conns.owner_changed(code, &owner);
                    }
                    else => break,
                }
            }
        });
        Ok(())
    }
}

/// Frames and controls for connections on other nodes go out in order on
/// the publishing task's queue.
impl RemoteSink for Cluster {
    /// Queues a frame for a connection on `node`; `false` if the queue is
    /// full (the member is then dropped as too slow).
    fn send_frame(&self, node: &str, conn: ConnId, frame: String) -> bool {
        self.outgoing
            .try_send(Outgoing {
                node: node.to_string(),
                conn,
                body: Body::Frame(frame),
            })
            .is_ok()
    }

    /// Hands a connection on `node` a control (join a room, join it afresh).
    fn send_control(&self, node: &str, conn: ConnId, control: Control) {
        let _ = self.outgoing.try_send(Outgoing {
            node: node.to_string(),
            conn,
            body: Body::Control(control),
        });
    }

    /// Whether `node` has been heard from lately (this node always has).
    fn is_alive(&self, node: &str) -> bool {
        if node == self.node {
            return true;
        }
        let heard = self.heard.lock().unwrap_or_else(|p| p.into_inner());
        match heard.get(node) {
            Some(at) => at.elapsed() < SILENCE,
            // Not heard of yet: only this node may be new.
            None => self.started.elapsed() < SILENCE,
        }
    }
}

/// Publishes the queued frames in order.
async fn publish(client: async_nats::Client, mut queue: mpsc::Receiver<Outgoing>) {
    while let Some(out) = queue.recv().await {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert("conn", out.conn.to_string().as_str());
        let payload = match out.body {
            Body::Frame(frame) => Bytes::from(frame),
            Body::Control(Control::Rejoin(code)) => {
                headers.insert("rejoin", code.as_str());
                Bytes::new()
            }
            Body::Control(Control::Join(code)) => {
                headers.insert("join", code.as_str());
                Bytes::new()
            }
        };
        if let Err(error) = client
            .publish_with_headers(format!("bs.node.{}", out.node), headers, payload)
            .await
        {
            tracing::warn!(%error, "bus: a frame was lost");
        }
    }
}

/// One message for a connection of this node.
fn deliver(conns: &Conns, message: &async_nats::Message) {
    let Some(headers) = &message.headers else {
        return;
    };
    let Some(conn) = headers
        .get("conn")
        .and_then(|v| u64::from_str(v.as_str()).ok())
    else {
        return;
    };
    let Some(outbox) = conns.outbox(conn) else {
        return;
    };
    if let Some(code) = headers.get("rejoin") {
        outbox.control(Control::Rejoin(code.to_string()));
    } else if let Some(code) = headers.get("join") {
        outbox.control(Control::Join(code.to_string()));
    } else {
        {
            if let Ok(frame) = String::from_utf8(message.payload.to_vec()) {
                outbox.send(frame);
            }
        }
    }
}
