#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ (cargo-fuzz) for SECONDS each (default 30)
# and exits non-zero if any of them crashes, printing the input that did it.
#
#   scripts/fuzz.sh [SECONDS]
#
# Each target starts from a temporary copy of its seeds (fuzz/seeds/<target>/), so
# the corpus a run grows never lands in the checkout; crashing inputs are kept in
# fuzz/artifacts/<target>/ (ignored by git). On a shared machine run it as
# `nice -n 19 scripts/fuzz.sh`.
#
# Environment: FUZZ_SANITIZER (default `address`; `none` builds without
# AddressSanitizer), FUZZ_TARGETS (a space-separated subset of TARGETS),
# FUZZ_BUILD (`compares` or `plain`: one build for every target, which saves a
# whole build of the workspace on a short run).
#
# The targets' bodies are crates/fuzzing; the test command does not run
# libFuzzer, it replays every seed through the same bodies as an ordinary test
# (crates/fuzzing/tests/corpora.rs). Run this script after changing the engine,
# the referee or the server's frames, and commit inputs worth keeping (new
# coverage, a fixed crash) to fuzz/seeds/<target>/ so the test command replays
# them from then on.
set -euo pipefail
cd "$(dirname "$0")/.."

# The targets, in the order they run: fuzz/fuzz_targets/<name>.rs, with seeds in
# fuzz/seeds/<name>/ and, if present, a dictionary in fuzz/dicts/<name>.dict.
# A new target is added here (and as a [[bin]] of fuzz/Cargo.toml), with its build:
#   compares  libFuzzer traces comparisons, which finds the words and numbers a
#             text input must hold but makes every run slower;
#   plain     no comparison tracing, several times faster: for targets that
#             decode their bytes into structured choices.
TARGETS=(
  "referee compares"
  "engine_setup plain"
  "engine_commands plain"
  "save_load compares"
  "server_frames compares"
)

SECONDS_EACH="${1:-30}"
if ! [[ "$SECONDS_EACH" =~ ^[0-9]+$ ]] || [ "$SECONDS_EACH" -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]   (a whole number of seconds per target)" >&2
  exit 2
fi
SANITIZER="${FUZZ_SANITIZER:-address}"
declare -A BUILD=()
ALL=()
for entry in "${TARGETS[@]}"; do
  read -r name build <<<"$entry"
  case "$build" in
    compares | plain) ;;
    *) echo "fuzz target '$name': unknown build '$build'" >&2; exit 2 ;;
  esac
  ALL+=("$name")
  BUILD[$name]="${FUZZ_BUILD:-$build}"
done
case "${FUZZ_BUILD:-compares}" in
  compares | plain) ;;
  *) echo "FUZZ_BUILD must be 'compares' or 'plain'" >&2; exit 2 ;;
esac
read -r -a RUN <<<"${FUZZ_TARGETS:-${ALL[*]}}"
for target in "${RUN[@]}"; do
  if [ -z "${BUILD[$target]:-}" ]; then
    echo "unknown fuzz target '$target' (targets: ${ALL[*]})" >&2
    exit 2
  fi
done
# libFuzzer's limits: no input may take more memory or time than this.
LIMITS=(-rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10)

# cargo-fuzz passes nightly-only flags (-Z) to rustc and cargo; a stable
# toolchain accepts them when RUSTC_BOOTSTRAP is set.
export RUSTC_BOOTSTRAP=1

# libFuzzer itself is C++, built by the libfuzzer-sys crate.
if ! command -v c++ >/dev/null 2>&1; then
  echo "== installing a C++ compiler (libFuzzer is C++)"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq g++
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/broadside-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The cargo-fuzz options of a build kind; each kind builds in its own directory
# under fuzz/target, so switching between them rebuilds nothing.
build_options() {
  case "$1" in
    compares) echo "--sanitizer $SANITIZER --target-dir target/compares" ;;
    plain) echo "--sanitizer $SANITIZER --no-trace-compares --target-dir target/plain" ;;
  esac
}

for kind in $(for target in "${RUN[@]}"; do echo "${BUILD[$target]}"; done | sort -u); do
  echo "== building the fuzz targets ($kind, sanitizer: $SANITIZER)"
  # shellcheck disable=SC2046 # the options are words
  if ! (cd fuzz && cargo fuzz build $(build_options "$kind")) >"$work/build-$kind.log" 2>&1; then
    tail -n 60 "$work/build-$kind.log"
    echo "building the fuzz targets failed" >&2
    exit 1
  fi
done

failed=()
summary=()
for target in "${RUN[@]}"; do
  corpus="$work/corpus/$target"
  artifacts="$work/artifacts/$target"
  log="$work/$target.log"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "fuzz/seeds/$target" ]; then
    cp -R "fuzz/seeds/$target/." "$corpus/"
  fi
  args=(-max_total_time="$SECONDS_EACH" "${LIMITS[@]}" -print_final_stats=1
    -artifact_prefix="$artifacts/")
  if [ -f "fuzz/dicts/$target.dict" ]; then
    args+=(-dict="$PWD/fuzz/dicts/$target.dict")
  fi
  echo "== fuzzing $target for ${SECONDS_EACH}s"
  status=0
  # shellcheck disable=SC2046 # the options are words
  (cd fuzz && cargo fuzz run $(build_options "${BUILD[$target]}") "$target" "$corpus" -- "${args[@]}") \
    >"$log" 2>&1 || status=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  crashes=("$artifacts"/*)
  if [ "$status" -ne 0 ] || [ -e "${crashes[0]}" ]; then
    failed+=("$target")
    summary+=("$target: FAILED (exit $status) after ${runs:-?} runs")
    echo "!! $target failed (exit $status):"
    grep -A 2 -e 'panicked at' -e '^==[0-9]*==ERROR' "$log" | head -n 20 || true
    echo "!! the end of its log:"
    grep -v -e '^#[0-9]' -e 'NEW_FUNC' -e '# Uses:' -e '^"' -e '^ *#[0-9]* 0x' "$log" | tail -n 25 || true
    mkdir -p "fuzz/artifacts/$target"
    for artifact in "${crashes[@]}"; do
      [ -e "$artifact" ] || continue
      kept="fuzz/artifacts/$target/$(basename "$artifact")"
      cp "$artifact" "$kept"
      echo "!! input kept in $kept; replay it with:"
      echo "   (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run $(build_options "${BUILD[$target]}") $target artifacts/$target/$(basename "$artifact"))"
      echo "!! the input, base64: $(base64 -w0 <"$artifact")"
    done
  else
    summary+=("$target: ok, ${runs:-?} runs, ${rate:-?} exec/s, corpus $(find "$corpus" -type f | wc -l) inputs")
  fi
done

echo "== summary (${SECONDS_EACH}s per target)"
printf '   %s\n' "${summary[@]}"
if [ "${#failed[@]}" -ne 0 ]; then
  echo "fuzzing found crashes in: ${failed[*]}" >&2
  exit 1
fi
