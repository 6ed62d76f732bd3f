//! The frames of docs/protocol.md are defined in `broadside-protocol`
//! (crates/protocol), re-exported here; this module keeps the server's own
//! policy about them: which names and chat lines it accepts, and how a
//! client's command gets its seat.

use broadside_ai::Level;
use broadside_engine::Intent;
pub use broadside_protocol::{
    close, codes, parse, AccountInfo, AccountRating, BlockedPlayer, BotLevel, ClientFrame,
    CreateRoom, Hello, PasskeyInfo, Refusal, Role, SeatChoice, ServerFrame, SetOptions, LANGUAGES,
    MAX_CHAT_CHARS, MAX_FRAME_BYTES, MAX_NICKNAME_CHARS,
};
use broadside_protocol::{SeatKind, SeatSummary};
use icu_properties::props::{
    DefaultIgnorableCodePoint, GeneralCategory as G, GeneralCategoryGroup, WhiteSpace,
};
use icu_properties::{CodePointMapData, CodePointSetData};
use serde_json::{Map, Value};

use crate::db::SeatRecord;

/// The bots' level of a wire level (the two enums share their ids).
pub fn ai_level(level: BotLevel) -> Level {
    Level::from_id(level.id()).expect("every wire level is a level of the bots")
}

/// The wire level of a bots' level.
pub fn wire_level(level: Level) -> BotLevel {
    BotLevel::from_id(level.id()).expect("every level of the bots has a wire level")
}

/// Whether a character may appear in a name or a chat line. Refused: control
/// characters, invisible *format* characters (bidi overrides such as U+202E,
/// zero-width spaces and joiners, word joiners, BOMs, tags), line and paragraph
/// separators, private-use and unassigned code points — anything that could make
/// one name look like another or reorder the text around it. The one exception
/// is the zero-width joiner between two symbols, which composes emoji
/// (👩‍🚀) and cannot disguise a name.
fn visible_text(text: &str, allow_newline: bool) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let symbol = |c: Option<&char>| {
        c.is_some_and(|&c| {
            matches!(
                category(c),
                G::OtherSymbol | G::ModifierSymbol | G::NonspacingMark
            )
        })
    };
    chars.iter().enumerate().all(|(index, &c)| {
        if c == '\n' {
            return allow_newline;
        }
        if c == '\u{200D}' {
            return index > 0 && symbol(chars.get(index - 1)) && symbol(chars.get(index + 1));
        }
        !matches!(
            category(c),
            G::Control
                | G::Format
                | G::LineSeparator
                | G::ParagraphSeparator
                | G::PrivateUse
                | G::Surrogate
                | G::Unassigned
        )
    })
}

/// A character's Unicode general category (from the ICU4X data).
fn category(c: char) -> G {
    CodePointMapData::<G>::new().get(c)
}

/// Whether a character in a name would draw nothing, or be drawn as empty
/// space other than a plain space, so that a name could look blank or like
/// another name with a gap: every default-ignorable code point (Unicode's
/// own list: zero-width characters, the Hangul fillers U+115F, U+1160,
/// U+3164 and U+FFA0, the combining grapheme joiner, variation selectors,
/// …), every white space but U+0020, and the braille pattern blank U+2800,
/// a symbol with no dots that no Unicode property marks as empty.
/// Excepted: the zero-width joiner and the emoji variation selectors right
/// after a symbol, which shape emoji (👩‍🚀, ❤️).
fn blank_looking(chars: &[char], index: usize) -> bool {
    const BRAILLE_PATTERN_BLANK: char = '\u{2800}';
    let c = chars[index];
    let after_symbol = index > 0
        && matches!(
            category(chars[index - 1]),
            G::OtherSymbol | G::ModifierSymbol | G::NonspacingMark
        );
    if matches!(c, '\u{200D}' | '\u{FE0E}' | '\u{FE0F}') && after_symbol {
        return false;
    }
    c == BRAILLE_PATTERN_BLANK
        || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || (c != ' ' && CodePointSetData::new::<WhiteSpace>().contains(c))
}

/// A nickname, trimmed and checked: visible text (no control or invisible
/// formatting characters), nothing blank-looking, and at least one letter
/// or digit, so that every name can be read and told apart.
pub fn clean_nickname(nickname: &str) -> Result<String, Refusal> {
    let nickname = nickname.trim();
    let chars = nickname.chars().count();
    if chars == 0 || chars > MAX_NICKNAME_CHARS {
        return Err(Refusal::bad_request(format!(
            "a nickname has 1 to {MAX_NICKNAME_CHARS} characters"
        )));
    }
    if !visible_text(nickname, false) {
        return Err(Refusal::bad_request(
            "a nickname may not hold control or invisible formatting characters",
        ));
    }
    let chars: Vec<char> = nickname.chars().collect();
    if (0..chars.len()).any(|index| blank_looking(&chars, index)) {
        return Err(Refusal::bad_request(
            "a nickname may not hold blank-looking characters (fillers, zero-width or \
             ignorable characters, spaces other than the plain space)",
        ));
    }
    let letter_or_digit = |c: &char| {
        (GeneralCategoryGroup::Letter.contains(category(*c))
            || GeneralCategoryGroup::Number.contains(category(*c)))
            && !CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(*c)
    };
    if !chars.iter().any(letter_or_digit) {
        return Err(Refusal::bad_request(
            "a nickname needs at least one letter or digit",
        ));
    }
    Ok(nickname.to_string())
}

