#!/usr/bin/env bash
# Fuzzes the Intel HEX parser with libFuzzer for SECONDS (default 60) and prints executions and crashes.
#   scripts/fuzz-hex.sh [SECONDS]
# Crashing inputs land in .fuzz/artifacts/; the corpus grows in .fuzz/corpus/ (seeded from the committed
# firmware .hex files and a few hand-made records).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
mkdir -p .fuzz/corpus .fuzz/artifacts
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HexFuzz -package-name nrfloader \
    Sources/HexConverter/*.swift Tests/Fuzz/HexFuzz.swift -o .fuzz/hex-fuzz 2> >(grep -v "Cannot export local symbol" >&2)
for f in Resources/firmware/*.hex; do head -c 4000 "$f" > ".fuzz/corpus/seed-$(basename "$f")"; done
printf ':0400000500026000F1\n:020000040002F8\n:04FFFE0001020304F9\n:00000001FF\n' > .fuzz/corpus/seed-linear
printf ':020000021000EC\n:02FFFF00AABBEB\r\n:0400000312345678E5\n:00000001FF' > .fuzz/corpus/seed-segment
export SWIFT_BACKTRACE=enable=no
set +e
.fuzz/hex-fuzz -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 -artifact_prefix=.fuzz/artifacts/ \
    .fuzz/corpus 2>&1 | tee .fuzz/last-run.log | grep -E "^(stat::|==|SUMMARY|Done|#[0-9]+ +DONE)" 
status=${PIPESTATUS[0]}
set -e
crashes=$(find .fuzz/artifacts -type f | wc -l)
echo "fuzz: exit $status, crash artifacts: $crashes" >&2
exit "$status"
