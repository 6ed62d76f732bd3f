//! The client in a real terminal: tmux runs this very test binary as the
//! program (with `BROADSIDE_TUI_CHILD` set it is `broadside_tui::run` with
//! a config read from the environment), keys go in with `send-keys` and the
//! screen comes out with `capture-pane`. The screen is captured as text,
//! without colours: what a terminal with `NO_COLOR` shows.
//!
//! `harness = false` (Cargo.toml): the binary needs its own `main` to be
//! the program as well as the tests.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use broadside_tui::{Config, Lang};

const WAIT: Duration = Duration::from_secs(20);

fn main() {
    if std::env::var_os("BROADSIDE_TUI_CHILD").is_some() {
        return child();
    }
    let tests: [(&str, fn()); 3] = [
        (
            "with_the_server_unreachable_q_quits_at_once",
            with_the_server_unreachable_q_quits_at_once,
        ),
        (
            "hot_seat_hides_the_boards_and_vi_keys_move_the_ship",
            hot_seat_hides_the_boards_and_vi_keys_move_the_ship,
        ),
        (
            "twenty_columns_stay_legible_at_120_columns",
            twenty_columns_stay_legible_at_120_columns,
        ),
    ];
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut failed = Vec::new();
    let mut passed = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        match std::panic::catch_unwind(test) {
            Ok(()) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(name);
            }
        }
    }
    println!(
        "\ntest result: {}. {passed} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(101);
    }
}

