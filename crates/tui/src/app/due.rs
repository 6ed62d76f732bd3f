//! What a salvo or a volley owes each opponent's waters, read from the view's
//! legal targets (the engine counts; the client only compares them with the
//! cells picked so far), so that the panel can say where shots are missing and
//! a wrong salvo is explained before it is sent.

use broadside_engine::{Cell, SalvoMode, Target, View};

/// One opponent's waters and the shots the move owes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Due {
    /// The board the waters lie on.
    pub board: usize,
    /// In the shared sea, the block (an index into the view's blocks).
    pub block: Option<usize>,
    /// Shots the engine expects here (in focus: if these waters are chosen).
    pub due: u32,
    /// Cells picked here so far.
    pub chosen: u32,
    /// Cells still open to a shot here; fewer than `due` only at the end.
    pub open: u32,
}

/// The shots owed per waters for the move now due, with the picks counted
/// in; empty when the seat has no salvo or volley to send.
pub fn dues(view: &View, picks: &[Target]) -> Vec<Due> {
    let Some(targets) = view.legal_targets.as_ref() else {
        return Vec::new();
    };
    targets
        .waters
        .iter()
        .filter_map(|w| {
            let due = w.shots_due?;
            let chosen = picks
                .iter()
                .filter(|t| t.board == w.board && block_of(view, t.at) == w.block)
                .count() as u32;
            Some(Due {
                board: w.board,
                block: w.block,
                due,
                chosen,
                open: w.targetable_cells,
            })
        })
        .collect()
}

/// The block of the shared sea that holds `cell` (`None` elsewhere).
pub fn block_of(view: &View, cell: Cell) -> Option<usize> {
    let size = view.board_size;
    view.blocks.as_ref()?.iter().position(|b| {
        cell.col >= b.origin.col
            && cell.col < b.origin.col + size.cols
            && cell.row >= b.origin.row
            && cell.row < b.origin.row + size.rows
    })
}

/// Why the picks are not the salvo or volley the engine expects, if they are
/// not: the first waters whose count is off, or (in focus) that the shots are
/// spread over several waters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// These waters need `due` shots and have `chosen`.
    Count(Due),
    /// Focus: every shot on one opponent's waters, `due` in all.
    Spread { due: u32 },
}

/// Checks the picks against what is owed (`mode` is the room's salvo mode in
/// a salvo round, `None` for a volley). A salvo whose shots an ability
/// replaces is the engine's to check.
pub fn check(dues: &[Due], mode: Option<SalvoMode>) -> Result<(), Mismatch> {
    if mode == Some(SalvoMode::Focus) {
        let aimed: Vec<&Due> = dues.iter().filter(|d| d.chosen > 0).collect();
        return match aimed.as_slice() {
            [one] if one.chosen == one.due => Ok(()),
            [one] => Err(Mismatch::Count(**one)),
            [] => match dues.first() {
                Some(first) if first.due > 0 => Err(Mismatch::Count(*first)),
                _ => Ok(()),
            },
            _ => Err(Mismatch::Spread {
                due: dues.iter().map(|d| d.due).max().unwrap_or(0),
            }),
        };
    }
    match dues.iter().find(|d| d.chosen != d.due) {
        Some(d) => Err(Mismatch::Count(*d)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn due(board: usize, due: u32, chosen: u32) -> Due {
        Due {
            board,
            block: None,
            due,
            chosen,
            open: 50,
        }
    }

    #[test]
    fn spread_needs_every_share() {
        assert_eq!(
            check(&[due(1, 2, 2), due(2, 2, 2)], Some(SalvoMode::Spread)),
            Ok(())
        );
        assert_eq!(
            check(&[due(1, 2, 2), due(2, 2, 1)], Some(SalvoMode::Spread)),
            Err(Mismatch::Count(due(2, 2, 1)))
        );
    }

    #[test]
    fn focus_needs_one_waters_with_the_whole_salvo() {
        assert_eq!(
            check(&[due(1, 4, 0), due(2, 4, 4)], Some(SalvoMode::Focus)),
            Ok(())
        );
        assert_eq!(
            check(&[due(1, 4, 2), due(2, 4, 2)], Some(SalvoMode::Focus)),
            Err(Mismatch::Spread { due: 4 })
        );
        assert_eq!(
            check(&[due(1, 4, 0), due(2, 4, 3)], Some(SalvoMode::Focus)),
            Err(Mismatch::Count(due(2, 4, 3)))
        );
        assert_eq!(
            check(&[due(1, 4, 0), due(2, 4, 0)], Some(SalvoMode::Focus)),
            Err(Mismatch::Count(due(1, 4, 0)))
        );
    }

    #[test]
    fn a_volley_needs_its_count() {
        assert_eq!(check(&[due(1, 3, 3)], None), Ok(()));
        assert_eq!(
            check(&[due(1, 3, 1)], None),
            Err(Mismatch::Count(due(1, 3, 1)))
        );
    }
}
