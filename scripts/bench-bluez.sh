#!/usr/bin/env bash
# BlueZ transport benchmark on the test rig: DFU vs bare write-without-response, both I/O paths
# (see scripts/bench-bluez.py). Usage: scripts/bench-bluez.sh [ROUNDS] [SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test >&2
bash Tests/Rig/setup.sh >&2
swift build -c release --product nrfloader >&2
swift build -c release --product bluez-benchmark >&2
python3 scripts/bench-bluez.py .build/release/nrfloader .build/release/bluez-benchmark "${1:-5}" "${2:-204800}"
