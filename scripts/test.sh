#!/usr/bin/env bash
# Runs every test of Broadside: formatting, lints, the Rust test suites (engine
# rules, properties, referee transcripts, the fuzz targets' seed corpora, AI,
# server protocol and hardening on SQLite and again on PostgreSQL, the cluster
# with real nodes, NATS and nginx, the lab's load generator, the terminal
# client) and the browser end-to-end tests. This is the README's test command;
# CI runs it. It installs and starts what is missing (tmux, PostgreSQL, NATS,
# nginx, Chromium, the browser tests' npm packages) and reuses what runs.
#
# One release build serves the Rust tests and the browser tests. The run ends
# with a table of its steps' times. Longer runs of the same checks are apart:
# scripts/fuzz.sh (libFuzzer), scripts/perf.sh and scripts/perf-cluster.sh
# (load at full size).
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
step_names=()
step_seconds=()
current=""
current_start=0

# Prints the steps' times so far; called at the end and when a step fails.
table() {
  echo "== step times"
  local i
  for i in "${!step_names[@]}"; do
    printf '   %-44s %5ss\n' "${step_names[$i]}" "${step_seconds[$i]}"
  done
  printf '   %-44s %5ss\n' "total" "$(($(date +%s) - started))"
}

finish_step() {
  if [ -n "$current" ]; then
    step_names+=("$current")
    step_seconds+=("$(($(date +%s) - current_start))")
    current=""
  fi
}

step() {
  finish_step
  current="$1"
  current_start=$(date +%s)
  echo "== $1 (at $((current_start - started))s)"
}

on_exit() {
  local status=$?
  # The browser tests run in the background from the release build on: a
  # failure elsewhere stops them (and the server and browser they started).
  if [ -n "${e2e_pid:-}" ] && kill -0 "$e2e_pid" 2>/dev/null; then
    pkill -TERM -P "$e2e_pid" 2>/dev/null || true
    kill -TERM "$e2e_pid" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ]; then
    [ -n "$current" ] && step_names+=("$current (FAILED)") &&
      step_seconds+=("$(($(date +%s) - current_start))")
    table
  fi
}
trap on_exit EXIT

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

# Chromium and the browser tests' packages are installed while Rust builds:
# the installs wait on the network, the builds on the processor.
e2e_setup_log="$(mktemp)"
scripts/e2e.sh --setup-only >"$e2e_setup_log" 2>&1 &
e2e_setup_pid=$!

step "cargo fmt --check"
cargo fmt --all --check
step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

# The release profile keeps limited debug information for profiling; the tests
# do not need it, and a build without it compiles and links less.
export CARGO_PROFILE_RELEASE_DEBUG=false
# Examples are not built here: clippy above already compiled them (the lab's
# measuring examples link the whole server, minutes of release build), and no
# test runs them; scripts/perf-cluster.sh builds the one it runs.
test_targets=(--lib --bins --tests)
step "release build (every test, every binary)"
cargo test --workspace --release --no-run "${test_targets[@]}"

# The browser tests start now and run beside the Rust tests: both mostly wait
# on sockets and timers, and the release build above already made the binary
# they serve. Their output is shown when they end.
if ! wait "$e2e_setup_pid"; then
  cat "$e2e_setup_log"
  echo "installing what the browser tests need failed" >&2
  exit 1
fi
rm -f "$e2e_setup_log"
e2e_log="$(mktemp)"
e2e_started=$(date +%s)
BROADSIDE_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/broadside" scripts/e2e.sh >"$e2e_log" 2>&1 &
e2e_pid=$!

step "Rust tests (server on SQLite)"
cargo test --workspace --release "${test_targets[@]}"

step "the server's suites again, on PostgreSQL"
# The server's tests (its unit tests and the one binary of its integration
# suites, tests/server.rs), selected within the whole workspace: with
# `-p broadside-server` cargo would resolve the dependencies' features for
# that package alone and build most of them a second time.
BROADSIDE_TEST_BACKEND=postgres cargo test --release --workspace --lib --test server
# The suites' databases (bs_test_*, bs_cluster_*) are dropped as they end;
# whatever an interrupted run left behind goes now.
psql "$BROADSIDE_TEST_POSTGRES" -X -q -t -A -c \
  "SELECT datname FROM pg_database WHERE datname LIKE 'bs\_test\_%' OR datname LIKE 'bs\_cluster\_%'" |
  while read -r name; do
    psql "$BROADSIDE_TEST_POSTGRES" -X -q -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" || true
  done

step "browser end-to-end tests (the rest of their time)"
e2e_status=0
wait "$e2e_pid" || e2e_status=$?
cat "$e2e_log"
rm -f "$e2e_log"
e2e_pid=""
echo "== the browser tests took $(($(date +%s) - e2e_started))s in all, beside the Rust tests"
if [ "$e2e_status" -ne 0 ]; then
  echo "the browser tests failed" >&2
  exit 1
fi

finish_step
step_names+=("(browser tests from start to end)")
step_seconds+=("$(($(date +%s) - e2e_started))")
echo "== all tests passed"
table
