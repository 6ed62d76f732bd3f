//! Who this terminal is online: the session token it keeps, one per running
//! terminal, and the nickname remembered from the last `--name`.
//!
//! Two terminals that read the same token file would be one person to the
//! server, and the second `--room` would take over the first one's seat. So
//! a running terminal claims its token file with a lock file beside it; a
//! second terminal finds the file in use and takes the next one (`token.2`,
//! `token.3`, …), which holds a guest of its own (a fresh token the first
//! time). The common case, one terminal at a time, always gets the first
//! file: the stored player, with its ratings and unfinished games.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How many terminals may run at once with tokens of their own; a further
/// one plays without keeping its token.
const SLOTS: usize = 16;

/// A token file claimed by this process until it is dropped.
#[derive(Debug)]
pub struct TokenSlot {
    /// The token file itself.
    pub path: PathBuf,
    /// `<token file>.lock`, holding this process's id.
    lock: PathBuf,
}

impl TokenSlot {
    /// Claims the first token file of `base`, `base.2`, `base.3`, … that no
    /// running terminal holds. A lock left by a process that is gone (a
    /// crash, a closed window) is taken over. `None` when every slot is taken
    /// or the directory cannot be written.
    pub fn claim(base: &Path) -> Option<TokenSlot> {
        if let Some(dir) = base.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).ok()?;
            }
        }
        (1..=SLOTS).find_map(|n| {
            let path = if n == 1 {
                base.to_path_buf()
            } else {
                let mut name = base.as_os_str().to_os_string();
                name.push(format!(".{n}"));
                PathBuf::from(name)
            };
            let mut lock = path.as_os_str().to_os_string();
            lock.push(".lock");
            let lock = PathBuf::from(lock);
            try_lock(&lock).then_some(TokenSlot { path, lock })
        })
    }
}

impl Drop for TokenSlot {
    fn drop(&mut self) {
        // Only our own lock: a later terminal may have taken over a lock
        // that was wrongly judged stale.
        if read_pid(&self.lock) == Some(std::process::id()) {
            let _ = std::fs::remove_file(&self.lock);
        }
    }
}

/// Creates `lock` with this process's id; takes it over once if its holder
/// is gone.
fn try_lock(lock: &Path) -> bool {
    for _ in 0..2 {
        match OpenOptions::new().write(true).create_new(true).open(lock) {
            Ok(mut file) => return write!(file, "{}", std::process::id()).is_ok(),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let holder = read_pid(lock);
                if holder.is_some_and(alive) {
                    return false;
                }
                // Stale (or half-written by a process that died at once).
                if std::fs::remove_file(lock).is_err() {
                    return false;
                }
            }
            Err(_) => return false,
        }
    }
    false
}

fn read_pid(lock: &Path) -> Option<u32> {
    std::fs::read_to_string(lock).ok()?.trim().parse().ok()
}

/// Whether a process runs with this id. Where `/proc` tells (Linux), it
/// decides; elsewhere a lock is taken as held, so the terminal falls back
/// to the next token file rather than share one.
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc = Path::new("/proc");
    if proc.join("self").exists() {
        proc.join(pid.to_string()).exists()
    } else {
        true
    }
}

/// The nickname to play under: `given` (`--name`), which is then kept in
/// `file` for next time, else the one kept there before.
pub fn remembered_name(file: Option<&Path>, given: Option<String>) -> Option<String> {
    let given = given.map(|name| name.trim().to_string());
    match (given, file) {
        (Some(name), Some(file)) if !name.is_empty() => {
            if let Some(dir) = file.parent() {
                if !dir.as_os_str().is_empty() {
                    let _ = std::fs::create_dir_all(dir);
                }
            }
            // Not kept: the name is still used this time.
            let _ = std::fs::write(file, &name);
            Some(name)
        }
        (Some(name), _) if !name.is_empty() => Some(name),
        (_, Some(file)) => {
            let kept = std::fs::read_to_string(file).ok()?;
            let kept = kept.trim();
            (!kept.is_empty()).then(|| kept.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("broadside-identity-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temp dir");
        dir
    }

    #[test]
    fn a_second_terminal_gets_a_token_file_of_its_own() {
        let dir = temp("slots");
        let base = dir.join("token");
        let first = TokenSlot::claim(&base).expect("the first slot");
        assert_eq!(first.path, base);
        let second = TokenSlot::claim(&base).expect("the second slot");
        assert_eq!(second.path, dir.join("token.2"));
        // The first terminal ends: the next one gets the stored player back.
        drop(first);
        let third = TokenSlot::claim(&base).expect("the first slot again");
        assert_eq!(third.path, base);
        drop(second);
        drop(third);
        assert!(!dir.join("token.lock").exists() && !dir.join("token.2.lock").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_lock_left_by_a_process_that_is_gone_is_taken_over() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let dir = temp("stale");
        let base = dir.join("token");
        // No process has this id (above the kernel's maximum of 2^22).
        std::fs::write(dir.join("token.lock"), "4999999").expect("a lock");
        let slot = TokenSlot::claim(&base).expect("the stale slot");
        assert_eq!(slot.path, base);
        assert_eq!(read_pid(&dir.join("token.lock")), Some(std::process::id()));
        drop(slot);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_name_given_is_remembered_for_next_time() {
        let dir = temp("name");
        let file = dir.join("sub").join("name");
        assert_eq!(remembered_name(Some(&file), None), None);
        assert_eq!(
            remembered_name(Some(&file), Some("Ana".into())),
            Some("Ana".into())
        );
        assert_eq!(remembered_name(Some(&file), None), Some("Ana".into()));
        assert_eq!(
            remembered_name(Some(&file), Some("Bea".into())),
            Some("Bea".into())
        );
        assert_eq!(remembered_name(Some(&file), None), Some("Bea".into()));
        assert_eq!(
            remembered_name(None, Some("Rui".into())),
            Some("Rui".into())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
