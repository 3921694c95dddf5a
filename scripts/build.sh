#!/usr/bin/env bash
# Builds the release executable: one file with the Swift runtime linked in, which can be copied to
# any Linux machine of the same architecture (it needs only libc, libstdc++, libz and, later, libdbus).
#
# It records the commit it builds (`nrfloader --version`): .build-info/commit holds the abbreviated commit, with
# `-dirty` when tracked files differ from it, for Sources/BuildInfo to embed; the file is removed afterwards so that
# no other build can print a commit it was not built from. Outside git the version says "unknown commit".
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-info
trap 'rm -f .build-info/commit' EXIT
if commit=$(git rev-parse --short=7 HEAD 2>/dev/null); then
    git diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"
    printf '%s\n' "$commit" > .build-info/commit
else
    rm -f .build-info/commit
fi
# The embed is read at compile time only: make the build compile it again, whatever it saw last time.
touch Sources/BuildInfo/build_info.c
swift build -c release --static-swift-stdlib --product nrfloader >&2
mkdir -p bin
cp .build/release/nrfloader bin/nrfloader
strip --remove-section=.comment bin/nrfloader 2>/dev/null || true
echo "built bin/nrfloader ($(du -h bin/nrfloader | cut -f1)): $(bin/nrfloader --version)" >&2
