#!/bin/sh
# Sets up the third-party SMP client of issue 20: smpmgr 0.19.1 / smpclient 7.3.0 (bleak underneath) in a venv at
# .build-rig/smp-venv (git-ignored), pinned by Tests/Rig/smp-requirements.txt. Idempotent; the test that drives
# `nrfloader simulate --kind smp` with smpmgr (SMPManagerTests) skips itself when the venv is missing.
#
# Python 3.11 (smpmgr needs 3.10 or later): pyenv's 3.11 when there is one, else Debian 12's python3 (3.11.2).
#
# Usage: Tests/Rig/setup-smp.sh            (from anywhere)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="$root/.build-rig/smp-venv"

python=""
for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.11*/bin/python /usr/bin/python3; do
    [ -x "$candidate" ] || continue
    if "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1; then
        python=$candidate
        break
    fi
done
if [ -z "$python" ]; then
    echo "rig: no Python 3.10+ with venv for smpmgr (pyenv 3.11 or Debian's python3-venv)" >&2
    exit 69
fi

stamp="$venv/.requirements"
if [ -f "$stamp" ] && cmp -s "$stamp" "$here/smp-requirements.txt"; then
    echo "rig: $venv is up to date" >&2
    exit 0
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/smp-requirements.txt"
"$venv/bin/python" -c 'import smpmgr, smpclient, bleak'
cp "$here/smp-requirements.txt" "$stamp"
echo "rig: smpmgr ready at $venv" >&2
