//! Duel turns, played while two seats (or two teams) are alive: whose
//! move it is, one fired shot, whether the shooter fires again (R-4.2, R-4.3,
//! ), and the passing of the turn.

use crate::command::{Event, Phase, Target};
use crate::error::RuleError;

use super::{Game, Turn};

impl Game {
    /// The seat to move in a duel, after the phase checks of docs/referee.md.
    pub(super) fn duel_mover(&self, seat: usize) -> Result<u32, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Battle)?;
        match self.turn {
            Turn::Duel { seat: mover, shots } => {
                if mover != seat {
                    Err(RuleError::NotYourTurn)
                } else {
                    Ok(shots)
                }
            }
            _ => Err(RuleError::WrongPhase),
        }
    }

    pub(super) fn fire(&mut self, seat: usize, target: Target) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Battle)?;
        if self.rules.per_volley() {
            return Err(RuleError::WrongPhase);
        }
        self.duel_mover(seat)?;
        self.check_target(seat, target)?;
        let mut events = Vec::new();
        let hit = self.shoot(seat, target.board, &[target.at], &mut events);
        self.after_shot(seat, hit, &mut events);
        Ok(events)
    }

    /// Continues or ends a duel turn after a shot.
    pub(super) fn after_shot(&mut self, seat: usize, hit: bool, events: &mut Vec<Event>) {
        if self.phase == Phase::Finished {
            // The winning shot ends the turn too.
            self.seats[seat].round += 1;
            return;
        }
        let Turn::Duel { shots, .. } = &mut self.turn else {
            return;
        };
        *shots += 1;
        let shots = *shots;
        let more = match self.fixed_turn_shots() {
            Some(fixed) => shots < fixed,
            None => {
                self.rules.hit_again
                    && hit
                    && self.rules.max_shots_per_turn.is_none_or(|m| shots < m)
            }
        };
        if !more {
            self.end_turn(seat, events);
        }
    }

    /// Ends the seat's duel turn: its round advances and the next living seat
    /// (that is not a team-mate) moves.
    pub(super) fn end_turn(&mut self, seat: usize, events: &mut Vec<Event>) {
        self.seats[seat].round += 1;
        if self.phase == Phase::Finished {
            return;
        }
        let seats = self.rules.seats;
        if self.rules.practice {
            // Practice: the target fleet never shoots back.
            self.turn = Turn::Duel { seat, shots: 0 };
            events.push(Event::TurnStarted { seat });
            return;
        }
        let next = (1..=seats)
            .map(|k| (seat + k) % seats)
            .find(|&s| self.is_alive(s) && (s == seat || !self.rules.same_team(s, seat)))
            .unwrap_or(seat);
        self.turn = Turn::Duel {
            seat: next,
            shots: 0,
        };
        events.push(Event::TurnStarted { seat: next });
    }

    /// The shots a duel turn has whatever they hit, when that number is fixed:
    /// `shots_per_turn` above 1 (brasil's 3, R-5.1). `None` when hits decide
    /// how many shots a turn has.
    pub(crate) fn fixed_turn_shots(&self) -> Option<u32> {
        (self.rules.shots_per_turn > 1).then_some(self.rules.shots_per_turn)
    }

    /// The opponent a seat shoots at in a duel: the first living seat of
    /// another team (the only one in the 2-seat presets of the hard rule).
    pub(crate) fn duel_opponent(&self, seat: usize) -> usize {
        (0..self.rules.seats)
            .find(|&s| s != seat && self.is_alive(s) && !self.rules.same_team(s, seat))
            .unwrap_or(seat)
    }
}
