#!/bin/bash
# Folder ↔ folder, the same contacts both ways, side by side in one run (issue 19's last row):
#   cardsync: book a → `cardsync serve` on loopback → book b (each step: `cardsync sync a`, then
#             `cardsync sync b`, both timed, release build)
#   vdirsyncer (Debian package, filesystem → filesystem pair, "a wins"): one `vdirsyncer sync`
# for: the initial copy, a run with nothing changed, and a run after 1% of a's files were
# edited by another program. vdirsyncer's folder a is a copy of cardsync's book a (its .vcf
# files, one contact per file), so both copy the same bytes.
# The three runs are made ROUNDS times (CARDSYNC_BENCH_ROUNDS, default 3), each round in fresh
# folders (and its own database on the server), the two tools alternating within each run; every
# round's rows are printed, then for each run the median and the range of both tools' times and
# of the ratio (taken within a round). On this machine one sync's time moves by a fifth from
# one run to the next, so a single round says little about a ratio near its target.
# usage: .ci/bench-vdirsyncer.sh [COUNT] [WORKDIR]     (COUNT default 10000)
set -euo pipefail
count=${1:-10000}
work=${2:-$(mktemp -d /tmp/cardsync-bench-vdir.XXXXXX)}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CARDSYNC_BIN:-$here/.build/release/cardsync}
[ -x "$bin" ] || { echo "no release build at $bin: build it with the README's install command ($(grep -m1 '^swift build -c release' "$here/README.md" | sed 's/ && .*//'))" >&2; exit 1; }
command -v vdirsyncer > /dev/null || { echo "vdirsyncer is not installed (apt-get install vdirsyncer)" >&2; exit 1; }
mkdir -p "$work"
cd "$work"
export CARDSYNC_ADMIN_PASSWORD=bench-pa55 CARDSYNC_PASSWORD=bench-pa55

