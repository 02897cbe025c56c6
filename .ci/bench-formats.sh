#!/usr/bin/env bash
# jCard and xCard throughput of cardsync beside ez-vcard's, on the same generated file, in one run.
#   bash .ci/bench-formats.sh [--count 20000] [--runs 5] [--bench PATH-TO-release-cardsync-bench]
# ez-vcard is driven by .ci/peers/EzFormatsBench.java (Debian libez-vcard-java, Jackson for jCard),
# in-process with the JVM warmed up; cardsync by `cardsync-bench formats FILE RUNS`, in-process too.
# Prints a Markdown table: median seconds and cards/s per workload, and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=20000; RUNS=5; BENCH=""
while [ $# -gt 0 ]; do
  case "$1" in
    --count) COUNT="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --bench) BENCH="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
need=()
for p in openjdk-17-jdk-headless libez-vcard-java libvinnie-java libjackson2-core-java libjackson2-databind-java; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
if [ -z "$BENCH" ]; then
  swift build -c release --product cardsync-bench >&2
  BENCH="$(swift build -c release --show-bin-path)/cardsync-bench"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CP=/usr/share/java/ez-vcard.jar:/usr/share/java/vinnie.jar:/usr/share/java/jackson-core.jar:/usr/share/java/jackson-databind.jar:/usr/share/java/jackson-annotations.jar
javac -d "$work" -cp "$CP" .ci/peers/EzFormatsBench.java
python3 ../shared/bench/gen_vcards.py --count "$COUNT" --seed 1 --version mixed --out "$work/input.vcf" >/dev/null
load=$(cut -d' ' -f1 /proc/loadavg)
ez=$(java -cp "$work:$CP" EzFormatsBench "$work/input.vcf" "$RUNS")
cs=$("$BENCH" formats "$work/input.vcf" "$RUNS")
python3 - "$ez" "$cs" "$COUNT" "$load" <<'PY'
import json, sys, datetime
ez, cs, count, load = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"jCard/xCard, {count} cards (gen_vcards.py --seed 1 --version mixed), {datetime.date.today()}, load1 {load}")
print()
print("| workload | ez-vcard s | cardsync s | ez-vcard cards/s | cardsync cards/s | speed ratio (ez / cardsync) |")
print("|---|---:|---:|---:|---:|---:|")
for key, name in [("writeJCard", "write jCard"), ("readJCard", "read jCard"), ("writeXCard", "write xCard"), ("readXCard", "read xCard")]:
    e, c = float(ez[key]), float(cs[key])
    print(f"| {name} | {e:.3f} | {c:.3f} | {ez['cards']/e:,.0f} | {cs['cards']/c:,.0f} | {e/c:.2f}× |")
print()
print(f"Document sizes: jCard ez-vcard {ez['jcardBytes']:,} B, cardsync {cs['jcardBytes']:,} B; xCard ez-vcard {ez['xcardBytes']:,} B, cardsync {cs['xcardBytes']:,} B.")
PY
