#!/usr/bin/env bash
# Measures what the cluster costs on this machine: the same load (the lab's
# `broadside-lab load`, person against person) against
#   - one node on SQLite (the default server),
#   - one node on PostgreSQL,
#   - three nodes on PostgreSQL and NATS behind nginx (every connection through
#     the balancer; two in three players reach their room over NATS),
# each on a fresh database, and then the failover time over repeated kills
# (crates/lab/examples/failover.rs). Writes docs/perf/cluster.jsonl (one JSON
# line per load run, with "setup") and docs/perf/failover.json.
#
# PostgreSQL, NATS and nginx are started where missing (scripts/services.sh).
#
# Environment (defaults in brackets):
#   PERF_GAMES     games of each load run [1000]
#   PERF_SECONDS   measured seconds of each load run [20]
#   PERF_PACE_MS   milliseconds between two moves of one seat [1000]
#   PERF_KILLS     kills of the failover measurement [20]
#   PERF_LEASE     lease seconds of the failover measurement [6]
#   PERF_OUT       output folder [docs/perf]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
games="${PERF_GAMES:-1000}"
seconds="${PERF_SECONDS:-20}"
pace="${PERF_PACE_MS:-1000}"
kills="${PERF_KILLS:-20}"
lease="${PERF_LEASE:-6}"
out="${PERF_OUT:-docs/perf}"

# shellcheck source=scripts/services.sh
source scripts/services.sh
eval "$(scripts/services.sh up)"
export BROADSIDE_TEST_POSTGRES="$BROADSIDE_PG_URL" BROADSIDE_TEST_NATS="$BROADSIDE_NATS_URL"
cargo build --release -p broadside -p broadside-lab --bins --examples
target="${CARGO_TARGET_DIR:-$root/target}"
bin="$target/release/broadside"
lab="$target/release/broadside-lab"

work="$(mktemp -d)"
pids=()
db_url=""
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
  scripts/services.sh nginx-stop "$work/nginx" >/dev/null 2>&1 || true
  if [ -n "$db_url" ]; then scripts/services.sh drop-db "$db_url" >/dev/null 2>&1 || true; fi
  db_url=""
}
trap 'stop_all; rm -rf "$work"' EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Starts one node: NAME PORT DB [more serve flags].
node() {
  local name="$1" port="$2" db="$3"
  shift 3
  "$bin" serve --addr "127.0.0.1:$port" --db "$db" --node "$name" \
    --max-per-address 100000 --rooms-per-minute 100000 --room-burst 100000 "$@" \
    >"$work/$name.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 100); do
    if services_http_status 127.0.0.1 "$port" /healthz 2>/dev/null | grep -q 200; then return; fi
    sleep 0.1
  done
  echo "perf-cluster: node $name did not start" >&2
  cat "$work/$name.log" >&2
  exit 1
}
# Runs the load against ADDR and appends its JSON with "setup": SETUP.
load() {
  local setup="$1" addr="$2"
  echo "perf-cluster: $setup" >&2
  "$lab" load --addr "$addr" --games "$games" --seconds "$seconds" --pace-ms "$pace" \
    --bot-percent 0 --json | tail -n 1 |
    python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["setup"]=sys.argv[1]; print(json.dumps(r))' "$setup" \
    >>"$out/cluster.jsonl"
}

mkdir -p "$out"
: >"$out/cluster.jsonl"

port="$(free_port)"
node solo "$port" "$work/solo.sqlite"
load "one node, SQLite" "127.0.0.1:$port"
stop_all

db_url="$(services_fresh_db bs_perf)"
port="$(free_port)"
node solo "$port" "$db_url"
load "one node, PostgreSQL" "127.0.0.1:$port"
stop_all

db_url="$(services_fresh_db bs_perf)"
ports=()
for i in 1 2 3; do
  ports+=("$(free_port)")
  node "n$i" "${ports[-1]}" "$db_url" --bus "$BROADSIDE_NATS_URL" --trusted-proxy 127.0.0.1
done
balancer="$(free_port)"
mkdir -p "$work/nginx"
services_nginx_start "$work/nginx" "$balancer" "${ports[@]}" >/dev/null
load "three nodes behind nginx, PostgreSQL + NATS" "127.0.0.1:$balancer"
stop_all

echo "perf-cluster: failover, $kills kills, lease $lease s" >&2
"$target/release/examples/failover" "$kills" "$lease" | tail -n 1 >"$out/failover.json"
cat "$out/cluster.jsonl" "$out/failover.json"
