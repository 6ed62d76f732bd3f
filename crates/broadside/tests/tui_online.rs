//! The terminal client online: `broadside play --server` creates a room on a
//! real `broadside serve`, starts it against a bot, places at random and plays
//! the game to the end over the WebSocket protocol (docs/protocol.md).

mod tui_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use broadside_engine::{label, Cell, LetterAxis};
use tui_support::{status, temp_dir, Tmux};

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args(["serve", "--addr", "127.0.0.1:0", "--bot-delay-ms", "20", "--db"])
        .arg(dir.join("db.sqlite"))
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the broadside binary starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let server = Server(child);
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).expect("the server prints its address");
    let start = first.find("http://").expect("the first line names the address");
    let address: String = first[start..].chars().take_while(|c| !c.is_whitespace()).collect();
    (server, address.trim_end_matches('/').to_string())
}

#[test]
fn tui_plays_an_online_game_against_broadside_serve_to_the_end() {
    let dir = temp_dir("tui-online");
    let (_server, address) = serve(&dir);
    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start("online", &dir, &format!("'{binary}' play --server {address} --name Tester"));

    // A new room: classic, one bot; the host starts it.
    tmux.wait_for("Choose the game for your new room", WAIT);
    tmux.keys(&["Enter"]);
    let lobby = tmux.wait_for("Enter starts the game", WAIT);
    assert!(lobby.contains("Seat 1: Tester (you)") && lobby.contains("Seat 2: Bot 1"), "{lobby}");
    assert!(lobby.contains(&format!("Invite link: {address}/r/")), "{lobby}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Placement: ship 1 of 10", WAIT);
    tmux.keys(&["Space"]);
    tmux.wait_for("fleet complete", WAIT);
    tmux.keys(&["Enter"]);

    // Fire at every cell in turn (labels typed), pass after pass, until the end.
    let labels: Vec<String> = (0..10u16)
        .flat_map(|row| (0..10u16).map(move |col| label(LetterAxis::Rows, Cell::new(col, row))))
        .collect();
    let mut next = 0;
    let start = Instant::now();
    let mut screen = tmux.screen();
    while !status(&screen).contains("Game over") {
        assert!(start.elapsed() < Duration::from_secs(240), "the game did not end:\n{screen}");
        if status(&screen).contains("Your turn") {
            tmux.text(&format!(":{}", labels[next]));
            tmux.keys(&["Enter"]);
            next = (next + 1) % labels.len();
        }
        std::thread::sleep(Duration::from_millis(40));
        screen = tmux.screen();
    }
    assert!(screen.contains("Game over:"), "the log tells the end:\n{screen}");
    let won = status(&screen).contains("YOU WIN") && screen.contains("0/10");
    let lost = status(&screen).contains("Bot 1 won");
    assert!(won || lost, "{screen}");

    // q leaves a finished game and ends the program cleanly.
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("EXITED", WAIT);
    assert!(screen.contains("EXITED 0"), "{screen}");
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}
