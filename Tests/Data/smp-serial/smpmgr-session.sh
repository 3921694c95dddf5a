#!/usr/bin/env bash
# smpmgr (a third-party SMP client: smpmgr 0.19.1 on smpclient 7.3.0, PyPI) drives `nrfloader simulate-serial
# --protocol smp` on a pseudo-terminal through an update: upload, state read, test, reset, state read, confirm,
# state read. Prints each command and what smpmgr printed (its progress spinners and rich-text frames as they come);
# smpmgr-transcript.txt is this script's output, and CLITests/SMPThirdPartyTests runs the same session and checks it.
#
# Usage: Tests/Data/smp-serial/smpmgr-session.sh SMPMGR NRFLOADER IMAGE
set -euo pipefail
smpmgr=$(realpath "$1") nrfloader=$(realpath "$2") image=$(realpath "$3")
dir=$(mktemp -d)
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$dir"' EXIT
"$nrfloader" simulate-serial --protocol smp --port "$dir/tty" --save-images "$dir" >"$dir/sim.out" 2>"$dir/sim.err" &
sim=$!
for _ in $(seq 1 3000); do [ -L "$dir/tty" ] && break; sleep 0.01; done
hash=$("$nrfloader" info "$image" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["sha256_tlv"]["value"].upper())')
step() {
    echo "\$ smpmgr --port TTY --timeout 5 $*"
    COLUMNS=100 "$smpmgr" --port "$dir/tty" --timeout 5 "$@" 2>&1 | sed 's/\r/\n/g' | grep -v '^\s*$' |
        sed -e "s|$dir/tty|TTY|g" -e 's/^\[[0-9:]*\]/[hh:mm:ss]/' || true
    echo
}
echo "\$ smpmgr --port TTY --timeout 5 image upload $(basename "$image")"
(cd "$(dirname "$image")" && COLUMNS=100 "$smpmgr" --port "$dir/tty" --timeout 5 image upload "$(basename "$image")" 2>&1 |
    sed 's/\r/\n/g' | grep -v '^\s*$' | tail -n 1)
echo
step image state-read
step image state-write "$hash"
step os reset
sleep 1
step image state-read
step image state-write --confirm
step image state-read
kill "$sim"
wait "$sim" 2>/dev/null || true
echo "# simulate-serial: $(cat "$dir/sim.err")"
cmp <(head -c "$(stat -c %s "$image")" "$dir/slot0.bin") "$image" && echo "# slot0.bin begins with the image, byte for byte"
