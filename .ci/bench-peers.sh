#!/usr/bin/env bash
# Side-by-side benchmark: cardsync (whole process) against ez-vcard (in-process, JVM warm),
# measured in one run on the same machine, using the peer harness in ../shared/bench.
#
#   bash .ci/bench-peers.sh [--count 20000] [--runs 5] [--sizes 10000,100000] [--work DIR]
#                           [--cardsync PATH-TO-RELEASE-BINARY] [--bench PATH-TO-cardsync-bench]
#                           [--all-peers] [--seed 1] [--version mixed] [--timeout 900] [--build]
#                           [--min-ratio 10] [--bench-args 'bench {input} {outprefix} {runs} -1']
#
# Acceptance workload: gen_vcards.py --count 20000 --seed 1 --version mixed, read + write 4.0.
#   ez-vcard: median parse s + median write-4.0 s from its `bench` mode (ITERS=runs, WARMUP=-1,
#             i.e. a whole-file warm-up, JVM start-up excluded).
#   cardsync: `cardsync convert INPUT --to vcard4 -o OUT`, whole process, median wall of `runs`
#             runs after one untimed warm-up run (page cache), peak RSS from /usr/bin/time.
#   ratio   : ez-vcard (parse + write-4.0) / cardsync convert; the criterion is ratio >= 10.
#
# With --all-peers, sabre/vobject's whole process (`sabre_bench.php once INPUT OUT same`, up to 3
# runs) is also timed on the largest input, next to cardsync's whole process on the same file.
# Output: a Markdown table on stdout (also WORK/results.md); raw rows in WORK/results.tsv;
# progress on stderr.  --sizes none skips the extra sizes.  --all-peers also runs python vobject
# (pip, venv in the work dir) and sabre/vobject 2.1.7 (Debian) on the smallest input; they cannot
# convert to 4.0, so their figure is parse + write-same.
# --min-ratio 10 makes the script exit 3 when the acceptance ratio is below 10 (exit 1: a run failed).
# --bench runs `cardsync-bench bench INPUT OUTPREFIX RUNS -1` (the peer driver CLI; override the
# argument list with --bench-args '... {input} {outprefix} {runs} ...') and passes its JSON lines
# through (stdout section + WORK/cardsync-bench.jsonl).
set -euo pipefail

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'bench-peers: error: %s\n' "$*" >&2; exit 1; }

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/.." && pwd)"
SHARED_BENCH="$(dirname "$REPO")/shared/bench"

COUNT=20000
RUNS=5
SIZES="10000,100000"
WORK=""
CARDSYNC=""
BENCH=""
BENCH_ARGS='bench {input} {outprefix} {runs} -1'
ALL_PEERS=0
SEED=1
VERSION=mixed
TIMEOUT=900
FORCE_BUILD=0
MIN_RATIO=""

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --count) COUNT="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --sizes) SIZES="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --cardsync) CARDSYNC="$2"; shift 2 ;;
    --bench) BENCH="$2"; shift 2 ;;
    --bench-args) BENCH_ARGS="$2"; shift 2 ;;
    --all-peers) ALL_PEERS=1; shift ;;
    --seed) SEED="$2"; shift 2 ;;
    --version) VERSION="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --build) FORCE_BUILD=1; shift ;;
    --min-ratio) MIN_RATIO="$2"; shift 2 ;;
    -h|--help) usage 0 ;;
    *) printf 'unknown option: %s\n' "$1" >&2; usage 2 ;;
  esac
done

