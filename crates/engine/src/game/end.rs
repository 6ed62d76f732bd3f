//! Eliminations and the end of the game: a seat with no ship afloat is out
//! (its block revealed in the shared sea, R-9.5); the game ends when at most
//! one team has ships afloat, a draw when the last go down together (R-11.3,
//! ); and a seat may resign.

use crate::command::{Event, Phase};
use crate::error::RuleError;
use crate::rules::Mode;

use super::{Game, Turn};

impl Game {
    pub(super) fn eliminate(&mut self, seat: usize, events: &mut Vec<Event>) {
        self.seats[seat].eliminated = true;
        if self.rules.mode == Mode::SharedSea {
            let block = self.seat_block[seat];
            self.block_revealed[block] = true;
        }
        events.push(Event::Eliminated { seat });
    }

    /// Ends the game when at most one team has ships afloat.
    pub(super) fn check_end(&mut self, alive_before: &[usize], events: &mut Vec<Event>) {
        if self.phase == Phase::Finished {
            return;
        }
        let alive = self.alive_seats();
        let mut teams: Vec<u32> = alive.iter().map(|&s| self.rules.teams[s]).collect();
        teams.sort_unstable();
        teams.dedup();
        if teams.len() > 1 {
            return;
        }
        let (winning_teams, draw): (Vec<u32>, bool) = if teams.len() == 1 {
            (teams, false)
        } else {
            let mut before: Vec<u32> = alive_before.iter().map(|&s| self.rules.teams[s]).collect();
            before.sort_unstable();
            before.dedup();
            (before, true)
        };
        self.winners = (0..self.rules.seats)
            .filter(|&s| winning_teams.contains(&self.rules.teams[s]))
            .filter(|&s| {
                self.rules.has_teams
                    || draw && alive_before.contains(&s)
                    || !draw && alive.contains(&s)
            })
            .collect();
        self.draw = draw;
        self.phase = Phase::Finished;
        self.turn = Turn::None;
        events.push(Event::GameOver {
            winners: self.winners.clone(),
            draw,
        });
        events.push(Event::PhaseChanged {
            phase: Phase::Finished,
        });
    }

    pub(super) fn resign(&mut self, seat: usize) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        if self.phase == Phase::Finished {
            return Err(RuleError::GameOver);
        }
        if self.seats[seat].eliminated {
            return Err(RuleError::WrongPhase);
        }
        let mut events = vec![Event::Resigned { seat }];
        let alive_before = self.alive_seats();
        self.seats[seat].resigned = true;
        self.eliminate(seat, &mut events);
        self.check_end(&alive_before, &mut events);
        if self.phase == Phase::Finished {
            return Ok(events);
        }
        match (self.phase, self.turn.clone()) {
            (Phase::Shop, _) if !self.seats[seat].bought => {
                let fleet = self.default_space_fleet();
                self.set_fleet(seat, fleet, &mut events);
                self.maybe_end_shop(&mut events);
            }
            (Phase::Placement, _) if !self.seats[seat].ready => {
                let placed = self
                    .place_random(seat)
                    .expect("a fleet that passed the fit check always has a random layout");
                events.extend(placed);
            }
            (Phase::Battle, Turn::Duel { seat: mover, .. }) if mover == seat => {
                self.end_turn(seat, &mut events);
            }
            // An open round goes on for the others; it resolves when the last of
            // them has submitted (then a duel follows if two are left).
            (Phase::Battle, Turn::Salvo { .. }) if self.round_complete() => {
                self.resolve_round(&mut events);
            }
            _ => {}
        }
        Ok(events)
    }
}
