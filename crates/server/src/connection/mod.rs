//! One WebSocket connection: reads client frames, answers the ones about the
//! person (hello) itself, hands public play (quick match, lists) to the lobby
//! service, joins rooms through the registry, and forwards the room frames to
//! the actor of the room it is in. Frames for the connection arrive on its
//! outbox, from the room actor or from itself.
//!
//! The connection also enforces the limits of docs/protocol.md: the hello
//! deadline, the idle timeout (the server pings; any frame or pong counts as
//! life), the frame rate, the send timeout and the outbox bound. Whenever it
//! ends a connection it says why in a close frame.
//!
//! `rooms` holds joining, leaving and forwarding; `public` the quick match
//! and the lists (it joins rooms through `rooms`).

mod account;
mod public;
mod rooms;

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use broadside_engine::Preset;
use tokio::time::{Instant, Sleep};

use crate::config::Config;
use crate::limits::Bucket;
use crate::lobby::QueueNews;
use crate::moderation;
use crate::outbox::{ConnId, Control, Outbox};
use crate::protocol::{self, close, codes, ClientFrame, Refusal, Role, ServerFrame};
use crate::registry::Link;
use crate::room::{Person, Request};
use crate::secret;
use crate::shared::Shared;

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
    /// Chat lines, rationed apart from the frames: a room's talk must not
    /// be drowned by one voice.
    chat: Bucket,
    /// Drops the connection may still afford before it is closed for flooding.
    flood: Bucket,
    /// Whether the last frame was dropped (the first of a flood is answered).
    flooding: bool,
    /// The client's language, from `hello`.
    lang: Option<String>,
    /// Waiting for a quick match.
    matching: Option<Matching>,
    /// The hash of the session token this connection said hello with.
    session: Vec<u8>,
    /// The account's username, when the session is an account's.
    username: Option<String>,
    /// A passkey ceremony under way (accounts.rs).
    ceremony: Option<crate::accounts::Ceremony>,
    /// A link code this connection asked for, waiting for approval.
    link_wait: Option<LinkWait>,
    /// Muted until then (unix ms): chat lines are refused.
    muted_until: Option<i64>,
    /// Close after this frame's answers are sent (a banned person's hello).
    close_after: Closing,
}

/// A link code shown by this connection (the terminal's sign-in), until a
/// signed-in device approves it or it expires.
struct LinkWait {
    hash: Vec<u8>,
    until: Instant,
}

/// A connection's wait in the quick-match queue. It does not poll: it wakes
/// when its preset's queue has news (lobby.rs) or when the bot is due.
struct Matching {
    preset: Preset,
    since: Instant,
    /// When the bot is offered; `None` once it has been.
    offer: Option<Pin<Box<Sleep>>>,
    /// The count last told to the client.
    waiting: Option<u32>,
    /// How many wait for the preset, as this node hears it.
    news: QueueNews,
}

/// What wakes a waiting connection.
enum MatchEvent {
    /// The queue's count changed, or two or more wait.
    News,
    /// The wait for a person is over: offer the bot.
    OfferBot,
}

