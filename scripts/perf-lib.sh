# Shared by scripts/perf.sh and scripts/perf-compare.sh (sourced, not run):
# a fresh `broadside serve` per load run and the fields of the lab's JSON lines.
# The caller sets $root (the checkout) and $work (a scratch folder, removed on
# exit) before sourcing, then calls build_binaries, which sets $lab; the load
# runs serve $bin (the server binary), which the caller sets.
# shellcheck shell=bash
server_pid=""

# Builds the release binaries of the server and of the lab and sets
# $server_bin and $lab to them.
build_binaries() {
  cargo build --release -p broadside -p broadside-lab
  local target="${CARGO_TARGET_DIR:-$root/target}"
  case "$target" in
    /*) ;;
    *) target="$root/$target" ;;
  esac
  server_bin="$target/release/broadside"
  lab="$target/release/broadside-lab"
}

stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}

cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts a fresh server on a free loopback port (port 0: the system picks it)
# and sets $addr from the address it prints. PERF_SERVER_FLAGS adds flags; by
# default the server never refuses as busy (`--busy-lag-ms 0`), so that a run
# past the knee measures latency rather than refusals (the overload run sets
# its own threshold).
start_server() {
  local name="$1"
  rm -f "$work"/db.sqlite*
  : >"$work/server-$name.log"
  # shellcheck disable=SC2086 # the flags are words
  "$bin" serve --addr 127.0.0.1:0 --db "$work/db.sqlite" \
    --max-connections 19000 --max-per-address 1000 \
    --rooms-per-minute 100000 --room-burst 100000 \
    ${PERF_SERVER_FLAGS:---busy-lag-ms 0} \
    >"$work/server-$name.log" 2>&1 &
  server_pid=$!
  addr=""
  for _ in $(seq 1 100); do
    # (A server on loopback prints itself as localhost.)
    addr="$(sed -n 's|.*http://\([0-9a-z.]*:[0-9]*\)/.*|\1|p' "$work/server-$name.log" | head -n 1 | sed 's/^localhost:/127.0.0.1:/' || true)"
    if [ -n "$addr" ]; then
      return 0
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  echo "perf: the server did not start:" >&2
  cat "$work/server-$name.log" >&2
  exit 1
}

# Runs `broadside-lab load --json` with the given arguments on a fresh server and
# prints its JSON line (its progress goes to stderr).
load_run() {
  local name="$1"
  shift
  start_server "$name"
  echo "perf: $name on $addr: broadside-lab load $*" >&2
  local line
  line="$("$lab" load --addr "$addr" --server-pid "$server_pid" --json "$@" | tail -n 1)"
  stop_server
  echo "$line"
}

# The value of a top-level scalar field of a JSON line ("null" when absent).
field() {
  local value
  value="$(printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p")"
  echo "${value:-null}"
}

