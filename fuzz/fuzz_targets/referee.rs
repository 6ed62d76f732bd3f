//! libFuzzer's entry to the `referee` target; its body and what it checks are
//! `broadside_fuzzing::targets::referee` (crates/fuzzing).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| broadside_fuzzing::targets::referee(data));