now() { date +%s.%N; }
# seconds CMD...: runs CMD (output to last.out/last.err) and prints how long it took.
seconds() {
    local start end
    start=$(now)
    "$@" > last.out 2> last.err || { echo "failed: $*" >&2; cat last.err >&2; exit 1; }
    end=$(now)
    echo "$end - $start" | bc
}
# edit_one_percent FOLDER: adds a NOTE to 1% of the folder's .vcf files, as another program would.
edit_one_percent() {
    python3 - "$1" "$count" <<'PY'
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
names = sorted(n for n in os.listdir(folder) if n.endswith('.vcf'))
step = max(1, len(names) // max(1, count // 100))
for name in names[::step][: max(1, count // 100)]:
    path = os.path.join(folder, name)
    data = open(path, 'rb').read()
    at = data.upper().rfind(b'END:VCARD')
    open(path, 'wb').write(data[:at] + b'NOTE:edited by another program\r\n' + data[at:])
PY
}
# row LABEL CARDSYNC_SECONDS VDIRSYNCER_SECONDS
row() {
    printf '%-28s %9.3f s %11.3f s %8.1f×\n' "$1" "$2" "$3" "$(echo "$3 / $2" | bc -l)"
}

rounds=${CARDSYNC_BENCH_ROUNDS:-3}
echo "# $count cards (cardsync generate --seed 7 --version mixed), $rounds rounds, $(nproc) cores, $(date -u +%FT%TZ), load: $(cut -d' ' -f1-3 /proc/loadavg)"
cards="cards-$count.vcf"   # one file per size: a work folder reused with another COUNT gets its own cards
[ -f "$cards" ] || "$bin" generate --count "$count" --seed 7 --version mixed -o "$cards" > /dev/null 2>&1
# A work folder used before holds the last run's folders. Removing them frees tens of thousands
# of inodes, and on ext4 without a journal (this project's machine) a new inode skips every inode
# freed less than 60 s before (`recently_deleted` in fs/ext4/ialloc.c), so each file then created
# nearby scans past all of them: a 10k pull's system time went from 0.4 s to 4.5 s. The removal
# is synced and given 61 s to age (CARDSYNC_BENCH_SETTLE=0 skips the wait); a fresh work folder
# (the default) needs neither, and the rounds of one run remove nothing.
if compgen -G "round-*" > /dev/null || [ -e a ] || [ -e data ]; then
    rm -rf round-* a b data va vb vstatus serve.log times.tsv
    sync
    if [ "${CARDSYNC_BENCH_SETTLE:-61}" != 0 ]; then
        echo "# removed the last run's folders; waiting ${CARDSYNC_BENCH_SETTLE:-61} s for the freed inodes to age (ext4 without journal)" >&2
        sleep "${CARDSYNC_BENCH_SETTLE:-61}"
    fi
fi
rm -f times.tsv serve.log
source "$here/.ci/bench-serve.sh"

sync_both() { "$bin" sync a && "$bin" sync b; }
vdir() { vdirsyncer -c vdirsyncer.conf sync; }
# measure RUN ROUND: times both tools for one run (the first tool alternates with the round) and
# prints the round's row.
measure() {
    local c v
    if [ $(( $2 % 2 )) = 1 ]; then c=$(seconds sync_both); v=$(seconds vdir); else v=$(seconds vdir); c=$(seconds sync_both); fi
    printf '%s\t%s\t%s\n' "$1" "$c" "$v" >> ../times.tsv
    row "$1" "$c" "$v"
}

for round in $(seq "$rounds"); do
    mkdir "round-$round"
    cd "round-$round"
    "$bin" init a > /dev/null
    "$bin" init b > /dev/null
    "$bin" remote a set "$remote-$round" > /dev/null
    "$bin" remote b set "$remote-$round" > /dev/null
    "$bin" import "../$cards" --into a > /dev/null 2> import.err   # its warnings: the generator's SORT-AS quirk
    mkdir va vb vstatus
    find a -maxdepth 1 -name '*.vcf' -exec cp -p -t va {} +
    cat > vdirsyncer.conf <<CONF
[general]
status_path = "$PWD/vstatus/"

[pair book]
a = "book_a"
b = "book_b"
collections = null
conflict_resolution = "a wins"

[storage book_a]
type = "filesystem"
path = "$PWD/va/"
fileext = ".vcf"

[storage book_b]
type = "filesystem"
path = "$PWD/vb/"
fileext = ".vcf"
CONF
    vdirsyncer -c vdirsyncer.conf discover book > /dev/null 2>&1 < /dev/null || { echo "vdirsyncer discover failed" >&2; exit 1; }
    echo "# round $round: $(find va -name '*.vcf' | wc -l) files in each folder a; database ${remote##*/}-$round"
    printf '%-28s %11s %13s %9s\n' "run" "cardsync" "vdirsyncer" "ratio"
    measure "initial (a → b)" "$round"
    [ "$(find b -maxdepth 1 -name '*.vcf' | wc -l)" = "$(find vb -name '*.vcf' | wc -l)" ] \
        || { echo "the two copies differ in size: b $(find b -maxdepth 1 -name '*.vcf' | wc -l), vb $(find vb -name '*.vcf' | wc -l)" >&2; exit 1; }
    sleep 2   # past the racily-clean window of both tools' file stamps
    measure "nothing changed" "$round"
    edit_one_percent a; edit_one_percent va
    measure "1% edited in a" "$round"
    edited=$(grep -l 'edited by another program' b/*.vcf | wc -l); vedited=$(grep -l 'edited by another program' vb/*.vcf | wc -l)
    [ "$edited" = "$vedited" ] || { echo "the edits that reached b differ: cardsync $edited, vdirsyncer $vedited" >&2; exit 1; }
    echo "# edits that reached b: cardsync $edited, vdirsyncer $vedited; load: $(cut -d' ' -f1-3 /proc/loadavg)"
    cd ..
done

python3 - times.tsv "$rounds" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
print(f"# over {sys.argv[2]} rounds: median (range)")
print(f"{'run':<28} {'cardsync':>24} {'vdirsyncer':>24} {'ratio':>18}")
for run in dict.fromkeys(r[0] for r in rows):
    c = [float(r[1]) for r in rows if r[0] == run]
    v = [float(r[2]) for r in rows if r[0] == run]
    q = [b / a for a, b in zip(c, v)]
    span = lambda xs, unit: f"{statistics.median(xs):.3f}{unit} ({min(xs):.3f}–{max(xs):.3f})"
    print(f"{run:<28} {span(c, ' s'):>24} {span(v, ' s'):>24} {statistics.median(q):7.1f}× ({min(q):.1f}–{max(q):.1f})")
PY
