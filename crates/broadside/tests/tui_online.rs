//! The terminal client online: `broadside play --server` creates a room on a
//! real `broadside serve`, starts it against a bot, places at random and plays
//! the game to the end over the WebSocket protocol (docs/protocol.md); and the
//! public side: quick match (with another client, or a bot after the wait),
//! the leaderboard, and ratings beside the names.

mod tui_support;
// (Only account creation is used here.)
#[allow(dead_code)]
#[path = "../../server/tests/common/passkey.rs"]
mod passkey;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use broadside_engine::{label, Cell, LetterAxis};
use broadside_protocol::ViewCopy;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::{self, Message, WebSocket};
use tui_support::{quit, status, target_mark, temp_dir, Tmux};

const WAIT: Duration = Duration::from_secs(20);

/// The server process, stopped when the test ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `broadside serve` on a free port; returns it and its address.
fn serve(dir: &std::path::Path) -> (Server, String) {
    serve_at(dir, "127.0.0.1:0")
}

/// Starts `broadside serve` on `addr` over the database in `dir`.
fn serve_at(dir: &std::path::Path, addr: &str) -> (Server, String) {
    serve_with(dir, addr, &[])
}

/// Starts `broadside serve` on `addr` over the database in `dir`, with more
/// flags.
fn serve_with(dir: &std::path::Path, addr: &str, flags: &[&str]) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args(["serve", "--addr", addr, "--bot-delay-ms", "20"])
        .args(["--busy-lag-ms", "0"])
        .args(flags)
        .arg("--db")
        .arg(dir.join("db.sqlite"))
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the broadside binary starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let server = Server(child);
    let mut first = String::new();
    BufReader::new(stdout)
        .read_line(&mut first)
        .expect("the server prints its address");
    let start = first
        .find("http://")
        .expect("the first line names the address");
    let address: String = first[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    // Printed as localhost (where passkeys work); it listens on loopback.
    let address = address.replace("localhost", "127.0.0.1");
    (server, address.trim_end_matches('/').to_string())
}

