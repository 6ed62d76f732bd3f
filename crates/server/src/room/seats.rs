//! The room's people and its lobby: who joins and leaves, who holds which
//! seat, the host's settings, the start, the rematch, and the chat.

use std::net::IpAddr;

use broadside_ai::Level;
use broadside_engine::Phase;
use broadside_protocol::RematchReason;

use super::frames::chat_frame;
use super::rated::{account_needed, check_rated_setup, guest_seated, remember_address};
use super::{
    busy, not_a_player, not_in_room, not_started, Member, Occupant, Person, Room, SetupRules,
    CHAT_HISTORY,
};
use crate::db::ChatRecord;
use crate::outbox::{ConnId, Outbox};
use crate::protocol::{self, codes, Refusal, Role, SeatChoice, ServerFrame, SetOptions};

impl Room {
    fn is_host(&self, conn: ConnId) -> bool {
        self.seat_of(conn) == Some(self.host)
    }

    pub(super) async fn join(
        &mut self,
        conn: ConnId,
        person: Person,
        role: Role,
        ip: IpAddr,
        outbox: Outbox,
    ) -> Result<(), Refusal> {
        // A person who holds a seat watches through it: joining the own room as
        // a spectator must not show more than the seat may know (R-11.4 with
        // `spectators_see_all`). Before the start and after the end there is
        // nothing to hide, and watching without the seat is allowed.
        let seated = self.seats.iter().any(|o| o.holds(person.player_id));
        let in_play = self
            .game
            .as_ref()
            .is_some_and(|r| r.game.phase() != Phase::Finished);
        if role == Role::Spectator && seated && in_play {
            return Err(Refusal::new(
                "seated",
                "you hold a seat in this game; join as a player to see it through your seat",
            ));
        }
        if !seated {
            self.check_not_blocked(&person).await?;
        }
        if role == Role::Player {
            match self.seats.iter().position(|o| o.holds(person.player_id)) {
                Some(seat) => {
                    if let Occupant::Person(held) = &mut self.seats[seat] {
                        held.nickname = person.nickname.clone();
                        held.account |= person.account;
                    }
                }
                None => {
                    if self.started() {
                        return Err(Refusal::new(
                            "room_full",
                            "the game has started and you hold no seat here; join as a spectator",
                        ));
                    }
                    let Some(seat) = self.seats.iter().position(|o| *o == Occupant::Open) else {
                        return Err(Refusal::new(
                            "room_full",
                            "every seat is taken; join as a spectator",
                        ));
                    };
                    if self.setup.rated && !person.account {
                        return Err(account_needed());
                    }
                    self.seats[seat] = Occupant::Person(person.clone());
                    if let Err(error) = self.persist_room().await {
                        self.seats[seat] = Occupant::Open;
                        return Err(error);
                    }
                }
            }
        }
        if self.seats.iter().any(|o| o.holds(person.player_id)) {
            remember_address(&mut self.addresses, person.player_id, ip);
        }
        let blocks = self
            .context
            .db
            .blocks_of(person.player_id)
            .await
            .map(|blocks| blocks.into_iter().map(|(player, _)| player).collect())
            .unwrap_or_default();
        self.members.insert(
            conn,
            Member {
                outbox,
                ip,
                person,
                blocks,
                spectator: role == Role::Spectator,
            },
        );
        self.refresh_ratings().await;
        self.broadcast_room();
        if let Some(frame) = self.full_state_for(conn) {
            self.send_to(conn, frame);
        }
        // A seat still playing never reads what watchers said meanwhile,
        // and nobody what a person they block said from a seat.
        let watches = self.watches(conn);
        let blocks = &self.members[&conn].blocks;
        let history: Vec<String> = self
            .chat
            .iter()
            .filter(|line| watches || !line.watchers || !self.in_play())
            .filter(|line| {
                let speaker = line.seat.and_then(|seat| self.seats.get(seat));
                !matches!(speaker, Some(Occupant::Person(p)) if blocks.contains(&p.player_id))
            })
            .map(chat_frame)
            .collect();
        for frame in history {
            self.send_to(conn, frame);
        }
        Ok(())
    }

    /// `leave`: out of the room; before the start the seat is given up, and
    /// a person who walks out of a running game before their first move
    /// aborts it (unrated).
    pub(super) async fn leave(&mut self, conn: ConnId) {
        let left = ServerFrame::Left {
            code: self.code.clone(),
        };
        if let Some(member) = self.members.get(&conn) {
            member.outbox.send(left.to_text());
        }
        self.give_up(conn, true).await;
    }

