//! The room's life: made new or brought back from the database, its actor's
//! loop (messages, the timer, the bots' moves, the lease's renewal), and how
//! it lets the room go.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use broadside_engine::{Command, Phase, Rules};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::{
    internal, knocked_out, Deadline, End, Joining, Occupant, Person, Request, RestoreError, Room,
    RoomMsg, RoomSetup, Running, SetupRules, CHAT_HISTORY,
};
use crate::context::{Clock, RoomContext};
use crate::cpu::Key;
use crate::db::{GameRecord, Lease, RoomRecord};
use crate::outbox::ConnId;
use crate::protocol::{Refusal, ServerFrame};
use broadside_ai::Level;
use broadside_protocol::{codes, RoomPhase};

/// A room's settings, seats and game as read back from its records.
struct Rebuilt {
    setup: RoomSetup,
    rules: Rules,
    seats: Vec<Occupant>,
    host: usize,
    game_number: u32,
    running: Option<Running>,
}

impl Room {
    /// A new lobby; the creator holds seat 0 and is host. `None` if the code
    /// is already taken.
    pub async fn create(
        context: Arc<RoomContext>,
        code: String,
        setup: RoomSetup,
        rules: Rules,
        creator: Person,
        guest: Option<Person>,
        bots: &[(usize, Level)],
    ) -> Result<Option<Room>, Refusal> {
        super::rated::check_rated_setup(&setup, &rules)?;
        let mut seats = vec![Occupant::Open; setup.seats];
        seats[0] = Occupant::Person(creator);
        if let (Some(guest), Some(seat)) = (guest, seats.get_mut(1)) {
            *seat = Occupant::Person(guest);
        }
        for &(seat, level) in bots {
            if seat == 0 || seat >= setup.seats {
                return Err(Refusal::bad_request(format!(
                    "a bot needs a seat from 1 to {}",
                    setup.seats - 1
                )));
            }
            seats[seat] = Occupant::Bot(level);
        }
        let mut room = Room {
            id: context.ids.next(),
            lease: Lease {
                code: code.clone(),
                node: context.config.node.clone(),
                token: 0,
            },
            context,
            code,
            setup,
            rules,
            seats,
            host: 0,
            game_number: 0,
            game: None,
            members: BTreeMap::new(),
            chat: VecDeque::new(),
            fenced: false,
            ratings: BTreeMap::new(),
            rematch: Vec::new(),
            ready: BTreeSet::new(),
            addresses: BTreeMap::new(),
        };
        let context = &room.context;
        let created = context
            .db
            .create_room(
                room.record(),
                context.now_ms(),
                &context.config.node,
                context.config.lease_ttl,
            )
            .await
            .map_err(internal)?;
        Ok(created.map(|lease| {
            room.lease = lease;
            room
        }))
    }

    /// A room from the database, its game replayed from the log (on the pool:
    /// a long game is thousands of commands).
    pub async fn restore(
        context: Arc<RoomContext>,
        record: RoomRecord,
        game: Option<GameRecord>,
        lease: Lease,
    ) -> Result<Room, RestoreError> {
        let code = record.code.clone();
        let broken = |message: String| RestoreError::Broken {
            code: code.clone(),
            message,
        };
        let chat = context
            .db
            .recent_chat(code.clone(), CHAT_HISTORY)
            .await
            .map_err(|e| broken(e.to_string()))?;
        let id = context.ids.next();
        let clock = context.clock;
        let rebuilt = context
            .cpu
            .run(Key::Room(id), move || Room::rebuild(record, game, clock))
            .await
            .map_err(|e| broken(e.to_string()))??;
        let mut room = Room {
            context,
            id,
            code: code.clone(),
            setup: rebuilt.setup,
            rules: rebuilt.rules,
            seats: rebuilt.seats,
            host: rebuilt.host,
            game_number: rebuilt.game_number,
            game: rebuilt.running,
            members: BTreeMap::new(),
            chat: chat.into(),
            lease,
            fenced: false,
            ratings: BTreeMap::new(),
            rematch: Vec::new(),
            ready: BTreeSet::new(),
            addresses: BTreeMap::new(),
        };
        room.schedule_bots();
        Ok(room)
    }

