//! Ship shapes with their rotations and the ship catalogues of the
//! presets (R-7.3, R-10, docs/referee.md "Ship type ids").

use serde::{Deserialize, Serialize};

use crate::geometry::Cell;

/// A polyomino (or any set of cells) in its canonical orientation, shifted so its
/// bounding box starts at (0, 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Shape {
    cells: Vec<(u16, u16)>,
}

impl Shape {
    /// A straight line of `length` cells lying to the right (rot 0).
    pub fn line(length: u16) -> Self {
        Shape::from_cells((0..length).map(|x| (x, 0)).collect())
    }

    /// A shape drawn as rows of `X` (cell) and `.` (no cell).
    pub fn from_rows(rows: &[&str]) -> Self {
        let mut cells = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                if ch == 'X' {
                    cells.push((x as u16, y as u16));
                }
            }
        }
        Shape::from_cells(cells)
    }

    fn from_cells(mut cells: Vec<(u16, u16)>) -> Self {
        let min_x = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let min_y = cells.iter().map(|c| c.1).min().unwrap_or(0);
        for cell in &mut cells {
            cell.0 -= min_x;
            cell.1 -= min_y;
        }
        cells.sort_by_key(|&(x, y)| (y, x));
        Shape { cells }
    }

    pub fn cells(&self) -> &[(u16, u16)] {
        &self.cells
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn width(&self) -> u16 {
        self.cells.iter().map(|c| c.0 + 1).max().unwrap_or(0)
    }

    pub fn height(&self) -> u16 {
        self.cells.iter().map(|c| c.1 + 1).max().unwrap_or(0)
    }

    /// The shape turned `rot` quarter turns clockwise: one quarter turn maps
    /// `(x, y)` to `(h − 1 − y, x)`, then the bounding box is shifted to (0, 0).
    pub fn rotated(&self, rot: u8) -> Shape {
        let mut shape = self.clone();
        for _ in 0..(rot % 4) {
            let height = shape.height();
            shape = Shape::from_cells(
                shape
                    .cells
                    .iter()
                    .map(|&(x, y)| (height - 1 - y, x))
                    .collect(),
            );
        }
        shape
    }

    /// The board cells of this shape turned by `rot` with its bounding box at `at`.
    /// Cells that would leave the `u16` range are dropped, so callers check bounds
    /// by comparing the count (see [`crate::placement`]).
    pub fn place(&self, at: Cell, rot: u8) -> Vec<(i32, i32)> {
        self.rotated(rot)
            .cells
            .iter()
            .map(|&(x, y)| (at.col as i32 + x as i32, at.row as i32 + y as i32))
            .collect()
    }

    /// The distinct rotations of the shape as `(rot, shape)`; symmetric shapes have
    /// fewer than four.
    pub fn distinct_rotations(&self) -> Vec<(u8, Shape)> {
        let mut out: Vec<(u8, Shape)> = Vec::with_capacity(4);
        for rot in 0..4 {
            let shape = self.rotated(rot);
            if !out.iter().any(|(_, s)| *s == shape) {
                out.push((rot, shape));
            }
        }
        out
    }
}

/// What a ship type can do instead of a shot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShipAbility {
    Laser,
    Scanner,
    Nuke,
    Reserve,
}

impl ShipAbility {
    pub const ALL: [ShipAbility; 4] = [
        ShipAbility::Laser,
        ShipAbility::Scanner,
        ShipAbility::Nuke,
        ShipAbility::Reserve,
    ];