[[ "$COUNT" =~ ^[0-9]+$ ]] || die "--count must be a number"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive number"
case "$SIZES" in none|"") SIZES="" ;; *) [[ "$SIZES" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--sizes must be like 10000,100000 (or none)" ;; esac
[ -d "$SHARED_BENCH" ] && [ -f "$SHARED_BENCH/gen_vcards.py" ] && [ -f "$SHARED_BENCH/peers/ezvcard/EzBench.java" ] \
  || die "peer harness not found at $SHARED_BENCH (expected ../shared/bench beside the repo, with gen_vcards.py and peers/ezvcard/EzBench.java)"

[ -z "$CARDSYNC" ] || [ -x "$CARDSYNC" ] || die "--cardsync binary not found or not executable: $CARDSYNC"
[ -z "$BENCH" ] || [ -x "$BENCH" ] || die "--bench binary not found or not executable: $BENCH"

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

# ------------------------------------------------------------------ 1. Debian packages (idempotent)
APT_PKGS="openjdk-17-jdk-headless libez-vcard-java libvinnie-java time"
[ "$ALL_PEERS" = 1 ] && APT_PKGS="$APT_PKGS python3-venv php-cli php-mbstring php-sabre-vobject"
missing=()
for p in $APT_PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing: ${missing[*]}"
  $SUDO apt-get update >&2
  # libez-vcard-java 0.11.2+dfsg-1 does not declare its libvinnie-java dependency: listed explicitly
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >&2
fi
for f in /usr/share/java/ez-vcard.jar /usr/share/java/vinnie.jar /usr/bin/time; do
  [ -e "$f" ] || die "$f missing after install"
done
command -v javac >/dev/null || die "javac not found (openjdk-17-jdk-headless)"

# ------------------------------------------------------------------ 2. work dir, bench copy, ez-vcard driver
if [ -z "$WORK" ]; then WORK="$(mktemp -d /tmp/cardsync-bench.XXXXXX)"; fi
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
B="$WORK/bench"
mkdir -p "$B" "$WORK/data" "$WORK/out"
# cp -a keeps the source mtimes, so a driver built in an earlier run stays up to date
cp -a "$SHARED_BENCH/." "$B/"
chmod -R u+w "$B"
log "work dir: $WORK"

EZ_CP_BUILD=/usr/share/java/ez-vcard.jar:/usr/share/java/vinnie.jar
(
  cd "$B"
  EZ=peers/ezvcard
  if [ ! -f $EZ/build/EzBench.class ] || [ $EZ/EzBench.java -nt $EZ/build/EzBench.class ]; then
    log "building the ez-vcard driver"
    mkdir -p $EZ/build && javac -cp "$EZ_CP_BUILD" -d $EZ/build $EZ/EzBench.java
  fi
)
EZ_CP="$B/peers/ezvcard/build:$EZ_CP_BUILD"

if [ "$ALL_PEERS" = 1 ]; then
  VOBJECT_PIP_VERSION="${VOBJECT_PIP_VERSION:-0.9.9}"
  VENV="$B/.venv-vobject"
  if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('vobject') != '$VOBJECT_PIP_VERSION')" 2>/dev/null; then
    log "creating $VENV with vobject==$VOBJECT_PIP_VERSION"
    /usr/bin/python3 -m venv "$VENV" >&2
    "$VENV/bin/pip" install -q "vobject==$VOBJECT_PIP_VERSION" >&2
  fi
fi

# ------------------------------------------------------------------ 3. cardsync binary
if [ -z "$CARDSYNC" ]; then
  CARDSYNC="$REPO/.build/release/cardsync"
  if [ "$FORCE_BUILD" = 1 ] || [ ! -x "$CARDSYNC" ]; then
    # As installed: the build of the README's install command.
    build_command=$(grep -m1 '^swift build -c release' "$REPO/README.md" | sed 's/ && .*//')
    log "building cardsync ($build_command, as installed)"
    (cd "$REPO" && bash -c "$build_command" >&2)
  fi
fi
[ -x "$CARDSYNC" ] || die "cardsync binary not found or not executable: $CARDSYNC"
CARDSYNC="$(cd "$(dirname "$CARDSYNC")" && pwd)/$(basename "$CARDSYNC")"
if [ -n "$BENCH" ]; then
  [ -x "$BENCH" ] || die "--bench binary not executable: $BENCH"
  BENCH="$(cd "$(dirname "$BENCH")" && pwd)/$(basename "$BENCH")"
fi

# ------------------------------------------------------------------ helpers
load1() { cut -d' ' -f1 /proc/loadavg; }

# median / min / max of the arguments, formatted %.4f
stats() { python3 -c 'import statistics,sys; x=[float(a) for a in sys.argv[1:]]; print("%.4f %.4f %.4f" % (statistics.median(x), min(x), max(x)))' "$@"; }

# fields of the last JSON line of a file: median(parse_ms)/1e3 ... ; prints "key=value" lines
json_medians() {
  python3 - "$1" <<'PY'
import json, statistics, sys
js = None
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.strip()
    if line.startswith("{"):
        try: js = json.loads(line)
        except ValueError: pass
if not js:
    sys.exit(1)
print("cards=%s" % js.get("cards", "NA"))
for k, v in js.items():
    if k.endswith("_ms") and isinstance(v, list) and v:
        print("%s=%.4f" % (k[:-3], statistics.median(v) / 1e3))
PY
}

# run_timed OUTFILE_PREFIX CMD... : runs CMD under /usr/bin/time, wall from $EPOCHREALTIME (µs resolution);
# sets T_RC T_WALL T_CPU T_RSS_KB; stdout/stderr of CMD -> PREFIX.stdout / PREFIX.stderr
run_timed() {
  local prefix="$1"; shift
  local t0 t1 rc=0
  t0=$EPOCHREALTIME
  timeout "$TIMEOUT" /usr/bin/time -o "$prefix.time" -f '%e %U %S %M %x' "$@" >"$prefix.stdout" 2>"$prefix.stderr" || rc=$?
  t1=$EPOCHREALTIME
  T_RC=$rc
  T_WALL=$(python3 -c "print('%.4f' % ($t1 - $t0))")
  local e u s m x
  if read -r e u s m x < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+' "$prefix.time" | tail -1); then
    T_CPU=$(python3 -c "print('%.3f' % ($u + $s))"); T_RSS_KB=$m
  else
    T_CPU=NA; T_RSS_KB=NA
  fi
}

TSV="$WORK/results.tsv"
printf 'workload\timpl\ttask\tN\tbytes\tseconds\tcpu_s\tmin_s\tmax_s\tMB/s\tpeak_RSS_MiB\truns\tload1\tdate\tnotes\n' >"$TSV"
# row WORKLOAD IMPL TASK N BYTES SECONDS CPU MIN MAX RSS_KB RUNS LOAD NOTES
row() {
  local mbs rss
  mbs=$(python3 -c "import sys; s=sys.argv[2]; print('%.2f' % (int(sys.argv[1]) / 1e6 / float(s)) if s not in ('NA','') and float(s) > 0 else 'NA')" "$5" "$6")
  rss=$(python3 -c "import sys; r=sys.argv[1]; print('%.0f' % (int(r) / 1024) if r.isdigit() else 'NA')" "${10}")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" \
    "$mbs" "$rss" "${11}" "${12}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${13}" >>"$TSV"
  log "ROW $1 $2 $3 N=$4 s=$6 cpu=$7 rss=${rss}MiB load1=${12} ${13}"
}

# timed_runs PREFIX COUNT CMD...: runs CMD COUNT times (outputs to PREFIX.N.*, removing OUT_FILE
# first when it is set), collecting walls/cpus/rsss; status is "ok" or why a run failed. Then
# summarize_runs sets wmed wmin wmax cmed rmax.
timed_runs() {
  local prefix=$1 count=$2 r; shift 2
  walls=(); cpus=(); rsss=(); status=ok
  for ((r = 1; r <= count; r++)); do
    [ -n "${OUT_FILE:-}" ] && rm -f "$OUT_FILE"
    run_timed "$prefix.$r" "$@"
    if [ "$T_RC" != 0 ]; then status="FAILED rc=$T_RC in run $r: $(tail -c 300 "$prefix.$r.stderr" | tr '\t\n' '  ')"; break; fi
    walls+=("$T_WALL"); cpus+=("$T_CPU"); rsss+=("$T_RSS_KB")
  done
}
summarize_runs() {
  read -r wmed wmin wmax <<<"$(stats "${walls[@]}")"
  read -r cmed _ _ <<<"$(stats "${cpus[@]}")"
  rmax=$(printf '%s\n' "${rsss[@]}" | sort -n | tail -1)
}

# ------------------------------------------------------------------ 4. inputs
declare -a INPUT_N=() INPUT_NAME=()
add_input() {  # N NAME
  local i
  for i in "${!INPUT_N[@]}"; do [ "${INPUT_N[$i]}" = "$1" ] && return 0; done
  INPUT_N+=("$1"); INPUT_NAME+=("$2")
}
add_input "$COUNT" "acceptance"
if [ -n "$SIZES" ]; then
  IFS=',' read -r -a _sizes <<<"$SIZES"
  for n in "${_sizes[@]}"; do add_input "$n" "size"; done
fi

declare -a INPUT_FILE=() INPUT_BYTES=()
for i in "${!INPUT_N[@]}"; do
  n="${INPUT_N[$i]}"
  f="$WORK/data/cards-$n-seed$SEED-$VERSION.vcf"
  if [ ! -s "$f" ] || [ ! -s "$f.args" ] || [ "$(cat "$f.args")" != "--count $n --seed $SEED --version $VERSION" ]; then
    log "generating $f"
    /usr/bin/python3 "$B/gen_vcards.py" --count "$n" --seed "$SEED" --version "$VERSION" --out "$f" 2>"$f.gen.log" \
      || { cat "$f.gen.log" >&2; die "gen_vcards.py failed"; }
    echo "--count $n --seed $SEED --version $VERSION" >"$f.args"
  fi
  INPUT_FILE+=("$f"); INPUT_BYTES+=("$(stat -c %s "$f")")
  if [ "${INPUT_NAME[$i]}" = acceptance ]; then
    INPUT_NAME[$i]="acceptance (gen --count $n --seed $SEED --version $VERSION)"
  else
    INPUT_NAME[$i]="gen --count $n --seed $SEED --version $VERSION"
  fi
done

# smallest input, for the optional peers; largest, for the whole-process comparison with sabre
SMALL_IDX=0
LARGE_IDX=0
for i in "${!INPUT_N[@]}"; do
  [ "${INPUT_N[$i]}" -lt "${INPUT_N[$SMALL_IDX]}" ] && SMALL_IDX=$i
  [ "${INPUT_N[$i]}" -gt "${INPUT_N[$LARGE_IDX]}" ] && LARGE_IDX=$i
done

RUN_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
CPU_MODEL="$(grep -m1 'model name' /proc/cpuinfo | sed 's/^[^:]*: *//' || true)"
MACHINE="$(uname -srm); CPU: ${CPU_MODEL:-unknown}; $(nproc) cores; $(free -g | awk '/Mem:/{print $2}') GiB RAM; $(. /etc/os-release; echo "$PRETTY_NAME")"
JAVA_V="$(java -version 2>&1 | sed -n 1p)"
{
  echo "date: $RUN_DATE"
  echo "machine: $MACHINE"
  echo "java: $JAVA_V"
  dpkg-query -W libez-vcard-java libvinnie-java 2>/dev/null || true
  echo "cardsync: $CARDSYNC"
  echo "uptime before: $(uptime)"
} >"$WORK/machine.txt"
L0="$(load1)"
log "load1 before measuring: $L0 ($(uptime | sed 's/.*load average/load average/'))"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 1.5 else 1)" "$L0" \
  || log "WARNING: load1 $L0 >= 1.5: other processes compete for the $(nproc) cores; compare the cpu_s column too"

