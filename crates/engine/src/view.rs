//! Views: what one seat (or an outside spectator) may know of a game (R-3.4,
//! ), and nothing more.
//!
//! A view is built only from the common knowledge of the boards, the viewer's
//! own (and team-mates') waters and scans, and — with full vision — the truth.
//! Nothing else is ever sent to a client, so a secret cannot leak through a
//! hidden field: the types below have no field that could hold one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::command::{ActionKind, Event, Phase};
use crate::game::{Game, Mark};
use crate::geometry::{Cell, LetterAxis, Size};
use crate::rules::{Mode, Preset};
use crate::ships::ShipAbility;

/// One board as the viewer knows it, in the canonical text view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BoardView {
    /// The owner's seat; `None` for the shared sea.
    pub owner: Option<usize>,
    pub rows: Vec<String>,
}

impl BoardView {
    /// The character of a cell.
    pub fn at(&self, cell: Cell) -> char {
        self.rows
            .get(cell.row as usize)
            .and_then(|r| r.as_bytes().get(cell.col as usize))
            .map(|&b| b as char)
            .unwrap_or(' ')
    }
}

/// A ship whose cells the viewer knows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ShipView {
    pub owner: usize,
    #[serde(rename = "type")]
    pub ship_type: String,
    pub cells: Vec<Cell>,
    pub sunk: bool,
}

/// What is public about a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeatView {
    pub seat: usize,
    pub team: u32,
    pub alive: bool,
    pub ready: bool,
    pub ships_afloat: u32,
    pub ships_total: u32,
    /// Type ids of the seat's sunk ships.
    pub sunk: Vec<String>,
    /// The fleet composition (type id → count), where the viewer may know it:
    /// public in sea presets, own team or full vision in space.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<BTreeMap<String, u32>>,
}

/// The state of an ability or special for the viewer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AbilityView {
    pub ready: bool,
    pub next_round: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uses_left: Option<u32>,
}

/// A block of the shared sea as the viewer knows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlockView {
    pub origin: Cell,
    /// The owner, when the viewer knows it.
    pub owner: Option<usize>,
    pub empty: bool,
    pub eliminated: bool,
}

/// The waters of one opponent as a target of the seat to move: what the
/// engine will accept there, so that no client counts cells itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TargetWaters {
    /// The board the waters lie on: the opponent's seat, or 0 in the shared sea.
    pub board: usize,
    /// In the shared sea, the opponent's block (an index into `blocks`), whose
    /// owner may be secret; absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<usize>,
    /// The cells of these waters the seat may still target: those
    /// shown `~` or `!` in `boards`, counted by the engine.
    pub targetable_cells: u32,
    /// The shots the move now due must aim here, as the engine checks them:
    /// in a salvo round the share of these waters (R-6.3: `shots_per_opponent`
    /// in `spread`, the whole salvo in `focus` if the seat chooses these
    /// waters; fewer only when fewer cells are left), unless an ability takes
    /// their place; under the brasil hard rule the shots of the volley
    /// . Absent for a duel shot, where hits decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shots_due: Option<u32>,
}

/// What the seat to move may aim at now, built from what it may know (the
/// common marks of the boards, its team's scans) with the functions
/// [`Game::apply`] checks a move with, so that a client that reads it cannot
/// disagree with the engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LegalTargets {
    /// The waters of every opponent the seat may shoot at, by board; in the
    /// shared sea by block (an order by seat would tell whose block is whose).
    pub waters: Vec<TargetWaters>,
    /// In a duel turn whose number of shots is fixed (`shots_per_turn` above 1,
    /// the shots the turn has in all, those already fired included
    /// (`shots_this_turn`); under the hard rule, the shots of the volley due
    /// now. Absent in salvo rounds and where hits decide how many shots a
    /// turn has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shots_in_turn: Option<u32>,
    /// Whether the turn's shots are one volley, declared together and
    /// answered with counts and ship types only (the brasil hard rule, R-5.3:
    /// `report` is `per_volley`); otherwise every shot is answered before the
    /// next, with the type of the ship it hit in brasil.
    pub volley: bool,
}