    /// The room's settings, seats and game from its records: the game is the
    /// stored log replayed (`stored::replay`), its bots watching every step.
    fn rebuild(
        record: RoomRecord,
        game: Option<GameRecord>,
        clock: Clock,
    ) -> Result<Rebuilt, RestoreError> {
        let code = record.code.clone();
        let broken = |message: String| RestoreError::Broken {
            code: code.clone(),
            message,
        };
        let setup: RoomSetup =
            serde_json::from_str(&record.setup).map_err(|e| broken(e.to_string()))?;
        let rules = setup.check().map_err(|e| broken(e.message))?;
        let mut seats: Vec<Occupant> = record.seats.iter().map(Occupant::from_record).collect();
        seats.resize(setup.seats, Occupant::Open);
        let running = match game {
            None => None,
            Some(stored) => {
                let mut bots = BTreeMap::new();
                let mut out = Vec::new();
                let mut earned = super::rated::Earned::default();
                let replayed = crate::stored::replay(&stored.setup, &stored.commands, |step| {
                    let Some((_, command)) = step.command else {
                        bots = Room::bots_for(&seats, step.setup.seed);
                        return;
                    };
                    earned.note(&seats, command, step.events);
                    for (&seat, bot) in bots.iter_mut() {
                        bot.observe(&step.game.events_for(Some(seat), step.events));
                    }
                    let gone = knocked_out(step.events);
                    if !gone.is_empty() {
                        out.push(gone);
                    }
                })
                .map_err(|e| broken(e.to_string()))?;
                let game = replayed.game;
                let deadline = match game.phase() {
                    Phase::Finished => None,
                    _ => stored
                        .deadline_ms
                        .map(|at| Deadline::from_unix_ms(at, clock.now_ms())),
                };
                Some(Running {
                    id: stored.id,
                    game,
                    seq: stored.commands.len() as u64,
                    bots,
                    deadline,
                    bot_due: None,
                    out,
                    earned,
                    streams: BTreeMap::new(),
                })
            }
        };
        Ok(Rebuilt {
            setup,
            rules,
            seats,
            host: record.host,
            game_number: record.game_number,
            running,
        })
    }

    /// The actor's loop: messages, the game timer and the bots' moves, until
    /// the server shuts down, the room has been idle long enough to leave
    /// memory (it is loaded again from the database when somebody joins), or
    /// another node has taken the room (a cluster, after this node stalled).
    /// The inbox stays open until the caller drops it, after [`Room::end`].
    pub async fn run(
        &mut self,
        inbox: &mut mpsc::Receiver<RoomMsg>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> End {
        if let Some(running) = &self.game {
            tracing::Span::current().record("game", running.id);
        }
        let idle_after = self.context.config.idle_room;
        // Only a shared database has leases to keep.
        let shared_db = self.context.db.is_shared();
        let mut renew = tokio::time::interval(self.context.config.lease_ttl / 3);
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        renew.reset();
        let mut census = crate::metrics::RoomCensus::default();
        census.set(self.census_phase(), self.setup.preset.id());
        // Handlers are awaited through `Box::pin`, so that a room between
        // messages holds its own state and not the largest handler's (as in
        // connection/).
        loop {
            let wake = self.next_wake();
            // Nobody watches and no clock runs: nothing can happen until a join.
            let idle = self.members.is_empty() && wake.is_none();
            tokio::select! {
                message = inbox.recv() => match message {
                    Some(message) => Box::pin(self.handle(message)).await,
                    None => return End::Closed,
                },
                () = sleep_until(wake) => Box::pin(self.on_wake()).await,
                () = tokio::time::sleep(idle_after), if idle => return End::Idle,
                _ = renew.tick(), if shared_db => {
                    self.drop_silent_members();
                    let ttl = self.context.config.lease_ttl;
                    match Box::pin(self.context.db.renew(&self.lease, ttl)).await {
                        Ok(true) => {}
                        Ok(false) => self.fenced = true,
                        // The database is unreachable: keep going; if it
                        // stays so past the lease, the fence stops us later.
                        Err(error) => tracing::warn!(%error, "cannot renew the room's lease"),
                    }
                }
                _ = shutdown.changed() => return End::Shutdown,
            }
            if self.fenced {
                return End::Lost;
            }
            census.set(self.census_phase(), self.setup.preset.id());
        }
    }

    /// The room's phase as the `broadside_rooms` gauge counts it.
    fn census_phase(&self) -> &'static str {
        match self.phase() {
            RoomPhase::Lobby => "lobby",
            RoomPhase::Finished => "finished",
            _ => "playing",
        }
    }

