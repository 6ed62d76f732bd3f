//! Reads every frame sent to each seat (and to a spectator) during whole games
//! and checks that none holds anything that viewer may not know; then replays
//! the stored log through the engine and checks that every state frame is
//! exactly the engine's view (and filtered events) for that viewer.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use broadside_engine::{Command, Game, Setup};
use common::*;
use serde_json::{json, Value};

/// How a test client plays.
#[derive(Clone, Copy)]
struct Style {
    /// Use the radar special on the first battle move (italia).
    radar_first: bool,
}

/// The targetable cells (`~`, and `!` found by a scan) of each opponent, grouped per opponent.
fn target_groups(view: &Value) -> Vec<Vec<Value>> {
    let me = view["seat"].as_u64().expect("a seat's view");
    let rows_of = |board: &Value| -> Vec<String> {
        board["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect()
    };
    if view["mode"] == "shared_sea" {
        let rows = rows_of(&view["boards"][0]);
        let size = &view["board_size"];
        let (cols, height) = (
            size["cols"].as_u64().unwrap(),
            size["rows"].as_u64().unwrap(),
        );
        return view["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| {
                let mate = b["owner"].as_u64().is_some_and(|o| {
                    view["seats"][o as usize]["team"] == view["seats"][me as usize]["team"]
                });
                b["empty"] == false && b["eliminated"] == false && !mate
            })
            .map(|b| {
                let (c0, r0) = (
                    b["origin"][0].as_u64().unwrap(),
                    b["origin"][1].as_u64().unwrap(),
                );
                let mut cells = Vec::new();
                for r in r0..r0 + height {
                    for c in c0..c0 + cols {
                        if matches!(rows[r as usize].as_bytes()[c as usize], b'~' | b'!') {
                            cells.push(json!({"board": 0, "at": [c, r]}));
                        }
                    }
                }
                cells
            })
            .collect();
    }
    view["boards"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| {
            let owner = b["owner"].as_u64().unwrap();
            let mate = view["seats"][owner as usize]["team"] == view["seats"][me as usize]["team"];
            !mate && view["seats"][owner as usize]["alive"] == true
        })
        .map(|b| {
            let owner = b["owner"].as_u64().unwrap();
            let mut cells = Vec::new();
            for (r, row) in rows_of(b).iter().enumerate() {
                for (c, ch) in row.chars().enumerate() {
                    if ch == '~' || ch == '!' {
                        cells.push(json!({"board": owner, "at": [c, r]}));
                    }
                }
            }
            cells
        })
        .collect()
}

/// The next command of a simple player.
fn next_command(state: &Value, room: &Value, style: Style, used_radar: &mut bool) -> Value {
    let view = &state["view"];
    match phase(state) {
        "shop" => {
            json!({"cmd": "buy", "ships": {"lancer": 1, "spirit": 1, "cruiser": 1, "scout": 1, "fighter": 2}})
        }
        "placement" => json!({"cmd": "place_random"}),
        _ => {
            let groups = target_groups(view);
            if view["salvo_round"] == true {
                let per = room["room"]["rules"]["shots_per_opponent"]
                    .as_u64()
                    .unwrap() as usize;
                let shots: Vec<Value> = groups
                    .iter()
                    .flat_map(|g| g.iter().take(per).cloned())
                    .collect();
                return json!({"cmd": "salvo", "shots": shots, "action": null});
            }
            let rules = &room["room"]["rules"];
            if rules["report"] == "per_volley" {
                let count = rules["shots_per_turn"].as_u64().unwrap() as usize;
                let cells: Vec<Value> = groups
                    .iter()
                    .flatten()
                    .take(count)
                    .map(|t| t["at"].clone())
                    .collect();
                return json!({"cmd": "volley", "cells": cells});
            }
            let target = groups
                .iter()
                .flatten()
                .next()
                .expect("a target is left")
                .clone();
            if style.radar_first && !*used_radar && view["abilities"]["radar"]["ready"] == true {
                *used_radar = true;
                return json!({"cmd": "ability", "action": {"kind": "radar", "board": target["board"], "center": [5, 5]}});
            }
            json!({"cmd": "fire", "target": target})
        }
    }
}

async fn play(client: &mut Client, style: Style) -> Value {
    let mut used_radar = false;
    loop {
        let state = client
            .state_until(|s| my_move(s) || phase(s) == "finished")
            .await;
        if phase(&state) == "finished" {
            return state;
        }
        let me = state["view"]["seat"].clone();
        let room = client.room.clone().expect("the client is in a room");
        let command = next_command(&state, &room, style, &mut used_radar);
        client.command(command).await;
        client.state = None;
        loop {
            let state = client.expect("state").await;
            if moved_by(&state, &me) || phase(&state) == "finished" {
                break;
            }
        }
    }
}

/// Every key anywhere in a JSON value.
fn keys(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                out.insert(key.clone());
                keys(inner, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|inner| keys(inner, out)),
        _ => {}
    }
}

