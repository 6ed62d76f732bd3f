//! One game being played: who referees it, the keys that work in every
//! phase, and the state that follows the seat's view.

use std::collections::BTreeMap;

use broadside_engine::{
    parse_label, Action, ActionKind, Cell, Command, End, Event, Mode, Phase, Rules, Size, Target,
    View,
};
use broadside_protocol::ClientFrame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::online::net_error;
use super::{App, Local, Notice, Placing, Prompt, PromptKind, Remote, Screen, Shop};
use crate::i18n::Lang;
use crate::net;
use crate::words::{self, Names};

/// Who referees the game.
pub enum Source {
    /// Offline: the engine in this process, with bots in the other seats
    /// (boxed: a game is large and there is only one).
    Local(Box<Local>),
    /// Online: the server referees; this is the link to it.
    Remote(Remote),
}

/// One game being played, offline or online.
pub struct Play {
    pub source: Source,
    pub view: Option<View>,
    pub rules: Option<Rules>,
    /// This terminal's seat (`None`: spectator).
    pub me: Option<usize>,
    /// A display name per seat.
    pub names: Vec<String>,
    /// Online: each person's rating in the room's preset, as shown beside the
    /// name (`1662?` while provisional); `None` for bots, open seats and the unrated.
    pub ratings: Vec<Option<String>>,
    pub log: Vec<String>,
    /// How many lines the log is scrolled back from its newest (PgUp/PgDn).
    /// Only drawing knows the log's height, so drawing keeps it within the
    /// oldest page.
    pub log_scroll: std::cell::Cell<usize>,
    pub placing: Option<Placing>,
    pub shop: Option<Shop>,
    pub cursor: Cell,
    /// The board the cursor is on in battle.
    pub target: usize,
    /// When only one board fits: whether it is the own board.
    pub own_shown: bool,
    /// The ability or special that Enter uses instead of a shot.
    pub action: Option<ActionKind>,
    pub laser_end: End,
    pub bombard_column: bool,
    /// Cells chosen for a salvo or a hard-rule volley, not yet sent.
    pub picks: Vec<Target>,
    /// The ability chosen for the salvo being prepared.
    pub salvo_action: Option<Action>,
    /// Choosing the cells of the reserve's fighters on the own field.
    pub reserve: Option<ReservePick>,
    /// The language of the log and of the answers to keys.
    pub lang: Lang,
    /// Hot-seat: the seat of the person the terminal is to be passed to;
    /// until they press Enter, every board is hidden.
    pub handover: Option<usize>,
}

/// The reserve's fighters being placed: the cells chosen so far, and the board
/// aimed at before (in a salvo round the reserve replaces the shots on it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservePick {
    pub cells: Vec<Cell>,
    pub back_to: usize,
    pub salvo: bool,
}

/// What a key did: a message for the player, or an error.
pub(super) type KeyResult = Result<Option<String>, String>;

