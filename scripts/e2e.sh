#!/usr/bin/env bash
# Runs the browser tests of the web client (tests/e2e) against a real
# `broadside serve`, in the system's headless Chromium.
#
# Screenshots land in tests/e2e/screenshots/ (ignored by git); scripts/screenshots.sh
# refreshes the committed ones in docs/screenshots/.
#
# Works on a fresh machine: installs Chromium with apt-get when it is missing,
# installs the test's npm packages (`--setup-only`: only that), builds the release binary, starts the
# server on a free loopback port with a temporary database, runs the tests and
# stops the server again.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [ ! -x /usr/bin/chromium ]; then
  echo "e2e: installing chromium" >&2
  sudo_cmd=""
  if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
fi

# tmux runs the terminal client in terminal-login.test.js.
if ! command -v tmux >/dev/null 2>&1; then
  echo "e2e: installing tmux" >&2
  sudo_cmd=""
  if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq tmux >/dev/null
fi

if ! command -v node >/dev/null 2>&1; then
  echo "e2e: node is required (Node.js 18 or newer)" >&2
  exit 1
fi

(
  cd tests/e2e
  if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  else
    npm install --no-audit --no-fund --loglevel=error
  fi
)

# `--setup-only` stops here: scripts/test.sh installs what the tests need while
# it builds, and runs them later.
if [ "${1:-}" = "--setup-only" ]; then
  exit 0
fi

# scripts/test.sh passes the binary its release test build already made;
# run alone, this script builds it.
if [ -z "${BROADSIDE_BIN:-}" ]; then
  cargo build --release -p broadside
  target_dir="${CARGO_TARGET_DIR:-$root/target}"
  BROADSIDE_BIN="$target_dir/release/broadside"
fi
# The tests run in tests/e2e: a relative path is made absolute first.
case "$BROADSIDE_BIN" in
  /*) ;;
  *) BROADSIDE_BIN="$root/$BROADSIDE_BIN" ;;
esac
export BROADSIDE_BIN

work="$(mktemp -d)"
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
# The quick match offers a bot after 3 s (MATCH_WAIT_SECS in tests/e2e/harness.js).
# Every test browser comes from 127.0.0.1: the per-address limit on new rooms
# is raised to what the whole suite needs (tests/e2e/harness.js does the same).
"$BROADSIDE_BIN" serve --addr "127.0.0.1:$port" --db "$work/e2e.sqlite" --bot-delay-ms 40 --match-wait-secs 3 \
  --room-burst 200 --rooms-per-minute 600 --busy-lag-ms 0 >"$work/server.log" 2>&1 &
server_pid=$!

cleanup() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "e2e: the server did not start:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  sleep 0.1
done

export BROADSIDE_URL="http://127.0.0.1:$port"
start=$(date +%s)
status=0
# Test files named on the command line (e.g. `scripts/e2e.sh public.test.js`)
# run alone; without any, every test file runs.
(cd tests/e2e && node --test --test-concurrency="${E2E_CONCURRENCY:-1}" --test-reporter=spec "$@") || status=$?
echo "e2e: finished in $(( $(date +%s) - start ))s" >&2
if [ "$status" != "0" ]; then
  echo "e2e: server log:" >&2
  tail -n 50 "$work/server.log" >&2
fi
exit "$status"
