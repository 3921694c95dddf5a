#!/usr/bin/env bash
# House rule (style.md §1): the parser and the DFU state machines import only the standard library,
# plus Checksums (standard library, zlib's CRC-32, and swift-crypto's SHA-256, which Checksums alone may import).
# No Foundation, Dispatch or Glibc there. SMP (issue 20: the SMP codec and upload machine) is held to the same rule.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for module in HexConverter DFUController Checksums SMP; do
    [ -d "Sources/$module" ] || continue
    allowed='Checksums|SystemZlib|Synchronization'
    [ "$module" = Checksums ] && allowed="$allowed|Crypto"
    while IFS= read -r line; do
        echo "Sources/$module: forbidden import: $line" >&2
        status=1
    done < <(grep -rhoE '^\s*(@[A-Za-z_]+\s+)?((public|internal|private|fileprivate|package)\s+)?import\s+[A-Za-z_]+' \
        "Sources/$module" | grep -vE "import\\s+($allowed)\$" || true)
done
# Only the D-Bus target sees libdbus's C types (issue 10): every other module reaches the bus through it.
while IFS= read -r file; do
    case "$file" in
    Sources/DBus/*) ;;
    *)
        echo "$file: imports CDBus; only Sources/DBus may" >&2
        status=1
        ;;
    esac
done < <(grep -rlE '^\s*(@[A-Za-z_]+\s+)?((public|internal|private|fileprivate|package)\s+)?import\s+CDBus$' \
    Sources Tests Benchmarks || true)
# SMP over BlueZ (issue 20) frames SMP on BlueZTransport's link methods: no D-Bus of its own, no Foundation.
while IFS= read -r line; do
    echo "Sources/SMPBlueZ: forbidden import: $line" >&2
    status=1
done < <(grep -rhoE '^\s*(@[A-Za-z_]+\s+)?((public|internal|private|fileprivate|package)\s+)?import\s+[A-Za-z_]+' \
    Sources/SMPBlueZ | grep -E 'import\s+(DBus|CDBus|BlueZ|Foundation|FoundationEssentials|Glibc|Dispatch)$' || true)
[ $status = 0 ] && echo "module rules: ok" >&2
exit $status
