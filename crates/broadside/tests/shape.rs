//! The shape of the code, checked: no import circle among modules, and no
//! production source file over 800 lines (docs/ARCHITECTURE.md, "Code map").
//!
//! **Circles.** Within each crate, at every level of the module tree, the
//! sibling modules (each with everything below it) must use each other without
//! a circle: if `room` uses `outbox`, nothing under `outbox` may use anything
//! under `room`. A module may use its own ancestors (a parent holds what its
//! children share); that is not counted. Uses are read from the source:
//! `crate::a::b` paths, `use crate::{a, b}` groups and `super::` paths,
//! outside `#[cfg(test)]` items and `tests` modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Production files longer than this fail the size check.
const MAX_LINES: usize = 800;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root")
}

/// Every crate directory of the workspace (crates/<name>).
fn crates() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.join("Cargo.toml").is_file() && path.join("src").is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a source file under `src/` (`[]` for the crate root).
/// Files under `src/bin/` are roots of their own and are skipped (`None`).
fn module_of(src: &Path, file: &Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix(src).expect("a file under src");
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_string());
    }
    Some(parts)
}

/// The text of a file without its `#[cfg(test)]` items and without comments.
fn production_text(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            // Skip the item that follows: up to its closing brace (or `;`).
            let mut depth = 0i32;
            let mut opened = false;
            for next in lines.by_ref() {
                depth += next.matches('{').count() as i32 - next.matches('}').count() as i32;
                opened |= next.contains('{');
                if (opened && depth <= 0) || (!opened && next.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let code = match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The module paths a file's text names: `crate::a::b::Item` gives
/// `[a, b, Item]`, `use crate::{a, b::c}` gives `[a]` and `[b, c]`,
/// `super::x` is resolved from `module`.
fn references(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (prefix, base) in [("crate::", Some(Vec::new())), ("super::", None)] {
        let mut at = 0;
        while let Some(offset) = text[at..].find(prefix) {
            let start = at + offset;
            at = start + prefix.len();
            if start > 0 && text[..start].chars().next_back().is_some_and(is_ident_char) {
                continue;
            }
            let base = match &base {
                Some(base) => base.clone(),
                None => {
                    // `super` names the module above the file's own, for a
                    // `mod.rs` as for a plain file.
                    let mut parent = module.to_vec();
                    parent.pop();
                    let mut rest = at;
                    // `super::super::`
                    while text[rest..].starts_with("super::") {
                        parent.pop();
                        rest += "super::".len();
                    }
                    at = rest;
                    parent
                }
            };
            for path in paths_at(&text[at..]) {
                let mut full = base.clone();
                full.extend(path);
                found.push(full);
            }
        }
    }
    found
}

/// The paths that start at the beginning of `text` (after `crate::`): one
/// plain path, or each path of a `{…}` group (first level only).
fn paths_at(text: &str) -> Vec<Vec<String>> {
    if let Some(group) = text.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        return group[..end]
            .split(',')
            .map(|part| {
                part.trim()
                    .split("::")
                    .map(|s| s.trim().trim_start_matches('{').to_string())
                    .take_while(|s| !s.is_empty() && s.chars().all(is_ident_char))
                    .collect::<Vec<_>>()
            })
            .filter(|path| !path.is_empty())
            .collect();
    }
    let mut path = Vec::new();
    let mut rest = text;
    loop {
        let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        path.push(rest[..end].to_string());
        match rest[end..].strip_prefix("::") {
            Some(next) if next.starts_with(|c: char| is_ident_char(c)) => rest = next,
            _ => break,
        }
    }
    vec![path]
}

/// The circles among sibling modules of one crate, as lists of module names.
fn circles_in(crate_dir: &Path) -> Vec<String> {
    let src = crate_dir.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .filter_map(|file| Some((module_of(&src, file)?, file.clone())))
        // A file of tests (`#[cfg(test)] mod tests;`) is not production code.
        .filter(|(module, _)| module.last().is_none_or(|last| last != "tests"))
        .collect();
    // Edges between modules, each target cut to the longest known module.
    let mut edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
    for (module, file) in &modules {
        let text = production_text(&std::fs::read_to_string(file).expect("a readable file"));
        for mut path in references(&text, module) {
            while !path.is_empty() && !modules.contains_key(&path) {
                path.pop();
            }
            if &path != module {
                edges.insert((module.clone(), path));
            }
        }
    }
    // At each level: the children of one parent, with edges between their
    // subtrees (a module using its own ancestor is not an edge).
    let mut circles = Vec::new();
    for parent in modules.keys() {
        let children: Vec<&Vec<String>> = modules
            .keys()
            .filter(|m| m.len() == parent.len() + 1 && m.starts_with(parent))
            .collect();
        let child_of = |m: &Vec<String>| -> Option<String> {
            (m.len() > parent.len() && m.starts_with(parent)).then(|| m[parent.len()].clone())
        };
        let mut graph: BTreeMap<String, BTreeSet<String>> = children
            .iter()
            .map(|c| (c[parent.len()].clone(), BTreeSet::new()))
            .collect();
        for (from, to) in &edges {
            if let (Some(a), Some(b)) = (child_of(from), child_of(to)) {
                if a != b {
                    graph.entry(a).or_default().insert(b);
                }
            }
        }
        if let Some(circle) = find_circle(&graph) {
            let prefix = if parent.is_empty() {
                "crate".to_string()
            } else {
                format!("crate::{}", parent.join("::"))
            };
            circles.push(format!(
                "{}: {} (through {})",
                crate_dir.file_name().expect("a name").to_string_lossy(),
                circle.join(" -> "),
                prefix
            ));
        }
    }
    circles
}

/// One circle of the graph, if it has any (depth-first search).
fn find_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|n| n == next).expect("on the stack");
                    let mut circle = stack[from..].to_vec();
                    circle.push(next.clone());
                    return Some(circle);
                }
                0 => {
                    if let Some(circle) = visit(next, graph, state, stack) {
                        return Some(circle);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(circle) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(circle);
            }
        }
    }
    None
}

