#!/bin/sh
# Sets up the BlueZ test rig: Debian's dbus-daemon and libdbus headers, and a Python venv with the pinned
# bluezoo stand-in at .build-rig/venv (git-ignored). Idempotent; the BlueZTransport integration tests skip
# themselves when the venv is missing.
#
# Usage: Tests/Rig/setup.sh            (from anywhere)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="$root/.build-rig/venv"

missing=""
command -v dbus-daemon >/dev/null 2>&1 || missing="$missing dbus"
[ -f /usr/include/dbus-1.0/dbus/dbus.h ] || missing="$missing libdbus-1-dev"
/usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing="$missing python3-venv"
if [ -n "$missing" ]; then
    echo "rig: installing$missing" >&2
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq $missing
fi

# Debian's interpreter, not whatever a version manager puts first on PATH: the venv must outlive shells.
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

stamp="$venv/.requirements"
if [ -f "$stamp" ] && cmp -s "$stamp" "$here/requirements.txt"; then
    echo "rig: $venv is up to date" >&2
    exit 0
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: -r "$here/requirements.txt"
"$venv/bin/python" -c 'import bluezoo, sdbus' 
cp "$here/requirements.txt" "$stamp"
echo "rig: ready at $venv" >&2
