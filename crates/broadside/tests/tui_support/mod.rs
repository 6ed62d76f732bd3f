//! Drives the real `broadside` binary in a pseudo-terminal made by tmux: keys go
//! in with `send-keys`, the screen comes out with `capture-pane`.

// Each test binary includes this module and uses only part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// One tmux server (its own socket) running one program in an 80×24 window.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` (a shell command line) in `dir`. After the program ends
    /// the window prints `EXITED <code>` and stays, so its last screen can be read.
    /// The locale is English whatever the machine's, so the tests read English
    /// words; a command may set its own (`LANG=pt_BR.UTF-8 broadside play`).
    pub fn start(name: &str, dir: &Path, command: &str) -> Tmux {
        let socket = format!("broadside-{name}-{}", std::process::id());
        let tmux = Tmux { socket };
        let shell = format!(
            "unset LC_ALL LC_MESSAGES; export LANG=C.UTF-8; {command}; echo EXITED $?; sleep 600"
        );
        let output = tmux.run(&[
            "new-session",
            "-d",
            "-x",
            "80",
            "-y",
            "24",
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

    /// Sends keys as tmux names them (`Enter`, `Space`, `Down`, or literal text).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        let output = self.run(&args);
        assert!(
            output.status.success(),
            "send-keys failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Types text literally (no key-name lookup).
    pub fn text(&self, text: &str) {
        let output = self.run(&["send-keys", "-t", "0", "-l", text]);
        assert!(
            output.status.success(),
            "send-keys failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Resizes the window, as a person dragging the terminal's corner would.
    pub fn resize(&self, width: u16, height: u16) {
        let output = self.run(&[
            "resize-window",
            "-t",
            "0",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
        assert!(
            output.status.success(),
            "resize-window failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// The visible screen, one line per row.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "0"]).stdout).into_owned()
    }

    /// Waits until the screen contains `text` and has stopped changing (a
    /// capture may catch a screen half redrawn); returns that screen.
    pub fn wait_for(&self, text: &str, timeout: Duration) -> String {
        self.wait_for_all(&[text], timeout)
    }

    /// Waits until a settled screen satisfies `ready`; returns that screen.
    pub fn wait_until(
        &self,
        what: &str,
        timeout: Duration,
        ready: impl Fn(&str) -> bool,
    ) -> String {
        let start = Instant::now();
        let mut last = String::new();
        loop {
            let screen = self.screen();
            if screen == last && ready(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < timeout,
                "waited {timeout:?} for {what}; the screen is:\n{screen}"
            );
            last = screen;
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Like [`Tmux::wait_for`], for several texts at once.
    pub fn wait_for_all(&self, texts: &[&str], timeout: Duration) -> String {
        let start = Instant::now();
        let mut last = String::new();
        loop {
            let screen = self.screen();
            if texts.iter().all(|t| screen.contains(t)) && screen == last {
                return screen;
            }
            assert!(
                start.elapsed() < timeout,
                "waited {timeout:?} for {texts:?}; the screen is:\n{screen}"
            );
            last = screen;
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        // Ends the tmux server and the program in it.
        let _ = self.run(&["kill-server"]);
    }
}

/// Presses q where q ends the program, and checks that it ended cleanly.
pub fn quit(tmux: &Tmux) {
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("EXITED", Duration::from_secs(20));
    assert!(screen.contains("EXITED 0"), "{screen}");
}

/// The status line (the first row) of a screen.
pub fn status(screen: &str) -> &str {
    screen.lines().next().unwrap_or("")
}

/// The mark of a cell of the target board (the right-hand board of a classic
/// battle screen, two characters per cell): `row` is its letter, `column` 1-based.
pub fn target_mark(screen: &str, row: char, column: usize) -> Option<char> {
    let prefix = format!(" {row} ");
    let line = screen.lines().find(|line| line.starts_with(&prefix))?;
    line.rsplit(&prefix).next()?.chars().nth((column - 1) * 2)
}

/// The board rows of a screen: rows 2 to 13 without the side panel.
pub fn boards(screen: &str) -> String {
    screen
        .lines()
        .skip(1)
        .take(13)
        .map(|line| line.chars().take(50).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A fresh, empty directory under the system's temp dir.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("broadside-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}
