//! One WebSocket connection: reads client frames, answers the ones about the
//! person (hello, my_games) and lobbies (create, join), and forwards the rest to
//! the actor of the room it is in. Frames for the connection arrive on its
//! outbox, from the room actor or from itself.

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use broadside_ai::Level;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::limits::Bucket;
use crate::protocol::{self, ClientFrame, CreateRoom, Refusal, Role};
use crate::room::{ConnId, Outbox, Person, Request, Room, RoomMsg, RoomSetup};
use crate::secret;
use crate::server::{now_ms, Shared};

/// Frames that may wait for a slow client before it is dropped from its room.
const OUTBOX_FRAMES: usize = 256;

/// Frames refused in a row for flooding before the connection is closed.
const FLOOD_CLOSE: u32 = 2_000;

/// Tries to make a new room code before giving up (codes are random; a clash
/// with an existing room is rare).
const CODE_ATTEMPTS: usize = 20;

struct Connection {
    id: ConnId,
    shared: Arc<Shared>,
    outbox: Outbox,
    person: Option<Person>,
    /// The room this connection is in, and its actor.
    room: Option<(String, mpsc::Sender<RoomMsg>)>,
    frames: Bucket,
    new_rooms: Bucket,
    /// Frames refused for flooding since the last accepted one.
    flooded: u32,
}

pub async fn run(mut socket: WebSocket, shared: Arc<Shared>) {
    let _alive = shared.alive_token();
    let mut shutdown = shared.shutdown_signal();
    if *shutdown.borrow() {
        return;
    }
    let (outbox, mut frames) = mpsc::channel::<String>(OUTBOX_FRAMES);
    let config = &shared.config;
    let frame_bucket = Bucket::new(config.frame_burst, config.frames_per_second);
    let new_rooms = Bucket::new(config.room_burst, config.rooms_per_minute / 60.0);
    let mut connection = Connection {
        id: shared.next_conn_id(),
        shared,
        outbox,
        person: None,
        room: None,
        frames: frame_bucket,
        new_rooms,
        flooded: 0,
    };
    loop {
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(_) | Message::Binary(_))) if !connection.admit() => {
                    if connection.flooded >= FLOOD_CLOSE {
                        break;
                    }
                }
                Some(Ok(Message::Text(text))) => connection.frame(text.as_str()).await,
                Some(Ok(Message::Binary(_))) => {
                    connection.refuse(&Refusal::new("bad_json", "frames are JSON text, not binary"), None, None);
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
            },
            Some(frame) = frames.recv() => {
                if socket.send(Message::Text(frame.into())).await.is_err() {
                    break;
                }
            }
            _ = shutdown.changed() => break,
        }
    }
    connection.detach().await;
}

impl Connection {
    /// Whether a frame may be read now; the first frame refused in a flood is
    /// answered with `rate_limited`, the rest are dropped silently.
    fn admit(&mut self) -> bool {
        if self.frames.take() {
            self.flooded = 0;
            return true;
        }
        self.flooded += 1;
        if self.flooded == 1 {
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
        false
    }

    fn send(&self, frame: String) {
        // The outbox is ours; if it is full the client is not reading and loses
        // this frame like it would lose the connection.
        let _ = self.outbox.try_send(frame);
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
            return self.hello(hello);
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
                return self.my_games(&person);
            }
            ClientFrame::CreateRoom(create) => return self.create_room(person, create).await,
            ClientFrame::JoinRoom(join) => {
                let code = secret::normalize_code(&join.code)
                    .ok_or_else(|| Refusal::new("room_not_found", "no room has that code"))?;
                return self.join(person, code, join.role).await;
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

    fn hello(&mut self, hello: protocol::Hello) -> Result<(), Refusal> {
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
                .player_by_token_hash(&secret::token_hash(token))
                .map_err(internal)?
                .map(|p| (token, p)),
            None => None,
        };
        let (token, person) = match known {
            Some((token, (player_id, stored))) => {
                let nickname = match nickname {
                    Some(nickname) if nickname != stored => {
                        db.set_nickname(player_id, &nickname).map_err(internal)?;
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
                    .create_player(&secret::token_hash(&token), &nickname, now_ms())
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

    fn my_games(&self, person: &Person) -> Result<(), Refusal> {
        let games = self
            .shared
            .db
            .my_games(person.player_id)
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
        if !self.new_rooms.take() {
            return Err(Refusal::new(
                "rate_limited",
                format!(
                    "too many new rooms: at most {} a minute",
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
        let rules = setup.check()?;
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
            )?
            else {
                continue;
            };
            self.shared.spawn_room(code.clone(), room);
            return self.join(person, code, Role::Player).await;
        }
        Err(internal("no free room code"))
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
                .map_err(internal)?
                .ok_or_else(|| Refusal::new("room_not_found", "no room has that code"))?;
            let (reply, answer) = oneshot::channel();
            let message = RoomMsg::Join {
                conn: self.id,
                person: person.clone(),
                role,
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