/// Whether `cell` of the view's boards lies in waters the viewer may see.
fn own_waters(view: &Value, board: &Value, col: u64, row: u64) -> bool {
    let Some(me) = view["seat"].as_u64() else {
        return false;
    };
    let team = &view["seats"][me as usize]["team"];
    match board["owner"].as_u64() {
        Some(owner) => view["seats"][owner as usize]["team"] == *team,
        None => view["blocks"].as_array().unwrap().iter().any(|b| {
            let known = b["owner"]
                .as_u64()
                .is_some_and(|o| view["seats"][o as usize]["team"] == *team);
            let (c0, r0) = (
                b["origin"][0].as_u64().unwrap(),
                b["origin"][1].as_u64().unwrap(),
            );
            let size = &view["board_size"];
            known
                && (c0..c0 + size["cols"].as_u64().unwrap()).contains(&col)
                && (r0..r0 + size["rows"].as_u64().unwrap()).contains(&row)
        }),
    }
}

/// Checks every frame one viewer received; returns how many states it checked.
fn check_frames(frames: &[Value], spectator: bool) -> usize {
    let mut my_scans: BTreeSet<(u64, u64, u64)> = BTreeSet::new();
    let mut states = 0;
    for frame in frames {
        let mut all_keys = BTreeSet::new();
        keys(frame, &mut all_keys);
        for secret in ["seed", "rng", "token_hash", "truth"] {
            assert!(!all_keys.contains(secret), "'{secret}' in {frame}");
        }
        if frame["type"] != "state" {
            continue;
        }
        states += 1;
        let view = &frame["view"];
        let me = view["seat"].as_u64();
        assert_eq!(me.is_none(), spectator);
        for event in frame["events"].as_array().unwrap() {
            match event["event"].as_str().unwrap() {
                "scan" => {
                    assert_eq!(event["seat"].as_u64(), me, "another seat's scan: {event}");
                    for cell in event["cells"].as_array().unwrap() {
                        let at = &cell["at"];
                        my_scans.insert((
                            event["board"].as_u64().unwrap(),
                            at[0].as_u64().unwrap(),
                            at[1].as_u64().unwrap(),
                        ));
                    }
                }
                "reinforced" if event["seat"].as_u64() != me => {
                    assert!(
                        event.get("cells").is_none(),
                        "another seat's reserve cells: {event}"
                    );
                }
                _ => {}
            }
        }
        if view["full_vision"] == true {
            // Full vision only at the end or once eliminated.
            let eliminated = me.is_some_and(|s| view["seats"][s as usize]["alive"] == false);
            assert!(
                phase(frame) == "finished" || eliminated,
                "full vision too early: {view}"
            );
            continue;
        }
        for ship in view["ships"].as_array().unwrap() {
            let owner = ship["owner"].as_u64().unwrap();
            let visible = me.is_some_and(|s| {
                view["seats"][s as usize]["team"] == view["seats"][owner as usize]["team"]
            });
            assert!(
                visible || ship["sunk"] == true,
                "an afloat ship of seat {owner} shown to {me:?}: {ship}"
            );
        }
        if !spectator && view["mode"] == "space" {
            for seat in view["seats"].as_array().unwrap() {
                let own = seat["team"] == view["seats"][me.unwrap() as usize]["team"];
                assert!(
                    own || seat.get("fleet").is_none(),
                    "a space fleet leaked (R-7.4): {seat}"
                );
            }
        }
        if spectator {
            assert_eq!(view["abilities"], json!({}));
        }
        for (index, board) in view["boards"].as_array().unwrap().iter().enumerate() {
            for (row, line) in board["rows"].as_array().unwrap().iter().enumerate() {
                for (col, ch) in line.as_str().unwrap().chars().enumerate() {
                    let (col, row) = (col as u64, row as u64);
                    if own_waters(view, board, col, row) {
                        continue;
                    }
                    assert_ne!(
                        ch, '*',
                        "an intact ship part at {col},{row} of board {index} shown to {me:?}"
                    );
                    if ch == '!' || ch == '-' {
                        assert!(
                            my_scans.contains(&(index as u64, col, row)),
                            "a scan mark not from the viewer's scans"
                        );
                    }
                }
            }
        }
    }
    states
}

/// The stored setup and commands of a room's current game.
fn stored_game(db: &Path, code: &str) -> (Setup, Vec<Command>) {
    let (setup, commands) = stored_game_rows(db, code);
    let commands = commands
        .iter()
        .map(|c| serde_json::from_str(c).unwrap())
        .collect();
    (serde_json::from_str(&setup).unwrap(), commands)
}

