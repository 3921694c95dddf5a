#!/usr/bin/env bash
# Recreates the reference outputs in this folder with the vendors' tools (see README.md). The committed files are
# the reference; Tests/CLITests/PackageCommandTests.swift compares `nrfloader package` with them.
#   python3.10 -m venv /tmp/nrfutil617 && /tmp/nrfutil617/bin/pip install nrfutil==6.1.7
#   python3.11 -m venv /tmp/adafruit && /tmp/adafruit/bin/pip install adafruit-nrfutil==0.5.3.post16
#   NRFUTIL=/tmp/nrfutil617/bin/nrfutil ADAFRUIT_NRFUTIL=/tmp/adafruit/bin/adafruit-nrfutil \
#       Tests/Data/package-builder/make.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
NRFUTIL=${NRFUTIL:-nrfutil}
ADAFRUIT_NRFUTIL=${ADAFRUIT_NRFUTIL:-adafruit-nrfutil}
"$NRFUTIL" version | grep -q 'version 6.1.7$' || { echo "make.sh: need nrfutil 6.1.7 as \$NRFUTIL" >&2; exit 1; }
"$ADAFRUIT_NRFUTIL" version | grep -q 'version 0.5.3.post16$' ||
    { echo "make.sh: need adafruit-nrfutil 0.5.3.post16 as \$ADAFRUIT_NRFUTIL" >&2; exit 1; }

d=Tests/Data/package-builder
key=Tests/Data/packages/nrfutil-test-key.pem
python3 $d/make-inputs.py $d
rm -f $d/*.zip
run() { echo "+ $*" | sed -e "s|$NRFUTIL |nrfutil |" -e "s|$ADAFRUIT_NRFUTIL |adafruit-nrfutil |"; "$@" </dev/null >/dev/null; }

run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x124,0x101,0xB6 --application-version-string 1.2.3 \
    --application $d/app-gaps-mbr-uicr.hex $d/nrfutil-gaps.zip
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --softdevice $d/s132-like-sd.hex \
    --sd-boot-validation VALIDATE_GENERATED_SHA256 $d/nrfutil-sd.zip
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --softdevice $d/plain-sd.hex $d/nrfutil-plain-sd.zip
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x00 --bootloader $d/bootloader.hex --bootloader-version 3 \
    $d/nrfutil-bl.zip
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --sd-id 0x0124,0x0101 --softdevice $d/plain-sd.hex \
    --application $d/app-gaps-mbr-uicr.hex --application-version 0x010203 $d/nrfutil-sd-app.zip
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --sd-id 0x0124 --softdevice $d/s132-like-sd.hex \
    --bootloader $d/bootloader.hex --bootloader-version 2 --application $d/app-raw.bin --application-version 9 \
    --app-boot-validation NO_VALIDATION $d/nrfutil-sd-bl-app.zip
run "$NRFUTIL" pkg generate --hw-version 52 --external-app --application $d/app-raw.bin --application-version 5 \
    $d/nrfutil-external.zip
run "$NRFUTIL" pkg generate --debug-mode --application $d/app-gaps-mbr-uicr.hex $d/nrfutil-debug-defaults.zip
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --sd-id 0x0101 --softdevice $d/s132-like-sd.hex \
    --bootloader $d/bootloader.hex --bootloader-version 1 --sd-boot-validation VALIDATE_ECDSA_P256_SHA256 \
    --key-file $key $d/nrfutil-sd-bl-ecdsa-signed.zip

run "$ADAFRUIT_NRFUTIL" dfu genpkg --dev-type 0x0052 --application-version 3 --sd-req 0x0101,0x00B6 \
    --application $d/app-gaps-mbr-uicr.hex $d/adafruit-gaps.zip
run "$ADAFRUIT_NRFUTIL" dfu genpkg --dfu-ver 0.6 --sd-req none --softdevice $d/s132-like-sd.hex \
    --bootloader $d/bootloader.hex $d/adafruit-sd-bl-dfu06.zip
run "$ADAFRUIT_NRFUTIL" dfu genpkg --dev-revision 7 --application $d/app-raw.bin $d/adafruit-raw-bin.zip

(cd $d && sha256sum -- *.zip)
