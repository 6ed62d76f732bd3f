#!/usr/bin/env bash
# Measures Broadside under load and draws the result: builds the release
# binaries (the server and the lab's), then for every run starts a fresh
# `broadside serve` (temporary database, limits raised for many connections
# from loopback, default bot delay) on a free loopback port, drives it with
# `broadside-lab load --json` and stops it again, so each run starts from an
# empty server.
#
# Runs, each on its own server:
#   - the sweep: one run per game count of PERF_GAMES for PERF_SECONDS each,
#     one JSON line per run in docs/perf/sweep.jsonl (recreated), then the
#     same file gets one run of PERF_PACE_GAMES games per pace of PERF_PACES
#     (a move every PACE ms per seat instead of 2 s: more shots a second from
#     as many connections, to find the throughput ceiling);
#   - the attack: no games, two connections sending PERF_EXPENSIVE costly
#     set_options frames each while a probe pings every 20 ms
#     (docs/perf/attack.json);
#   - a probe under load: PERF_PROBE_GAMES games with a ping every 50 ms
#     (docs/perf/probe.json);
# then draws docs/perf/latency.svg from the sweep with `broadside-lab plot` and
# writes a summary (docs/perf/summary.md) with each run's server CPU time.
#
# Environment (defaults in brackets):
#   PERF_GAMES          game counts of the sweep ["1000 2500 5000 7500 10000"]
#   PERF_SECONDS        measured seconds of each sweep run [20]
#   PERF_PACE_GAMES     games of the faster-paced runs [10000]
#   PERF_PACES          paces in ms of the faster-paced runs ["1500 1200 1000 800"]
#   PERF_EXPENSIVE      set_options frames per attacking connection [20]
#   PERF_ATTACK_SECONDS measured seconds of the attack [10]
#   PERF_PROBE_GAMES    games of the probe under load [2500]
#   PERF_PROBE_SECONDS  measured seconds of the probe under load [20]
#   PERF_OUT            output folder [docs/perf]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

games_list="${PERF_GAMES:-1000 2500 5000 7500 10000}"
seconds="${PERF_SECONDS:-20}"
pace_games="${PERF_PACE_GAMES:-10000}"
paces="${PERF_PACES:-1500 1200 1000 800}"
expensive="${PERF_EXPENSIVE:-20}"
attack_seconds="${PERF_ATTACK_SECONDS:-10}"
probe_games="${PERF_PROBE_GAMES:-2500}"
probe_seconds="${PERF_PROBE_SECONDS:-20}"
out="${PERF_OUT:-docs/perf}"

work="$(mktemp -d)"
# build_binaries, start_server, stop_server, load_run and field.
. "$root/scripts/perf-lib.sh"
build_binaries
bin="$server_bin"

mkdir -p "$out"
# Other work on the machine skews the numbers: its load is noted.
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
: >"$out/sweep.jsonl"
for games in $games_list; do
  load_run "sweep-$games" --games "$games" --seconds "$seconds" >>"$out/sweep.jsonl"
done
for pace in $paces; do
  load_run "pace-$pace" --games "$pace_games" --pace-ms "$pace" --seconds "$seconds" >>"$out/sweep.jsonl"
done
load_run attack --games 0 --expensive "$expensive" --probe-ms 20 \
  --seconds "$attack_seconds" >"$out/attack.json"
load_run probe --games "$probe_games" --probe-ms 50 --seconds "$probe_seconds" \
  >"$out/probe.json"

"$lab" plot --input "$out/sweep.jsonl" --output "$out/latency.svg" \
  --title "Broadside: shot latency against load ($(nproc) cores for server and load generator)"

{
  echo "# Broadside under load"
  echo
  echo "Written by scripts/perf.sh on $(date -u +%Y-%m-%d) on a machine with $(nproc) cores,"
  echo "shared by the server and the load generator. Each run on a fresh server;"
  echo "the raw reports are sweep.jsonl, attack.json and probe.json, the chart latency.svg."
  echo "Load average (1, 5, 15 min) before the runs: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "## Sweep (${seconds} s measured per run)"
  echo
  echo "| games | pace ms | connections | shots/s | p50 ms | p99 ms | max ms | errors | server CPU s | load generator CPU s | server RSS MiB (max) |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    echo "| $(field games "$line")/$(field games_requested "$line") | $(field pace_ms "$line") | $(field connections "$line") | $(field shots_per_second "$line") | $(field p50_ms "$line") | $(field p99_ms "$line") | $(field max_ms "$line") | $(field errors "$line") | $(field server_cpu_seconds "$line") | $(field client_cpu_seconds "$line") | $(field server_rss_max_mib "$line") |"
  done <"$out/sweep.jsonl"
  echo
  echo "## Probes"
  echo
  echo "| run | games | pings | ping p50 ms | ping p99 ms | ping max ms | expensive answers / sent | last answer s | shot p99 ms | errors | server CPU s |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for run in attack probe; do
    line="$(cat "$out/$run.json")"
    echo "| $run | $(field games "$line") | $(field pings "$line") | $(field ping_p50_ms "$line") | $(field ping_p99_ms "$line") | $(field ping_max_ms "$line") | $(field expensive_answers "$line") / $(field expensive_sent "$line") | $(field expensive_last_answer_seconds "$line") | $(field p99_ms "$line") | $(field errors "$line") | $(field server_cpu_seconds "$line") |"
  done
} >"$out/summary.md"

cat "$out/summary.md"
echo "perf: wrote $out/sweep.jsonl, attack.json, probe.json, latency.svg, summary.md" >&2
