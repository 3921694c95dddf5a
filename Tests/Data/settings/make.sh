#!/usr/bin/env bash
# Recreates the reference settings pages in this folder with nrfutil 6.1.7 (see README.md), from the inputs in
# Tests/Data/package-builder. NRFUTIL=/path/to/nrfutil Tests/Data/settings/make.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
NRFUTIL=${NRFUTIL:-nrfutil}
"$NRFUTIL" version | grep -q 'version 6.1.7$' || { echo "make.sh: need nrfutil 6.1.7 as \$NRFUTIL" >&2; exit 1; }
d=Tests/Data/settings
i=Tests/Data/package-builder
gen() { name=$1; shift; echo "+ nrfutil settings generate $* $d/$name.hex"
    "$NRFUTIL" settings generate "$@" "$d/$name.hex" </dev/null >/dev/null
    "$NRFUTIL" settings display "$d/$name.hex" </dev/null >"$d/$name.display.txt" 2>&1 || echo "exit status $?" >>"$d/$name.display.txt"; }
gen nrf52-v2-app-sd --family NRF52 --application $i/app-gaps-mbr-uicr.hex --application-version 3 \
    --bootloader-version 2 --bl-settings-version 2 --softdevice $i/s132-like-sd.hex
gen nrf52840-v2-sha-nobackup --family NRF52840 --application $i/app-gaps-mbr-uicr.hex --application-version 0x10 \
    --bootloader-version 7 --bl-settings-version 2 --app-boot-validation VALIDATE_GENERATED_SHA256 \
    --softdevice $i/plain-sd.hex --sd-boot-validation NO_VALIDATION --no-backup
gen nrf51-v1-bin --family NRF51 --application $i/app-raw.bin --application-version-string 1.2.3 \
    --bootloader-version 1 --bl-settings-version 1
gen nrf52qfab-v1-empty --family NRF52QFAB --bootloader-version 4 --bl-settings-version 1 --start-address 0x3E000
gen nrf52810-v2-app --family NRF52810 --application $i/app-raw.bin --application-version 1 --bootloader-version 1 \
    --bl-settings-version 2
(cd $d && sha256sum -- *.hex *.txt)