#[test]
fn no_module_uses_another_in_a_circle() {
    let circles: Vec<String> = crates().iter().flat_map(|dir| circles_in(dir)).collect();
    assert!(
        circles.is_empty(),
        "import circles among modules:\n  {}",
        circles.join("\n  ")
    );
}

#[test]
fn no_production_source_file_is_over_800_lines() {
    let mut files = Vec::new();
    for dir in crates() {
        rust_files(&dir.join("src"), &mut files);
    }
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(file).expect("a readable file");
            // A file's own tests (a `#[cfg(test)]` module at its end) are
            // not production code.
            let production = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => &text[..at],
                None => &text,
            };
            let lines = production.lines().count();
            (lines > MAX_LINES).then(|| {
                format!(
                    "{} ({lines} lines)",
                    file.strip_prefix(root()).unwrap_or(file).display()
                )
            })
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "production files over {MAX_LINES} lines:\n  {}",
        long.join("\n  ")
    );
}

#[test]
fn the_circle_check_sees_a_circle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("room", vec!["outbox", "server"]),
        ("server", vec!["room"]),
        ("outbox", vec![]),
    ]
    .into_iter()
    .map(|(n, to)| (n.to_string(), to.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        find_circle(&graph),
        Some(vec!["room".into(), "server".into(), "room".into()])
    );
    let text =
        "use crate::{db::Db, room};\nlet x = super::super::a::B;\nfn f(_: crate::cpu::Pool) {}";
    let module: Vec<String> = vec!["x".into(), "y".into(), "z".into()];
    let found = references(text, &module);
    assert!(found.contains(&vec!["db".to_string(), "Db".to_string()]));
    assert!(found.contains(&vec!["room".to_string()]));
    assert!(found.contains(&vec!["cpu".to_string(), "Pool".to_string()]));
    assert!(found.contains(&vec!["x".to_string(), "a".to_string(), "B".to_string()]));
}
