//! The referee: the machine interface of docs/referee.md (`broadside referee`).
//! One JSON command per line in, one JSON answer per line out, for one game
//! with no clock and no randomness beyond the game's seed.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use broadside_engine::{
    Action, Cell, Command, End, Event, Game, Line, Mode, Options, Phase, Placement, Preset,
    RuleError, Setup, Target,
};
use serde_json::{json, Map, Value};

/// A refused line: the code of docs/referee.md and a message for people.
struct Refusal {
    code: &'static str,
    message: String,
}

impl From<RuleError> for Refusal {
    fn from(error: RuleError) -> Self {
        Refusal {
            code: error.code(),
            message: error.to_string(),
        }
    }
}

fn bad(message: impl Into<String>) -> Refusal {
    Refusal {
        code: "bad_command",
        message: message.into(),
    }
}

/// Reads commands from `input` until its end and writes one answer per line.
pub fn run(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut referee = Referee::default();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = referee.answer(&line);
        serde_json::to_writer(&mut output, &answer)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}

/// The referee's state: at most one game.
#[derive(Default)]
pub struct Referee {
    game: Option<Game>,
}

impl Referee {
    /// The answer to one line.
    pub fn answer(&mut self, line: &str) -> Value {
        match self.handle(line) {
            Ok(mut answer) => {
                let mut out = Map::new();
                out.insert("ok".into(), Value::Bool(true));
                out.append(&mut answer);
                Value::Object(out)
            }
            Err(refusal) => json!({
                "ok": false,
                "error": {"code": refusal.code, "message": refusal.message},
            }),
        }
    }

    fn handle(&mut self, line: &str) -> Result<Map<String, Value>, Refusal> {
        let value: Value = serde_json::from_str(line).map_err(|e| Refusal {
            code: "bad_json",
            message: format!("not a JSON line: {e}"),
        })?;
        let Some(object) = value.as_object() else {
            return Err(Refusal {
                code: "bad_json",
                message: "a command is a JSON object".into(),
            });
        };
        let cmd = object.get("cmd").and_then(Value::as_str).unwrap_or("");
        const KNOWN: [&str; 13] = [
            "new", "buy", "place", "fire", "volley", "ability", "salvo", "timeout", "view",
            "state", "save", "load", "resign",
        ];
        if !KNOWN.contains(&cmd) {
            return Err(Refusal {
                code: "unknown_cmd",
                message: format!("unknown command '{cmd}'"),
            });
        }
        let fields = Fields(object);
        match cmd {
            "new" => return self.new_game(&fields),
            "load" => {
                let saved = fields.str("saved")?;
                let game = Game::load(saved)?;
                let phase = game.phase();
                self.game = Some(game);
                return Ok(obj(json!({"phase": phase})));
            }
            _ => {}
        }
        let Some(game) = self.game.as_mut() else {
            return Err(Refusal {
                code: "no_game",
                message: "start a game with new or load first".into(),
            });
        };
        match cmd {
            "view" => {
                let seat = match object.get("seat") {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(fields.seat()?),
                };
                if let Some(seat) = seat {
                    if seat >= game.seat_count() {
                        return Err(bad(format!("there is no seat {seat}")));
                    }
                }
                Ok(obj(json!({"view": game.view(seat)})))
            }
            "state" => Ok(obj(
                serde_json::to_value(game.status()).expect("status is plain data")
            )),
            "save" => Ok(obj(json!({"saved": game.save()}))),
            _ => {
                let (actor, command) = parse_command(cmd, &fields, game)?;
                let events = game.apply(command)?;
                Ok(describe(game, cmd, actor, &events))
            }
        }
    }

    fn new_game(&mut self, fields: &Fields) -> Result<Map<String, Value>, Refusal> {
        let preset_id = fields.opt_str("preset")?.unwrap_or("classic");
        let preset = Preset::from_id(preset_id)
            .ok_or_else(|| bad(format!("unknown preset '{preset_id}'")))?;
        let seats = match fields.0.get("seats") {
            None => 2,
            Some(v) => v.as_u64().ok_or_else(|| bad("seats must be a number"))? as usize,
        };
        let seed = match fields.0.get("seed") {
            None => 0,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| bad("seed must be a non-negative integer"))?,
        };
        let options: Options = match fields.0.get("options") {
            None | Some(Value::Null) => Options::default(),
            Some(v) => {
                serde_json::from_value(v.clone()).map_err(|e| bad(format!("options: {e}")))?
            }
        };
        let teams: Option<Vec<u32>> = match fields.0.get("teams") {
            None | Some(Value::Null) => None,
            Some(v) => {
                Some(serde_json::from_value(v.clone()).map_err(|e| bad(format!("teams: {e}")))?)
            }
        };
        let game = Game::new(&Setup {
            preset,
            seats,
            seed,
            options,
            teams,
        })?;
        let phase = game.phase();
        self.game = Some(game);
        Ok(obj(json!({"phase": phase})))
    }
}

