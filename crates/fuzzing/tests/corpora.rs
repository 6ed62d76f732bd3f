//! Every committed fuzz seed (`fuzz/seeds/<target>/*`) replayed through its
//! target's body, as an ordinary test: what libFuzzer checks on each input
//! (no panic, the target's own assertions) holds for the whole corpus. The
//! coverage-guided runs that grow the corpus are `scripts/fuzz.sh`.

use std::path::{Path, PathBuf};

fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds")
}

fn seeds_of(target: &str) -> Vec<PathBuf> {
    let dir = seeds_dir().join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the seeds of {target} ({}): {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let (_, body) = broadside_fuzzing::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a known target");
    let seeds = seeds_of(target);
    assert!(!seeds.is_empty(), "{target} has no seeds");
    for seed in &seeds {
        let data = std::fs::read(seed).expect("a readable seed");
        eprintln!("{target}: {}", seed.display());
        body(&data);
    }
}

#[test]
fn every_seed_directory_is_a_target_and_every_target_has_seeds() {
    let mut dirs: Vec<String> = std::fs::read_dir(seeds_dir())
        .expect("fuzz/seeds")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    dirs.sort();
    let mut targets: Vec<String> = broadside_fuzzing::TARGETS
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    targets.sort();
    assert_eq!(dirs, targets);
}

#[test]
fn referee_seeds() {
    replay("referee");
}

#[test]
fn engine_setup_seeds() {
    replay("engine_setup");
}

#[test]
fn engine_commands_seeds() {
    replay("engine_commands");
}

#[test]
fn save_load_seeds() {
    replay("save_load");
}

#[test]
fn server_frames_seeds() {
    replay("server_frames");
}
