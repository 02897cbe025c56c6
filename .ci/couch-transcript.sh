#!/usr/bin/env bash
# Replays the requests of ../shared/couchdb/record_couch_transcript.py against `cardsync serve`
# and compares the answers with real CouchDB 3.5's (../shared/couchdb/transcript-*.jsonl).
# Exits with the compare's status: 0 when every step matches.
#
# Usage: [COUCH_TRANSCRIPT_SET=core|api2|all] .ci/couch-transcript.sh [PATH/TO/cardsync]
#   The set defaults to core (the synchronizer's requests); api2 is the wider document API;
#   all runs both against the same server and fails if either fails.
#   Without an argument it builds the cardsync product (swift build) and uses that binary.
#   A path ending in .xctest runs the test bundle's child-process server instead (for use
#   before `serve` is registered in the CLI).
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$(pwd)
shared=${CARDSYNC_SHARED:-"$repo/../shared"}
transcript_set=${COUCH_TRANSCRIPT_SET:-core}
case "$transcript_set" in
    core) sets=(core) ;;
    api2) sets=(api2) ;;
    all) sets=(core api2) ;;
    *) echo "couch-transcript: COUCH_TRANSCRIPT_SET must be core, api2 or all, not '$transcript_set'" >&2; exit 64 ;;
esac

binary=${1:-}
if [[ -z "$binary" ]]; then
    swift build --product cardsync >&2
    binary="$(swift build --show-bin-path)/cardsync"
fi
[[ -x "$binary" ]] || { echo "couch-transcript: $binary is not an executable" >&2; exit 66; }

if ! python3 -c 'import requests' 2>/dev/null; then
    python3 -m pip install --quiet requests >&2
fi

work=$(mktemp -d)
data="$work/data"
mkdir -p "$data"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

if [[ "$binary" == *.xctest ]]; then
    COUCHSERVER_CHILD_DATA="$data" COUCHSERVER_CHILD_ADMIN="admin:secret" \
        "$binary" --testing-library swift-testing --filter servesUntilKilled >"$work/stdout" 2>"$work/stderr" &
else
    "$binary" serve --data "$data" --host 127.0.0.1 --port 0 --admin admin:secret >"$work/stdout" 2>"$work/stderr" &
fi
server_pid=$!

base=""
for _ in $(seq 1 300); do
    base=$(grep -o 'listening on http://[0-9.]*:[0-9]*' "$work/stdout" 2>/dev/null | head -n 1 | sed 's/listening on //' || true)
    [[ -n "$base" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { echo "couch-transcript: the server exited:" >&2; cat "$work/stderr" >&2; exit 69; }
    sleep 0.1
done
[[ -n "$base" ]] || { echo "couch-transcript: the server did not start listening" >&2; cat "$work/stderr" >&2; exit 69; }
for _ in $(seq 1 100); do
    curl -fsS "$base/_up" >/dev/null 2>&1 && break
    sleep 0.1
done

status=0
for set in "${sets[@]}"; do
    if [[ "$set" == core ]]; then
        reference="$shared/couchdb/transcript-couchdb-3.5.0.jsonl"
    else
        reference="$shared/couchdb/transcript-couchdb-3.5.0-$set.jsonl"
    fi
    out=${COUCH_TRANSCRIPT_OUT:-"$work"}/transcript-cardsync-$set.jsonl
    [[ -d "${COUCH_TRANSCRIPT_OUT:-$work}" ]] || out=${COUCH_TRANSCRIPT_OUT}
    python3 "$shared/couchdb/record_couch_transcript.py" "$base" admin secret "$out" --set "$set" >&2
    echo "[$set transcript]"
    python3 "$shared/couchdb/compare_couch_transcripts.py" "$reference" "$out" || status=$?
done
exit "$status"
