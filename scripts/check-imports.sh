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
# The command line is a client of the library (issue 21): it imports the modules of the library products (their
# public API, and the `package` declarations of the engine modules they carry), ArgumentParser, and the system's
# modules; nothing else (no module outside a product, such as BuildInfo). The products are read from Package.swift.
library_modules=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
print(" ".join(sorted({t for p in package["products"] if "library" in p["type"] for t in p["targets"]})))
')
cli_allowed="ArgumentParser Glibc Foundation FoundationEssentials Synchronization $library_modules"
while IFS= read -r line; do
    module=${line##* }
    case " $cli_allowed " in
    *" $module "*) ;;
    *)
        echo "Sources/nrfloader: imports $module, which is not a module of a library product: $line" >&2
        status=1
        ;;
    esac
done < <(grep -rhoE '^\s*(@[A-Za-z_]+\s+)?((public|internal|private|fileprivate|package)\s+)?import\s+[A-Za-z_]+' \
    Sources/nrfloader || true)
[ $status = 0 ] && echo "module rules: ok" >&2
exit $status
