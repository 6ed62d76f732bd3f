//! Draws what is about the account: the `--login` screen (the code in big
//! letters, the page to approve it at and its countdown) and the line of the
//! online start screens that says who is signed in, with their ratings.

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::widgets::{text_width, wrap};
use crate::app::{web_address, App};
use crate::words;

/// The `--login` screen.
pub(super) fn draw_login(app: &App, area: Rect, buf: &mut Buffer) {
    let lang = app.lang();
    let width = (area.width as usize).saturating_sub(3);
    let mut lines = vec![Line::from("")];
    let login = app.login.clone().unwrap_or_default();
    let Some(code) = login.code.as_deref() else {
        lines.push(Line::from(format!("  {}", lang.t("tui.login.asking"))));
        Paragraph::new(lines).render(area, buf);
        return;
    };
    let expired = login.expired;
    // The code in big letters where they fit, and always as text (to read
    // aloud, or to copy).
    let big = big_letters(code);
    if big
        .first()
        .is_some_and(|row| text_width(row) + 4 <= area.width as usize)
    {
        for row in big {
            let line = Line::from(format!("  {row}"));
            lines.push(if expired {
                line.fg(Color::DarkGray)
            } else {
                line.fg(Color::Cyan).bold()
            });
        }
        lines.push(Line::from(""));
    }
    lines.push(
        Line::from(format!(
            "  {}",
            lang.fill("tui.login.code", &[("code", &code)])
        ))
        .bold(),
    );
    lines.push(Line::from(""));
    let url = web_address(app.config.server.as_deref().unwrap_or_default());
    for step in [
        lang.fill("tui.login.step_open", &[("url", &url)]),
        lang.t("tui.login.step_approve"),
    ] {
        for part in wrap(&step, width) {
            lines.push(Line::from(format!("  {part}")));
        }
    }
    lines.push(Line::from(""));
    let status = if expired {
        lang.t("tui.login.expired")
    } else {
        let left = login.left(Instant::now()).as_secs();
        let time = format!("{}:{:02}", left / 60, left % 60);
        lang.fill("tui.login.valid_for", &[("time", &time)])
    };
    for part in wrap(&status, width) {
        let line = Line::from(format!("  {part}"));
        lines.push(if expired {
            line.fg(Color::Yellow).bold()
        } else {
            line.fg(Color::Gray)
        });
    }
    Paragraph::new(lines).render(area, buf);
}

/// "Signed in as Ana · ratings: Classic 1662?, Salvo 1500", wrapped to
/// `width`; nothing for a guest.
pub(super) fn account_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let Some(account) = app.account.as_ref() else {
        return Vec::new();
    };
    let lang = app.lang();
    let mut text = lang.fill("tui.signed_in_as", &[("name", &account.username)]);
    match account.ratings.as_deref() {
        None => {}
        Some([]) => {
            text.push_str(" · ");
            text.push_str(&lang.t("tui.no_rated_games"));
        }
        Some(ratings) => {
            let list: Vec<String> = ratings
                .iter()
                .map(|r| {
                    format!(
                        "{} {}",
                        words::preset_name(lang, r.preset.id()),
                        words::rating(r.rating, r.provisional)
                    )
                })
                .collect();
            text.push_str(" · ");
            text.push_str(&lang.fill("tui.account_ratings", &[("ratings", &list.join(", "))]));
        }
    }
    let mut lines: Vec<Line<'static>> = wrap(&text, width.saturating_sub(3))
        .into_iter()
        .map(|part| Line::from(format!("  {part}")).fg(Color::Green))
        .collect();
    let provisional = account
        .ratings
        .as_deref()
        .is_some_and(|r| r.iter().any(|r| r.provisional));
    if provisional {
        for part in wrap(&lang.t("provisional_note"), width.saturating_sub(3)) {
            lines.push(Line::from(format!("  {part}")).fg(Color::Gray));
        }
    }
    lines
}

