//! A connection and its room: creating one, joining by code (rationed per
//! address), moving between rooms, following a room that moved to another
//! node, and handing room frames to the room wherever it lives.

use broadside_ai::Level;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{internal, not_in_room, Connection, Linked};
use crate::cluster::{LinkError, RemoteOp, REQUEST_TIMEOUT};
use crate::cpu::Key;
use crate::protocol::{self, codes, CreateRoom, Refusal, Role};
use crate::registry::Link;
use crate::room::{Joining, Person, Request, RoomMsg, RoomSetup};
use crate::secret;

impl Connection {
    /// `leave`: out of the room (before the start the seat is given up).
    pub(super) async fn leave(&mut self) -> Result<(), Refusal> {
        let linked = self.room.take().ok_or_else(not_in_room)?;
        self.shared.conns.set_link(self.id, None);
        match &linked.link {
            Link::Local(room) => {
                let _ = room.send(RoomMsg::Leave { conn: self.id }).await;
            }
            Link::Remote { .. } => {
                let op = RemoteOp::Leave {
                    node: self.shared.config().node.clone(),
                    conn: self.id,
                };
                let _ = self.remote(&linked.code, &op).await;
            }
        }
        Ok(())
    }

    /// Hands a room frame to the connection's room, wherever it lives. If the
    /// room's node is gone, the room is looked up again (it may have moved to
    /// another node) and the frame handed there.
    pub(super) async fn hand_to_room(
        &mut self,
        request: Request,
        text: &str,
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        let mut request = Some(request);
        for attempt in 0..2 {
            let linked = self.room.as_ref().ok_or_else(not_in_room)?;
            let code = linked.code.clone();
            let sent = match &linked.link {
                Link::Local(room) => {
                    let request = match request.take() {
                        Some(request) => request,
                        None => reread(text)?,
                    };
                    let message = RoomMsg::Request {
                        conn: self.id,
                        request: Box::new(request),
                        id,
                        at: std::time::Instant::now(),
                    };
                    room.send(message).await.map_err(|_| LinkError::Gone)
                }
                Link::Remote { .. } => {
                    // Only the typed frame travels (cluster.rs).
                    let op = RemoteOp::request(self.shared.config().node.clone(), self.id, text)?;
                    self.remote(&code, &op).await
                }
            };
            match sent {
                Ok(()) => return Ok(()),
                Err(LinkError::Gone) if attempt == 0 => self.rejoin(&code).await?,
                Err(LinkError::Gone) => break,
                Err(LinkError::Bus(message)) => return Err(internal(message)),
            }
        }
        self.room = None;
        self.shared.conns.set_link(self.id, None);
        Err(Refusal::new("room_not_found", "the room is closed"))
    }

    /// A request to the room's owner on another node.
    async fn remote(&self, code: &str, op: &RemoteOp) -> Result<(), LinkError> {
        let cluster = self
            .shared
            .cluster
            .as_ref()
            .expect("a room lives on another node only in a cluster");
        cluster.request(code, op).await
    }

    /// Waits until the room has handled every earlier frame of this connection.
    pub(super) async fn sync(&self) {
        let Some(linked) = &self.room else {
            return;
        };
        match &linked.link {
            Link::Local(room) => {
                let (done, synced) = oneshot::channel();
                if room.send(RoomMsg::Sync { done }).await.is_ok() {
                    let _ = synced.await;
                }
            }
            Link::Remote { .. } => {
                let _ = self.remote(&linked.code, &RemoteOp::Sync).await;
            }
        }
    }

    /// Joins room `code` again where it lives now (it moved to another node).
    pub(super) async fn rejoin(&mut self, code: &str) -> Result<(), Refusal> {
        let Some(linked) = self.room.take_if(|linked| linked.code == code) else {
            return Ok(());
        };
        self.shared.conns.set_link(self.id, None);
        let person = self.person.clone().ok_or_else(not_in_room)?;
        self.attach(person, linked.code, linked.role).await
    }

    /// Out of the quick-match queue before going into a room, so that no
    /// pairing pulls the person out of it later. Refused (`paired`) if a
    /// pairing took them out first: that game is starting.
    pub(super) async fn leave_queue(&mut self, person: &Person) -> Result<(), Refusal> {
        let Some(matching) = self.matching.take() else {
            return Ok(());
        };
        let lobby = self.shared.lobby.clone();
        if lobby.dequeue(person, self.id, matching.preset).await? {
            Ok(())
        } else {
            Err(paired())
        }
    }

