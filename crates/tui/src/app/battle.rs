//! Battle: aiming, shots, abilities and specials, salvos, volleys and the
//! reserve's fighters.

use broadside_engine::{
    Action, ActionKind, Cell, Command, End, Line, Phase, SalvoMode, Target, RESERVE_FIGHTERS,
};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::due::{self, Due, Mismatch};
use super::play::KeyResult;
use super::{Play, ReservePick};
use crate::words;

/// Every ability and special, in the order `a` cycles through them.
pub(crate) const ACTION_KINDS: [ActionKind; 7] = [
    ActionKind::Laser,
    ActionKind::Scanner,
    ActionKind::Nuke,
    ActionKind::Reserve,
    ActionKind::Wide,
    ActionKind::Bombard,
    ActionKind::Radar,
];

impl Play {
    pub(super) fn battle_key(&mut self, key: KeyEvent) -> KeyResult {
        if self.move_cursor(key.code) {
            self.own_shown = false;
            return Ok(None);
        }
        if let Some(pick) = &self.reserve {
            return match key.code {
                KeyCode::Enter | KeyCode::Char('f') => self.act(),
                KeyCode::Char('r') => self.finish_reserve(None),
                KeyCode::Char('x') if !pick.cells.is_empty() => {
                    let cells = pick.cells.clone();
                    self.finish_reserve(Some(cells))
                }
                KeyCode::Esc => {
                    if let Some(pick) = self.reserve.take() {
                        self.target = pick.back_to;
                        self.cursor = self.clamp(self.target, self.cursor);
                    }
                    Ok(Some(self.lang.t("tui.reserve_unused")))
                }
                _ => Ok(None),
            };
        }
        match key.code {
            KeyCode::Enter | KeyCode::Char('f') => self.act(),
            KeyCode::Tab | KeyCode::BackTab => {
                let targets = self.target_boards();
                if let Some(i) = targets.iter().position(|&b| b == self.target) {
                    let n = targets.len();
                    self.target = targets[if key.code == KeyCode::Tab {
                        (i + 1) % n
                    } else {
                        (i + n - 1) % n
                    }];
                } else if let Some(&first) = targets.first() {
                    self.target = first;
                }
                self.cursor = self.clamp(self.target, self.cursor);
                self.own_shown = false;
                Ok(None)
            }
            KeyCode::Char('v') => {
                self.own_shown = !self.own_shown;
                Ok(None)
            }
            KeyCode::Char('a') => self.cycle_action(),
            KeyCode::Char('o') => {
                self.laser_end = if self.laser_end == End::Top {
                    End::Bottom
                } else {
                    End::Top
                };
                self.bombard_column = !self.bombard_column;
                Ok(None)
            }
            KeyCode::Char('x') => self.send_picks(),
            KeyCode::Esc => {
                self.action = None;
                self.picks.clear();
                self.salvo_action = None;
                Ok(Some(self.lang.t("tui.cleared")))
            }
            _ => Ok(None),
        }
    }

    pub(super) fn cycle_action(&mut self) -> KeyResult {
        let Some(view) = self.view.as_ref() else {
            return Ok(None);
        };
        let ready: Vec<ActionKind> = ACTION_KINDS
            .into_iter()
            .filter(|k| view.abilities.get(k.id()).is_some_and(|a| a.ready))
            .collect();
        if ready.is_empty() {
            self.action = None;
            return Err(self.lang.t("tui.nothing_ready"));
        }
        self.action = match self.action {
            None => Some(ready[0]),
            Some(now) => ready
                .iter()
                .position(|&k| k == now)
                .and_then(|i| ready.get(i + 1))
                .copied(),
        };
        Ok(Some(match self.action {
            Some(kind) => self.lang.fill(
                "tui.enter_uses",
                &[(
                    "action",
                    &words::action_name(self.lang, kind.id()).to_lowercase(),
                )],
            ),
            None => self.lang.t("tui.enter_fires"),
        }))
    }

