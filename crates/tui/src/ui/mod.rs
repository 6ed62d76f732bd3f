//! Drawing: `impl Widget for &App`, the frame of every screen (title, body,
//! notice, key hints or prompt) and the dispatch to the screen on show.
//! Everything here reads the app's state and the seat's view; nothing here
//! changes them.

mod account;
mod board;
mod help;
mod lobby;
mod menu;
mod panel;
mod play;
mod shop;
mod status;
mod widgets;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::app::{App, Screen};
use crate::i18n::Lang;

use account::{account_lines, draw_login};
use help::draw_keys;
use lobby::{draw_leaderboard, draw_lobby, draw_matching};
use menu::{draw_form, draw_menu, draw_my_games};
use play::{draw_handover, draw_play};
use status::{fit_keys, help_text, status_text};
use widgets::text_width;

pub use widgets::cell_style;

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let lang = self.lang();
        Clear.render(area, buf);
        if area.width < 20 || area.height < 8 {
            Paragraph::new(lang.t("tui.too_small")).render(area, buf);
            return;
        }
        let [top, body, notice_line, help] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let keys = |hints: &[&str]| fit_keys(lang, hints, area.width);
        // The online start screens say who is signed in, above the rest.
        let body = match self.screen {
            Screen::NewGame | Screen::MyGames if self.online() => {
                let mut lines = account_lines(self, body.width as usize);
                if lines.is_empty() {
                    body
                } else {
                    lines.insert(0, Line::from(""));
                    let height = (lines.len() as u16).min(body.height);
                    let [above, rest] =
                        Layout::vertical([Constraint::Length(height), Constraint::Min(0)])
                            .areas(body);
                    Paragraph::new(lines).render(above, buf);
                    rest
                }
            }
            _ => body,
        };
        let (title, keys) = match self.screen {
            Screen::Menu => {
                draw_menu(self, body, buf);
                (
                    lang.t("app_name"),
                    keys(&[
                        "tui.hint.choose",
                        "tui.hint.select",
                        "tui.hint.new_game",
                        "tui.hint.load",
                    ]),
                )
            }
            Screen::NewGame => {
                draw_form(&self.form, self.online(), lang, body, buf);
                if self.online() {
                    (
                        titled(lang, "tui.new_online_room"),
                        keys(&[
                            "tui.hint.field",
                            "tui.hint.change",
                            "tui.hint.start",
                            "tui.hint.quick_match",
                            "tui.hint.leaderboard",
                        ]),
                    )
                } else {
                    (
                        titled(lang, "tui.new_game"),
                        keys(&[
                            "tui.hint.field",
                            "tui.hint.change",
                            "tui.hint.start",
                            "tui.hint.back",
                        ]),
                    )
                }
            }
            Screen::MyGames => {
                draw_my_games(self, body, buf);
                (
                    titled(lang, "my_games"),
                    keys(&[
                        "tui.hint.choose",
                        "tui.hint.select",
                        "tui.hint.quick_match",
                        "tui.hint.leaderboard",
                        "tui.hint.new_room",
                    ]),
                )
            }
            Screen::Matching => {
                draw_matching(self, body, buf);
                let offer = self
                    .matching
                    .as_ref()
                    .is_some_and(|m| m.bot_offer.is_some());
                let hints: &[&str] = if offer {
                    &["tui.hint.cancel", "tui.hint.bot"]
                } else {
                    &["tui.hint.cancel"]
                };
                (titled(lang, "tui.quick_match"), keys(hints))
            }
            Screen::Leaderboard => {
                draw_leaderboard(self, body, buf);
                (
                    titled(lang, "leaderboard"),
                    keys(&["tui.hint.preset", "tui.hint.scroll", "tui.hint.back"]),
                )
            }
            Screen::Login => {
                draw_login(self, body, buf);
                (
                    titled(lang, "tui.login.title"),
                    keys(&["tui.hint.new_code"]),
                )
            }
            Screen::Lobby => {
                draw_lobby(self, body, buf);
                (
                    titled(lang, "tui.online_room"),
                    keys(&["tui.hint.host_start"]),
                )
            }
            Screen::Play => match self.play.as_ref() {
                Some(play) if play.handover.is_some() => {
                    draw_handover(play, body, buf);
                    (titled(lang, "tui.hot_seat"), keys(&["tui.hint.take_over"]))
                }
                Some(play) => {
                    let single = draw_play(play, body, buf);
                    (status_text(play), help_text(play, single, area.width))
                }
                None => (String::new(), String::new()),
            },
        };
        // A title too long for the screen gives up the program's name first.
        let prefix = format!("{} · ", lang.t("app_name"));
        let title = match title.strip_prefix(&prefix) {
            Some(rest) if text_width(&title) + 1 > area.width as usize => rest.to_string(),
            _ => title,
        };
        Paragraph::new(
            Line::from(format!(" {title}")).style(Style::new().fg(Color::Black).bg(Color::Cyan)),
        )
        .render(top, buf);
        // Between hot-seat turns no notice either: it answered the last
        // person's keys.
        let handing_over =
            self.screen == Screen::Play && self.play.as_ref().is_some_and(|p| p.handover.is_some());
        if let Some(notice) = self.notice.as_ref().filter(|_| !handing_over) {
            let style = if notice.error {
                Style::new().fg(Color::LightRed)
            } else {
                Style::new().fg(Color::Green)
            };
            Paragraph::new(Line::from(format!(" {}", notice.text)).style(style))
                .render(notice_line, buf);
        }
        match &self.prompt {
            Some(prompt) => {
                let text = if prompt.kind.is_question() {
                    prompt.kind.question(lang)
                } else {
                    format!("{}{}█", prompt.kind.question(lang), prompt.text)
                };
                Paragraph::new(
                    Line::from(format!(" {text}"))
                        .style(Style::new().fg(Color::Black).bg(Color::Yellow)),
                )
                .render(help, buf);
            }
            None => {
                Paragraph::new(Line::from(format!(" {keys}")).style(Style::new().fg(Color::Gray)))
                    .render(help, buf);
            }
        }
        if self.show_keys {
            draw_keys(lang, &self.keys_scroll, body, buf);
        }
    }
}

/// "Broadside · <the screen>".
fn titled(lang: Lang, key: &str) -> String {
    format!("{} · {}", lang.t("app_name"), lang.t(key))
}
