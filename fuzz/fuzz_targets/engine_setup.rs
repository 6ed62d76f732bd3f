//! libFuzzer's entry to the `engine_setup` target; its body and what it checks are
//! `broadside_fuzzing::targets::engine_setup` (crates/fuzzing).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| broadside_fuzzing::targets::engine_setup(data));
