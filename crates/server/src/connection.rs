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
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::cpu::Key;
use crate::limits::Bucket;
use crate::protocol::{self, close, ClientFrame, CreateRoom, Refusal, Role};
use crate::room::{ConnId, Outbox, Person, Request, Room, RoomMsg, RoomSetup};
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
    /// The room this connection is in, and its actor.
    room: Option<(String, mpsc::Sender<RoomMsg>)>,
    frames: Bucket,
    /// Drops the connection may still afford before it is closed for flooding.
    flood: Bucket,
    /// Whether the last frame was dropped (the first of a flood is answered).
    flooding: bool,
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
    let (outbox, mut inbox) = Outbox::new(config.outbox_frames, config.outbox_bytes);
    let stalled = inbox.stalled.clone();
    let mut connection = Connection {
        id: shared.next_conn_id(),
        ip,
        outbox,
        person: None,
        room: None,
        frames: Bucket::new(config.frame_burst, config.frames_per_second),
        flood: Bucket::new(config.flood_close, FLOOD_FORGIVEN_PER_SECOND),
        flooding: false,
        shared,
    };
    let hello_by = Instant::now() + config.hello_timeout;
    let mut heard = Instant::now();
    let mut ping =
        tokio::time::interval_at(Instant::now() + config.ping_interval, config.ping_interval);
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
                            connection.frame(text.as_str()).await;
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
    connection.detach().await;
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
        if let Err(refusal) = self.handle(frame, id).await {
            self.refuse(&refusal, Some(name), id);
        }
    }

    async fn handle(&mut self, frame: ClientFrame, id: Option<u64>) -> Result<(), Refusal> {
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
        let request = match frame {
            ClientFrame::Hello(_) | ClientFrame::Ping => unreachable!("handled above"),
            ClientFrame::MyGames => {
                // Frames sent before my_games are answered as applied.
                if let Some((_, room)) = &self.room {
                    let (done, synced) = oneshot::channel();
                    if room.send(RoomMsg::Sync { done }).await.is_ok() {
                        let _ = synced.await;
                    }
                }
                return self.my_games(&person).await;
            }
            ClientFrame::CreateRoom(create) => return self.create_room(person, create).await,
            ClientFrame::JoinRoom(join) => {
                return self.join_by_code(person, &join.code, join.role).await
            }
            ClientFrame::Leave => {
                let (_, room) = self.room.take().ok_or_else(not_in_room)?;
                let _ = room.send(RoomMsg::Leave { conn: self.id }).await;
                return Ok(());
            }
            ClientFrame::SetSeat(set) => Request::SetSeat {
                seat: set.seat,
                occupant: set.occupant,
                level: set.level,
            },
            ClientFrame::SetOptions(set) => Request::SetOptions(set),
            ClientFrame::Start => Request::Start,
            ClientFrame::Command(command) => Request::Command(command),
            ClientFrame::Resign => {
                let mut command = serde_json::Map::new();
                command.insert("cmd".into(), Value::from("resign"));
                Request::Command(command)
            }
            ClientFrame::CheckLayout(ships) => Request::CheckLayout(ships),
            ClientFrame::RandomLayout(fixed) => Request::RandomLayout(fixed),
            ClientFrame::PreviewAction(action) => Request::PreviewAction(action),
            ClientFrame::Chat(text) => Request::Chat(text),
            ClientFrame::Rematch => Request::Rematch,
        };
        let (_, room) = self.room.as_ref().ok_or_else(not_in_room)?;
        if room
            .send(RoomMsg::Request {
                conn: self.id,
                request,
                id,
            })
            .await
            .is_err()
        {
            self.room = None;
            return Err(Refusal::new("room_not_found", "the room is closed"));
        }
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
                let preset = serde_json::from_str::<Value>(&game.setup)
                    .ok()
                    .and_then(|setup| setup.get("preset").cloned())
                    .unwrap_or(Value::Null);
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
        };
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
        let bots: Vec<(usize, Level)> = create.bots.iter().map(|b| (b.seat, b.level)).collect();
        for _ in 0..CODE_ATTEMPTS {
            let code = secret::new_room_code().map_err(internal)?;
            let Some(room) = Room::create(
                self.shared.clone(),
                code.clone(),
                setup.clone(),
                rules.clone(),
                person.clone(),
                &bots,
            )
            .await?
            else {
                continue;
            };
            self.shared.spawn_room(code.clone(), room).await;
            return self.join(person, code, Role::Player).await;
        }
        Err(internal("no free room code"))
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
        // A room retiring from memory at this very moment drops the join
        // unanswered; the second attempt loads it again from the database.
        for _ in 0..2 {
            let room = self
                .shared
                .room(&code)
                .await
                .map_err(internal)?
                .ok_or_else(|| Refusal::new("room_not_found", "no room has that code"))?;
            let (reply, answer) = oneshot::channel();
            let message = RoomMsg::Join {
                conn: self.id,
                person: person.clone(),
                role,
                ip: self.ip,
                outbox: self.outbox.clone(),
                reply,
            };
            if room.send(message).await.is_err() {
                continue;
            }
            let Ok(joined) = answer.await else { continue };
            joined?;
            self.room = Some((code, room));
            return Ok(());
        }
        Err(Refusal::new(
            "room_not_found",
            "the room could not be opened",
        ))
    }

    /// Leaves the current room, if any, keeping the seat, and waits
    /// until the room has let go of this connection.
    async fn detach(&mut self) {
        if let Some((_, room)) = self.room.take() {
            let (done, confirmed) = oneshot::channel();
            if room
                .send(RoomMsg::Disconnect {
                    conn: self.id,
                    done: Some(done),
                })
                .await
                .is_ok()
            {
                let _ = confirmed.await;
            }
        }
    }
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
        ClientFrame::Leave => "leave",
        ClientFrame::MyGames => "my_games",
        ClientFrame::Ping => "ping",
    }
}

fn not_in_room() -> Refusal {
    Refusal::new("not_in_room", "join a room first")
}

fn internal(error: impl std::fmt::Display) -> Refusal {
    Refusal::new("internal", format!("the server failed: {error}"))
}
