//! One WebSocket connection: reads client frames, answers the ones about the
//! person (hello, my_games) and lobbies (create, join), and forwards the rest to
//! the actor of the room it is in. Frames for the connection arrive on its
//! outbox, from the room actor or from itself.
//!
//! The connection also enforces the limits of docs/protocol.md: the hello
//! deadline, the idle timeout (the server pings; any frame or pong counts as
//! life), the frame rate, the send timeout and the outbox bound. Whenever it
//! ends a connection it says why in a close frame.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use broadside_ai::Level;
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio::time::Instant;

use broadside_engine::{Options, Preset};

use crate::cluster::{Cluster, Link, LinkError, RemoteOp, REQUEST_TIMEOUT};
use crate::cpu::Key;
use crate::db::Waiting;
use crate::limits::Bucket;
use crate::protocol::{self, close, ClientFrame, CreateRoom, Refusal, Role};
use crate::ratings::PROVISIONAL_DEVIATION;
use crate::room::{ConnId, Control, Joining, Outbox, Person, Request, Room, RoomMsg, RoomSetup};
use crate::secret;
use crate::server::{now_ms, Shared};

/// Tries to make a new room code before giving up (codes are random; a clash
/// with an existing room is rare).
const CODE_ATTEMPTS: usize = 20;

/// Dropped frames forgiven per second when counting towards `flood_close`.
const FLOOD_FORGIVEN_PER_SECOND: f64 = 10.0;

struct Connection {
    id: ConnId,
    shared: Arc<Shared>,
    ip: IpAddr,
    outbox: Outbox,
    person: Option<Person>,
    /// The room this connection is in, and where it lives.
    room: Option<Linked>,
    frames: Bucket,
    /// Drops the connection may still afford before it is closed for flooding.
    flood: Bucket,
    /// Whether the last frame was dropped (the first of a flood is answered).
    flooding: bool,
    /// The client's language, from `hello`.
    lang: Option<String>,
    /// Waiting for a quick match.
    matching: Option<Matching>,
}

/// A connection's wait in the quick-match queue.
struct Matching {
    preset: Preset,
    since: Instant,
    /// Whether the bot was offered already.
    offered: bool,
    /// The count last told to the client.
    waiting: Option<u32>,
}

/// How often a waiting connection looks for a partner.
const MATCH_POLL: std::time::Duration = std::time::Duration::from_secs(1);
/// Rooms in the open rooms' list, lines of a leaderboard and of a history.
const OPEN_ROOMS: usize = 50;
const LEADERBOARD: usize = 50;
const HISTORY: usize = 50;

/// The room a connection is in.
struct Linked {
    code: String,
    link: Link,
    role: Role,
}

