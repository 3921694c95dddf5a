#!/usr/bin/env bash
# The main job: install what the tool needs, build it, and run it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --runtime
bash scripts/build.sh
bin/nrfloader list
bin/nrfloader info selftest-pca10040
# A complete firmware update of the embedded self-test image (129 KiB, 33 Secure DFU objects) to the simulated
# Nordic bootloader, in real time on a modelled 2M PHY / 7.5 ms link, with the progress display.
bin/nrfloader upload --target sim selftest-pca10040
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Convert a committed firmware image from Intel HEX to binary, the way Nordic's package tools do,
# and check the result against the committed binary.
bin/nrfloader convert Resources/firmware/selftest-pca10040.hex --nordic -o "$work/selftest-pca10040.bin"
cmp "$work/selftest-pca10040.bin" Resources/firmware/selftest-pca10040.bin
echo "main job: convert reproduced Resources/firmware/selftest-pca10040.bin byte for byte" >&2
