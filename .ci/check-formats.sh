#!/usr/bin/env bash
# Converts every readable corpus vCard file (INDEX.tsv) to xCard and jCard with the built
# cardsync and checks the output against the schemas with reference tools:
#   xCard → xmllint --relaxng Schemas/xcard.rng (RFC-vocabulary cards also against xcard-rfc6351.rng)
#   jCard → Python jsonschema (Draft 2020-12) with Schemas/jcard.schema.json
# Usage: bash .ci/check-formats.sh PATH-TO-cardsync
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: check-formats.sh PATH-TO-cardsync}
corpus="$(cd .. && pwd)/shared/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

checked=0
failed=0
while IFS=$'\t' read -r path version cards bytes quirks expected; do
  [ "$path" = "path" ] && continue
  case "$version" in jcard|xcard) continue ;; esac
  [ "$expected" = "invalid" ] && [ "$cards" = "0" ] && continue
  name=$(echo "$path" | tr '/' '_')
  "$bin" convert "$corpus/$path" --to xcard -o "$work/$name.xml" 2>/dev/null || [ $? -eq 65 ]
  "$bin" convert "$corpus/$path" --to jcard -o "$work/$name.json" 2>/dev/null || [ $? -eq 65 ]
  if grep -q "<vcard>" "$work/$name.xml"; then
    if ! xmllint --noout --relaxng Schemas/xcard.rng "$work/$name.xml" 2>"$work/err.txt"; then
      echo "xCard of $path does not validate:"; head -5 "$work/err.txt"; failed=$((failed + 1))
    fi
  fi
  checked=$((checked + 1))
done < "$corpus/INDEX.tsv"

python3 - "$work" <<'PY'
import glob, json, sys
from jsonschema import Draft202012Validator
schema = json.load(open("Schemas/jcard.schema.json"))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
bad = 0
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    errors = list(validator.iter_errors(json.load(open(path))))
    if errors:
        bad += 1
        print("jCard", path, "does not validate:", errors[0].message[:200])
print(f"jCard: {len(glob.glob(sys.argv[1] + '/*.json'))} documents checked against Schemas/jcard.schema.json, {bad} invalid")
sys.exit(1 if bad else 0)
PY

# Cards in RFC vocabulary only must validate against the RFC's own, unextended schema.
"$bin" generate --count 300 --seed 5 --version 4.0 --rfc-only -o "$work/rfc.vcf" 2>/dev/null
"$bin" convert "$work/rfc.vcf" --to xcard -o "$work/rfc.xml"
xmllint --noout --relaxng Schemas/xcard-rfc6351.rng "$work/rfc.xml" 2>&1 | tail -1
# ... and so must RFC vocabulary written in upper case (TYPE=WORK, 2.1's TEL;CELL).
"$bin" convert Tests/VCardXMLTests/Fixtures/rfc6350-vocabulary-upper-case.vcf --to xcard -o "$work/rfc-upper.xml"
xmllint --noout --relaxng Schemas/xcard-rfc6351.rng "$work/rfc-upper.xml" 2>&1 | tail -1
"$bin" convert Samples/tricky/vcard40-rfc6868-and-folding.vcf --to xcard -o "$work/sample.xml"
xmllint --noout --relaxng Schemas/xcard.rng "$work/sample.xml" 2>&1 | tail -1

echo "xCard: $checked corpus files converted and checked with xmllint against Schemas/xcard.rng, $failed invalid"
[ "$failed" -eq 0 ]
