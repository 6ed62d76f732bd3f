//! What a seat asks of a game, without saying who asks.
//!
//! A [`Command`] names its seat, because the log of a game must say who moved.
//! An [`Intent`] is the same move without the seat: the form in which a client
//! sends a move. The host of a game (the server, the terminal client offline)
//! knows which seat the sender holds and turns the intent into a command with
//! [`Intent::by`] (or applies it with [`crate::Game::apply_as`]), so a client can
//! never move for a seat it does not hold: there is no field to forge. The clock's
//! [`Command::Timeout`] has no intent; only the host's timer sends it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::command::{Action, Command, Target};
use crate::geometry::Cell;
use crate::placement::Placement;

/// A seat's move as a client sends it: a [`Command`] without its seat. The
/// JSON form is the command's (`{"cmd": "fire", "target": …}`); a `seat` field,
/// if a client writes one, is not read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Intent {
    /// Space shop: the whole fleet (R-7.2).
    Buy { ships: BTreeMap<String, u32> },
    /// The whole fleet at once; the seat is then ready (R-2.8).
    Place { ships: Vec<Placement> },
    /// The whole fleet placed at random (R-2.6).
    PlaceRandom,
    /// One shot in a duel (R-4).
    Fire { target: Target },
    /// A brasil hard-rule volley (R-5.3).
    Volley { cells: Vec<Cell> },
    /// An ability or special in a duel.
    Ability { action: Action },
    /// A secret salvo in a round of three or more (R-6).
    Salvo {
        shots: Vec<Target>,
        #[serde(default)]
        action: Option<Action>,
    },
    /// Giving up (R-11.2).
    Resign,
}

impl Intent {
    /// The command of this intent made by `seat`.
    pub fn by(self, seat: usize) -> Command {
        match self {
            Intent::Buy { ships } => Command::Buy { seat, ships },
            Intent::Place { ships } => Command::Place { seat, ships },
            Intent::PlaceRandom => Command::PlaceRandom { seat },
            Intent::Fire { target } => Command::Fire { seat, target },
            Intent::Volley { cells } => Command::Volley { seat, cells },
            Intent::Ability { action } => Command::Ability { seat, action },
            Intent::Salvo { shots, action } => Command::Salvo {
                seat,
                shots,
                action,
            },
            Intent::Resign => Command::Resign { seat },
        }
    }

    /// The seat and intent of a command; `None` for the clock's timeout, which
    /// no seat sends.
    pub fn of(command: Command) -> Option<(usize, Intent)> {
        Some(match command {
            Command::Buy { seat, ships } => (seat, Intent::Buy { ships }),
            Command::Place { seat, ships } => (seat, Intent::Place { ships }),
            Command::PlaceRandom { seat } => (seat, Intent::PlaceRandom),
            Command::Fire { seat, target } => (seat, Intent::Fire { target }),
            Command::Volley { seat, cells } => (seat, Intent::Volley { cells }),
            Command::Ability { seat, action } => (seat, Intent::Ability { action }),
            Command::Salvo {
                seat,
                shots,
                action,
            } => (seat, Intent::Salvo { shots, action }),
            Command::Resign { seat } => (seat, Intent::Resign),
            Command::Timeout => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_written_by_the_client_is_not_read() {
        let intent: Intent =
            serde_json::from_str(r#"{"cmd":"fire","seat":1,"target":{"board":0,"at":[2,3]}}"#)
                .expect("an intent");
        assert_eq!(
            intent.clone().by(0),
            Command::Fire {
                seat: 0,
                target: serde_json::from_str(r#"{"board":0,"at":[2,3]}"#).expect("a target"),
            }
        );
        assert_eq!(Intent::of(intent.clone().by(4)), Some((4, intent)));
    }

    #[test]
    fn the_clock_has_no_intent() {
        assert!(serde_json::from_str::<Intent>(r#"{"cmd":"timeout"}"#).is_err());
        assert_eq!(Intent::of(Command::Timeout), None);
    }

    #[test]
    fn an_intent_has_the_json_of_its_command_without_the_seat() {
        let intents = [
            r#"{"cmd":"place_random"}"#,
            r#"{"cmd":"resign"}"#,
            r#"{"cmd":"volley","cells":[[0,0],[1,1]]}"#,
            r#"{"cmd":"buy","ships":{"fighter":2}}"#,
        ];
        for text in intents {
            let intent: Intent = serde_json::from_str(text).expect("an intent");
            let mut command =
                serde_json::to_value(intent.clone().by(2)).expect("a command serializes");
            command
                .as_object_mut()
                .expect("an object")
                .remove("seat")
                .expect("a seat");
            assert_eq!(
                command,
                serde_json::to_value(&intent).expect("an intent serializes")
            );
        }
    }
}
