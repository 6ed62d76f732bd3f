#!/usr/bin/env bash
# Runs every test of Broadside: formatting, lints, the Rust test suites (engine
# rules, properties, referee transcripts, AI, server protocol and hardening, the
# load generator, terminal client), a short run of every fuzz target and the
# browser end-to-end tests. This is the README's test command; CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# System tools the tests drive: tmux runs the terminal client in a real
# pseudo-terminal. Installed here so a fresh machine needs nothing by hand.
if ! command -v tmux >/dev/null 2>&1; then
  echo "== installing tmux"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tmux
fi

echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== cargo test (release)"
cargo test --workspace --release
echo "== fuzzing (a short run of each target; scripts/fuzz.sh SECONDS for longer)"
scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
echo "== browser end-to-end tests"
# The release test build above already made the binary the browser tests run.
BROADSIDE_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/broadside" scripts/e2e.sh