    /// Lets the room go from the lease table and, when the room moved, from
    /// its members (who join it where it is now). The registry has forgotten
    /// the actor first when `end.retires()`.
    pub async fn end(self, end: End) {
        let db = &self.context.db;
        match end {
            End::Closed => {}
            End::Idle => {
                // Joins queued meanwhile are dropped unanswered; their
                // connections then load the room afresh.
                if let Err(error) = db.release(&self.lease, false).await {
                    tracing::warn!(%error, "cannot release the room");
                }
            }
            End::Shutdown => {
                // A game with a clock or bots must go on elsewhere at once.
                let running = self
                    .game
                    .as_ref()
                    .is_some_and(|r| r.game.phase() != Phase::Finished);
                if let Err(error) = db.release(&self.lease, running).await {
                    tracing::warn!(%error, "cannot hand the room over");
                }
            }
            End::Lost => {
                tracing::info!("another node owns it now; letting the room go");
                for member in self.members.values() {
                    member.outbox.rejoin(&self.code);
                }
            }
        }
    }

    /// The room's code.
    pub fn code(&self) -> &str {
        &self.code
    }

    fn next_wake(&self) -> Option<Instant> {
        let running = self.game.as_ref()?;
        match (running.deadline.map(|d| d.at), running.bot_due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    async fn handle(&mut self, message: RoomMsg) {
        match message {
            RoomMsg::Join(joining) => {
                let Joining {
                    conn,
                    person,
                    role,
                    ip,
                    outbox,
                    reply,
                } = *joining;
                let joined = self.join(conn, person, role, ip, outbox).await;
                let _ = reply.send(joined);
            }
            RoomMsg::Leave { conn } => self.leave(conn).await,
            RoomMsg::Release { conn, done } => {
                self.release(conn).await;
                let _ = done.send(());
            }
            RoomMsg::Disconnect { conn, done } => {
                if self.members.remove(&conn).is_some() {
                    self.broadcast_room();
                }
                if let Some(done) = done {
                    let _ = done.send(());
                }
            }
            RoomMsg::Sync { done } => {
                let _ = done.send(());
            }
            RoomMsg::StartNow { done } => {
                let started = if self.started() {
                    Ok(())
                } else {
                    self.start_game(Key::Room(self.id)).await
                };
                let _ = done.send(started);
            }
            RoomMsg::Request {
                conn,
                request,
                id,
                at,
            } => {
                let name = request.name();
                match self.request(conn, *request, id).await {
                    // The updates of an accepted move are queued for every member.
                    Ok(()) if name == "command" => crate::metrics::shot_update(at.elapsed()),
                    Ok(()) => {}
                    Err(refusal) => {
                        self.send_to(conn, ServerFrame::error(&refusal, Some(name), id).to_text());
                    }
                }
            }
        }
    }

    /// Carries out a room frame; the placement helpers and previews answer the
    /// sender directly, echoing the frame's request `id`.
    async fn request(
        &mut self,
        conn: ConnId,
        request: Request,
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        match request {
            Request::SetSeat {
                seat,
                occupant,
                level,
            } => self.set_seat(conn, seat, occupant, level).await,
            Request::SetOptions(options) => self.set_options(conn, options).await,
            Request::Start => self.start(conn).await,
            Request::Ready(ready) => self.set_ready(conn, ready),
            Request::Rematch => self.rematch(conn).await,
            Request::DeclineRematch => self.decline_rematch(conn),
            Request::Block(seat) => self.block(conn, seat).await,
            Request::Report { seat, reason, note } => {
                self.report(conn, seat, &reason, note.as_deref()).await
            }
            Request::Command(command) => self.command(conn, command).await,
            Request::CheckLayout(ships) => self.check_layout(conn, &ships, id),
            Request::RandomLayout(fixed) => self.random_layout(conn, fixed, id).await,
            Request::PreviewAction(action) => self.preview_action(conn, action, id),
            Request::Chat(text) => self.chat(conn, &text).await,
            Request::Resync => {
                let frame = self
                    .full_state_for(conn)
                    .ok_or_else(|| Refusal::new(codes::NOT_STARTED, "no game runs in this room"))?;
                self.send_to(conn, frame);
                Ok(())
            }
        }
    }

    async fn on_wake(&mut self) {
        let now = Instant::now();
        let Some(running) = self.game.as_mut() else {
            return;
        };
        if running.deadline.is_some_and(|d| d.at <= now) {
            running.deadline = None;
            // A refused timeout (the game just ended) leaves nothing to do.
            let _ = self.apply(Command::Timeout, Key::Room(self.id)).await;
            return;
        }
        if running.bot_due.is_some_and(|due| due <= now) {
            running.bot_due = None;
            self.play_bots().await;
        }
    }

    /// Drops the members whose node has gone silent (it died with their
    /// connections; they will join again wherever they reconnect).
    fn drop_silent_members(&mut self) {
        let before = self.members.len();
        self.members.retain(|_, member| member.outbox.node_alive());
        if self.members.len() != before {
            self.broadcast_room();
        }
    }
}

async fn sleep_until(wake: Option<Instant>) {
    match wake {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
