#!/usr/bin/env bash
# Which source files does a reader cross for a command? A measurement, answered by code coverage, not a test.
#
#   usage: scripts/files-crossed.sh [--list] REV [REV...]      (REV: a git revision of this repository)
#
# For each REV it checks the revision out in a detached worktree, /tmp/files-crossed-<short-rev>, builds the
# nrfloader product in debug with coverage instrumentation (scratch path .build-coverage inside that worktree, under
# `nice -n 10`), and runs two commands, each with its own LLVM_PROFILE_FILE:
#   nrf5-dfu  `nrfloader upload --target sim --sim-speed 0 blinky-pca10040` (nRF5 DFU to the in-process simulator);
#   smp-serial `nrfloader upload --port DIR/tty Tests/Data/mcuboot/ed25519.bin` against
#             `nrfloader simulate-serial --protocol smp --port DIR/tty`, a separate process stopped with SIGINT
#             whose profile is kept apart and left out of the count.
# Each command's profile is merged with llvm-profdata; `llvm-cov export -summary-only` against the binary gives the
# files under Sources/ with at least one executed line. They are counted in total, per layer and per module:
#   CLI         Sources/nrfloader
#   public      NRFLoaderKit, NRFLoaderSimulator, NRFLoaderSerial, NRFLoaderBlueZ
#   transports  BlueZ, BlueZTransport, DBus, SMPBlueZ, SerialDFU, SMPSerial, SerialLine
#   simulators  DFUSimulator, SMPSimulator, SerialSimulator, SimulatedPeripheral
#   engine      every other module under Sources
# It prints one table with a column per REV (and the build time of each), then the modules each command crossed;
# with --list, the files too. The worktrees are removed at the end (`git worktree remove --force`), also on failure.
# It exits 0 when it measured and asserts nothing about the numbers; a command that fails is an error (exit 1),
# since its coverage would not be the command's.
#
# Needs swift, llvm-profdata and llvm-cov (from /opt/swift/usr/bin, else PATH; Debian: apt-get install llvm), jq.
set -euo pipefail

usage() {
    echo "usage: $0 [--list] REV [REV...]" >&2
    exit 2
}

list=false
revs=()
for argument in "$@"; do
    case "$argument" in
        --list) list=true ;;
        -h | --help) usage ;;
        -*) echo "unknown option: $argument" >&2; usage ;;
        *) revs+=("$argument") ;;
    esac
done
[[ ${#revs[@]} -gt 0 ]] || usage

repository=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)

# The LLVM tools matching the Swift compiler's profile format come first.
tool() {
    local name=$1 directory
    for directory in /opt/swift/usr/bin "$(dirname "$(command -v swift 2>/dev/null || echo /nonexistent/swift)")"; do
        if [[ -x $directory/$name ]]; then echo "$directory/$name"; return; fi
    done
    if command -v "$name" >/dev/null; then command -v "$name"; return; fi
    echo "$name not found (the Swift toolchain has it; on Debian: apt-get install llvm)" >&2
    exit 1
}
profdata=$(tool llvm-profdata)
cov=$(tool llvm-cov)
command -v jq >/dev/null || { echo "jq not found (apt-get install jq)" >&2; exit 1; }

# Each file's layer, from its module (the folder under Sources/).
layer() {
    case "$1" in
        nrfloader) echo CLI ;;
        NRFLoaderKit | NRFLoaderSimulator | NRFLoaderSerial | NRFLoaderBlueZ) echo public ;;
        BlueZ | BlueZTransport | DBus | SMPBlueZ | SerialDFU | SMPSerial | SerialLine) echo transports ;;
        DFUSimulator | SMPSimulator | SerialSimulator | SimulatedPeripheral) echo simulators ;;
        *) echo engine ;;
    esac
}
layers=(CLI public transports simulators engine)
commands=(nrf5-dfu smp-serial)

worktrees=()
cleanup() {
    local worktree
    for worktree in ${worktrees[@]+"${worktrees[@]}"}; do
        git -C "$repository" worktree remove --force "$worktree" 2>/dev/null || rm -rf "$worktree"
    done
    git -C "$repository" worktree prune
    rm -rf "$results"
}
results=$(mktemp -d /tmp/files-crossed-results.XXXXXX)
trap cleanup EXIT

# Runs a command of the measurement with its log in $1; on failure shows the log and stops.
run_logged() {
    local log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "failed: $*" >&2
        cat "$log" >&2
        return 1
    fi
}

# Writes the files under $2/Sources/ with an executed line, relative to $2, from profile $1 of binary $3.
files_crossed() {
    local profile=$1 worktree=$2 binary=$3
    "$cov" export -summary-only -instr-profile "$profile" "$binary" "$worktree/Sources" \
        | jq -r --arg prefix "$worktree/" \
            '.data[].files[] | select(.summary.lines.covered > 0) | .filename
             | select(startswith($prefix + "Sources/")) | ltrimstr($prefix)' \
        | sort -u
}

