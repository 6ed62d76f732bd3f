#!/usr/bin/env bash
# Runs every test of Broadside: formatting, lints, the Rust test suites (engine
# rules, properties, referee transcripts, AI, server protocol, terminal client)
# and the browser end-to-end tests. This is the README's test command; CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== cargo test (release)"
cargo test --workspace --release
echo "== browser end-to-end tests"
scripts/e2e.sh