# ------------------------------------------------------------------ 5. measure, input by input (interleaved)
: >"$WORK/cardsync-bench.jsonl"
for i in "${!INPUT_N[@]}"; do
  n="${INPUT_N[$i]}"; f="${INPUT_FILE[$i]}"; bytes="${INPUT_BYTES[$i]}"; wl="${INPUT_NAME[$i]}"
  o="$WORK/out/n$n"

  # (a) ez-vcard, in process, whole-file warm-up
  ld="$(load1)"
  log "ez-vcard bench N=$n runs=$RUNS (whole-file warm-up)"
  run_timed "$o.ez" java -cp "$EZ_CP" EzBench bench "$f" "$o.ez" "$RUNS" -1
  if [ "$T_RC" = 0 ] && json_medians "$o.ez.stdout" >"$o.ez.med"; then
    declare -A M=()
    while IFS='=' read -r k v; do M[$k]=$v; done <"$o.ez.med"
    # per-iteration min/max, from the raw JSON
    mm=$(python3 - "$o.ez.stdout" <<'PY'
import json, sys
js = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")][-1]
for k in ("parse_ms", "write_40_ms"):
    print("%.4f %.4f" % (min(js[k]) / 1e3, max(js[k]) / 1e3), end=" ")
PY
)
    read -r pmin pmax wmin wmax <<<"$mm"
    note="in-process after whole-file warm-up, median of $RUNS; RSS = whole JVM bench process; $JAVA_V, default flags"
    w4bytes=$(stat -c %s "$o.ez.40.vcf" 2>/dev/null || echo 0)
    row "$wl" ez-vcard parse "${M[cards]}" "$bytes" "${M[parse]}" "${M[parse_cpu]}" "$pmin" "$pmax" "$T_RSS_KB" "$RUNS" "$ld" "$note"
    row "$wl" ez-vcard write-4.0 "${M[cards]}" "$w4bytes" "${M[write_40]}" "${M[write_40_cpu]}" "$wmin" "$wmax" "$T_RSS_KB" "$RUNS" "$ld" "$note; bytes = output size"
    sum=$(python3 -c "import sys; print('%.4f' % (float(sys.argv[1]) + float(sys.argv[2])))" "${M[parse]}" "${M[write_40]}")
    sumcpu=$(python3 -c "import sys; print('%.3f' % (float(sys.argv[1]) + float(sys.argv[2])))" "${M[parse_cpu]}" "${M[write_40_cpu]}")
    row "$wl" ez-vcard "parse+write-4.0" "${M[cards]}" "$bytes" "$sum" "$sumcpu" NA NA "$T_RSS_KB" "$RUNS" "$ld" "sum of the two medians; bytes = input size"
    unset M
  else
    row "$wl" ez-vcard parse "$n" "$bytes" NA NA NA NA "$T_RSS_KB" "$RUNS" "$ld" "FAILED rc=$T_RC: $(tail -c 300 "$o.ez.stderr" | tr '\t\n' '  ')"
  fi

  # (b) cardsync, whole process: one untimed warm-up run, then RUNS timed runs
  ld="$(load1)"
  log "cardsync convert N=$n: 1 warm-up + $RUNS timed runs"
  walls=(); cpus=(); rsss=(); status=ok
  rm -f "$o.cs.vcf"
  run_timed "$o.cs.warm" "$CARDSYNC" convert "$f" --to vcard4 -o "$o.cs.vcf"
  if [ "$T_RC" != 0 ]; then
    status="FAILED rc=$T_RC: $(tail -c 300 "$o.cs.warm.stderr" | tr '\t\n' '  ')"
  else
    OUT_FILE="$o.cs.vcf" timed_runs "$o.cs" "$RUNS" "$CARDSYNC" convert "$f" --to vcard4 -o "$o.cs.vcf"
  fi
  if [ "$status" = ok ]; then
    summarize_runs
    outb=$(stat -c %s "$o.cs.vcf" 2>/dev/null || echo 0)
    outc=$(grep -c '^BEGIN:VCARD' "$o.cs.vcf" 2>/dev/null || true)
    outv4=$(grep -ci '^VERSION:4\.0' "$o.cs.vcf" 2>/dev/null || true)
    row "$wl" cardsync "convert --to vcard4 (whole process)" "$n" "$bytes" "$wmed" "$cmed" "$wmin" "$wmax" "$rmax" "$RUNS" "$ld" \
      "whole process incl. start-up, file read and write; median wall of $RUNS after 1 warm-up run; RSS = max over runs; output ${outb} bytes, ${outc:-0} BEGIN:VCARD, ${outv4:-0} VERSION:4.0"
  else
    row "$wl" cardsync "convert --to vcard4 (whole process)" "$n" "$bytes" NA NA NA NA NA "$RUNS" "$ld" "$status"
  fi

  # (c) cardsync-bench (optional): JSON lines passed through
  if [ -n "$BENCH" ]; then
    args="${BENCH_ARGS//\{input\}/$f}"; args="${args//\{outprefix\}/$o.csbench}"; args="${args//\{runs\}/$RUNS}"
    read -r -a argv <<<"$args"
    ld="$(load1)"
    log "cardsync-bench N=$n: $BENCH ${argv[*]}"
    run_timed "$o.csbench" "$BENCH" "${argv[@]}"
    nj=0
    while IFS= read -r line; do
      case "$line" in \{*) printf '{"input":"%s","N":%s,"load1":%s,"line":%s}\n' "$(basename "$f")" "$n" "$ld" "$line" >>"$WORK/cardsync-bench.jsonl"; nj=$((nj + 1)) ;; esac
    done <"$o.csbench.stdout"
    [ "$T_RC" = 0 ] || log "WARNING: cardsync-bench exited with rc=$T_RC (see $o.csbench.stderr)"
    log "cardsync-bench N=$n: $nj JSON lines"
  fi

  # (d) optional peers on the smallest input
  if [ "$ALL_PEERS" = 1 ] && [ "$i" = "$SMALL_IDX" ]; then
    for peer in vobject-pip sabre-deb; do
      case "$peer" in
        vobject-pip) pargv=("$B/.venv-vobject/bin/python" "$B/peers/vobject/vobject_bench.py"); penv=() ;;
        sabre-deb) pargv=(php -d memory_limit=-1 "$B/peers/sabre/sabre_bench.php"); penv=(SABRE=deb) ;;
      esac
      ld="$(load1)"
      log "$peer bench N=$n runs=$RUNS (warm-up 2000 cards)"
      run_timed "$o.$peer" env "${penv[@]}" "${pargv[@]}" bench "$f" "$o.$peer" "$RUNS" 2000
      if [ "$T_RC" = 0 ] && json_medians "$o.$peer.stdout" >"$o.$peer.med"; then
        declare -A M=()
        while IFS='=' read -r k v; do M[$k]=$v; done <"$o.$peer.med"
        note="in-process after a 2000-card warm-up, median of $RUNS; no 4.0 conversion in this library, so write = each card in its own version"
        row "$wl" "$peer" parse "${M[cards]}" "$bytes" "${M[parse]}" "${M[parse_cpu]}" NA NA "$T_RSS_KB" "$RUNS" "$ld" "$note"
        row "$wl" "$peer" write-same "${M[cards]}" "$(stat -c %s "$o.$peer.same.vcf" 2>/dev/null || echo 0)" "${M[write_same]}" "${M[write_same_cpu]}" NA NA "$T_RSS_KB" "$RUNS" "$ld" "$note; bytes = output size"
        sum=$(python3 -c "import sys; print('%.4f' % (float(sys.argv[1]) + float(sys.argv[2])))" "${M[parse]}" "${M[write_same]}")
        sumcpu=$(python3 -c "import sys; print('%.3f' % (float(sys.argv[1]) + float(sys.argv[2])))" "${M[parse_cpu]}" "${M[write_same_cpu]}")
        row "$wl" "$peer" "parse+write-same" "${M[cards]}" "$bytes" "$sum" "$sumcpu" NA NA "$T_RSS_KB" "$RUNS" "$ld" "sum of the two medians; bytes = input size"
        unset M
      else
        row "$wl" "$peer" parse "$n" "$bytes" NA NA NA NA "$T_RSS_KB" "$RUNS" "$ld" "FAILED rc=$T_RC: $(tail -c 300 "$o.$peer.stderr" | tr '\t\n' '  ')"
      fi
    done
  fi

  # (e) optional: sabre/vobject's whole process on the largest input (issue 14: cardsync's whole
  # process >= 20x this one), right after cardsync's runs on the same file; at most 3 runs (about
  # 12-20 s each on 100k cards).
  if [ "$ALL_PEERS" = 1 ] && [ "$i" = "$LARGE_IDX" ]; then
    sruns=$(( RUNS < 3 ? RUNS : 3 ))
    ld="$(load1)"
    log "sabre-deb whole process N=$n: $sruns runs of sabre_bench.php once INPUT OUT same"
    OUT_FILE= timed_runs "$o.sabre-once" "$sruns" env SABRE=deb php -d memory_limit=-1 "$B/peers/sabre/sabre_bench.php" once "$f" "$o.sabre-once.vcf" same
    if [ "$status" = ok ]; then
      summarize_runs
      row "$wl" sabre-deb "once same (whole process)" "$n" "$bytes" "$wmed" "$cmed" "$wmin" "$wmax" "$rmax" "$sruns" "$ld" \
        "php sabre_bench.php once INPUT OUT same: read, parse, serialize in its own version, whole process; median wall of $sruns"
    else
      row "$wl" sabre-deb "once same (whole process)" "$n" "$bytes" NA NA NA NA NA "$sruns" "$ld" "$status"
    fi
  fi
