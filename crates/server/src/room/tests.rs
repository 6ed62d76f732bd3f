//! Rooms driven without sockets or a server: a room made on an in-memory
//! SQLite database with its [`RoomContext`], sent messages through its inbox,
//! its frames read from test outboxes.

use std::sync::Arc;
use std::time::Duration;

use broadside_ai::Level;
use broadside_protocol::ViewCopy;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::{End, Joining, Person, Request, Room, RoomMsg, RoomSetup, SetupRules};
use crate::config::Config;
use crate::context::RoomContext;
use crate::db::Db;
use crate::outbox::{ConnId, Inbox, Outbox};
use crate::protocol::{Refusal, Role};

/// How long a test waits for a frame before it fails.
const PATIENCE: Duration = Duration::from_secs(20);

/// A context on a fresh in-memory database; bots move at once.
fn context(config: Config) -> Arc<RoomContext> {
    let db = Db::open_in_memory().expect("an in-memory database opens");
    Arc::new(RoomContext::new(
        db,
        Config {
            bot_delay: Duration::ZERO,
            cpu_threads: 1,
            ..config
        },
    ))
}

/// A person stored in the context's database.
async fn person(context: &RoomContext, nickname: &str) -> Person {
    let player_id = context
        .db
        .create_player(nickname.as_bytes().to_vec(), nickname.into(), 0)
        .await
        .expect("a player is stored");
    Person {
        player_id,
        nickname: nickname.into(),
        account: true,
    }
}

/// A classic duel without timers: these games move only when told to.
fn untimed_duel() -> RoomSetup {
    RoomSetup {
        preset: broadside_engine::Preset::Classic,
        seats: 2,
        options: serde_json::from_value(json!({
            "turn_seconds": 0, "place_seconds": 0, "round_seconds": 0, "shop_seconds": 0
        }))
        .expect("untimed options"),
        teams: None,
        public: false,
        rated: false,
        language: None,
    }
}

/// A room's actor running on its own task, as the registry runs it.
struct Actor {
    inbox: mpsc::Sender<RoomMsg>,
    stop: watch::Sender<bool>,
    task: JoinHandle<End>,
}

impl Actor {
    fn spawn(mut room: Room) -> Actor {
        let (inbox, mut messages) = mpsc::channel(16);
        let (stop, mut shutdown) = watch::channel(false);
        let task = tokio::spawn(async move {
            let end = room.run(&mut messages, &mut shutdown).await;
            room.end(end).await;
            end
        });
        Actor { inbox, stop, task }
    }

    async fn send(&self, message: RoomMsg) {
        self.inbox.send(message).await.expect("the actor runs");
    }

    /// A connection joins; its outbox is the test's.
    async fn join(
        &self,
        conn: ConnId,
        person: &Person,
        role: Role,
    ) -> (Result<(), Refusal>, Member) {
        let (outbox, inbox, _controls) = Outbox::new(1024, 1 << 24);
        let (reply, answer) = oneshot::channel();
        self.send(RoomMsg::Join(Box::new(Joining {
            conn,
            person: person.clone(),
            role,
            ip: [127, 0, 0, 1].into(),
            outbox,
            reply,
        })))
        .await;
        let joined = answer.await.expect("the actor answers a join");
        (
            joined,
            Member {
                conn,
                inbox,
                copy: ViewCopy::default(),
            },
        )
    }

    /// A room frame from connection `conn`.
    async fn request(&self, conn: ConnId, request: Request) {
        self.send(RoomMsg::Request {
            conn,
            request: Box::new(request),
            id: None,
            at: std::time::Instant::now(),
        })
        .await;
    }

    /// Waits until the actor has handled every earlier message.
    async fn sync(&self) {
        let (done, synced) = oneshot::channel();
        self.send(RoomMsg::Sync { done }).await;
        synced.await.expect("the actor answers");
    }

    async fn shut_down(self) -> End {
        let _ = self.stop.send(true);
        self.task.await.expect("the actor does not panic")
    }
}

/// A member's end of the room: the frames it was sent.
struct Member {
    conn: ConnId,
    inbox: Inbox,
    /// The view as the last `state` or `change` left it: a `change` is read
    /// as the whole `state` it makes.
    copy: ViewCopy,
}

