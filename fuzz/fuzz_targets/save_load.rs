//! Saves. Any input, read as UTF-8 (lossy), goes to `Game::load`, which must
//! refuse or accept it without panicking; and a real game, chosen and played a
//! few commands deep by the same input (as in `engine_commands`), must load
//! from its own save into a game that saves to the very same string.

#![no_main]

use arbitrary::Unstructured;
use broadside_engine::Game;
use broadside_fuzz::{command, preset_setup, Table};
use libfuzzer_sys::fuzz_target;

/// Commands played before the game is saved.
const COMMANDS: usize = 60;

fn round_trip(game: &Game) {
    let saved = game.save();
    let loaded = Game::load(&saved).expect("a game loads from its own save");
    assert_eq!(loaded.save(), saved, "a loaded game saves as it was saved");
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(game) = Game::load(&text) {
        round_trip(&game);
    }

    let mut u = Unstructured::new(data);
    let (Ok(choice), Ok(seed)) = (u.arbitrary::<u8>(), u.arbitrary::<u16>()) else {
        return;
    };
    let mut game =
        Game::new(&preset_setup(choice, seed as u64)).expect("every preset setup is valid");
    let table = Table::of(&game);
    round_trip(&game);
    for _ in 0..COMMANDS {
        let Ok(command) = command(&mut u, &game, &table) else {
            break;
        };
        if game.apply(command).is_ok() {
            round_trip(&game);
        }
    }
});
