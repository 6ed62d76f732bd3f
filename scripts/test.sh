#!/usr/bin/env bash
# Runs every test of Broadside: formatting, lints, the Rust test suites (engine
# rules, properties, referee transcripts, AI, server protocol and hardening, the
# load generator, terminal client), a short run of every fuzz target and the
# browser end-to-end tests. This is the README's test command; CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says when it starts, counted from the start of the run, so a slow
# step shows in the log.
started=$(date +%s)
step() { echo "== $1 (at $(( $(date +%s) - started ))s)"; }

# System tools the tests drive: tmux runs the terminal client in a real
# pseudo-terminal. Installed here so a fresh machine needs nothing by hand.
if ! command -v tmux >/dev/null 2>&1; then
  step "installing tmux"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tmux
fi

# PostgreSQL and NATS for the storage and cluster tests, nginx for the
# cluster's load balancer: installed and started where missing, reused where
# they run. Each test makes its own fresh database.
step "services (PostgreSQL, NATS, nginx)"
eval "$(scripts/services.sh up)"
export BROADSIDE_TEST_POSTGRES="$BROADSIDE_PG_URL"
export BROADSIDE_TEST_NATS="$BROADSIDE_NATS_URL"

step "cargo fmt --check"
cargo fmt --all --check
step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
# The release profile keeps limited debug information for profiling; the tests
# do not need it, and a build without it compiles and links less.
export CARGO_PROFILE_RELEASE_DEBUG=false
step "cargo test (release)"
cargo test --workspace --release
step "the server's suites again, on PostgreSQL"
# The server's tests, selected by name within the whole workspace: with
# `-p broadside-server` cargo would resolve the dependencies' features for
# that package alone and build most of them a second time.
server_tests=()
for file in crates/server/tests/*.rs; do
  server_tests+=(--test "$(basename "$file" .rs)")
done
BROADSIDE_TEST_BACKEND=postgres cargo test --release --workspace --lib "${server_tests[@]}"
# The suites' databases (bs_test_*, bs_cluster_*) are dropped as they end;
# whatever an interrupted run left behind goes now.
psql "$BROADSIDE_TEST_POSTGRES" -X -q -t -A -c \
  "SELECT datname FROM pg_database WHERE datname LIKE 'bs\_test\_%' OR datname LIKE 'bs\_cluster\_%'" |
  while read -r name; do
    psql "$BROADSIDE_TEST_POSTGRES" -X -q -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" || true
  done
step "fuzzing (a short run of each target; scripts/fuzz.sh SECONDS for longer)"
# One build (with comparison tracing) serves every target on a short run.
FUZZ_BUILD="${FUZZ_BUILD:-compares}" scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
step "browser end-to-end tests"
# The release test build above already made the binary the browser tests run.
BROADSIDE_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/broadside" scripts/e2e.sh
step "all tests passed"
