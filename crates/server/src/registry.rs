//! The registry of rooms: the actors this node runs (their inboxes, by
//! code), and where any room lives — here, on the node holding its lease, or
//! brought back here from the database after taking its lease.
//!
//! Above the rooms and the cluster, below the lobby and the connections. It
//! spawns each actor (in its tracing span, with its door on the bus), runs
//! [`Room::run`] and acts on how it ended: it forgets an actor that retires
//! before the room releases its lease, and announces a room given up at
//! shutdown. The room never sees the registry.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use broadside_ai::Level;
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

use crate::cluster::Cluster;
use crate::context::RoomContext;
use crate::cpu::Key;
use crate::db::DbError;
use crate::lifecycle::Lifecycle;
use crate::protocol::Refusal;
use crate::room::{End, Person, Room, RoomMsg, RoomSetup, SetupRules};
use crate::secret;

/// Messages a room's actor may queue before senders wait.
const ROOM_INBOX: usize = 256;

/// Tries to make a new room code before giving up (codes are random; a clash
/// with an existing room is rare).
const CODE_ATTEMPTS: usize = 20;

/// Rooms a node takes over at most per look.
const TAKE_OVER_BATCH: usize = 32;

/// Where a connection's room lives.
#[derive(Clone)]
pub enum Link {
    /// On this node: its actor's queue.
    Local(mpsc::Sender<RoomMsg>),
    /// On another node, reached over NATS.
    Remote { node: String },
}

/// The rooms of this node.
pub struct Registry {
    context: Arc<RoomContext>,
    /// The bus of a cluster: a room's door for remote members, and the
    /// announcement of who owns it.
    cluster: Option<Arc<Cluster>>,
    lifecycle: Arc<Lifecycle>,
    /// The actor of every room in memory, by code. An async lock: it is held
    /// while a stored room is loaded, so two joins cannot start two actors.
    rooms: tokio::sync::Mutex<HashMap<String, mpsc::Sender<RoomMsg>>>,
}

impl Registry {
    pub fn new(
        context: Arc<RoomContext>,
        cluster: Option<Arc<Cluster>>,
        lifecycle: Arc<Lifecycle>,
    ) -> Arc<Registry> {
        Arc::new(Registry {
            context,
            cluster,
            lifecycle,
            rooms: tokio::sync::Mutex::new(HashMap::new()),
        })
    }

    /// How many rooms this node has in memory (on a shared database, the
    /// leases it holds).
    pub async fn in_memory(&self) -> usize {
        self.rooms.lock().await.len()
    }

    /// Makes a room (a free code, stored, its actor running) with `person`
    /// as host, `guest` in seat 1 and `bots`; returns its code. The fit check
    /// of a custom fleet runs on the pool in `key`'s turn.
    pub async fn create(
        self: &Arc<Self>,
        setup: RoomSetup,
        person: Person,
        guest: Option<Person>,
        bots: &[(usize, Level)],
        key: Key,
    ) -> Result<String, Refusal> {
        let rules = {
            let setup = setup.clone();
            self.context
                .cpu
                .run(key, move || setup.check())
                .await
                .map_err(|_| {
                    Refusal::new(
                        "rate_limited",
                        "the server is still working on your earlier requests; try again in a moment",
                    )
                })??
        };
        for _ in 0..CODE_ATTEMPTS {
            let code = secret::new_room_code().map_err(internal)?;
            let Some(room) = Room::create(
                self.context.clone(),
                code.clone(),
                setup.clone(),
                rules.clone(),
                person.clone(),
                guest.clone(),
                bots,
            )
            .await?
            else {
                continue;
            };
            let mut rooms = self.rooms.lock().await;
            self.start_actor(&mut rooms, code.clone(), room)
                .await
                .map_err(internal)?;
            return Ok(code);
        }
        Err(internal("no free room code"))
    }

    /// Starts the game of a room this node just made (a quick match).
    pub async fn start_now(self: &Arc<Self>, code: &str) -> Result<(), Refusal> {
        let Some(Link::Local(room)) = self.find(code).await.map_err(internal)? else {
            return Err(internal("the new room is gone"));
        };
        let (done, started) = oneshot::channel();
        room.send(RoomMsg::StartNow { done })
            .await
            .map_err(|_| internal("the new room is gone"))?;
        started
            .await
            .map_err(|_| internal("the new room is gone"))?
    }

    /// Starts a room's actor (and, in a cluster, its door for remote members)
    /// and registers it; the registry's lock is held, so nobody else starts
    /// this room meanwhile.
    async fn start_actor(
        self: &Arc<Self>,
        rooms: &mut HashMap<String, mpsc::Sender<RoomMsg>>,
        code: String,
        mut room: Room,
    ) -> Result<mpsc::Sender<RoomMsg>, DbError> {
        let (sender, mut inbox) = mpsc::channel(ROOM_INBOX);
        let door =
            match &self.cluster {
                Some(cluster) => Some(cluster.serve_room(&code, sender.clone()).await.map_err(
                    |e| DbError::Postgres(format!("cannot open the room on the bus: {e}")),
                )?),
                None => None,
            };
        rooms.insert(code.clone(), sender.clone());
        let mut shutdown = self.lifecycle.shutdown_signal();
        let alive = self.lifecycle.alive_token();
        let me = sender.downgrade();
        let registry = self.clone();
        // Every line the actor logs names its room, game and node.
        let span = tracing::info_span!(
            "room",
            code = %code,
            game = tracing::field::Empty,
            node = %self.context.config.node
        );
        tokio::spawn(
            async move {
                let end = room.run(&mut inbox, &mut shutdown).await;
                if end.retires() {
                    // Joins queued meanwhile are dropped unanswered; their
                    // connections then load the room afresh.
                    registry.retire(room.code(), &me).await;
                }
                let code = room.code().to_string();
                Box::pin(room.end(end)).await;
                if let (End::Shutdown, Some(cluster)) = (end, &registry.cluster) {
                    cluster.announce_owner(&code, None).await;
                }
                drop(inbox);
                if let Some(door) = door {
                    door.abort();
                }
                drop(alive);
            }
            .instrument(span),
        );
        if let Some(cluster) = &self.cluster {
            cluster.announce_owner(&code, Some(cluster.node())).await;
        }
        Ok(sender)
    }

