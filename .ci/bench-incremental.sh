#!/bin/bash
# Runs that should cost what changed, not what the book holds (issue 19, points 1 and 2),
# timed against `cardsync serve` on loopback with the release `cardsync`:
#   no-op sync right after a push, no-op sync in steady state, status / scan of an unchanged
#   book, and 1% of the files edited by another program: sync, then the other book's sync.
# Requests are counted from the server's request log (one line per request).
# usage: .ci/bench-incremental.sh [COUNT] [WORKDIR]     (COUNT default 20000)
set -euo pipefail
count=${1:-20000}
work=${2:-$(mktemp -d /tmp/cardsync-bench-incr.XXXXXX)}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CARDSYNC_BIN:-$here/.build/release/cardsync}
[ -x "$bin" ] || { echo "no release build at $bin: build it with the README's install command ($(grep -m1 '^swift build -c release' "$here/README.md" | sed 's/ && .*//'))" >&2; exit 1; }
mkdir -p "$work"
cd "$work"
export CARDSYNC_ADMIN_PASSWORD=bench-pa55 CARDSYNC_PASSWORD=bench-pa55

now() { date +%s.%N; }
# timed LABEL CMD...: runs CMD, prints seconds and the requests the server logged meanwhile.
timed() {
    local label=$1; shift
    local before after start end
    before=$(wc -l < serve.log)
    start=$(now)
    "$@" > last.out 2> last.err || { echo "$label failed:" >&2; cat last.err >&2; exit 1; }
    end=$(now)
    after=$(wc -l < serve.log)
    last_seconds=$(echo "$end - $start" | bc)
    printf '%-58s %7.3f s %6d requests\n' "$label" "$last_seconds" "$((after - before))"
}

# The cards issue 19 measures: ../shared's seeded generator (seed 7, mixed 3.0/4.0; 100,000 give
# 95,023 distinct contacts, 141 MB); without ../shared, cardsync's own generator (100,000
# distinct, 178 MB: a heavier book). CARDSYNC_BENCH_GENERATOR=cardsync chooses the latter.
generator=$here/../shared/bench/gen_vcards.py
if [ "${CARDSYNC_BENCH_GENERATOR:-shared}" = shared ] && [ -f "$generator" ]; then
    source_note="../shared/bench/gen_vcards.py --seed 7 --version mixed"
    [ -f cards.vcf ] || python3 "$generator" --count "$count" --seed 7 --version mixed --out cards.vcf > /dev/null
else
    source_note="cardsync generate --seed 7 --version mixed"
    [ -f cards.vcf ] || "$bin" generate --count "$count" --seed 7 --version mixed -o cards.vcf > /dev/null
fi
echo "# $count cards ($source_note; $(stat -c %s cards.vcf) bytes), $(nproc) cores, $(date -u +%FT%TZ)"
rm -rf a b data serve.log
source "$here/.ci/bench-serve.sh"

"$bin" init a > /dev/null
"$bin" remote a set "$remote" > /dev/null
timed "import into a new book" "$bin" import cards.vcf --into a
import_seconds=$last_seconds
timed "first push" "$bin" sync a
push_seconds=$last_seconds
# The raw-API floor of the first push (target: first push <= 1.25x (raw _bulk_docs of the same
# documents + reading the book once)), taken right after the push so that both are measured in
# the same phase of a machine whose speed moves by a third within minutes: a's documents written
# again into a new database by a plain client, 500 per request, serially (the database is then
# deleted), and every file of a read once.
timed "raw: read every file of a once (cat)" find a -maxdepth 1 -name '*.vcf' -exec cat {} +
read_seconds=$last_seconds
raw_line=$(python3 "$here/.ci/bench-raw-bulk.py" "http://admin:$CARDSYNC_ADMIN_PASSWORD@127.0.0.1:$port" contacts rawpush 500)
echo "raw: $raw_line"
raw_seconds=$(echo "$raw_line" | sed -n 's/.*serial: \([0-9.]*\) s.*/\1/p')
timed "no-op sync right after the push" "$bin" sync a
timed "no-op sync, steady state" "$bin" sync a
timed "no-op sync, steady state (again)" "$bin" sync a
timed "status of the unchanged book" "$bin" status a
timed "status of the unchanged book (again)" "$bin" status a
timed "scan of the unchanged book" "$bin" scan a
timed "scan of the unchanged book (again)" "$bin" scan a
timed "floor: find -printf size/mtime/ctime/inode of every file" find a -maxdepth 1 -type f -printf '%s %T@ %C@ %i\n'
"$bin" init b > /dev/null
"$bin" remote b set "$remote" > /dev/null
timed "first pull into an empty book (b)" "$bin" sync b
pull_seconds=$last_seconds
timed "no-op sync of b, steady state" "$bin" sync b
# 1% of a's files edited by another program (a NOTE added before END:VCARD).
python3 - a "$count" <<'PY'
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
names = sorted(n for n in os.listdir(folder) if n.endswith('.vcf'))
for name in names[:: max(1, len(names) // max(1, count // 100))][: max(1, count // 100)]:
    path = os.path.join(folder, name)
    data = open(path, 'rb').read()
    at = data.upper().rfind(b'END:VCARD')
    open(path, 'wb').write(data[:at] + b'NOTE:edited by another program\r\n' + data[at:])
PY
timed "1% edited elsewhere: sync of a" "$bin" sync a
timed "1% edited elsewhere: then the sync of b" "$bin" sync b
timed "no-op sync of a right after that" "$bin" sync a
sleep 2
timed "no-op sync of a, 2 s later" "$bin" sync a
printf '# push / (raw + read) = %s / (%s + %s) = %.2f (target <= 1.25); pull / import = %s / %s = %.2f (target <= 1.5)\n' \
    "$push_seconds" "$raw_seconds" "$read_seconds" "$(echo "$push_seconds / ($raw_seconds + $read_seconds)" | bc -l)" \
    "$pull_seconds" "$import_seconds" "$(echo "$pull_seconds / $import_seconds" | bc -l)"
echo "# index snapshot of a: $(stat -c %s a/.cardsync/index.bin) bytes; journal: $(stat -c %s a/.cardsync/journal.jsonl) bytes"