fn obj(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Typed access to a command's fields, refusing malformed ones as `bad_command`.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn get(&self, key: &str) -> Result<&Value, Refusal> {
        self.0
            .get(key)
            .ok_or_else(|| bad(format!("missing field '{key}'")))
    }

    fn str(&self, key: &str) -> Result<&str, Refusal> {
        self.get(key)?
            .as_str()
            .ok_or_else(|| bad(format!("'{key}' must be a string")))
    }

    fn opt_str(&self, key: &str) -> Result<Option<&str>, Refusal> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_str()
                .map(Some)
                .ok_or_else(|| bad(format!("'{key}' must be a string"))),
        }
    }

    fn index(&self, key: &str) -> Result<usize, Refusal> {
        index_value(self.get(key)?)
            .ok_or_else(|| bad(format!("'{key}' must be a non-negative integer")))
    }

    fn seat(&self) -> Result<usize, Refusal> {
        self.index("seat")
    }

    fn cell(&self, key: &str) -> Result<Cell, Refusal> {
        cell_value(self.get(key)?).ok_or_else(|| bad(format!("'{key}' must be a cell [col, row]")))
    }

    fn cells(&self, key: &str) -> Result<Vec<Cell>, Refusal> {
        let list = self
            .get(key)?
            .as_array()
            .ok_or_else(|| bad(format!("'{key}' must be a list of cells")))?;
        list.iter()
            .map(|v| {
                cell_value(v)
                    .ok_or_else(|| bad(format!("'{key}' must be a list of cells [col, row]")))
            })
            .collect()
    }

    /// The board of a target: required in fleet duel and space, left out (0) in
    /// the shared sea.
    fn board(&self, game: &Game) -> Result<usize, Refusal> {
        match self.0.get("board") {
            None | Some(Value::Null) if game.rules().mode == Mode::SharedSea => Ok(0),
            _ => self.index("board"),
        }
    }
}

fn index_value(value: &Value) -> Option<usize> {
    value.as_u64().map(|n| n.min(u32::MAX as u64) as usize)
}

/// A cell `[col, row]`. Coordinates off the board (negative or huge) become a
/// cell the engine refuses as `out_of_bounds`, in the order docs/referee.md gives.
fn cell_value(value: &Value) -> Option<Cell> {
    let pair = value.as_array()?;
    if pair.len() != 2 {
        return None;
    }
    let coordinate = |v: &Value| -> Option<u16> {
        if let Some(n) = v.as_u64() {
            Some(n.min(u16::MAX as u64) as u16)
        } else if v.as_i64().is_some() {
            Some(u16::MAX)
        } else {
            None
        }
    };
    Some(Cell::new(coordinate(&pair[0])?, coordinate(&pair[1])?))
}

fn parse_action(
    kind: &str,
    fields: &Fields,
    game: &Game,
    in_salvo: bool,
) -> Result<Action, Refusal> {
    let board = |fields: &Fields| fields.board(game);
    Ok(match kind {
        "laser" => {
            let from = match fields.str("from")? {
                "top" => End::Top,
                "bottom" => End::Bottom,
                other => return Err(bad(format!("from must be top or bottom, not '{other}'"))),
            };
            Action::Laser {
                board: board(fields)?,
                column: coordinate_of(fields, "column")?,
                from,
            }
        }
        "scanner" => Action::Scanner {
            board: board(fields)?,
            center: fields.cell("center")?,
        },
        "nuke" => Action::Nuke {
            board: board(fields)?,
            at: fields.cell("at")?,
        },
        "reserve" => Action::Reserve {
            board: if in_salvo { Some(board(fields)?) } else { None },
            cells: match fields.0.get("cells") {
                None | Some(Value::Null) => None,
                Some(_) => Some(fields.cells("cells")?),
            },
        },
        "wide" => Action::Wide {
            board: board(fields)?,
            center: fields.cell("center")?,
        },
        "radar" => Action::Radar {
            board: board(fields)?,
            center: fields.cell("center")?,
        },
        "bombard" => {
            let row = fields.0.get("row").filter(|v| !v.is_null());
            let column = fields.0.get("column").filter(|v| !v.is_null());
            let line = match (row, column) {
                (Some(_), None) => Line::Row(coordinate_of(fields, "row")?),
                (None, Some(_)) => Line::Column(coordinate_of(fields, "column")?),
                _ => return Err(bad("a bombardment takes exactly one of row and column")),
            };
            Action::Bombard {
                board: board(fields)?,
                line,
            }
        }
        other => return Err(bad(format!("unknown ability kind '{other}'"))),
    })
}

