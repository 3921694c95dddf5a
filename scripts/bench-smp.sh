#!/usr/bin/env bash
# SMP upload throughput in the simulator's link model, with and without pipelining, against the link's raw ceiling.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --runtime >&2
swift build -c release --product smp-benchmark >&2
.build/release/smp-benchmark
