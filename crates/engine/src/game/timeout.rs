//! The clock (`Command::Timeout`): what happens to seats that did not act in
//! time. The shop gives them the default fleet, placement a random
//! layout, a duel fires the due shot at random and a salvo
//! round fills the missing salvos at random.

use crate::command::{Event, Phase};
use crate::error::RuleError;
use crate::geometry::Cell;
use crate::rules::Mode;

use super::{Game, Turn};

impl Game {
    pub(super) fn timeout(&mut self) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        match self.phase {
            Phase::Finished => return Err(RuleError::GameOver),
            Phase::Shop => {
                let fleet = self.default_space_fleet();
                for seat in 0..self.rules.seats {
                    if !self.seats[seat].bought {
                        self.set_fleet(seat, fleet.clone(), &mut events);
                    }
                }
                self.maybe_end_shop(&mut events);
            }
            Phase::Placement => {
                for seat in 0..self.rules.seats {
                    if !self.seats[seat].ready && self.phase == Phase::Placement {
                        events.extend(self.place_random(seat)?);
                    }
                }
            }
            Phase::Battle => match self.turn.clone() {
                Turn::Duel { seat, shots } => self.duel_timeout(seat, shots, &mut events),
                Turn::Salvo { submissions, .. } => {
                    for seat in 0..self.rules.seats {
                        if self.is_alive(seat) && submissions[seat].is_none() {
                            let submission = self.random_submission(seat);
                            if let Turn::Salvo { submissions, .. } = &mut self.turn {
                                submissions[seat] = Some(submission);
                            }
                            events.push(Event::SalvoSubmitted { seat });
                        }
                    }
                    self.resolve_round(&mut events);
                }
                Turn::None => return Err(RuleError::WrongPhase),
            },
        }
        Ok(events)
    }

    /// the due shot (brasil: every remaining shot of the turn) falls at random.
    fn duel_timeout(&mut self, seat: usize, shots: u32, events: &mut Vec<Event>) {
        let board = match self.rules.mode {
            Mode::SharedSea => 0,
            _ => self.duel_opponent(seat),
        };
        if self.rules.per_volley() {
            let size = self.boards[board].size;
            let count = self.rules.shots_per_turn as usize;
            let cells = self.random_targets(seat, board, Cell::new(0, 0), size, count);
            self.resolve_volley(seat, board, &cells, events);
            self.end_turn(seat, events);
            return;
        }
        let count = match self.fixed_turn_shots() {
            Some(fixed) => fixed - shots,
            None => 1,
        };
        for _ in 0..count {
            if self.phase == Phase::Finished {
                break;
            }
            let size = self.boards[board].size;
            let Some(at) = self
                .random_targets(seat, board, Cell::new(0, 0), size, 1)
                .pop()
            else {
                self.end_turn(seat, events);
                break;
            };
            let hit = self.shoot(seat, board, &[at], events);
            self.after_shot(seat, hit, events);
        }
    }
}