/// The rows of `text` in letters five cells high (the letters of codes:
/// A–Z and 0–9; anything else as itself).
pub(super) fn big_letters(text: &str) -> Vec<String> {
    let mut rows = vec![String::new(); 5];
    for (i, c) in text.chars().enumerate() {
        let glyph = glyph(c.to_ascii_uppercase());
        for (row, out) in rows.iter_mut().enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            match glyph {
                Some(glyph) => {
                    out.extend(glyph[row].chars().map(|p| if p == '#' { '█' } else { ' ' }))
                }
                None => out.push_str(&format!("  {}  ", if row == 2 { c } else { ' ' })),
            }
        }
    }
    rows
}

/// A letter of the big font: five rows of five cells, `#` drawn.
fn glyph(c: char) -> Option<[&'static str; 5]> {
    Some(match c {
        'A' => [" ### ", "#   #", "#####", "#   #", "#   #"],
        'B' => ["#### ", "#   #", "#### ", "#   #", "#### "],
        'C' => [" ####", "#    ", "#    ", "#    ", " ####"],
        'D' => ["#### ", "#   #", "#   #", "#   #", "#### "],
        'E' => ["#####", "#    ", "#### ", "#    ", "#####"],
        'F' => ["#####", "#    ", "#### ", "#    ", "#    "],
        'G' => [" ####", "#    ", "#  ##", "#   #", " ####"],
        'H' => ["#   #", "#   #", "#####", "#   #", "#   #"],
        'I' => ["#####", "  #  ", "  #  ", "  #  ", "#####"],
        'J' => ["#####", "   # ", "   # ", "#  # ", " ##  "],
        'K' => ["#   #", "#  # ", "###  ", "#  # ", "#   #"],
        'L' => ["#    ", "#    ", "#    ", "#    ", "#####"],
        'M' => ["#   #", "## ##", "# # #", "#   #", "#   #"],
        'N' => ["#   #", "##  #", "# # #", "#  ##", "#   #"],
        'O' => [" ### ", "#   #", "#   #", "#   #", " ### "],
        'P' => ["#### ", "#   #", "#### ", "#    ", "#    "],
        'Q' => [" ### ", "#   #", "# # #", "#  # ", " ## #"],
        'R' => ["#### ", "#   #", "#### ", "#  # ", "#   #"],
        'S' => [" ####", "#    ", " ### ", "    #", "#### "],
        'T' => ["#####", "  #  ", "  #  ", "  #  ", "  #  "],
        'U' => ["#   #", "#   #", "#   #", "#   #", " ### "],
        'V' => ["#   #", "#   #", "#   #", " # # ", "  #  "],
        'W' => ["#   #", "#   #", "# # #", "## ##", "#   #"],
        'X' => ["#   #", " # # ", "  #  ", " # # ", "#   #"],
        'Y' => ["#   #", " # # ", "  #  ", "  #  ", "  #  "],
        'Z' => ["#####", "   # ", "  #  ", " #   ", "#####"],
        '0' => [" ### ", "#  ##", "# # #", "##  #", " ### "],
        '1' => ["  #  ", " ##  ", "  #  ", "  #  ", " ### "],
        '2' => [" ### ", "#   #", "  ## ", " #   ", "#####"],
        '3' => ["#### ", "    #", " ### ", "    #", "#### "],
        '4' => ["#   #", "#   #", "#####", "    #", "    #"],
        '5' => ["#####", "#    ", "#### ", "    #", "#### "],
        '6' => [" ### ", "#    ", "#### ", "#   #", " ### "],
        '7' => ["#####", "    #", "   # ", "  #  ", "  #  "],
        '8' => [" ### ", "#   #", " ### ", "#   #", " ### "],
        '9' => [" ### ", "#   #", " ####", "    #", " ### "],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::big_letters;

    #[test]
    fn big_letters_are_five_rows_of_five_cells_a_letter() {
        let rows = big_letters("K7QM2PXW");
        assert_eq!(rows.len(), 5);
        for row in &rows {
            assert_eq!(row.chars().count(), 8 * 5 + 7 * 2, "{row}");
        }
        // Every letter of the codes' alphabet has its glyph.
        for c in "ABCDEFGHJKMNPQRSTUVWXYZ23456789".chars() {
            assert!(super::glyph(c).is_some(), "{c}");
        }
    }
}
