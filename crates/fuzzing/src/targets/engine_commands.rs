//! Engine commands on a real game. The first byte chooses the game (see
//! `preset_setup`: every preset, salvo rounds with 3 to 6 seats, teams, the
//! brasil hard rule, specials, practice), the next two its seed; the rest is a
//! sequence of commands (raw ones with any fields, and ones built from the cells
//! the engine says are targetable, which carry games to their end) and of the
//! read-only queries the server answers between commands. After every refusal
//! the saved game must equal the saved game before it; after every accepted
//! command every view and every seat's events must serialize.

use crate::{
    check_views, command, milestone, preset_setup, query, RefusalCheck, Table, MAX_COMMANDS,
};
use arbitrary::Unstructured;
use broadside_engine::Game;

/// The target's body: see the module's documentation.
pub fn engine_commands(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(choice), Ok(seed)) = (u.arbitrary::<u8>(), u.arbitrary::<u16>()) else {
        return;
    };
    let setup = preset_setup(choice, seed as u64);
    let mut game = Game::new(&setup).expect("every preset setup is valid");
    let table = Table::of(&game);
    check_views(&game, &[], true);
    let mut check = RefusalCheck::default();
    for _ in 0..MAX_COMMANDS {
        let Ok(op) = u.arbitrary::<u8>() else {
            break;
        };
        if op < 0x18 {
            if query(&mut u, &game, &table).is_err() {
                break;
            }
            continue;
        }
        let Ok(command) = command(&mut u, &game, &table) else {
            break;
        };
        if let Some(events) = check.apply(&mut game, command) {
            check_views(&game, &events, milestone(&events));
        }
    }
    check_views(&game, &[], true);
}
