#!/usr/bin/env bash
# Installs the Debian packages nrfloader needs: `--runtime` for building and running the tool,
# `--test` for everything the test suite and benchmarks use as well, `--package` for building and checking the
# Debian package (scripts/deb.sh, scripts/deb-check.sh).
set -euo pipefail

runtime=(zlib1g-dev libdbus-1-dev pkg-config)
testing=(binutils srecord python3 python3-venv time dbus openssl)
packaging=(dpkg-dev lintian debootstrap man-db binutils python3)

case "${1:---runtime}" in
    --runtime) packages=("${runtime[@]}") ;;
    --test) packages=("${runtime[@]}" "${testing[@]}") ;;
    --package) packages=("${runtime[@]}" "${packaging[@]}") ;;
    *) echo "usage: $0 [--runtime|--test|--package]" >&2; exit 64 ;;
esac

sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi

missing=()
for package in "${packages[@]}"; do
    [[ $(dpkg-query -W -f='${Status}' "$package" 2>/dev/null) == *"install ok installed"* ]] || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
