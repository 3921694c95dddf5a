#!/usr/bin/env bash
# Builds the release executable: one file with the Swift runtime linked in, which can be copied to
# any Linux machine of the same architecture (it needs only libc, libstdc++, libz and, later, libdbus).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib --product nrfloader >&2
mkdir -p bin
cp .build/release/nrfloader bin/nrfloader
strip bin/nrfloader 2>/dev/null || true
echo "built bin/nrfloader ($(du -h bin/nrfloader | cut -f1))" >&2
