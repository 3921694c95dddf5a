#!/usr/bin/env bash
# The flashing station (`nrfloader serve`) from outside, driving the real binary: the page in Debian's chromium
# through Playwright (firmware, devices, Update, confirmed; a corrupt file's error; cancel; history across a reload
# and a second tab; screenshots in docs/), then schemathesis against the served OpenAPI document and the token and
# origin rules. Needs a built nrfloader (swift build); installs its tools with Tests/Station/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
sh Tests/Station/setup.sh
venv=.build-rig/station-venv
binary="$(swift build --show-bin-path)/nrfloader"
[ -x "$binary" ] || swift build --product nrfloader
screenshots=${STATION_SCREENSHOTS:-.build-rig/station-screenshots}
mkdir -p "$screenshots"
"$venv/bin/python" Tests/Station/browser_check.py "$binary" "$(command -v chromium)" "$screenshots"
"$venv/bin/python" Tests/Station/api_check.py "$binary" "$venv/bin/schemathesis"
