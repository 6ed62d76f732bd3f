//! `Game::new` on any setup. The input is either a JSON `Setup` on its first line
//! (when it starts with `{`) or a setup built field by field from the input bytes
//! (structured, with values clustered around the limits of `Rules::resolve`). An
//! accepted setup must give a game in which every seat can buy (space) and place
//! at random; the rest of the input is then played as commands, and every view
//! must serialize. Nothing may panic, allocate absurdly or run for long.

use crate::{check_views, command, milestone, purchase, RefusalCheck, Table};
use arbitrary::{Result, Unstructured};
use broadside_engine::{
    Command, CustomShip, Game, Options, Phase, Preset, Report, SalvoMode, Setup,
};

/// Commands played after the setup; a handful is enough here.
const COMMANDS: usize = 40;

fn small_u32(u: &mut Unstructured) -> Result<u32> {
    Ok(match u.arbitrary::<u8>()? {
        b @ 0..=0xcf => (b % 32) as u32,
        0xd0..=0xdf => [
            0, 1, 2, 3, 9, 10, 11, 20, 21, 40, 41, 299, 300, 4999, 5000, 5001,
        ][u.arbitrary::<u8>()? as usize % 16],
        0xe0..=0xef => [86_399, 86_400, 86_401, u32::MAX, u32::MAX - 1, 1 << 31]
            [u.arbitrary::<u8>()? as usize % 6],
        _ => u.arbitrary()?,
    })
}

fn small_u16(u: &mut Unstructured) -> Result<u16> {
    Ok(match u.arbitrary::<u8>()? {
        b @ 0..=0xef => (b % 32) as u16,
        _ => u.arbitrary()?,
    })
}

fn maybe<T>(
    u: &mut Unstructured,
    value: impl FnOnce(&mut Unstructured) -> Result<T>,
) -> Result<Option<T>> {
    Ok(if u.arbitrary()? {
        Some(value(u)?)
    } else {
        None
    })
}

fn ship_id(u: &mut Unstructured) -> Result<String> {
    Ok(match u.arbitrary::<u8>()? {
        b @ 0..=0xdf => ["a", "b", "c", "long", "x-1", "y_2", "battleship", "cruiser"]
            [b as usize % 8]
            .to_string(),
        0xe0..=0xe7 => String::new(),
        0xe8..=0xef => "z".repeat(24 + (u.arbitrary::<u8>()? % 3) as usize),
        _ => u.arbitrary::<&str>()?.to_string(),
    })
}

fn structured(u: &mut Unstructured) -> Result<Setup> {
    let preset = Preset::ALL[u.arbitrary::<u8>()? as usize % Preset::ALL.len()];
    let seats = match u.arbitrary::<u8>()? {
        b @ 0..=0xef => (b % 8) as usize,
        _ => u.arbitrary()?,
    };
    let options = Options {
        water_ring: maybe(u, |u| u.arbitrary())?,
        hit_again: maybe(u, |u| u.arbitrary())?,
        salvo: maybe(u, |u| {
            Ok(if u.arbitrary()? {
                SalvoMode::Spread
            } else {
                SalvoMode::Focus
            })
        })?,
        shots_per_opponent: maybe(u, small_u32)?,
        credits: maybe(u, small_u32)?,
        report: maybe(u, |u| {
            Ok(if u.arbitrary()? {
                Report::PerShot
            } else {
                Report::PerVolley
            })
        })?,
        specials: maybe(u, |u| u.arbitrary())?,
        wide_uses: maybe(u, small_u32)?,
        bombard_uses: maybe(u, small_u32)?,
        radar_uses: maybe(u, small_u32)?,
        ships_may_touch: maybe(u, |u| u.arbitrary())?,
        cols: maybe(u, small_u16)?,
        rows: maybe(u, small_u16)?,
        fleet: maybe(u, |u| {
            let n = u.int_in_range(0..=12)?;
            (0..n)
                .map(|_| {
                    Ok(CustomShip {
                        id: ship_id(u)?,
                        len: small_u16(u)?,
                        count: small_u32(u)?,
                    })
                })
                .collect()
        })?,
        first: maybe(u, |u| Ok(small_u32(u)? as usize))?,
        shots_per_turn: maybe(u, small_u32)?,
        max_shots_per_turn: maybe(u, small_u32)?,
        turn_seconds: maybe(u, small_u32)?,
        round_seconds: maybe(u, small_u32)?,
        place_seconds: maybe(u, small_u32)?,
        shop_seconds: maybe(u, small_u32)?,
        spectators_see_all: maybe(u, |u| u.arbitrary())?,
        practice: maybe(u, |u| u.arbitrary())?,
    };
    let teams = maybe(u, |u| {
        let n = u.int_in_range(0..=8)?;
        (0..n).map(|_| Ok(small_u32(u)? % 4)).collect()
    })?;
    Ok(Setup {
        preset,
        seats,
        seed: u.arbitrary()?,
        options,
        teams,
    })
}

fn play(setup: &Setup, rest: &[u8]) {
    let Ok(mut game) = Game::new(setup) else {
        return;
    };
    let table = Table::of(&game);
    let mut u = Unstructured::new(rest);
    let seats = game.seat_count();
    check_views(&game, &[], true);
    if game.phase() == Phase::Shop {
        for seat in 0..seats {
            if let Ok(ships) = purchase(&mut u, &game) {
                let _ = game.apply(Command::Buy { seat, ships });
            }
        }
        if game.phase() == Phase::Shop {
            // Every empty shop buys the default fleet.
            game.apply(Command::Timeout)
                .expect("a timeout in the shop is always accepted");
        }
        assert_eq!(game.phase(), Phase::Placement, "a timeout ends the shop");
    }
    for seat in 0..seats {
        if let Err(e) = game.apply(Command::PlaceRandom { seat }) {
            panic!("seat {seat} of an accepted setup cannot place at random: {e}");
        }
    }
    assert_eq!(
        game.phase(),
        Phase::Battle,
        "every seat placed, so the battle starts"
    );
    check_views(&game, &[], true);
    let mut check = RefusalCheck::default();
    for _ in 0..COMMANDS {
        if u.is_empty() {
            break;
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

/// The target's body: see the module's documentation.
pub fn engine_setup(data: &[u8]) {
    if data.first() == Some(&b'{') {
        let end = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
        if let Ok(setup) = serde_json::from_slice::<Setup>(&data[..end]) {
            play(&setup, data.get(end + 1..).unwrap_or(&[]));
        }
    } else {
        let mut u = Unstructured::new(data);
        if let Ok(setup) = structured(&mut u) {
            let rest = u.take_rest();
            play(&setup, rest);
        }
    }
}
