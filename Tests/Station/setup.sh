#!/bin/sh
# Sets up the station's browser and API checks: Debian's chromium (Playwright's own browser download is not
# reachable here, so Playwright drives the system's), wrk for the catalog benchmark, and Playwright for Python plus
# schemathesis in a venv at .build-rig/station-venv (git-ignored), pinned by Tests/Station/requirements.txt.
# Idempotent.
#
# Usage: Tests/Station/setup.sh            (from anywhere)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="$root/.build-rig/station-venv"

missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v wrk >/dev/null 2>&1 || missing="$missing wrk"
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >&2
    else
        DEBIAN_FRONTEND=noninteractive sudo apt-get install -y --no-install-recommends $missing >&2
    fi
fi

stamp="$venv/.requirements"
if [ -f "$stamp" ] && cmp -s "$stamp" "$here/requirements.txt"; then
    echo "station: $venv is up to date" >&2
    exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -c 'import playwright.sync_api, schemathesis'
cp "$here/requirements.txt" "$stamp"
echo "station: Playwright and schemathesis ready at $venv" >&2
