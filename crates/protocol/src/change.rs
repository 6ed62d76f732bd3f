//! Change frames (docs/protocol.md, "State and change"): after a move, a
//! connection is sent only what changed in its view since the last `state`
//! or `change` it was sent, not the whole view again.
//!
//! A change is computed from two views of one audience (a seat, or the
//! spectators) and nothing else, so it can hold nothing the newer view does
//! not: a change never tells a client more than a full view would.
//!
//! The fields of a view that changed are sent whole in [`ViewPatch`]; the
//! boards, which change a few cells at a time, as [`CellChange`]s. A client
//! applies a change to its copy of the view ([`ViewCopy`]): replace each field
//! present, set each cell. Every change has the sequence number of its
//! audience's stream, one more than the frame before it; a client that sees a
//! gap asks for the whole view again (`resync`).

use std::collections::BTreeMap;

use broadside_engine::{
    AbilityView, BlockView, BoardView, Cell, LegalTargets, LetterAxis, Mode, Phase, Preset,
    SeatView, ShipView, Size, View,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ServerFrame, StateFrame};

/// One board cell whose character changed (R-12's text view).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CellChange {
    /// The board, an index into the view's `boards`.
    pub board: usize,
    pub at: Cell,
    /// The cell's new character.
    pub mark: char,
}

/// Declares [`ViewPatch`] with one optional field for each field of [`View`]
/// but `boards` (whose cells go in [`CellChange`]s), and the functions that
/// make and apply it. Listing the view's fields in one place, and matching
/// them without `..` below, makes a field added to `View` and forgotten here
/// a compile error rather than a client that silently never learns of it.
macro_rules! view_patch {
    ($($field:ident: $ty:ty),* $(,)?) => {
        /// The fields of a view that changed, each sent whole with its new
        /// value (`null` included: a field that became `null`). Fields left
        /// out did not change.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
        pub struct ViewPatch {
            $(
                #[serde(
                    default,
                    skip_serializing_if = "Option::is_none",
                    deserialize_with = "present"
                )]
                pub $field: Option<$ty>,
            )*
            /// The boards whole, only when their number or shape changed;
            /// otherwise their changed cells are in the frame's `cells`.
            #[serde(
                default,
                skip_serializing_if = "Option::is_none",
                deserialize_with = "present"
            )]
            pub boards: Option<Vec<BoardView>>,
        }

        impl ViewPatch {
            /// The fields of `new` that differ from `old` (boards aside).
            fn fields(old: &View, new: &View) -> ViewPatch {
                let View { boards: _, $($field: _,)* } = new;
                ViewPatch {
                    $($field: (old.$field != new.$field).then(|| new.$field.clone()),)*
                    boards: None,
                }
            }

            /// Replaces the fields present in `view`.
            fn set(&self, view: &mut View) {
                $(
                    if let Some(value) = &self.$field {
                        view.$field = value.clone();
                    }
                )*
                if let Some(boards) = &self.boards {
                    view.boards = boards.clone();
                }
            }

            /// Whether no field changed.
            pub fn is_empty(&self) -> bool {
                $(self.$field.is_none() &&)* self.boards.is_none()
            }
        }
    };
}

view_patch! {
    seat: Option<usize>,
    preset: Preset,
    mode: Mode,
    phase: Phase,
    to_move: Vec<usize>,
    round: Option<u32>,
    shots_this_turn: u32,
    salvo_round: bool,
    board_size: Size,
    letter_axis: LetterAxis,
    ships_afloat: BTreeMap<usize, u32>,
    seats: Vec<SeatView>,
    ships: Vec<ShipView>,
    abilities: BTreeMap<String, AbilityView>,
    blocks: Option<Vec<BlockView>>,
    legal_targets: Option<LegalTargets>,
    full_vision: bool,
    winner: Option<Vec<usize>>,
    draw: bool,
}

/// Reads a present field as `Some`, `null` included (`Some(None)` for a field
/// that is itself optional); an absent one is `None` through `default`.
fn present<'de, T, D>(deserializer: D) -> Result<Option<T>, D::Error>
where
    T: Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// What changed from `old` to `new`, two views of one audience: the fields
/// that differ, and the board cells that differ (or the boards whole, when
/// their number or shape differs).
pub fn between(old: &View, new: &View) -> (ViewPatch, Vec<CellChange>) {
    let mut patch = ViewPatch::fields(old, new);
    let mut cells = Vec::new();
    if same_shape(&old.boards, &new.boards) {
        for (board, (before, after)) in old.boards.iter().zip(&new.boards).enumerate() {
            if before.owner != after.owner {
                patch.boards = Some(new.boards.clone());
                cells.clear();
                break;
            }
            for (row, (was, is)) in before.rows.iter().zip(&after.rows).enumerate() {
                if was == is {
                    continue;
                }
                for (col, (a, b)) in was.chars().zip(is.chars()).enumerate() {
                    if a != b {
                        cells.push(CellChange {
                            board,
                            at: Cell::new(col as u16, row as u16),
                            mark: b,
                        });
                    }
                }
            }
        }
    } else {
        patch.boards = Some(new.boards.clone());
    }
    (patch, cells)
}

