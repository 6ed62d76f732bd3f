//! The rule book (`docs/rules.md`) and the referee interface
//! (`docs/referee.md`) held against the code, so that neither can drift:
//!
//! - every rule id (`R-4.2`, `R-12`, …) cited in the code and tests of the
//!   repository has a heading of its own in the rule book;
//! - every error code the engine (`RuleError::code`) and the referee can answer
//!   is documented in the referee interface, and that page documents no code
//!   that does not exist;
//! - every link between the two (and into ARCHITECTURE.md) lands on a
//!   heading.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root: two levels above this crate.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The rule ids in a text, with the byte offset of each: `R-` and a number,
/// then any `.number` groups and at most one lowercase letter (as in 7.5a). A
/// sentence's full stop is not part of an id ("see R-4.2." cites R-4.2), nor
/// is an id inside a longer word (`XR-1`, `R-4.2nd`).
fn rule_ids(text: &str) -> Vec<(usize, String)> {
    let bytes = text.as_bytes();
    let word = |i: usize| {
        bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let digits_from = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut ids = Vec::new();
    let mut search = 0;
    while let Some(found) = text[search..].find("R-") {
        let start = search + found;
        search = start + 2;
        if start > 0 && word(start - 1) {
            continue;
        }
        let mut end = digits_from(start + 2);
        if end == start + 2 {
            continue;
        }
        while bytes.get(end) == Some(&b'.') {
            let next = digits_from(end + 1);
            if next == end + 1 {
                break; // a full stop, not a sub-rule
            }
            end = next;
        }
        if bytes.get(end).is_some_and(u8::is_ascii_lowercase) && !word(end + 1) {
            end += 1;
        }
        if word(end) {
            continue;
        }
        ids.push((start, text[start..end].to_string()));
        search = end;
    }
    ids
}

/// The rule ids of test functions named after their rule, the other way code
/// cites a rule: `fn r_4_2_a_hit_shoots_again` cites R-4.2, `fn r_10_…` R-10.
fn test_name_ids(text: &str) -> Vec<(usize, String)> {
    let mut ids = Vec::new();
    let mut search = 0;
    while let Some(found) = text[search..].find("fn r_") {
        let start = search + found;
        search = start + 5;
        let name: String = text[search..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let mut numbers = Vec::new();
        for part in name.split('_') {
            if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
                numbers.push(part);
            } else {
                break;
            }
        }
        if !numbers.is_empty() {
            ids.push((start, format!("R-{}", numbers.join("."))));
        }
    }
    ids
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].bytes().filter(|&b| b == b'\n').count() + 1
}

/// Files under `dir` (relative to the root) whose names end in `ext`, skipping
/// build output, installed packages and hidden folders.
fn sources(dir: &str, ext: &str, out: &mut Vec<PathBuf>) {
    fn walk(path: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(path) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && name != "node_modules" && !name.starts_with('.') {
                    walk(&path, ext, out);
                }
            } else if name.ends_with(ext) {
                out.push(path);
            }
        }
    }
    walk(&root().join(dir), ext, out);
}

/// Every rule id cited in the code and tests, with the first place that cites
/// it (`path:line`).
fn cited_ids() -> BTreeMap<String, String> {
    let mut files = Vec::new();
    sources("crates", ".rs", &mut files);
    sources("fuzz", ".rs", &mut files);
    sources("web", ".js", &mut files);
    sources("tests/e2e", ".js", &mut files);
    files.sort();
    assert!(
        files.len() > 20,
        "the sources were not found under {}",
        root().display()
    );
    let mut cited = BTreeMap::new();
    for path in files {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let shown = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        let mut ids = rule_ids(&text);
        if shown.ends_with(".rs") {
            ids.extend(test_name_ids(&text));
        }
        for (offset, id) in ids {
            cited
                .entry(id)
                .or_insert_with(|| format!("{shown}:{}", line_of(&text, offset)));
        }
    }
    cited
}

/// The headings of a Markdown text, without their `#`s.
fn headings(text: &str) -> Vec<&str> {
    let mut inside_code = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside_code = !inside_code;
            continue;
        }
        if inside_code || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#');
        if title.starts_with(' ') {
            out.push(title.trim());
        }
    }
    out
}

/// The rule ids that have a heading of their own in the rule book: headings
/// that begin with the id.
fn rule_headings() -> BTreeSet<String> {
    let book = read("docs/rules.md");
    headings(&book)
        .into_iter()
        .filter_map(|title| {
            rule_ids(title)
                .into_iter()
                .find(|(offset, _)| *offset == 0)
                .map(|(_, id)| id)
        })
        .collect()
}

#[test]
fn the_rule_id_scanner_reads_ids_as_the_code_writes_them() {
    // Written with `Q` for `R` and turned at run time, so that these examples
    // (some of them ids the rule book does not have) are no citations.
    let r = |text: &str| text.replace('Q', "R").replace("fn q_", "fn r_");
    let ids = |found: Vec<(usize, String)>| -> Vec<String> {
        found
            .into_iter()
            .map(|(_, id)| id.replace('R', "Q"))
            .collect()
    };
    let text = r(
        "see Q-4.2. Q-12, (Q-7.5) Q-6.6.1 and Q-7.5a; Q-7.6–Q-7.9, §Q-10. \
                  XQ-1 Q-4.2nd Q- Q-x Q-3.\n",
    );
    assert_eq!(
        ids(rule_ids(&text)),
        ["Q-4.2", "Q-12", "Q-7.5", "Q-6.6.1", "Q-7.5a", "Q-7.6", "Q-7.9", "Q-10", "Q-3"]
    );
    let names = r("fn q_4_2_a_hit() {}\nfn q_10_presets() {}\nfn q_6_6_1_x() {}\nfn run() {}");
    assert_eq!(ids(test_name_ids(&names)), ["Q-4.2", "Q-10", "Q-6.6.1"]);
}