    /// The connection moves to another room: before the start its seat is
    /// given up (one lobby seat per person), after it kept.
    pub(super) async fn release(&mut self, conn: ConnId) {
        self.give_up(conn, false).await;
    }

    async fn give_up(&mut self, conn: ConnId, walked_out: bool) {
        let seat = self.seat_of(conn);
        if self.members.remove(&conn).is_none() {
            return;
        }
        if let Some(seat) = seat {
            // A person who walks away from the end answers any rematch offer.
            self.withdraw_rematch(seat, RematchReason::Left);
            self.ready.remove(&seat);
        }
        if let (Some(seat), true, true) = (seat, walked_out, self.in_play()) {
            if let Some(running) = self.game.as_mut() {
                running.earned.left(seat);
            }
        }
        if let (Some(seat), false) = (seat, self.started()) {
            let before = (self.seats.clone(), self.host);
            self.seats[seat] = Occupant::Open;
            if seat == self.host {
                if let Some(next) = self
                    .seats
                    .iter()
                    .position(|o| matches!(o, Occupant::Person(_)))
                {
                    self.host = next;
                }
            }
            if self.persist_room().await.is_err() {
                // The seat stays taken rather than differ from the database.
                (self.seats, self.host) = before;
            }
        }
        self.broadcast_room();
    }

    /// `start`: the host starts the game once every seat is taken; a rated
    /// game also once every other person's seat is connected and ready
    /// (the host's start is the host's ready).
    pub(super) async fn start(&mut self, conn: ConnId) -> Result<(), Refusal> {
        self.check_host(conn)?;
        if self.started() {
            return Err(Refusal::new("already_started", "the game has started"));
        }
        if self.seats.contains(&Occupant::Open) {
            return Err(Refusal::new(
                "seats_open",
                "every seat needs a player or a bot",
            ));
        }
        if self.setup.rated {
            check_rated_setup(&self.setup, &self.rules)?;
            let waiting: Vec<usize> = (0..self.seats.len())
                .filter(|&seat| matches!(self.seats[seat], Occupant::Person(_)))
                .filter(|&seat| {
                    !self.connected(seat) || (seat != self.host && !self.ready.contains(&seat))
                })
                .collect();
            if !waiting.is_empty() {
                return Err(Refusal::new(
                    codes::NOT_READY,
                    format!(
                        "a rated game starts when every person is here and ready; waiting for seats {waiting:?}"
                    ),
                ));
            }
        }
        self.start_game(self.key_of(conn)).await
    }

    /// `ready`: the seat's person is (or is no longer) ready to start.
    pub(super) fn set_ready(&mut self, conn: ConnId, ready: bool) -> Result<(), Refusal> {
        let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
        if self.started() {
            return Err(Refusal::new("already_started", "the game has started"));
        }
        let changed = if ready {
            self.ready.insert(seat)
        } else {
            self.ready.remove(&seat)
        };
        if changed {
            self.broadcast_room();
        }
        Ok(())
    }

    /// `rematch`: the first asks, the others accept by asking too; the new
    /// game starts once every person has.
    pub(super) async fn rematch(&mut self, conn: ConnId) -> Result<(), Refusal> {
        let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
        let running = self.game.as_ref().ok_or_else(not_started)?;
        if running.game.phase() != Phase::Finished {
            return Err(Refusal::new("not_finished", "the game is not over yet"));
        }
        if !self.rematch.contains(&seat) {
            self.rematch.push(seat);
        }
        if self.rematch_waiting().is_empty() {
            self.start_game(self.key_of(conn)).await
        } else {
            self.broadcast_room();
            Ok(())
        }
    }

    /// `decline_rematch`.
    pub(super) fn decline_rematch(&mut self, conn: ConnId) -> Result<(), Refusal> {
        let seat = self.seat_of(conn).ok_or_else(not_a_player)?;
        if self.rematch.is_empty() {
            return Err(Refusal::new(
                "no_rematch_offer",
                "nobody has offered a rematch",
            ));
        }
        self.withdraw_rematch(seat, RematchReason::Declined);
        self.broadcast_room();
        Ok(())
    }

    /// Withdraws the rematch on offer, if any, because `seat` declined it,
    /// took back its own yes, or left: everybody hears who and why (the
    /// caller then sends the room without the offer).
    fn withdraw_rematch(&mut self, seat: usize, reason: RematchReason) {
        if self.rematch.is_empty() {
            return;
        }
        let reason = if reason == RematchReason::Declined && self.rematch.contains(&seat) {
            RematchReason::Withdrawn
        } else {
            reason
        };
        self.rematch.clear();
        let nickname = match &self.seats[seat] {
            Occupant::Person(person) => Some(person.nickname.clone()),
            _ => None,
        };
        let frame = ServerFrame::RematchDeclined {
            seat,
            nickname,
            reason,
        }
        .to_text();
        self.broadcast(|_| Some(frame.clone()));
    }