    /// The action of the chosen kind aimed at the cursor.
    pub(crate) fn build_action(&self, kind: ActionKind, salvo: bool) -> Action {
        let (board, at) = (self.target, self.cursor);
        match kind {
            ActionKind::Laser => Action::Laser {
                board,
                column: at.col,
                from: self.laser_end,
            },
            ActionKind::Scanner => Action::Scanner { board, center: at },
            ActionKind::Nuke => Action::Nuke { board, at },
            ActionKind::Reserve => Action::Reserve {
                board: salvo.then_some(board),
                cells: None,
            },
            ActionKind::Wide => Action::Wide { board, center: at },
            ActionKind::Bombard => Action::Bombard {
                board,
                line: if self.bombard_column {
                    Line::Column(at.col)
                } else {
                    Line::Row(at.row)
                },
            },
            ActionKind::Radar => Action::Radar { board, center: at },
        }
    }

    /// Enter in battle: a shot, an ability, or a pick for a salvo or volley.
    pub fn act(&mut self) -> KeyResult {
        let (Some(view), Some(me)) = (self.view.as_ref(), self.me) else {
            return Ok(None);
        };
        match view.phase {
            Phase::Battle => {}
            Phase::Finished => return Err(self.lang.t("tui.game_over_leave")),
            _ => return Ok(None),
        }
        if !view.to_move.contains(&me) {
            return Err(self.lang.t("err.not_your_turn"));
        }
        let target = Target {
            board: self.target,
            at: self.cursor,
        };
        let salvo = view.salvo_round;
        // Under the hard rule, the shots of the volley due now as the engine
        // counts them (fewer than `shots_per_turn` only near the end, R-5.1).
        let volley = view
            .legal_targets
            .as_ref()
            .filter(|targets| targets.volley)
            .and_then(|targets| targets.shots_in_turn);
        if self.reserve.is_some() {
            return self.toggle_reserve_cell();
        }
        if self.action == Some(ActionKind::Reserve) {
            // The fighters' cells are chosen on the own field first.
            self.action = None;
            self.reserve = Some(ReservePick {
                cells: Vec::new(),
                back_to: self.target,
                salvo,
            });
            self.target = me;
            self.cursor = self.clamp(me, self.cursor);
            return Ok(Some(
                self.lang
                    .fill("tui.reserve_choose", &[("n", &RESERVE_FIGHTERS)]),
            ));
        }
        if view.salvo_round {
            if let Some(kind) = self.action.take() {
                self.salvo_action = Some(self.build_action(kind, true));
                let action = words::action_name(self.lang, kind.id()).to_lowercase();
                return Ok(Some(
                    self.lang.fill("tui.replaces_shots", &[("action", &action)]),
                ));
            }
            return Ok(Some(self.toggle_pick(target)));
        }
        if let Some(kind) = self.action.take() {
            let action = self.build_action(kind, false);
            return self.submit(Command::Ability { seat: me, action });
        }
        if let Some(volley) = volley {
            let text = self.toggle_pick(target);
            if self.picks.len() as u32 >= volley {
                return self.send_picks();
            }
            return Ok(Some(text));
        }
        self.submit(Command::Fire { seat: me, target })
    }

    pub(super) fn toggle_reserve_cell(&mut self) -> KeyResult {
        let cursor = self.cursor;
        let Some(pick) = self.reserve.as_mut() else {
            return Ok(None);
        };
        match pick.cells.iter().position(|&c| c == cursor) {
            Some(i) => {
                pick.cells.remove(i);
            }
            None => pick.cells.push(cursor),
        }
        if pick.cells.len() >= RESERVE_FIGHTERS {
            let cells = pick.cells.clone();
            return self.finish_reserve(Some(cells));
        }
        Ok(Some(self.lang.fill(
            "tui.fighters_marked",
            &[("k", &pick.cells.len()), ("n", &RESERVE_FIGHTERS)],
        )))
    }

    /// Uses the reserve with the chosen cells (`None`: the engine draws them).
    pub(super) fn finish_reserve(&mut self, cells: Option<Vec<Cell>>) -> KeyResult {
        let (Some(pick), Some(me)) = (self.reserve.take(), self.me) else {
            return Ok(None);
        };
        self.target = pick.back_to;
        self.cursor = self.clamp(self.target, self.cursor);
        let action = Action::Reserve {
            board: pick.salvo.then_some(pick.back_to),
            cells,
        };
        if pick.salvo {
            self.salvo_action = Some(action);
            let action = words::action_name(self.lang, ActionKind::Reserve.id()).to_lowercase();
            return Ok(Some(
                self.lang.fill("tui.replaces_shots", &[("action", &action)]),
            ));
        }
        self.submit(Command::Ability { seat: me, action })
    }