    /// `create_room`: a new room with this person as host, joined at once.
    /// Refuses new work with `busy` while the node is overloaded (its
    /// scheduling lag is over `--busy-lag-ms`): running games keep their pace.
    pub(super) fn refuse_if_busy(&self, request: &'static str) -> Result<(), Refusal> {
        let load = &self.shared.load;
        if !load.overloaded() {
            return Ok(());
        }
        crate::metrics::busy_refusal(request);
        let retry = u64::try_from(load.retry_after().as_millis()).unwrap_or(u64::MAX);
        Err(Refusal::busy(retry))
    }

    pub(super) async fn create_room(
        &mut self,
        person: Person,
        create: CreateRoom,
    ) -> Result<(), Refusal> {
        if create.rated && !person.account {
            return Err(Refusal::new(
                codes::ACCOUNT_NEEDED,
                "rated games are for accounts: create one or sign in first",
            ));
        }
        self.refuse_if_busy("create_room")?;
        self.leave_queue(&person).await?;
        if !self.shared.addresses.take_new_room(self.ip) {
            return Err(Refusal::new(
                "rate_limited",
                format!(
                    "too many new rooms from your address: at most {} a minute",
                    self.shared.config().rooms_per_minute
                ),
            ));
        }
        let setup = RoomSetup {
            preset: create.preset,
            seats: create.seats,
            options: create.options.unwrap_or_default(),
            teams: create.teams,
            public: create.public,
            rated: create.rated,
            language: self.lang.clone(),
        };
        let bots: Vec<(usize, Level)> = create
            .bots
            .iter()
            .map(|b| (b.seat, protocol::ai_level(b.level)))
            .collect();
        // A custom fleet's fit check is a search: on the pool, in this
        // address's turn.
        let code = self
            .shared
            .registry
            .create(setup, person.clone(), None, &bots, Key::Client(self.ip))
            .await?;
        self.join(person, code, Role::Player).await
    }

    /// `join_room`: codes that name no room are rationed per address, so that
    /// nobody can sweep the codes to find rooms (docs/protocol.md).
    pub(super) async fn join_by_code(
        &mut self,
        person: Person,
        code: &str,
        role: Role,
    ) -> Result<(), Refusal> {
        // An overloaded node still lets people back to their own seats.
        if self.shared.load.overloaded() && !self.holds_seat_in(&person, code).await {
            self.refuse_if_busy("join_room")?;
        }
        self.leave_queue(&person).await?;
        let addresses = self.shared.addresses.clone();
        // Coming back to one's own seat is never a guess (issue 34).
        if !addresses.may_guess(self.ip) && !self.holds_seat_in(&person, code).await {
            return Err(Refusal::new(
                "rate_limited",
                format!(
                    "too many unknown room codes from your address: at most {} a minute",
                    self.shared.config().unknown_codes_per_minute
                ),
            ));
        }
        let unknown = || Refusal::new("room_not_found", "no room has that code");
        let Some(code) = secret::normalize_code(code) else {
            addresses.take_unknown_code(self.ip);
            return Err(unknown());
        };
        let found = self.join(person, code, role).await;
        if matches!(&found, Err(refusal) if refusal.code == "room_not_found") {
            addresses.take_unknown_code(self.ip);
        }
        found
    }

    pub(super) async fn join(
        &mut self,
        person: Person,
        code: String,
        role: Role,
    ) -> Result<(), Refusal> {
        // Out of the current room first, and only then into the next: once the
        // old room has confirmed, it sends nothing more, so every frame after
        // the new `room` frame belongs to the new room. A lobby seat there is
        // given up: a person holds one lobby seat at a time.
        let same = self.room.as_ref().is_some_and(|linked| linked.code == code);
        if same {
            self.detach().await;
        } else {
            self.release().await;
        }
        self.attach(person, code, role).await
    }

