#!/usr/bin/env bash
# Installs what the tests need and runs every test: format lint, module rules, and `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
# The BlueZ stand-in (bluezoo) and its pinned Python packages, in .build-rig/venv.
sh Tests/Rig/setup.sh

echo "== swift format lint" >&2
swift format lint --strict --configuration .swift-format --recursive --parallel Package.swift Sources Tests Benchmarks

echo "== module rules" >&2
bash scripts/check-imports.sh

echo "== swift test" >&2
swift build --build-tests
swift test

echo "== fault campaign (a 100-run slice of scripts/fault-campaign.py)" >&2
python3 scripts/fault-campaign.py --runs 100 --require-recovery 0.95

echo "== fuzz corpora replay" >&2
bash scripts/fuzz.sh replay

echo "== mutation campaign slice" >&2
python3 scripts/mutation-campaign.py --seed 1 --packages 150 --catalogs 16

# One round of every scenario: about 12 minutes on a 2-core machine shared with other builds (VM boot
# about 40 s, a scenario 25-90 s under TCG). `bash scripts/vm-tier.sh --rounds 2` runs them twice in a row.
echo "== real-bluetoothd tier (scripts/vm-tier.sh: qemu VM, bluetoothd 5.66, btvirt; one round)" >&2
bash scripts/vm-tier.sh --binary .build/debug/nrfloader --rounds 1
