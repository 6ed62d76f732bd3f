//! The room's game: starting it, applying commands (the engine decides, the
//! log stores, then everybody is told), its timers, the placement helpers
//! and previews, and what the room writes to the database.

use broadside_engine::{Action, Command, Event, Game, Phase, Placement};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde_json::Value;
use tokio::time::Instant;

use super::{
    busy, internal, knocked_out, not_a_player, not_started, Deadline, Occupant, Room, RoomSetup,
    Running, SetupRules,
};
use crate::cpu::Key;
use crate::db::{CommandRecord, DbError, GameResults, RoomRecord, SeatResult};
use crate::outbox::ConnId;
use crate::protocol::{self, Refusal, ServerFrame};
use crate::secret;

impl Room {
    /// The timer that starts when the game enters its current phase or turn.
    fn phase_deadline(&self, game: &Game) -> Option<Deadline> {
        let rules = game.rules();
        let seconds = match game.phase() {
            Phase::Shop => rules.shop_seconds,
            Phase::Placement => rules.place_seconds,
            Phase::Battle if game.in_salvo_round() => rules.round_seconds,
            Phase::Battle => rules.turn_seconds,
            Phase::Finished => 0,
        };
        (seconds > 0).then(|| Deadline::in_seconds(seconds, self.context.now_ms()))
    }

    /// The timer after a change: a new phase, turn or round starts a
    /// fresh one, and so does every shot in a duel (R-4.4: a hit gives a fresh
    /// timer); anything else (a seat getting ready, a salvo submitted) leaves it.
    fn next_deadline(
        &self,
        game: &Game,
        events: &[Event],
        previous: Option<Deadline>,
    ) -> Option<Deadline> {
        if game.phase() == Phase::Finished {
            return None;
        }
        let fresh = events.iter().any(|event| match event {
            Event::PhaseChanged { .. } | Event::TurnStarted { .. } | Event::RoundStarted { .. } => {
                true
            }
            Event::Shot { .. } | Event::Volley { .. } | Event::ActionUsed { .. } => {
                game.phase() == Phase::Battle && !game.in_salvo_round()
            }
            _ => false,
        });
        if fresh {
            self.phase_deadline(game)
        } else {
            previous
        }
    }

    pub(super) async fn start_game(&mut self, key: Key) -> Result<(), Refusal> {
        let seed = secret::new_seed().map_err(internal)?;
        let setup = self.setup.engine(seed);
        let game = {
            let setup = setup.clone();
            self.context
                .cpu
                .run(key, move || Game::new(&setup))
                .await
                .map_err(busy)??
        };
        let deadline = self.phase_deadline(&game);
        let mut record = self.record();
        record.game_number = self.game_number + 1;
        record.phase = game.phase().id().into();
        record.to_move = seats_json(&game.to_move());
        let setup_json =
            serde_json::to_string(&setup).expect("a setup is plain data and always serializes");
        let id = self
            .context
            .db
            .start_game(
                record.clone(),
                setup_json,
                deadline.map(|d| d.unix_ms),
                self.context.now_ms(),
                &self.lease,
            )
            .await;
        let id = id.map_err(|error| self.write_failed(error))?;
        crate::metrics::game_started(self.setup.preset.id());
        self.game_number = record.game_number;
        self.rematch.clear();
        self.ready.clear();
        tracing::Span::current().record("game", id);
        self.game = Some(Running {
            id,
            bots: Room::bots_for(&self.seats, seed),
            game,
            seq: 0,
            deadline,
            bot_due: None,
            out: Vec::new(),
            earned: super::rated::Earned::default(),
            streams: std::collections::BTreeMap::new(),
        });
        self.broadcast_room();
        self.broadcast_state(&[]);
        self.schedule_bots();
        Ok(())
    }

    /// `command` (and `resign`): the connection's own seat goes into the
    /// command, whatever the client wrote.
    pub(super) async fn command(
        &mut self,
        conn: ConnId,
        command: serde_json::Map<String, Value>,
    ) -> Result<(), Refusal> {
        let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
        if !self.started() {
            return Err(not_started());
        }
        let intent = protocol::intent(command)?;
        self.apply(intent.by(seat), self.key_of(conn)).await
    }

