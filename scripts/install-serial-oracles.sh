#!/usr/bin/env bash
# Installs the reference serial DFU tools the committed transcripts were made with, outside the repository:
# nrfutil 6.1.7 (needs Python 3.10) and adafruit-nrfutil 0.5.3.post16 (Python 3.11), each in its own venv.
# The tests do not need them (they compare against Tests/Data/serial); scripts/serial-throughput.sh does.
#
# Usage: scripts/install-serial-oracles.sh [DIR]   (default /work/venvs-serial; pyenv's Pythons are used)
set -euo pipefail
dir=${1:-/work/venvs-serial}
mkdir -p "$dir"
python310=$(compgen -G "${PYENV_ROOT:-$HOME/.pyenv}/versions/3.10*/bin/python" | sed -n 1p || true)
python311=$(compgen -G "${PYENV_ROOT:-$HOME/.pyenv}/versions/3.11*/bin/python" | sed -n 1p || true)
[ -n "$python310" ] && [ -n "$python311" ] || { echo "install-serial-oracles: pyenv Python 3.10 and 3.11 needed" >&2; exit 69; }
[ -x "$dir/nrfutil/bin/nrfutil" ] || { "$python310" -m venv "$dir/nrfutil" && "$dir/nrfutil/bin/pip" install -q nrfutil==6.1.7; }
[ -x "$dir/adafruit/bin/adafruit-nrfutil" ] || {
    "$python311" -m venv "$dir/adafruit" && "$dir/adafruit/bin/pip" install -q adafruit-nrfutil==0.5.3.post16
}
echo "nrfutil: $dir/nrfutil/bin/nrfutil; adafruit-nrfutil: $dir/adafruit/bin/adafruit-nrfutil"