#[test]
fn tui_plays_an_online_game_against_broadside_serve_to_the_end() {
    let dir = temp_dir("tui-online");
    let (_server, address) = serve(&dir);
    let binary = env!("CARGO_BIN_EXE_broadside");
    let (tmux, lobby) = new_room_against_a_bot("online", &dir, &address);
    let code = room_code(&lobby);
    assert!(
        lobby.contains("Seat 1: Tester (you)") && lobby.contains("Seat 2: Bot 1"),
        "{lobby}"
    );
    assert!(
        lobby.contains(&format!("Invite link: {address}/r/")),
        "{lobby}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("Placement: ship 1 of 10", WAIT);
    // The battleship goes where it stands once the server found it legal
    // (check_layout); random_layout completes the fleet around it.
    let start = Instant::now();
    while !tmux.screen().contains("ship 2 of 10") {
        assert!(
            start.elapsed() < WAIT,
            "the first ship was never placed:\n{}",
            tmux.screen()
        );
        tmux.keys(&["Enter"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.keys(&["Space"]);
    tmux.wait_for("fleet complete", WAIT);
    tmux.keys(&["Enter"]);

    // Leave after one shot, and come back with the room code: the token kept in
    // the token file gets the seat back.
    fire_at_a1(&tmux);
    leave_running_game(tmux);
    let tmux = Tmux::start(
        "online-again",
        &dir,
        &format!("'{binary}' play --server {address} --room {code} --token-file token"),
    );
    let screen = tmux.wait_for("round", WAIT);
    assert!(
        screen.contains("Your waters") && screen.contains("Bot 1's waters"),
        "{screen}"
    );
    let a1 = target_mark(&screen, 'A', 1);
    assert!(
        matches!(a1, Some('O' | 'X' | '#')),
        "the shot at A1 is still there:\n{screen}"
    );

    // Fire at every cell in turn (labels typed), pass after pass, until the end.
    let labels: Vec<String> = (0..10u16)
        .flat_map(|row| (0..10u16).map(move |col| label(LetterAxis::Rows, Cell::new(col, row))))
        .collect();
    let mut next = 0;
    let start = Instant::now();
    let mut screen = tmux.screen();
    while !status(&screen).contains("Game over") {
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "the game did not end:\n{screen}"
        );
        if status(&screen).contains("Your turn") {
            tmux.text(&format!(":{}", labels[next]));
            tmux.keys(&["Enter"]);
            next = (next + 1) % labels.len();
        }
        std::thread::sleep(Duration::from_millis(40));
        screen = tmux.screen();
    }
    assert!(
        screen.contains("Game over:"),
        "the log tells the end:\n{screen}"
    );
    let won = status(&screen).contains("YOU WIN") && screen.contains("0/10");
    let lost = status(&screen).contains("Bot 1 won");
    assert!(won || lost, "{screen}");

    // q leaves a finished game for the online start, and q there ends the
    // program cleanly.
    tmux.keys(&["q"]);
    tmux.wait_for("Choose the game for your new room", WAIT);
    quit(&tmux);
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

/// Starts the terminal client on the server as Tester and creates a classic
/// room with one bot; returns the client and the lobby screen.
fn new_room_against_a_bot(name: &str, dir: &std::path::Path, address: &str) -> (Tmux, String) {
    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start(
        name,
        dir,
        &format!("'{binary}' play --server {address} --name Tester --token-file token"),
    );
    tmux.wait_for("Choose the game for your new room", WAIT);
    tmux.keys(&["Enter"]);
    let lobby = tmux.wait_for("Enter starts the game", WAIT);
    (tmux, lobby)
}

/// Leaves a running game with q and y: the question says the server keeps
/// the game, and y goes back to the online start, where My games lists it
/// (issue 15 item 15); q there ends the program cleanly.
fn leave_running_game(tmux: Tmux) {
    tmux.keys(&["q"]);
    tmux.wait_for_all(
        &["Leave this game?", "The server keeps it", "My games"],
        WAIT,
    );
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("Your unfinished games", WAIT);
    assert!(!screen.contains("EXITED"), "{screen}");
    quit(&tmux);
}

/// The host starts the game and places the fleet with "random".
fn start_and_place_at_random(tmux: &Tmux) {
    tmux.keys(&["Enter"]);
    tmux.wait_for("Placement: ship 1 of 10", WAIT);
    place_at_random(tmux);
}

/// Places the whole fleet with "random" and confirms it.
fn place_at_random(tmux: &Tmux) {
    tmux.keys(&["Space"]);
    tmux.wait_for("fleet complete", WAIT);
    tmux.keys(&["Enter"]);
}

/// Waits for the first turn and fires at A1.
fn fire_at_a1(tmux: &Tmux) {
    tmux.wait_for("Your turn: fire", WAIT);
    tmux.text(":A1");
    tmux.keys(&["Enter"]);
    tmux.wait_until("the shot at A1", WAIT, |screen| {
        matches!(target_mark(screen, 'A', 1), Some('O' | 'X' | '#'))
    });
}

/// The code of the room on a lobby screen ("Room K7QM2PX4RT · classic").
fn room_code(lobby: &str) -> String {
    lobby
        .split("Room ")
        .nth(1)
        .expect("the lobby shows the room code")
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect()
}

#[test]
fn tui_two_people_play_each_other_through_an_open_seat() {
    let dir = temp_dir("tui-two");
    let (_server, address) = serve(&dir);
    let binary = env!("CARGO_BIN_EXE_broadside");
    let host = Tmux::start(
        "host",
        &dir,
        &format!("'{binary}' play --server {address} --name Ana --token-file ana-token"),
    );
    host.wait_for("Choose the game for your new room", WAIT);
    // Seat 2: from "bot, medium" forward through the levels to "open".
    host.keys(&["Down", "Down"]);
    while !host.screen().contains("open (a person joins)") {
        host.keys(&["Right"]);
    }
    host.keys(&["Enter"]);
    let lobby = host.wait_for("Enter starts the game", WAIT);
    let code = room_code(&lobby);

    let guest = Tmux::start(
        "guest",
        &dir,
        &format!(
            "'{binary}' play --server {address} --room {code} --name Bea --token-file bea-token"
        ),
    );
    guest.wait_for_all(
        &["Waiting for the host to start…", "Seat 2: Bea (you)"],
        WAIT,
    );
    host.wait_for("Seat 2: Bea", WAIT);
    host.keys(&["Enter"]);
    for player in [&host, &guest] {
        player.wait_for("Placement: ship 1 of 10", WAIT);
        player.keys(&["Space"]);
        player.wait_for("fleet complete", WAIT);
        player.keys(&["Enter"]);
    }

    // Each fires at every cell in turn until one of them has won.
    let labels: Vec<String> = (0..10u16)
        .flat_map(|row| (0..10u16).map(move |col| label(LetterAxis::Rows, Cell::new(col, row))))
        .collect();
    let mut next = [0usize; 2];
    let start = Instant::now();
    loop {
        let screens = [host.screen(), guest.screen()];
        if screens.iter().all(|s| status(s).contains("Game over")) {
            let winners = screens
                .iter()
                .filter(|s| status(s).contains("YOU WIN"))
                .count();
            assert_eq!(
                winners, 1,
                "exactly one winner:\n{}\n{}",
                screens[0], screens[1]
            );
            let loser = screens
                .iter()
                .find(|s| !status(s).contains("YOU WIN"))
                .expect("a loser");
            assert!(status(loser).contains("won"), "{loser}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "the game did not end:\n{}\n{}",
            screens[0],
            screens[1]
        );
        for (i, (player, screen)) in [&host, &guest].into_iter().zip(&screens).enumerate() {
            if status(screen).contains("Your turn") {
                player.text(&format!(":{}", labels[next[i]]));
                player.keys(&["Enter"]);
                next[i] = (next[i] + 1) % labels.len();
            }
        }
        std::thread::sleep(Duration::from_millis(40));
    }
    // A rematch: the host offers, the guest is asked and accepts; then a new
    // game with the same seats for both.
    host.keys(&["n"]);
    guest.wait_for("offers a rematch", WAIT);
    guest.keys(&["n"]);
    for player in [&host, &guest] {
        player.wait_for("Placement: ship 1 of 10", WAIT);
    }
    drop(host);
    drop(guest);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

/// The link drops when the server stops; the client keeps trying, and once the
/// server is back (same address, same database) it gets its seat and the game
/// back without a key pressed, and play goes on.
#[test]
fn tui_reconnects_by_itself_when_the_server_comes_back() {
    let dir = temp_dir("tui-reconnect");
    let (server, address) = serve(&dir);
    let (tmux, _) = new_room_against_a_bot("reconnect", &dir, &address);
    start_and_place_at_random(&tmux);
    fire_at_a1(&tmux);

    drop(server);
    tmux.wait_for("Reconnecting in", WAIT);
    let addr = address.trim_start_matches("http://").to_string();
    let (_server, again) = serve_at(&dir, &addr);
    assert_eq!(again, address, "the server is back at the same address");

    // No key: the client connects, says hello with its token and rejoins.
    let screen = tmux.wait_for("Joining room", WAIT);
    assert!(
        screen.contains("Bot 1's waters")
            && matches!(target_mark(&screen, 'A', 1), Some('O' | 'X' | '#')),
        "{screen}"
    );
    // Play goes on: fire at J10 when it is our turn (the bot may move first).
    let start = Instant::now();
    loop {
        let screen = tmux.screen();
        if matches!(target_mark(&screen, 'J', 10), Some('O' | 'X' | '#')) {
            break;
        }
        assert!(start.elapsed() < WAIT, "J10 was never shot:\n{screen}");
        if status(&screen).contains("Your turn") {
            tmux.text(":J10");
            tmux.keys(&["Enter"]);
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    leave_running_game(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

/// Started again without a room code, the client lists the person's unfinished
/// games (`my_games`) and continues the chosen one.
#[test]
fn tui_offers_unfinished_games_to_continue() {
    let dir = temp_dir("tui-my-games");
    let (_server, address) = serve(&dir);
    let (tmux, lobby) = new_room_against_a_bot("my-games", &dir, &address);
    let code = room_code(&lobby);
    start_and_place_at_random(&tmux);
    fire_at_a1(&tmux);
    leave_running_game(tmux);

    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start(
        "my-games-again",
        &dir,
        &format!("'{binary}' play --server {address} --token-file token"),
    );
    let screen = tmux.wait_for("Your unfinished games", WAIT);
    assert!(
        screen.contains(&format!("> {code} · Classic · In battle · vs Bot (Medium)")),
        "{screen}"
    );
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Bot 1's waters", WAIT);
    assert!(
        matches!(target_mark(&screen, 'A', 1), Some('O' | 'X' | '#')),
        "the game goes on where it was:\n{screen}"
    );
    leave_running_game(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

// ----- public play -------------------------------------------------------------------

/// Starts the terminal client on the server as `name`, at the online start;
/// `test` keeps the tmux servers of tests running at once apart.
fn online_client(test: &str, name: &str, dir: &std::path::Path, address: &str) -> Tmux {
    let binary = env!("CARGO_BIN_EXE_broadside");
    let token = format!("{}-token", name.to_lowercase());
    let tmux = Tmux::start(
        &format!("{test}-{}", name.to_lowercase()),
        dir,
        &format!("'{binary}' play --server {address} --name {name} --token-file {token}"),
    );
    tmux.wait_for("Choose the game for your new room", WAIT);
    tmux
}

/// Waits for the battle to begin.
fn wait_for_battle(tmux: &Tmux) {
    tmux.wait_until("the battle", WAIT, |screen| {
        status(screen).contains("Your turn: fire") || status(screen).contains("'s turn")
    });
}

#[test]
fn tui_two_clients_quick_match_each_other_and_play() {
    let dir = temp_dir("tui-quick");
    let (_server, address) = serve(&dir);
    let ana = online_client("quick", "Ana", &dir, &address);
    let bea = online_client("quick", "Bea", &dir, &address);
    // The New Game form offers the quick match with its preset (classic).
    let form = ana.screen();
    assert!(
        form.contains("[ Quick match ]") && form.contains("[ Leaderboard ]"),
        "{form}"
    );
    ana.keys(&["m"]);
    let waiting = ana.wait_for_all(
        &[
            "Quick match · Classic",
            "Waiting for Classic: 1 player — you",
        ],
        WAIT,
    );
    assert!(
        waiting.contains("Time waited: 0:0") && waiting.contains("Esc: cancel"),
        "{waiting}"
    );
    assert!(waiting.contains("a bot is offered in 20 s"), "{waiting}");
    bea.keys(&["m"]);
    // Paired: a game starts at once, with no lobby, for both; two guests
    // play casual (rated play needs accounts, as below).
    for (player, other) in [(&ana, "Bea"), (&bea, "Ana")] {
        let screen = player.wait_for("Placement: ship 1 of 10", WAIT);
        assert!(
            screen.contains(&format!("Playing {other}: this game is not rated.")),
            "{screen}"
        );
    }
    for player in [&ana, &bea] {
        place_at_random(player);
    }
    for player in [&ana, &bea] {
        wait_for_battle(player);
    }
    // Exactly one of them is to fire first; the other waits for them.
    let screens = [ana.screen(), bea.screen()];
    let firing = screens
        .iter()
        .filter(|s| status(s).contains("Your turn: fire"))
        .count();
    assert_eq!(firing, 1, "{}\n{}", screens[0], screens[1]);
    drop(ana);
    drop(bea);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

#[test]
fn tui_lone_quick_match_cancels_then_accepts_the_bot_offer() {
    let dir = temp_dir("tui-quick-bot");
    let (_server, address) = serve_with(&dir, "127.0.0.1:0", &["--match-wait-secs", "1"]);
    let tmux = online_client("quick-bot", "Ana", &dir, &address);
    // Waiting, then Esc: the server confirms and the start comes back.
    tmux.keys(&["m"]);
    tmux.wait_for("Waiting for Classic: 1", WAIT);
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("Quick match cancelled.", WAIT);
    assert!(screen.contains("[ Create room ]"), "{screen}");
    // Hasbro this time (the form's preset is the one matched); after the wait
    // a bot of about the person's strength is offered, and b takes it.
    tmux.keys(&["Left"]);
    tmux.wait_for("< Hasbro >", WAIT);
    tmux.keys(&["m"]);
    let screen = tmux.wait_for("b: play a medium bot instead", WAIT);
    assert!(screen.contains("Quick match · Hasbro"), "{screen}");
    tmux.keys(&["b"]);
    let screen = tmux.wait_for("Placement: ship 1 of 5", WAIT);
    assert!(
        screen.contains("Playing Bot 1: this game is not rated."),
        "{screen}"
    );
    place_at_random(&tmux);
    fire_at_a1(&tmux);
    leave_running_game(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

/// Two people (two addresses) quick-match through the protocol, each makes
/// a move and one resigns: a rated result. The terminal's leaderboard
/// leaves their provisional ratings out (one opponent each: docs/protocol.md,
/// "Rated games"; the rows' layout is the screens' snapshot tests'); then
/// the winner, in the terminal with their token, is paired with the loser
/// again and sees both ratings beside the names.
#[test]
fn tui_leaderboard_shows_a_rated_result_and_ratings_beside_names() {
    let dir = temp_dir("tui-leaderboard");
    let (_server, address) = serve(&dir);
    let mut ana = Ws::connect(&address, "Ana");
    let mut bea = Ws::connect_from(&address, "Bea", "127.0.0.2");
    // Only accounts play rated.
    ana.sign_up("Ana");
    bea.sign_up("Bea");
    ana.send(json!({"type": "quick_match", "preset": "classic"}));
    ana.expect("matching");
    bea.send(json!({"type": "quick_match", "preset": "classic"}));
    let room = bea.expect("room");
    assert_eq!(room["room"]["setup"]["rated"], true);
    ana.expect("room");
    a_shot_each(&mut ana, &mut bea);
    bea.send(json!({"type": "command", "command": {"cmd": "resign"}}));
    ana.state_until(|state| state["view"]["phase"] == "finished");
    ana.send(json!({"type": "history"}));
    let history = ana.expect("history");
    let change = history["games"][0]["rating_change"].as_f64();
    assert!(change.is_some_and(|c| c > 0.0), "a rated win: {history}");

    let cai = online_client("leaderboard", "Cai", &dir, &address);
    cai.keys(&["l"]);
    let board = cai.wait_for_all(
        &["Leaderboard · Classic", "Nobody is rated in Classic yet"],
        WAIT,
    );
    assert!(!board.contains("Ana") && !board.contains("Bea"), "{board}");
    // Right: the next preset, where nobody has played yet; Esc goes back.
    cai.keys(&["Right"]);
    cai.wait_for("Nobody is rated in Shared sea yet", WAIT);
    cai.keys(&["Escape"]);
    cai.wait_for("[ Create room ]", WAIT);
    drop(cai);

    // The winner, in the terminal with Ana's token, meets Bea again.
    std::fs::write(dir.join("ana-token"), &ana.token).expect("the token file is writable");
    let terminal = online_client("leaderboard", "Ana", &dir, &address);
    terminal.keys(&["m"]);
    terminal.wait_for("Waiting for Classic: 1", WAIT);
    bea.send(json!({"type": "quick_match", "preset": "classic"}));
    bea.expect("room");
    let screen = terminal.wait_for("Placement: ship 1 of 10", WAIT);
    let rating = |change: f64| (1500.0 + change).round() as u32;
    let (won, lost) = (
        rating(change.unwrap_or(0.0)),
        rating(-change.unwrap_or(0.0)),
    );
    let fleets = |who: &str, rating: u32| format!("{who} {rating}?");
    assert!(
        screen.contains(&fleets("You", won)) && screen.contains(&fleets("Bea", lost)),
        "ratings beside the names ({won}, {lost}):\n{screen}"
    );
    drop(terminal);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

/// Both place at random, then each fires until both have fired once (a
/// rated game counts only once every person has made a move).
fn a_shot_each(ana: &mut Ws, bea: &mut Ws) {
    for ws in [&mut *ana, &mut *bea] {
        ws.send(json!({"type": "command", "command": {"cmd": "place_random"}}));
    }
    let mut states = [
        ana.state_until(|s| s["view"]["phase"] == "battle"),
        bea.state_until(|s| s["view"]["phase"] == "battle"),
    ];
    let mut fired = [false, false];
    while !(fired[0] && fired[1]) {
        let mover = states
            .iter()
            .position(|s| {
                let seat = &s["view"]["seat"];
                s["view"]["to_move"]
                    .as_array()
                    .is_some_and(|m| m.contains(seat))
            })
            .expect("one of the two is to move");
        let seat = states[mover]["view"]["seat"].clone();
        let target = first_unknown(&states[mover]);
        let ws = if mover == 0 { &mut *ana } else { &mut *bea };
        ws.send(json!({"type": "command", "command": target}));
        fired[mover] = true;
        let shot_by = |s: &Value| {
            s["events"].as_array().is_some_and(|events| {
                events
                    .iter()
                    .any(|e| e["event"] == "shot" && e["shooter"] == seat)
            })
        };
        states = [ana.state_until(shot_by), bea.state_until(shot_by)];
    }
}

/// A fire command at the first cell of the opponent's board shown as `~`.
fn first_unknown(state: &Value) -> Value {
    let view = &state["view"];
    let board = view["boards"]
        .as_array()
        .expect("boards")
        .iter()
        .find(|b| b["owner"] != view["seat"])
        .expect("the opponent's board");
    for (row, line) in board["rows"].as_array().expect("rows").iter().enumerate() {
        if let Some(col) = line.as_str().expect("a row").find('~') {
            return json!({"cmd": "fire", "target": {"board": board["owner"], "at": [col, row]}});
        }
    }
    panic!("no target left in {view}");
}

/// A WebSocket client of the protocol, for the other side of a test.
struct Ws {
    socket: WebSocket<TcpStream>,
    token: String,
    /// The view as the last `state` or `change` left it: a `change` is read
    /// as the whole `state` it makes (docs/protocol.md, "State and change").
    copy: ViewCopy,
}

impl Ws {
    /// Makes this guest an account with a new passkey (the tests' software
    /// authenticator).
    fn sign_up(&mut self, username: &str) {
        self.send(json!({"type": "create_account", "username": username}));
        let options = self.expect("passkey_create");
        let (_, credential) = passkey::Passkey::create(&options["options"]);
        self.send(json!({"type": "passkey_created", "credential": credential}));
        self.expect("account");
    }

    /// Connects to the server at `address` (`http://host:port`) and says hello.
    fn connect(address: &str, nickname: &str) -> Ws {
        let host = address.trim_start_matches("http://");
        let stream = TcpStream::connect(host).expect("the server accepts connections");
        Ws::over(host, stream, nickname)
    }

    /// Like `connect`, from the loopback address `local` (Linux routes all
    /// of 127/8 to the loopback): another client address to the server.
    fn connect_from(address: &str, nickname: &str, local: &str) -> Ws {
        let host = address.trim_start_matches("http://");
        let server: std::net::SocketAddr = host.parse().expect("host:port");
        let local: std::net::SocketAddr = format!("{local}:0").parse().expect("an address");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .expect("a runtime");
        let stream = runtime.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
            socket.bind(local).expect("any 127/8 address is bindable");
            socket.connect(server).await.expect("the server accepts")
        });
        let stream = stream.into_std().expect("a std stream");
        stream.set_nonblocking(false).expect("blocking again");
        Ws::over(host, stream, nickname)
    }

    fn over(host: &str, stream: TcpStream, nickname: &str) -> Ws {
        stream
            .set_read_timeout(Some(WAIT))
            .expect("a read timeout can be set");
        let (socket, _) = tungstenite::client(format!("ws://{host}/ws"), stream)
            .expect("the server accepts the WebSocket");
        let mut ws = Ws {
            socket,
            token: String::new(),
            copy: ViewCopy::default(),
        };
        ws.send(json!({"type": "hello", "token": null, "nickname": nickname, "lang": "en"}));
        let welcome = ws.expect("welcome");
        ws.token = welcome["token"].as_str().expect("a token").to_string();
        ws
    }

    fn send(&mut self, frame: Value) {
        self.socket
            .send(Message::text(frame.to_string()))
            .expect("the connection is open");
    }

    /// Reads frames until one of type `kind`; an error frame fails the test.
    fn expect(&mut self, kind: &str) -> Value {
        self.until(kind, |_| true)
    }

    /// Reads `state` frames until one satisfies `done`.
    fn state_until(&mut self, done: impl Fn(&Value) -> bool) -> Value {
        self.until("state", done)
    }

    /// Keeps the copy of the view with a `state` or `change` and gives the
    /// whole `state` frame.
    fn follow(&mut self, frame: Value) -> Value {
        self.copy
            .follow_json(frame.clone())
            .unwrap_or_else(|_| panic!("a change out of step: {frame}"))
    }

    fn until(&mut self, kind: &str, done: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < WAIT, "no {kind} frame in time");
            let message = self.socket.read().expect("a frame arrives in time");
            let Message::Text(text) = message else {
                continue;
            };
            let mut frame: Value =
                serde_json::from_str(text.as_str()).expect("the server sends JSON");
            if frame["type"] == "state" || frame["type"] == "change" {
                frame = self.follow(frame);
            }
            assert_ne!(frame["type"], "error", "refused: {frame}");
            if frame["type"] == kind && done(&frame) {
                return frame;
            }
        }
    }
}
