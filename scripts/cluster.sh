#!/usr/bin/env bash
# A local Broadside cluster anyone can start: several `broadside serve` nodes
# sharing one PostgreSQL database and one NATS bus, behind nginx.
#
#   scripts/cluster.sh [--nodes N] [--port P] [--db URL] [--bus URL] [--logs DIR] [-- SERVE_FLAGS...]
#   scripts/cluster.sh roll [--logs DIR]
#
# Installs and starts what is missing (scripts/services.sh: PostgreSQL, NATS
# with JetStream, nginx), creates the database broadside_cluster unless --db
# names one (it is kept afterwards: games survive a restart of the cluster),
# builds the release binary (BROADSIDE_BIN skips the build), starts the nodes
# n1..nN on 127.0.0.1:P+1..P+N and nginx on 127.0.0.1:P in front of them, then
# stays in the foreground. Ctrl-C (or SIGTERM) stops the nodes gracefully and
# nginx; PostgreSQL and NATS keep running.
#
#   --nodes N   number of nodes [3]
#   --port P    the port of the balancer; the nodes take the next N ports [8080]
#   --db URL    a postgres:// database to use instead of broadside_cluster
#               (used as it is: the local PostgreSQL is then left alone)
#   --bus URL   a nats:// server to use instead of the local one
#   --logs DIR  where the logs go [data/cluster]
#   -- FLAGS    passed to every node's `broadside serve` (e.g. --bot-delay-ms 200)
#
# Logs: data/cluster/n1.log ... and data/cluster/nginx/{access,error}.log,
# started afresh on every run.
#
# `roll` is a rolling deploy of the cluster running in the foreground (found
# through DIR/cluster.pid): each node in turn gets SIGTERM (it drains for its
# --drain-ms, then hands its rooms over), is waited for, is started again with
# the binary now at BROADSIDE_BIN (rebuild it first to deploy a new version)
# and must answer /readyz with 200 before the next one goes. It prints how
# long each node took and exits 0 once every node is back (1 if one is not).
set -euo pipefail

