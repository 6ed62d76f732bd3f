//! The line typed at the bottom of the screen, and the yes/no questions:
//! resigning, and leaving a game in words true to where it is kept.

use broadside_engine::Command;
use broadside_protocol::ClientFrame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{App, Play, Screen, Source};
use crate::i18n::Lang;

/// A line of text being typed at the bottom of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    SavePath,
    LoadPath,
    /// A cell label to aim at, such as `B7`.
    Label,
    /// "Leave this game?" offline, where unsaved moves are lost — y or n.
    ConfirmLeave,
    /// "Leave this game?" online, where the server keeps it — y or n.
    ConfirmLeaveKept,
    /// "Leave this room?" online before the start, where the seat is given up.
    ConfirmLeaveRoom,
    /// "Resign?" — answered with y or n.
    ConfirmResign,
    /// A chat line (online).
    Chat,
}

impl PromptKind {
    /// The question in the player's language, with a space to type after.
    pub fn question(self, lang: Lang) -> String {
        let key = match self {
            PromptKind::SavePath => "tui.prompt.save",
            PromptKind::LoadPath => "tui.prompt.load",
            PromptKind::Label => "tui.prompt.label",
            PromptKind::ConfirmLeave => "tui.prompt.leave",
            PromptKind::ConfirmLeaveKept => "tui.prompt.leave_kept",
            PromptKind::ConfirmLeaveRoom => "tui.prompt.leave_room",
            PromptKind::ConfirmResign => "tui.prompt.resign",
            PromptKind::Chat => "tui.prompt.chat",
        };
        format!("{} ", lang.t(key))
    }

    /// Whether the prompt is a yes/no question rather than a line of text.
    pub fn is_question(self) -> bool {
        matches!(
            self,
            PromptKind::ConfirmLeave
                | PromptKind::ConfirmLeaveKept
                | PromptKind::ConfirmLeaveRoom
                | PromptKind::ConfirmResign
        )
    }
}

impl App {
    pub(super) fn prompt_key(&mut self, key: KeyEvent) {
        let Some(prompt) = self.prompt.as_mut() else {
            return;
        };
        if prompt.kind.is_question() {
            // y, or the language's own first letter of "yes" (s for sì, sim, sí).
            let own = self.config.lang.t("tui.yes_key");
            let yes = match key.code {
                KeyCode::Enter => true,
                KeyCode::Char(c) => {
                    let c = c.to_lowercase().to_string();
                    c == "y" || c == own
                }
                _ => false,
            };
            let kind = prompt.kind;
            self.prompt = None;
            if yes && kind == PromptKind::ConfirmResign {
                self.resign();
            } else if yes {
                self.leave_game();
            }
            return;
        }
        match key.code {
            KeyCode::Esc => self.prompt = None,
            KeyCode::Backspace => {
                prompt.text.pop();
            }
            KeyCode::Char(c) if prompt.text.len() < 200 => prompt.text.push(c),
            KeyCode::Enter => {
                let Some(Prompt { kind, text }) = self.prompt.take() else {
                    return;
                };
                match kind {
                    PromptKind::SavePath => self.save(text.trim()),
                    PromptKind::LoadPath => self.load(text.trim()),
                    PromptKind::Label => self.aim_label(text.trim()),
                    PromptKind::Chat => {
                        let text = text.trim();
                        if !text.is_empty() {
                            self.send_frame(ClientFrame::Chat {
                                text: text.to_string(),
                            });
                        }
                    }
                    PromptKind::ConfirmLeave
                    | PromptKind::ConfirmLeaveKept
                    | PromptKind::ConfirmLeaveRoom
                    | PromptKind::ConfirmResign => {}
                }
            }
            _ => {}
        }
    }

    pub(super) fn resign(&mut self) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let Some(me) = play.me else { return };
        match play.submit(Command::Resign { seat: me }) {
            Ok(_) => self.say(self.lang().t("log_you_resigned")),
            Err(e) => self.warn(e),
        }
    }

    /// Asks before leaving, in words true to where the game is kept; a
    /// spectator online loses nothing and leaves at once.
    pub(super) fn ask_to_leave(&mut self) {
        let kind = match self.play.as_ref() {
            Some(Play {
                source: Source::Remote(remote),
                me,
                ..
            }) => {
                let started = remote.room.as_ref().is_some_and(|room| room.started);
                if me.is_none() {
                    return self.leave_game();
                }
                if started {
                    PromptKind::ConfirmLeaveKept
                } else {
                    PromptKind::ConfirmLeaveRoom
                }
            }
            _ => PromptKind::ConfirmLeave,
        };
        self.prompt = Some(Prompt {
            kind,
            text: String::new(),
        });
    }

    /// Back to the start: offline the menu; online the online start (a new
    /// room, or My games where the left game waits), keeping the link.
    pub(super) fn leave_game(&mut self) {
        if !self.online() {
            self.play = None;
            self.screen = Screen::Menu;
            self.notice = None;
            return;
        }
        if let Some(Play {
            source: Source::Remote(mut remote),
            ..
        }) = self.play.take()
        {
            // The server keeps a started game's seat; before the
            // start `leave` gives the seat up.
            let _ = remote.out.send(ClientFrame::Leave.to_text());
            remote.leaving = true;
            remote.room = None;
            remote.deadline = None;
            self.play = Some(Play::new(
                Source::Remote(remote),
                None,
                Vec::new(),
                self.lang(),
            ));
        }
        // After a dropped link the client must not join this room again.
        self.config.room = None;
        self.screen = Screen::NewGame;
        self.say(self.lang().t("tui.left_game"));
        // The game just left is listed there, to continue it.
        self.send_frame(ClientFrame::MyGames);
    }
}
