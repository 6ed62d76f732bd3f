//! The reserve's fighters in the terminal: the player chooses their
//! cells on the own field, and the engine lands them exactly there.

use std::collections::BTreeMap;

use broadside_engine::{
    label, Cell, Command, Game, Options, Phase, Preset, Setup, Size, Target, RESERVE_FIGHTERS,
};
use broadside_tui::{App, Config, Msg};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn press(app: &mut App, code: KeyCode) {
    app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn typ(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// A space duel where seat 0 owns the station, played on (both sides firing
/// in reading order) until seat 0 is to move with its reserve ready.
fn game_with_the_reserve_ready() -> Game {
    let setup = Setup {
        preset: Preset::Space,
        seats: 2,
        seed: 3,
        options: Options::default(),
        teams: None,
    };
    let mut game = Game::new(&setup).expect("space sets up");
    let mut station_fleet: BTreeMap<String, u32> = broadside_ai::default_purchase(game.rules());
    station_fleet.remove("dreadnought");
    station_fleet.insert("station".to_string(), 1);
    game.apply(Command::Buy {
        seat: 0,
        ships: station_fleet,
    })
    .expect("the station fleet is affordable");
    let default = broadside_ai::default_purchase(game.rules());
    game.apply(Command::Buy {
        seat: 1,
        ships: default,
    })
    .expect("the default fleet is affordable");
    for seat in 0..2 {
        game.apply(Command::PlaceRandom { seat }).expect("places");
    }
    for _ in 0..500 {
        let view = game.view(Some(0));
        assert_eq!(view.phase, Phase::Battle, "the game must still run");
        let ready = view.abilities.get("reserve").is_some_and(|a| a.ready);
        if view.to_move == [0] && ready {
            return game;
        }
        let seat = game.view(None).to_move[0];
        let foe = 1 - seat;
        let seen = game.view(Some(seat));
        let rows = &seen.boards[foe].rows;
        let at = rows
            .iter()
            .enumerate()
            .find_map(|(r, row)| {
                row.chars()
                    .position(|ch| ch == '~')
                    .map(|c| Cell::new(c as u16, r as u16))
            })
            .expect("an unknown cell is left");
        game.apply(Command::Fire {
            seat,
            target: Target { board: foe, at },
        })
        .expect("a shot at an unknown cell is legal");
    }
    panic!("the reserve never became ready");
}

/// Empty, unshot cells of the own field away from every ship and from each
/// other (R-7.9 with ).
fn free_cells(rows: &[String], count: usize) -> Vec<Cell> {
    let size = Size::new(rows[0].chars().count() as u16, rows.len() as u16);
    let at = |c: i32, r: i32| -> char {
        if c < 0 || r < 0 || c >= size.cols as i32 || r >= size.rows as i32 {
            return '~';
        }
        rows[r as usize].chars().nth(c as usize).unwrap_or('~')
    };
    let mut chosen: Vec<Cell> = Vec::new();
    for cell in size.cells() {
        let (c, r) = (cell.col as i32, cell.row as i32);
        let clear = (-1..=1).all(|dr| (-1..=1).all(|dc| at(c + dc, r + dr) == '~'));
        let apart = chosen
            .iter()
            .all(|o| (o.col as i32 - c).abs() > 1 || (o.row as i32 - r).abs() > 1);
        if clear && apart {
            chosen.push(cell);
            if chosen.len() == count {
                break;
            }
        }
    }
    chosen
}

#[test]
fn the_player_chooses_where_the_reserve_lands() {
    let game = game_with_the_reserve_ready();
    let dir = std::env::temp_dir().join(format!("broadside-tui-reserve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("space.json");
    let save = serde_json::json!({
        "broadside_terminal": 1,
        "seat": 0,
        "bots": [null, "medium"],
        "game": game.save(),
    });
    std::fs::write(&path, save.to_string()).expect("the save is written");
    let mut app = App::new(
        Config {
            load: Some(path),
            seed: Some(5),
            ..Config::default()
        },
        None,
    );
    let view = app
        .play
        .as_ref()
        .and_then(|p| p.view.clone())
        .expect("loaded");
    let cells = free_cells(&view.boards[0].rows, RESERVE_FIGHTERS);
    assert_eq!(cells.len(), RESERVE_FIGHTERS);
    let afloat_before = view.ships_afloat.get(&0).copied().unwrap_or(0);

    // Choose the reserve among the ready abilities, then its cells.
    for _ in 0..4 {
        if app.play.as_ref().and_then(|p| p.action).map(|k| k.id()) == Some("reserve") {
            break;
        }
        press(&mut app, KeyCode::Char('a'));
    }
    press(&mut app, KeyCode::Enter);
    let play = app.play.as_ref().expect("playing");
    assert!(play.reserve.is_some(), "Enter starts choosing the cells");
    assert_eq!(play.target, 0, "the cursor moves to the own field");
    let axis = view.letter_axis;
    for (i, &cell) in cells.iter().enumerate() {
        typ(&mut app, &format!(":{}", label(axis, cell)));
        press(&mut app, KeyCode::Enter);
        if i + 1 < cells.len() {
            let pick = app.play.as_ref().and_then(|p| p.reserve.clone());
            assert_eq!(pick.map(|p| p.cells.len()), Some(i + 1));
        }
    }

    // The third cell sends the reserve: the engine placed the fighters there.
    let play = app.play.as_ref().expect("playing");
    assert!(play.reserve.is_none(), "{:?}", app.notice);
    assert_ne!(play.target, 0, "the cursor is back on the opponent");
    let after = play.view.as_ref().expect("a view");
    let own = &after.boards[0];
    for &cell in &cells {
        assert_eq!(own.at(cell), '*', "a fighter at {}", label(axis, cell));
    }
    assert_eq!(
        after.ships_afloat.get(&0).copied().unwrap_or(0),
        afloat_before + RESERVE_FIGHTERS as u32
    );
    assert!(!after.abilities["reserve"].ready, "the reserve was used");
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}
