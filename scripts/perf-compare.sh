#!/usr/bin/env bash
# Compares two server binaries under the same load, in one run: for each game
# count of COMPARE_GAMES, a fresh `broadside serve` of the baseline and then of
# this tree, each driven by this tree's `broadside-lab load` for
# COMPARE_SECONDS, the pairs repeated COMPARE_ROUNDS times in turn so that
# drift of the machine falls on both. A reference workload (the lab's density
# bot playing REF_GAMES classic games on one thread, no server) runs before
# and after: its seconds say how fast this machine was during the run.
#
#   scripts/perf-compare.sh BASELINE_BROADSIDE_BINARY
#
# The baseline is any `broadside` binary that serves the same protocol, e.g.
# one built from an earlier commit:
#   git worktree add /tmp/base <commit> && \
#     (cd /tmp/base && CARGO_TARGET_DIR=/tmp/base-target cargo build --release -p broadside)
#
# Writes one JSON line per load run, with "server" (baseline or current) and
# "round", to COMPARE_OUT [docs/perf/compare.jsonl], and prints a table.
#
# Environment (defaults in brackets):
#   COMPARE_GAMES    game counts ["2500 5000"]
#   COMPARE_SECONDS  measured seconds per run [20]
#   COMPARE_ROUNDS   rounds of each pair [2]
#   REF_GAMES        games of the reference workload [3000]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: scripts/perf-compare.sh BASELINE_BROADSIDE_BINARY" >&2
  exit 2
fi
baseline="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"

games_list="${COMPARE_GAMES:-2500 5000}"
seconds="${COMPARE_SECONDS:-20}"
rounds="${COMPARE_ROUNDS:-2}"
ref_games="${REF_GAMES:-3000}"
out="${COMPARE_OUT:-docs/perf/compare.jsonl}"

work="$(mktemp -d)"
# build_binaries, start_server, stop_server, load_run and field.
. "$root/scripts/perf-lib.sh"
build_binaries
current="$server_bin"

# Seconds of wall time of the reference workload.
reference() {
  local start end
  start="$(date +%s.%N)"
  "$lab" bench --preset classic --strategy density --games "$ref_games" --seed 1 >/dev/null
  end="$(date +%s.%N)"
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }' 
}

mkdir -p "$(dirname "$out")"
: >"$out"
ref_before="$(reference)"
echo "perf-compare: reference workload before: $ref_before s" >&2
for round in $(seq 1 "$rounds"); do
  for games in $games_list; do
    for server in baseline current; do
      if [ "$server" = baseline ]; then bin="$baseline"; else bin="$current"; fi
      line="$(load_run "$server-$games" --games "$games" --seconds "$seconds")"
      echo "{\"server\":\"$server\",\"round\":$round,${line#\{}" >>"$out"
    done
  done
done
ref_after="$(reference)"
echo "perf-compare: reference workload after: $ref_after s" >&2

echo "Reference workload ($ref_games classic games of the density bot, one thread): $ref_before s before, $ref_after s after."
echo "Load average (1, 5, 15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores."
echo
echo "| server | round | games | connections | shots/s | p50 ms | p99 ms | max ms | errors | server CPU s | CPU ms per shot | server RSS MiB (max) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
while IFS= read -r line; do
  echo "| $(field server "$line" | tr -d '"') | $(field round "$line") | $(field games "$line")/$(field games_requested "$line") | $(field connections "$line") | $(field shots_per_second "$line") | $(field p50_ms "$line") | $(field p99_ms "$line") | $(field max_ms "$line") | $(field errors "$line") | $(field server_cpu_seconds "$line") | $(field server_cpu_ms_per_shot "$line") | $(field server_rss_max_mib "$line") |"
done <"$out"
