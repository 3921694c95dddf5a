#!/bin/sh
# Drives an SMP device over BlueZ with smpmgr 0.19.1 (the third-party client of issue 20) through upload, test,
# reset and confirm, then smpmgr's own `upgrade` of a second image, and prints the transcript: each command after
# "$ ", then what smpmgr printed and its exit status. Used by Tests/CLITests/BlueZ/SMPManagerTests.swift against
# `nrfloader simulate --kind smp`; the committed run is Tests/Data/smp-ble/smpmgr-transcript.txt.
#
# Usage: Tests/Rig/smpmgr_session.sh ADDRESS IMAGE SECOND_IMAGE     (image paths relative to the repository root)
#   DBUS_SYSTEM_BUS_ADDRESS names the bus BlueZ (or the rig's bluezoo) is on; SMPMGR_ADAPTER the central adapter
#   (default hci0). Set up the venv first: Tests/Rig/setup-smp.sh.
# Exit status: 0 when every step succeeded, else the status of the first step that failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python="$root/.build-rig/smp-venv/bin/python"
cd "$root"
address=$1
image=$2
second=$3
failed=0

# One smpmgr command; its output with the terminal width fixed and no colour, so that runs compare.
smpmgr() {
    printf '$ smpmgr --ble %s --timeout 10 %s\n' "$address" "$*"
    output=$(COLUMNS=160 NO_COLOR=1 TERM=dumb "$python" "$here/smpmgr_rig.py" --ble "$address" --timeout 10 "$@" 2>&1)
    status=$?
    printf '%s\n(exit %s)\n\n' "$output" "$status"
    [ "$failed" -ne 0 ] || failed=$status
}

# The hash of the image in `slot` from the last state-read output.
slot_hash() {
    printf '%s\n' "$output" | awk -v slot="slot=$1," '
        index($0, slot) { found = 1 }
        found && /hash=HashBytes/ { sub(/.*HashBytes\(./, ""); sub(/.\).*/, ""); print; exit }'
}

smpmgr image state-read
smpmgr image upload "$image"
smpmgr image state-read
uploaded=$(slot_hash 1)
smpmgr image state-write "$uploaded"
smpmgr os reset
smpmgr image state-read
smpmgr image state-write --confirm
smpmgr image state-read
# smpmgr's one-step update, without --confirm: what it leaves the device in is read back after it.
smpmgr upgrade "$second"
smpmgr image state-read
exit "$failed"
