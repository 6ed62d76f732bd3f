//! Public play online: waiting for a quick match, and the leaderboard.

use std::time::Instant;

use broadside_engine::Preset;
use broadside_protocol::{ClientFrame, LeaderboardLine};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{App, Screen};
use crate::words;

/// Waiting in the quick-match queue (`matching` and `bot_offer` frames).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    pub preset: Preset,
    /// How many wait for the preset, this person included; `None` until the
    /// server has answered.
    pub waiting: Option<u64>,
    /// When the wait began, by the server's `waited_ms`.
    pub since: Instant,
    /// After how long the server offers a bot.
    pub bot_offer_ms: Option<u64>,
    /// The level of the bot on offer, once the server offers one.
    pub bot_offer: Option<String>,
    /// `cancel_match` is sent and `match_cancelled` awaited.
    pub cancelling: bool,
}

impl Matching {
    pub(super) fn new(preset: Preset) -> Matching {
        Matching {
            preset,
            waiting: None,
            since: Instant::now(),
            bot_offer_ms: None,
            bot_offer: None,
            cancelling: false,
        }
    }
}

/// The best ratings of one preset (`leaderboard` frame).
#[derive(Debug, Clone, PartialEq)]
pub struct Leaderboard {
    pub preset: Preset,
    /// `None` while the server has not answered.
    pub players: Option<Vec<Ranked>>,
    /// The first row on show.
    pub scroll: usize,
}

/// One row of the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub nickname: String,
    pub rating: f64,
    pub provisional: bool,
    pub games: u64,
    pub wins: u64,
}

impl Ranked {
    pub(super) fn from_frame(player: &LeaderboardLine) -> Ranked {
        Ranked {
            nickname: player.nickname.clone(),
            rating: player.rating,
            provisional: player.provisional,
            games: u64::from(player.games),
            wins: u64::from(player.wins),
        }
    }
}

impl App {
    /// Joins the quick-match queue with the preset of the New Game form.
    pub(super) fn quick_match(&mut self) {
        let preset = self.form.preset;
        self.back = self.screen;
        self.matching = Some(Matching::new(preset));
        self.screen = Screen::Matching;
        self.send_frame(ClientFrame::QuickMatch { preset });
        self.say(self.lang().fill(
            "tui.looking",
            &[("preset", &words::preset_name(self.lang(), preset.id()))],
        ));
    }

    /// Leaves the waiting screen for the online start it came from.
    pub(super) fn end_matching(&mut self) {
        self.matching = None;
        if self.screen == Screen::Matching {
            self.screen = self.back;
        }
    }

    /// The server says the wait is over without a game: back to the start.
    pub(super) fn wait_cancelled(&mut self) {
        let shown = self.screen == Screen::Matching;
        self.end_matching();
        if shown {
            self.say(self.lang().t("tui.cancelled"));
        }
    }

    pub(super) fn matching_key(&mut self, key: KeyEvent) {
        let connected = self.connected();
        let Some(matching) = self.matching.as_mut() else {
            self.screen = self.back;
            return;
        };
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => {
                if connected {
                    matching.cancelling = true;
                    self.send_frame(ClientFrame::CancelMatch);
                    self.say(self.lang().t("tui.cancelling"));
                } else {
                    // Nobody to tell: the server left the queue with the link.
                    self.end_matching();
                    self.say(self.lang().t("tui.cancelled"));
                }
            }
            KeyCode::Char('b') => {
                if let Some(level) = matching.bot_offer.clone() {
                    self.send_frame(ClientFrame::AcceptBot);
                    let level = words::level_name(self.lang(), &level).to_lowercase();
                    self.say(self.lang().fill("tui.accepting_bot", &[("level", &level)]));
                }
            }
            _ => {}
        }
    }

    /// Shows the leaderboard of the New Game form's preset.
    pub(super) fn open_leaderboard(&mut self) {
        self.back = self.screen;
        self.screen = Screen::Leaderboard;
        self.notice = None;
        self.show_leaderboard(self.form.preset);
    }

    pub(super) fn show_leaderboard(&mut self, preset: Preset) {
        self.leaderboard = Some(Leaderboard {
            preset,
            players: None,
            scroll: 0,
        });
        self.send_frame(ClientFrame::Leaderboard { preset });
    }

    pub(super) fn leaderboard_key(&mut self, key: KeyEvent) {
        let Some(board) = self.leaderboard.as_mut() else {
            self.screen = self.back;
            return;
        };
        let rows = board.players.as_ref().map_or(0, Vec::len);
        match key.code {
            KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab => {
                let all = Preset::ALL;
                let i = all.iter().position(|&p| p == board.preset).unwrap_or(0);
                let forward = matches!(key.code, KeyCode::Right | KeyCode::Tab);
                let next = all[(i + if forward { 1 } else { all.len() - 1 }) % all.len()];
                self.show_leaderboard(next);
            }
            KeyCode::Up => board.scroll = board.scroll.saturating_sub(1),
            KeyCode::Down => board.scroll = (board.scroll + 1).min(rows.saturating_sub(1)),
            KeyCode::Esc | KeyCode::Char('q') => {
                self.leaderboard = None;
                self.screen = self.back;
            }
            _ => {}
        }
    }
}