/// Replays the log and checks that each viewer's state frames are exactly the
/// engine's view and filtered events after each command.
fn check_against_engine(db: &Path, code: &str, viewers: &[(&Client, Option<usize>)]) {
    let (setup, commands) = stored_game(db, code);
    let mut game = Game::new(&setup).unwrap();
    let mut expected: Vec<Vec<(Value, Value)>> = viewers
        .iter()
        .map(|&(_, seat)| vec![(serde_json::to_value(game.view(seat)).unwrap(), json!([]))])
        .collect();
    for command in commands {
        let events = game.apply(command).unwrap();
        for (index, &(_, seat)) in viewers.iter().enumerate() {
            expected[index].push((
                serde_json::to_value(game.view(seat)).unwrap(),
                serde_json::to_value(game.events_for(seat, &events)).unwrap(),
            ));
        }
    }
    assert_eq!(game.phase(), broadside_engine::Phase::Finished);
    for (index, &(client, _)) in viewers.iter().enumerate() {
        let got: Vec<(Value, Value)> = client
            .frames
            .iter()
            .filter(|f| f["type"] == "state")
            .map(|f| (f["view"].clone(), f["events"].clone()))
            .collect();
        assert_eq!(
            got.len(),
            expected[index].len(),
            "one state per accepted command"
        );
        for (step, (got, want)) in got.iter().zip(&expected[index]).enumerate() {
            assert_eq!(got, want, "viewer {index}, step {step}");
        }
    }
}

async fn whole_game(create: Value, humans: usize, style: Style) {
    let (_dir, db) = temp_db();
    let server = TestServer::start(&db).await;
    let mut ana = server.person("Ana").await;
    let code = ana.create(create).await;
    let mut others = Vec::new();
    for n in 1..humans {
        let mut client = server.person(&format!("P{n}")).await;
        client.join(&code, "player").await;
        others.push(client);
    }
    let mut watcher = server.person("Watcher").await;
    watcher.join(&code, "spectator").await;
    ana.send(json!({"type": "start"})).await;

    let mut players: Vec<&mut Client> = vec![&mut ana];
    players.extend(others.iter_mut());
    let games = players.into_iter().map(|client| play(client, style));
    let ends = futures_util::future::join_all(games).await;
    let winners = &ends[0]["view"]["winner"];
    assert!(ends.iter().all(|end| end["view"]["winner"] == *winners));
    watcher.state_until(|s| phase(s) == "finished").await;

    if style.radar_first {
        let scanned = |client: &Client| {
            client.frames.iter().any(|f| {
                f["events"]
                    .as_array()
                    .is_some_and(|e| e.iter().any(|e| e["event"] == "scan"))
            })
        };
        assert!(
            scanned(&ana) && others.iter().all(scanned),
            "every player used the radar"
        );
        assert!(!scanned(&watcher), "a spectator sees no private scan");
    }
    let mut checked = check_frames(&ana.frames, false);
    for other in &others {
        checked += check_frames(&other.frames, false);
    }
    checked += check_frames(&watcher.frames, true);
    assert!(
        checked > 20,
        "whole games were inspected ({checked} states)"
    );

    let mut viewers: Vec<(&Client, Option<usize>)> = vec![(&ana, Some(0)), (&watcher, None)];
    for (n, other) in others.iter().enumerate() {
        viewers.push((other, Some(n + 1)));
    }
    check_against_engine(&db, &code, &viewers);
    server.stop().await;
}

fn untimed(mut options: Value) -> Value {
    for timer in [
        "turn_seconds",
        "place_seconds",
        "round_seconds",
        "shop_seconds",
    ] {
        options[timer] = json!(0);
    }
    options
}

#[tokio::test]
async fn italia_duel_with_radars_leaks_nothing() {
    whole_game(
        json!({"preset": "italia", "options": untimed(json!({}))}),
        2,
        Style { radar_first: true },
    )
    .await;
}

#[tokio::test]
async fn classic_three_seat_salvo_game_with_a_bot_leaks_nothing() {
    whole_game(
        json!({"preset": "classic", "seats": 3, "options": untimed(json!({})), "bots": [{"seat": 2, "level": "easy"}]}),
        2,
        Style { radar_first: false },
    )
    .await;
}

#[tokio::test]
async fn shared_sea_game_hides_block_owners_and_ships() {
    whole_game(
        json!({"preset": "shared", "seats": 3, "options": untimed(json!({})), "bots": [{"seat": 2, "level": "medium"}]}),
        2,
        Style { radar_first: false },
    )
    .await;
}

#[tokio::test]
async fn space_battle_hides_fleets_until_sunk() {
    whole_game(
        json!({"preset": "space", "seats": 2, "options": untimed(json!({}))}),
        2,
        Style { radar_first: false },
    )
    .await;
}

#[tokio::test]
async fn brasil_easy_rule_duel_leaks_nothing() {
    whole_game(
        json!({"preset": "brasil", "options": untimed(json!({}))}),
        2,
        Style { radar_first: false },
    )
    .await;
}

#[tokio::test]
async fn brasil_hard_rule_volleys_against_a_bot_leak_nothing() {
    whole_game(
        json!({"preset": "brasil", "options": untimed(json!({"report": "per_volley"})), "bots": [{"seat": 1, "level": "hard"}]}),
        1,
        Style { radar_first: false },
    )
    .await;
}

#[tokio::test]
async fn six_seats_in_two_teams_leak_nothing_across_teams() {
    let bots: Vec<Value> = (2..6)
        .map(|seat| json!({"seat": seat, "level": "easy"}))
        .collect();
    whole_game(
        json!({"preset": "classic", "seats": 6, "teams": [0, 1, 0, 1, 0, 1], "options": untimed(json!({})), "bots": bots}),
        2,
        Style { radar_first: false },
    )
    .await;
}