/// A chat line, trimmed and checked.
pub fn clean_chat(text: &str) -> Result<String, Refusal> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 || chars > MAX_CHAT_CHARS {
        return Err(Refusal::bad_request(format!(
            "a chat line has 1 to {MAX_CHAT_CHARS} characters"
        )));
    }
    // Newlines are fine in chat; other control characters could garble a
    // terminal, and invisible ones could disguise who says what.
    if !visible_text(text, true) {
        return Err(Refusal::bad_request(
            "a chat line may not hold control or invisible formatting characters",
        ));
    }
    Ok(text.to_string())
}

/// The seats of a stored room, as listed in `games` (and replays).
pub fn seat_summaries(seats: &[SeatRecord]) -> Vec<SeatSummary> {
    seats
        .iter()
        .enumerate()
        .map(|(seat, s)| SeatSummary {
            seat,
            // Stored kinds and levels are the protocol's ids.
            kind: SeatKind::from_id(s.kind.as_str()).unwrap_or(SeatKind::Open),
            nickname: s.nickname.clone(),
            level: s.level.as_deref().and_then(BotLevel::from_id),
        })
        .collect()
}

/// Reads a client's command as the move of a seat (an engine [`Intent`]),
/// which names no seat: the room applies it for the connection's own seat
/// ([`Intent::by`]), so a client cannot move for another. A `command` frame
/// carries the raw object until here, so that the room checks who may move
/// before the command's fields.
pub fn intent(command: Map<String, Value>) -> Result<Intent, Refusal> {
    match command.get("cmd").and_then(Value::as_str) {
        Some("timeout") => {
            return Err(Refusal::bad_request(
                "the server owns the clock; timeout is not a client command",
            ))
        }
        Some(_) => {}
        None => {
            return Err(Refusal::bad_request(
                "a command needs a string field \"cmd\"",
            ))
        }
    }
    serde_json::from_value(Value::Object(command))
        .map_err(|e| Refusal::new("bad_command", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_read_without_its_seat() {
        let Ok((ClientFrame::Command { command }, None)) = parse(
            r#"{"type":"command","command":{"cmd":"fire","seat":1,"target":{"board":1,"at":[3,4]}}}"#,
        ) else {
            panic!("a fire command parses");
        };
        let command = intent(command).unwrap().by(0);
        assert!(matches!(
            command,
            broadside_engine::Command::Fire { seat: 0, .. }
        ));
        let Ok((ClientFrame::Command { command: timeout }, None)) =
            parse(r#"{"type":"command","command":{"cmd":"timeout"}}"#)
        else {
            panic!("a timeout frame parses as a command");
        };
        assert_eq!(intent(timeout).unwrap_err().code, "bad_request");
    }

    #[test]
    fn every_level_crosses_the_edge_both_ways() {
        for level in Level::ALL {
            assert_eq!(ai_level(wire_level(level)), level);
        }
        assert_eq!(Level::ALL.len(), BotLevel::ALL.len());
    }

    #[test]
    fn nicknames_and_chat_are_checked() {
        assert_eq!(clean_nickname("  Ana ").unwrap(), "Ana");
        assert!(clean_nickname("").is_err());
        assert!(clean_nickname(&"x".repeat(25)).is_err());
        assert!(clean_nickname("a\u{7}b").is_err());
        // Issue 12, finding 5: names that look like other names.
        for spoof in [
            "\u{202E}anA",
            "Ana\u{200B}",
            "A\u{200D}na",
            "Ana\u{2060}",
            "\u{FEFF}Ana",
            "Ana\u{2028}x",
            "Ana\u{E000}",
            "Ana\u{E0041}",
            "\u{061C}Ana",
        ] {
            assert!(clean_nickname(spoof).is_err(), "{spoof:?}");
            assert!(clean_chat(spoof).is_err(), "chat {spoof:?}");
        }
        for fine in [
            "Ana",
            "José Ñandú",
            "Łukasz",
            "山田",
            "Ана",
            "👩\u{200D}🚀 Ana",
            "❤\u{FE0F} x",
        ] {
            assert_eq!(clean_nickname(fine).as_deref(), Ok(fine), "{fine:?}");
        }
        // Issue 34: names that look blank, or hold no letter or digit.
        for blank in [
            "\u{2800}",
            "\u{3164}",
            "\u{115F}",
            "\u{FFA0}",
            "\u{200B}",
            "\u{034F}",
            "Ana\u{3164}",
            "A\u{2800}na",
            "An\u{115F}a",
            "Ana\u{FFA0}",
            "A\u{034F}na",
            "Ana\u{00A0}Rui",
            "Ana\u{3000}Rui",
            "!!!",
            "-_-",
            "...",
            "👩\u{200D}🚀",
        ] {
            assert_eq!(
                clean_nickname(blank).map_err(|r| r.code),
                Err(codes::BAD_REQUEST.into()),
                "{blank:?}"
            );
        }
        for fine in ["R2-D2", "٣", "Zoë 7", "ⓐna"] {
            assert_eq!(clean_nickname(fine).as_deref(), Ok(fine), "{fine:?}");
        }
        assert!(clean_chat("gg").is_ok());
        assert!(clean_chat("two\nlines").is_ok());
        assert!(clean_chat(&"x".repeat(501)).is_err());
    }
}