/// A row or column number; negative or huge ones are off the board.
fn coordinate_of(fields: &Fields, key: &str) -> Result<u16, Refusal> {
    let value = fields.get(key)?;
    if let Some(n) = value.as_u64() {
        Ok(n.min(u16::MAX as u64) as u16)
    } else if value.as_i64().is_some() {
        Ok(u16::MAX)
    } else {
        Err(bad(format!("'{key}' must be an integer")))
    }
}

/// The `new` line that starts the game of `setup` (its preset, seats, seed,
/// options and teams): the first line of a transcript of a stored game.
pub fn new_line(setup: &Setup) -> Value {
    let mut line = json!({
        "cmd": "new",
        "preset": setup.preset.id(),
        "seats": setup.seats,
        "seed": setup.seed,
        "options": setup.options,
    });
    if let Some(teams) = &setup.teams {
        line["teams"] = json!(teams);
    }
    line
}

/// The referee line of an engine command: the inverse of [`parse_command`],
/// so that a stored game (its setup and its commands) becomes a transcript
/// that `broadside referee` replays. In the shared sea (`mode`) targets name
/// no board, as docs/referee.md has it. A duel's reserve carries no `board` (the
/// referee has none there; the engine ignores it).
pub fn command_line(command: &Command, mode: Mode) -> Value {
    let shared = mode == Mode::SharedSea;
    let target = |line: &mut Value, board: usize| {
        if !shared {
            line["board"] = json!(board);
        }
    };
    match command {
        Command::Buy { seat, ships } => json!({"cmd": "buy", "seat": seat, "ships": ships}),
        Command::Place { seat, ships } => {
            let ships: Vec<Value> = ships
                .iter()
                .map(|ship| json!({"type": ship.ship_type, "at": ship.at, "rot": ship.rot}))
                .collect();
            json!({"cmd": "place", "seat": seat, "ships": ships})
        }
        Command::PlaceRandom { seat } => json!({"cmd": "place", "seat": seat, "random": true}),
        Command::Fire { seat, target: aim } => {
            let mut line = json!({"cmd": "fire", "seat": seat});
            target(&mut line, aim.board);
            line["at"] = json!(aim.at);
            line
        }
        Command::Volley { seat, cells } => json!({"cmd": "volley", "seat": seat, "cells": cells}),
        Command::Ability { seat, action } => {
            let mut line = json!({"cmd": "ability", "seat": seat});
            action_fields(&mut line, action, shared, false);
            line
        }
        Command::Salvo {
            seat,
            shots,
            action,
        } => {
            let shots: Vec<Value> = shots
                .iter()
                .map(|shot| {
                    let mut s = json!({});
                    target(&mut s, shot.board);
                    s["at"] = json!(shot.at);
                    s
                })
                .collect();
            let mut line = json!({"cmd": "salvo", "seat": seat, "shots": shots});
            if let Some(action) = action {
                let mut ability = json!({});
                action_fields(&mut ability, action, shared, true);
                line["ability"] = ability;
            }
            line
        }
        Command::Timeout => json!({"cmd": "timeout"}),
        Command::Resign { seat } => json!({"cmd": "resign", "seat": seat}),
    }
}

