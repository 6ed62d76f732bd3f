//! The fuzz targets of Broadside as plain functions of the input bytes.
//!
//! Each function in [`targets`] is one target's whole body: it must not panic
//! (or abort) on any input. `fuzz/` wraps each in libFuzzer's `fuzz_target!`
//! for coverage-guided runs (`scripts/fuzz.sh`); `tests/corpora.rs` replays
//! every committed seed (`fuzz/seeds/<target>/`) through the same functions as
//! an ordinary test, so the test command checks them on a stable toolchain
//! without a sanitizer build.
//!
//! - [`decode`] reads input bytes as structured choices: the game a target
//!   starts from, commands and read-only queries.
//! - [`checks`] holds the checks every target makes after a move.
//! - [`mutate`] is the JSON-aware mutator of the `save_load` target.

pub mod checks;
pub mod decode;
pub mod mutate;
pub mod targets;

pub use checks::{check_views, milestone, RefusalCheck};
pub use decode::*;
pub use mutate::mutate_json;

/// A target's body: the whole check of one input.
pub type Target = fn(&[u8]);

/// The targets, by the names `fuzz/Cargo.toml` and `fuzz/seeds/` give them.
pub const TARGETS: [(&str, Target); 5] = [
    ("referee", targets::referee),
    ("engine_setup", targets::engine_setup),
    ("engine_commands", targets::engine_commands),
    ("save_load", targets::save_load),
    ("server_frames", targets::server_frames),
];
