#!/usr/bin/env bash
# SMP over a serial console: nrfloader against smpmgr 0.19.1 (smpclient 7.3.0), same signed MCUboot image, same
# simulated Zephyr device (nrfloader simulate-serial --protocol smp), at 115200 and 1000000 baud.
#
# A pty enforces no baud rate, so the simulator reads no faster than the line rate (10 bits a byte, --pace-baud).
# Each run is an upload only (nrfloader --smp-mode upload-only; smpmgr image upload) to a fresh simulator, timed
# as wall-clock time of the client process: Python's start-up counts against smpmgr, as a user sees it, so the
# start-up of each tool (an `echo`/`os echo` round trip to the same simulator) is printed too. Runs alternate
# between the tools, ROUNDS pairs per rate; the table gives the median.
#
# SIM_ARGS adds options to the simulator: SIM_ARGS=--smp-recovery measures MCUboot's serial recovery (1024-byte
# requests, one at a time) instead of a Zephyr application.
#
# Usage: scripts/smp-serial-throughput.sh [IMAGE] [ROUNDS]   (NRFLOADER=path, SMPMGR=path override the tools)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${NRFLOADER:-.build/debug/nrfloader}
SMPMGR=${SMPMGR:-.build-rig/smp-venv/bin/smpmgr}
IMAGE=${1:-Resources/firmware/selftest-nrf52840dk-mcuboot.bin}
ROUNDS=${2:-3}
read -r -a SIM_ARGS <<<"${SIM_ARGS:-}"
[ -x "$BIN" ] || { echo "smp-serial-throughput: $BIN not built (swift build)" >&2; exit 66; }
[ -x "$SMPMGR" ] || {
    echo "smp-serial-throughput: smpmgr not at $SMPMGR (sh Tests/Rig/setup.sh)" >&2
    exit 69
}
dir=$(mktemp -d)
sim=""
trap '[ -n "$sim" ] && kill "$sim" 2>/dev/null; rm -rf "$dir"' EXIT

start_simulator() {
    rm -f "$dir/tty"
    "$BIN" simulate-serial --protocol smp --port "$dir/tty" --pace-baud "$1" "${SIM_ARGS[@]}" >"$dir/sim.out" \
        2>"$dir/sim.err" &
    sim=$!
    for _ in $(seq 1 3000); do [ -L "$dir/tty" ] && break; sleep 0.01; done
}

stop_simulator() {
    kill "$sim" 2>/dev/null || true
    wait "$sim" 2>/dev/null || true
    sim=""
}

# seconds TOOL BAUD ACTION -> wall-clock seconds of one client run against a fresh simulator
seconds() {
    start_simulator "$2"
    local began ended
    began=$(date +%s.%N)
    case "$1:$3" in
    nrfloader:upload) "$BIN" upload --port "$dir/tty" --baud "$2" --smp-mode upload-only -q "$IMAGE" >/dev/null ;;
    smpmgr:upload) "$SMPMGR" --port "$dir/tty" --baudrate "$2" --timeout 5 image upload "$IMAGE" >/dev/null 2>&1 ;;
    nrfloader:echo) "$BIN" echo --port "$dir/tty" --baud "$2" hello >/dev/null ;;
    smpmgr:echo) "$SMPMGR" --port "$dir/tty" --baudrate "$2" --timeout 5 os echo hello >/dev/null 2>&1 ;;
    esac
    ended=$(date +%s.%N)
    stop_simulator
    python3 -c "print(f'{$ended - $began:.2f}')"
}

size=$(stat -c %s "$IMAGE")
echo "image: $IMAGE ($size bytes); $ROUNDS alternating pairs per rate; median wall-clock seconds"
printf '%-9s %8s %9s %9s %11s %10s\n' tool baud upload_s echo_s image_B/s line_share
for baud in 115200 1000000; do
    declare -A uploads=() echoes=()
    for _ in $(seq 1 "$ROUNDS"); do
        for tool in nrfloader smpmgr; do
            uploads[$tool]+="$(seconds "$tool" "$baud" upload) "
            echoes[$tool]+="$(seconds "$tool" "$baud" echo) "
        done
    done
    for tool in nrfloader smpmgr; do
        python3 - "$tool" "$baud" "$size" "${uploads[$tool]}" "${echoes[$tool]}" <<'PY'
import statistics, sys
tool, baud, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
upload = statistics.median(float(x) for x in sys.argv[4].split())
echo = statistics.median(float(x) for x in sys.argv[5].split())
rate = size / upload
print(f"{tool:<9} {baud:>8} {upload:>9.2f} {echo:>9.2f} {rate:>11.0f} {rate / (baud / 10) * 100:>9.1f}%")
PY
    done
    python3 -c "
import statistics
a = statistics.median([float(x) for x in '${uploads[nrfloader]}'.split()])
b = statistics.median([float(x) for x in '${uploads[smpmgr]}'.split()])
print(f'ratio at $baud baud: nrfloader takes {a / b:.2f}x the time smpmgr takes')"
    unset uploads echoes
done