impl Member {
    /// The next frame, parsed.
    async fn next(&mut self) -> Value {
        let frame = tokio::time::timeout(PATIENCE, self.inbox.recv())
            .await
            .expect("a frame in time")
            .expect("the outbox is open");
        let value: Value = serde_json::from_str(&frame).expect("frames are JSON");
        self.copy
            .follow_json(value)
            .unwrap_or_else(|_| panic!("a change out of step: {frame}"))
    }

    /// Frames until one of `kind` that satisfies `done`; returns it.
    async fn until(&mut self, kind: &str, mut done: impl FnMut(&Value) -> bool) -> Value {
        loop {
            let frame = self.next().await;
            if frame["type"] == kind && done(&frame) {
                return frame;
            }
        }
    }

    /// Every frame queued now (after a sync, everything the room sent).
    fn queued(&mut self) -> Vec<Value> {
        let frames: Vec<String> = std::iter::from_fn(|| self.inbox.try_recv()).collect();
        frames
            .iter()
            .map(|frame| {
                let value: Value = serde_json::from_str(frame).expect("frames are JSON");
                self.copy
                    .follow_json(value)
                    .unwrap_or_else(|_| panic!("a change out of step: {frame}"))
            })
            .collect()
    }
}

fn phase(state: &Value) -> &str {
    state["view"]["phase"].as_str().unwrap_or("")
}

fn command(command: Value) -> Request {
    let Value::Object(map) = command else {
        panic!("a command is an object");
    };
    Request::Command(map)
}

/// A new room of `setup` with `host` in seat 0 and `bots`, its actor running.
async fn room(
    context: &Arc<RoomContext>,
    setup: RoomSetup,
    host: &Person,
    bots: &[(usize, Level)],
) -> Actor {
    let rules = setup.check().expect("the setup is sound");
    let room = Room::create(
        context.clone(),
        "TESTROOMAB".into(),
        setup,
        rules,
        host.clone(),
        None,
        bots,
    )
    .await
    .expect("the room is stored")
    .expect("the code is free");
    Actor::spawn(room)
}

#[tokio::test]
async fn a_duel_against_a_bot_reaches_the_battle() {
    let context = context(Config::default());
    let ana = person(&context, "Ana").await;
    let actor = room(&context, untimed_duel(), &ana, &[(1, Level::Easy)]).await;
    let (joined, mut member) = actor.join(1, &ana, Role::Player).await;
    joined.expect("the host joins");
    let room_frame = member.until("room", |_| true).await;
    assert_eq!(room_frame["room"]["you"]["host"], true);
    assert_eq!(room_frame["room"]["seats"][1]["kind"], "bot");

    actor.request(member.conn, Request::Start).await;
    member.until("state", |s| phase(s) == "placement").await;
    actor
        .request(member.conn, command(json!({"cmd": "place_random"})))
        .await;
    // The bot places as soon as it is its move; then the battle begins.
    let battle = member.until("state", |s| phase(s) == "battle").await;
    assert_eq!(battle["view"]["seat"], 0, "Ana sees through her own seat");
    let (record, game) = context
        .db
        .load_room("TESTROOMAB".into())
        .await
        .expect("the room reads back")
        .expect("the room is stored");
    assert_eq!(record.phase, "battle");
    assert_eq!(
        game.expect("a game runs").commands.len(),
        2,
        "both placements are stored"
    );
    assert_eq!(actor.shut_down().await, End::Shutdown);
}

#[tokio::test]
async fn a_refused_command_gets_one_error_and_changes_nothing() {
    let context = context(Config::default());
    let ana = person(&context, "Ana").await;
    let actor = room(&context, untimed_duel(), &ana, &[(1, Level::Easy)]).await;
    let (joined, mut member) = actor.join(1, &ana, Role::Player).await;
    joined.expect("the host joins");
    actor.request(member.conn, Request::Start).await;
    member.until("state", |s| phase(s) == "placement").await;
    actor.sync().await;
    member.queued();

    // Firing during the placement is against the rules.
    let fire = json!({"cmd": "fire", "target": {"board": 1, "at": [0, 0]}});
    actor.request(member.conn, command(fire)).await;
    actor.sync().await;
    // One error answers it (the bot's placement may arrive beside it).
    let frames: Vec<Value> = member
        .queued()
        .into_iter()
        .filter(|f| f["type"] == "error")
        .collect();
    assert_eq!(frames.len(), 1, "one answer: {frames:?}");
    assert_eq!(frames[0]["type"], "error");
    assert_eq!(frames[0]["request"], "command");
    let (_, game) = context
        .db
        .load_room("TESTROOMAB".into())
        .await
        .expect("the room reads back")
        .expect("the room is stored");
    // (The bot may have placed meanwhile: its placement is stored, the
    // refused shot is not.)
    assert!(
        !game
            .expect("a game runs")
            .commands
            .iter()
            .any(|c| c.contains("\"fire\"")),
        "the refused shot is not stored"
    );

    // The game goes on as if nothing had been sent.
    actor
        .request(member.conn, command(json!({"cmd": "place_random"})))
        .await;
    member.until("state", |s| phase(s) == "battle").await;
    actor.shut_down().await;
}

