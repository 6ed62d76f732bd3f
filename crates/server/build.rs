//! Embeds the static web client (`web/` at the workspace root) into the binary.
//!
//! The build script lists the folder and writes `assets.rs` into `OUT_DIR`: a
//! sorted table of `(path, include_bytes!(…))`. Doing this by hand rather than
//! with a derive macro keeps the build working while `web/` is missing or holds
//! only a few files, and needs no dependency.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    let manifest =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let web = manifest.join("..").join("..").join("web");
    println!("cargo:rerun-if-changed={}", web.display());
    let mut files = Vec::new();
    if web.is_dir() {
        collect(&web, &web, &mut files);
    }
    files.sort();
    let mut out = String::from(
        "/// The web client's files, sorted by path.\npub static FILES: &[(&str, &[u8])] = &[\n",
    );
    for (relative, absolute) in &files {
        writeln!(
            out,
            "    ({relative:?}, include_bytes!({:?})),",
            absolute.display().to_string()
        )
        .expect("writing to a String cannot fail");
    }
    out.push_str("];\n");
    let target = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("assets.rs");
    fs::write(target, out).expect("OUT_DIR is writable");
}

/// Every file under `dir`, skipping hidden entries and `node_modules` (test
/// tooling that may live beside the client but is not part of it).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let path = entry.path();
        // Cargo must rerun when any file or folder below changes, not only the top.
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_dir() {
            collect(root, &path, files);
        } else if let Ok(relative) = path.strip_prefix(root) {
            let relative: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push((relative.join("/"), path));
        }
    }
}
