#!/usr/bin/env bash
# Size limits against a real binary: a 2 GB line read from a pipe by `validate` and `import`,
# and a 2 GB file dropped in an address book, must each end with the limit's error (stdout or stderr) while the
# process stays small (peak RSS under 256 MB). So must a jCard and an xCard document whose first card holds one
# string of a quarter of that size on a single line (jCard: `validate` and `import`; xCard: `validate`), and the
# card after it must still be imported.
#
#   .ci/limits.sh .build/debug/cardsync [MEGABYTES, default 2048]
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
megabytes="${2:-2048}"
limit_kb=$((256 * 1024))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hostile_stream() {
  printf 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:'
  head -c "$((megabytes * 1024 * 1024))" /dev/zero | tr '\0' 'a'
  printf '\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nUID:after-the-long-line\r\nFN:Kept\r\nEND:VCARD\r\n'
}

document_megabytes=$(( megabytes / 4 > 0 ? megabytes / 4 : 1 ))

hostile_jcard() {
  printf '[["vcard",[["version",{},"text","4.0"],["fn",{},"text","'
  head -c "$((document_megabytes * 1024 * 1024))" /dev/zero | tr '\0' 'a'
  printf '"]]],\n ["vcard",[["version",{},"text","4.0"],["uid",{},"text","after-the-long-string"],["fn",{},"text","Kept after the string"]]]]\n'
}

hostile_xcard() {
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<vcards xmlns="urn:ietf:params:xml:ns:vcard-4.0">\n<vcard><fn><text>'
  head -c "$((document_megabytes * 1024 * 1024))" /dev/zero | tr '\0' 'a'
  printf '</text></fn></vcard>\n<vcard><uid><text>after-the-long-text</text></uid><fn><text>Kept</text></fn></vcard>\n</vcards>\n'
}

check() { # name, expected exit status, pattern expected on stderr, command...
  local name="$1" expected="$2" pattern="$3"
  shift 3
  local status=0 start end
  start=$(date +%s)
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  end=$(date +%s)
  local rss
  rss=$(grep -Eo 'maxrss_kb=[0-9]+' "$tmp/err" | grep -Eo '[0-9]+' || echo 0)
  printf '{"check":"%s","megabytes":%s,"exit":%s,"peakRSSKB":%s,"seconds":%s}\n' "$name" "${check_megabytes:-$megabytes}" "$status" "$rss" "$((end - start))"
  # grep reads the two files itself: `cat … | grep -q` under pipefail failed whenever grep found
  # the pattern in the first file and quit before cat wrote the second (cat: SIGPIPE, status 141).
  if [ "$status" -ne "$expected" ] || ! grep -q -- "$pattern" "$tmp/out" "$tmp/err" || [ "$rss" -gt "$limit_kb" ] || [ "$rss" -eq 0 ]; then
    echo "limits: $name failed (exit $status, expected $expected; peak RSS ${rss} KB, limit ${limit_kb} KB)" >&2
    cat "$tmp/out" "$tmp/err" >&2
    exit 1
  fi
}

check validate-long-line 65 "limit-exceeded" \
  bash -c "$(declare -f hostile_stream); megabytes=$megabytes; hostile_stream | /usr/bin/time -f maxrss_kb=%M '$bin' validate -"

"$bin" init "$tmp/book" >/dev/null
check import-long-line 65 "limit-exceeded" \
  bash -c "$(declare -f hostile_stream); megabytes=$megabytes; hostile_stream | /usr/bin/time -f maxrss_kb=%M '$bin' import - --into '$tmp/book'"
grep -q "FN:Kept" "$tmp/book/after-the-long-line.vcf" || { echo "limits: the card after the long line was not imported" >&2; exit 1; }

check_megabytes=$document_megabytes
check validate-jcard-long-string 65 "limit-exceeded" \
  bash -c "$(declare -f hostile_jcard); document_megabytes=$document_megabytes; hostile_jcard | /usr/bin/time -f maxrss_kb=%M '$bin' validate -"

check import-jcard-long-string 65 "limit-exceeded" \
  bash -c "$(declare -f hostile_jcard); document_megabytes=$document_megabytes; hostile_jcard | /usr/bin/time -f maxrss_kb=%M '$bin' import - --into '$tmp/book'"
grep -q "FN:Kept after the string" "$tmp/book/after-the-long-string.vcf" || { echo "limits: the jCard card after the long string was not imported" >&2; exit 1; }

check validate-xcard-long-text 65 "limit-exceeded" \
  bash -c "$(declare -f hostile_xcard); document_megabytes=$document_megabytes; hostile_xcard | /usr/bin/time -f maxrss_kb=%M '$bin' validate -"

unset check_megabytes

truncate -s "${megabytes}M" "$tmp/book/huge.vcf"
check scan-huge-file 0 "file-too-large" /usr/bin/time -f maxrss_kb=%M "$bin" scan "$tmp/book"