done

# ------------------------------------------------------------------ 6. Markdown report
python3 - "$TSV" "$WORK/cardsync-bench.jsonl" "$RUN_DATE" "$MACHINE" "$JAVA_V" "$L0" "$RUNS" >"$WORK/results.md" <<'PY'
import csv, sys
tsv, jsonl, date, machine, java, load0, runs = sys.argv[1:8]
rows = list(csv.DictReader(open(tsv, encoding="utf-8"), delimiter="\t"))
def get(wl, impl, task):
    for r in rows:
        if r["workload"] == wl and r["impl"] == impl and r["task"] == task:
            return r
    return None
def num(r, k="seconds"):
    try: return float(r[k])
    except (TypeError, ValueError, KeyError): return None
def f(x, fmt="%.3f"):
    return fmt % x if x is not None else "NA"
order = []
for r in rows:
    if r["workload"] not in order: order.append(r["workload"])
print("| workload | N | bytes | ez-vcard parse s | ez-vcard write-4.0 s | ez-vcard parse+write4 s (in-process, warm) "
      "| cardsync convert s (whole process) | speed ratio (ez/cardsync) | target ≤ s (ez/10) | cardsync MB/s "
      "| cardsync peak RSS MiB | load1 (ez / cardsync) |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for wl in order:
    p, w, s = get(wl, "ez-vcard", "parse"), get(wl, "ez-vcard", "write-4.0"), get(wl, "ez-vcard", "parse+write-4.0")
    c = get(wl, "cardsync", "convert --to vcard4 (whole process)")
    any_r = c or p
    n, nbytes = any_r["N"], any_r["bytes"]
    if c: n, nbytes = c["N"], c["bytes"]
    es, cs = num(s), num(c)
    ratio = "%.2f×" % (es / cs) if es and cs else ("cardsync FAILED" if c and cs is None else "NA")
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |" % (
        wl, n, nbytes, f(num(p)), f(num(w)), f(es), f(cs), ratio, f(es / 10 if es else None),
        (c or {}).get("MB/s", "NA"), (c or {}).get("peak_RSS_MiB", "NA"),
        (p or {}).get("load1", "NA"), (c or {}).get("load1", "NA")))
