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
//! **What travels.** A client's room frame crosses the bus only as its
//! protocol type written again ([`RemoteOp::request`]): fields the protocol
//! does not know are dropped (a command is read as the engine's `Intent` and
//! written again too), and a frame still over [`MAX_FORWARDED_BYTES`] is
//! refused (`too_large`) before it leaves the node. The owner refuses a
//! larger request as well.
//!
//! **Names.** A node's name is part of every subject and lease it uses, so
//! two live processes must never share one: [`NodeName`] holds a lease on
//! the name in the shared database while the node runs, and a node whose
//! name a live node holds refuses to start.
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
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::conns::{Conns, Sessions};
use crate::context::RoomContext;
use crate::db::NodeClaim;
use crate::outbox::{ConnId, Control, Outbox, RemoteSink};
use crate::protocol::{self, ClientFrame, Refusal, Role};
use crate::room::{Joining, Person, Request, RoomMsg};
use crate::secret;

/// Frames waiting to be published before a room drops a remote member as too
/// slow (as a local member's outbox would).
const OUTGOING: usize = 65_536;

/// A room frame forwarded to another node, written again from its protocol
/// type, is at most this long (what people send is far smaller: a whole
/// fleet's placement is about 2 KiB).
pub const MAX_FORWARDED_BYTES: usize = 16 * 1024;

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
        /// The person has an account (absent from older nodes: a guest).
        #[serde(default)]
        account: bool,
        role: Role,
        ip: IpAddr,
    },
    /// A room frame, its protocol type written again (the owner reads it
    /// again); made by [`RemoteOp::request`].
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

impl RemoteOp {
    /// The request that carries the room frame `text` of connection `conn`
    /// to the room's owner: the frame read into its protocol type and
    /// written again, so that nothing the protocol does not know travels.
    /// Refused as the frame would be (`bad_json`, `bad_request`, …), and as
    /// `too_large` when what would travel is over [`MAX_FORWARDED_BYTES`].
    pub fn request(node: String, conn: ConnId, text: &str) -> Result<RemoteOp, Refusal> {
        let (frame, id) = protocol::parse(text).map_err(|e| e.refusal)?;
        let frame = match frame {
            ClientFrame::Command { command } => ClientFrame::Command {
                command: typed_command(command),
            },
            frame => frame,
        };
        let text = frame.to_text_with_id(id);
        if text.len() > MAX_FORWARDED_BYTES {
            return Err(too_large(text.len()));
        }
        Ok(RemoteOp::Request { node, conn, text })
    }
}

/// A command as the engine reads it (an `Intent`, written again: unknown
/// fields dropped). One the engine cannot read goes as it came (within the
/// size limit), so that the owner refuses it exactly as it refuses a local
/// member's — after checking that the sender may move at all.
fn typed_command(command: Map<String, Value>) -> Map<String, Value> {
    match protocol::intent(command.clone()).map(serde_json::to_value) {
        Ok(Ok(Value::Object(typed))) => typed,
        _ => command,
    }
}