/// Everything a seat may know, built by [`Game::view`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct View {
    pub seat: Option<usize>,
    pub preset: Preset,
    pub mode: Mode,
    pub phase: Phase,
    pub to_move: Vec<usize>,
    /// The viewer's round, if a seat.
    pub round: Option<u32>,
    /// Shots already fired in the current duel turn.
    pub shots_this_turn: u32,
    pub salvo_round: bool,
    pub board_size: Size,
    pub letter_axis: LetterAxis,
    pub boards: Vec<BoardView>,
    pub ships_afloat: BTreeMap<usize, u32>,
    pub seats: Vec<SeatView>,
    /// Ships whose cells the viewer knows: own and team-mates', sunk ones, and
    /// every ship with full vision.
    pub ships: Vec<ShipView>,
    pub abilities: BTreeMap<String, AbilityView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockView>>,
    /// For a seat that must act in the battle: what it may aim at now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal_targets: Option<LegalTargets>,
    pub full_vision: bool,
    pub winner: Option<Vec<usize>>,
    pub draw: bool,
}

impl Game {
    /// The view of a seat (`Some`) or an outside spectator (`None`).
    pub fn view(&self, viewer: Option<usize>) -> View {
        let viewer = viewer.filter(|&s| s < self.rules.seats);
        self.view_with(viewer, self.full_vision(viewer))
    }

    /// The all-seeing view (every ship, the truth of every cell, every
    /// fleet), also while the game runs: for replays of finished games, where
    /// nothing is secret any more. It is an outside spectator's view with full
    /// vision. Never send it for a game that is still being played.
    pub fn replay_view(&self) -> View {
        self.view_with(None, true)
    }

    /// The events of one change as the all-seeing [`Game::replay_view`] sees
    /// them: all of them, private scans and reserve cells included.
    pub fn replay_events(&self, events: &[Event]) -> Vec<Event> {
        self.events_with(None, true, events)
    }

    fn view_with(&self, viewer: Option<usize>, full: bool) -> View {
        let boards = (0..self.boards.len())
            .map(|b| BoardView {
                owner: (self.rules.mode != Mode::SharedSea).then_some(b),
                rows: self.board_rows(viewer, full, b),
            })
            .collect();
        let ships = self
            .ships
            .iter()
            .filter(|ship| {
                full || self.sees_waters_of(viewer, ship.owner)
                    || (ship.sunk && !self.rules.per_volley())
            })
            .map(|ship| ShipView {
                owner: ship.owner,
                ship_type: self.rules.catalogue[ship.type_index].id.clone(),
                cells: ship.cells.clone(),
                sunk: ship.sunk,
            })
            .collect();
        let seats: Vec<SeatView> = (0..self.rules.seats)
            .map(|s| self.seat_view(viewer, full, s))
            .collect();
        View {
            seat: viewer,
            preset: self.rules.preset,
            mode: self.rules.mode,
            phase: self.phase,
            to_move: self.to_move(),
            round: viewer.map(|s| self.seats[s].round),
            shots_this_turn: self.shots_this_turn(),
            salvo_round: self.in_salvo_round(),
            board_size: self.rules.board,
            letter_axis: self.rules.letter_axis,
            boards,
            ships_afloat: seats.iter().map(|s| (s.seat, s.ships_afloat)).collect(),
            seats,
            ships,
            abilities: viewer.map(|s| self.abilities_of(s)).unwrap_or_default(),
            blocks: (self.rules.mode == Mode::SharedSea).then(|| self.block_views(viewer, full)),
            legal_targets: viewer.and_then(|s| self.legal_targets(s)),
            full_vision: full,
            winner: self.winners().map(|w| w.to_vec()),
            draw: self.draw,
        }
    }