def table(title, header, align, rows_out):
    """A titled Markdown table after a blank line, when it has rows."""
    if not rows_out:
        return
    print()
    print(title)
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(align) + "|")
    for cells in rows_out:
        print("| " + " | ".join(str(c) for c in cells) + " |")
def cardsync_of(r):
    return get(r["workload"], "cardsync", "convert --to vcard4 (whole process)")
def times(a, b):
    return "%.2f×" % (a / b) if a and b else "NA"
others = [r for r in rows if r["impl"] not in ("ez-vcard", "cardsync") and r["task"] == "parse+write-same"]
table("Other peers (in-process, 2000-card warm-up; they cannot convert to 4.0, so parse + write each card in its own version):",
      ["peer", "workload", "N", "parse+write-same s", "ratio (peer/cardsync convert)", "load1"], ["---", "---", "--:", "--:", "--:", "--:"],
      [[r["impl"], r["workload"], r["N"], f(num(r)), times(num(r), num(cardsync_of(r))), r["load1"]] for r in others])
whole = [r for r in rows if r["impl"] == "sabre-deb" and r["task"] == "once same (whole process)"]
table("Whole processes on the largest input (issue 14: cardsync's whole process at least 20 times faster than "
      "sabre/vobject 2.1.7's, the fastest whole-process peer):",
      ["workload", "N", "sabre/vobject whole process s", "cardsync convert s (whole process)", "ratio (sabre/cardsync)",
       "target ≤ s (sabre/20)", "sabre peak RSS MiB", "cardsync peak RSS MiB", "load1 (sabre / cardsync)"],
      ["---"] + ["--:"] * 8,
      [[r["workload"], r["N"], f(num(r)), f(num(cardsync_of(r))), times(num(r), num(cardsync_of(r))),
        f(num(r) / 20 if num(r) else None), r["peak_RSS_MiB"], (cardsync_of(r) or {}).get("peak_RSS_MiB", "NA"),
        "%s / %s" % (r["load1"], (cardsync_of(r) or {}).get("load1", "NA"))] for r in whole])
