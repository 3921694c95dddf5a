#!/usr/bin/env bash
# Proves that the command line is a client of the public library only: Sources/nrfloader, copied unchanged into
# a package of its own that depends on this checkout by path (the library products NRFLoaderKit, NRFLoaderSimulator,
# NRFLoaderSerial, NRFLoaderBlueZ) and on swift-argument-parser 1.8.2, must build, and the binary it makes must print
# what this package's own nrfloader prints (stdout, stderr, exit status) for `list`, `upload --target sim`,
# `upload --target sim:smp` and `convert`.
#
# Outside this package the engine's `package` declarations are invisible, so a CLI file that still uses one fails to
# build there; the script names every such file (and every file that imports an engine module) before failing.
#
# Usage: scripts/cli-as-client.sh       (after `swift build --product nrfloader`, or it builds it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
started=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/nrfloader-client.XXXXXX")
trap 'rm -rf "$work"' EXIT

# 1. Files that import a module no library product makes public (the engine's modules, BuildInfo).
allowed='ArgumentParser|Foundation|FoundationEssentials|Glibc|Synchronization|NRFLoaderKit|NRFLoaderSimulator|NRFLoaderSerial|NRFLoaderBlueZ|NRFLoaderStation'
engine_files=$(grep -lE "^\s*(@[A-Za-z_]+\s+)?((public|internal|private|fileprivate|package)\s+)?import\s+" \
    Sources/nrfloader/*.swift | while IFS= read -r file; do
    modules=$(grep -hoE '^\s*(@[A-Za-z_]+\s+)?((public|internal|private|fileprivate|package)\s+)?import\s+[A-Za-z_]+' \
        "$file" | awk '{print $NF}' | grep -vxE "$allowed" | tr '\n' ' ' || true)
    [ -n "$modules" ] && echo "  $file: imports ${modules% }"
done || true)

# 2. The client package: the CLI's sources unchanged, this checkout by path, the same pins (Package.resolved).
mkdir -p "$work/Sources"
cp -R Sources/nrfloader "$work/Sources/nrfloader"
[ -f Package.resolved ] && cp Package.resolved "$work/Package.resolved"
cat >"$work/Package.swift" <<EOF
// swift-tools-version:6.1
// nrfloader's command line as a client of the library products alone (scripts/cli-as-client.sh).
import PackageDescription

let package = Package(
    name: "nrfloader-client",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "nrfloader", path: "$root"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        // Not named nrfloader: the dependency's own executable target has that name.
        .executableTarget(
            name: "nrfloader-client",
            dependencies: [
                .product(name: "NRFLoaderKit", package: "nrfloader"),
                .product(name: "NRFLoaderSimulator", package: "nrfloader"),
                .product(name: "NRFLoaderSerial", package: "nrfloader"),
                .product(name: "NRFLoaderBlueZ", package: "nrfloader"),
                .product(name: "NRFLoaderStation", package: "nrfloader"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/nrfloader",
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        )
    ]
)
EOF

# 3. Build it in this package's scratch folder (as scripts/examples.sh does): the engine this package's own build
# compiled is reused.
log="$work/build.log"
if ! (cd "$work" && swift build --scratch-path "$root/.build" --product nrfloader-client) >"$log" 2>&1; then
    echo "cli-as-client: Sources/nrfloader does not build as a client of the library products" >&2
    [ -n "$engine_files" ] && printf 'files importing modules outside the library products:\n%s\n' "$engine_files" >&2
    echo "files using declarations the library does not make public (package, or from an engine module):" >&2
    grep -oE "Sources/nrfloader/[^:]+\.swift:[0-9]+:[0-9]+: error: .*" "$log" | sed "s|^.*Sources/nrfloader/||" | sort -t: -k1,1 -k2,2n -k3,3n -u |
        awk -F: '{ count[$1]++; if (!($1 in first)) first[$1] = $0 } END { for (f in count) printf "  %s (%d errors), first: %s\n", f, count[f], first[f] }' |
        sort >&2
    grep -qE "error:" "$log" || tail -n 20 "$log" >&2
    exit 1
fi
client="$(cd "$work" && swift build --scratch-path "$root/.build" --show-bin-path)/nrfloader-client"
echo "cli-as-client: built in $((SECONDS - started)) s" >&2
[ -n "$engine_files" ] && printf 'cli-as-client: warning: it builds, but these files import engine modules:\n%s\n' \
    "$engine_files" >&2

# 4. The same commands through both binaries: stdout, stderr and exit status must match byte for byte.
swift build --product nrfloader >/dev/null
own="$(swift build --show-bin-path)/nrfloader"
mcuboot=$("$own" list --json | python3 -c '
import json, sys
print(next(entry["id"] for entry in json.load(sys.stdin)["firmware"] if entry["dfu"]["mcuboot"] is not None))
')
# An image that converts (two regions), and one that does not (data below the window and in UICR, exit 65).
hex=Tests/Data/package-builder/s132-like-sd.hex
gaps=Tests/Data/package-builder/app-gaps-mbr-uicr.hex
status=0
run() { # name, then the arguments; compares the two binaries' output
    local name=$1
    shift
    local a="$work/own-$name" b="$work/client-$name" own_status=0 client_status=0
    mkdir -p "$a" "$b"
    (cd "$a" && "$own" "$@" >stdout 2>stderr) || own_status=$?
    (cd "$b" && "$client" "$@" >stdout 2>stderr) || client_status=$?
    for stream in stdout stderr; do
        if ! cmp -s "$a/$stream" "$b/$stream"; then
            echo "cli-as-client: '$name' differs on $stream:" >&2
            diff "$a/$stream" "$b/$stream" | head -n 20 >&2 || true
            status=1
        fi
    done
    if [ "$own_status" != "$client_status" ]; then
        echo "cli-as-client: '$name' exits $client_status, the package's own binary $own_status" >&2
        status=1
    fi
    for file in "$a"/*; do
        case $(basename "$file") in stdout | stderr) continue ;; esac
        cmp -s "$file" "$b/$(basename "$file")" || {
            echo "cli-as-client: '$name' writes a different $(basename "$file")" >&2
            status=1
        }
    done
    echo "cli-as-client: $name: exit $own_status, $(wc -l <"$a/stdout") lines on stdout" >&2
}
run list list
run list-json list --json
run upload-sim upload --target sim blinky-pca10040
run upload-smp upload --target sim:smp "$mcuboot"
run convert convert "$root/$hex" -o out.bin
run convert-stdout convert "$root/$hex" -o -
run convert-failure convert "$root/$gaps" -o out.bin
[ $status = 0 ] && echo "cli-as-client: ok in $((SECONDS - started)) s" >&2
exit $status
