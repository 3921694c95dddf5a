#!/usr/bin/env bash
# House rule (style.md §1): the parser and the DFU state machines import only the standard library,
# plus Checksums (standard library, zlib's CRC-32, and swift-crypto's SHA-256, which Checksums alone may import).
# No Foundation, Dispatch or Glibc there. SMP (the SMP codec and upload machine) is held to the same rule, and so is
# DeviceLink, the neutral core both protocols share (addresses, link failures, the fault plan, the clock).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for module in HexConverter DFUController Checksums SMP DeviceLink; do
    [ -d "Sources/$module" ] || continue
    allowed='Checksums|SystemZlib|Synchronization|DeviceLink'
    [ "$module" = DeviceLink ] && allowed='Synchronization'
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
# SMP stands on its own feet: no SMP module imports a DFU-named module (the pieces both protocols use live in
# DeviceLink and SerialLine).
while IFS= read -r line; do
    echo "$line: an SMP module imports a DFU-named module" >&2
    status=1
done < <(grep -rnE '^\s*(@[A-Za-z_]+\s+)?((public|internal|private|fileprivate|package)\s+)?import\s+[A-Za-z_]*DFU[A-Za-z_]*$' \
    Sources/SMP* || true)
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
# Stricter, per file: the command line is a client of the public API alone (issue 21). Each file of Sources/nrfloader
# imports only the library products' public modules, ArgumentParser and the system's modules, never an engine module,
# whose declarations are `package` (scripts/cli-as-client.sh proves the rest: that no `package` declaration is used).
cli_public="ArgumentParser Foundation FoundationEssentials Glibc Synchronization"
cli_public="$cli_public NRFLoaderKit NRFLoaderSimulator NRFLoaderSerial NRFLoaderBlueZ NRFLoaderStation"
for file in Sources/nrfloader/*.swift; do
    while IFS= read -r line; do
        module=${line##* }
        case " $cli_public " in
        *" $module "*) ;;
        *)
            echo "$file: imports $module; the command line imports only the library's public modules: $line" >&2
            status=1
            ;;
        esac
    done < <(grep -hoE '^\s*(@[A-Za-z_]+\s+)?((public|internal|private|fileprivate|package)\s+)?import\s+[A-Za-z_]+' \
        "$file" || true)
done
[ $status = 0 ] && echo "module rules: ok" >&2
exit $status