/// Whether two lists of boards have as many boards, rows and characters per
/// row: then cells alone can tell their difference.
fn same_shape(old: &[BoardView], new: &[BoardView]) -> bool {
    old.len() == new.len()
        && old.iter().zip(new).all(|(a, b)| {
            a.rows.len() == b.rows.len()
                && a.rows
                    .iter()
                    .zip(&b.rows)
                    .all(|(x, y)| x.chars().count() == y.chars().count())
        })
}

/// Applies a change to a view: the patch's fields, then the cells. A cell
/// outside the boards is ignored (a server never sends one).
pub fn apply(view: &mut View, patch: &ViewPatch, cells: &[CellChange]) {
    patch.set(view);
    for change in cells {
        let Some(row) = view
            .boards
            .get_mut(change.board)
            .and_then(|board| board.rows.get_mut(change.at.row as usize))
        else {
            continue;
        };
        if let Some((at, old)) = row.char_indices().nth(change.at.col as usize) {
            let mut buffer = [0; 4];
            row.replace_range(
                at..at + old.len_utf8(),
                change.mark.encode_utf8(&mut buffer),
            );
        }
    }
}

/// A client's copy of its view, kept by `state` and `change` frames.
#[derive(Clone, Debug, Default)]
pub struct ViewCopy {
    copy: Option<(u64, View)>,
    /// A `resync` was asked for and its `state` has not come yet.
    resyncing: bool,
}

/// A `change` that does not follow the frame before it (or came before any
/// `state`): the client should send `resync` and wait for the `state` it
/// answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfStep;

impl ViewCopy {
    /// The view as last brought up to date, if any.
    pub fn view(&self) -> Option<&View> {
        self.copy.as_ref().map(|(_, view)| view)
    }

    /// Takes the whole view of a `state` frame.
    pub fn replace(&mut self, seq: u64, view: View) {
        self.copy = Some((seq, view));
        self.resyncing = false;
    }

    /// After an [`OutOfStep`]: whether to send `resync` now. True once until
    /// the next `state`, so that the changes still on their way do not ask
    /// again.
    pub fn ask_resync(&mut self) -> bool {
        !std::mem::replace(&mut self.resyncing, true)
    }

    /// Applies a `change` frame with sequence number `seq`.
    pub fn apply(
        &mut self,
        seq: u64,
        patch: &ViewPatch,
        cells: &[CellChange],
    ) -> Result<&View, OutOfStep> {
        match &mut self.copy {
            Some((last, view)) if seq == *last + 1 => {
                apply(view, patch, cells);
                *last = seq;
                Ok(view)
            }
            _ => Err(OutOfStep),
        }
    }

    /// Keeps the copy with a `state` or `change` frame and gives the frame as
    /// the whole `state` it makes (any other frame as it is): for a client
    /// that reads every update as a whole view.
    pub fn follow(&mut self, frame: ServerFrame) -> Result<ServerFrame, OutOfStep> {
        match frame {
            ServerFrame::State(state) => {
                self.replace(state.seq, state.view.clone());
                Ok(ServerFrame::State(state))
            }
            ServerFrame::Change(change) => {
                let change = *change;
                let view = self.apply(change.seq, &change.view, &change.cells)?.clone();
                Ok(ServerFrame::State(Box::new(StateFrame {
                    seq: change.seq,
                    view,
                    events: change.events,
                    deadline_ms: change.deadline_ms,
                    stats: change.stats,
                })))
            }
            frame => Ok(frame),
        }
    }

    /// [`ViewCopy::follow`] for a client that reads frames as JSON values: a
    /// `state` or `change` comes back as the whole `state`, any other frame as
    /// it is.
    pub fn follow_json(
        &mut self,
        frame: serde_json::Value,
    ) -> Result<serde_json::Value, OutOfStep> {
        if frame["type"] != "state" && frame["type"] != "change" {
            return Ok(frame);
        }
        // A frame that does not read as its type is left for the caller to
        // judge, as it came.
        let Ok(typed) = serde_json::from_value::<ServerFrame>(frame.clone()) else {
            return Ok(frame);
        };
        let state = self.follow(typed)?;
        Ok(serde_json::from_str(&state.to_text()).expect("a state frame is JSON"))
    }

    /// Forgets the view (the room was left, or the link dropped).
    pub fn clear(&mut self) {
        self.copy = None;
        self.resyncing = false;
    }
}
