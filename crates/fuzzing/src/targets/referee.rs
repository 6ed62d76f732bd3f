//! The referee as `broadside referee` runs it: the input, read as UTF-8 (lossy),
//! is fed line by line through `broadside_referee::run`. It must never panic,
//! and must answer every non-blank line with exactly one line holding a JSON
//! object with a boolean `ok`.

use serde_json::Value;

/// The target's body: see the module's documentation.
pub fn referee(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut output = Vec::new();
    broadside_referee::run(text.as_bytes(), &mut output).expect("writing to a Vec cannot fail");
    let output = String::from_utf8(output).expect("answers are UTF-8");
    let expected = text.lines().filter(|l| !l.trim().is_empty()).count();
    let mut answers = 0;
    for line in output.lines() {
        let answer: Value = serde_json::from_str(line).expect("every answer is JSON");
        let object = answer.as_object().expect("every answer is a JSON object");
        assert!(
            object.get("ok").is_some_and(Value::is_boolean),
            "every answer has ok: {line}"
        );
        answers += 1;
    }
    assert_eq!(answers, expected, "one answer per non-blank line");
}
