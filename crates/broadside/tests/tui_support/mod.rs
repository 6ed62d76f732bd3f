//! Drives the real `broadside` binary in a pseudo-terminal made by tmux: keys go
//! in with `send-keys`, the screen comes out with `capture-pane`.

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
    pub fn start(name: &str, dir: &Path, command: &str) -> Tmux {
        let socket = format!("broadside-{name}-{}", std::process::id());
        let tmux = Tmux { socket };
        let shell = format!("{command}; echo EXITED $?; sleep 600");
        let output = tmux.run(&[
            "new-session", "-d", "-x", "80", "-y", "24", "-c",
            &dir.to_string_lossy(), &shell,
        ]);
        assert!(output.status.success(), "tmux did not start: {}", String::from_utf8_lossy(&output.stderr));
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
        assert!(output.status.success(), "send-keys failed: {}", String::from_utf8_lossy(&output.stderr));
    }

    /// Types text literally (no key-name lookup).
    pub fn text(&self, text: &str) {
        let output = self.run(&["send-keys", "-t", "0", "-l", text]);
        assert!(output.status.success(), "send-keys failed: {}", String::from_utf8_lossy(&output.stderr));
    }

    /// The visible screen, one line per row.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "0"]).stdout).into_owned()
    }

    /// Waits until the screen contains `text`; returns that screen.
    pub fn wait_for(&self, text: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(start.elapsed() < timeout, "waited {timeout:?} for {text:?}; the screen is:\n{screen}");
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

/// The status line (the first row) of a screen.
pub fn status(screen: &str) -> &str {
    screen.lines().next().unwrap_or("")
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