    /// Applies one command: the engine decides, the log stores it, then every
    /// connection gets its own view. Commands that may place a fleet at random
    /// (placing at random, a timer running out, resigning during placement)
    /// are searches and run on the pool in `key`'s turn; the rest are cheap.
    pub(super) async fn apply(&mut self, command: Command, key: Key) -> Result<(), Refusal> {
        let running = self.game.as_mut().ok_or_else(not_started)?;
        let before = running.game.clone();
        let heavy = matches!(
            command,
            Command::PlaceRandom { .. } | Command::Timeout | Command::Resign { .. }
        );
        let events = if heavy {
            let mut game = before.clone();
            let applied = command.clone();
            let (game, events) = self
                .context
                .cpu
                .run(key, move || {
                    let events = game.apply(applied);
                    (game, events)
                })
                .await
                .map_err(busy)?;
            let events = events?;
            running.game = game;
            events
        } else {
            running.game.apply(command.clone())?
        };
        let running = self
            .game
            .as_ref()
            .expect("only this actor changes the room's game, and it was there above");
        let deadline = self.next_deadline(&running.game, &events, running.deadline);
        let command_json =
            serde_json::to_string(&command).expect("a command is plain data and always serializes");
        let mut record = CommandRecord {
            room_code: self.code.clone(),
            game_id: running.id,
            seq: running.seq + 1,
            command: command_json,
            at_ms: self.context.now_ms(),
            deadline_ms: deadline.map(|d| d.unix_ms),
            phase: running.game.phase().id(),
            to_move: seats_json(&running.game.to_move()),
            finished: running.game.phase() == Phase::Finished,
            summary_changed: running.game.phase() != before.phase()
                || running.game.to_move() != before.to_move(),
            results: None,
        };
        let gone = knocked_out(&events);
        let mut earned = running.earned.clone();
        earned.note(&self.seats, &command, &events);
        let newly_aborted = earned.aborted.is_some() && running.earned.aborted.is_none();
        if record.finished {
            let mut out = running.out.clone();
            if !gone.is_empty() {
                out.push(gone.clone());
            }
            let rated = earned.counts(&self.setup, &self.rules, &self.seats, &self.addresses);
            record.results = Some(results(
                &self.setup,
                &self.seats,
                &running.game,
                &out,
                &earned,
                rated,
            ));
        }
        let finished_rated = record.results.as_ref().is_some_and(|r| r.rated);
        // A finished game's replay is built once, now, off the bots' pool.
        let finished_game = record.finished.then_some(record.game_id);
        let writing = std::time::Instant::now();
        let written = self.context.db.record_command(record, &self.lease).await;
        crate::metrics::db_write(writing.elapsed());
        if finished_game.is_some() && written.is_ok() {
            crate::metrics::game_finished(self.setup.preset.id());
        }
        if let Err(error) = written {
            // Not stored means not accepted: the game goes back to where it was.
            if let Some(running) = self.game.as_mut() {
                running.game = before;
            }
            return Err(self.write_failed(error));
        }
        let running = self
            .game
            .as_mut()
            .expect("only this actor changes the room's game, and it was there before the write");
        running.seq += 1;
        running.deadline = deadline;
        running.earned = earned;
        if !gone.is_empty() {
            running.out.push(gone);
        }
        for (&seat, bot) in running.bots.iter_mut() {
            bot.observe(&running.game.events_for(Some(seat), &events));
        }
        let seats_changed = events.iter().any(|event| {
            matches!(
                event,
                Event::Ready { .. }
                    | Event::Bought { .. }
                    | Event::PhaseChanged { .. }
                    | Event::GameOver { .. }
                    | Event::Eliminated { .. }
                    | Event::Resigned { .. }
            )
        });
        self.broadcast_state(&events);
        if let Some(id) = finished_game {
            crate::replay::prepare(&self.context, id);
        }
        if finished_rated {
            self.refresh_ratings().await;
        }
        if seats_changed || newly_aborted {
            self.broadcast_room();
        }
        self.schedule_bots();
        Ok(())
    }

    /// Sets the bots' next move after the bots' delay, if a bot is to move.
    pub(super) fn schedule_bots(&mut self) {
        let delay = self.context.config.bot_delay;
        let Some(running) = self.game.as_mut() else {
            return;
        };
        let bot_to_move = running
            .game
            .to_move()
            .iter()
            .any(|seat| running.bots.contains_key(seat));
        running.bot_due = bot_to_move.then(|| Instant::now() + delay);
    }

    /// `check_layout`: whether ships placed so far fit (and complete the
    /// fleet), answered to the sender only.
    pub(super) fn check_layout(
        &mut self,
        conn: ConnId,
        ships: &[Placement],
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
        let game = &self.game.as_ref().ok_or_else(not_started)?.game;
        let frame = match game.check_ships_partial(seat, ships) {
            Ok(_) => ServerFrame::LayoutCheck {
                ok: true,
                complete: game.check_layout(seat, ships).is_ok(),
                error: None,
                id,
            },
            Err(error) => ServerFrame::LayoutCheck {
                ok: false,
                complete: false,
                error: Some(Refusal::from(error)),
                id,
            },
        };
        self.send_to(conn, frame.to_text());
        Ok(())
    }

