#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer targets (swift build -c release with -sanitize=fuzzer into
# .build-fuzz) and runs each for SECONDS, seeded from ../shared/corpus and Samples/.
#
#   .ci/fuzz.sh 60                     # every target, 60 s each (what CI runs)
#   .ci/fuzz.sh 600 vcard xcard        # two targets, 10 minutes each
#   FUZZ_JOBS=2 .ci/fuzz.sh 600        # two targets at a time
#
# Each target checks invariants beyond "no crash" (Sources/FuzzChecks). Memory per input is
# bounded: -malloc_limit_mb=512 fails an input that allocates more than 512 MB at once,
# -rss_limit_mb=2048 one that grows the process past 2 GB; -timeout=10 fails a slow input.
# Inputs that fail are saved in .build-fuzz/artifacts/TARGET/; copy each into
# Tests/FuzzRegressionTests/Inputs/TARGET/ once fixed, so it stays a regression test.
# Prints one JSON line per target (executions, seconds, corpus, coverage) and exits 1 when any
# target found a failing input.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
shared="${CARDSYNC_SHARED:-$(dirname "$repo")/shared}"
seconds="${1:-60}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(vcard jcard xcard journal json couch-body)
scratch="$repo/.build-fuzz"

flags=(-c release --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer -Xswiftc -DCARDSYNC_LIBFUZZER)
swift build --product cardsync-fuzz "${flags[@]}" >&2
bin="$(swift build "${flags[@]}" --show-bin-path)/cardsync-fuzz"

# Journal-line seeds: the journal of a book made from the samples, one line per file.
seeds="$scratch/seeds"
if [ ! -d "$seeds/journal" ]; then
  cardsync="$(swift build --show-bin-path)/cardsync"
  if [ ! -x "$cardsync" ]; then swift build --product cardsync >&2; fi
  tmp=$(mktemp -d)
  "$cardsync" init "$tmp/book" >/dev/null
  "$cardsync" import Samples/generated/mixed-40.vcf Samples/tricky --into "$tmp/book" >/dev/null 2>&1 || true
  mkdir -p "$seeds/journal"
  split -l 1 -a 4 "$tmp/book/.cardsync/journal.jsonl" "$seeds/journal/line-"
  rm -rf "$tmp"
fi

run_target() {
  local target="$1"
  local corpus="$scratch/corpus/$target" artifacts="$scratch/artifacts/$target/" log="$scratch/logs/$target.log"
  # Failing inputs of an earlier run are gone: keep them in Tests/FuzzRegressionTests/Inputs.
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  local seedDirs=()
  case "$target" in
    vcard|jcard|xcard) seedDirs=("$shared/corpus" "Samples") ;;
    journal) seedDirs=("$seeds/journal") ;;
    json|couch-body) seedDirs=("$seeds/journal" "$shared/corpus" "Tests/FuzzRegressionTests/Inputs/json") ;;
  esac
  local status=0 started
  started=$(date +%s)
  SWIFT_BACKTRACE=enable=no CARDSYNC_FUZZ_TARGET="$target" "$bin" "$corpus" "${seedDirs[@]}" \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
    -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1 || status=$?
  local execs elapsed cov corp found
  elapsed=$(( $(date +%s) - started ))
  execs=$(grep -aEo 'stat::number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n 1 || echo 0)
  cov=$(grep -aEo 'cov: [0-9]+' "$log" | tail -n 1 | grep -Eo '[0-9]+' || echo 0)
  corp=$(grep -aEo 'corp: [0-9]+' "$log" | tail -n 1 | grep -Eo '[0-9]+' || echo 0)
  found=$( (find "$artifacts" -type f 2>/dev/null || true) | wc -l)
  printf '{"target":"%s","seconds":%s,"executions":%s,"coverage":%s,"corpus":%s,"failingInputs":%s,"exit":%s}\n' \
    "$target" "$elapsed" "${execs:-0}" "${cov:-0}" "${corp:-0}" "$found" "$status"
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    echo "fuzz target $target failed (exit $status); see $log and $artifacts" >&2
    grep -aE 'Fatal error|ERROR|SUMMARY' "$log" | head -n 5 >&2 || true
    return 1
  fi
}

failed=0
jobs="${FUZZ_JOBS:-1}"
if [ "$jobs" -le 1 ]; then
  for target in "${targets[@]}"; do run_target "$target" || failed=1; done
else
  pids=()
  for target in "${targets[@]}"; do
    run_target "$target" & pids+=($!)
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
fi
exit "$failed"
