#!/usr/bin/env bash
# Convert benchmark: nrfloader vs objcopy on a 16 MiB image (see scripts/bench-convert.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
bash scripts/build.sh
python3 scripts/bench-convert.py bin/nrfloader "${1:-7}"
