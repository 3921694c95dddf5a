#!/usr/bin/env bash
# Several devices in one run: total time for 1, 2, 4 and 8 devices as a ratio to one, on the in-process simulator
# and on the bluezoo rig (see scripts/bench-fleet.py).
# Usage: scripts/bench-fleet.sh [ROUNDS] [sim|rig|both] [COUNTS, e.g. 1,3]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test >&2
bash Tests/Rig/setup.sh >&2
swift build -c release --product nrfloader >&2
python3 scripts/bench-fleet.py .build/release/nrfloader "${1:-3}" "${2:-both}" ${3:+"$3"}
