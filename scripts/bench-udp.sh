#!/usr/bin/env bash
# SMP over UDP and the file system group, nrfloader against smpmgr 0.19.1: image uploads of 40 and 130 KiB on
# loopback, the cost of a lost datagram, fleets of 1, 10 and 100 simulated UDP devices, and fs upload/download of
# 100 KiB over serial (see scripts/bench-udp.py). Prints the figures.
# Usage: scripts/bench-udp.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
sh Tests/Rig/setup-smp.sh >&2
swift build -c release --product nrfloader >&2
python3 scripts/bench-udp.py .build/release/nrfloader .build-rig/smp-venv/bin/smpmgr "${1:-3}"
