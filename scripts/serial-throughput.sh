#!/usr/bin/env bash
# Serial DFU throughput over a pseudo-terminal: nrfloader against nrfutil 6.1.7, same package, same simulated
# Secure serial bootloader (nrfloader simulate-serial), at 115200 and 1000000 baud.
#
# A pty does not enforce a baud rate, so the simulator paces itself: it reads no faster than the line rate
# (10 bits a byte, --pace-baud), as a UART would deliver. The time is the simulator's own, from the first byte
# it received to the activation of the image, so nrfutil's start-up (its 3 s USB device search, Python) is not
# counted against it. Figures: payload bytes (init packet + firmware in Write Object frames, resends included),
# host wire bytes (all SLIP frames), payload rate, share of the line rate, and the ratio of the two tools.
#
# Usage: scripts/serial-throughput.sh [PACKAGE]   (NRFLOADER=path, NRFUTIL=path override the tools)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${NRFLOADER:-.build/debug/nrfloader}
NRFUTIL=${NRFUTIL:-/work/venvs-serial/nrfutil/bin/nrfutil}
PKG=${1:-Tests/Data/packages/nrfutil617-selftest-signed.zip}
[ -x "$BIN" ] || { echo "serial-throughput: $BIN not built (swift build)" >&2; exit 66; }
[ -x "$NRFUTIL" ] || { echo "serial-throughput: nrfutil 6.1.7 not found at $NRFUTIL (scripts/install-serial-oracles.sh)" >&2; exit 69; }
dir=$(mktemp -d)
sim=""
trap '[ -n "$sim" ] && kill "$sim" 2>/dev/null; rm -rf "$dir"' EXIT

# run TOOL BAUD -> prints "payload_bytes wire_bytes milliseconds"
run() {
    rm -f "$dir/t.txt" "$dir/tty"
    "$BIN" simulate-serial --port "$dir/tty" --pace-baud "$2" --exit-after 1 --transcript "$dir/t.txt" ${SIM_ARGS:---sd-id 0x0101} \
        >"$dir/sim.out" 2>"$dir/sim.err" &
    sim=$!
    for _ in $(seq 1 3000); do [ -L "$dir/tty" ] && break; sleep 0.01; done
    if [ "$1" = nrfloader ]; then
        "$BIN" upload --port "$dir/tty" --baud "$2" -q "$PKG" >/dev/null
    else
        "$NRFUTIL" dfu serial -pkg "$PKG" -p "$dir/tty" -b "$2" -fc 0 -t 3 >/dev/null 2>&1
    fi
    wait "$sim"
    sim=""
    python3 - "$dir/t.txt" <<'PY'
import re, sys
payload = 0
timing = None
for line in open(sys.argv[1]):
    if line.startswith("> 08"):
        payload += (len(line.strip()) - 4) // 2
    m = re.match(r"# timing: (\d+) host wire bytes, (\d+) ms", line)
    if m:
        timing = (int(m.group(1)), int(m.group(2)))
print(payload, timing[0], timing[1])
PY
}

printf '%-9s %8s %9s %9s %8s %10s %11s %13s\n' tool baud payload_B wire_B ms payload_B/s line_share protocol_share
for baud in 115200 1000000; do
    declare -A rate=()
    for tool in nrfloader nrfutil; do
        read -r payload wire ms < <(run "$tool" "$baud")
        rate[$tool]=$(python3 -c "print($payload * 1000 / $ms)")
        python3 -c "
payload, wire, ms, baud = $payload, $wire, $ms, $baud
line_bytes_per_s = baud / 10
rate = payload * 1000 / ms
print('%-9s %8d %9d %9d %8d %10.0f %10.1f%% %12.1f%%' % ('$tool', baud, payload, wire, ms, rate,
      100 * rate / line_bytes_per_s, 100 * payload / wire))"
    done
    python3 -c "print('  ratio nrfloader/nrfutil at $baud baud: %.2f' % (${rate[nrfloader]} / ${rate[nrfutil]}))"
done
echo "line_share = payload rate / (baud / 10); protocol_share = payload bytes / host wire bytes (SLIP, opcodes, requests)"
