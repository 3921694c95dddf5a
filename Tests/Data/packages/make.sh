#!/usr/bin/env bash
# Recreates the reference DFU packages in this folder from the example firmware, with the vendors' own tools.
# The committed files are the reference; this script records how they were made (see README.md for why a rerun
# does not give the same bytes).
#
# Needs Nordic's nrfutil 6.1.7 (Python 3.7-3.10) and adafruit-nrfutil 0.5.3.post16, e.g.:
#   python3.10 -m venv /tmp/nrfutil617 && /tmp/nrfutil617/bin/pip install nrfutil==6.1.7
#   python3.11 -m venv /tmp/adafruit && /tmp/adafruit/bin/pip install adafruit-nrfutil==0.5.3.post16
#   NRFUTIL=/tmp/nrfutil617/bin/nrfutil ADAFRUIT_NRFUTIL=/tmp/adafruit/bin/adafruit-nrfutil Tests/Data/packages/make.sh
#
# Every command runs from the repository root, so the command lines here are the ones README.md lists.
set -euo pipefail

cd "$(dirname "$0")/../../.."
NRFUTIL=${NRFUTIL:-nrfutil}
ADAFRUIT_NRFUTIL=${ADAFRUIT_NRFUTIL:-adafruit-nrfutil}

"$NRFUTIL" version | grep -q 'version 6.1.7$' || { echo "make.sh: need nrfutil 6.1.7 as \$NRFUTIL" >&2; exit 1; }
"$ADAFRUIT_NRFUTIL" version | grep -q 'version 0.5.3.post16$' ||
    { echo "make.sh: need adafruit-nrfutil 0.5.3.post16 as \$ADAFRUIT_NRFUTIL" >&2; exit 1; }

out=Tests/Data/packages
key=$out/nrfutil-test-key.pem
blinky=Resources/firmware/blinky-pca10040.hex
selftest=Resources/firmware/selftest-pca10040.hex

run() {
    echo "+ $*" | sed -e "s|^+ $NRFUTIL |+ nrfutil |" -e "s|^+ $ADAFRUIT_NRFUTIL |+ adafruit-nrfutil |"
    "$@" </dev/null >/dev/null
}

# The key is made once and kept: a new key would change every signature and the tests' public key.
if [ ! -f "$key" ]; then
    run "$NRFUTIL" keys generate "$key"
fi
run "$NRFUTIL" keys display --key pk --format pem --out_file "$out/nrfutil-test-key.pub.pem" "$key"
run "$NRFUTIL" keys display --key pk --format code --out_file "$out/nrfutil-test-key.pub.c" "$key"
run "$NRFUTIL" keys display --key pk --format hex --out_file "$out/nrfutil-test-key.pub.hex" "$key"

# nrfutil 6.1.7, Secure DFU (protobuf init packets).
rm -f "$out"/nrfutil617-*.zip "$out"/adafruit-*.zip
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --application-version 1 \
    --application "$blinky" --key-file "$key" "$out/nrfutil617-blinky-signed.zip"
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --application-version 1 \
    --application "$blinky" "$out/nrfutil617-blinky-unsigned.zip"
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101,0x0124 --application-version 1 \
    --application "$blinky" --key-file "$key" "$out/nrfutil617-blinky-sdreq2-signed.zip"
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --application-version 7 --debug-mode \
    --application "$blinky" --key-file "$key" "$out/nrfutil617-blinky-debug-signed.zip"
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --application-version 1 \
    --app-boot-validation VALIDATE_ECDSA_P256_SHA256 \
    --application "$blinky" --key-file "$key" "$out/nrfutil617-blinky-ecdsa-boot-signed.zip"
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --application-version 2 \
    --application "$selftest" --key-file "$key" "$out/nrfutil617-selftest-signed.zip"
# Multi-part: SoftDevice + bootloader, then the application. The SoftDevice (12 KiB at 0x1000) and bootloader
# (6 KiB at 0x78000) are seeded random bytes: the package's shape matters here, not their contents.
scratch=$(mktemp -d)
python3 -c "import random, sys; r = random.Random(7)
for name, size in (('sd', 12288), ('bl', 6144)): open(sys.argv[1] + '/' + name + '.bin', 'wb').write(r.randbytes(size))" "$scratch"
objcopy -I binary -O ihex --change-addresses 0x1000 "$scratch/sd.bin" "$scratch/sd.hex"
objcopy -I binary -O ihex --change-addresses 0x78000 "$scratch/bl.bin" "$scratch/bl.hex"
run "$NRFUTIL" pkg generate --hw-version 52 --sd-req 0x0101 --sd-id 0x0101 --softdevice "$scratch/sd.hex" \
    --bootloader "$scratch/bl.hex" --bootloader-version 2 --application "$blinky" --application-version 1 \
    --key-file "$key" "$out/nrfutil617-sd-bl-app-signed.zip"
rm -rf "$scratch"

# adafruit-nrfutil 0.5.3.post16, legacy DFU (packed init packets). --dfu-ver 0.7 and signed 0.8 fail in this
# version on Python 3 (README.md quotes the errors), so only 0.5 and 0.6 are here.
run "$ADAFRUIT_NRFUTIL" dfu genpkg --dev-type 0x0052 --dev-revision 0x0001 --application-version 1 \
    --sd-req 0x0101 --application "$blinky" "$out/adafruit-blinky-dfu05.zip"
run "$ADAFRUIT_NRFUTIL" dfu genpkg --dfu-ver 0.6 --dev-type 0x0052 --dev-revision 0x0001 \
    --application-version 1 --sd-req 0x0101 --application "$blinky" "$out/adafruit-blinky-dfu06.zip"
run "$ADAFRUIT_NRFUTIL" dfu genpkg --application "$blinky" "$out/adafruit-blinky-defaults.zip"
run "$ADAFRUIT_NRFUTIL" dfu genpkg --dev-type 0x0052 --dev-revision 0xABCD --application-version 0x01020304 \
    --sd-req 0x00B6,0x0101 --application "$selftest" "$out/adafruit-selftest-dfu05.zip"

(cd "$out" && sha256sum -- *.zip)
