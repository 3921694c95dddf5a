#!/usr/bin/env bash
# Figures for the flashing station (`nrfloader serve`): Update -> confirmed through the page against
# `upload --target sim`, eight simulated devices through the page against the CLI fleet, the server's memory at rest
# and with eight jobs, requests/s of the catalog endpoint (wrk), and the page's weight. Prints, never asserts.
#
# Usage: scripts/bench-station.sh [NRFLOADER]      (default: the debug build; bin/nrfloader is the release one)
set -euo pipefail
cd "$(dirname "$0")/.."
sh Tests/Station/setup.sh
binary=${1:-"$(swift build --show-bin-path)/nrfloader"}
[ -x "$binary" ] || swift build --product nrfloader
.build-rig/station-venv/bin/python scripts/bench-station.py "$binary" "$(command -v chromium)" "$(command -v wrk)"