# A relative BROADSIDE_BIN is taken from the directory the script is run in.
if [ -n "${BROADSIDE_BIN:-}" ]; then
  case "$BROADSIDE_BIN" in
    /*) ;;
    *) BROADSIDE_BIN="$PWD/$BROADSIDE_BIN" ;;
  esac
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=scripts/services.sh
source scripts/services.sh

log() {
  echo "cluster: $*" >&2
}

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
}

nodes=3
port=8080
db=""
bus=""
logs="data/cluster"
serve_flags=()
command="run"
if [ "${1:-}" = roll ]; then
  command="roll"
  shift
fi
while [ "$#" -gt 0 ]; do
  case "$1" in
    --logs) logs="${2:?--logs needs a directory}"; shift 2 ;;
    --logs=*) logs="${1#*=}"; shift ;;
    --nodes) nodes="${2:?--nodes needs a number}"; shift 2 ;;
    --nodes=*) nodes="${1#*=}"; shift ;;
    --port) port="${2:?--port needs a number}"; shift 2 ;;
    --port=*) port="${1#*=}"; shift ;;
    --db) db="${2:?--db needs a postgres:// URL}"; shift 2 ;;
    --db=*) db="${1#*=}"; shift ;;
    --bus) bus="${2:?--bus needs a nats:// URL}"; shift 2 ;;
    --bus=*) bus="${1#*=}"; shift ;;
    --) shift; serve_flags=("$@"); break ;;
    -h | --help) usage; exit 0 ;;
    *) log "unknown argument: $1"; usage; exit 2 ;;
  esac
done
if [ "$command" = roll ]; then
  pid="$(cat "$logs/cluster.pid" 2>/dev/null || true)"
  if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
    log "no cluster is running from $logs (start one with scripts/cluster.sh)"
    exit 1
  fi
  rm -f "$logs/roll.done"
  kill -USR1 "$pid"
  log "rolling the cluster of process $pid"
  for _ in $(seq 1 6000); do
    if [ -f "$logs/roll.done" ]; then
      cat "$logs/roll.done"
      grep -q '^rolled every node' "$logs/roll.done"
      exit $?
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      log "the cluster stopped during the roll"
      exit 1
    fi
    sleep 0.1
  done
  log "the roll did not end within 10 minutes"
  exit 1
fi

case "$nodes" in
  '' | *[!0-9]*) log "--nodes takes a number"; exit 2 ;;
esac
case "$port" in
  '' | *[!0-9]*) log "--port takes a number"; exit 2 ;;
esac
if [ "$nodes" -lt 1 ] || [ "$nodes" -gt 64 ]; then
  log "--nodes must be between 1 and 64"
  exit 2
fi
if [ "$port" -lt 1 ] || [ $((port + nodes)) -gt 65535 ]; then
  log "--port $port leaves no room for $nodes node ports after it"
  exit 2
fi

# Every port must be free: an old cluster or another server would take
# requests meant for this one.
for p in $(seq "$port" $((port + nodes))); do
  if services_port_open 127.0.0.1 "$p"; then
    log "127.0.0.1:$p is in use (another cluster or server?); choose other ports with --port"
    exit 1
  fi
done

if [ -z "$db" ]; then
  services_postgres
  db="$(services_ensure_db broadside_cluster)"
elif command -v psql >/dev/null 2>&1 && ! PGCONNECT_TIMEOUT=5 psql -X -w -q -c 'select 1' "$db" >/dev/null; then
  log "cannot connect to --db $db"
  exit 1
fi
if [ -z "$bus" ]; then
  services_nats
  bus="nats://127.0.0.1:$SERVICES_NATS_PORT"
fi
services_nginx_bin >/dev/null

if [ -z "${BROADSIDE_BIN:-}" ]; then
  log "building the release binary (cargo build --release -p broadside)"
  cargo build --release -p broadside
  BROADSIDE_BIN="${CARGO_TARGET_DIR:-$root/target}/release/broadside"
  case "$BROADSIDE_BIN" in
    /*) ;;
    *) BROADSIDE_BIN="$root/$BROADSIDE_BIN" ;;
  esac
fi
if [ ! -x "$BROADSIDE_BIN" ]; then
  log "no executable at $BROADSIDE_BIN"
  exit 1
fi

mkdir -p "$logs"
logs="$(cd "$logs" && pwd)"
rm -f "$logs"/n*.log "$logs/roll.done"
nginx_dir="$logs/nginx"
rm -f "$nginx_dir/access.log" "$nginx_dir/error.log"

names=()
pids=()
ports=()
stopping=""

stop_all() {
  if [ -n "$stopping" ]; then
    return
  fi
  stopping=1
  rm -f "$logs/cluster.pid"
  # Bounded waits below; a second Ctrl-C must not leave nodes behind.
  trap '' INT TERM
  local i pid left
  for pid in "${pids[@]}"; do
    if [ -n "$pid" ]; then
      kill -TERM "$pid" 2>/dev/null || true
    fi
  done
  services_nginx_stop "$nginx_dir" || true
  # The nodes finish their work (rooms are stored) and close their connections.
  for _ in $(seq 1 200); do
    left=0
    for pid in "${pids[@]}"; do
      if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        left=1
      fi
    done
    if [ "$left" = 0 ]; then
      break
    fi
    sleep 0.1
  done
  for i in "${!pids[@]}"; do
    pid="${pids[$i]}"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      log "${names[$i]} did not stop within 20 s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  wait 2>/dev/null || true
  log "stopped (logs in $logs/)"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Starts node I (0-based) of the cluster, its log appended to.
start_node() {
  local i="$1" name="n$(($1 + 1))" node_port=$((port + $1 + 1))
  "$BROADSIDE_BIN" serve --addr "127.0.0.1:$node_port" --node "$name" --bus "$bus" --db "$db" \
    "${serve_flags[@]}" >>"$logs/$name.log" 2>&1 &
  log "started $name on 127.0.0.1:$node_port (pid $!, log $logs/$name.log)"
  names[i]="$name"
  pids[i]="$!"
  ports[i]="$node_port"
}

# Whether node I answers PATH with 200 within SECONDS (false at once if it exits).
answers_200() {
  local i="$1" path="$2" seconds="$3"
  for _ in $(seq 1 $((seconds * 10))); do
    if [ "$(services_http_status 127.0.0.1 "${ports[$i]}" "$path" || true)" = 200 ]; then
      return 0
    fi
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then
      return 1
    fi
    sleep 0.1
  done
  return 1
}

# The rolling deploy `scripts/cluster.sh roll` asks for (SIGUSR1): one node
# at a time, stopped gracefully, started again, ready before the next.
roll_nodes() {
  local i pid started took report="" ok=1
  for i in "${!pids[@]}"; do
    pid="${pids[$i]}"
    started="$(date +%s%N)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 600); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      if kill -0 "$pid" 2>/dev/null; then
        log "${names[$i]} did not stop within 60 s: killing it"
        kill -KILL "$pid" 2>/dev/null || true
      fi
      wait "$pid" 2>/dev/null || true
    fi
    start_node "$i"
    if ! answers_200 "$i" /readyz 60; then
      log "${names[$i]} is not ready 60 s after its restart; the end of its log:"
      tail -n 20 "$logs/${names[$i]}.log" >&2
      ok=""
      report+="${names[$i]} not ready after its restart"$'\n'
      break
    fi
    took=$((($(date +%s%N) - started) / 1000000))
    log "rolled ${names[$i]} in $took ms"
    report+="${names[$i]} $took ms"$'\n'
  done
  if [ -n "$ok" ]; then
    report="rolled every node"$'\n'"$report"
  fi
  printf '%s' "$report" >"$logs/roll.done.tmp"
  mv "$logs/roll.done.tmp" "$logs/roll.done"
}

echo "$$" >"$logs/cluster.pid"
rolling=""
trap 'rolling=1' USR1

for i in $(seq 0 $((nodes - 1))); do
  start_node "$i"
done

# Every node must answer /readyz with 200 before nginx sends it players.
for i in "${!pids[@]}"; do
  if ! answers_200 "$i" /readyz 60; then
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      log "${names[$i]} does not answer /readyz with 200 after 60 s; the end of $logs/${names[$i]}.log:"
    else
      log "${names[$i]} stopped while starting; the end of $logs/${names[$i]}.log:"
    fi
    tail -n 20 "$logs/${names[$i]}.log" >&2
    exit 1
  fi
done

services_nginx_start "$nginx_dir" "$port" "${ports[@]}"

echo "Broadside cluster: open http://127.0.0.1:$port  ($nodes nodes; logs in $logs/; Ctrl-C stops it)"

# In the foreground until every node has stopped. A node that stops (or is
# killed to watch the others take over) is reported; nginx skips it.
while :; do
  if [ -n "$rolling" ]; then
    rolling=""
    roll_nodes
  fi
  alive=0
  for i in "${!pids[@]}"; do
    pid="${pids[$i]}"
    if [ -z "$pid" ]; then
      continue
    fi
    if kill -0 "$pid" 2>/dev/null; then
      alive=$((alive + 1))
    else
      status=0
      wait "$pid" 2>/dev/null || status=$?
      log "${names[$i]} stopped (exit status $status; see $logs/${names[$i]}.log)"
      pids[i]=""
    fi
  done
  if [ "$alive" = 0 ]; then
    log "every node has stopped"
    exit 1
  fi
  # A signal interrupts `wait` at once (a plain sleep would delay the trap).
  sleep 1 &
  wait "$!" || true
done