    /// What `seat` may aim at now, if it must act in the battle. Everything
    /// here follows from the seat's view (the count of targetable cells of an
    /// opponent's waters is the count of its `~` and `!`); in the shared sea
    /// the waters are keyed and ordered by block, never by owner.
    pub fn legal_targets(&self, seat: usize) -> Option<LegalTargets> {
        if self.phase != Phase::Battle || !self.to_move().contains(&seat) {
            return None;
        }
        let salvo = self.in_salvo_round();
        let volley = !salvo && self.rules.per_volley();
        let opponents = self.salvo_opponents(seat);
        let volley_due = volley.then(|| (self.duel_opponent(seat), self.volley_shots_due(seat)));
        let mut waters: Vec<TargetWaters> = opponents
            .iter()
            .map(|&opponent| {
                let (board, _, _) = self.opponent_area(opponent);
                let shots_due = if salvo {
                    Some(self.salvo_share(seat, opponent, opponents.len()))
                } else {
                    volley_due
                        .filter(|&(target, _)| target == opponent)
                        .map(|(_, due)| due)
                };
                TargetWaters {
                    board,
                    block: (self.rules.mode == Mode::SharedSea).then(|| self.seat_block[opponent]),
                    targetable_cells: self.count_targetable(seat, opponent, u32::MAX),
                    shots_due,
                }
            })
            .collect();
        waters.sort_by_key(|w| (w.board, w.block));
        let shots_in_turn = if salvo {
            None
        } else {
            match volley_due {
                Some((_, due)) => Some(due),
                None => self.fixed_turn_shots(),
            }
        };
        Some(LegalTargets {
            waters,
            shots_in_turn,
            volley,
        })
    }

    fn seat_view(&self, viewer: Option<usize>, full: bool, seat: usize) -> SeatView {
        let state = &self.seats[seat];
        let ships = &state.ships;
        let afloat = ships.iter().filter(|&&s| self.ships[s].intact > 0).count() as u32;
        let mut sunk: Vec<String> = ships
            .iter()
            .filter(|&&s| self.ships[s].sunk)
            .map(|&s| self.rules.catalogue[self.ships[s].type_index].id.clone())
            .collect();
        sunk.sort();
        let knows_fleet =
            self.rules.mode != Mode::Space || full || self.sees_waters_of(viewer, seat);
        let fleet = knows_fleet.then(|| {
            let mut counts = BTreeMap::new();
            if ships.is_empty() {
                for &t in &state.fleet {
                    *counts
                        .entry(self.rules.catalogue[t].id.clone())
                        .or_insert(0) += 1;
                }
            } else {
                for &s in ships {
                    *counts
                        .entry(self.rules.catalogue[self.ships[s].type_index].id.clone())
                        .or_insert(0) += 1;
                }
            }
            counts
        });
        let total = if ships.is_empty() {
            state.fleet.len() as u32
        } else {
            ships.len() as u32
        };
        SeatView {
            seat,
            team: self.rules.teams[seat],
            alive: !state.eliminated,
            ready: state.ready,
            // Before placement a fleet is afloat in full.
            ships_afloat: if ships.is_empty() { total } else { afloat },
            ships_total: total,
            sunk,
            fleet,
        }
    }

    /// The abilities and specials the seat has in this game (docs/referee.md `view`).
    pub fn abilities_of(&self, seat: usize) -> BTreeMap<String, AbilityView> {
        let mut out = BTreeMap::new();
        let round = self.seats[seat].round;
        let battle = self.phase == Phase::Battle;
        for ability in ShipAbility::ALL {
            let has_type = self.seats[seat]
                .fleet
                .iter()
                .chain(
                    self.seats[seat]
                        .ships
                        .iter()
                        .map(|&s| &self.ships[s].type_index),
                )
                .any(|&t| self.rules.catalogue[t].ability == Some(ability));
            if !has_type {
                continue;
            }
            let afloat = self.seats[seat].ships.iter().any(|&s| {
                let ship = &self.ships[s];
                ship.intact > 0 && self.rules.catalogue[ship.type_index].ability == Some(ability)
            });
            let next_round = self.ability_next_round(seat, ability);
            out.insert(
                ability.id().to_string(),
                AbilityView {
                    ready: battle && afloat && round >= next_round,
                    next_round,
                    uses_left: None,
                },
            );
        }
        if self.rules.specials {
            for kind in [ActionKind::Wide, ActionKind::Bombard, ActionKind::Radar] {
                let uses_left = self.special_uses_left(seat, kind);
                let next_round = if kind == ActionKind::Bombard { 10 } else { 1 };
                out.insert(
                    kind.id().to_string(),
                    AbilityView {
                        ready: battle && uses_left > 0 && round >= next_round,
                        next_round: next_round.max(round),
                        uses_left: Some(uses_left),
                    },
                );
            }
        }
        out
    }

