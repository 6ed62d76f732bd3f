//! The terminal client in a real pseudo-terminal: a new game against a bot,
//! random placement, a shot, a save, quitting, loading the save, and the same
//! position on the screen again; the terminal is restored on exit.

mod tui_support;

use std::time::Duration;

use tui_support::{boards, quit, status, target_mark, temp_dir, Tmux};

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
    tmux.wait_for_all(&["Your turn: fire", "Your waters", "Bot 1's waters"], WAIT);

    // Fire at B7 by typing its label, then wait for the bot to give the turn back.
    tmux.text(":B7");
    tmux.keys(&["Enter"]);
    // The shot shows on the target board, and the turn comes back ("Your
    // turn: fire" is the status line only; the log says "Your turn.").
    let screen = tmux.wait_until("the shot at B7 and the turn", WAIT, |screen| {
        matches!(target_mark(screen, 'B', 7), Some('O' | 'X' | '#'))
            && screen.contains("Your turn: fire")
    });
    let before = boards(&screen);

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
    assert_eq!(
        boards(&screen),
        before,
        "the loaded game shows another position:\n{screen}"
    );

    // Quit from the game and the menu; the program ends cleanly and the
    // alternate screen is gone.
    tmux.keys(&["q"]);
    tmux.wait_for("Leave this game?", WAIT);
    tmux.keys(&["y"]);
    tmux.wait_for("Load game", WAIT);
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("EXITED", WAIT);
    assert!(screen.contains("EXITED 0"), "{screen}");
    assert!(
        !screen.contains("Legend") && !screen.contains("Load game"),
        "the terminal was not restored:\n{screen}"
    );
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

#[test]
fn tui_load_flag_reports_a_missing_file() {
    // `--load` with a file that does not exist shows the reason on the menu
    // instead of failing, and q quits cleanly.
    let dir = temp_dir("tui-load");
    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start(
        "load",
        &dir,
        &format!("'{binary}' play --load missing.json"),
    );
    let screen = tmux.wait_for("Cannot read missing.json", WAIT);
    assert!(screen.contains("New game"), "{screen}");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("EXITED", WAIT);
    assert!(screen.contains("EXITED 0"), "{screen}");
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

#[test]
fn tui_resizes_cleanly() {
    let dir = temp_dir("tui-resize");
    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start("resize", &dir, &format!("'{binary}' play --seed 3"));
    tmux.wait_for("New game", WAIT);
    tmux.keys(&["n"]);
    tmux.wait_for("[ Start ]", WAIT);
    tmux.keys(&["Enter"]);
    tmux.wait_for("Placement: ship 1 of 10", WAIT);
    tmux.keys(&["Space"]);
    tmux.wait_for("Enter to confirm", WAIT);
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(&["Your turn: fire", "Your waters", "Legend"], WAIT);

    // Narrow: one board at a time, no panel; v shows the other board.
    tmux.resize(26, 18);
    let narrow = tmux.wait_for("Bot 1's waters", WAIT);
    assert!(
        !narrow.contains("Your waters") && !narrow.contains("Legend"),
        "{narrow}"
    );
    assert!(
        narrow.lines().all(|line| line.chars().count() <= 26),
        "{narrow}"
    );
    tmux.keys(&["v"]);
    let own = tmux.wait_for("Your waters", WAIT);
    assert!(!own.contains("Bot 1's waters"), "{own}");

    // Wide again: both boards and the legend, nothing left over from before.
    tmux.resize(100, 30);
    let wide = tmux.wait_for_all(&["Your waters", "Bot 1's waters", "Legend"], WAIT);
    assert!(wide.lines().count() >= 24, "{wide}");
    tmux.keys(&["q"]);
    tmux.wait_for("Leave this game?", WAIT);
    tmux.keys(&["y"]);
    tmux.wait_for("Load game", WAIT);
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("EXITED", WAIT);
    assert!(screen.contains("EXITED 0"), "{screen}");
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

/// Issue 15 item 16: `--lang it` speaks Italian from the start menu on, with
/// the words of the web client's catalogue.
#[test]
fn tui_lang_it_shows_the_start_menu_in_italian() {
    let dir = temp_dir("tui-lang-it");
    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start("lang-it", &dir, &format!("'{binary}' play --lang it"));
    let screen = tmux.wait_for_all(
        &[
            "Nuova partita",
            "Carica partita",
            "Esci",
            "battaglie navali nel terminale",
        ],
        WAIT,
    );
    assert!(
        screen.contains("n nuova partita") && !screen.contains("New game"),
        "{screen}"
    );
    // The New Game form too: the rules by their Italian names.
    tmux.keys(&["n"]);
    tmux.wait_for_all(&["Broadside · Nuova partita", "Regole", "[ Inizia ]"], WAIT);
    tmux.keys(&["Escape"]);
    tmux.wait_for("Carica partita", WAIT);
    quit(&tmux);
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

/// Without `--lang` the locale decides: LANG=pt_BR.UTF-8 is Brazilian
/// Portuguese ("Nova partida"), not the European "Novo jogo".
#[test]
fn tui_lang_pt_br_comes_from_the_locale() {
    let dir = temp_dir("tui-lang-pt-br");
    let binary = env!("CARGO_BIN_EXE_broadside");
    let tmux = Tmux::start(
        "lang-pt-br",
        &dir,
        &format!("LANG=pt_BR.UTF-8 '{binary}' play"),
    );
    let screen = tmux.wait_for_all(&["Nova partida", "Carregar partida", "Sair"], WAIT);
    assert!(!screen.contains("Novo jogo"), "European words:\n{screen}");
    quit(&tmux);
    drop(tmux);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

/// An unknown `--lang` is refused with the list of languages.
#[test]
fn tui_lang_refuses_an_unknown_language() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args(["play", "--lang", "de"])
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("unknown language 'de'") && error.contains("pt-PT, pt-BR, es, it, en"),
        "{error}"
    );
}
