#!/usr/bin/env bash
# smpmgr (a third-party SMP client: smpmgr 0.19.1 on smpclient 7.3.0, PyPI) drives `nrfloader simulate-serial
# --protocol smp --smp-recovery`, MCUboot's serial recovery on a pseudo-terminal, as an operator recovering a device
# would: state read (one slot, no flags), upload (straight to the primary slot), state read, state write (refused:
# recovery has no image state writes), reset (MCUboot boots the new image, which takes over SMP), state read (the new
# image active and confirmed). Prints each command and what smpmgr printed, with time stamps, transfer rates and the
# port replaced; smpmgr-transcript.txt is this script's output, and CLITests/SMPRecoveryThirdPartyTests runs the same
# session and compares it byte for byte.
#
# Usage: Tests/Data/smp-recovery/smpmgr-session.sh SMPMGR NRFLOADER IMAGE
set -euo pipefail
smpmgr=$(realpath "$1") nrfloader=$(realpath "$2") image=$(realpath "$3")
dir=$(mktemp -d)
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$dir"' EXIT
port="$dir/ttyRECOVERY"
"$nrfloader" simulate-serial --protocol smp --smp-recovery --port "$port" --save-images "$dir" \
    >"$dir/sim.out" 2>"$dir/sim.err" &
sim=$!
for _ in $(seq 1 500); do [ -s "$dir/sim.out" ] && break; sleep 0.01; done
[ -s "$dir/sim.out" ] || { echo "simulate-serial did not start: $(cat "$dir/sim.err")" >&2; exit 69; }
hash=$("$nrfloader" info "$image" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["sha256_tlv"]["value"].upper())')
clean() {
    sed 's/\r/\n/g' | grep -v '^\s*$' | grep -v '^⠋' | grep -v '^[│╭╰]' | sed -e "s|$port|PORT|g" -e "s|$dir|DIR|g" \
        -e 's/^\[[0-9:]*\]/[hh:mm:ss]/' -e 's/• [0-9.]* [kMG]*B\/s • [0-9:-]*/• RATE • TIME/'
}
step() {
    echo "\$ smpmgr --port PORT --timeout 5 $*"
    COLUMNS=100 "$smpmgr" --port "$port" --timeout 5 "$@" 2>&1 | clean || true
    echo
}
step image state-read
echo "\$ smpmgr --port PORT --timeout 5 image upload $(basename "$image")"
(cd "$(dirname "$image")" && COLUMNS=100 "$smpmgr" --port "$port" --timeout 5 image upload "$(basename "$image")" 2>&1 |
    clean | tail -n 1)
echo
step image state-read
step image state-write "$hash"
step os reset
sleep 1
step image state-read
kill "$sim"
wait "$sim" 2>/dev/null || true
cmp <(head -c "$(stat -c %s "$image")" "$dir/slot0.bin") "$image" && echo "# slot0.bin begins with the image, byte for byte"
