//! libFuzzer's entry to the `save_load` target; its body and what it checks are
//! `broadside_fuzzing::targets::save_load` (crates/fuzzing).
//!
//! A custom mutator edits saves as JSON (`broadside_fuzzing::mutate_json`), so
//! that inputs get past the parser to the consistency checks of `Game::load`.

#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| broadside_fuzzing::targets::save_load(data));

// Half of the mutations edit the save (the first line) as JSON, so that inputs
// get past the parser; the others are libFuzzer's own, on the bytes.
fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    if seed.is_multiple_of(2) {
        return fuzzer_mutate(data, size, max_size);
    }
    let end = data[..size]
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(size);
    match broadside_fuzzing::mutate_json(&data[..end], seed as u64) {
        Some(mut mutated) if mutated.len() + (size - end) <= max_size => {
            mutated.extend_from_slice(&data[end..size]);
            data[..mutated.len()].copy_from_slice(&mutated);
            mutated.len()
        }
        _ => fuzzer_mutate(data, size, max_size),
    }
});
