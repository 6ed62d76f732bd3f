//! The games of the replay flood, over WebSockets with the protocol's types:
//! the long game whose replay is read, and the bystander's games against a
//! bot whose replies are timed.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use broadside_engine::{Cell, CustomShip, Intent, Options, Preset, Target};
use broadside_protocol::{BotLevel, BotSeat, ClientFrame, CreateRoom, Hello, ViewCopy};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long any one answer may take before the run fails.
const PATIENCE: Duration = Duration::from_secs(30);

/// One person's connection.
pub(super) struct Person {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The view as the last `state` or `change` left it: a `change` is read
    /// as the whole `state` it makes.
    copy: ViewCopy,
}

impl Person {
    /// Connects and says hello as `nickname`.
    pub(super) async fn connect(addr: SocketAddr, nickname: &str) -> Result<Person> {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .with_context(|| format!("cannot connect to ws://{addr}/ws"))?;
        let mut person = Person {
            ws,
            copy: ViewCopy::default(),
        };
        person
            .send(&ClientFrame::Hello(Hello {
                token: None,
                nickname: Some(nickname.into()),
                lang: None,
            }))
            .await?;
        person.expect("welcome").await?;
        Ok(person)
    }

    pub(super) async fn send(&mut self, frame: &ClientFrame) -> Result<()> {
        self.ws.send(Message::text(frame.to_text())).await?;
        Ok(())
    }

    /// The next frame with text.
    pub(super) async fn recv(&mut self) -> Result<Value> {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .map_err(|_| anyhow!("no frame from the server within {PATIENCE:?}"))?
                .ok_or_else(|| anyhow!("the server closed the connection"))??;
            if let Message::Text(text) = message {
                let frame: Value = serde_json::from_str(text.as_str())?;
                return self
                    .copy
                    .follow_json(frame)
                    .map_err(|_| anyhow!("a change out of step"));
            }
        }
    }

    /// Frames until one of type `kind`; an error fails.
    pub(super) async fn expect(&mut self, kind: &str) -> Result<Value> {
        loop {
            let frame = self.recv().await?;
            if frame["type"] == kind {
                return Ok(frame);
            }
            if frame["type"] == "error" {
                bail!("the server refused while waiting for {kind}: {frame}");
            }
        }
    }

    /// Creates a room, starts it and places the fleet at random; answers
    /// the first state of its battle.
    async fn start_game(&mut self, create: CreateRoom) -> Result<Value> {
        self.send(&ClientFrame::CreateRoom(Box::new(create)))
            .await?;
        self.expect("room").await?;
        self.send(&ClientFrame::Start).await?;
        self.state_until(|s| phase(s) == "placement").await?;
        self.send(&ClientFrame::intent(&Intent::PlaceRandom))
            .await?;
        self.state_until(|s| phase(s) == "battle").await
    }

    /// States until one satisfies `done`; an error fails (nothing this
    /// side sends should be refused).
    async fn state_until(&mut self, mut done: impl FnMut(&Value) -> bool) -> Result<Value> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.recv())
                .await
                .map_err(|_| anyhow!("the awaited state did not come within {PATIENCE:?}"))??;
            if frame["type"] == "error" {
                bail!("the server refused: {frame}");
            }
            if frame["type"] == "state" && done(&frame) {
                return Ok(frame);
            }
        }
    }
}

fn phase(state: &Value) -> &str {
    state["view"]["phase"].as_str().unwrap_or("")
}

fn my_move(state: &Value) -> bool {
    let seat = &state["view"]["seat"];
    state["view"]["to_move"]
        .as_array()
        .is_some_and(|to_move| to_move.contains(seat))
}

/// The first cell of `board` this seat may still shoot at (`~` in its view).
fn first_target(state: &Value, board: usize) -> Option<ClientFrame> {
    let boards = state["view"]["boards"].as_array()?;
    let rows = boards
        .iter()
        .find(|b| b["owner"].as_u64() == Some(board as u64))?["rows"]
        .as_array()?;
    for (row, text) in rows.iter().enumerate() {
        if let Some(col) = text.as_str()?.chars().position(|c| c == '~') {
            let at = Cell {
                col: col as u16,
                row: row as u16,
            };
            return Some(ClientFrame::intent(&Intent::Fire {
                target: Target { board, at },
            }));
        }
    }
    None
}