#[tokio::test]
async fn only_the_host_starts_and_a_spectator_cannot_play() {
    let context = context(Config::default());
    let ana = person(&context, "Ana").await;
    let bea = person(&context, "Bea").await;
    let cai = person(&context, "Cai").await;
    let actor = room(&context, untimed_duel(), &ana, &[]).await;
    let (joined, mut host) = actor.join(1, &ana, Role::Player).await;
    joined.expect("the host joins");
    let (joined, mut guest) = actor.join(2, &bea, Role::Player).await;
    joined.expect("a guest takes the open seat");
    let (joined, mut watcher) = actor.join(3, &cai, Role::Spectator).await;
    joined.expect("anybody may watch");
    let (refused, _) = actor.join(4, &cai, Role::Player).await;
    assert_eq!(refused.expect_err("no seat is left").code, "room_full");
    actor.sync().await;
    for member in [&mut host, &mut guest, &mut watcher] {
        member.queued();
    }

    actor.request(guest.conn, Request::Start).await;
    actor.sync().await;
    let frames = guest.queued();
    assert_eq!(frames.len(), 1, "{frames:?}");
    assert_eq!(frames[0]["code"], "not_host");
    assert!(host.queued().is_empty() && watcher.queued().is_empty());

    actor.request(host.conn, Request::Start).await;
    watcher.until("state", |s| phase(s) == "placement").await;
    actor
        .request(watcher.conn, command(json!({"cmd": "place_random"})))
        .await;
    actor.sync().await;
    let frames = watcher.queued();
    assert_eq!(frames.len(), 1, "{frames:?}");
    assert_eq!(frames[0]["code"], "not_a_player");
    actor.shut_down().await;
}

#[tokio::test]
async fn a_room_brought_back_from_its_log_goes_on_where_it_was() {
    let context = context(Config::default());
    let ana = person(&context, "Ana").await;
    let actor = room(&context, untimed_duel(), &ana, &[(1, Level::Easy)]).await;
    let (_, mut member) = actor.join(1, &ana, Role::Player).await;
    actor.request(member.conn, Request::Start).await;
    member.until("state", |s| phase(s) == "placement").await;
    actor
        .request(member.conn, command(json!({"cmd": "place_random"})))
        .await;
    let before = member.until("state", |s| phase(s) == "battle").await;
    assert_eq!(actor.shut_down().await, End::Shutdown);

    let code = "TESTROOMAB".to_string();
    let lease = context
        .db
        .acquire(code.clone(), &context.config.node, context.config.lease_ttl)
        .await
        .expect("the lease is read")
        .expect("the room is free");
    let (record, game) = context
        .db
        .load_room(code)
        .await
        .expect("the room reads back")
        .expect("the room is stored");
    let room = Room::restore(context.clone(), record, game, lease)
        .await
        .expect("the log replays");
    let actor = Actor::spawn(room);
    let (joined, mut member) = actor.join(1, &ana, Role::Player).await;
    joined.expect("Ana holds her seat");
    let after = member.until("state", |_| true).await;
    assert_eq!(
        after["view"], before["view"],
        "the same game, seen the same"
    );
    actor.shut_down().await;
}

#[tokio::test]
async fn a_room_nobody_watches_leaves_memory() {
    let context = context(Config {
        idle_room: Duration::from_millis(50),
        ..Config::default()
    });
    let ana = person(&context, "Ana").await;
    let actor = room(&context, untimed_duel(), &ana, &[]).await;
    let ended = tokio::time::timeout(PATIENCE, actor.task)
        .await
        .expect("the room ends in time")
        .expect("the actor does not panic");
    assert_eq!(ended, End::Idle);
}
