//! `broadside export` for real: games played over WebSockets against the
//! server on a SQLite file (a duel, salvo rounds of bots, a space battle with
//! abilities, the shared sea, and a game still running), each exported by the
//! binary and piped into `broadside referee`, whose every answer must be ok
//! and whose final state and views must be the engine's own replay of the
//! stored log.

#[path = "../../server/tests/common/client.rs"]
mod client;

use std::collections::BTreeMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use broadside_engine::{Command, Game, Setup};
use broadside_server::{Config, Db};
use client::*;
use serde_json::{json, Value};

/// No timers: these games are driven by the clients and bots alone.
fn untimed() -> Value {
    json!({"turn_seconds": 0, "place_seconds": 0, "round_seconds": 0, "shop_seconds": 0})
}

/// The server on a loopback port over the SQLite file `db`, bots moving at
/// once; send on the channel to stop it.
async fn serve(
    db: &Path,
) -> (
    SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let db = Db::open(db).expect("the database opens");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = Config {
        bot_delay: Duration::ZERO,
        ..Config::default()
    };
    let server = tokio::spawn(async move {
        broadside_server::run(listener, db, config, async {
            let _ = stopped.await;
        })
        .await
        .expect("the server runs until stopped");
    });
    (addr, stop, server)
}

/// A person in a new room of `preset` with bots on every other seat; the game
/// has started. Returns the person and the room's code.
async fn room_with_bots(
    addr: SocketAddr,
    preset: &str,
    seats: usize,
    level: &str,
) -> (Client, String) {
    let mut ana = Client::connect(addr).await;
    ana.hello(None, "Ana").await;
    let bots: Vec<Value> = (1..seats)
        .map(|seat| json!({"seat": seat, "level": level}))
        .collect();
    let code = ana
        .create(json!({"preset": preset, "seats": seats, "options": untimed(), "bots": bots}))
        .await;
    ana.send(json!({"type": "start"})).await;
    ana.state_until(|s| matches!(phase(s), "shop" | "placement"))
        .await;
    (ana, code)
}

/// A game of bots: the person places (or buys and places) at random and
/// gives up as the battle starts; the bots play it out. (Not earlier: a seat
/// that resigns in the shop is never placed, and one whose resignation in the
/// placement leaves two seats may be dealt the duel's first turn; an untimed
/// game waits for that seat forever.)
async fn bots_play(addr: SocketAddr, preset: &str, seats: usize, level: &str) -> String {
    let (mut ana, code) = room_with_bots(addr, preset, seats, level).await;
    if phase(ana.state.as_ref().expect("a state")) == "shop" {
        ana.command(json!({"cmd": "buy", "ships": {"lancer": 2, "spirit": 1, "scout": 2}}))
            .await;
        ana.state_until(|s| phase(s) == "placement").await;
    }
    ana.command(json!({"cmd": "place_random"})).await;
    ana.state_until(|s| phase(s) != "placement").await;
    ana.command(json!({"cmd": "resign"})).await;
    ana.state_until(|s| phase(s) == "finished").await;
    code
}

/// The stored games of the database by room code, read with the server's own API.
async fn stored_ids(db: &Path) -> BTreeMap<String, i64> {
    let db = Db::open(db).unwrap();
    let mut ids = BTreeMap::new();
    let mut id = 1;
    while let Some(game) = db.load_game(id).await.unwrap() {
        ids.insert(game.room_code, id);
        id += 1;
    }
    ids
}