/// The program side: the client with the config the test put in the
/// environment.
fn child() {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let config = Config {
        server: var("TUI_SERVER"),
        seed: var("TUI_SEED").and_then(|s| s.parse().ok()),
        hot_seat: var("TUI_HOT_SEAT").and_then(|s| s.parse().ok()),
        lang: var("TUI_LANG")
            .and_then(|l| Lang::parse(&l))
            .unwrap_or(Lang::En),
        ..Config::default()
    };
    if let Err(e) = broadside_tui::run(config) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

/// One tmux server (its own socket) running this binary as the client.
struct Tmux {
    socket: String,
    /// The program's working directory, removed at the end.
    dir: PathBuf,
}

impl Tmux {
    /// Starts the client with `env` (`NAME=value` words) in a window of
    /// `width`×`height`; after it ends the window prints `EXITED <code>`.
    fn start(name: &str, env: &str, width: u16, height: u16) -> Tmux {
        let socket = format!("broadside-tui-{name}-{}", std::process::id());
        let dir = temp_dir(name);
        let tmux = Tmux {
            socket,
            dir: dir.clone(),
        };
        let exe = std::env::current_exe().expect("the test binary knows its path");
        let shell = format!(
            "unset LC_ALL LC_MESSAGES; export LANG=C.UTF-8 BROADSIDE_TUI_CHILD=1 {env}; '{}'; echo EXITED $?; sleep 600",
            exe.display()
        );
        let output = tmux.run(&[
            "new-session",
            "-d",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "-c",
            &dir.to_string_lossy(),
            &shell,
        ]);
        assert!(
            output.status.success(),
            "tmux did not start: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux must be installed (apt-get install tmux) to drive the terminal client")
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success(), "send-keys failed");
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "0"]).stdout).into_owned()
    }

    /// Waits until a settled screen satisfies `ready`; returns that screen.
    fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut last = String::new();
        loop {
            let screen = self.screen();
            if screen == last && ready(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < WAIT,
                "waited {WAIT:?} for {what}; the screen is:\n{screen}"
            );
            last = screen;
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait_until(text, |screen| screen.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("broadside-tui-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}

/// A board row of the left board: the line that starts with its label.
fn row<'a>(screen: &'a str, label: &str) -> &'a str {
    let prefix = format!(" {label} ");
    screen
        .lines()
        .find(|l| l.starts_with(&prefix))
        .map(|l| l.split('│').next().unwrap_or(l))
        .unwrap_or("")
}

/// Issue 35: with nothing at the address, "Waiting for the server…" and the
/// reconnection notice show in words of the language, and the first q ends
/// the program (it opened a menu before).
fn with_the_server_unreachable_q_quits_at_once() {
    // Port 1 on loopback: nothing listens there.
    let tmux = Tmux::start(
        "unreachable",
        "TUI_SERVER=http://127.0.0.1:1 TUI_LANG=it",
        100,
        24,
    );
    let screen = tmux.wait_for("impossibile raggiungere 127.0.0.1:1");
    assert!(!screen.contains("cannot reach"), "{screen}");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("EXITED");
    assert!(screen.contains("EXITED 0"), "{screen}");
}

/// Issue 35: two people at one terminal. Between their turns a screen hides
/// every board; h j k l move the ship like the arrows; where the ship does
/// not fit it is drawn with x, where it fits with @ (no colour needed).
fn hot_seat_hides_the_boards_and_vi_keys_move_the_ship() {
    let tmux = Tmux::start("hot-seat", "TUI_HOT_SEAT=2 TUI_SEED=3", 80, 24);
    tmux.wait_for("2 people at this terminal");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Placement: ship 1 of 10");
    assert!(row(&screen, "A").contains("@ @ @ @"), "{screen}");
    // The battleship at A1; the cruiser below it would touch it: x.
    tmux.keys(&["Enter"]);
    tmux.wait_for("Placement: ship 2 of 10");
    tmux.keys(&["j"]);
    let screen = tmux.wait_until("the cruiser on row B", |s| row(s, "B").contains("x x x"));
    assert!(!row(&screen, "B").contains('@'), "{screen}");
    // l moves it right, away from the battleship: @.
    tmux.keys(&["l", "l", "l", "l", "l", "l"]);
    let screen = tmux.wait_until("the cruiser at B7", |s| {
        row(s, "B").contains("~ ~ ~ ~ ~ ~ @ @ @")
    });
    assert!(
        screen.contains("x no fit") && screen.contains("@ fits"),
        "{screen}"
    );
    // k up to row A, h left until it touches the battleship: x again.
    tmux.keys(&["k"]);
    tmux.wait_until("the cruiser at A7", |s| {
        row(s, "A").contains("* * * * ~ ~ @ @ @")
    });
    tmux.keys(&["h", "h"]);
    tmux.wait_until("the cruiser at A5", |s| {
        row(s, "A").contains("* * * * x x x")
    });
    // The rest at random, and the fleet is ready: the terminal is handed over.
    tmux.keys(&["Space"]);
    tmux.wait_for("Enter to confirm");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Pass the terminal to Player 2.");
    assert!(
        !screen.contains('~') && !screen.contains("waters"),
        "a board shows between turns:\n{screen}"
    );
    // Keys other than Enter do nothing there.
    tmux.keys(&["Space", "x"]);
    std::thread::sleep(Duration::from_millis(200));
    assert!(tmux.screen().contains("Pass the terminal to Player 2."));
    tmux.keys(&["Enter"]);
    tmux.wait_for("Placement: ship 1 of 10");
    tmux.keys(&["Space"]);
    tmux.wait_for("Enter to confirm");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Pass the terminal to Player 1.");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Your turn: fire at Player 2");
    tmux.keys(&["C-c"]);
    let screen = tmux.wait_for("EXITED");
    assert!(screen.contains("EXITED 0"), "{screen}");
}

/// Issue 35: a board of 20 columns at 120 columns has two-character cells;
/// its numbers stand in two rows (tens over units) instead of "1011121314".
fn twenty_columns_stay_legible_at_120_columns() {
    let tmux = Tmux::start("space", "TUI_SEED=5", 120, 40);
    tmux.wait_for("New game");
    tmux.keys(&["n"]);
    tmux.wait_for("Rules");
    // Space is the preset after Classic's neighbours: step until it shows.
    for _ in 0..10 {
        if tmux.screen().contains("< Space >") {
            break;
        }
        tmux.keys(&["Right"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.wait_for("< Space >");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Shop");
    tmux.keys(&["d", "Enter"]);
    tmux.wait_for("Placement: ship 1 of");
    let screen = tmux.screen();
    assert!(!screen.contains("1011"), "{screen}");
    assert!(
        screen.contains("1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0"),
        "{screen}"
    );
    assert!(screen.contains("1 1 1 1 1 1 1 1 1 1 2"), "{screen}");
    tmux.keys(&["C-c"]);
    tmux.wait_for("EXITED 0");
}
