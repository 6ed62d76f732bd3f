//! libFuzzer's entry to the `server_frames` target; its body and what it checks are
//! `broadside_fuzzing::targets::server_frames` (crates/fuzzing).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| broadside_fuzzing::targets::server_frames(data));
