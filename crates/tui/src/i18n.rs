//! The words of the terminal in the five languages of the browser.
//!
//! There is one source of translations for both clients: the web client's
//! catalogues `web/i18n/<lang>.json`, embedded here at compile time. The
//! terminal reuses the web's keys where the meaning is the same (presets,
//! levels, ships `ship.<id>`, errors `err.<code>`, …) and has its own keys,
//! prefixed `tui.`, for what only the terminal says. A count is an object of
//! CLDR plural forms (`{"one": "…", "other": "…"}`), chosen here by
//! `intl_pluralrules` as the browser chooses it with `Intl.PluralRules`.
//!
//! Architecture invariant: no text the player reads is written in the code;
//! it is a key of the catalogue (the test `every_key_the_terminal_uses_exists_in_every_language`
//! scans the sources for them).

use std::fmt::Display;
use std::sync::OnceLock;

use intl_pluralrules::{PluralCategory, PluralRuleType, PluralRules};
use serde_json::{Map, Value};
use unic_langid::LanguageIdentifier;

/// A language of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    PtPt,
    PtBr,
    Es,
    It,
    #[default]
    En,
}

/// The catalogues, in the order of [`Lang::ALL`].
const SOURCES: [&str; 5] = [
    include_str!("../../../web/i18n/pt-PT.json"),
    include_str!("../../../web/i18n/pt-BR.json"),
    include_str!("../../../web/i18n/es.json"),
    include_str!("../../../web/i18n/it.json"),
    include_str!("../../../web/i18n/en.json"),
];

/// Each catalogue parsed once, when it is first needed.
static CATALOGUES: [OnceLock<Map<String, Value>>; 5] = [const { OnceLock::new() }; 5];

/// The arguments that fill a text's `{name}` placeholders.
pub type Args<'a> = &'a [(&'a str, &'a dyn Display)];

impl Lang {
    pub const ALL: [Lang; 5] = [Lang::PtPt, Lang::PtBr, Lang::Es, Lang::It, Lang::En];

    /// The language's tag, as the web client and the file names spell it.
    pub fn id(self) -> &'static str {
        match self {
            Lang::PtPt => "pt-PT",
            Lang::PtBr => "pt-BR",
            Lang::Es => "es",
            Lang::It => "it",
            Lang::En => "en",
        }
    }

    fn index(self) -> usize {
        Lang::ALL
            .iter()
            .position(|&lang| lang == self)
            .expect("ALL lists every language")
    }

    /// A language named on the command line (`--lang`): its tag in any case,
    /// with `-` or `_` (`pt-BR`, `pt_br`, `IT`).
    pub fn parse(name: &str) -> Option<Lang> {
        let wanted = name.trim().replace('_', "-").to_lowercase();
        Lang::ALL
            .into_iter()
            .find(|lang| lang.id().to_lowercase() == wanted)
    }

    /// The language of a POSIX locale such as `pt_BR.UTF-8`: Brazilian
    /// Portuguese for `pt_BR`, European Portuguese for any other `pt`,
    /// Spanish for `es*`, Italian for `it*`, English for everything else.
    pub fn from_locale(locale: &str) -> Lang {
        let lower = locale.to_lowercase();
        if lower.starts_with("pt_br") || lower.starts_with("pt-br") {
            Lang::PtBr
        } else if lower.starts_with("pt") {
            Lang::PtPt
        } else if lower.starts_with("es") {
            Lang::Es
        } else if lower.starts_with("it") {
            Lang::It
        } else {
            Lang::En
        }
    }

    /// The language of the environment, read through `var`: the first of
    /// `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty decides,
    /// as it does for every POSIX program; English when none is.
    pub fn from_environment(var: impl Fn(&str) -> Option<String>) -> Lang {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .filter_map(var)
            .find(|value| !value.is_empty())
            .map_or(Lang::En, |locale| Lang::from_locale(&locale))
    }

    /// The whole catalogue of the language.
    pub fn catalogue(self) -> &'static Map<String, Value> {
        CATALOGUES[self.index()].get_or_init(|| {
            serde_json::from_str(SOURCES[self.index()])
                .expect("web/i18n files are JSON objects (the web tests read them too)")
        })
    }

    /// The entry of `key`: this language's, else the English one.
    fn entry(self, key: &str) -> Option<&'static Value> {
        self.catalogue()
            .get(key)
            .or_else(|| Lang::En.catalogue().get(key))
    }

    /// The text of `key` if the catalogue has it (in this language or in
    /// English): for keys built from ids, which may be unknown to it.
    pub fn get(self, key: &str) -> Option<String> {
        self.entry(key).is_some().then(|| self.t(key))
    }

    /// The text of `key`; the key itself if no catalogue has it, as in the
    /// browser, so a missing translation shows instead of vanishing.
    pub fn t(self, key: &str) -> String {
        self.fill(key, &[])
    }

    /// The text of `key` with its `{name}` placeholders filled from `args`.
    pub fn fill(self, key: &str, args: Args) -> String {
        match self.entry(key) {
            Some(Value::String(text)) => fill(text, args),
            _ => key.to_string(),
        }
    }

    /// A count in words: `key` holds one form per plural category of the
    /// language, chosen by the CLDR rules; `n` fills `{n}`.
    pub fn plural(self, key: &str, n: u64, args: Args) -> String {
        let Some(Value::Object(forms)) = self.entry(key) else {
            return key.to_string();
        };
        let form = forms
            .get(self.category(n))
            .or_else(|| forms.get("other"))
            .and_then(Value::as_str)
            .unwrap_or(key);
        let mut all: Vec<(&str, &dyn Display)> = vec![("n", &n)];
        all.extend_from_slice(args);
        fill(form, &all)
    }

    /// The CLDR plural category of `n` in this language ("one", "other", …).
    pub fn category(self, n: u64) -> &'static str {
        let rules = self.plural_rules();
        match rules.and_then(|rules| rules.select(n).ok()) {
            Some(PluralCategory::ZERO) => "zero",
            Some(PluralCategory::ONE) => "one",
            Some(PluralCategory::TWO) => "two",
            Some(PluralCategory::FEW) => "few",
            Some(PluralCategory::MANY) => "many",
            Some(PluralCategory::OTHER) | None => "other",
        }
    }

    /// The cardinal rules of the language: those of its region where CLDR
    /// has them (pt-PT), else those of the language (pt for pt-BR).
    fn plural_rules(self) -> Option<PluralRules> {
        let tag: LanguageIdentifier = self.id().parse().ok()?;
        PluralRules::create(tag.clone(), PluralRuleType::CARDINAL)
            .ok()
            .or_else(|| {
                let language = LanguageIdentifier::from_parts(tag.language, None, None, &[]);
                PluralRules::create(language, PluralRuleType::CARDINAL).ok()
            })
    }

    /// Names joined as a list: "Ana", "Ana and Rui", "Ana, Rui and Bea".
    pub fn list(self, names: &[String]) -> String {
        match names {
            [] => String::new(),
            [one] => one.clone(),
            [rest @ .., last] => {
                self.fill("tui.list", &[("names", &rest.join(", ")), ("last", last)])
            }
        }
    }
}

/// `text` with every `{name}` of `args` filled in; unknown ones stay.
fn fill(text: &str, args: Args) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                match args.iter().find(|(key, _)| *key == name) {
                    Some((_, value)) => out.push_str(&value.to_string()),
                    None => out.push_str(&rest[open..open + close + 2]),
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