/// Adds an action's fields (`kind` first) to a line, as [`parse_action`] reads them.
fn action_fields(line: &mut Value, action: &Action, shared: bool, in_salvo: bool) {
    line["kind"] = json!(action.kind().id());
    let board = match action {
        Action::Reserve { board, .. } => board.filter(|_| in_salvo),
        other => other.board(),
    };
    if let Some(board) = board.filter(|_| !shared) {
        line["board"] = json!(board);
    }
    match action {
        Action::Laser { column, from, .. } => {
            line["column"] = json!(column);
            line["from"] = json!(from);
        }
        Action::Scanner { center, .. }
        | Action::Wide { center, .. }
        | Action::Radar { center, .. } => line["center"] = json!(center),
        Action::Nuke { at, .. } => line["at"] = json!(at),
        Action::Reserve { cells, .. } => {
            if let Some(cells) = cells {
                line["cells"] = json!(cells);
            }
        }
        Action::Bombard { line: aim, .. } => match aim {
            Line::Row(row) => line["row"] = json!(row),
            Line::Column(column) => line["column"] = json!(column),
        },
    }
}

/// Turns a command line into an engine command, with the seat that acts.
fn parse_command(
    cmd: &str,
    fields: &Fields,
    game: &Game,
) -> Result<(Option<usize>, Command), Refusal> {
    Ok(match cmd {
        "buy" => {
            let seat = fields.seat()?;
            let ships: BTreeMap<String, u32> = serde_json::from_value(fields.get("ships")?.clone())
                .map_err(|_| bad("ships must map ship type ids to counts"))?;
            (Some(seat), Command::Buy { seat, ships })
        }
        "place" => {
            let seat = fields.seat()?;
            if fields.0.get("random").and_then(Value::as_bool) == Some(true) {
                (Some(seat), Command::PlaceRandom { seat })
            } else {
                let ships = fields
                    .get("ships")?
                    .as_array()
                    .ok_or_else(|| bad("ships must be a list"))?;
                let ships = ships
                    .iter()
                    .map(|ship| {
                        let ship = ship
                            .as_object()
                            .ok_or_else(|| bad("each ship is an object"))?;
                        let f = Fields(ship);
                        let rot = match ship.get("rot") {
                            None => 0,
                            Some(v) => v
                                .as_u64()
                                .filter(|&r| r <= 3)
                                .ok_or_else(|| bad("rot must be 0, 1, 2 or 3"))?
                                as u8,
                        };
                        Ok(Placement {
                            ship_type: f.str("type")?.to_string(),
                            at: f.cell("at")?,
                            rot,
                        })
                    })
                    .collect::<Result<Vec<_>, Refusal>>()?;
                (Some(seat), Command::Place { seat, ships })
            }
        }
        "fire" => {
            let seat = fields.seat()?;
            let target = Target {
                board: fields.board(game)?,
                at: fields.cell("at")?,
            };
            (Some(seat), Command::Fire { seat, target })
        }
        "volley" => {
            let seat = fields.seat()?;
            (
                Some(seat),
                Command::Volley {
                    seat,
                    cells: fields.cells("cells")?,
                },
            )
        }
        "ability" => {
            let seat = fields.seat()?;
            let action = parse_action(fields.str("kind")?, fields, game, false)?;
            (Some(seat), Command::Ability { seat, action })
        }
        "salvo" => {
            let seat = fields.seat()?;
            let shots = match fields.0.get("shots") {
                None | Some(Value::Null) => Vec::new(),
                Some(list) => list
                    .as_array()
                    .ok_or_else(|| bad("shots must be a list"))?
                    .iter()
                    .map(|shot| {
                        let shot = shot
                            .as_object()
                            .ok_or_else(|| bad("each shot is an object"))?;
                        let f = Fields(shot);
                        Ok(Target {
                            board: f.board(game)?,
                            at: f.cell("at")?,
                        })
                    })
                    .collect::<Result<Vec<_>, Refusal>>()?,
            };
            let action = match fields.0.get("ability") {
                None | Some(Value::Null) => None,
                Some(Value::Object(ability)) => {
                    let f = Fields(ability);
                    Some(parse_action(f.str("kind")?, &f, game, true)?)
                }
                Some(_) => return Err(bad("ability must be an object")),
            };
            (
                Some(seat),
                Command::Salvo {
                    seat,
                    shots,
                    action,
                },
            )
        }
        "resign" => {
            let seat = fields.seat()?;
            (Some(seat), Command::Resign { seat })
        }
        "timeout" => (game.to_move().first().copied(), Command::Timeout),
        _ => unreachable!("every known command is handled"),
    })
}