/// Why the server ends a connection: the close frame it sends.
type Closing = Option<(u16, &'static str)>;

pub async fn run(mut socket: WebSocket, shared: Arc<Shared>, ip: IpAddr) {
    let _alive = shared.alive_token();
    let mut shutdown = shared.shutdown_signal();
    if *shutdown.borrow() {
        return;
    }
    let config = shared.config.clone();
    let (outbox, mut inbox, mut controls) = Outbox::new(config.outbox_frames, config.outbox_bytes);
    let stalled = inbox.stalled.clone();
    let id = shared.next_conn_id();
    shared.conns.register(id, outbox.clone());
    let mut connection = Connection {
        id,
        ip,
        outbox,
        person: None,
        room: None,
        frames: Bucket::new(config.frame_burst, config.frames_per_second),
        flood: Bucket::new(config.flood_close, FLOOD_FORGIVEN_PER_SECOND),
        flooding: false,
        lang: None,
        matching: None,
        shared,
    };
    let hello_by = Instant::now() + config.hello_timeout;
    let mut match_tick = tokio::time::interval(MATCH_POLL);
    let mut heard = Instant::now();
    let mut ping =
        tokio::time::interval_at(Instant::now() + config.ping_interval, config.ping_interval);
    // The handlers below are awaited through `Box::pin`: a future holds the
    // state of every future it awaits inline, so the handling of one frame
    // would otherwise be carried for the whole life of every connection
    // (16.8 KiB a connection, not 3.8 KiB; docs/performance.md).
    let closing: Closing = loop {
        let deadline = match connection.person {
            None => hello_by.min(heard + config.idle_timeout),
            Some(_) => heard + config.idle_timeout,
        };
        tokio::select! {
            incoming = socket.recv() => {
                heard = Instant::now();
                match incoming {
                    Some(Ok(Message::Text(text))) => {
                        if let Some(closing) = connection.admit() {
                            break Some(closing);
                        }
                        if !connection.flooding {
                            Box::pin(connection.frame(text.as_str())).await;
                        }
                    }
                    Some(Ok(Message::Binary(_))) => {
                        if let Some(closing) = connection.admit() {
                            break Some(closing);
                        }
                        if !connection.flooding {
                            connection.refuse(&Refusal::new("bad_json", "frames are JSON text, not binary"), None, None);
                        }
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                    Some(Ok(Message::Close(_))) | None => break None,
                    Some(Err(error)) => break closing_for(error),
                }
            }
            Some(frame) = inbox.recv() => {
                if !send(&mut socket, Message::Text(frame.into()), &config).await {
                    break None;
                }
            }
            Some(control) = controls.recv() => {
                match control {
                    Control::Rejoin(code) => {
                        if Box::pin(connection.rejoin(&code)).await.is_err() {
                            break Some((close::RESTART, "the room moved and could not be reached again; reconnect"));
                        }
                    }
                    Control::Join(code) => Box::pin(connection.matched(code)).await,
                }
            }
            _ = match_tick.tick(), if connection.matching.is_some() => {
                Box::pin(connection.matching_tick()).await;
            }
            () = stalled.notified() => {
                break Some((close::TOO_SLOW, "too slow: frames for this connection no longer fit its queue; reconnect"));
            }
            _ = ping.tick() => {
                if !send(&mut socket, Message::Ping(Default::default()), &config).await {
                    break None;
                }
            }
            () = tokio::time::sleep_until(deadline) => {
                break Some(if connection.person.is_none() && deadline == hello_by {
                    (close::HELLO_TIMEOUT, "the first frame must be hello, sent within 10 seconds")
                } else {
                    (close::IDLE_TIMEOUT, "nothing received for too long (pongs count)")
                });
            }
            _ = shutdown.changed() => break Some((close::GOING_AWAY, "the server is shutting down")),
        }
    };
    Box::pin(connection.detach()).await;
    if let (Some(_), Some(person)) = (&connection.matching, &connection.person) {
        let _ = connection
            .shared
            .db
            .dequeue(person.player_id, connection.id)
            .await;
    }
    connection.shared.conns.unregister(connection.id);
    if let Some((code, reason)) = closing {
        let frame = CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        };
        let sent = send(&mut socket, Message::Close(Some(frame)), &config).await;
        if sent && code != close::GOING_AWAY {
            // The closing handshake: wait a moment for the client's close
            // (reading and dropping whatever comes first), so the socket is not
            // reset under a close frame the client has not read yet. (Not at
            // shutdown, which must not wait for every client.)
            let _ = tokio::time::timeout(CLOSE_LINGER, async {
                while let Some(Ok(message)) = socket.recv().await {
                    if matches!(message, Message::Close(_)) {
                        break;
                    }
                }
            })
            .await;
        }
    }
}

/// How long a closing connection waits for the client's close frame.
const CLOSE_LINGER: std::time::Duration = std::time::Duration::from_secs(1);

/// Sends one message, giving up after the send timeout (a client that stopped
/// reading cannot hold the connection's task forever).
async fn send(socket: &mut WebSocket, message: Message, config: &crate::Config) -> bool {
    matches!(
        tokio::time::timeout(config.send_timeout, socket.send(message)).await,
        Ok(Ok(()))
    )
}

/// The close frame for a connection whose frames could not be read.
fn closing_for(error: axum::Error) -> Closing {
    use tungstenite::error::{CapacityError, Error};
    let inner = error.into_inner();
    match inner.downcast_ref::<Error>() {
        Some(Error::Capacity(CapacityError::MessageTooLong { .. })) => {
            Some((close::TOO_BIG, "frames are at most 65536 bytes"))
        }
        Some(Error::Utf8(_)) => Some((close::NOT_UTF8, "text frames must be UTF-8")),
        Some(Error::Protocol(_) | Error::Capacity(_)) => {
            Some((close::PROTOCOL, "the WebSocket protocol was broken"))
        }
        _ => None,
    }
}

impl Connection {
    /// Whether a frame may be read now (`flooding` says); the first frame
    /// refused in a flood is answered with `rate_limited`, the rest are dropped
    /// silently, and too many drops close the connection.
    fn admit(&mut self) -> Closing {
        if self.frames.take() {
            self.flooding = false;
            return None;
        }
        if !self.flood.take() {
            return Some((close::FLOOD, "too many frames; slow down"));
        }
        let first = !self.flooding;
        self.flooding = true;
        if first {
            let config = &self.shared.config;
            self.refuse(
                &Refusal::new(
                    "rate_limited",
                    format!(
                        "too many frames: at most {} a second; frames are dropped until you slow down",
                        config.frames_per_second
                    ),
                ),
                None,
                None,
            );
        }
        None
    }

    fn send(&self, frame: String) {
        // If the outbox is full the client is not reading: the outbox tells the
        // connection to close (too slow).
        self.outbox.send(frame);
    }

    fn refuse(&self, refusal: &Refusal, request: Option<&str>, id: Option<u64>) {
        self.send(protocol::error_frame(refusal, request, id));
    }

    async fn frame(&mut self, text: &str) {
        let (frame, id) = match protocol::parse(text) {
            Ok(read) => read,
            Err(unreadable) => {
                return self.refuse(
                    &unreadable.refusal,
                    unreadable.kind.as_deref(),
                    unreadable.id,
                )
            }
        };
        let name = frame_name(&frame);
        if let Err(refusal) = self.handle(frame, text, id).await {
            self.refuse(&refusal, Some(name), id);
        }
    }

    async fn handle(
        &mut self,
        frame: ClientFrame,
        text: &str,
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        if let ClientFrame::Hello(hello) = frame {
            return self.hello(hello).await;
        }
        if matches!(frame, ClientFrame::Ping) {
            self.send(json!({"type": "pong"}).to_string());
            return Ok(());
        }
        let Some(person) = self.person.clone() else {
            return Err(Refusal::new("hello_first", "the first frame must be hello"));
        };
        match frame {
            ClientFrame::MyGames => {
                // Frames sent before my_games are answered as applied.
                self.sync().await;
                self.my_games(&person).await
            }
            ClientFrame::CreateRoom(create) => self.create_room(person, create).await,
            ClientFrame::QuickMatch(preset) => self.quick_match(person, preset).await,
            ClientFrame::CancelMatch => self.cancel_match(&person).await,
            ClientFrame::AcceptBot => self.accept_bot(person).await,
            ClientFrame::OpenRooms => self.open_rooms().await,
            ClientFrame::Leaderboard(preset) => self.leaderboard(preset).await,
            ClientFrame::History => self.history(&person).await,
            ClientFrame::JoinRoom(join) => self.join_by_code(person, &join.code, join.role).await,
            ClientFrame::Leave => {
                let linked = self.room.take().ok_or_else(not_in_room)?;
                self.shared.conns.set_link(self.id, None);
                match &linked.link {
                    Link::Local(room) => {
                        let _ = room.send(RoomMsg::Leave { conn: self.id }).await;
                    }
                    Link::Remote { .. } => {
                        let op = RemoteOp::Leave {
                            node: self.shared.config.node.clone(),
                            conn: self.id,
                        };
                        let _ = self.remote(&linked.code, &op).await;
                    }
                }
                Ok(())
            }
            frame => {
                let request =
                    Request::from_frame(frame).expect("every other frame is a room's request");
                self.hand_to_room(request, text, id).await
            }
        }
    }

    /// Hands a room frame to the connection's room, wherever it lives. If the
    /// room's node is gone, the room is looked up again (it may have moved to
    /// another node) and the frame handed there.
    async fn hand_to_room(
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
                    };
                    room.send(message).await.map_err(|_| LinkError::Gone)
                }
                Link::Remote { .. } => {
                    let op = RemoteOp::Request {
                        node: self.shared.config.node.clone(),
                        conn: self.id,
                        text: text.to_string(),
                    };
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
    async fn sync(&self) {
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

    /// A quick match paired this connection into room `code` (made by the
    /// partner's connection, maybe on another node).
    async fn matched(&mut self, code: String) {
        // Even after a `cancel_match` that crossed the pairing: the partner's
        // game has started with this person seated.
        self.matching = None;
        let Some(person) = self.person.clone() else {
            return;
        };
        if let Err(refusal) = self.join(person, code, Role::Player).await {
            self.refuse(&refusal, Some("quick_match"), None);
        }
    }

    /// Joins room `code` again where it lives now (it moved to another node).
    async fn rejoin(&mut self, code: &str) -> Result<(), Refusal> {
        let Some(linked) = self.room.take_if(|linked| linked.code == code) else {
            return Ok(());
        };
        self.shared.conns.set_link(self.id, None);
        let person = self.person.clone().ok_or_else(not_in_room)?;
        self.attach(person, linked.code, linked.role).await
    }

    async fn hello(&mut self, hello: protocol::Hello) -> Result<(), Refusal> {
        if self.person.is_some() {
            return Err(Refusal::bad_request("hello is sent once per connection"));
        }
        let nickname = hello
            .nickname
            .as_deref()
            .map(protocol::clean_nickname)
            .transpose()?;
        let db = &self.shared.db;
        let known = match hello.token.as_deref().filter(|t| secret::is_token(t)) {
            Some(token) => db
                .player_by_token_hash(secret::token_hash(token))
                .await
                .map_err(internal)?
                .map(|p| (token, p)),
            None => None,
        };
        let (token, person) = match known {
            Some((token, (player_id, stored))) => {
                let nickname = match nickname {
                    Some(nickname) if nickname != stored => {
                        db.set_nickname(player_id, nickname.clone())
                            .await
                            .map_err(internal)?;
                        nickname
                    }
                    _ => stored,
                };
                (
                    token.to_string(),
                    Person {
                        player_id,
                        nickname,
                    },
                )
            }
            None => {
                let nickname = nickname
                    .ok_or_else(|| Refusal::bad_request("a new player needs a nickname"))?;
                let token = secret::new_token().map_err(internal)?;
                let player_id = db
                    .create_player(secret::token_hash(&token), nickname.clone(), now_ms())
                    .await
                    .map_err(internal)?;
                (
                    token,
                    Person {
                        player_id,
                        nickname,
                    },
                )
            }
        };
        self.send(protocol::welcome_frame(&token, &person.nickname));
        self.person = Some(person);
        self.lang = hello
            .lang
            .filter(|lang| protocol::LANGUAGES.contains(&lang.as_str()));
        Ok(())
    }

    async fn my_games(&self, person: &Person) -> Result<(), Refusal> {
        let games = self
            .shared
            .db
            .my_games(person.player_id)
            .await
            .map_err(internal)?;
        let games: Vec<Value> = games
            .into_iter()
            .map(|game| {
                let preset = preset_of(&game.setup);
                let to_move: Vec<usize> = serde_json::from_str(&game.to_move).unwrap_or_default();
                let players: Vec<Value> = game
                    .seats
                    .iter()
                    .enumerate()
                    .map(|(seat, s)| {
                        json!({"seat": seat, "kind": s.kind, "nickname": s.nickname, "level": s.level})
                    })
                    .collect();
                json!({
                    "code": game.code, "preset": preset, "phase": game.phase, "seat": game.seat,
                    "players": players, "your_turn": to_move.contains(&game.seat), "updated": game.updated_ms,
                })
            })
            .collect();
        self.send(json!({"type": "games", "games": games}).to_string());
        Ok(())
    }

    async fn create_room(&mut self, person: Person, create: CreateRoom) -> Result<(), Refusal> {
        if !self.shared.addresses.take_new_room(self.ip) {
            return Err(Refusal::new(
                "rate_limited",
                format!(
                    "too many new rooms from your address: at most {} a minute",
                    self.shared.config.rooms_per_minute
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
        let bots: Vec<(usize, Level)> = create.bots.iter().map(|b| (b.seat, b.level)).collect();
        let code = self.new_room(setup, person.clone(), None, &bots).await?;
        self.join(person, code, Role::Player).await
    }

    /// Makes a room (a free code, stored, its actor running) with `person`
    /// as host, `guest` in seat 1 and `bots`; returns its code.
    async fn new_room(
        &self,
        setup: RoomSetup,
        person: Person,
        guest: Option<Person>,
        bots: &[(usize, Level)],
    ) -> Result<String, Refusal> {
        // A custom fleet's fit check is a search: on the pool, in this
        // address's turn.
        let rules = {
            let setup = setup.clone();
            self.shared
                .cpu
                .run(Key::Client(self.ip), move || setup.check())
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
                self.shared.clone(),
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
            self.shared
                .spawn_room(code.clone(), room)
                .await
                .map_err(internal)?;
            return Ok(code);
        }
        Err(internal("no free room code"))
    }

    /// Starts the game of a room this node just made (a quick match).
    async fn start_now(&self, code: &str) -> Result<(), Refusal> {
        let Some(Link::Local(room)) = self.shared.room(code).await.map_err(internal)? else {
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

    // ----- public play ---------------------------------------------------------------

    /// `quick_match`: waits in the preset's queue, or pairs with whoever has
    /// waited longest for it.
    async fn quick_match(&mut self, person: Person, preset: Preset) -> Result<(), Refusal> {
        self.matching = Some(Matching {
            preset,
            since: Instant::now(),
            offered: false,
            waiting: None,
        });
        self.enqueue(&person, preset).await?;
        self.try_match(&person).await
    }

    async fn enqueue(&self, person: &Person, preset: Preset) -> Result<(), Refusal> {
        let waiting = Waiting {
            player_id: person.player_id,
            nickname: person.nickname.clone(),
            node: self.shared.config.node.clone(),
            conn: self.id,
        };
        self.shared
            .db
            .enqueue(waiting, preset.id().to_string(), now_ms())
            .await
            .map_err(internal)
    }

    /// Pairs this connection with the person who has waited longest for the
    /// same preset, if anybody waits; otherwise tells the client how many wait.
    async fn try_match(&mut self, person: &Person) -> Result<(), Refusal> {
        let Some(matching) = &self.matching else {
            return Ok(());
        };
        let preset = matching.preset;
        let db = &self.shared.db;
        // A partner whose node died is skipped (and left out of the queue).
        for _ in 0..4 {
            let Some((_, partner)) = db
                .take_partner(person.player_id, self.id)
                .await
                .map_err(internal)?
            else {
                break;
            };
            let alive = match &self.shared.cluster {
                Some(cluster) => cluster.is_alive(&partner.node),
                None => true,
            } && (partner.node != self.shared.config.node
                || self.shared.conns.outbox(partner.conn).is_some());
            if alive {
                return self.start_match(person.clone(), preset, partner).await;
            }
            self.enqueue(person, preset).await?;
        }
        let waiting = db
            .waiting(preset.id().to_string())
            .await
            .map_err(internal)?;
        let Some(matching) = self.matching.as_mut() else {
            return Ok(());
        };
        if matching.waiting != Some(waiting) {
            matching.waiting = Some(waiting);
            let waited = matching.since.elapsed().as_millis() as u64;
            let wait = self.shared.config.match_wait.as_millis() as u64;
            self.send(
                json!({"type": "matching", "preset": preset.id(), "waiting": waiting,
                    "waited_ms": waited, "bot_offer_ms": wait})
                .to_string(),
            );
        }
        Ok(())
    }

    /// A rated room for this person and their partner, started at once; the
    /// partner's connection (on this node or another) is told to join it.
    async fn start_match(
        &mut self,
        person: Person,
        preset: Preset,
        partner: Waiting,
    ) -> Result<(), Refusal> {
        self.matching = None;
        let setup = RoomSetup {
            preset,
            seats: 2,
            options: Options::default(),
            teams: None,
            public: false,
            rated: true,
            language: self.lang.clone(),
        };
        let guest = Person {
            player_id: partner.player_id,
            nickname: partner.nickname.clone(),
        };
        let code = self
            .new_room(setup, person.clone(), Some(guest), &[])
            .await?;
        self.start_now(&code).await?;
        Cluster::control_for(
            &self.shared,
            &partner.node,
            partner.conn,
            Control::Join(code.clone()),
        );
        self.join(person, code, Role::Player).await
    }

    /// Once a second while waiting: pairs if a partner came, updates the
    /// count, and offers a bot after the wait.
    async fn matching_tick(&mut self) {
        let Some(person) = self.person.clone() else {
            return;
        };
        if let Err(refusal) = self.try_match(&person).await {
            self.refuse(&refusal, Some("quick_match"), None);
        }
        let wait = self.shared.config.match_wait;
        let Some(matching) = self.matching.as_mut() else {
            return;
        };
        if !matching.offered && matching.since.elapsed() >= wait {
            matching.offered = true;
            let preset = matching.preset;
            let level = self.bot_level(&person, preset).await;
            self.send(
                json!({"type": "bot_offer", "preset": preset.id(), "level": level.id()})
                    .to_string(),
            );
        }
    }

    /// A bot of about this person's strength in `preset`.
    async fn bot_level(&self, person: &Person, preset: Preset) -> Level {
        let rating = self
            .shared
            .db
            .ratings(vec![person.player_id], preset.id().to_string())
            .await
            .ok()
            .and_then(|r| r.get(&person.player_id).map(|r| r.rating))
            .unwrap_or(1500.0);
        match rating {
            r if r < 1350.0 => Level::Easy,
            r if r < 1550.0 => Level::Medium,
            r if r < 1750.0 => Level::Hard,
            _ => Level::Expert,
        }
    }

    /// `accept_bot`: leaves the queue for a game against a bot, at once.
    async fn accept_bot(&mut self, person: Person) -> Result<(), Refusal> {
        let matching = self.matching.take().ok_or_else(not_matching)?;
        self.shared
            .db
            .dequeue(person.player_id, self.id)
            .await
            .map_err(internal)?;
        let level = self.bot_level(&person, matching.preset).await;
        let setup = RoomSetup {
            preset: matching.preset,
            seats: 2,
            options: Options::default(),
            teams: None,
            public: false,
            rated: false,
            language: self.lang.clone(),
        };
        let code = self
            .new_room(setup, person.clone(), None, &[(1, level)])
            .await?;
        self.start_now(&code).await?;
        self.join(person, code, Role::Player).await
    }

    /// `cancel_match`.
    async fn cancel_match(&mut self, person: &Person) -> Result<(), Refusal> {
        self.matching.take().ok_or_else(not_matching)?;
        self.shared
            .db
            .dequeue(person.player_id, self.id)
            .await
            .map_err(internal)?;
        self.send(json!({"type": "match_cancelled"}).to_string());
        Ok(())
    }

    /// `open_rooms`: the public rooms in their lobby with a seat open.
    async fn open_rooms(&self) -> Result<(), Refusal> {
        let rooms = self
            .shared
            .db
            .open_rooms(OPEN_ROOMS)
            .await
            .map_err(internal)?;
        let rooms: Vec<Value> = rooms
            .into_iter()
            .filter_map(|room| {
                let setup: RoomSetup = serde_json::from_str(&room.setup).ok()?;
                let taken = room.seats.iter().filter(|s| s.kind != "open").count();
                let host = room.seats.first().and_then(|s| s.nickname.clone());
                (taken < setup.seats).then(|| {
                    json!({"code": room.code, "preset": setup.preset.id(), "seats": setup.seats,
                        "taken": taken, "language": setup.language, "host": host,
                        "rated": setup.rated, "updated": room.updated_ms})
                })
            })
            .collect();
        self.send(json!({"type": "open_rooms", "rooms": rooms}).to_string());
        Ok(())
    }

    /// `leaderboard`: the best ratings of a preset.
    async fn leaderboard(&self, preset: Preset) -> Result<(), Refusal> {
        let rows = self
            .shared
            .db
            .leaderboard(preset.id().to_string(), LEADERBOARD)
            .await
            .map_err(internal)?;
        let players: Vec<Value> = rows
            .into_iter()
            .map(|row| {
                json!({"nickname": row.nickname, "rating": row.rating.rating.round(),
                    "deviation": row.rating.deviation.round(), "games": row.rating.games,
                    "wins": row.rating.wins,
                    "provisional": row.rating.deviation > PROVISIONAL_DEVIATION})
            })
            .collect();
        self.send(
            json!({"type": "leaderboard", "preset": preset.id(), "players": players}).to_string(),
        );
        Ok(())
    }

    /// `history`: the person's finished games, newest first.
    async fn history(&self, person: &Person) -> Result<(), Refusal> {
        let games = self
            .shared
            .db
            .history(person.player_id, HISTORY)
            .await
            .map_err(internal)?;
        let games: Vec<Value> = games
            .into_iter()
            .map(|game| {
                let preset = preset_of(&game.setup);
                let result = match game.placing {
                    1 if game.firsts == game.seats => "draw".to_string(),
                    1 => "win".to_string(),
                    _ if game.seats == 2 => "loss".to_string(),
                    placing => format!("place {placing}"),
                };
                let change = game
                    .rating_before
                    .zip(game.rating_after)
                    .map(|(before, after)| (after - before).round());
                json!({"id": game.game_id, "code": game.code, "preset": preset,
                    "finished_at": game.finished_ms, "result": result, "placing": game.placing,
                    "seats": game.seats, "rating": game.rating_after.map(f64::round),
                    "rating_change": change, "replay": format!("/g/{}", game.game_id)})
            })
            .collect();
        self.send(json!({"type": "history", "games": games}).to_string());
        Ok(())
    }

    /// `join_room`: codes that name no room are rationed per address, so that
    /// nobody can sweep the codes to find rooms (docs/protocol.md).
    async fn join_by_code(
        &mut self,
        person: Person,
        code: &str,
        role: Role,
    ) -> Result<(), Refusal> {
        let addresses = self.shared.addresses.clone();
        if !addresses.may_guess(self.ip) {
            return Err(Refusal::new(
                "rate_limited",
                format!(
                    "too many unknown room codes from your address: at most {} a minute",
                    self.shared.config.unknown_codes_per_minute
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

    async fn join(&mut self, person: Person, code: String, role: Role) -> Result<(), Refusal> {
        // Out of the current room first, and only then into the next: once the
        // old room has confirmed, it sends nothing more, so every frame after
        // the new `room` frame belongs to the new room.
        self.detach().await;
        self.attach(person, code, role).await
    }

    /// Joins room `code` wherever it lives. A room whose node does not answer
    /// (dead or stalled) is looked up again until its lease runs out and a
    /// live node takes it; a room retiring from memory at this very moment
    /// is loaded again.
    async fn attach(&mut self, person: Person, code: String, role: Role) -> Result<(), Refusal> {
        let config = &self.shared.config;
        let give_up = Instant::now() + config.lease_ttl + REQUEST_TIMEOUT * 2;
        loop {
            let link = self
                .shared
                .room(&code)
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
    async fn detach(&mut self) {
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
                    node: self.shared.config.node.clone(),
                    conn: self.id,
                };
                let _ = self.remote(&linked.code, &op).await;
            }
        }
    }
}

/// A room frame read again from its text (to hand it to a room that moved).
fn reread(text: &str) -> Result<Request, Refusal> {
    let (frame, _) = protocol::parse(text).map_err(|e| e.refusal)?;
    Request::from_frame(frame).ok_or_else(|| Refusal::bad_request("this frame is not for a room"))
}

fn frame_name(frame: &ClientFrame) -> &'static str {
    match frame {
        ClientFrame::Hello(_) => "hello",
        ClientFrame::CreateRoom(_) => "create_room",
        ClientFrame::JoinRoom(_) => "join_room",
        ClientFrame::SetSeat(_) => "set_seat",
        ClientFrame::SetOptions(_) => "set_options",
        ClientFrame::Start => "start",
        ClientFrame::Command(_) => "command",
        ClientFrame::CheckLayout(_) => "check_layout",
        ClientFrame::RandomLayout(_) => "random_layout",
        ClientFrame::PreviewAction(_) => "preview_action",
        ClientFrame::Chat(_) => "chat",
        ClientFrame::Resign => "resign",
        ClientFrame::Rematch => "rematch",
        ClientFrame::DeclineRematch => "decline_rematch",
        ClientFrame::Leave => "leave",
        ClientFrame::MyGames => "my_games",
        ClientFrame::Ping => "ping",
        ClientFrame::QuickMatch(_) => "quick_match",
        ClientFrame::CancelMatch => "cancel_match",
        ClientFrame::AcceptBot => "accept_bot",
        ClientFrame::OpenRooms => "open_rooms",
        ClientFrame::Leaderboard(_) => "leaderboard",
        ClientFrame::History => "history",
    }
}

/// The preset named in a stored room setup (JSON), or null.
fn preset_of(setup: &str) -> Value {
    serde_json::from_str::<Value>(setup)
        .ok()
        .and_then(|setup| setup.get("preset").cloned())
        .unwrap_or(Value::Null)
}

fn not_matching() -> Refusal {
    Refusal::new("not_matching", "you are not waiting for a quick match")
}

fn not_in_room() -> Refusal {
    Refusal::new("not_in_room", "join a room first")
}

fn internal(error: impl std::fmt::Display) -> Refusal {
    Refusal::new("internal", format!("the server failed: {error}"))
}
