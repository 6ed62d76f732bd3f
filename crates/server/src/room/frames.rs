//! What each member of a room is sent: its own `state` (the view of its seat,
//! or the spectators' view, and the events it may see), the `room` frame with
//! its own `you`, and chat lines — the one place frames leave a room.

use std::collections::{BTreeMap, BTreeSet};

use broadside_engine::{Event, Phase};
use broadside_protocol::{
    ChangeFrame, RematchOffer, RoomInfo, RoomPhase, RoomSeat, SeatKind, StateFrame, You,
};

use super::rated::shares_address;
use super::{Occupant, Room, Stream};
use crate::db::ChatRecord;
use crate::outbox::ConnId;
use crate::protocol::{self, ServerFrame};

impl Room {
    pub(super) fn send_to(&mut self, conn: ConnId, frame: String) {
        let Some(member) = self.members.get(&conn) else {
            return;
        };
        if !member.outbox.send(frame) {
            // A connection that cannot keep up (or is gone) leaves the room; the
            // outbox has told it to close (docs/protocol.md, "too slow"), and its
            // person gets everything back on joining again.
            self.members.remove(&conn);
        }
    }

    /// Sends each member the frame `frame_for` makes for it (none: nothing).
    pub(super) fn broadcast(&mut self, mut frame_for: impl FnMut(ConnId) -> Option<String>) {
        let conns: Vec<ConnId> = self.members.keys().copied().collect();
        for conn in conns {
            if let Some(frame) = frame_for(conn) {
                self.send_to(conn, frame);
            }
        }
    }

    /// The whole view of `conn`'s audience as a `state` frame: on joining and
    /// on `resync`. The audience's stream goes on from its last number, so
    /// the connection can follow the next `change` like the others of its
    /// audience; an audience without a stream yet starts one here.
    pub(super) fn full_state_for(&mut self, conn: ConnId) -> Option<String> {
        let audience = self.seat_of(conn);
        let running = self.game.as_mut()?;
        let stream = running.streams.entry(audience).or_insert_with(|| Stream {
            seq: 0,
            view: running.game.view(audience),
        });
        let frame = ServerFrame::State(Box::new(StateFrame {
            seq: stream.seq,
            view: stream.view.clone(),
            events: Vec::new(),
            deadline_ms: running.deadline.map(|d| d.left_ms()),
            stats: running.game.stats(),
        }));
        Some(frame.to_text())
    }

    /// Sends every member what a change of the game (`events`) changed in
    /// its view: a `change` frame for an audience that has a stream, a whole
    /// `state` for one that has none yet (a new game). One frame is made per
    /// audience (a seat's connections, or all spectators) and shared by its
    /// members. An audience nobody belongs to any more loses its stream: its
    /// copy would go stale, and whoever joins it later starts a new one.
    pub(super) fn broadcast_state(&mut self, events: &[Event]) {
        let members: Vec<(ConnId, Option<usize>)> = self
            .members
            .keys()
            .map(|&conn| (conn, self.seat_of(conn)))
            .collect();
        let Some(running) = self.game.as_mut() else {
            return;
        };
        let audiences: BTreeSet<Option<usize>> = members.iter().map(|&(_, a)| a).collect();
        running
            .streams
            .retain(|audience, _| audiences.contains(audience));
        let deadline_ms = running.deadline.map(|d| d.left_ms());
        let stats = running.game.stats();
        let mut frames: BTreeMap<Option<usize>, String> = BTreeMap::new();
        for audience in audiences {
            let view = running.game.view(audience);
            let events = running.game.events_for(audience, events);
            let frame = match running.streams.get_mut(&audience) {
                Some(stream) => {
                    let (patch, cells) = broadside_protocol::change_between(&stream.view, &view);
                    stream.seq += 1;
                    stream.view = view;
                    ServerFrame::Change(Box::new(ChangeFrame {
                        seq: stream.seq,
                        view: patch,
                        cells,
                        events,
                        deadline_ms,
                        stats: stats.clone(),
                    }))
                }
                None => {
                    running.streams.insert(
                        audience,
                        Stream {
                            seq: 0,
                            view: view.clone(),
                        },
                    );
                    ServerFrame::State(Box::new(StateFrame {
                        seq: 0,
                        view,
                        events,
                        deadline_ms,
                        stats: stats.clone(),
                    }))
                }
            };
            frames.insert(audience, frame.to_text());
        }
        for (conn, audience) in members {
            if let Some(frame) = frames.get(&audience) {
                self.send_to(conn, frame.clone());
            }
        }
    }

