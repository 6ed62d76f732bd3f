//! Saves. An input that starts with `{` is a save on its first line, read as
//! UTF-8 (lossy): `Game::load` must refuse or accept it without panicking, and a
//! game it accepts must save to the same string after a second load, give every
//! view, and take the commands decoded from the rest of the input (refusals
//! changing nothing), as the referee's `load` and the commands after it would.
//! Any other input also goes to `Game::load`, then chooses a real game and plays
//! it (as in `engine_commands`): at every change of phase, every eighth move and
//! at the end, the game must load from its own save into a game that saves to
//! the very same string.
//!
//! A custom mutator edits saves as JSON (see `mutate_json`), so that inputs get
//! past the parser to the consistency checks of `Game::load`.

use crate::{check_views, command, milestone, preset_setup, RefusalCheck, Table, MAX_COMMANDS};
use arbitrary::Unstructured;
use broadside_engine::Game;

/// Commands played on a loaded game.
const LOADED_COMMANDS: usize = 60;

fn round_trip(game: &Game) {
    let saved = game.save();
    let loaded = Game::load(&saved).expect("a game loads from its own save");
    assert_eq!(loaded.save(), saved, "a loaded game saves as it was saved");
}

/// Plays a loaded game: refused commands must change nothing.
fn play_loaded(game: &mut Game, u: &mut Unstructured) {
    let table = Table::of(game);
    let mut check = RefusalCheck::default();
    for _ in 0..LOADED_COMMANDS {
        let Ok(command) = command(u, game, &table) else {
            break;
        };
        if let Some(events) = check.apply(game, command) {
            check_views(game, &events, false);
        }
    }
}

/// Plays a real game, saving and loading it after every change of phase, every
/// eighth accepted command and at the end (refusals are `engine_commands`' part).
fn play_real(game: &mut Game, u: &mut Unstructured) {
    let table = Table::of(game);
    let mut accepted: u32 = 0;
    for _ in 0..MAX_COMMANDS {
        let Ok(command) = command(u, game, &table) else {
            break;
        };
        if let Ok(events) = game.apply(command) {
            accepted += 1;
            if milestone(&events) || accepted % 8 == 0 {
                round_trip(game);
            }
        }
    }
    round_trip(game);
}

/// The target's body: see the module's documentation.
pub fn save_load(data: &[u8]) {
    if data.first() == Some(&b'{') {
        let end = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
        let text = String::from_utf8_lossy(&data[..end]);
        if let Ok(mut game) = Game::load(&text) {
            round_trip(&game);
            check_views(&game, &[], true);
            let rest = data.get(end + 1..).unwrap_or(&[]);
            play_loaded(&mut game, &mut Unstructured::new(rest));
        }
        return;
    }
    let text = String::from_utf8_lossy(data);
    let _ = Game::load(&text);
    let mut u = Unstructured::new(data);
    let (Ok(choice), Ok(seed)) = (u.arbitrary::<u8>(), u.arbitrary::<u16>()) else {
        return;
    };
    let mut game =
        Game::new(&preset_setup(choice, seed as u64)).expect("every preset setup is valid");
    round_trip(&game);
    play_real(&mut game, &mut u);
}