#[test]
fn every_rule_id_cited_in_the_code_has_a_heading_in_the_rule_book() {
    let cited = cited_ids();
    let headings = rule_headings();
    assert!(
        cited.len() > 30,
        "too few rule ids found in the code ({}): is the scanner broken?",
        cited.len()
    );
    assert!(
        headings.len() > 30,
        "too few rule headings in docs/rules.md ({})",
        headings.len()
    );
    let missing: Vec<String> = cited
        .iter()
        .filter(|(id, _)| !headings.contains(*id))
        .map(|(id, place)| format!("  {id} (cited at {place})"))
        .collect();
    assert!(
        missing.is_empty(),
        "{} rule id(s) cited in the code have no heading in docs/rules.md \
         (add a heading such as `### R-4.2 …`, or fix the citation):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn every_heading_of_the_rule_book_is_a_distinct_rule() {
    let book = read("docs/rules.md");
    let mut seen = BTreeSet::new();
    for title in headings(&book) {
        if let Some((0, id)) = rule_ids(title).into_iter().next() {
            assert!(
                seen.insert(id.clone()),
                "{id} has two headings in docs/rules.md"
            );
        }
    }
}

/// The string literals between the braces of the body of `fn code` in
/// crates/engine/src/error.rs: every code `RuleError::code` can return.
fn engine_codes() -> BTreeSet<String> {
    let source = read("crates/engine/src/error.rs");
    let start = source
        .find("fn code(")
        .expect("crates/engine/src/error.rs has `fn code(`");
    let body_start = start + source[start..].find('{').expect("`fn code` has a body");
    let mut depth = 0;
    let mut body_end = body_start;
    for (i, c) in source[body_start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    body_end = body_start + i;
                    break;
                }
            }
            _ => {}
        }
    }
    string_literals(&source[body_start..body_end])
}

/// The codes the referee answers by itself (`code: "…"` in crates/referee).
fn referee_codes() -> BTreeSet<String> {
    let source = read("crates/referee/src/lib.rs");
    source
        .match_indices("code: \"")
        .filter_map(|(i, m)| {
            let rest = &source[i + m.len()..];
            rest.find('"').map(|end| rest[..end].to_string())
        })
        .collect()
}

fn string_literals(text: &str) -> BTreeSet<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The codes listed in the table of the section "Error codes" of
/// docs/referee.md (rows `| \`code\` | …`).
fn documented_codes(page: &str) -> BTreeSet<String> {
    let section = page
        .split_once("### Error codes")
        .map(|(_, rest)| rest)
        .expect("docs/referee.md has a section \"### Error codes\"");
    let section = section.split("\n#").next().unwrap_or(section);
    section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once("` |").map(|(code, _)| code))
        .filter(|code| code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_referee_interface_documents_every_error_code_and_no_other() {
    let page = read("docs/referee.md");
    let engine = engine_codes();
    assert!(
        engine.len() > 10 && engine.contains("not_targetable"),
        "the codes of RuleError::code were not found: {engine:?}"
    );
    let referee = referee_codes();
    let known: BTreeSet<String> = engine.iter().chain(&referee).cloned().collect();

    let undocumented: Vec<&String> = known
        .iter()
        .filter(|code| !page.contains(&format!("`{code}`")))
        .collect();
    assert!(
        undocumented.is_empty(),
        "docs/referee.md does not mention these error codes: {undocumented:?}"
    );

    let table = documented_codes(&page);
    let missing_rows: Vec<&String> = known.difference(&table).collect();
    assert!(
        missing_rows.is_empty(),
        "the error table of docs/referee.md has no row for: {missing_rows:?}"
    );
    let unknown: Vec<&String> = table.difference(&known).collect();
    assert!(
        unknown.is_empty(),
        "docs/referee.md documents codes that neither the engine nor the referee \
         answers: {unknown:?}"
    );
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped,
/// spaces turned into hyphens.
fn anchor(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn links_between_the_rule_book_and_the_referee_interface_land_on_headings() {
    let pages = ["rules.md", "referee.md", "ARCHITECTURE.md"];
    let anchors: BTreeMap<&str, BTreeSet<String>> = pages
        .iter()
        .map(|&page| {
            let text = read(&format!("docs/{page}"));
            (page, headings(&text).into_iter().map(anchor).collect())
        })
        .collect();
    for page in ["rules.md", "referee.md"] {
        let text = read(&format!("docs/{page}"));
        for (offset, _) in text.match_indices("](") {
            let target: String = text[offset + 2..]
                .chars()
                .take_while(|&c| c != ')')
                .collect();
            let Some((file, fragment)) = target.split_once('#') else {
                continue;
            };
            let Some(headings) = anchors.get(if file.is_empty() { page } else { file }) else {
                continue;
            };
            assert!(
                headings.contains(fragment),
                "docs/{page}:{}: the link {target} lands on no heading",
                line_of(&text, offset)
            );
        }
    }
}