    pub(super) fn phase(&self) -> RoomPhase {
        self.game
            .as_ref()
            .map_or(RoomPhase::Lobby, |r| r.game.phase().into())
    }

    /// The room as the `room` frame shows it, without `you` (which differs
    /// per connection).
    fn room_info(&self) -> RoomInfo {
        let to_move = self
            .game
            .as_ref()
            .map(|r| r.game.to_move())
            .unwrap_or_default();
        let seats: Vec<RoomSeat> = self
            .seats
            .iter()
            .enumerate()
            .map(|(seat, occupant)| {
                // In the lobby: the seat said `ready`; in a game: it has
                // placed (or bought).
                let ready = match &self.game {
                    None => self.ready.contains(&seat),
                    Some(running) => match running.game.phase() {
                        Phase::Shop | Phase::Placement => !to_move.contains(&seat),
                        _ => true,
                    },
                };
                match occupant {
                    Occupant::Open => RoomSeat {
                        seat,
                        kind: SeatKind::Open,
                        nickname: None,
                        level: None,
                        connected: false,
                        ready: false,
                        rating: None,
                        provisional: None,
                    },
                    Occupant::Person(person) => {
                        let rating = self.ratings.get(&person.player_id);
                        RoomSeat {
                            seat,
                            kind: SeatKind::Person,
                            nickname: Some(person.nickname.clone()),
                            level: None,
                            connected: self.connected(seat),
                            ready,
                            rating: Some(rating.map(|r| r.rating.round())),
                            provisional: Some(rating.map(|r| r.provisional())),
                        }
                    }
                    Occupant::Bot(level) => RoomSeat {
                        seat,
                        kind: SeatKind::Bot,
                        nickname: None,
                        level: Some(protocol::wire_level(*level)),
                        connected: true,
                        ready,
                        rating: None,
                        provisional: None,
                    },
                }
            })
            .collect();
        let spectators = self
            .members
            .keys()
            .filter(|&&conn| self.seat_of(conn).is_none())
            .count();
        RoomInfo {
            code: self.code.clone(),
            invite: format!("/r/{}", self.code),
            preset: self.setup.preset,
            seats,
            host: self.host,
            spectators,
            started: self.started(),
            game: self.game_number,
            phase: self.phase(),
            rematch: self.rematch.first().map(|&from| RematchOffer {
                from,
                accepted: self.rematch.clone(),
                waiting: self.rematch_waiting(),
            }),
            setup: self.setup.clone(),
            rules: self.rules.clone(),
            you: None,
            aborted: self.game.as_ref().and_then(|r| r.earned.aborted.clone()),
            same_address: self.setup.rated && shares_address(&self.seats, &self.addresses),
        }
    }

    pub(super) fn broadcast_room(&mut self) {
        let yous: BTreeMap<ConnId, You> = self
            .members
            .keys()
            .map(|&conn| {
                let seat = self.seat_of(conn);
                let you = You {
                    seat,
                    spectator: seat.is_none(),
                    host: seat == Some(self.host),
                };
                (conn, you)
            })
            .collect();
        // One frame, its `you` set for each connection in turn.
        let mut frame = ServerFrame::Room {
            room: Box::new(self.room_info()),
        };
        self.broadcast(|conn| {
            if let ServerFrame::Room { room } = &mut frame {
                room.you = yous.get(&conn).copied();
            }
            Some(frame.to_text())
        });
    }
}

/// A chat line as its `chat` frame.
pub(super) fn chat_frame(line: &ChatRecord) -> String {
    ServerFrame::Chat {
        from: line.nickname.clone(),
        seat: line.seat,
        text: line.text.clone(),
        at: line.at_ms,
        watchers: line.watchers,
    }
    .to_text()
}
