//! Salvo rounds, played while three or more seats are alive: starting a
//! round, checking a secret salvo (spread or focus, R-6.3; an action replacing
//! shots, R-6.5), random salvos, and resolving a complete round in the fixed
//! order of, followed by the next round or a duel.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::Rng;

use crate::command::{Action, Event, Phase, Target};
use crate::error::RuleError;
use crate::geometry::{Cell, Size};
use crate::rules::{Mode, SalvoMode};

use super::actions::ship_ability;
use super::{bad, Game, Submission, Turn};

impl Game {
    pub(super) fn start_round(&mut self, events: &mut Vec<Event>) {
        self.salvo_rounds += 1;
        let seats = self.rules.seats;
        let first = (self.salvo_rounds as usize - 1) % seats;
        self.turn = Turn::Salvo {
            number: self.salvo_rounds,
            first,
            submissions: vec![None; seats],
        };
        self.last_round_first = Some(first);
        events.push(Event::RoundStarted {
            round: self.salvo_rounds,
            first,
            to_move: self.alive_seats(),
        });
    }

    pub(super) fn salvo(
        &mut self,
        seat: usize,
        shots: Vec<Target>,
        action: Option<Action>,
    ) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        self.check_phase(Phase::Battle)?;
        let Turn::Salvo { submissions, .. } = &self.turn else {
            return Err(RuleError::WrongPhase);
        };
        if !self.is_alive(seat) {
            return Err(RuleError::NotYourTurn);
        }
        if submissions[seat].is_some() {
            return Err(RuleError::AlreadySubmitted);
        }
        let submission = Submission { shots, action };
        self.check_salvo(seat, &submission)?;
        let mut events = Vec::new();
        if let Turn::Salvo { submissions, .. } = &mut self.turn {
            submissions[seat] = Some(submission);
        }
        events.push(Event::SalvoSubmitted { seat });
        if self.round_complete() {
            self.resolve_round(&mut events);
        }
        Ok(events)
    }

    /// The opponents a seat must (spread) or may (focus) shoot at in a round; in
    /// the shared sea each opponent stands for that opponent's block.
    pub fn salvo_opponents(&self, seat: usize) -> Vec<usize> {
        (0..self.rules.seats)
            .filter(|&s| s != seat && self.is_alive(s) && !self.rules.same_team(s, seat))
            .collect()
    }

    /// The opponent whose waters hold a target.
    fn target_owner(&self, target: &Target) -> Option<usize> {
        self.owner_of(target.board, target.at)
    }

    /// The waters of an opponent: its board, or its block of the shared sea.
    pub(crate) fn opponent_area(&self, opponent: usize) -> (usize, Cell, Size) {
        match self.rules.mode {
            Mode::SharedSea => (
                0,
                self.block_origins[self.seat_block[opponent]],
                self.rules.board,
            ),
            _ => (opponent, Cell::new(0, 0), self.boards[opponent].size),
        }
    }

    /// How many cells of `opponent`'s waters `seat` may target, counting no
    /// further than `limit` (the salvo check only needs to know whether a full
    /// share of shots is possible; the seat's view counts them all).
    pub(crate) fn count_targetable(&self, seat: usize, opponent: usize, limit: u32) -> u32 {
        let (board, origin, size) = self.opponent_area(opponent);
        let mut count = 0;
        for row in 0..size.rows {
            for col in 0..size.cols {
                if self.is_targetable(seat, board, Cell::new(origin.col + col, origin.row + row)) {
                    count += 1;
                    if count == limit {
                        return count;
                    }
                }
            }
        }
        count
    }

    /// The shots a salvo of `seat` owes `opponent`'s waters when no ability
    /// takes their place, among `opponents` opponents: in
    /// `spread`, `shots_per_opponent`; in `focus`, the whole salvo, if the seat
    /// chooses this opponent. Fewer only when fewer cells are left to target.
    /// The salvo check and the seat's view both use it.
    pub(crate) fn salvo_share(&self, seat: usize, opponent: usize, opponents: usize) -> u32 {
        let per = self.rules.shots_per_opponent;
        let share = match self.rules.salvo {
            SalvoMode::Spread => per,
            SalvoMode::Focus => per * opponents as u32,
        };
        self.count_targetable(seat, opponent, share)
    }

    /// Up to `count` distinct random cells `seat` may target in an area of a
    /// board. Boards are mostly unknown for most of a game, so random draws are
    /// tried first and the full list is built only when they keep failing.
    pub(super) fn random_targets(
        &mut self,
        seat: usize,
        board: usize,
        origin: Cell,
        size: Size,
        count: usize,
    ) -> Vec<Cell> {
        let mut chosen: Vec<Cell> = Vec::with_capacity(count);
        for _ in 0..count * 24 {
            if chosen.len() == count {
                return chosen;
            }
            let at = Cell::new(
                origin.col + self.rng.random_range(0..size.cols),
                origin.row + self.rng.random_range(0..size.rows),
            );
            if self.is_targetable(seat, board, at) && !chosen.contains(&at) {
                chosen.push(at);
            }
        }
        let mut rest: Vec<Cell> = (0..size.rows)
            .flat_map(|r| (0..size.cols).map(move |c| Cell::new(origin.col + c, origin.row + r)))
            .filter(|&c| self.is_targetable(seat, board, c) && !chosen.contains(&c))
            .collect();
        rest.shuffle(&mut self.rng);
        rest.truncate(count - chosen.len());
        chosen.extend(rest);
        chosen
    }

    /// Checks a salvo in docs/referee.md order.
    fn check_salvo(&self, seat: usize, submission: &Submission) -> Result<(), RuleError> {
        for target in &submission.shots {
            self.check_aim(seat, target.board, Some(target.at))?;
        }
        if let Some(action) = &submission.action {
            self.check_action_aim(seat, action)?;
            if action.board().is_none() {
                return Err(bad("in a salvo round the reserve names the opponent whose shots it replaces (board)"));
            }
        }
        let opponents = self.salvo_opponents(seat);
        let action_opponent = match &submission.action {
            None => None,
            Some(Action::Reserve {
                board: Some(board), ..
            }) => {
                if self.rules.mode == Mode::SharedSea {
                    return Err(bad("the shared sea has no reserve"));
                }
                Some(*board)
            }
            Some(action) => {
                let board = action.board().expect("checked above");
                match self.rules.mode {
                    Mode::SharedSea => match action {
                        Action::Scanner { center, .. }
                        | Action::Nuke { at: center, .. }
                        | Action::Wide { center, .. }
                        | Action::Radar { center, .. } => self.owner_of(board, *center),
                        _ => return Err(bad("lines cannot be aimed in the shared sea")),
                    },
                    _ => Some(board),
                }
            }
        };
        if let Some(opponent) = action_opponent {
            if opponent == seat {
                return Err(RuleError::OwnBoard);
            }
            if opponent >= self.rules.seats || !opponents.contains(&opponent) {
                if opponent < self.rules.seats && self.rules.same_team(opponent, seat) {
                    return Err(RuleError::OwnTeam);
                }
                return Err(RuleError::NotTargetable);
            }
        }
        // Shots per opponent.
        let per = self.rules.shots_per_opponent;
        let mut counts: BTreeMap<usize, u32> = BTreeMap::new();
        for target in &submission.shots {
            match self.target_owner(target) {
                Some(owner) if opponents.contains(&owner) => *counts.entry(owner).or_default() += 1,
                _ => return Err(RuleError::NotTargetable),
            }
        }
        match self.rules.salvo {
            SalvoMode::Spread => {
                for &opponent in &opponents {
                    let got = counts.get(&opponent).copied().unwrap_or(0);
                    let expected = if Some(opponent) == action_opponent {
                        0
                    } else {
                        self.salvo_share(seat, opponent, opponents.len())
                    };
                    if got != expected {
                        return Err(RuleError::WrongShotCount { expected, got });
                    }
                }
            }
            SalvoMode::Focus => {
                let total = per * opponents.len() as u32;
                if counts.len() > 1 {
                    // Every shot goes to one opponent: count what went elsewhere.
                    let largest = counts.values().copied().max().unwrap_or(0);
                    return Err(RuleError::WrongShotCount {
                        expected: largest,
                        got: submission.shots.len() as u32,
                    });
                }
                match (counts.keys().next(), action_opponent) {
                    (Some(_), Some(_)) => {
                        // An ability replaces the whole salvo in focus mode.
                        return Err(RuleError::WrongShotCount {
                            expected: 0,
                            got: submission.shots.len() as u32,
                        });
                    }
                    (Some(&opponent), None) => {
                        let expected = self.salvo_share(seat, opponent, opponents.len());
                        let got = submission.shots.len() as u32;
                        if got != expected {
                            return Err(RuleError::WrongShotCount { expected, got });
                        }
                    }
                    (None, None) => {
                        return Err(RuleError::WrongShotCount {
                            expected: total,
                            got: 0,
                        });
                    }
                    (None, Some(_)) => {}
                }
            }
        }
        for (i, target) in submission.shots.iter().enumerate() {
            if submission.shots[..i].contains(target) {
                return Err(RuleError::DuplicateTarget);
            }
        }
        if let Some(action) = &submission.action {
            self.check_action_ready(seat, action.kind(), true)?;
        }
        for target in &submission.shots {
            if !self.is_targetable(seat, target.board, target.at) {
                return Err(RuleError::NotTargetable);
            }
        }
        if let Some(action) = &submission.action {
            self.check_action_target(seat, action)?;
        }
        Ok(())
    }

    pub(super) fn round_complete(&self) -> bool {
        match &self.turn {
            Turn::Salvo { submissions, .. } => {
                (0..self.rules.seats).all(|s| !self.is_alive(s) || submissions[s].is_some())
            }
            _ => false,
        }
    }

    /// A random salvo for a seat that did not submit.
    pub(super) fn random_submission(&mut self, seat: usize) -> Submission {
        let opponents = self.salvo_opponents(seat);
        let per = self.rules.shots_per_opponent as usize;
        let mut shots = Vec::new();
        let draw = |game: &mut Game, opponent: usize, count: usize| {
            let (board, origin, size) = game.opponent_area(opponent);
            game.random_targets(seat, board, origin, size, count)
                .into_iter()
                .map(move |at| Target { board, at })
                .collect::<Vec<_>>()
        };
        match self.rules.salvo {
            SalvoMode::Spread => {
                for &opponent in &opponents {
                    shots.extend(draw(self, opponent, per));
                }
            }
            SalvoMode::Focus => {
                if !opponents.is_empty() {
                    let opponent = opponents[self.rng.random_range(0..opponents.len())];
                    shots.extend(draw(self, opponent, per * opponents.len()));
                }
            }
        }
        Submission {
            shots,
            action: None,
        }
    }

    /// Resolves a complete round in the fixed order of.
    pub(super) fn resolve_round(&mut self, events: &mut Vec<Event>) {
        let Turn::Salvo {
            first, submissions, ..
        } = std::mem::replace(&mut self.turn, Turn::None)
        else {
            return;
        };
        let seats = self.rules.seats;
        let order: Vec<usize> = (0..seats).map(|k| (first + k) % seats).collect();
        let subs: Vec<(usize, Submission)> = order
            .iter()
            .filter_map(|&s| submissions[s].clone().map(|sub| (s, sub)))
            .collect();
        let participants: Vec<usize> = subs.iter().map(|(s, _)| *s).collect();
        // Book every action's use first, so a ship sunk in this round still acts.
        for (seat, sub) in &subs {
            if let Some(action) = &sub.action {
                let kind = action.kind();
                let round = self.seats[*seat].round;
                if kind.is_special() {
                    self.seats[*seat].special_uses[Self::special_slot(kind)] -= 1;
                } else {
                    self.seats[*seat].ability_used[ship_ability(kind).index()] = Some(round);
                }
                events.push(Event::ActionUsed {
                    seat: *seat,
                    kind,
                    board: action.board(),
                });
            }
        }
        // (1) reserves land.
        for (seat, sub) in &subs {
            if let Some(Action::Reserve { cells, .. }) = &sub.action {
                self.land_reserve(*seat, cells.as_ref(), events);
            }
        }
        // (2) scanners and radars look.
        for (seat, sub) in &subs {
            if let Some(Action::Scanner { board, center } | Action::Radar { board, center }) =
                &sub.action
            {
                self.scan(*seat, *board, *center, events);
            }
        }
        // (3) plain shots, nuke targets and area specials land at once.
        let mut landed: Vec<(usize, usize, Cell)> = Vec::new();
        let mut nukes: Vec<(usize, usize, Cell)> = Vec::new();
        for (seat, sub) in &subs {
            for target in &sub.shots {
                landed.push((*seat, target.board, target.at));
            }
            match &sub.action {
                Some(Action::Nuke { board, at }) => {
                    landed.push((*seat, *board, *at));
                    // A nuke explodes if its target held an intact part before
                    // this round's shots landed.
                    let b = &self.boards[*board];
                    if b.ship(*at).is_some() && !b.shot[b.size.index(*at)] {
                        nukes.push((*seat, *board, *at));
                    }
                }
                Some(action @ (Action::Wide { board, .. } | Action::Bombard { board, .. })) => {
                    for cell in self.area_cells(*seat, action) {
                        landed.push((*seat, *board, cell));
                    }
                }
                _ => {}
            }
        }
        for &(seat, board, at) in &landed {
            self.strike(seat, board, &[at]);
        }
        // (4) nukes that hit explode.
        for &(seat, board, at) in &nukes {
            // The same area as in a duel: cells this round already shot are
            // known now and left out.
            for cell in self.area_cells(seat, &Action::Nuke { board, at }) {
                landed.push((seat, board, cell));
                self.strike(seat, board, &[cell]);
            }
        }
        // (5) lasers, in seat order from the round's first seat.
        let mut laser_events = Vec::new();
        for (seat, sub) in &subs {
            if let Some(Action::Laser {
                board,
                column,
                from,
            }) = &sub.action
            {
                if let Some(cell) = self.beam(*board, *column, *from, &mut laser_events) {
                    self.strike(*seat, *board, &[cell]);
                    landed.push((*seat, *board, cell));
                }
            }
        }
        // (6) sinkings, rings, eliminations, the end.
        self.settle(events, move |game, events| {
            events.extend(laser_events);
            for (shooter, board, at) in landed {
                let shot = game.announce_shot(shooter, board, at);
                events.push(shot);
            }
        });
        for seat in participants {
            self.seats[seat].round += 1;
        }
        if self.phase == Phase::Finished {
            return;
        }
        if self.alive_seats().len() >= 3 {
            self.start_round(events);
        } else {
            // the first survivor from the last round's first seat.
            let f = self.last_round_first.unwrap_or(0);
            let next = (0..seats)
                .map(|k| (f + k) % seats)
                .find(|&s| self.is_alive(s))
                .expect("the game is not over, so someone is alive");
            self.turn = Turn::Duel {
                seat: next,
                shots: 0,
            };
            events.push(Event::TurnStarted { seat: next });
        }
    }
}