print()
print("Date: %s (UTC). Machine: %s. %s. load1 before the run: %s. Medians of %s runs; "
      "ez-vcard times are its driver's in-process figures after a whole-file warm-up (JVM start-up excluded); "
      "cardsync is the whole `cardsync convert FILE --to vcard4 -o OUT` process (1 untimed warm-up run first)." % (
      date, machine, java, load0, runs))
failed = [r for r in rows if r["notes"].startswith("FAILED")]
for r in failed:
    print()
    print("- %s %s on %s: %s" % (r["impl"], r["task"], r["workload"], r["notes"][:300]))
lines = [l.rstrip("\n") for l in open(jsonl, encoding="utf-8")] if jsonl else []
if lines:
    print()
    print("cardsync-bench output (JSON lines, one per figure):")
    print()
    print("```")
    for l in lines: print(l)
    print("```")
PY
cat "$WORK/results.md"
log "done: $WORK/results.tsv, $WORK/results.md, $WORK/machine.txt"

# exit status: 1 if any measurement failed; 3 if --min-ratio is given and the acceptance ratio is below it
if awk -F'\t' 'NR > 1 && $15 ~ /^FAILED/ { bad = 1 } END { exit !bad }' "$TSV"; then
  log "some measurements FAILED (see the notes column of $TSV)"; exit 1
fi
if [ -n "$MIN_RATIO" ]; then
  python3 - "$TSV" "$MIN_RATIO" <<'PY' || exit 3
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8"), delimiter="\t"))
acc = [r for r in rows if r["workload"].startswith("acceptance")]
ez = [float(r["seconds"]) for r in acc if r["impl"] == "ez-vcard" and r["task"] == "parse+write-4.0"]
cs = [float(r["seconds"]) for r in acc if r["impl"] == "cardsync"]
ratio = ez[0] / cs[0]
ok = ratio >= float(sys.argv[2])
print("acceptance ratio %.2f (need >= %s): %s" % (ratio, sys.argv[2], "PASS" if ok else "FAIL"), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
fi