    /// Forgets an actor that stops, if it is still the registered one.
    async fn retire(&self, code: &str, actor: &mpsc::WeakSender<RoomMsg>) {
        let mut rooms = self.rooms.lock().await;
        let registered = rooms
            .get(code)
            .is_some_and(|sender| actor.upgrade().is_some_and(|a| a.same_channel(sender)));
        if registered {
            rooms.remove(code);
        }
    }

    /// Where a room lives: its actor on this node (in memory, or brought back
    /// from the database after taking its lease), or the node that holds its
    /// lease. `None` if no room has this code.
    pub async fn find(self: &Arc<Self>, code: &str) -> Result<Option<Link>, DbError> {
        let context = &self.context;
        let config = &context.config;
        let db = &context.db;
        // Another node may be taking the room at this very moment: look again.
        for _ in 0..3 {
            let mut rooms = self.rooms.lock().await;
            if let Some(sender) = rooms.get(code) {
                if !sender.is_closed() {
                    return Ok(Some(Link::Local(sender.clone())));
                }
            }
            if db.is_shared() {
                if let Some(owner) = db.owner(code.to_string()).await? {
                    if owner.live && owner.node != config.node {
                        if self.cluster.is_none() {
                            return Err(DbError::Postgres(format!(
                                "room {code} is owned by node {}, and this node has no bus to reach it",
                                owner.node
                            )));
                        }
                        return Ok(Some(Link::Remote { node: owner.node }));
                    }
                }
            }
            if self.lifecycle.stopping() {
                // A node that is stopping takes no rooms.
                return Err(DbError::Closed);
            }
            let Some(lease) = db
                .acquire(code.to_string(), &config.node, config.lease_ttl)
                .await?
            else {
                if db.owner(code.to_string()).await?.is_none() {
                    return Ok(None);
                }
                continue;
            };
            let Some((record, game)) = db.load_room(code.to_string()).await? else {
                let _ = db.release(&lease, false).await;
                return Ok(None);
            };
            let room = match Room::restore(context.clone(), record, game, lease.clone()).await {
                Ok(room) => room,
                Err(error) => {
                    let _ = db.release(&lease, false).await;
                    return Err(DbError::Corrupt(error.to_string()));
                }
            };
            let sender = self.start_actor(&mut rooms, code.to_string(), room).await?;
            return Ok(Some(Link::Local(sender)));
        }
        Err(DbError::Postgres(format!(
            "room {code} changes hands too often; try again"
        )))
    }

    /// Brings back every room whose game runs, so its timers and bots go on even
    /// before anybody reconnects (a node alone on its database, at start).
    pub async fn restore_running(self: &Arc<Self>) -> Result<(), DbError> {
        let running = self.context.db.running_rooms().await?;
        let mut restored = 0;
        for code in &running {
            // One unreadable room must not keep every other game from resuming.
            match self.find(code).await {
                Ok(_) => restored += 1,
                Err(error) => {
                    tracing::error!(room = %code, %error, "the room could not be restored")
                }
            }
        }
        tracing::info!(
            node = %self.context.config.node,
            restored,
            of = running.len(),
            "serving; unfinished games restored"
        );
        Ok(())
    }

    /// In a cluster (or on PostgreSQL): every second or so, takes the rooms
    /// whose lease has expired — their owner died, stalled or handed them over —
    /// and restores them here, timers and bots included. Several nodes may look
    /// at once; the lease lets exactly one of them have each room.
    pub async fn take_over_rooms(registry: Weak<Registry>) {
        loop {
            let pause = Duration::from_millis(700 + secret::new_seed().unwrap_or(0) % 600);
            tokio::time::sleep(pause).await;
            let Some(registry) = registry.upgrade() else {
                return;
            };
            if registry.lifecycle.stopping() {
                return;
            }
            let codes = match registry.context.db.expired_leases(TAKE_OVER_BATCH).await {
                Ok(codes) => codes,
                Err(error) => {
                    tracing::warn!(%error, "cannot look for rooms to take over");
                    continue;
                }
            };
            for code in codes {
                if registry.lifecycle.stopping() {
                    return;
                }
                if let Err(error) = registry.find(&code).await {
                    tracing::warn!(room = %code, %error, "the room could not be taken over");
                }
            }
        }
    }
}

fn internal(error: impl std::fmt::Display) -> Refusal {
    Refusal::new("internal", format!("the server failed: {error}"))
}