    /// The cycle N of.
    pub fn cycle(self) -> u32 {
        match self {
            ShipAbility::Laser => 3,
            ShipAbility::Scanner => 6,
            ShipAbility::Nuke | ShipAbility::Reserve => 9,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            ShipAbility::Laser => "laser",
            ShipAbility::Scanner => "scanner",
            ShipAbility::Nuke => "nuke",
            ShipAbility::Reserve => "reserve",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// One type of ship: what it looks like and what it costs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ShipType {
    /// Stable id used by commands and views (docs/referee.md).
    pub id: String,
    /// English display name; clients translate by `id`.
    pub name: String,
    pub shape: Shape,
    /// Shop price in credits (space only; 0 elsewhere).
    pub price: u32,
    /// Shop purchase limit (space only).
    pub limit: u32,
    /// At most one capital ship per fleet.
    pub capital: bool,
    pub ability: Option<ShipAbility>,
}

impl ShipType {
    fn line(id: &str, name: &str, length: u16) -> Self {
        ShipType {
            id: id.to_string(),
            name: name.to_string(),
            shape: Shape::line(length),
            price: 0,
            limit: 0,
            capital: false,
            ability: None,
        }
    }

    fn space(
        id: &str,
        name: &str,
        rows: &[&str],
        price: u32,
        limit: u32,
        capital: bool,
        ability: Option<ShipAbility>,
    ) -> Self {
        ShipType {
            id: id.to_string(),
            name: name.to_string(),
            shape: Shape::from_rows(rows),
            price,
            limit,
            capital,
            ability,
        }
    }
}

/// The four ship types of the classic and shared-sea fleets.
pub fn classic_catalogue() -> Vec<(ShipType, u32)> {
    vec![
        (ShipType::line("battleship", "Battleship", 4), 1),
        (ShipType::line("cruiser", "Cruiser", 3), 2),
        (ShipType::line("destroyer", "Destroyer", 2), 3),
        (ShipType::line("submarine", "Submarine", 1), 4),
    ]
}

pub fn hasbro_catalogue() -> Vec<(ShipType, u32)> {
    vec![
        (ShipType::line("carrier", "Carrier", 5), 1),
        (ShipType::line("battleship", "Battleship", 4), 1),
        (ShipType::line("cruiser", "Cruiser", 3), 1),
        (ShipType::line("submarine", "Submarine", 3), 1),
        (ShipType::line("destroyer", "Destroyer", 2), 1),
    ]
}

pub fn italia_catalogue() -> Vec<(ShipType, u32)> {
    vec![
        (ShipType::line("carrier", "Carrier", 5), 1),
        (ShipType::line("battleship", "Battleship", 4), 2),
        (ShipType::line("cruiser", "Cruiser", 3), 3),
        (ShipType::line("destroyer", "Destroyer", 2), 4),
        (ShipType::line("submarine", "Submarine", 1), 5),
    ]
}

/// the Brazilian weapons, with the V-shaped seaplane.
pub fn brasil_catalogue() -> Vec<(ShipType, u32)> {
    vec![
        (ShipType::line("carrier", "Aircraft carrier", 5), 1),
        (ShipType::line("battleship", "Battleship", 4), 2),
        (ShipType::line("cruiser", "Cruiser", 2), 3),
        (ShipType::line("submarine", "Submarine", 1), 4),
        (
            ShipType {
                shape: Shape::from_rows(&[".X.", "X.X"]),
                ..ShipType::line("seaplane", "Seaplane", 1)
            },
            5,
        ),
    ]
}

/// the space shop, in catalogue order.
pub fn space_catalogue() -> Vec<ShipType> {
    use ShipAbility::*;
    vec![
        ShipType::space("fighter", "Fighter", &["X"], 10, 4, false, None),
        ShipType::space("scout", "Scout", &["XX"], 20, 4, false, None),
        ShipType::space("corvette", "Corvette", &["XX", "X."], 30, 3, false, None),
        ShipType::space("lancer", "Lancer", &["XXX"], 40, 2, false, Some(Laser)),
        ShipType::space("frigate", "Frigate", &[".XX", "XX."], 40, 2, false, None),
        ShipType::space(
            "spirit",
            "Spirit",
            &["XXX", ".X."],
            50,
            2,
            false,
            Some(Scanner),
        ),
        ShipType::space("cruiser", "Cruiser", &["XXXX", "X..."], 50, 2, false, None),
        ShipType::space(
            "dreadnought",
            "Dreadnought",
            &[".X..", "XXXX", ".X.."],
            60,
            1,
            true,
            Some(Nuke),
        ),
        ShipType::space(
            "station",
            "Space Station",
            &[".X.", "XXX", ".X."],
            50,
            1,
            true,
            Some(Reserve),
        ),
    ]
}

/// the default space fleet, as catalogue ids in purchase order.
pub const SPACE_DEFAULT_FLEET: [&str; 14] = [
    "dreadnought",
    "lancer",
    "lancer",
    "spirit",
    "spirit",
    "cruiser",
    "cruiser",
    "frigate",
    "frigate",
    "corvette",
    "scout",
    "fighter",
    "fighter",
    "fighter",
];
