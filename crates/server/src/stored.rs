//! A stored game read back: its setup (JSON of the engine's `Setup`, seed
//! included) and its command log (JSON of each accepted `Command`), replayed
//! by the engine. The one place that reads a stored game, for every reader:
//! a room brought back into memory, the replay page's data
//! (`/api/games/<ID>`) and `broadside export`.
//!
//! It knows nothing of the database: callers hand it the stored text.

use broadside_engine::{Command, Event, Game, RuleError, Setup};

/// One step of a replay, as the caller's `on_step` sees it.
pub struct Step<'a> {
    /// The game's setup (its seed included).
    pub setup: &'a Setup,
    /// The game after this step.
    pub game: &'a Game,
    /// The command just applied and its number in the log (1 for the first);
    /// `None` for the game as set up, before any command.
    pub command: Option<(usize, &'a Command)>,
    /// What the command caused (nothing at the start).
    pub events: &'a [Event],
}

/// A stored game, replayed to its last command.
pub struct Replayed {
    pub setup: Setup,
    pub game: Game,
}

/// Why a stored game does not replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("its setup is unreadable: {0}")]
    Setup(String),
    #[error("its setup makes no game: {0}")]
    Game(RuleError),
    #[error("command {number} is unreadable: {message}")]
    Unreadable { number: usize, message: String },
    #[error("command {number} no longer applies: {error}")]
    Refused { number: usize, error: RuleError },
}

/// Replays a stored game: parses `setup`, makes the game and applies each of
/// `commands` in order. `on_step` sees the game as set up, then the game
/// after each command with the command and its events.
pub fn replay(
    setup: &str,
    commands: &[String],
    mut on_step: impl FnMut(Step<'_>),
) -> Result<Replayed, ReplayError> {
    let setup: Setup =
        serde_json::from_str(setup).map_err(|e| ReplayError::Setup(e.to_string()))?;
    let mut game = Game::new(&setup).map_err(ReplayError::Game)?;
    on_step(Step {
        setup: &setup,
        game: &game,
        command: None,
        events: &[],
    });
    for (index, text) in commands.iter().enumerate() {
        let number = index + 1;
        let command: Command = serde_json::from_str(text).map_err(|e| ReplayError::Unreadable {
            number,
            message: e.to_string(),
        })?;
        let events = game
            .apply(command.clone())
            .map_err(|error| ReplayError::Refused { number, error })?;
        on_step(Step {
            setup: &setup,
            game: &game,
            command: Some((number, &command)),
            events: &events,
        });
    }
    Ok(Replayed { setup, game })
}

#[cfg(test)]
mod tests {
    use super::*;
    use broadside_engine::Preset;

    fn setup() -> String {
        let setup = Setup {
            preset: Preset::Classic,
            seats: 2,
            seed: 7,
            options: Default::default(),
            teams: None,
        };
        serde_json::to_string(&setup).expect("a setup serializes")
    }

    #[test]
    fn a_log_replays_step_by_step() {
        let commands: Vec<String> = (0..2)
            .map(|seat| serde_json::to_string(&Command::PlaceRandom { seat }).expect("plain data"))
            .collect();
        let mut seen = Vec::new();
        let replayed = replay(&setup(), &commands, |step| {
            seen.push(step.command.map(|(number, _)| number));
        })
        .expect("the log replays");
        assert_eq!(seen, vec![None, Some(1), Some(2)]);
        assert_eq!(replayed.setup.seed, 7);
        assert_eq!(replayed.game.phase(), broadside_engine::Phase::Battle);
    }

    #[test]
    fn a_broken_log_says_which_command() {
        let commands = vec!["{\"cmd\":\"nonsense\"}".to_string()];
        let error = replay(&setup(), &commands, |_| {}).err().expect("refused");
        assert!(
            matches!(error, ReplayError::Unreadable { number: 1, .. }),
            "{error}"
        );
        let error = replay("{", &[], |_| {}).err().expect("refused");
        assert!(matches!(error, ReplayError::Setup(_)), "{error}");
        // In the battle nobody places any more.
        let place =
            |seat| serde_json::to_string(&Command::PlaceRandom { seat }).expect("plain data");
        let error = replay(&setup(), &[place(0), place(1), place(0)], |_| {})
            .err()
            .expect("refused");
        assert!(
            matches!(error, ReplayError::Refused { number: 3, .. }),
            "{error}"
        );
    }
}
