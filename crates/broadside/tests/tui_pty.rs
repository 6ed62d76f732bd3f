//! The terminal client in a real pseudo-terminal: a new game against a bot,
//! random placement, a shot, a save, quitting, loading the save, and the same
//! position on the screen again; the terminal is restored on exit.

mod tui_support;

use std::time::Duration;

use tui_support::{boards, status, temp_dir, Tmux};

const WAIT: Duration = Duration::from_secs(20);

#[test]
fn tui_new_game_fire_save_quit_load_same_position() {
    let dir = temp_dir("tui-pty");
    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start("pty", &dir, &format!("'{binary}' play --seed 11"));
    tmux.wait_for("New game", WAIT);

    // New game with the defaults: classic, one medium bot.
    tmux.keys(&["n"]);
    tmux.wait_for("[ Start ]", WAIT);
    tmux.keys(&["Enter"]);
    tmux.wait_for("Placement: ship 1 of 10", WAIT);
    tmux.keys(&["Space"]);
    tmux.wait_for("Enter to confirm", WAIT);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Your turn", WAIT);
    assert!(screen.contains("Your waters") && screen.contains("Bot 1's waters"), "{screen}");

    // Fire at B7 by typing its label, then wait for the bot to give the turn back.
    tmux.text(":B7");
    tmux.keys(&["Enter"]);
    tmux.wait_for("You fire at Bot 1's B7", WAIT);
    let mut screen = tmux.screen();
    for _ in 0..200 {
        if status(&screen).contains("Your turn") || status(&screen).contains("Game over") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        screen = tmux.screen();
    }
    assert!(status(&screen).contains("Your turn"), "{screen}");
    let before = boards(&screen);
    assert!(before.contains(['O', 'X', '#']), "the shot shows on the board:\n{before}");

    // Save under the proposed name, then leave to the menu.
    tmux.keys(&["s"]);
    tmux.wait_for("Save to file: broadside-save.json", WAIT);
    tmux.keys(&["Enter"]);
    tmux.wait_for("Saved to broadside-save.json", WAIT);
    assert!(dir.join("broadside-save.json").is_file());
    tmux.keys(&["q"]);
    tmux.wait_for("Leave this game?", WAIT);
    tmux.keys(&["y"]);
    tmux.wait_for("Load game", WAIT);

    // Load it back: the same boards.
    tmux.keys(&["l"]);
    tmux.wait_for("Load file: broadside-save.json", WAIT);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Loaded broadside-save.json", WAIT);
    assert!(status(&screen).contains("Your turn"), "{screen}");
    assert_eq!(boards(&screen), before, "the loaded game shows another position:\n{screen}");

    // Quit from the game and the menu; the program ends cleanly and the
    // alternate screen is gone.
    tmux.keys(&["q"]);
    tmux.wait_for("Leave this game?", WAIT);
    tmux.keys(&["y"]);
    tmux.wait_for("Load game", WAIT);
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("EXITED", WAIT);
    assert!(screen.contains("EXITED 0"), "{screen}");
    assert!(!screen.contains("Legend") && !screen.contains("Load game"), "the terminal was not restored:\n{screen}");
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

#[test]
fn tui_load_flag_reports_a_missing_file() {
    // `--load` with a file that does not exist shows the reason on the menu
    // instead of failing, and q quits cleanly.
    let dir = temp_dir("tui-load");
    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start("load", &dir, &format!("'{binary}' play --load missing.json"));
    let screen = tmux.wait_for("Cannot read missing.json", WAIT);
    assert!(screen.contains("New game"), "{screen}");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("EXITED", WAIT);
    assert!(screen.contains("EXITED 0"), "{screen}");
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}
