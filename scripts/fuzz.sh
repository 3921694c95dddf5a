#!/usr/bin/env bash
# libFuzzer (with AddressSanitizer) on the parsers that read untrusted bytes, compiled from the module sources.
#   scripts/fuzz.sh TARGET [RUNS] [SECONDS]   fuzz TARGET for RUNS executions (default 10,000,000) or SECONDS
#   scripts/fuzz.sh replay                    run every committed corpus once (CI): each input must pass
# TARGET: package (zip reader + manifest + init packets), init-packet (Secure protobuf and legacy decoders),
# catalog (JSON + catalog schema), wire (DFU notification/response parsers and the controller consuming them),
# smp (the CBOR decoder, SMP frames and answers, the serial console framing).
# The corpus grows in .fuzz/TARGET/corpus (seeded from Tests/Fuzz/Corpus/TARGET); crashes land in
# .fuzz/TARGET/artifacts. Run long campaigns under `nice -n 19`. Intel HEX has its own script, fuzz-hex.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no

sources() {
    case "$1" in
        package | init-packet) ls Sources/Checksums/*.swift; find Sources/DFUPackage -name '*.swift' ;;
        catalog) ls Sources/Catalog/CatalogDecoder.swift Sources/Catalog/CatalogEntry.swift \
            Sources/Catalog/CatalogError.swift Sources/Catalog/JSON/*.swift ;;
        wire) ls Sources/Checksums/*.swift; find Sources/DeviceLink Sources/DFUController -name '*.swift' ;;
        smp) find Sources/DeviceLink Sources/SMP -name '*.swift' ;;
        *) echo "fuzz.sh: unknown target '$1' (package, init-packet, catalog, wire, smp, replay)" >&2; exit 64 ;;
    esac
}

harness() {
    case "$1" in
        package) echo Tests/Fuzz/PackageFuzz.swift ;;
        init-packet) echo Tests/Fuzz/InitPacketFuzz.swift ;;
        catalog) echo Tests/Fuzz/CatalogFuzz.swift ;;
        wire) echo Tests/Fuzz/WireFuzz.swift ;;
        smp) echo Tests/Fuzz/SMPFuzz.swift ;;
    esac
}

# Checksums' SHA-256 is swift-crypto's: build it with SwiftPM (a no-op after `swift build`) and link its objects.
crypto_objects=()
crypto() {
    [ ${#crypto_objects[@]} -gt 0 ] && return
    swift build --target Checksums >&2
    bin=$(swift build --show-bin-path)
    mapfile -t crypto_objects < <(find "$bin"/{Crypto,CryptoBoringWrapper,CCryptoBoringSSL,CCryptoBoringSSLShims,CXKCP,CXKCPShims}.build \
        -name '*.o' | sort)
    crypto_objects+=(-I "$bin/Modules" -lstdc++)
}

# Compiles TARGET's harness with its module's sources as one module; `import Checksums` and `import DeviceLink`
# lines are dropped because those sources are part of the same module here.
build() {
    local target=$1 work=$2
    crypto
    rm -rf "$work/src"
    mkdir -p "$work/src" "$work/corpus" "$work/artifacts"
    local index=0
    for file in $(sources "$target") $(harness "$target"); do
        index=$((index + 1))
        sed -E '/^(internal |public |package )?import (Checksums|DeviceLink)$/d' "$file" > "$work/src/$index-$(basename "$file")"
    done
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "Fuzz${target//-/}" -package-name nrfloader \
        -I Sources/SystemZlib "${crypto_objects[@]}" "$work"/src/*.swift -o "$work/fuzzer" \
        2> >(grep -v "Cannot export local symbol" >&2)
}

if [ "${1:-}" = replay ]; then
    for target in package init-packet catalog wire smp; do
        # A folder of its own, so that a replay never replaces the binary of a long run in progress.
        build "$target" ".fuzz/replay-$target"
        echo "fuzz replay: $target ($(ls Tests/Fuzz/Corpus/$target | wc -l) inputs)" >&2
        ".fuzz/replay-$target/fuzzer" -runs=0 -artifact_prefix=".fuzz/replay-$target/artifacts/" \
            "Tests/Fuzz/Corpus/$target" > ".fuzz/replay-$target/replay.log" 2>&1 ||
            { cat ".fuzz/replay-$target/replay.log" >&2; exit 1; }
    done
    exit 0
fi

target=${1:?usage: scripts/fuzz.sh TARGET [RUNS] [SECONDS] | replay}
runs=${2:-10000000}
seconds=${3:-0}
build "$target" ".fuzz/$target"
cp -n Tests/Fuzz/Corpus/"$target"/* ".fuzz/$target/corpus/" 2>/dev/null || true
set +e
".fuzz/$target/fuzzer" -runs="$runs" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-4096}" -print_final_stats=1 \
    -artifact_prefix=".fuzz/$target/artifacts/" ".fuzz/$target/corpus" 2>&1 | tee ".fuzz/$target/last-run.log" |
    grep -E "^(stat::|==|SUMMARY|Done|#[0-9]+ +DONE)"
status=${PIPESTATUS[0]}
set -e
crashes=$(find ".fuzz/$target/artifacts" -type f | wc -l)
echo "fuzz $target: exit $status, crash artifacts: $crashes" >&2
exit "$status"