    pub(super) fn toggle_pick(&mut self, target: Target) -> String {
        if let Some(i) = self.picks.iter().position(|&t| t == target) {
            self.picks.remove(i);
        } else {
            self.picks.push(target);
        }
        let Some(view) = self.view.as_ref() else {
            return String::new();
        };
        // The count of the waters this cell lies in, against what they need.
        let block = due::block_of(view, target.at);
        match due::dues(view, &self.picks)
            .into_iter()
            .find(|d| d.board == target.board && d.block == block)
        {
            Some(d) => self.lang.plural(
                "tui.cells_chosen_of",
                u64::from(d.due),
                &[("k", &d.chosen), ("waters", &self.waters_name(&d))],
            ),
            None => self
                .lang
                .plural("tui.cells_chosen", self.picks.len() as u64, &[]),
        }
    }

    /// The waters of a salvo or volley as the panel and the messages name
    /// them: the opponent's, or in the shared sea the block by its corners.
    pub(crate) fn waters_name(&self, due: &Due) -> String {
        let (Some(view), Some(block)) = (self.view.as_ref(), due.block) else {
            let name = self
                .names
                .get(due.board)
                .cloned()
                .unwrap_or_else(|| self.lang.fill("seat_n", &[("n", &(due.board + 1))]));
            return self.lang.fill("board_of", &[("name", &name)]);
        };
        let axis = view.letter_axis;
        let origin = view
            .blocks
            .as_ref()
            .and_then(|b| b.get(block))
            .map_or(Cell::new(0, 0), |b| b.origin);
        let size = view.board_size;
        let last = Cell::new(origin.col + size.cols - 1, origin.row + size.rows - 1);
        self.lang.fill(
            "tui.block_name",
            &[
                ("from", &broadside_engine::label(axis, origin)),
                ("to", &broadside_engine::label(axis, last)),
            ],
        )
    }

    /// Why the picked cells are not the salvo or volley the engine expects,
    /// in words, or `None` when they are (or when an ability replaces the
    /// salvo's shots, which the engine checks).
    fn picks_mismatch(&self, salvo_mode: Option<SalvoMode>) -> Option<String> {
        let view = self.view.as_ref()?;
        if self.salvo_action.is_some() {
            return None;
        }
        match due::check(&due::dues(view, &self.picks), salvo_mode) {
            Ok(()) => None,
            Err(Mismatch::Count(d)) => Some(self.lang.plural(
                "tui.due_count",
                u64::from(d.due),
                &[("k", &d.chosen), ("waters", &self.waters_name(&d))],
            )),
            Err(Mismatch::Spread { due }) => {
                Some(self.lang.plural("tui.due_focus", u64::from(due), &[]))
            }
        }
    }

    /// Sends the chosen cells as a salvo or a hard-rule volley.
    pub(super) fn send_picks(&mut self) -> KeyResult {
        let (Some(view), Some(me)) = (self.view.as_ref(), self.me) else {
            return Ok(None);
        };
        if !view.to_move.contains(&me) {
            return Err(self.lang.t("err.not_your_turn"));
        }
        let salvo_mode = view
            .salvo_round
            .then(|| self.rules.as_ref().map(|r| r.salvo))
            .flatten();
        if let Some(why) = self.picks_mismatch(salvo_mode) {
            return Err(why);
        }
        let command = if view.salvo_round {
            Command::Salvo {
                seat: me,
                shots: self.picks.clone(),
                action: self.salvo_action.clone(),
            }
        } else if view
            .legal_targets
            .as_ref()
            .is_some_and(|targets| targets.volley)
        {
            Command::Volley {
                seat: me,
                cells: self.picks.iter().map(|t| t.at).collect(),
            }
        } else {
            return Err(self.lang.t("tui.x_not_here"));
        };
        let sent = self.submit(command);
        if sent.is_ok() {
            self.picks.clear();
            self.salvo_action = None;
        }
        sent
    }
}
