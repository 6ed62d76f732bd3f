//! libFuzzer's entry to the `engine_commands` target; its body and what it checks are
//! `broadside_fuzzing::targets::engine_commands` (crates/fuzzing).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| broadside_fuzzing::targets::engine_commands(data));
