#!/usr/bin/env bash
# DFU throughput in the simulator's link model, against the link's raw ceiling and Secure DFU's round-trip bound.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --runtime >&2
swift build -c release --product dfu-benchmark >&2
.build/release/dfu-benchmark