/// Runs the binary with `args` and `input` on stdin; its stdout.
fn broadside(args: &[&str], input: &str) -> String {
    let mut child = Process::new(env!("CARGO_BIN_EXE_broadside"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the broadside binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "broadside {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Exports game `id`, replays the transcript in the referee and checks it
/// against the engine's replay of the stored log. Returns the final phase.
async fn export_and_referee(db: &Path, id: i64) -> String {
    let transcript = broadside(
        &["export", &id.to_string(), "--db", db.to_str().unwrap()],
        "",
    );
    let stored = Db::open(db).unwrap().load_game(id).await.unwrap().unwrap();
    let lines: Vec<Value> = transcript
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(
        lines.len(),
        stored.commands.len() + 1,
        "new, then one line per command"
    );
    assert_eq!(lines[0]["cmd"], "new");

    // The engine's own replay of the stored log.
    let setup: Setup = serde_json::from_str(&stored.setup).unwrap();
    let mut game = Game::new(&setup).unwrap();
    for text in &stored.commands {
        let command: Command = serde_json::from_str(text).unwrap();
        game.apply(command).expect("the stored log replays");
    }
    assert_eq!(lines[0]["seed"], setup.seed, "the game's own seed");

    // The transcript, then the referee's all-seeing state and every view.
    let mut input = transcript.clone();
    input.push_str("{\"cmd\":\"state\"}\n{\"cmd\":\"view\",\"seat\":null}\n");
    for seat in 0..game.seat_count() {
        input.push_str(&format!("{{\"cmd\":\"view\",\"seat\":{seat}}}\n"));
    }
    let answers: Vec<Value> = broadside(&["referee"], &input)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON answer"))
        .collect();
    assert_eq!(answers.len(), lines.len() + 2 + game.seat_count());
    for (line, answer) in input.lines().zip(&answers) {
        assert_eq!(answer["ok"], true, "{line} → {answer}");
    }
    let mut state = answers[lines.len()].clone();
    state.as_object_mut().unwrap().remove("ok");
    assert_eq!(state, serde_json::to_value(game.status()).unwrap());
    let views = &answers[lines.len() + 1..];
    let viewers = std::iter::once(None).chain((0..game.seat_count()).map(Some));
    for (viewer, answer) in viewers.zip(views) {
        assert_eq!(
            answer["view"],
            serde_json::to_value(game.view(viewer)).unwrap(),
            "the view of {viewer:?}"
        );
    }
    game.phase().id().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exported_games_replay_in_the_referee_to_the_same_end() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data").join("db.sqlite");
    let (addr, stop, server) = serve(&db).await;

    // A duel against a bot, played to the end by the person.
    let (mut ana, duel) = room_with_bots(addr, "classic", 2, "medium").await;
    play_to_end(&mut ana).await;
    // Four seats of classic: three bots play salvo rounds, then a duel.
    let salvo = bots_play(addr, "classic", 4, "easy").await;
    // Space: the shop, default fleets, abilities.
    let space = bots_play(addr, "space", 3, "hard").await;
    // The shared sea.
    let shared = bots_play(addr, "shared", 3, "easy").await;
    // A game that is still being played: placed, and a few shots.
    let (mut bea, running) = room_with_bots(addr, "hasbro", 2, "easy").await;
    bea.command(json!({"cmd": "place_random"})).await;
    let mut state = bea
        .state_until(|s| my_move(s) && phase(s) == "battle")
        .await;
    for _ in 0..3 {
        bea.command(first_unknown_target(&state)).await;
        bea.state = None;
        state = bea
            .state_until(|s| my_move(s) || phase(s) == "finished")
            .await;
    }
    let _ = stop.send(());
    server.await.unwrap();

    let ids = stored_ids(&db).await;
    assert_eq!(ids.len(), 5);
    let abilities = Db::open(&db)
        .unwrap()
        .load_game(ids[&space])
        .await
        .unwrap()
        .unwrap()
        .commands
        .iter()
        .filter(|c| c.contains("\"ability\""))
        .count();
    assert!(abilities > 0, "the space bots used their ships' abilities");
    for code in [&duel, &salvo, &space, &shared] {
        assert_eq!(
            export_and_referee(&db, ids[code]).await,
            "finished",
            "room {code}"
        );
    }
    assert_eq!(export_and_referee(&db, ids[&running]).await, "battle");

    // No such game, no such database.
    let missing = Process::new(env!("CARGO_BIN_EXE_broadside"))
        .args(["export", "999", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no game 999"));
    let nowhere = dir.path().join("nowhere.sqlite");
    let missing = Process::new(env!("CARGO_BIN_EXE_broadside"))
        .args(["export", "1", "--db", nowhere.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(!nowhere.exists(), "export creates no database");
}
