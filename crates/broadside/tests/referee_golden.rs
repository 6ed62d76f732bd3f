//! Golden transcripts of `broadside referee` (docs/referee.md): each
//! `tests/golden/NAME.in.jsonl` is fed to the real binary over stdin and its
//! stdout must equal `tests/golden/NAME.out.jsonl` byte for byte. Run with
//! `BROADSIDE_BLESS=1` to rewrite the expected files after a deliberate change
//! (and read the diff before committing it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn run_referee(input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_broadside"))
        .arg("referee")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the broadside binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input)
        .expect("the referee reads its input");
    let output = child.wait_with_output().expect("the referee ends");
    assert!(
        output.status.success(),
        "the referee exits 0 at end of input: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn transcripts() -> Vec<(String, PathBuf, PathBuf)> {
    let mut names: Vec<_> = std::fs::read_dir(golden_dir())
        .expect("the golden folder exists")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".in.jsonl").map(str::to_string)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let input = golden_dir().join(format!("{name}.in.jsonl"));
            let output = golden_dir().join(format!("{name}.out.jsonl"));
            (name, input, output)
        })
        .collect()
}

#[test]
fn referee_matches_every_golden_transcript() {
    let bless = std::env::var_os("BROADSIDE_BLESS").is_some();
    let all = transcripts();
    assert!(all.len() >= 6, "the golden transcripts are there");
    for (name, input, expected) in all {
        let input = std::fs::read(&input).expect("readable input");
        let actual = run_referee(&input);
        let answers = actual.iter().filter(|&&b| b == b'\n').count();
        let commands = input
            .split(|&b| b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .count();
        assert_eq!(answers, commands, "{name}: one answer per command");
        if bless {
            std::fs::write(&expected, &actual).expect("writable golden file");
            continue;
        }
        let expected =
            std::fs::read(&expected).unwrap_or_else(|_| panic!("{name}: missing golden output"));
        if actual != expected {
            let actual = String::from_utf8_lossy(&actual);
            let expected = String::from_utf8_lossy(&expected);
            for (line, (a, e)) in actual.lines().zip(expected.lines()).enumerate() {
                assert_eq!(a, e, "{name}: answer {} differs", line + 1);
            }
            panic!("{name}: the transcripts differ in length");
        }
    }
}

#[test]
fn golden_transcripts_cover_every_command_and_error_code() {
    let mut inputs = String::new();
    let mut outputs = String::new();
    for (_, input, output) in transcripts() {
        inputs.push_str(&std::fs::read_to_string(input).unwrap());
        outputs.push_str(&std::fs::read_to_string(output).unwrap_or_default());
    }
    for cmd in [
        "new", "buy", "place", "fire", "volley", "ability", "salvo", "timeout", "view", "state",
        "save", "load",
    ] {
        assert!(
            inputs.contains(&format!("\"cmd\":\"{cmd}\"")),
            "no transcript uses {cmd}"
        );
    }
    for kind in [
        "laser", "scanner", "nuke", "reserve", "wide", "bombard", "radar",
    ] {
        assert!(
            inputs.contains(&format!("\"kind\":\"{kind}\"")),
            "no transcript uses the {kind} ability"
        );
    }
    let codes = [
        "bad_json",
        "unknown_cmd",
        "no_game",
        "bad_command",
        "game_over",
        "wrong_phase",
        "not_your_turn",
        "own_board",
        "own_team",
        "unknown_ship",
        "capital_limit",
        "type_limit",
        "over_budget",
        "fleet_does_not_fit",
        "wrong_fleet",
        "out_of_bounds",
        "outside_own_waters",
        "ships_overlap",
        "ships_touch",
        "wrong_shot_count",
        "duplicate_target",
        "ability_unavailable",
        "no_uses_left",
        "ability_not_ready",
        "not_targetable",
        "already_submitted",
    ];
    for code in codes {
        assert!(
            outputs.contains(&format!("\"code\":\"{code}\"")),
            "no transcript shows the error {code}"
        );
    }
}

#[test]
fn same_input_gives_the_same_answers_byte_for_byte() {
    for (_, input, _) in transcripts() {
        let input = std::fs::read(input).unwrap();
        assert_eq!(run_referee(&input), run_referee(&input));
    }
}
