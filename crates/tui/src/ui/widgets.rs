//! Shared helpers of the drawing: the colours of the cells, the legend, and
//! measuring, wrapping and cutting text. Uses none of its sibling modules.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::Play;
use crate::i18n::Lang;
use crate::words::{self, LEGEND};

/// The colour of a cell character of the canonical view. Shapes differ
/// too, so colour is never the only cue.
pub fn cell_style(ch: char) -> Style {
    match ch {
        '~' => Style::new().fg(Color::Blue),
        '*' => Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
        'X' => Style::new()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD),
        '?' => Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
        '#' => Style::new().fg(Color::Black).bg(Color::Red),
        'O' => Style::new().fg(Color::Cyan),
        '.' => Style::new().fg(Color::DarkGray),
        '-' => Style::new().fg(Color::Gray),
        '!' => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        '+' => Style::new().fg(Color::Yellow),
        '=' => Style::new().fg(Color::DarkGray),
        _ => Style::new(),
    }
}

/// The marks the terminal draws over the board (not R-12's, which describe
/// the view): the ship being placed where it fits and where it does not, and
/// a cell chosen for a salvo or a volley. Shapes differ as well as colours,
/// so that the difference shows without colour (NO_COLOR, colour blindness).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mark {
    Fits,
    DoesNotFit,
    Chosen,
}

impl Mark {
    pub(super) fn glyph(self) -> char {
        match self {
            Mark::Fits => '@',
            Mark::DoesNotFit => 'x',
            Mark::Chosen => 'o',
        }
    }

    pub(super) fn style(self) -> Style {
        let style = Style::new().fg(Color::Black);
        match self {
            Mark::Fits => style.bg(Color::Green).add_modifier(Modifier::BOLD),
            Mark::DoesNotFit => style.bg(Color::Red).add_modifier(Modifier::BOLD),
            Mark::Chosen => style.bg(Color::Yellow),
        }
    }

    fn key(self) -> &'static str {
        match self {
            Mark::Fits => "tui.mark.fits",
            Mark::DoesNotFit => "tui.mark.does_not_fit",
            Mark::Chosen => "tui.mark.chosen",
        }
    }
}

/// The legend, two marks a row when every meaning fits `width` columns,
/// else one a row: R-12's marks, then the terminal's `extra` ones.
pub(super) fn legend_lines(
    lang: Lang,
    indent: &str,
    width: usize,
    extra: &[Mark],
) -> Vec<Line<'static>> {
    let marks: Vec<(char, Style, String)> = LEGEND
        .iter()
        .map(|&(ch, key)| (ch, cell_style(ch), lang.t(key)))
        .chain(
            extra
                .iter()
                .map(|mark| (mark.glyph(), mark.style(), lang.t(mark.key()))),
        )
        .collect();
    let narrow = marks.iter().all(|(_, _, m)| text_width(m) + 2 <= width);
    marks
        .chunks(if narrow { 2 } else { 1 })
        .map(|pair| {
            let mut spans = vec![Span::raw(indent.to_string())];
            for (ch, style, meaning) in pair {
                spans.push(Span::styled(ch.to_string(), *style));
                let pad = width.saturating_sub(2 + text_width(meaning));
                spans.push(Span::raw(format!(" {meaning}{:pad$} ", "")));
            }
            Line::from(spans)
        })
        .collect()
}

/// The width of a text on screen.
pub(super) fn text_width(text: &str) -> usize {
    Span::raw(text).width()
}

/// `text` cut into lines of at most `width` columns at spaces (a word longer
/// than a line is cut where it must be).
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word = word.to_string();
        loop {
            let needed = text_width(&line) + usize::from(!line.is_empty()) + text_width(&word);
            if needed <= width {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word wider than the whole line.
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

pub(super) fn truncate(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}

pub(super) fn ship_name(play: &Play, id: &str) -> String {
    match play.rules.as_ref() {
        Some(rules) => words::ship_name(play.lang, rules, id),
        None => id.to_string(),
    }
}