impl App {
    pub(super) fn tick(&mut self) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        match &mut play.source {
            Source::Local(_) => {
                play.step_bots(self.sender.as_ref());
            }
            Source::Remote(remote) => {
                if remote
                    .retry_at
                    .is_some_and(|at| std::time::Instant::now() >= at)
                {
                    remote.retry_at = None;
                    if let Some(sender) = self.sender.clone() {
                        match net::connect(&remote.server, sender) {
                            Ok(out) => remote.out = out,
                            Err(e) => {
                                self.notice = Some(Notice {
                                    text: net_error(play.lang, &e),
                                    error: true,
                                })
                            }
                        }
                    }
                    return;
                }
                // A ping now and then keeps idle connections (and proxies) open.
                remote.idle_ticks += 1;
                if remote.idle_ticks >= 200 && remote.connected {
                    remote.idle_ticks = 0;
                    let _ = remote.out.send(ClientFrame::Ping.to_text());
                }
            }
        }
    }

    pub(super) fn play_key(&mut self, key: KeyEvent) {
        // A notice answers the last key; the next key makes it old news.
        self.notice = None;
        let Some(play) = self.play.as_mut() else {
            self.screen = Screen::Menu;
            return;
        };
        // Hot-seat: between turns only Enter (the next person is here) and
        // leaving work; nothing of the board may be touched or shown.
        if play.handover.is_some() {
            match key.code {
                KeyCode::Enter => play.take_over(),
                KeyCode::Char('q') => self.ask_to_leave(),
                _ => {}
            }
            return;
        }
        if play.scroll_log(key.code) {
            return;
        }
        // Keys that work in every phase.
        match key.code {
            KeyCode::Char('s') => {
                if matches!(play.source, Source::Local(_)) {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::SavePath,
                        text: self.save_path.clone(),
                    });
                } else {
                    self.warn(self.lang().t("tui.online_kept"));
                }
                return;
            }
            KeyCode::Char('q') => {
                let finished = play
                    .view
                    .as_ref()
                    .is_some_and(|v| v.phase == Phase::Finished);
                if finished {
                    self.leave_game();
                } else {
                    self.ask_to_leave();
                }
                return;
            }
            KeyCode::Char('n')
                if play
                    .view
                    .as_ref()
                    .is_some_and(|v| v.phase == Phase::Finished) =>
            {
                if matches!(play.source, Source::Remote(_)) {
                    // Same seats and setup, a new seed: an offer the other
                    // people accept by asking too (bots accept at once).
                    self.send_frame(ClientFrame::Rematch);
                    self.say(self.lang().t("tui.rematch_asked"));
                } else {
                    // The form still holds this game's choices.
                    self.play = None;
                    self.screen = Screen::NewGame;
                }
                return;
            }
            _ => {}
        }
        let result = if play.shop.is_some() {
            play.shop_key(key)
        } else if play.placing.is_some() {
            play.placing_key(key)
        } else {
            match key.code {
                KeyCode::Char(':') | KeyCode::Char('t') => {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::Label,
                        text: String::new(),
                    });
                    return;
                }
                KeyCode::Char('R') => {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::ConfirmResign,
                        text: String::new(),
                    });
                    return;
                }
                KeyCode::Char('c') if matches!(play.source, Source::Remote(_)) => {
                    self.prompt = Some(Prompt {
                        kind: PromptKind::Chat,
                        text: String::new(),
                    });
                    return;
                }
                _ => play.battle_key(key),
            }
        };
        match result {
            Ok(Some(text)) => self.say(text),
            Ok(None) => {}
            Err(text) => self.warn(text),
        }
    }

    pub(super) fn aim_label(&mut self, text: &str) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let Some(view) = play.view.as_ref() else {
            return;
        };
        let Some(size) = play.board_size(play.target) else {
            return;
        };
        match parse_label(view.letter_axis, size, text) {
            Ok(cell) => {
                play.cursor = cell;
                play.own_shown = false;
                match play.act() {
                    Ok(Some(text)) => self.say(text),
                    Ok(None) => {}
                    Err(text) => self.warn(text),
                }
            }
            Err(broadside_engine::LabelError::Malformed(label)) => self.warn(
                self.lang()
                    .fill("tui.label_malformed", &[("label", &label)]),
            ),
            Err(broadside_engine::LabelError::OutOfBounds(label)) => {
                self.warn(self.lang().fill("tui.label_outside", &[("label", &label)]))
            }
        }
    }
}

impl Play {
    pub(super) fn new(source: Source, me: Option<usize>, names: Vec<String>, lang: Lang) -> Play {
        Play {
            lang,
            source,
            view: None,
            rules: None,
            me,
            names,
            ratings: Vec::new(),
            log: Vec::new(),
            log_scroll: std::cell::Cell::new(0),
            placing: None,
            shop: None,
            cursor: Cell::new(0, 0),
            target: 0,
            own_shown: false,
            action: None,
            laser_end: End::Top,
            bombard_column: false,
            picks: Vec::new(),
            salvo_action: None,
            reserve: None,
            handover: None,
        }
    }

    /// Sends a command: offline to the engine, online to the server.
    pub(super) fn submit(&mut self, command: Command) -> KeyResult {
        match &mut self.source {
            Source::Local(local) => match local.game.apply(command) {
                Ok(events) => {
                    self.after_local(&events);
                    Ok(None)
                }
                Err(e) => Err(words::rule_error(self.lang, &e)),
            },
            Source::Remote(remote) => {
                // The server inserts the connection's own seat.
                remote
                    .out
                    .send(ClientFrame::command(&command).to_text())
                    .map(|_| None)
                    .map_err(|_| self.lang.t("tui.connection_closed"))
            }
        }
    }

    pub(super) fn log_events(&mut self, events: &[Event]) {
        let Some(rules) = self.rules.as_ref() else {
            return;
        };
        let names = Names {
            seats: &self.names,
            me: self.me,
            rules,
            lang: self.lang,
        };
        let lines: Vec<String> = events.iter().filter_map(|e| names.describe(e)).collect();
        self.keep_log_place(lines.len());
        self.log.extend(lines);
        if self.log.len() > 500 {
            self.log.drain(..self.log.len() - 500);
        }
    }

