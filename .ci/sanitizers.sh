#!/usr/bin/env bash
# The test suite under a sanitizer, in its own scratch folder:
#
#   .ci/sanitizers.sh address     # AddressSanitizer (CI runs this one), .build-asan
#   .ci/sanitizers.sh thread      # ThreadSanitizer (run by hand, see RELIABILITY.md), .build-tsan
#
# Extra arguments go to `swift test` (e.g. --filter VCardKitTests). The CLI tests run the
# sanitized `cardsync` built beside the tests. Prints the last lines of the run; the whole output
# is in .build-<x>san/test-output.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer="${1:?usage: .ci/sanitizers.sh address|thread [swift test arguments]}"
shift
case "$sanitizer" in
  address) scratch=.build-asan ;;
  thread) scratch=.build-tsan ;;
  *) echo "unknown sanitizer $sanitizer (address or thread)" >&2; exit 64 ;;
esac
export SWIFT_BACKTRACE=enable=no
# halt_on_error: the first report fails the run; LeakSanitizer is off (the Swift runtime's
# process-lifetime caches read as leaks); the suppressions let through one over-read inside the
# toolchain's Foundation (see the file).
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=0:suppressions=$(pwd)/.ci/asan-suppressions.txt}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" >&2
bin="$(swift build --sanitize="$sanitizer" --scratch-path "$scratch" --show-bin-path)"
mkdir -p "$scratch"
set +e
CARDSYNC_SANITIZER="$sanitizer" CARDSYNC_BINARY="$bin/cardsync" swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "$@" \
  > "$scratch/test-output.txt" 2>&1
status=$?
set -e
grep -E '^✘|Sanitizer|SUMMARY' "$scratch/test-output.txt" | head -n 60 || true
tail -n 2 "$scratch/test-output.txt"
exit "$status"
