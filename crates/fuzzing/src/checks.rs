//! The checks every target makes after a move: views and events for every
//! viewer, and that a refused command changes nothing.

use broadside_engine::{Command, Event, Game};

/// Views of every seat and of an outside spectator, and the events as each of
/// them may see them; serialized when `serialize` is set (serializing costs more
/// than building, and plain data always serializes, so targets do it at the end
/// and where the phase changes).
pub fn check_views(game: &Game, events: &[Event], serialize: bool) {
    let viewers = (0..game.seat_count()).map(Some).chain([None]);
    for viewer in viewers {
        let view = game.view(viewer);
        let seen = game.events_for(viewer, events);
        if serialize {
            serde_json::to_string(&view).expect("a view serializes");
            serde_json::to_string(&seen).expect("events serialize");
        }
    }
    if serialize {
        serde_json::to_string(&game.status()).expect("the status serializes");
    }
}

/// Whether the events change the phase or end the game: a moment to serialize views.
pub fn milestone(events: &[Event]) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::PhaseChanged { .. } | Event::GameOver { .. }))
}

/// Applies commands and checks that a refused one changes nothing: the saved
/// game after a refusal must equal the saved game before it. Saving is the
/// costly part, so a save is made only for a refusal and kept while the game
/// does not change (refusals often come in a row).
#[derive(Default)]
pub struct RefusalCheck {
    saved: Option<String>,
}

impl RefusalCheck {
    /// The events of an accepted command; `None` for a refusal.
    pub fn apply(&mut self, game: &mut Game, command: Command) -> Option<Vec<Event>> {
        let snapshot = self.saved.is_none().then(|| game.clone());
        match game.apply(command.clone()) {
            Ok(events) => {
                self.saved = None;
                Some(events)
            }
            Err(error) => {
                let before = self
                    .saved
                    .take()
                    .or_else(|| snapshot.map(|g| g.save()))
                    .expect("a snapshot is taken whenever no save is kept");
                let after = game.save();
                if before != after {
                    panic!("{command:?} was refused ({error}) but changed the game");
                }
                self.saved = Some(after);
                None
            }
        }
    }
}