/// The answer to an accepted move: what happened, as the acting seat may know it.
fn describe(game: &Game, cmd: &str, actor: Option<usize>, events: &[Event]) -> Map<String, Value> {
    let events = game.events_for(actor, events);
    let mut results = Vec::new();
    let mut revealed = Vec::new();
    let mut sunk = Vec::new();
    let mut scan = Vec::new();
    let mut answer = Map::new();
    let mut pending = false;
    for event in &events {
        match event {
            Event::Shot {
                shooter,
                board,
                at,
                result,
                ship,
            } => {
                let mut r = Map::new();
                if game.rules().mode != Mode::SharedSea {
                    r.insert("board".into(), json!(board));
                }
                r.insert("at".into(), json!(at));
                r.insert("result".into(), json!(result));
                if let Some(ship) = ship {
                    r.insert("ship".into(), json!(ship));
                }
                r.insert("seat".into(), json!(shooter));
                results.push(Value::Object(r));
            }
            Event::Volley {
                hits,
                types_hit,
                sunk: volley_sunk,
                ..
            } => {
                answer.insert(
                    "volley".into(),
                    json!({"hits": hits, "types_hit": types_hit, "sunk": volley_sunk}),
                );
            }
            Event::Revealed { board, cells } => {
                revealed.push(json!({"board": board, "cells": cells}));
            }
            Event::Sunk { owner, ship, cells } => {
                let mut s = json!({"seat": owner, "ship": ship});
                if let Some(cells) = cells {
                    s["cells"] = json!(cells);
                }
                sunk.push(s);
            }
            Event::Scan { cells, .. } => {
                scan.extend(cells.iter().map(|c| json!({"at": c.at, "ship": c.ship})))
            }
            Event::Reinforced { seat, count, cells } => {
                let mut r = json!({"seat": seat, "count": count});
                if let Some(cells) = cells {
                    r["cells"] = json!(cells);
                }
                answer.insert("reserve".into(), r);
            }
            Event::SalvoSubmitted { .. } => pending = true,
            Event::RoundStarted { .. } | Event::TurnStarted { .. } => pending = false,
            _ => {}
        }
    }
    if pending {
        answer.insert("pending".into(), Value::Bool(true));
    }
    if !results.is_empty() || matches!(cmd, "fire" | "ability") {
        answer.insert("results".into(), Value::Array(results));
    }
    if !revealed.is_empty() {
        answer.insert("revealed".into(), Value::Array(revealed));
    }
    if !sunk.is_empty() {
        answer.insert("sunk".into(), Value::Array(sunk));
    }
    if !scan.is_empty() {
        answer.insert("scan".into(), Value::Array(scan));
    }
    answer.insert("phase".into(), json!(game.phase()));
    answer.insert("to_move".into(), json!(game.to_move()));
    if game.phase() == Phase::Finished {
        answer.insert("winner".into(), json!(game.winners().unwrap_or(&[])));
        answer.insert("draw".into(), json!(game.is_draw()));
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(preset: Preset, seats: usize) -> Game {
        Game::new(&Setup {
            preset,
            seats,
            seed: 1,
            options: Options::default(),
            teams: None,
        })
        .expect("a valid setup")
    }

    /// The command the parser reads from the line `command_line` writes.
    fn round_trip(command: &Command, game: &Game) -> Command {
        let line = command_line(command, game.rules().mode);
        let object = line.as_object().expect("a line is an object");
        let cmd = object["cmd"].as_str().expect("a line has a cmd");
        match parse_command(cmd, &Fields(object), game) {
            Ok((_, parsed)) => parsed,
            Err(refusal) => panic!("{line} is refused: {}", refusal.message),
        }
    }

    /// The name of every command kind: a new kind fails to compile here until
    /// the test below covers it.
    fn kind(command: &Command) -> &'static str {
        match command {
            Command::Buy { .. } => "buy",
            Command::Place { .. } => "place",
            Command::PlaceRandom { .. } => "place_random",
            Command::Fire { .. } => "fire",
            Command::Volley { .. } => "volley",
            Command::Ability { .. } => "ability",
            Command::Salvo { .. } => "salvo",
            Command::Timeout => "timeout",
            Command::Resign { .. } => "resign",
        }
    }

    fn cell(col: u16, row: u16) -> Cell {
        Cell::new(col, row)
    }

    fn actions(board: usize) -> Vec<Action> {
        vec![
            Action::Laser {
                board,
                column: 4,
                from: End::Top,
            },
            Action::Laser {
                board,
                column: 0,
                from: End::Bottom,
            },
            Action::Scanner {
                board,
                center: cell(2, 3),
            },
            Action::Nuke {
                board,
                at: cell(9, 9),
            },
            Action::Reserve {
                board: None,
                cells: None,
            },
            Action::Reserve {
                board: None,
                cells: Some(vec![cell(1, 1), cell(5, 7), cell(19, 9)]),
            },
            Action::Wide {
                board,
                center: cell(0, 0),
            },
            Action::Bombard {
                board,
                line: Line::Row(3),
            },
            Action::Bombard {
                board,
                line: Line::Column(7),
            },
            Action::Radar {
                board,
                center: cell(5, 5),
            },
        ]
    }

    #[test]
    fn every_engine_command_round_trips_through_its_referee_line() {
        let duel = game(Preset::Space, 3);
        let shared = game(Preset::Shared, 3);
        let mut commands = vec![
            Command::Buy {
                seat: 1,
                ships: [("dreadnought".to_string(), 1), ("scout".to_string(), 3)]
                    .into_iter()
                    .collect(),
            },
            Command::Place {
                seat: 0,
                ships: vec![
                    Placement {
                        ship_type: "battleship".into(),
                        at: cell(0, 0),
                        rot: 0,
                    },
                    Placement {
                        ship_type: "cruiser".into(),
                        at: cell(3, 4),
                        rot: 3,
                    },
                ],
            },
            Command::PlaceRandom { seat: 2 },
            Command::Fire {
                seat: 0,
                target: Target {
                    board: 2,
                    at: cell(3, 4),
                },
            },
            Command::Volley {
                seat: 1,
                cells: vec![cell(1, 2), cell(3, 4), cell(14, 14)],
            },
            Command::Salvo {
                seat: 2,
                shots: vec![
                    Target {
                        board: 0,
                        at: cell(1, 1),
                    },
                    Target {
                        board: 1,
                        at: cell(2, 2),
                    },
                ],
                action: None,
            },
            Command::Salvo {
                seat: 1,
                shots: Vec::new(),
                action: None,
            },
            Command::Timeout,
            Command::Resign { seat: 1 },
        ];
        for action in actions(1) {
            commands.push(Command::Ability {
                seat: 0,
                action: action.clone(),
            });
            // In a salvo a reserve names the opponent whose shots it replaces.
            let action = match action {
                Action::Reserve { cells, .. } => Action::Reserve {
                    board: Some(2),
                    cells,
                },
                other => other,
            };
            commands.push(Command::Salvo {
                seat: 0,
                shots: vec![Target {
                    board: 2,
                    at: cell(0, 9),
                }],
                action: Some(action),
            });
        }
        let mut kinds: Vec<&str> = Vec::new();
        let mut action_kinds = Vec::new();
        for command in &commands {
            assert_eq!(&round_trip(command, &duel), command);
            kinds.push(kind(command));
            if let Command::Ability { action, .. } = command {
                action_kinds.push(action.kind());
            }
        }
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), 9, "every command kind: {kinds:?}");
        action_kinds.sort_unstable();
        action_kinds.dedup();
        assert_eq!(action_kinds.len(), 7, "every action kind");

        // The shared sea's targets name no board: it is always 0.
        let in_the_sea = [
            Command::Fire {
                seat: 1,
                target: Target {
                    board: 0,
                    at: cell(12, 3),
                },
            },
            Command::Salvo {
                seat: 0,
                shots: vec![Target {
                    board: 0,
                    at: cell(25, 9),
                }],
                action: None,
            },
        ];
        for command in &in_the_sea {
            let line = command_line(command, Mode::SharedSea);
            assert!(!line.to_string().contains("board"), "{line}");
            assert_eq!(&round_trip(command, &shared), command);
        }
    }

    #[test]
    fn a_new_line_starts_the_same_game() {
        let setup = Setup {
            preset: Preset::Classic,
            seats: 4,
            seed: u64::MAX - 3,
            options: Options {
                salvo: Some(broadside_engine::SalvoMode::Focus),
                turn_seconds: Some(30),
                ..Options::default()
            },
            teams: Some(vec![0, 1, 0, 1]),
        };
        let line = new_line(&setup);
        let mut referee = Referee::default();
        let answer = referee.answer(&line.to_string());
        assert_eq!(answer["ok"], true, "{answer}");
        let game = referee.game.expect("a game");
        let expected = Game::new(&setup).unwrap();
        assert_eq!(game.save(), expected.save(), "the same game, seed included");
        assert_eq!(line["teams"], json!([0, 1, 0, 1]));
    }
}