columns=()
for rev in "${revs[@]}"; do
    commit=$(git -C "$repository" rev-parse --verify --quiet "$rev^{commit}") || {
        echo "not a revision: $rev" >&2
        exit 1
    }
    short=$(git -C "$repository" rev-parse --short "$commit")
    worktree=/tmp/files-crossed-$short
    if [[ -e $worktree ]]; then
        echo "$worktree exists (the same revision twice, or a run left it): remove it first" >&2
        exit 1
    fi
    echo "== $rev ($short): worktree $worktree" >&2
    git -C "$repository" worktree add --detach "$worktree" "$commit" >&2
    worktrees+=("$worktree")
    out=$results/$short
    mkdir -p "$out"
    columns+=("$short")

    # Dependencies are resolved first, so that the time is the build's alone.
    (cd "$worktree" && nice -n 10 swift package resolve --scratch-path "$worktree/.build-coverage") >&2
    build=(swift build --product nrfloader --scratch-path "$worktree/.build-coverage"
        -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping)
    started=$(date +%s)
    (cd "$worktree" && nice -n 10 "${build[@]}") >&2
    echo $(($(date +%s) - started)) >"$out/build-seconds"
    binary=$(cd "$worktree" && "${build[@]}" --show-bin-path)/nrfloader
    echo "built $binary in $(cat "$out/build-seconds")s" >&2

    # 1. nRF5 DFU to the in-process simulator.
    (cd "$worktree" && export LLVM_PROFILE_FILE="$out/nrf5-dfu-%p.profraw" &&
        run_logged "$out/nrf5-dfu.log" "$binary" upload --target sim --sim-speed 0 blinky-pca10040)

    # 2. SMP upload over a serial port to a simulator in another process, whose profile is not counted.
    port_dir=$out/port
    mkdir -p "$port_dir"
    (cd "$worktree" && LLVM_PROFILE_FILE="$out/simulator-%p.profraw" exec "$binary" simulate-serial \
        --protocol smp --port "$port_dir/tty" >"$out/simulator.log" 2>&1) &
    simulator=$!
    for _ in $(seq 600); do
        [[ -e $port_dir/tty ]] && break
        kill -0 "$simulator" 2>/dev/null || break
        sleep 0.1
    done
    if [[ ! -e $port_dir/tty ]]; then
        echo "the serial simulator did not create $port_dir/tty" >&2
        cat "$out/simulator.log" >&2
        kill "$simulator" 2>/dev/null || true
        exit 1
    fi
    status=0
    (cd "$worktree" && export LLVM_PROFILE_FILE="$out/smp-serial-%p.profraw" &&
        run_logged "$out/smp-serial.log" "$binary" upload --port "$port_dir/tty" Tests/Data/mcuboot/ed25519.bin) \
        || status=$?
    kill -INT "$simulator" 2>/dev/null || true
    wait "$simulator" || true
    echo "$short simulator said: $(tail -n 1 "$out/simulator.log")" >&2
    [[ $status -eq 0 ]] || exit 1

    for command in "${commands[@]}"; do
        "$profdata" merge -sparse -o "$out/$command.profdata" "$out/$command"-*.profraw
        files_crossed "$out/$command.profdata" "$worktree" "$binary" >"$out/$command.files"
        cut -d/ -f2 "$out/$command.files" | sort -u >"$out/$command.modules"
        echo "$short $command: $(wc -l <"$out/$command.files") files; it said: $(tail -n 1 "$out/$command.log")" >&2
    done
done

# The table: one row per command and measure, one column per revision.
count() { # count FILE LAYER|total|modules
    local file=$1 what=$2 module n=0
    case "$what" in
        total) wc -l <"$file.files" | tr -d ' ' ;;
        modules) wc -l <"$file.modules" | tr -d ' ' ;;
        *)
            while read -r path; do
                module=$(cut -d/ -f2 <<<"$path")
                [[ $(layer "$module") == "$what" ]] && n=$((n + 1))
            done <"$file.files"
            echo "$n"
            ;;
    esac
}
row() {
    local label=$1
    shift
    printf '%-34s' "$label"
    printf '%12s' "$@"
    printf '\n'
}
describe() {
    case "$1" in
        nrf5-dfu) echo "upload --target sim (nRF5 DFU)" ;;
        smp-serial) echo "upload --port (SMP, serial)" ;;
    esac
}

echo
row "files crossed" "${columns[@]}"
for command in "${commands[@]}"; do
    echo "$(describe "$command")"
    for what in total "${layers[@]}" modules; do
        values=()
        for short in "${columns[@]}"; do values+=("$(count "$results/$short/$command" "$what")"); done
        row "  $what" "${values[@]}"
    done
done
values=()
for short in "${columns[@]}"; do values+=("$(cat "$results/$short/build-seconds")"); done
row "build (s)" "${values[@]}"

echo
for short in "${columns[@]}"; do
    for command in "${commands[@]}"; do
        echo "$short $(describe "$command"), modules: $(paste -sd' ' "$results/$short/$command.modules")"
    done
done
if $list; then
    for short in "${columns[@]}"; do
        for command in "${commands[@]}"; do
            echo
            echo "$short $(describe "$command"), files:"
            while read -r path; do
                printf '  %-12s %s\n' "$(layer "$(cut -d/ -f2 <<<"$path")")" "$path"
            done <"$results/$short/$command.files"
        done
    done
fi
