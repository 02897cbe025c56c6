#!/usr/bin/env bash
# `cardsync web` in a real headless Chromium (issue 15's acceptance list): a 2,000-contact sample
# book plus a hand-written card with grouped and X- properties, driven through Selenium by label
# and button text. Screenshots of the list, a contact and the edit form go to
# .build/web-screenshots/.
#
#   .ci/web-browser.sh .build/debug/cardsync
#
# Needs the Debian packages chromium and chromium-driver, and selenium from PyPI.
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "$0")/.." && pwd)"
exec python3 "$root/Tests/BrowserTests/web_test.py" --binary "$bin" --screenshots "$root/.build/web-screenshots"