impl Matching {
    async fn next(&mut self) -> MatchEvent {
        let offer = async {
            match self.offer.as_mut() {
                Some(sleep) => sleep.await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            Ok(()) = self.news.changed() => MatchEvent::News,
            () = offer => MatchEvent::OfferBot,
        }
    }
}

/// The next event of a wait, if the connection waits (never otherwise).
async fn next_match_event(matching: &mut Option<Matching>) -> MatchEvent {
    match matching {
        Some(matching) => matching.next().await,
        None => std::future::pending().await,
    }
}

/// The room a connection is in.
struct Linked {
    code: String,
    link: Link,
    role: Role,
}

/// Why the server ends a connection: the close frame it sends.
type Closing = Option<(u16, &'static str)>;

pub async fn run(mut socket: WebSocket, shared: Arc<Shared>, ip: IpAddr) {
    let _alive = shared.lifecycle.alive_token();
    let mut shutdown = shared.lifecycle.shutdown_signal();
    if *shutdown.borrow() {
        return;
    }
    let config = shared.config().clone();
    let (outbox, mut inbox, mut controls) = Outbox::new(config.outbox_frames, config.outbox_bytes);
    let stalled = inbox.stalled.clone();
    let id = shared.context.ids.next();
    shared.conns.register(id, outbox.clone());
    let mut connection = Connection {
        id,
        ip,
        outbox,
        person: None,
        room: None,
        frames: Bucket::new(config.frame_burst, config.frames_per_second),
        chat: Bucket::new(config.chat_burst, config.chat_per_minute / 60.0),
        flood: Bucket::new(config.flood_close, FLOOD_FORGIVEN_PER_SECOND),
        flooding: false,
        lang: None,
        matching: None,
        session: Vec::new(),
        username: None,
        ceremony: None,
        link_wait: None,
        muted_until: None,
        close_after: None,
        shared,
    };
    let hello_by = Instant::now() + config.hello_timeout;
    let mut heard = Instant::now();
    let mut ping =
        tokio::time::interval_at(Instant::now() + config.ping_interval, config.ping_interval);
    let mut link_poll = tokio::time::interval(account::LINK_POLL);
    // The handlers below are awaited through `Box::pin`: a future holds the
    // state of every future it awaits inline, so the handling of one frame
    // would otherwise be carried for the whole life of every connection
    // (16.8 KiB a connection, not 3.8 KiB; docs/performance.md).
    let closing: Closing = loop {
        let deadline = match connection.person {
            None => hello_by.min(heard + config.idle_timeout),
            Some(_) => heard + config.idle_timeout,
        };
        let waiting = connection.matching.is_some();
        let linking = connection.link_wait.is_some();
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
                        if let Some(closing) = connection.close_after.take() {
                            break Some(closing);
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
                crate::metrics::frame_out(&frame);
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
                    Control::SignOut => {
                        break Some((close::SIGNED_OUT, "signed out: this session was ended"));
                    }
                    Control::Banned => {
                        break Some((close::BANNED, "banned by the server's operators"));
                    }
                    Control::Muted(until) => connection.muted_until = until,
                }
            }
            event = next_match_event(&mut connection.matching), if waiting => {
                Box::pin(connection.match_event(event)).await;
            }
            _ = link_poll.tick(), if linking => {
                Box::pin(connection.poll_link()).await;
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
    if let (Some(matching), Some(person)) = (&connection.matching, &connection.person) {
        let _ = connection
            .shared
            .lobby
            .dequeue(person, connection.id, matching.preset)
            .await;
    }
    connection.shared.conns.unregister(connection.id);
    if let Some((code, reason)) = closing {
        // What the connection was last told (why it is closed) goes first.
        while let Some(frame) = inbox.try_recv() {
            crate::metrics::frame_out(&frame);
            if !send(&mut socket, Message::Text(frame.into()), &config).await {
                break;
            }
        }
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
async fn send(socket: &mut WebSocket, message: Message, config: &Config) -> bool {
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
            let config = self.shared.config();
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
        self.send(ServerFrame::error(refusal, request, id).to_text());
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
        let name = frame.kind();
        crate::metrics::frame_in(name);
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
            self.send(ServerFrame::Pong.to_text());
            return Ok(());
        }
        let Some(person) = self.person.clone() else {
            return Err(Refusal::new("hello_first", "the first frame must be hello"));
        };
        let lobby = self.shared.lobby.clone();
        match frame {
            ClientFrame::MyGames => {
                // Frames sent before my_games are answered as applied.
                self.sync().await;
                self.answer(lobby.my_games(person.player_id).await)
            }
            ClientFrame::CreateRoom(create) => self.create_room(person, *create).await,
            ClientFrame::QuickMatch { preset } => self.quick_match(person, preset).await,
            ClientFrame::CancelMatch => self.cancel_match(&person).await,
            ClientFrame::AcceptBot => self.accept_bot(person).await,
            ClientFrame::OpenRooms => self.answer(lobby.open_rooms().await),
            ClientFrame::Leaderboard { preset } => self.answer(lobby.leaderboard(preset).await),
            ClientFrame::History => self.answer(lobby.history(person.player_id).await),
            ClientFrame::JoinRoom(join) => self.join_by_code(person, &join.code, join.role).await,
            ClientFrame::Leave => self.leave().await,
            frame if frame.is_about_accounts() => self.account_frame(person, frame).await,
            ClientFrame::Blocks => self.send_blocks(&person).await,
            ClientFrame::Unblock { player } => {
                let db = &self.shared.context.db;
                db.remove_block(person.player_id, player)
                    .await
                    .map_err(internal)?;
                self.send_blocks(&person).await
            }
            frame => {
                if matches!(frame, ClientFrame::Chat { .. }) && self.room.is_some() {
                    if let Some(until) = self
                        .muted_until
                        .filter(|&u| u > self.shared.context.now_ms())
                    {
                        return Err(crate::moderation::muted(until));
                    }
                    self.take_chat_line()?;
                }
                let request =
                    Request::from_frame(frame).expect("every other frame is a room's request");
                self.hand_to_room(request, text, id).await
            }
        }
    }

    /// Spends a chat line of this connection's ration, or says how long to wait.
    fn take_chat_line(&mut self) -> Result<(), Refusal> {
        if self.chat.take() {
            return Ok(());
        }
        let config = self.shared.config();
        Err(Refusal::new(
            codes::CHAT_RATE_LIMITED,
            format!(
                "too many chat lines: {} at once, then {} a minute",
                config.chat_burst, config.chat_per_minute
            ),
        ))
    }

    /// Whether the person holds a seat in room `code` (a lobby or an
    /// unfinished game): joining it is coming back, never a guess at a code,
    /// so no ration of the address (shared with others behind the same
    /// NAT) may refuse it.
    pub(super) async fn holds_seat_in(&self, person: &Person, code: &str) -> bool {
        let Some(code) = secret::normalize_code(code) else {
            return false;
        };
        self.shared
            .context
            .db
            .my_games(person.player_id)
            .await
            .is_ok_and(|games| games.iter().any(|game| game.code == code))
    }

    /// Sends the lobby's answer, or passes on its refusal.
    fn answer(&self, frame: Result<ServerFrame, Refusal>) -> Result<(), Refusal> {
        self.send(frame?.to_text());
        Ok(())
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
        let context = &self.shared.context;
        let db = &context.db;
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
                        account: false,
                    },
                )
            }
            None => {
                let nickname = nickname
                    .ok_or_else(|| Refusal::bad_request("a new player needs a nickname"))?;
                let token = secret::new_token().map_err(internal)?;
                let player_id = db
                    .create_player(
                        secret::token_hash(&token),
                        nickname.clone(),
                        context.now_ms(),
                    )
                    .await
                    .map_err(internal)?;
                (
                    token,
                    Person {
                        player_id,
                        nickname,
                        account: false,
                    },
                )
            }
        };
        let mut person = person;
        let sanction = db.sanction(person.player_id).await.map_err(internal)?;
        let now = context.now_ms();
        if let Some(until) = moderation::banned_until(sanction.as_ref(), now) {
            self.close_after = Some((close::BANNED, "banned by the server's operators"));
            return Err(moderation::banned(until));
        }
        self.muted_until = moderation::muted_until(sanction.as_ref(), now);
        let username = db
            .account(person.player_id)
            .await
            .map_err(internal)?
            .map(|account| account.username);
        person.account = username.is_some();
        self.session = secret::token_hash(&token);
        self.shared
            .conns
            .set_session(self.id, person.player_id, self.session.clone());
        self.send(
            ServerFrame::Welcome {
                token,
                nickname: person.nickname.clone(),
                username: username.clone(),
            }
            .to_text(),
        );
        self.username = username;
        self.person = Some(person);
        self.lang = hello
            .lang
            .filter(|lang| protocol::LANGUAGES.contains(&lang.as_str()));
        Ok(())
    }
}

fn not_in_room() -> Refusal {
    Refusal::new("not_in_room", "join a room first")
}

fn internal(error: impl std::fmt::Display) -> Refusal {
    Refusal::new("internal", format!("the server failed: {error}"))
}
