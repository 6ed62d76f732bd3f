//! Blocks and reports from inside a room: a person names another by seat
//! (the only handle a client has of another person), and the room, which
//! knows who sits there, stores it. A block also takes effect here at once:
//! the blocker's member hears nothing more from the blocked person.

use broadside_protocol::{codes, BlockedPlayer, Refusal, ServerFrame};

use super::{not_in_room, Occupant, Person, Room};
use crate::db::ReportRow;
use crate::outbox::ConnId;
use crate::protocol;

/// What a report may say it is about.
pub const REPORT_REASONS: &[&str] = &["cheating", "abuse", "spam", "other"];

impl Room {
    /// Whether `person` may come in: not if they and the host block one
    /// another (either way).
    pub(super) async fn check_not_blocked(&mut self, person: &Person) -> Result<(), Refusal> {
        let Some(Occupant::Person(host)) = self.seats.get(self.host) else {
            return Ok(());
        };
        if host.player_id == person.player_id {
            return Ok(());
        }
        let context = self.context.clone();
        let blocked = context
            .db
            .blocked_either_way(person.player_id, vec![host.player_id])
            .await
            .map_err(|error| self.write_failed(error))?;
        if blocked.is_empty() {
            Ok(())
        } else {
            Err(Refusal::new(
                codes::NOT_ALLOWED,
                "you cannot join this room",
            ))
        }
    }

    /// The person in `seat`, other than the one asking (`conn`).
    fn other_person(&self, conn: ConnId, seat: usize) -> Result<(Person, Person), Refusal> {
        let me = self
            .members
            .get(&conn)
            .ok_or_else(not_in_room)?
            .person
            .clone();
        match self.seats.get(seat) {
            Some(Occupant::Person(other)) if other.player_id != me.player_id => {
                Ok((me, other.clone()))
            }
            _ => Err(Refusal::new(
                codes::NO_SUCH_PLAYER,
                "no other person sits in that seat",
            )),
        }
    }

    /// `block`: stored for good, and at once in this room.
    pub(super) async fn block(&mut self, conn: ConnId, seat: usize) -> Result<(), Refusal> {
        let (me, other) = self.other_person(conn, seat)?;
        let context = self.context.clone();
        let db = &context.db;
        db.add_block(me.player_id, other.player_id, context.now_ms())
            .await
            .map_err(|error| self.write_failed(error))?;
        let blocks = db
            .blocks_of(me.player_id)
            .await
            .map_err(|error| self.write_failed(error))?;
        for member in self.members.values_mut() {
            if member.person.player_id == me.player_id {
                member.blocks.insert(other.player_id);
            }
        }
        let players = blocks
            .into_iter()
            .map(|(player, name)| BlockedPlayer { player, name })
            .collect();
        self.send_to(conn, ServerFrame::Blocks { players }.to_text());
        Ok(())
    }

    /// `report`: stored with the room and its game for the operators.
    pub(super) async fn report(
        &mut self,
        conn: ConnId,
        seat: usize,
        reason: &str,
        note: Option<&str>,
    ) -> Result<(), Refusal> {
        if !REPORT_REASONS.contains(&reason) {
            return Err(Refusal::bad_request(format!(
                "a report's reason is one of {REPORT_REASONS:?}"
            )));
        }
        let note = note.map(protocol::clean_chat).transpose()?;
        let (me, other) = self.other_person(conn, seat)?;
        let report = ReportRow {
            id: 0,
            reporter: me.player_id,
            reported: other.player_id,
            room_code: Some(self.code.clone()),
            game_id: self.game.as_ref().map(|running| running.id),
            reason: reason.to_string(),
            note,
            created_ms: self.context.now_ms(),
        };
        let context = self.context.clone();
        context
            .db
            .add_report(report)
            .await
            .map_err(|error| self.write_failed(error))?;
        self.send_to(conn, ServerFrame::Reported.to_text());
        Ok(())
    }
}
