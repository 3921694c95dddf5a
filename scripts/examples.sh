#!/usr/bin/env bash
# Builds and runs the programs in Examples/ against this checkout's library products (issue 21):
#  1. GettingStarted: its main.swift must be, byte for byte, the first Swift code block of NRFLoaderKit's
#     Getting Started article; it updates the simulated device with a catalog image and must print the bytes the
#     device confirmed, which must equal the catalog entry's size.
#  2. UpdateService: fed jobs on standard input (a Secure, a legacy, a buttonless and an SMP simulated device, and a
#     job that must fail), it must report each device and exit with the failed job's status.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
article=Sources/NRFLoaderKit/NRFLoaderKit.docc/GettingStarted.md
program=Examples/Sources/GettingStarted/main.swift
block=$(awk 'found == 0 && /^```swift$/ { inside = 1; next } inside && /^```$/ { inside = 0; found = 1; next } inside { print }' "$article")
if [ "$block" != "$(cat "$program")" ]; then
    echo "examples: $program is not the first Swift code block of $article" >&2
    diff <(printf '%s\n' "$block") "$program" >&2 || true
    exit 1
fi
# The examples are a package of their own that depends on this one by path, so they see only the public API (the
# engine's `package` declarations are invisible outside this package). They build in this package's scratch folder:
# what this package's own build compiled (swift-crypto, the engine) is reused as is, which takes seconds instead of
# the 4 to 8 minutes of a build of their own from a fresh clone.
(cd Examples && swift build --scratch-path ../.build)
echo "examples: built in $((SECONDS - started)) s" >&2
bin=$(cd Examples && swift build --scratch-path ../.build --show-bin-path)

output=$("$bin/GettingStarted")
printf '%s\n' "$output"
size=$(python3 -c '
import json
print(next(entry["size"] for entry in json.load(open("catalog.json"))["firmware"] if entry["id"] == "blinky-pca10040"))
')
expected="confirmed by the device: $size bytes"
[ "$(printf '%s\n' "$output" | tail -n 1)" = "$expected" ] || {
    echo "examples: GettingStarted did not end with '$expected'" >&2
    exit 1
}

set +e
service=$(printf '%s\n' \
    "# device firmware" \
    "sim blinky-pca10040" \
    "sim:legacy blinky-pca10056" \
    "sim:buttonless Tests/Data/packages/nrfutil617-blinky-signed.zip" \
    "sim:smp selftest-nrf52840dk-mcuboot" \
    "sim:smp blinky-pca10040" |
    "$bin/UpdateService" --parallel 3)
status=$?
set -e
printf '%s\n' "$service"
for line in \
    "job 1 sim: confirmed 604 bytes" \
    "job 2 sim:legacy: confirmed 640 bytes" \
    "job 4 sim:smp: confirmed 132496 bytes"; do
    grep -qxF "$line" <<<"$service" || { echo "examples: UpdateService did not report '$line'" >&2; exit 1; }
done
grep -qE '^job 3 sim:buttonless: confirmed [0-9]+ bytes$' <<<"$service" || {
    echo "examples: UpdateService did not report job 3" >&2
    exit 1
}
grep -qE "^job 5 sim:smp: failed \(64\): 'blinky-pca10040' is an nRF5 DFU image" <<<"$service" || {
    echo "examples: UpdateService did not report job 5's failure" >&2
    exit 1
}
[ "$status" = 64 ] || { echo "examples: UpdateService exited $status, expected 64" >&2; exit 1; }
echo "examples: ok in $((SECONDS - started)) s" >&2
