//! Draws the `?` overlay: every key of the client and what it does.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use super::widgets::{text_width, wrap};
use crate::i18n::Lang;

/// One row of the `?` overlay; the texts are catalogue keys.
enum Help {
    /// A heading.
    Section(&'static str),
    /// A heading with its keys on the same row.
    Inline(&'static str, &'static str),
    /// Keys (the same in every language) and what they do.
    Key(&'static str, &'static str),
    /// Keys named in words ("arrows") and what they do.
    Named(&'static str, &'static str),
}

/// Every key of the client, for the `?` overlay.
const ALL_KEYS: [Help; 19] = [
    Help::Inline("tui.help.shop", "tui.help.shop_keys"),
    Help::Section("tui.help.placement"),
    Help::Named("tui.help.keys.move", "tui.help.move"),
    Help::Key("Enter", "tui.help.place"),
    Help::Named("tui.help.keys.random", "tui.help.random"),
    Help::Section("tui.help.battle"),
    Help::Named("tui.help.keys.aim", "tui.help.aim"),
    Help::Named("tui.help.keys.label", "tui.help.label"),
    Help::Key("a", "tui.help.ability"),
    Help::Key("o", "tui.help.orient"),
    Help::Key("x", "tui.help.send"),
    Help::Key("Esc", "tui.help.clear"),
    Help::Key("Tab, v", "tui.help.boards"),
    Help::Key("R", "tui.help.resign"),
    // The vi keys and the log's keys beside the heading, so that the whole
    // help still fits 80×24 without scrolling.
    Help::Inline("tui.help.anywhere", "tui.help.vi_log"),
    Help::Key("s / c", "tui.help.save_chat"),
    Help::Key("n", "tui.help.after_end"),
    Help::Key("q", "tui.help.leave"),
    Help::Key("?", "tui.help.help"),
];

/// A row of the `?` overlay in words.
enum HelpRow {
    Section(String),
    Inline(String, String),
    Key(String, String),
}

impl Help {
    fn words(&self, lang: Lang) -> HelpRow {
        match *self {
            Help::Section(title) => HelpRow::Section(lang.t(title)),
            Help::Inline(title, what) => HelpRow::Inline(lang.t(title), lang.t(what)),
            Help::Key(keys, what) => HelpRow::Key(keys.to_string(), lang.t(what)),
            Help::Named(keys, what) => HelpRow::Key(lang.t(keys), lang.t(what)),
        }
    }
}

/// The `?` overlay: as wide as its longest row allows (no wider than the
/// screen), descriptions wrapped under their own column when the screen is
/// narrow, and scrolled with ↑↓ when it is too low.
pub(super) fn draw_keys(lang: Lang, scroll: &std::cell::Cell<usize>, area: Rect, buf: &mut Buffer) {
    let rows: Vec<HelpRow> = ALL_KEYS.iter().map(|row| row.words(lang)).collect();
    let key_column = rows
        .iter()
        .filter_map(|row| match row {
            HelpRow::Key(keys, _) => Some(2 + text_width(keys) + 2),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let natural = rows
        .iter()
        .map(|row| match row {
            HelpRow::Section(title) => text_width(title),
            HelpRow::Inline(title, what) => text_width(title) + 1 + text_width(what),
            HelpRow::Key(_, what) => key_column + text_width(what),
        })
        .max()
        .unwrap_or(0);
    // Two columns of border and one of air on the right.
    let width = (natural as u16 + 3).min(area.width);
    let inner = (width as usize).saturating_sub(3).max(1);
    let heading = Style::new().bold().fg(Color::Cyan);
    let mut lines: Vec<Line> = Vec::new();
    for row in rows {
        match row {
            HelpRow::Section(title) => lines.push(Line::from(title).style(heading)),
            HelpRow::Inline(title, what) => {
                let indent = text_width(&title) + 1;
                for (i, part) in wrap(&what, inner.saturating_sub(indent))
                    .into_iter()
                    .enumerate()
                {
                    lines.push(if i == 0 {
                        Line::from(vec![
                            Span::styled(format!("{title} "), heading),
                            Span::raw(part),
                        ])
                    } else {
                        Line::from(format!("{:indent$}{part}", ""))
                    });
                }
            }
            HelpRow::Key(keys, what) => {
                let column = key_column.min(inner / 2);
                for (i, part) in wrap(&what, inner.saturating_sub(column))
                    .into_iter()
                    .enumerate()
                {
                    let keys = if i == 0 { keys.as_str() } else { "" };
                    let pad = column.saturating_sub(2 + text_width(keys));
                    lines.push(Line::from(format!("  {keys}{:pad$}{part}", "")));
                }
            }
        }
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let visible = (height as usize).saturating_sub(2);
    scroll.set(scroll.get().min(lines.len().saturating_sub(visible)));
    let title = if lines.len() > visible {
        format!(
            " {} · {} ",
            lang.t("tui.help.title"),
            lang.t("tui.hint.scroll")
        )
    } else {
        format!(" {} ", lang.t("tui.help.title"))
    };
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(rect, buf);
    let shown: Vec<Line> = lines.into_iter().skip(scroll.get()).take(visible).collect();
    Paragraph::new(shown)
        .block(Block::bordered().title(title))
        .render(rect, buf);
}
