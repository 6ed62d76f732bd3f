//! Draws one board: its title, the column and row labels, and the cells with
//! what lies over them, scrolled to its focus when it does not fit.

use broadside_engine::geometry::letters;
use broadside_engine::{BoardView, Cell, LetterAxis, Size};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use super::widgets::cell_style;
use crate::i18n::Lang;

/// A board to draw, with what lies over its cells.
pub(super) struct BoardSpec<'a> {
    pub(super) title: String,
    pub(super) board: &'a BoardView,
    pub(super) axis: LetterAxis,
    /// The cell the view scrolls to when the board does not fit.
    pub(super) focus: Cell,
    /// The cell drawn in reverse video: the aim in battle.
    pub(super) cursor: Option<Cell>,
    /// Cells drawn with a special style over the view (placement, picks, previews).
    pub(super) overlays: Vec<(Cell, char, Style)>,
    pub(super) active: bool,
}

pub(super) fn board_dims(board: &BoardView) -> Size {
    Size::new(
        board.rows.first().map_or(0, |r| r.len()) as u16,
        board.rows.len() as u16,
    )
}

/// Width of the row labels plus a space.
fn label_width(size: Size, axis: LetterAxis) -> u16 {
    let last = size.rows.saturating_sub(1);
    match axis {
        LetterAxis::Rows => letters(last).len() as u16 + 1,
        LetterAxis::Columns => (last + 1).to_string().len() as u16 + 1,
    }
}

/// Rows of the column header. Numbers stand in two rows (tens above units)
/// once two of them would run together: from the tenth column when a cell
/// is one character wide, from the eleventh when it is two ("1011121314"
/// cannot be read; "10" alone after "9" can).
fn header_lines(size: Size, axis: LetterAxis, cell_width: u16) -> u16 {
    let crowded = match cell_width {
        1 => size.cols > 9,
        2 => size.cols > 10,
        _ => false,
    };
    if axis == LetterAxis::Rows && crowded {
        2
    } else {
        1
    }
}

/// Width and height a board needs with cells `cell_width` wide.
pub(super) fn board_extent(board: &BoardView, axis: LetterAxis, cell_width: u16) -> (u16, u16) {
    let size = board_dims(board);
    (
        label_width(size, axis) + size.cols * cell_width,
        1 + header_lines(size, axis, cell_width) + size.rows,
    )
}

/// First index of a window of `visible` cells out of `total` that shows `focus`.
fn window(total: u16, visible: u16, focus: u16) -> u16 {
    if visible >= total {
        0
    } else {
        focus.saturating_sub(visible / 2).min(total - visible)
    }
}

pub(super) fn draw_board(
    spec: &BoardSpec,
    cell_width: u16,
    lang: Lang,
    area: Rect,
    buf: &mut Buffer,
) {
    let size = board_dims(spec.board);
    let labels = label_width(size, spec.axis);
    let headers = header_lines(size, spec.axis, cell_width);
    let visible_cols = ((area.width.saturating_sub(labels)) / cell_width).min(size.cols);
    let visible_rows = area.height.saturating_sub(1 + headers).min(size.rows);
    if visible_cols == 0 || visible_rows == 0 {
        return;
    }
    let focus = spec.focus;
    let first_col = window(size.cols, visible_cols, focus.col);
    let first_row = window(size.rows, visible_rows, focus.row);
    let title_style = if spec.active {
        Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
    } else {
        Style::new().add_modifier(Modifier::BOLD)
    };
    let mut title = spec.title.clone();
    if visible_cols < size.cols || visible_rows < size.rows {
        title.push_str(&format!(" ({})", lang.t("tui.scrolls")));
    }
    buf.set_stringn(area.x, area.y, &title, area.width as usize, title_style);
    let label_style = Style::new().fg(Color::Gray);
    // Column headers: letters, or numbers (in two rows from the tenth column).
    for i in 0..visible_cols {
        let col = first_col + i;
        let x = area.x + labels + i * cell_width;
        let text = match spec.axis {
            LetterAxis::Columns => letters(col),
            LetterAxis::Rows => (col + 1).to_string(),
        };
        if headers == 2 {
            let number = col + 1;
            if number >= 10 {
                buf.set_string(x, area.y + 1, (number / 10).to_string(), label_style);
            }
            buf.set_string(x, area.y + 2, (number % 10).to_string(), label_style);
        } else {
            buf.set_stringn(
                x,
                area.y + 1,
                &text,
                cell_width.max(text.len() as u16) as usize,
                label_style,
            );
        }
    }
    for j in 0..visible_rows {
        let row = first_row + j;
        let y = area.y + 1 + headers + j;
        let text = match spec.axis {
            LetterAxis::Rows => letters(row),
            LetterAxis::Columns => (row + 1).to_string(),
        };
        buf.set_string(
            area.x,
            y,
            format!("{text:>w$}", w = (labels - 1) as usize),
            label_style,
        );
        for i in 0..visible_cols {
            let col = first_col + i;
            let cell = Cell::new(col, row);
            let mut ch = spec.board.at(cell);
            let mut style = cell_style(ch);
            if let Some(&(_, over, over_style)) =
                spec.overlays.iter().rev().find(|(c, _, _)| *c == cell)
            {
                ch = over;
                style = over_style;
            }
            if spec.cursor == Some(cell) {
                style = style.add_modifier(Modifier::REVERSED);
            }
            buf.set_string(area.x + labels + i * cell_width, y, ch.to_string(), style);
        }
    }
}
