#!/usr/bin/env bash
# smpmgr (a third-party SMP client: smpmgr 0.19.1 on smpclient 7.3.0, PyPI) drives `nrfloader simulate-udp` on a
# loopback address through an update (upload, state read, test, reset, state read, confirm, state read) and the
# other groups smpmgr has: OS echo, file upload, size, hash, hash types and download, statistics, enumeration and
# shell. The device answers MCUmgr parameters with buf_size 1500 (a UDP build raises CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE
# to its 1500-byte MTU). smpmgr's UDP transport always uses port 1337, so the simulator serves 127.0.0.N:1337 for the
# first N from 2 whose port is free. Prints each command and what smpmgr printed, with its time stamps, transfer rates,
# the address and the folder replaced and Python's tracebacks left out (their paths are this machine's);
# smpmgr-transcript.txt is this script's output, and CLITests/SMPUDPThirdPartyTests runs the same session and compares
# it byte for byte.
#
# Usage: Tests/Data/smp-udp/smpmgr-session.sh SMPMGR NRFLOADER IMAGE
set -euo pipefail
smpmgr=$(realpath "$1") nrfloader=$(realpath "$2") image=$(realpath "$3")
dir=$(mktemp -d)
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$dir"' EXIT
sim=""
for n in $(seq 2 250); do
    address="127.0.0.$n"
    "$nrfloader" simulate-udp --host "$address" --port 1337 --smp-params 1500,4 --save-images "$dir" >"$dir/sim.out" 2>"$dir/sim.err" &
    sim=$!
    for _ in $(seq 1 500); do [ -s "$dir/sim.out" ] && break; kill -0 "$sim" 2>/dev/null || break; sleep 0.01; done
    [ -s "$dir/sim.out" ] && break
    wait "$sim" 2>/dev/null || true
    sim=""
done
[ -n "$sim" ] || { echo "no loopback address with port 1337 free" >&2; exit 69; }
hash=$("$nrfloader" info "$image" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["sha256_tlv"]["value"].upper())')
clean() {
    sed 's/\r/\n/g' | grep -v '^\s*$' | grep -v '^⠋' | grep -v '^[│╭╰]' | sed -e "s|$address|ADDR|g" -e "s|$dir|DIR|g" \
        -e 's/^\[[0-9:]*\]/[hh:mm:ss]/' -e 's/• [0-9.]* [kMG]*B\/s • [0-9:-]*/• RATE • TIME/'
}
step() {
    echo "\$ smpmgr --ip ADDR --timeout 5 $*" | sed "s|$dir|DIR|g"
    COLUMNS=100 "$smpmgr" --ip "$address" --timeout 5 "$@" 2>&1 | clean || true
    echo
}
echo "\$ smpmgr --ip ADDR --timeout 5 image upload $(basename "$image")"
(cd "$(dirname "$image")" && COLUMNS=100 "$smpmgr" --ip "$address" --timeout 5 image upload "$(basename "$image")" 2>&1 |
    clean | tail -n 1)
echo
step image state-read
step image state-write "$hash"
step os reset
sleep 1
step image state-read
step image state-write --confirm
step image state-read
step os echo "hello over UDP"
head -c 102400 "$image" >"$dir/file.bin"
echo "\$ smpmgr --ip ADDR --timeout 5 file upload file.bin /lfs/file.bin"
(cd "$dir" && COLUMNS=100 "$smpmgr" --ip "$address" --timeout 5 file upload file.bin /lfs/file.bin 2>&1 | clean | tail -n 1)
echo
step file read-size /lfs/file.bin
step file get-hash /lfs/file.bin
step file get-supported-hash-types
step file download /lfs/file.bin "$dir/back.bin"
cmp "$dir/file.bin" "$dir/back.bin" && echo "# the file downloaded is the file uploaded, byte for byte" && echo
step statistics smp_svr_stats
step statistics list
step enum get-supported-groups
step enum get-group-details 0 8 9
step shell "kernel version"
kill "$sim"
wait "$sim" 2>/dev/null || true
echo "# simulate-udp: $(cat "$dir/sim.err")"
cmp <(head -c "$(stat -c %s "$image")" "$dir/slot0.bin") "$image" && echo "# slot0.bin begins with the image, byte for byte"
