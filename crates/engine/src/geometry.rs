//! Cells, board sizes and the human labels of cells.

use serde::{Deserialize, Serialize};

/// A cell `(col, row)`, 0-based, `col` left to right, `row` top to bottom.
///
/// Serialized as `[col, row]`, the form the referee and the protocol use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(from = "[u16; 2]", into = "[u16; 2]")]
pub struct Cell {
    pub col: u16,
    pub row: u16,
}

impl Cell {
    pub const fn new(col: u16, row: u16) -> Self {
        Cell { col, row }
    }
}

impl From<[u16; 2]> for Cell {
    fn from([col, row]: [u16; 2]) -> Self {
        Cell { col, row }
    }
}

impl From<Cell> for [u16; 2] {
    fn from(cell: Cell) -> Self {
        [cell.col, cell.row]
    }
}

/// The size of a rectangular grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Size {
    pub cols: u16,
    pub rows: u16,
}

impl Size {
    pub const fn new(cols: u16, rows: u16) -> Self {
        Size { cols, rows }
    }

    pub fn cell_count(self) -> usize {
        self.cols as usize * self.rows as usize
    }

    pub fn contains(self, cell: Cell) -> bool {
        cell.col < self.cols && cell.row < self.rows
    }

    /// Whether a possibly negative coordinate pair lies on the grid.
    pub fn contains_signed(self, col: i32, row: i32) -> bool {
        col >= 0 && row >= 0 && col < self.cols as i32 && row < self.rows as i32
    }

    /// Row-major index of a cell that lies on the grid.
    pub fn index(self, cell: Cell) -> usize {
        cell.row as usize * self.cols as usize + cell.col as usize
    }

    /// The cell of a row-major index.
    pub fn cell(self, index: usize) -> Cell {
        Cell::new(
            (index % self.cols as usize) as u16,
            (index / self.cols as usize) as u16,
        )
    }

    /// Every cell, row by row.
    pub fn cells(self) -> impl Iterator<Item = Cell> {
        (0..self.rows).flat_map(move |row| (0..self.cols).map(move |col| Cell::new(col, row)))
    }

    /// The up to 8 neighbours of a cell that lie on the grid.
    pub fn neighbours(self, cell: Cell) -> impl Iterator<Item = Cell> {
        let (col, row) = (cell.col as i32, cell.row as i32);
        (-1..=1)
            .flat_map(move |dr| (-1..=1).map(move |dc| (col + dc, row + dr)))
            .filter(move |&(c, r)| (c, r) != (col, row) && self.contains_signed(c, r))
            .map(|(c, r)| Cell::new(c as u16, r as u16))
    }

    /// The cells of the 3×3 square centred on `center`, clipped at the edges.
    pub fn square3(self, center: Cell) -> impl Iterator<Item = Cell> {
        std::iter::once(center)
            .filter(move |&c| self.contains(c))
            .chain(self.neighbours(center))
    }
}

/// Which axis of a board carries the letters of a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LetterAxis {
    /// Rows are letters, columns numbers: `C7` = row C, column 7.
    Rows,
    /// Columns are letters, rows numbers: `B6` = column B, row 6.
    Columns,
}

/// Letters of a 0-based index: A…Z, then AA, AB, … (bijective base 26).
pub fn letters(mut index: u16) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'A' + (index % 26) as u8);
        if index < 26 {
            break;
        }
        index = index / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).expect("only ASCII letters were pushed")
}

/// The 0-based index of a run of letters (case-insensitive), if it is one.
fn letters_index(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 3 {
        return None;
    }
    let mut value: u32 = 0;
    for byte in text.bytes() {
        let digit = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a',
            _ => return None,
        };
        value = value * 26 + digit as u32 + 1;
    }
    Some(value - 1)
}

/// The label of a cell, letters first.
pub fn label(axis: LetterAxis, cell: Cell) -> String {
    match axis {
        LetterAxis::Rows => format!("{}{}", letters(cell.row), cell.col + 1),
        LetterAxis::Columns => format!("{}{}", letters(cell.col), cell.row + 1),
    }
}

/// Why a label could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    #[error("'{0}' is not a cell label: write letters then a number, like B7")]
    Malformed(String),
    #[error("'{0}' is outside the board")]
    OutOfBounds(String),
}

/// Reads a label such as `B7`, `b-7` or `B 7`.
pub fn parse_label(axis: LetterAxis, size: Size, text: &str) -> Result<Cell, LabelError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(trimmed.len());
    let (letter_part, rest) = trimmed.split_at(split);
    let rest = rest
        .strip_prefix('-')
        .or_else(|| rest.strip_prefix(' '))
        .unwrap_or(rest);
    let malformed = || LabelError::Malformed(text.to_string());
    let letter_index = letters_index(letter_part).ok_or_else(malformed)?;
    if rest.is_empty() || rest.len() > 3 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed());
    }
    let number: u32 = rest.parse().map_err(|_| malformed())?;
    if number == 0 {
        return Err(LabelError::OutOfBounds(text.to_string()));
    }
    let (col, row) = match axis {
        LetterAxis::Rows => (number - 1, letter_index),
        LetterAxis::Columns => (letter_index, number - 1),
    };
    if col >= size.cols as u32 || row >= size.rows as u32 {
        return Err(LabelError::OutOfBounds(text.to_string()));
    }
    Ok(Cell::new(col as u16, row as u16))
}