    /// Leaves the current room, if any, for another: its lobby seat is given
    /// up (a running game's seat is kept, R-11.2). Waits until the room has
    /// let go of this connection.
    async fn release(&mut self) {
        let Some(linked) = self.room.take() else {
            return;
        };
        self.shared.conns.set_link(self.id, None);
        match &linked.link {
            Link::Local(room) => {
                let (done, confirmed) = oneshot::channel();
                let message = RoomMsg::Release {
                    conn: self.id,
                    done,
                };
                if room.send(message).await.is_ok() {
                    let _ = confirmed.await;
                }
            }
            Link::Remote { .. } => {
                // The remote room hears a `leave` (its seat given up before
                // the start; its `left` frame, sent before the new `room`
                // frame, is harmless).
                let op = RemoteOp::Leave {
                    node: self.shared.config().node.clone(),
                    conn: self.id,
                };
                let _ = self.remote(&linked.code, &op).await;
            }
        }
    }

    /// Joins room `code` wherever it lives. A room whose node does not answer
    /// (dead or stalled) is looked up again until its lease runs out and a
    /// live node takes it; a room retiring from memory at this very moment
    /// is loaded again.
    async fn attach(&mut self, person: Person, code: String, role: Role) -> Result<(), Refusal> {
        let config = self.shared.config();
        let give_up = Instant::now() + config.lease_ttl + REQUEST_TIMEOUT * 2;
        loop {
            let link = self
                .shared
                .registry
                .find(&code)
                .await
                .map_err(internal)?
                .ok_or_else(|| Refusal::new("room_not_found", "no room has that code"))?;
            let joined = match &link {
                Link::Local(room) => {
                    let (reply, answer) = oneshot::channel();
                    let message = RoomMsg::Join(Box::new(Joining {
                        conn: self.id,
                        person: person.clone(),
                        role,
                        ip: self.ip,
                        outbox: self.outbox.clone(),
                        reply,
                    }));
                    match room.send(message).await {
                        Ok(()) => answer.await.map_err(|_| LinkError::Gone),
                        Err(_) => Err(LinkError::Gone),
                    }
                }
                Link::Remote { .. } => {
                    let cluster = self
                        .shared
                        .cluster
                        .as_ref()
                        .expect("a room lives on another node only in a cluster");
                    let op = RemoteOp::Join {
                        node: config.node.clone(),
                        conn: self.id,
                        player_id: person.player_id,
                        nickname: person.nickname.clone(),
                        account: person.account,
                        role,
                        ip: self.ip,
                    };
                    cluster.ask(&code, &op).await
                }
            };
            match joined {
                Ok(joined) => {
                    joined?;
                    let owner = match &link {
                        Link::Local(_) => None,
                        Link::Remote { node } => Some(node.clone()),
                    };
                    self.shared
                        .conns
                        .set_link(self.id, Some((code.clone(), owner)));
                    self.room = Some(Linked { code, link, role });
                    return Ok(());
                }
                Err(LinkError::Gone) if Instant::now() < give_up => {
                    if matches!(link, Link::Remote { .. }) {
                        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                    }
                }
                Err(LinkError::Gone) => {
                    return Err(Refusal::new(
                        "room_not_found",
                        "the room could not be opened",
                    ))
                }
                Err(LinkError::Bus(message)) => return Err(internal(message)),
            }
        }
    }

    /// Leaves the current room, if any, keeping the seat, and waits
    /// until the room has let go of this connection.
    pub(super) async fn detach(&mut self) {
        let Some(linked) = self.room.take() else {
            return;
        };
        self.shared.conns.set_link(self.id, None);
        match &linked.link {
            Link::Local(room) => {
                let (done, confirmed) = oneshot::channel();
                let message = RoomMsg::Disconnect {
                    conn: self.id,
                    done: Some(done),
                };
                if room.send(message).await.is_ok() {
                    let _ = confirmed.await;
                }
            }
            Link::Remote { .. } => {
                let op = RemoteOp::Disconnect {
                    node: self.shared.config().node.clone(),
                    conn: self.id,
                };
                let _ = self.remote(&linked.code, &op).await;
            }
        }
    }
}

/// A quick match took the person out of the queue first.
pub(super) fn paired() -> Refusal {
    Refusal::new(
        codes::PAIRED,
        "a quick match has just paired you; your game is starting",
    )
}

/// A room frame read again from its text (to hand it to a room that moved).
fn reread(text: &str) -> Result<Request, Refusal> {
    let (frame, _) = protocol::parse(text).map_err(|e| e.refusal)?;
    Request::from_frame(frame).ok_or_else(|| Refusal::bad_request("this frame is not for a room"))
}