fn too_large(bytes: usize) -> Refusal {
    Refusal::new(
        broadside_protocol::codes::TOO_LARGE,
        format!(
            "a frame for a room on another node is at most {MAX_FORWARDED_BYTES} bytes \
             without unknown fields; this one has {bytes}"
        ),
    )
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

    /// Whether the bus is connected now.
    pub fn connected(&self) -> bool {
        matches!(
            self.client.connection_state(),
            async_nats::connection::State::Connected
        )
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
        let asked = Instant::now();
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
        crate::metrics::bus_round_trip(asked.elapsed());
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
                account,
                role,
                ip,
            } => {
                let (reply, answer) = oneshot::channel();
                let message = RoomMsg::Join(Box::new(Joining {
                    conn,
                    person: Person {
                        player_id,
                        nickname,
                        account,
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
                if text.len() > MAX_FORWARDED_BYTES {
                    return Err(too_large(text.len()));
                }
                let (frame, id) = protocol::parse(&text).map_err(|e| e.refusal)?;
                let request = Request::from_frame(frame)
                    .ok_or_else(|| Refusal::bad_request("this frame is not for a room"))?;
                actor
                    .send(RoomMsg::Request {
                        conn,
                        request: Box::new(request),
                        id,
                        at: Instant::now(),
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
        let mut sign_outs = self.client.subscribe("bs.sign_out").await.map_err(bus)?;
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
                    Some(message) = sign_outs.next() => {
                        let Some(conns) = conns.upgrade() else { break };
                        match serde_json::from_slice::<SignOut>(&message.payload) {
                            // The node that sent it has closed its own.
                            Ok(sign_out) if sign_out.node != self.node => {
                                conns.sign_out(sign_out.player, &sign_out.ended, None);
                            }
                            _ => {}
                        }
                    }
                    else => break,
                }
            }
        });
        Ok(())
    }
}

/// Sessions ended on one node: every node closes their connections.
#[derive(Serialize, Deserialize)]
struct SignOut {
    node: String,
    player: i64,
    ended: Sessions,
}

impl Cluster {
    /// Tells every other node to close the connections of `player`'s
    /// `ended` sessions (this node has closed its own).
    pub async fn sign_out(&self, player: i64, ended: Sessions) {
        let node = self.node.clone();
        let payload = serde_json::to_vec(&SignOut {
            node,
            player,
            ended,
        })
        .expect("a sign-out is plain data and always serializes");
        if let Err(error) = self.client.publish("bs.sign_out", payload.into()).await {
            tracing::warn!(%error, "bus: a sign-out was not sent");
        }
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
            // Sign-outs and sanctions reach every node by themselves (the
            // bus's sign-out subject; each node follows the sanctions).
            Body::Control(Control::SignOut | Control::Banned | Control::Muted(_)) => continue,
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

/// This process's hold on its node name: a lease in the shared database,
/// renewed every third of the lease time while the node runs and given up
/// when it stops. Two live processes never serve under one name.
pub struct NodeName {
    context: Arc<RoomContext>,
    /// This process among all that ever used the name.
    instance: String,
    renewing: JoinHandle<()>,
}

impl NodeName {
    /// Takes the node's name (`None` where one process owns the database:
    /// names do not matter there). A name whose lease has not run out is
    /// waited for once, up to the lease time: a process that died frees it
    /// then, while a live one renews it — and this node refuses to start.
    pub async fn claim(context: &Arc<RoomContext>) -> Result<Option<NodeName>, String> {
        let db = &context.db;
        if !db.is_shared() {
            return Ok(None);
        }
        let node = context.config.node.clone();
        let ttl = context.config.lease_ttl;
        let seed = secret::new_seed().map_err(|e| e.to_string())?;
        let instance = format!("{}-{seed:016x}", std::process::id());
        let mut waited = false;
        loop {
            let claim = db
                .claim_node(node.clone(), instance.clone(), ttl)
                .await
                .map_err(|e| format!("the node name {node:?} cannot be claimed: {e}"))?;
            match claim {
                NodeClaim::Held => break,
                NodeClaim::Taken {
                    instance: holder,
                    expires_in,
                } if !waited => {
                    tracing::warn!(
                        node,
                        holder,
                        ?expires_in,
                        "the node name is held; waiting to see whether its holder is alive"
                    );
                    tokio::time::sleep(expires_in.min(ttl) + Duration::from_millis(250)).await;
                    waited = true;
                }
                NodeClaim::Taken { .. } => {
                    return Err(format!(
                        "the node name {node:?} is held by another live node (its lease, \
                         {} ms, was renewed while this one waited): give every node its own --node",
                        ttl.as_millis()
                    ))
                }
            }
        }
        let renewing = {
            let context = context.clone();
            let (node, instance) = (node.clone(), instance.clone());
            tokio::spawn(async move {
                let mut every = tokio::time::interval(ttl / 3);
                every.tick().await;
                loop {
                    every.tick().await;
                    match context
                        .db
                        .renew_node(node.clone(), instance.clone(), ttl)
                        .await
                    {
                        Ok(true) => {}
                        Ok(false) => tracing::error!(
                            node,
                            "another process has taken this node's name (this one was stalled \
                             past its lease): its rooms' leases fence this node off"
                        ),
                        Err(error) => {
                            tracing::warn!(node, %error, "the node name's lease was not renewed")
                        }
                    }
                }
            })
        };
        Ok(Some(NodeName {
            context: context.clone(),
            instance,
            renewing,
        }))
    }

    /// Gives the name up (the node stops): a node of the same name may
    /// start at once.
    pub async fn release(self) {
        self.renewing.abort();
        let node = self.context.config.node.clone();
        if let Err(error) = self
            .context
            .db
            .release_node(node.clone(), self.instance.clone())
            .await
        {
            tracing::warn!(node, %error, "the node name was not given up; it frees itself");
        }
    }
}

impl Drop for NodeName {
    fn drop(&mut self) {
        self.renewing.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What a room frame becomes on the bus.
    fn forwarded(frame: Value) -> Result<Value, Refusal> {
        match RemoteOp::request("n1".into(), 7, &frame.to_string())? {
            RemoteOp::Request { text, .. } => Ok(serde_json::from_str(&text).unwrap()),
            _ => unreachable!("a request is made"),
        }
    }

    #[test]
    fn unknown_fields_do_not_travel() {
        let junk = "x".repeat(60_000);
        let chat = forwarded(json!({"type": "chat", "text": "gg", "id": 4, "junk": junk}));
        assert_eq!(
            chat.unwrap(),
            json!({"type": "chat", "text": "gg", "id": 4})
        );
        let fire = json!({"type": "command", "command": {
            "cmd": "fire", "target": {"board": 1, "at": [3, 4]}, "seat": 0, "junk": junk}});
        let fire = forwarded(fire).unwrap();
        assert_eq!(
            fire,
            json!({"type": "command", "command": {"cmd": "fire", "target": {"board": 1, "at": [3, 4]}}}),
            "a command travels as the engine reads it"
        );
        // What travels reads as the same intent.
        let Value::Object(command) = fire["command"].clone() else {
            unreachable!()
        };
        assert!(protocol::intent(command).is_ok());
    }

    #[test]
    fn frames_travel_as_the_owner_reads_them() {
        for frame in [
            json!({"type": "command", "command": {"cmd": "place_random"}}),
            json!({"type": "command", "command": {"cmd": "resign"}}),
            json!({"type": "command", "command": {"cmd": "timeout"}}),
            json!({"type": "command", "command": {"cmd": "fly"}}),
            json!({"type": "set_options", "teams": null}),
            json!({"type": "start"}),
        ] {
            let sent = protocol::parse(&frame.to_string()).unwrap();
            let travelled = forwarded(frame.clone()).unwrap();
            let read = protocol::parse(&travelled.to_string()).unwrap();
            assert_eq!(read.0.kind(), sent.0.kind(), "{frame}");
            match (&read.0, &sent.0) {
                (ClientFrame::Command { command: a }, ClientFrame::Command { command: b }) => {
                    assert_eq!(
                        protocol::intent(a.clone()).map_err(|e| e.code),
                        protocol::intent(b.clone()).map_err(|e| e.code),
                        "{frame}"
                    );
                }
                (read, sent) => assert_eq!(read, sent, "{frame}"),
            }
        }
    }

    #[test]
    fn a_frame_too_large_without_its_junk_is_refused() {
        // A command the engine cannot read goes as it came: over the limit,
        // it is refused before it leaves.
        let big = json!({"type": "command", "command": {"cmd": "fly", "x": "y".repeat(20_000)}});
        let refused = forwarded(big).unwrap_err();
        assert_eq!(refused.code, "too_large");
        let unreadable = forwarded(json!({"type": "chat"})).unwrap_err();
        assert_eq!(unreadable.code, "bad_request");
    }
}