    fn block_views(&self, viewer: Option<usize>, full: bool) -> Vec<BlockView> {
        (0..self.block_origins.len())
            .map(|block| {
                let owner = self.seat_block.iter().position(|&b| b == block);
                let known = owner.filter(|&o| full || self.block_owner_known(viewer, o));
                BlockView {
                    origin: self.block_origins[block],
                    owner: known,
                    empty: owner.is_none(),
                    eliminated: owner.is_some_and(|o| self.seats[o].eliminated),
                }
            })
            .collect()
    }

    /// own and team-mates' blocks, eliminated players' blocks, and blocks
    /// whose owner a sinking revealed.
    fn block_owner_known(&self, viewer: Option<usize>, owner: usize) -> bool {
        self.sees_waters_of(viewer, owner)
            || self.seats[owner].eliminated
            || self.block_revealed[self.seat_block[owner]]
    }

    /// The rows of one board in the canonical text view.
    fn board_rows(&self, viewer: Option<usize>, full: bool, board: usize) -> Vec<String> {
        let b = &self.boards[board];
        let shared = self.rules.mode == Mode::SharedSea;
        let mut rows = Vec::with_capacity(b.size.rows as usize);
        for row in 0..b.size.rows {
            let mut line = String::with_capacity(b.size.cols as usize);
            for col in 0..b.size.cols {
                let cell = Cell::new(col, row);
                let index = b.size.index(cell);
                let owner = self.owner_of(board, cell);
                let not_target = shared && owner.is_none_or(|o| self.seats[o].eliminated);
                let truth = full || owner.is_some_and(|o| self.sees_waters_of(viewer, o));
                let ch = if truth {
                    match b.ship(cell) {
                        Some(s) if b.shot[index] => {
                            if self.ships[s].sunk {
                                '#'
                            } else {
                                'X'
                            }
                        }
                        Some(_) => '*',
                        None if b.shot[index] => 'O',
                        None if b.mark[index] == Mark::Water => '.',
                        None if not_target => '=',
                        None => '~',
                    }
                } else {
                    match b.mark[index] {
                        Mark::Miss => 'O',
                        Mark::Water => '.',
                        Mark::Sunk => '#',
                        Mark::Unresolved => '+',
                        Mark::Hit => {
                            if shared && !owner.is_some_and(|o| self.block_owner_known(viewer, o)) {
                                '?'
                            } else {
                                'X'
                            }
                        }
                        Mark::Unknown => match self.scan_mark(viewer, board, cell) {
                            Some(true) => '!',
                            Some(false) => '-',
                            None if not_target => '=',
                            None => '~',
                        },
                    }
                };
                line.push(ch);
            }
            rows.push(line);
        }
        rows
    }

    /// The viewer's (or a team-mate's) latest scan of a cell.
    fn scan_mark(&self, viewer: Option<usize>, board: usize, cell: Cell) -> Option<bool> {
        let viewer = viewer?;
        self.scans
            .iter()
            .rev()
            .find(|s| s.board == board && s.at == cell && self.rules.same_team(s.seat, viewer))
            .map(|s| s.ship)
    }

    /// The events of one change as `viewer` may see them: private scans and
    /// reserve cells go only to the team concerned; with full
    /// vision everything is shown.
    pub fn events_for(&self, viewer: Option<usize>, events: &[Event]) -> Vec<Event> {
        self.events_with(viewer, self.full_vision(viewer), events)
    }

    fn events_with(&self, viewer: Option<usize>, full: bool, events: &[Event]) -> Vec<Event> {
        events
            .iter()
            .filter_map(|event| match event {
                Event::Scan { seat, .. } if !full && !self.sees_waters_of(viewer, *seat) => None,
                Event::Reinforced { seat, count, .. }
                    if !full && !self.sees_waters_of(viewer, *seat) =>
                {
                    Some(Event::Reinforced {
                        seat: *seat,
                        count: *count,
                        cells: None,
                    })
                }
                other => Some(other.clone()),
            })
            .collect()
    }
}
