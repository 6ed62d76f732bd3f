//! What each member of a room is sent: its own `state` (the view of its seat,
//! or the spectators' view, and the events it may see), the `room` frame with
//! its own `you`, and chat lines — the one place frames leave a room.

use std::collections::{BTreeMap, HashMap};

use broadside_engine::{Event, Phase, View};
use broadside_protocol::{RematchOffer, RoomInfo, RoomPhase, RoomSeat, SeatKind, StateFrame, You};

use super::rated::shares_address;
use super::{Occupant, Room};
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

    pub(super) fn state_frame_for(&self, conn: ConnId, events: &[Event]) -> Option<String> {
        let running = self.game.as_ref()?;
        let seat = self.seat_of(conn);
        let view: View = running.game.view(seat);
        let events = running.game.events_for(seat, events);
        let frame = ServerFrame::State(Box::new(StateFrame {
            view,
            events,
            deadline_ms: running.deadline.map(|d| d.left_ms()),
            stats: running.game.stats(),
        }));
        Some(frame.to_text())
    }

    pub(super) fn broadcast_state(&mut self, events: &[Event]) {
        // One serialization per distinct viewer: a seat's connections (tabs) and
        // all spectators share theirs.
        let mut cache: HashMap<Option<usize>, String> = HashMap::new();
        let frames: Vec<(ConnId, String)> = self
            .members
            .keys()
            .filter_map(|&conn| {
                let seat = self.seat_of(conn);
                if let Some(frame) = cache.get(&seat) {
                    return Some((conn, frame.clone()));
                }
                let frame = self.state_frame_for(conn, events)?;
                cache.insert(seat, frame.clone());
                Some((conn, frame))
            })
            .collect();
        for (conn, frame) in frames {
            self.send_to(conn, frame);
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