    fn check_host(&self, conn: ConnId) -> Result<(), Refusal> {
        if self.is_host(conn) {
            Ok(())
        } else {
            Err(Refusal::new("not_host", "only the host may do this"))
        }
    }

    fn check_lobby(&self, conn: ConnId) -> Result<(), Refusal> {
        self.check_host(conn)?;
        if self.started() {
            return Err(Refusal::new(
                "already_started",
                "the game has started; the lobby can no longer change",
            ));
        }
        Ok(())
    }

    pub(super) async fn set_seat(
        &mut self,
        conn: ConnId,
        seat: usize,
        occupant: SeatChoice,
        level: Option<Level>,
    ) -> Result<(), Refusal> {
        self.check_lobby(conn)?;
        if seat >= self.seats.len() {
            return Err(Refusal::bad_request(format!("there is no seat {seat}")));
        }
        if seat == self.host {
            return Err(Refusal::bad_request(
                "the host's own seat cannot be changed",
            ));
        }
        let previous = self.seats[seat].clone();
        self.ready.remove(&seat);
        self.seats[seat] = match occupant {
            SeatChoice::Bot => Occupant::Bot(level.unwrap_or(Level::Medium)),
            SeatChoice::Open => Occupant::Open,
        };
        if let Err(error) = self.persist_room().await {
            self.seats[seat] = previous;
            return Err(error);
        }
        self.broadcast_room();
        Ok(())
    }

    pub(super) async fn set_options(
        &mut self,
        conn: ConnId,
        change: SetOptions,
    ) -> Result<(), Refusal> {
        self.check_lobby(conn)?;
        let mut setup = self.setup.clone();
        if let Some(preset) = change.preset {
            setup.preset = preset;
        }
        if let Some(seats) = change.seats {
            if seats <= self.host {
                return Err(Refusal::bad_request("the host's seat cannot be removed"));
            }
            setup.seats = seats;
        }
        if let Some(options) = change.options {
            setup.options = options;
        }
        if let Some(teams) = change.teams {
            setup.teams = teams;
        }
        if let Some(public) = change.public {
            setup.public = public;
        }
        if let Some(rated) = change.rated {
            if rated && guest_seated(&self.seats) {
                return Err(account_needed());
            }
            setup.rated = rated;
        }
        // A custom fleet's fit check is a search: on the pool, in the client's turn.
        let rules = {
            let setup = setup.clone();
            self.context
                .cpu
                .run(self.key_of(conn), move || setup.check())
                .await
                .map_err(busy)??
        };
        check_rated_setup(&setup, &rules)?;
        let before = (self.setup.clone(), self.rules.clone(), self.seats.clone());
        self.seats.resize(setup.seats, Occupant::Open);
        self.setup = setup;
        self.rules = rules;
        if let Err(error) = self.persist_room().await {
            (self.setup, self.rules, self.seats) = before;
            return Err(error);
        }
        // What the people said ready to has changed.
        self.ready.clear();
        self.broadcast_room();
        Ok(())
    }

    /// `chat`: stored, kept for those who join later, sent to everybody —
    /// but while the game runs, a watcher's line (a spectator's, or an
    /// eliminated or resigned seat's, who see more than the players) goes
    /// to watchers only.
    pub(super) async fn chat(&mut self, conn: ConnId, text: &str) -> Result<(), Refusal> {
        let text = protocol::clean_chat(text)?;
        let member = self.members.get(&conn).ok_or_else(not_in_room)?;
        let line = ChatRecord {
            seat: self.seat_of(conn),
            nickname: member.person.nickname.clone(),
            text,
            at_ms: self.context.now_ms(),
            watchers: self.in_play() && self.watches(conn),
        };
        let stored = self
            .context
            .db
            .add_chat(self.code.clone(), line.clone(), &self.lease)
            .await;
        stored.map_err(|error| self.write_failed(error))?;
        let frame = chat_frame(&line);
        let watchers = line.watchers;
        self.chat.push_back(line);
        if self.chat.len() > CHAT_HISTORY {
            self.chat.pop_front();
        }
        let speaker = self.members[&conn].person.player_id;
        let hearers: Vec<ConnId> = self
            .members
            .iter()
            .filter(|(_, member)| !member.blocks.contains(&speaker))
            .map(|(&other, _)| other)
            .filter(|&other| !watchers || self.watches(other))
            .collect();
        for hearer in hearers {
            self.send_to(hearer, frame.clone());
        }
        Ok(())
    }
}
