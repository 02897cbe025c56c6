#!/bin/bash
# Folder ↔ folder, the same contacts both ways, side by side in one run (issue 19's last row):
#   cardsync: book a → `cardsync serve` on loopback → book b (each step: `cardsync sync a`, then
#             `cardsync sync b`, both timed, release build)
#   vdirsyncer (Debian package, filesystem → filesystem pair, "a wins"): one `vdirsyncer sync`
# for: the initial copy, a run with nothing changed, and a run after 1% of a's files were
# edited by another program. vdirsyncer's folder a is a copy of cardsync's book a (its .vcf
# files, one contact per file), so both copy the same bytes.
# usage: .ci/bench-vdirsyncer.sh [COUNT] [WORKDIR]     (COUNT default 10000)
set -euo pipefail
count=${1:-10000}
work=${2:-$(mktemp -d /tmp/cardsync-bench-vdir.XXXXXX)}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CARDSYNC_BIN:-$here/.build/release/cardsync}
[ -x "$bin" ] || { echo "no release build at $bin: swift build -c release --static-swift-stdlib --product cardsync" >&2; exit 1; }
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

echo "# $count cards (cardsync generate --seed 7 --version mixed), $(nproc) cores, $(date -u +%FT%TZ), load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -f cards.vcf ] || "$bin" generate --count "$count" --seed 7 --version mixed -o cards.vcf > /dev/null
# A work folder used before holds the last run's folders. Removing them frees tens of thousands
# of inodes, and on ext4 without a journal (this project's machine) a new inode skips every inode
# freed less than 60 s before (`recently_deleted` in fs/ext4/ialloc.c), so each file then created
# nearby scans past all of them: a 10k pull's system time went from 0.4 s to 4.5 s. The removal
# is synced and given 61 s to age (CARDSYNC_BENCH_SETTLE=0 skips the wait); a fresh work folder
# (the default) needs neither.
if [ -e a ] || [ -e b ] || [ -e data ] || [ -e va ] || [ -e vb ]; then
    rm -rf a b data va vb vstatus serve.log
    sync
    if [ "${CARDSYNC_BENCH_SETTLE:-61}" != 0 ]; then
        echo "# removed the last run's folders; waiting ${CARDSYNC_BENCH_SETTLE:-61} s for the freed inodes to age (ext4 without journal)" >&2
        sleep "${CARDSYNC_BENCH_SETTLE:-61}"
    fi
fi
rm -rf a b data va vb vstatus serve.log
source "$here/.ci/bench-serve.sh"

"$bin" init a > /dev/null
"$bin" init b > /dev/null
"$bin" remote a set "$remote" > /dev/null
"$bin" remote b set "$remote" > /dev/null
"$bin" import cards.vcf --into a > /dev/null
mkdir va vb vstatus
find a -maxdepth 1 -name '*.vcf' -exec cp -p -t va {} +
cat > vdirsyncer.conf <<CONF
[general]
status_path = "$work/vstatus/"

[pair book]
a = "book_a"
b = "book_b"
collections = null
conflict_resolution = "a wins"

[storage book_a]
type = "filesystem"
path = "$work/va/"
fileext = ".vcf"

[storage book_b]
type = "filesystem"
path = "$work/vb/"
fileext = ".vcf"
CONF
vdirsyncer -c vdirsyncer.conf discover book > /dev/null 2>&1 < /dev/null || { echo "vdirsyncer discover failed" >&2; exit 1; }
echo "# $(find va -name '*.vcf' | wc -l) files in each folder a"
printf '%-28s %11s %13s %9s\n' "run" "cardsync" "vdirsyncer" "ratio"

sync_both() { "$bin" sync a && "$bin" sync b; }
vdir() { vdirsyncer -c vdirsyncer.conf sync; }

c=$(seconds sync_both); v=$(seconds vdir)
[ "$(find b -maxdepth 1 -name '*.vcf' | wc -l)" = "$(find vb -name '*.vcf' | wc -l)" ] \
    || { echo "the two copies differ in size: b $(find b -maxdepth 1 -name '*.vcf' | wc -l), vb $(find vb -name '*.vcf' | wc -l)" >&2; exit 1; }
row "initial (a → b)" "$c" "$v"
sleep 2   # past the racily-clean window of both tools' file stamps
c=$(seconds sync_both); v=$(seconds vdir)
row "nothing changed" "$c" "$v"
edit_one_percent a; edit_one_percent va
c=$(seconds sync_both); v=$(seconds vdir)
row "1% edited in a" "$c" "$v"
edited=$(grep -l 'edited by another program' b/*.vcf | wc -l); vedited=$(grep -l 'edited by another program' vb/*.vcf | wc -l)
echo "# edits that reached b: cardsync $edited, vdirsyncer $vedited; load: $(cut -d' ' -f1-3 /proc/loadavg)"