    /// `random_layout`: a fleet completed at random around the fixed ships,
    /// for the sender only (it places nothing).
    pub(super) async fn random_layout(
        &mut self,
        conn: ConnId,
        fixed: Vec<Placement>,
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
        let game = self.game.as_ref().ok_or_else(not_started)?.game.clone();
        // A preview generator of its own: the game's generator must not move.
        let seed = secret::new_seed().map_err(internal)?;
        let ships = self
            .context
            .cpu
            .run(self.key_of(conn), move || {
                game.random_completion(seat, &fixed, &mut Pcg64Mcg::seed_from_u64(seed))
            })
            .await
            .map_err(busy)??;
        self.send_to(conn, ServerFrame::Layout { ships, id }.to_text());
        Ok(())
    }

    /// `preview_action`: the cells an action would cover.
    pub(super) fn preview_action(
        &mut self,
        conn: ConnId,
        action: Action,
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        self.seat_of(conn).ok_or_else(not_a_player)?;
        let game = &self.game.as_ref().ok_or_else(not_started)?.game;
        if matches!(action, Action::Reserve { .. }) {
            return Err(Refusal::bad_request(
                "the reserve lands on the own field and covers no area to preview",
            ));
        }
        // Pure geometry: the engine's area of the action, the same for
        // every viewer. It is empty exactly when the board does not exist
        // or the target lies off it (any target on the board covers at
        // least itself), so an empty area is the refusal.
        let cells = game.action_area(&action);
        if cells.is_empty() {
            return Err(Refusal::new(
                "out_of_bounds",
                "the action's board or target is not on the table",
            ));
        }
        let frame = ServerFrame::ActionArea { action, cells, id };
        self.send_to(conn, frame.to_text());
        Ok(())
    }

    // ----- persistence -------------------------------------------------------------

    pub(super) fn record(&self) -> RoomRecord {
        RoomRecord {
            code: self.code.clone(),
            setup: serde_json::to_string(&self.setup)
                .expect("a setup is plain data and always serializes"),
            host: self.host,
            seats: self.seats.iter().map(Occupant::record).collect(),
            game_number: self.game_number,
            public: self.setup.public,
            phase: self.phase().id().into(),
            to_move: seats_json(
                &self
                    .game
                    .as_ref()
                    .map(|r| r.game.to_move())
                    .unwrap_or_default(),
            ),
        }
    }

    /// Reads the ratings of the people seated here (shown beside their names).
    pub(super) async fn refresh_ratings(&mut self) {
        let people: Vec<i64> = self
            .seats
            .iter()
            .filter_map(|o| match o {
                Occupant::Person(person) => Some(person.player_id),
                _ => None,
            })
            .collect();
        let preset = self.setup.preset.id().to_string();
        if let Ok(ratings) = self.context.db.ratings(people, preset).await {
            self.ratings = ratings;
        }
    }

    pub(super) async fn persist_room(&mut self) -> Result<(), Refusal> {
        let stored = self
            .context
            .db
            .save_room(self.record(), self.context.now_ms(), &self.lease)
            .await;
        stored.map_err(|error| self.write_failed(error))
    }

    /// The refusal for a failed write; a fenced one also ends this actor (the
    /// room belongs to another node now, and its members join it there).
    pub(super) fn write_failed(&mut self, error: DbError) -> Refusal {
        if matches!(error, DbError::Fenced(_)) {
            self.fenced = true;
            return Refusal::new(
                "moved",
                "the room has moved to another server; you are being reconnected to it",
            );
        }
        internal(error)
    }

    /// The pool's fairness key for work a connection asks for: its address.
    pub(super) fn key_of(&self, conn: ConnId) -> Key {
        self.members
            .get(&conn)
            .map_or(Key::Room(self.id), |m| Key::Client(m.ip))
    }
}

/// How a finished game ended for each seat, and whether it is rated
/// (`rated.rs` decides). A seat that resigned takes its own placing, by
/// when it went out, and not its team's later win.
fn results(
    setup: &RoomSetup,
    seats: &[Occupant],
    game: &Game,
    out: &[Vec<usize>],
    earned: &super::rated::Earned,
    rated: bool,
) -> GameResults {
    let winners: Vec<usize> = game
        .winners()
        .unwrap_or_default()
        .iter()
        .copied()
        .filter(|seat| !earned.resigned.contains(seat))
        .collect();
    let placings = crate::ratings::placings(seats.len(), &winners, out);
    let seats: Vec<SeatResult> = seats
        .iter()
        .enumerate()
        .map(|(seat, occupant)| SeatResult {
            seat,
            player_id: super::rated::rated_person(occupant),
            placing: placings[seat],
        })
        .collect();
    GameResults {
        preset: setup.preset.id().to_string(),
        rated,
        seats,
    }
}

/// A list of seats as stored (`to_move`).
fn seats_json(seats: &[usize]) -> String {
    serde_json::to_string(seats).expect("seat numbers always serialize")
}
