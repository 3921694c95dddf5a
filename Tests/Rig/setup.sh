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

# install_venv VENV REQUIREMENTS CHECK PIP_ARGS...: (re)creates VENV unless it holds exactly REQUIREMENTS.
install_venv() {
    target=$1 requirements=$2 check=$3
    shift 3
    if [ -f "$target/.requirements" ] && cmp -s "$target/.requirements" "$requirements"; then
        echo "rig: $target is up to date" >&2
        return 0
    fi
    rm -rf "$target"
    "$python" -m venv "$target"
    "$target/bin/pip" install --quiet --disable-pip-version-check "$@" -r "$requirements"
    "$target/bin/python" -c "$check"
    cp "$requirements" "$target/.requirements"
    echo "rig: ready at $target" >&2
}

install_venv "$venv" "$here/requirements.txt" 'import bluezoo, sdbus' --only-binary=:all:
# smp's crcmod comes as a source distribution only (it builds its pure-Python fallback without a compiler).
install_venv "$root/.build-rig/smp-venv" "$here/smp-requirements.txt" 'import smpclient, smp' \
    --only-binary=:all: --no-binary=crcmod