    /// Adds a line to the log.
    pub(super) fn log_line(&mut self, line: String) {
        self.keep_log_place(1);
        self.log.push(line);
    }

    /// A log scrolled back stays on the lines it shows while `added` new
    /// ones arrive below.
    fn keep_log_place(&self, added: usize) {
        let scroll = self.log_scroll.get();
        if scroll > 0 {
            self.log_scroll.set(scroll + added);
        }
    }

    /// PgUp and PgDn page through the log, Home and End go to its oldest
    /// and newest lines; false for any other key.
    pub(super) fn scroll_log(&mut self, code: KeyCode) -> bool {
        const PAGE: usize = 5;
        let scroll = self.log_scroll.get();
        let to = match code {
            KeyCode::PageUp => scroll + PAGE,
            KeyCode::PageDown => scroll.saturating_sub(PAGE),
            KeyCode::Home => self.log.len(),
            KeyCode::End => 0,
            _ => return false,
        };
        self.log_scroll.set(to.min(self.log.len()));
        true
    }

    /// Brings the phase-dependent state in line with the view.
    pub(super) fn sync(&mut self) {
        let Some(view) = self.view.as_ref() else {
            return;
        };
        let my_move = self.me.is_some_and(|me| view.to_move.contains(&me));
        let phase = view.phase;
        let action_ready = self
            .action
            .is_some_and(|kind| view.abilities.get(kind.id()).is_some_and(|a| a.ready));
        if phase == Phase::Shop && my_move {
            if self.shop.is_none() {
                self.shop = Some(Shop {
                    counts: BTreeMap::new(),
                    selected: 0,
                });
            }
        } else {
            self.shop = None;
        }
        if phase == Phase::Placement && my_move {
            if self.placing.is_none() {
                self.placing = self.new_placing();
                self.recheck();
            }
        } else {
            self.placing = None;
        }
        if !my_move {
            self.picks.clear();
            self.salvo_action = None;
            if let Some(pick) = self.reserve.take() {
                self.target = pick.back_to;
            }
        }
        if !action_ready || !my_move {
            self.action = None;
        }
        let targets = self.target_boards();
        if phase == Phase::Battle && !targets.contains(&self.target) && self.reserve.is_none() {
            if let Some(&first) = targets.first() {
                self.target = first;
                self.cursor = self.clamp(self.target, self.cursor);
            }
        }
        if phase == Phase::Finished && self.me.is_some() && targets.is_empty() {
            self.target = self.me.unwrap_or(0);
        }
    }

    /// Whether this terminal's seat is out of the game (resigned or sunk)
    /// while the others play on: it only watches.
    pub fn out(&self) -> bool {
        match (self.view.as_ref(), self.me) {
            (Some(view), Some(me)) => view.seats.get(me).is_some_and(|s| !s.alive),
            _ => false,
        }
    }

    /// The boards this seat aims at: the common sea, or the living opponents'.
    pub fn target_boards(&self) -> Vec<usize> {
        let Some(view) = self.view.as_ref() else {
            return Vec::new();
        };
        if view.mode == Mode::SharedSea {
            return vec![0];
        }
        let team = self.me.and_then(|me| view.seats.get(me)).map(|s| s.team);
        view.boards
            .iter()
            .enumerate()
            .filter(|(_, b)| {
                b.owner
                    .is_some_and(|o| Some(o) != self.me && Some(view.seats[o].team) != team)
            })
            .map(|(i, _)| i)
            .collect()
    }

    pub fn board_size(&self, board: usize) -> Option<Size> {
        let rows = &self.view.as_ref()?.boards.get(board)?.rows;
        Some(Size::new(
            rows.first().map_or(0, |r| r.len()) as u16,
            rows.len() as u16,
        ))
    }

    pub(super) fn clamp(&self, board: usize, cell: Cell) -> Cell {
        match self.board_size(board) {
            Some(size) if size.cols > 0 && size.rows > 0 => {
                Cell::new(cell.col.min(size.cols - 1), cell.row.min(size.rows - 1))
            }
            _ => Cell::new(0, 0),
        }
    }

    pub(super) fn move_cursor(&mut self, code: KeyCode) -> bool {
        let (dc, dr): (i32, i32) = match code {
            KeyCode::Left => (-1, 0),
            KeyCode::Right => (1, 0),
            KeyCode::Up => (0, -1),
            KeyCode::Down => (0, 1),
            _ => return false,
        };
        let col = (self.cursor.col as i32 + dc).max(0) as u16;
        let row = (self.cursor.row as i32 + dr).max(0) as u16;
        self.cursor = self.clamp(self.target, Cell::new(col, row));
        true
    }
}
