//! The terminal's words exist in every language, with the same placeholders
//! and every plural form a count can need; the language is chosen from
//! `--lang` or the locale.

use std::collections::BTreeSet;
use std::path::Path;

use broadside_engine::{Options, Preset, RuleError, Rules, Setup};
use regex::Regex;
use serde_json::Value;

use super::Lang;

/// Every string literal of the crate's sources, file by file.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("the sources are readable")
            .flatten()
            .map(|entry| entry.path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source is text");
                out.push((path.display().to_string(), text));
            }
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut out);
    out
}

/// The keys the sources name: every `"tui.…"` literal, and every literal
/// handed to `t`, `fill`, `plural` (or to `about`/`count`, the log's helpers
/// for "you" and "someone else"). This test module names none of its own.
fn keys_in_sources() -> BTreeSet<String> {
    let tui = Regex::new(r#""(tui\.[a-z0-9_.]+)""#).expect("a valid pattern");
    let call = Regex::new(r#"\.(?:t|fill|plural)\(\s*"([a-z0-9_.]+)""#).expect("a valid pattern");
    let pair = Regex::new(r#"\b(?:about|count)\(\s*[^,()]+,\s*"([a-z0-9_.]+)",\s*"([a-z0-9_.]+)""#)
        .expect("a valid pattern");
    let mut keys = BTreeSet::new();
    for (path, text) in sources() {
        if path.ends_with("tests.rs") {
            continue;
        }
        for found in tui.captures_iter(&text).chain(call.captures_iter(&text)) {
            keys.insert(found[1].to_string());
        }
        for found in pair.captures_iter(&text) {
            keys.insert(found[1].to_string());
            keys.insert(found[2].to_string());
        }
    }
    keys
}

/// Every error code of the engine. The match has no catch-all, so a new
/// variant does not compile until it is listed here too.
fn every_rule_error() -> Vec<RuleError> {
    let all = vec![
        RuleError::BadCommand(String::new()),
        RuleError::GameOver,
        RuleError::WrongPhase,
        RuleError::NotYourTurn,
        RuleError::OwnBoard,
        RuleError::OwnTeam,
        RuleError::UnknownShip(String::new()),
        RuleError::CapitalLimit,
        RuleError::TypeLimit(String::new()),
        RuleError::OverBudget {
            cost: 0,
            credits: 0,
        },
        RuleError::FleetDoesNotFit,
        RuleError::WrongFleet,
        RuleError::OutOfBounds,
        RuleError::OutsideOwnWaters,
        RuleError::ShipsOverlap,
        RuleError::ShipsTouch,
        RuleError::WrongShotCount {
            expected: 0,
            got: 0,
        },
        RuleError::DuplicateTarget,
        RuleError::AbilityUnavailable,
        RuleError::NoUsesLeft,
        RuleError::AbilityNotReady { next_round: 0 },
        RuleError::NotTargetable,
        RuleError::AlreadySubmitted,
    ];
    for error in &all {
        match error {
            RuleError::BadCommand(_)
            | RuleError::GameOver
            | RuleError::WrongPhase
            | RuleError::NotYourTurn
            | RuleError::OwnBoard
            | RuleError::OwnTeam
            | RuleError::UnknownShip(_)
            | RuleError::CapitalLimit
            | RuleError::TypeLimit(_)
            | RuleError::OverBudget { .. }
            | RuleError::FleetDoesNotFit
            | RuleError::WrongFleet
            | RuleError::OutOfBounds
            | RuleError::OutsideOwnWaters
            | RuleError::ShipsOverlap
            | RuleError::ShipsTouch
            | RuleError::WrongShotCount { .. }
            | RuleError::DuplicateTarget
            | RuleError::AbilityUnavailable
            | RuleError::NoUsesLeft
            | RuleError::AbilityNotReady { .. }
            | RuleError::NotTargetable
            | RuleError::AlreadySubmitted => {}
        }
    }
    all
}

/// The keys the terminal builds from ids: presets, levels, ships, specials,
/// engine errors and the phases of My games.
fn keys_built_from_ids() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for preset in Preset::ALL {
        keys.insert(format!("preset.{}", preset.id()));
        keys.insert(format!("preset_blurb.{}", preset.id()));
        let rules = Rules::resolve(&Setup {
            preset,
            seats: 2,
            seed: 0,
            options: Options::default(),
            teams: None,
        })
        .expect("every preset's defaults are a valid setup");
        for ship in &rules.catalogue {
            keys.insert(format!("ship.{}", ship.id));
        }
    }
    for level in broadside_ai::Level::ALL {
        keys.insert(format!("level.{}", level.id()));
    }
    for kind in crate::app::ACTION_KINDS {
        keys.insert(format!("special.{}", kind.id()));
    }
    for error in every_rule_error() {
        keys.insert(format!("err.{}", error.code()));
    }
    for phase in ["lobby", "shop", "placement", "battle", "finished"] {
        keys.insert(format!("phase.{phase}"));
    }
    keys
}

fn every_key() -> BTreeSet<String> {
    let mut keys = keys_in_sources();
    keys.extend(keys_built_from_ids());
    keys
}

#[test]
fn every_key_the_terminal_uses_exists_in_every_language() {
    let keys = every_key();
    // The scan sees the code: a broken pattern would find next to nothing.
    assert!(keys.len() > 250, "only {} keys found", keys.len());
    // Each way of naming a key is seen: t, fill, plural, the log's pairs.
    for key in [
        "waiting_for_host",
        "seat_n",
        "waiting_n",
        "log_ready",
        "tui.mark.sea",
    ] {
        assert!(keys.contains(key), "the scan misses {key}");
    }
    let mut missing = Vec::new();
    for lang in Lang::ALL {
        for key in &keys {
            // In the language's own file: the English fallback does not count.
            if !lang.catalogue().contains_key(key) {
                missing.push(format!("{} {key}", lang.id()));
            }
        }
    }
    assert!(missing.is_empty(), "missing translations: {missing:#?}");
}

#[test]
fn the_terminal_keys_are_one_block_after_lang_name_in_every_file() {
    // Kept together so that other edits of the same files merge cleanly.
    for (lang, source) in Lang::ALL.iter().zip(super::SOURCES) {
        let lines: Vec<&str> = source.lines().collect();
        let first = lines
            .iter()
            .position(|l| l.starts_with(" \"lang_name\""))
            .expect("every file has lang_name");
        let tui: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.starts_with(" \"tui."))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(tui.first(), Some(&(first + 1)), "{}", lang.id());
        let last = *tui.last().expect("the block is there");
        let top_level = lines[first + 1..=last]
            .iter()
            .filter(|l| l.starts_with(" \"") && !l.starts_with("  "))
            .count();
        assert_eq!(
            top_level,
            tui.len(),
            "{}: the tui. block is split",
            lang.id()
        );
    }
}

/// The sorted `{name}` placeholders of a text.
fn placeholders(text: &str) -> Vec<String> {
    static PATTERN: std::sync::LazyLock<Regex> =
        std::sync::LazyLock::new(|| Regex::new(r"\{(\w+)\}").expect("a valid pattern"));
    let mut names: Vec<String> = PATTERN
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn placeholders_match_across_languages() {
    let english = Lang::En.catalogue();
    for key in every_key() {
        let Some(model) = english.get(&key) else {
            continue;
        };
        for lang in Lang::ALL {
            let Some(value) = lang.catalogue().get(&key) else {
                continue;
            };
            match (model, value) {
                (Value::String(model), Value::String(text)) => assert_eq!(
                    placeholders(text),
                    placeholders(model),
                    "{} {key}",
                    lang.id()
                ),
                (Value::Object(model), Value::Object(forms)) => {
                    let other = model["other"].as_str().expect("forms are text");
                    for (form, text) in forms {
                        let text = text.as_str().expect("forms are text");
                        assert_eq!(
                            placeholders(text),
                            placeholders(other),
                            "{} {key} {form}",
                            lang.id()
                        );
                    }
                }
                _ => panic!(
                    "{} {key}: not the same kind of entry as in English",
                    lang.id()
                ),
            }
        }
    }
}

#[test]
fn every_count_has_the_forms_its_language_needs() {
    let english = Lang::En.catalogue();
    let counts: Vec<String> = every_key()
        .into_iter()
        .filter(|key| english.get(key).is_some_and(Value::is_object))
        .collect();
    assert!(counts.len() >= 10, "{counts:?}");
    for lang in Lang::ALL {
        for key in &counts {
            let forms = lang.catalogue()[key]
                .as_object()
                .expect("a count is an object of forms");
            assert!(forms.contains_key("other"), "{} {key}", lang.id());
            for n in 0..=1000 {
                let category = lang.category(n);
                assert!(
                    forms.contains_key(category),
                    "{} {key} lacks the form {category:?} ({n})",
                    lang.id()
                );
            }
        }
    }
}

#[test]
fn plural_rules_are_the_cldr_ones_of_each_language() {
    // European Portuguese says "0 navios", Brazilian "0 navio" (CLDR pt).
    assert_eq!(Lang::PtPt.category(0), "other");
    assert_eq!(Lang::PtBr.category(0), "one");
    for lang in Lang::ALL {
        assert_eq!(lang.category(1), "one", "{}", lang.id());
        assert_eq!(lang.category(2), "other", "{}", lang.id());
    }
    assert_eq!(
        Lang::En.plural("tui.cells_chosen", 1, &[]),
        "1 cell chosen; x sends it."
    );
    assert_eq!(
        Lang::It.plural("tui.cells_chosen", 3, &[]),
        "3 caselle scelte; x le invia."
    );
}

#[test]
fn texts_are_filled_and_missing_keys_show() {
    assert_eq!(
        Lang::Es.fill("tui.joining", &[("code", &"K7QM2P")]),
        "Entrando en la sala K7QM2P…"
    );
    assert_eq!(Lang::It.t("no.such.key"), "no.such.key");
    assert_eq!(
        Lang::En.list(&["Ana".into(), "Rui".into(), "Bea".into()]),
        "Ana, Rui and Bea"
    );
    assert_eq!(Lang::PtBr.list(&["Ana".into()]), "Ana");
    // Unknown placeholders stay as they are.
    assert_eq!(super::fill("{a} {b}", &[("a", &1)]), "1 {b}");
}

#[test]
fn the_locale_chooses_the_language() {
    for (locale, lang) in [
        ("pt_BR.UTF-8", Lang::PtBr),
        ("pt_PT.UTF-8", Lang::PtPt),
        ("pt", Lang::PtPt),
        ("es_AR.UTF-8", Lang::Es),
        ("it_IT@euro", Lang::It),
        ("en_GB.UTF-8", Lang::En),
        ("de_DE.UTF-8", Lang::En),
        ("C.UTF-8", Lang::En),
        ("POSIX", Lang::En),
    ] {
        assert_eq!(Lang::from_locale(locale), lang, "{locale}");
    }
    let environment = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    };
    // LC_ALL wins over LC_MESSAGES, which wins over LANG; empty ones are skipped.
    let all = environment(&[
        ("LC_ALL", "it_IT.UTF-8"),
        ("LC_MESSAGES", "es_ES.UTF-8"),
        ("LANG", "pt_BR.UTF-8"),
    ]);
    assert_eq!(Lang::from_environment(all), Lang::It);
    let messages = environment(&[
        ("LC_ALL", ""),
        ("LC_MESSAGES", "es_ES.UTF-8"),
        ("LANG", "pt_BR.UTF-8"),
    ]);
    assert_eq!(Lang::from_environment(messages), Lang::Es);
    let lang = environment(&[("LANG", "pt_BR.UTF-8")]);
    assert_eq!(Lang::from_environment(lang), Lang::PtBr);
    assert_eq!(Lang::from_environment(environment(&[])), Lang::En);
}

#[test]
fn lang_names_the_five_languages() {
    for lang in Lang::ALL {
        assert_eq!(Lang::parse(lang.id()), Some(lang));
    }
    assert_eq!(Lang::parse("pt_br"), Some(Lang::PtBr));
    assert_eq!(Lang::parse("IT"), Some(Lang::It));
    assert_eq!(Lang::parse("pt"), None);
    assert_eq!(Lang::parse("de"), None);
}

/// The keys of a catalogue's top level in file order, duplicates kept (a
/// JSON parser keeps the last of two equal keys, silently: one of them would
/// be lost for the browser and the terminal alike).
fn top_level_keys(source: &str) -> Vec<String> {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a catalogue object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some((key, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                keys.push(key);
            }
            Ok(keys)
        }
    }
    serde_json::Deserializer::from_str(source)
        .deserialize_map(Keys)
        .expect("a catalogue is a JSON object")
}

#[test]
fn no_catalogue_names_a_key_twice() {
    for (lang, source) in Lang::ALL.iter().zip(super::SOURCES) {
        let keys = top_level_keys(source);
        let mut seen = BTreeSet::new();
        let twice: Vec<&String> = keys.iter().filter(|k| !seen.insert(*k)).collect();
        assert!(
            twice.is_empty(),
            "{lang:?} names these keys twice: {twice:?}"
        );
    }
}