fn untimed() -> Options {
    Options {
        turn_seconds: Some(0),
        place_seconds: Some(0),
        round_seconds: Some(0),
        shop_seconds: Some(0),
        ..Options::default()
    }
}

/// Plays a long game to its end and answers its id: practice on the largest
/// board (26 × 26) against 40 small ships, shot cell by cell in reading
/// order, so that nearly every cell is a command of the replay.
pub(super) async fn long_game(addr: SocketAddr) -> Result<(i64, usize)> {
    let mut person = Person::connect(addr, "Archivist").await?;
    let create = CreateRoom {
        preset: Preset::Classic,
        seats: 2,
        options: Some(Options {
            cols: Some(26),
            rows: Some(26),
            fleet: Some(vec![CustomShip {
                id: "boat".into(),
                len: 2,
                count: 40,
            }]),
            practice: Some(true),
            ..untimed()
        }),
        teams: None,
        bots: vec![BotSeat {
            seat: 1,
            level: BotLevel::Easy,
        }],
        public: false,
        rated: false,
    };
    let mut state = person.start_game(create).await?;
    let mut shots = 0;
    // Below the server's frame rate (50 a second by default).
    let mut pace = tokio::time::interval(Duration::from_millis(22));
    while phase(&state) != "finished" {
        let fire = first_target(&state, 1).ok_or_else(|| anyhow!("no cell left to shoot"))?;
        pace.tick().await;
        person.send(&fire).await?;
        shots += 1;
        state = person
            .state_until(|s| my_move(s) || phase(s) == "finished")
            .await?;
    }
    person.send(&ClientFrame::History).await?;
    let history = person.expect("history").await?;
    let id = history["games"][0]["id"]
        .as_i64()
        .ok_or_else(|| anyhow!("the finished game is not in the history: {history}"))?;
    Ok((id, shots))
}

/// The bystander: plays games against a bot of `level` until `stop` is
/// set, and hands the time of each of the bot's replies (each bot shot,
/// from the state before it to the state that reports it: the bots' delay,
/// its thinking and the way through the server) to `reply`.
pub(super) async fn bystander(
    addr: SocketAddr,
    level: BotLevel,
    stop: tokio::sync::watch::Receiver<bool>,
    mut reply: impl FnMut(Duration),
) -> Result<()> {
    let mut person = Person::connect(addr, "Bystander").await?;
    while !*stop.borrow() {
        let create = CreateRoom {
            preset: Preset::Classic,
            seats: 2,
            options: Some(untimed()),
            teams: None,
            bots: vec![BotSeat { seat: 1, level }],
            public: false,
            rated: false,
        };
        let mut state = person.start_game(create).await?;
        if !my_move(&state) {
            state = person
                .state_until(|s| my_move(s) || phase(s) == "finished")
                .await?;
        }
        while phase(&state) != "finished" && !*stop.borrow() {
            let fire = first_target(&state, 1).ok_or_else(|| anyhow!("no cell left to shoot"))?;
            person.send(&fire).await?;
            // Each of the bot's shots is timed from the state before it
            // (this seat's shot answered, or the bot's shot before).
            let mut last = Instant::now();
            loop {
                let next = person.state_until(|_| true).await?;
                let now = Instant::now();
                if shot_by(&next, 1) {
                    reply(now - last);
                }
                last = now;
                if my_move(&next) || phase(&next) == "finished" {
                    state = next;
                    break;
                }
            }
        }
        person.send(&ClientFrame::Leave).await?;
        person.expect("left").await?;
    }
    Ok(())
}

/// Whether this state reports a shot of `seat`.
fn shot_by(state: &Value, seat: u64) -> bool {
    state["events"].as_array().is_some_and(|events| {
        events
            .iter()
            .any(|e| e["event"] == "shot" && e["shooter"].as_u64() == Some(seat))
    })
}
