#!/bin/bash
# Guest side of the real-bluetoothd tier (scripts/vm-tier.sh copies it into the VM's work share and
# Tests/VM/init runs it chrooted into the host userland). Starts a system dbus-daemon, btvirt with four
# linked controllers and bluetoothd 5.66, then runs the scenarios of $W/config with the copied
# nrfloader: `upload` on hci0 against `simulate` on hci1 (00:AA:01:01:00:01). hci2 sits at hci1's address + 1
# (00:AA:01:01:00:02, given by btvirt-address.so, see there), where `simulate` moves a buttonless device's
# bootloader; hci3 is the fleet scenario's second central. Writes one line per scenario to $W/results.tsv:
# "pass|fail<TAB>round<TAB>name<TAB>seconds<TAB>detail"; prints the logs of a failed scenario.
set -u
W=/tmp/vmwork
# shellcheck source=/dev/null
. "$W/config"
# The binary runs from the guest's tmpfs: read once over 9p, not page by page at every start.
NRF=/tmp/nrfloader
cp "$W/nrfloader" "$NRF"
DATA=$W/data
LOGS=$W/logs
RESULTS=$W/results.tsv
mkdir -p "$LOGS"
: >"$RESULTS"
export NO_COLOR=1

note() { echo "vm-tier[guest $(cut -d' ' -f1 /proc/uptime)s]: $*"; }

# wait_for SECONDS COMMAND...: runs COMMAND until it succeeds; fails once SECONDS have passed.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

setup_failed() {
	note "setup failed: $*"
	echo "fail	0	setup	0	$*" >>"$RESULTS"
	for f in "$LOGS"/btvirt.log "$LOGS"/bluetoothd.log; do
		[ -f "$f" ] && { echo "--- tail of $f"; tail -n 40 "$f"; }
	done
	exit 1
}

powered() { btmgmt --index "$1" info 2>/dev/null | grep -q 'current settings: powered'; }
controller_address() { btmgmt --index "$1" info 2>/dev/null | awk '/addr /{print $2; exit}'; }

# --- the stack
mkdir -p /run/dbus /var/lib/bluetooth
dbus-daemon --system --fork --nopidfile || setup_failed "dbus-daemon --system did not start"
# btvirt's third controller (00:AA:01:02:00:02 to btvirt) is 00:AA:01:01:00:02 to the kernel and bluetoothd.
# hci3 is a second central, for the fleet scenario (btvirt cannot carry two links of one central, see there).
LD_PRELOAD=$W/btvirt-address.so BTVIRT_ADDRESS=00:AA:01:02:00:02=00:AA:01:01:00:02 btvirt -l4 \
	>"$LOGS/btvirt.log" 2>&1 &
wait_for 30 test -e /sys/class/bluetooth/hci3 || setup_failed "btvirt -l4 gave no hci3"
HCI0=$(controller_address 0)
HCI1=$(controller_address 1)
HCI2=$(controller_address 2)
[ "$HCI1" = 00:AA:01:01:00:01 ] && [ "$HCI2" = 00:AA:01:01:00:02 ] ||
	setup_failed "hci1 is $HCI1 and hci2 $HCI2, not 00:AA:01:01:00:01 and its address + 1"
# btmon runs in every boot: a failed scenario keeps its slice of the HCI/MGMT trace (btmon.log in its directory).
btmon -T >"$LOGS/btmon.log" 2>&1 &
# start_bluetoothd: starts bluetoothd (appending to its log) and waits until both adapters are powered.
start_bluetoothd() {
	/usr/libexec/bluetooth/bluetoothd -n -d -f "$W/main.conf" >>"$LOGS/bluetoothd.log" 2>&1 &
	BLUETOOTHD=$!
	local index
	for index in 0 1 2 3; do
		wait_for 60 powered "$index" || return 1
	done
	kill -0 "$BLUETOOTHD" 2>/dev/null
}
start_bluetoothd || setup_failed "bluetoothd did not start, or did not power hci0 to hci3 within 60 s"
note "ready: bluetoothd $(/usr/libexec/bluetooth/bluetoothd -v), hci0 $HCI0, hci1 $HCI1, hci2 $HCI2, hci3 $(controller_address 3)"
note "nrfloader: $("$NRF" --version 2>&1)"

# --- one scenario's processes
SIM_PIDS=
SIM_OUT=
SIM_COUNT=0
DIR=
DETAIL=

# start_sim ADAPTER EXIT_AFTER ARGS...: starts `simulate` (saving into $DIR/${IMAGES:-images}) and waits for its
# ready line. An empty EXIT_AFTER runs it until stop_sim.
start_sim() {
	local adapter=$1 exits=$2
	shift 2
	# Each start in a scenario has its own logs: sim1.out, sim1.err, sim2.out, …
	SIM_COUNT=$((SIM_COUNT + 1))
	SIM_OUT=$DIR/sim$SIM_COUNT.out
	mkdir -p "$DIR/${IMAGES:-images}"
	"$NRF" simulate --adapter "$adapter" --save-images "$DIR/${IMAGES:-images}" ${exits:+--exit-after "$exits"} "$@" \
		>"$SIM_OUT" 2>"$DIR/sim$SIM_COUNT.err" &
	SIM_PIDS="$SIM_PIDS $!"
	if ! wait_for 180 grep -q '^ready' "$SIM_OUT"; then
		DETAIL="simulate on $adapter not ready after 180 s"
		return 1
	fi
}

# stop_sim SECONDS: waits that long for every `simulate` to exit by itself (--exit-after), then interrupts it.
stop_sim() {
	local pid
	for pid in $SIM_PIDS; do
		if ! wait_for "${1:-30}" eval '! kill -0 "$pid" 2>/dev/null'; then
			kill -INT "$pid" 2>/dev/null
			wait_for 10 eval '! kill -0 "$pid" 2>/dev/null' || kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null
	done
	SIM_PIDS=
}

# activations N: true once `simulate` reported N activations.
activations() { [ "$(grep -c '^activated' "$SIM_OUT" 2>/dev/null)" -ge "$1" ]; }

# upload NAME ARGS...: `nrfloader upload --adapter hci0 --json ARGS`, stdout lines stamped with the time.
upload() {
	local name=$1
	shift
	local status
	echo "\$ nrfloader upload --adapter hci0 --json $*" >"$DIR/$name.cmd"
	${CPU_LOG:+/usr/bin/time -o "$CPU_LOG" -f "%U %S"} timeout -s INT 240 "$NRF" upload --adapter hci0 --json "$@" \
		2>"$DIR/$name.err" |
		while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$DIR/$name.out"
	status=${PIPESTATUS[0]}
	if [ "$status" != 0 ]; then
		DETAIL="upload exited $status: $(tail -n 1 "$DIR/$name.err")"
		return 1
	fi
}

# same EXPECTED SAVED...: the concatenation of the SAVED images (in $DIR/${IMAGES:-images}) equals EXPECTED byte for
# byte.
same() {
	local expected=$1 images=$DIR/${IMAGES:-images}
	shift
	local saved
	for saved in "$@"; do
		[ -f "$images/$saved" ] || {
			DETAIL="simulate saved no ${images#"$DIR"/}/$saved"
			return 1
		}
	done
	if ! (cd "$images" && cat "$@") | cmp -s - "$expected"; then
		DETAIL="saved $* differs from $(basename "$expected")"
		return 1
	fi
}

# --- the scenarios; each returns 0 only when every image the device activated is the input's. The
# 129 KiB self-test image where the transfer itself is tested, the 604-byte blinky where finding and
# connecting are (TCG makes every transferred kilobyte slow).
# The packages' SoftDevice requirement (0x0101, S132 7.2.0); `simulate` defaults to 0xA8 for Secure.
SD=(--sd-id 0x0101)
SELFTEST_ZIP=$DATA/nrfutil617-selftest-signed.zip
SELFTEST_BIN=$DATA/nrfutil617-selftest-signed/selftest-pca10040.bin
BLINKY_ZIP=$DATA/nrfutil617-blinky-signed.zip
BLINKY_BIN=$DATA/nrfutil617-blinky-signed/blinky-pca10040.bin
SD_BL_APP=$DATA/nrfutil617-sd-bl-app-signed

scenario_secure() {
	start_sim hci1 1 "${SD[@]}" && upload upload --target "$HCI1" "$SELFTEST_ZIP" && wait_for 30 activations 1 &&
		same "$SELFTEST_BIN" application.bin
}

scenario_secure_no_acquire() {
	start_sim hci1 1 "${SD[@]}" --no-acquire && upload upload --no-acquire --target "$HCI1" "$SELFTEST_ZIP" &&
		wait_for 30 activations 1 && same "$SELFTEST_BIN" application.bin
}

scenario_secure_catalog() {
	start_sim hci1 1 && upload upload --target "$HCI1" selftest-pca10040 && wait_for 30 activations 1 &&
		same "$DATA/firmware/selftest-pca10040.bin" application.bin
}

scenario_sd_bl_app() {
	# simulate reports the SoftDevice+bootloader part as two activations, then the application's.
	start_sim hci1 3 "${SD[@]}" --key "$DATA/nrfutil-test-key.pub.pem" &&
		upload upload --target "$HCI1" "$SD_BL_APP.zip" && wait_for 30 activations 3 &&
		same "$SD_BL_APP/sd_bl.bin" softdevice.bin bootloader.bin &&
		same "$SD_BL_APP/blinky-pca10040.bin" application.bin
}

scenario_legacy() {
	start_sim hci1 1 --kind legacy --sd-id 0x0101 &&
		upload upload --target "$HCI1" "$DATA/adafruit-blinky-dfu05.zip" && wait_for 30 activations 1 &&
		same "$DATA/adafruit-blinky-dfu05/blinky-pca10040.bin" application.bin
}

scenario_legacy_catalog() {
	start_sim hci1 1 --kind legacy && upload upload --dfu legacy --target "$HCI1" blinky-pca10028 &&
		wait_for 30 activations 1 && same "$DATA/firmware/blinky-pca10028.bin" application.bin
}

# at_plus_one: `simulate` served the bootloader on hci2, at the application's address + 1.
at_plus_one() {
	grep -q "^advertising: secure bootloader .* on hci2 ($HCI2)" "$SIM_OUT" && return 0
	DETAIL="simulate did not move the bootloader to hci2 ($HCI2)"
	return 1
}

scenario_buttonless() {
	start_sim hci1 1 "${SD[@]}" --kind buttonless && upload upload --target "$HCI1" "$BLINKY_ZIP" &&
		wait_for 30 activations 1 && at_plus_one && same "$BLINKY_BIN" application.bin
}

# Two updates of one device in a row: after the first, bluetoothd holds the device's object with the services of
# that connection. A buttonless device, because a plain bootloader boots an application without any DFU service
# once it has activated an image, so a second session to it cannot succeed on any stack.
scenario_two_sessions() {
	start_sim hci1 2 "${SD[@]}" --kind buttonless && upload first --target "$HCI1" "$BLINKY_ZIP" && wait_for 30 activations 1 &&
		same "$BLINKY_BIN" application.bin &&
		upload second --target "$HCI1" "$SELFTEST_ZIP" && wait_for 30 activations 2 &&
		same "$SELFTEST_BIN" application.bin
}

# Two independent Secure targets, on hci1 and hci2, updated by one `upload` run through hci0 and hci3 (issue 23); the
# scenarios after this one, in the same boot, show that the stack is still whole (and every scenario checks the
# kernel log, see `run`). One central per target: btvirt 5.66 cannot carry two links of one central (it numbers the
# two ends of a link independently and forwards ACL data with the sender's handle, so the second link's data goes
# to the wrong connection; Tests/VM/README.md), which real controllers do.
scenario_fleet() {
	IMAGES=images1 start_sim hci1 1 "${SD[@]}" && SIM1_OUT=$SIM_OUT &&
		IMAGES=images2 start_sim hci2 1 "${SD[@]}" &&
		upload fleet --adapter hci3 --target "$HCI1" --target "$HCI2" "$BLINKY_ZIP" &&
		SIM_OUT=$SIM1_OUT wait_for 30 activations 1 && wait_for 30 activations 1 &&
		IMAGES=images1 same "$BLINKY_BIN" application.bin && IMAGES=images2 same "$BLINKY_BIN" application.bin &&
		DETAIL=$(tail -n 1 "$DIR/fleet.out" | python3 -c 'import json, sys
s = json.loads(sys.stdin.read().split(" ", 1)[1])
print("%d devices in %.1f s: %s" % (s["completed"], s["elapsed_ms"] / 1000,
	", ".join("%s %.1f s" % (d["device"], d["elapsed_ms"] / 1000) for d in s["devices"])))')
}

scenario_scan_then_upload() {
	start_sim hci1 1 "${SD[@]}" || return 1
	timeout -s INT 120 "$NRF" scan --adapter hci0 --timeout 20 >"$DIR/scan.out" 2>"$DIR/scan.err"
	local status=$?
	if [ "$status" != 0 ] || ! grep -q "$HCI1" "$DIR/scan.out"; then
		DETAIL="scan exited $status and listed $(grep -c . "$DIR/scan.out") lines, $HCI1 not among them"
		return 1
	fi
	upload upload --target "$HCI1" "$BLINKY_ZIP" && wait_for 30 activations 1 &&
		same "$BLINKY_BIN" application.bin
}

scenario_name() {
	start_sim hci1 1 "${SD[@]}" --name VmTarg1 && upload upload --name VmTarg1 "$BLINKY_ZIP" &&
		wait_for 30 activations 1 && same "$BLINKY_BIN" application.bin
}

scenario_soak_secure() { scenario_secure; }

# --- SMP (issue 20): `simulate --kind smp`, a Zephyr application with MCUmgr's SMP service on MCUboot.
SMP_IMAGE=$DATA/firmware/selftest-nrf52840dk-mcuboot.bin

# prefix EXPECTED SAVED: SAVED (in $DIR/${IMAGES:-images}) begins with EXPECTED byte for byte (a slot is longer than
# the image in it).
prefix() {
	local expected=$1 saved=$DIR/${IMAGES:-images}/$2
	[ -f "$saved" ] || {
		DETAIL="simulate saved no ${IMAGES:-images}/$2"
		return 1
	}
	head -c "$(stat -c %s "$expected")" "$saved" | cmp -s - "$expected" && return 0
	DETAIL="$2 does not begin with $(basename "$expected")"
	return 1
}

# reported NAME STATE: the last object of upload NAME's --json output reports the device's state STATE.
reported() {
	tail -n 1 "$DIR/$1.out" | grep -q "\"state\":\"$2\"" && return 0
	DETAIL="upload $1 ended with: $(tail -n 1 "$DIR/$1.out" | cut -d' ' -f2- | cut -c1-300)"
	return 1
}

# resumed NAME BYTES: upload NAME went on after a lost link from where the device stopped (an offset above 0), and
# once simulate has exited, its summary says every image byte was written once (BYTES bytes) and no chunk came at an
# offset the device did not expect.
resumed() {
	grep -q '"message":"resuming the upload at offset [1-9][0-9]*, where the device stopped"' "$DIR/$1.out" || {
		DETAIL="upload $1 did not resume from the device's offset"
		return 1
	}
	stop_sim 30
	local line
	line=$(grep -h 'image upload:' "$DIR/sim$SIM_COUNT.err")
	[[ $line == *" $2 bytes written, "* && $line == *" 0 stale chunk(s) "* ]] && return 0
	DETAIL="simulate: ${line:-no summary}"
	return 1
}

# Upload, test, reset, reconnect, confirm (--smp-mode test-and-confirm, the default): the device runs the image and
# reports it confirmed. simulate runs until the upload has ended: `--exit-after 1` would end it when the first link
# after the activation drops, and a connection attempt the central gives up is such a link (README.md, "AcquireNotify
# whose descriptor write fails").
scenario_smp() {
	start_sim hci1 "" --kind smp && upload smp --target "$HCI1" "$SMP_IMAGE" && wait_for 30 activations 1 &&
		stop_sim 0 && reported smp confirmed && prefix "$SMP_IMAGE" slot0.bin
}

# An nRF Connect SDK dfu_application.zip with two images (an nRF5340's application and network cores) to a device that
# updates two images: both uploaded, tested, one reset, both confirmed; image 0 in slot 0, image 1 in slot 2.
scenario_smp_two_image() {
	start_sim hci1 1 --kind smp --smp-images 2 && upload smp-two-image --target "$HCI1" "$DATA/ncs-dfu_application.zip" &&
		wait_for 30 activations 1 && reported smp-two-image confirmed &&
		prefix "$DATA/ncs-dfu_application/app_update.bin" slot0.bin &&
		prefix "$DATA/ncs-dfu_application/net_core_app_update.bin" slot2.bin
}

# The device drops the link after 60000 bytes; the upload goes on from the offset the device reports, and no byte
# is written twice.
scenario_smp_resume() {
	start_sim hci1 "" --kind smp --sim-fault disconnect@60000 && upload smp-resume --target "$HCI1" "$SMP_IMAGE" &&
		wait_for 30 activations 1 && stop_sim 0 && reported smp-resume confirmed && prefix "$SMP_IMAGE" slot0.bin &&
		resumed smp-resume "$(stat -c %s "$SMP_IMAGE")"
}

# rate FILE BYTES: bytes per second of a stamped `upload --json` output, from its first progress event after
# connecting to the device's confirmation of the last part (the bare central's span: first request to last
# Execute response).
rate() {
	awk -v bytes="$2" '/"event":"progress"/ && !/"phase":"connecting"/ && !first { first = $1 }
		/confirmed: [0-9]+ bytes/ { last = $1 }
		END { if (first && last > first) printf "%d", bytes / (last - first) }' "$1"
}

# cpu_seconds FILE: user + system CPU seconds from `/usr/bin/time -f "%U %S"`'s FILE (its last line).
cpu_seconds() { tail -n 1 "$1" | awk '{ printf "%.2f", $1 + $2 }'; }

# median: the median of the numbers on stdin, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%d", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The same image through nrfloader and through the bare central (both --prn 0), against `simulate
# --flash instant --no-acquire`, so the ratio is the transports' and not the simulated flash's. Without
# --no-acquire, bluetoothd 5.66 hands the first write-without-response to the server's AcquireWrite
# socket from a pointer into a freed ATT buffer (src/gatt-database.c, pending_write_new): stale bytes,
# and here a segfault. TCG makes single runs vary by a fifth, and the VM speeds up as it warms, so
# $BENCH_PAIRS pairs (default 5) run in turn, nrfloader first in odd pairs and the bare central first in even
# ones, and the medians are compared. Sets ours/bare (B/s) and ours_cpu/bare_cpu (CPU seconds) of the caller.
# bench_stack: bluetoothd 5.66 can die when a central's acquired socket hangs up at the end of a run (seen in
# gatt-client.c sock_hup under load, after the bare central's run); a bench run needs a live daemon, so it starts
# one again, and the run that lost it is counted as failed.
bench_stack() {
	kill -0 "$BLUETOOTHD" 2>/dev/null && return 0
	wait "$BLUETOOTHD" 2>/dev/null
	note "throughput: bluetoothd exited with status $?: starting it again"
	start_bluetoothd
}

bench_nrfloader() {
	bench_stack || return 1
	DETAIL=
	if start_sim hci1 1 "${SD[@]}" --flash instant --no-acquire &&
		CPU_LOG=$DIR/upload$1.cpu upload "upload$1" --prn 0 --target "$HCI1" "$SELFTEST_ZIP" &&
		wait_for 30 activations 1 && same "$SELFTEST_BIN" application.bin; then
		ours+=("$(rate "$DIR/upload$1.out" "$2")")
		ours_cpu+=("$(cpu_seconds "$DIR/upload$1.cpu")")
		stop_sim 30
	else
		note "throughput: nrfloader run $1 failed: $DETAIL"
		failed=$((failed + 1))
		stop_sim 0
	fi
	rm -rf "$DIR/images"
}

bench_bare() {
	bench_stack || return 1
	DETAIL=
	if start_sim hci1 1 "${SD[@]}" --flash instant --no-acquire &&
		/usr/bin/time -o "$DIR/bare$1.cpu" -f "%U %S" timeout -s INT 300 /usr/bin/python3 "$W/bare-central.py" \
			--adapter hci0 --target "$HCI1" --prn 0 \
			--dat "$DATA/nrfutil617-selftest-signed/selftest-pca10040.dat" --bin "$SELFTEST_BIN" \
			>"$DIR/bare$1.out" 2>"$DIR/bare$1.err" &&
		wait_for 30 activations 1 && same "$SELFTEST_BIN" application.bin; then
		bare+=("$(python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes_per_second"])' <"$DIR/bare$1.out")")
		bare_cpu+=("$(cpu_seconds "$DIR/bare$1.cpu")")
		stop_sim 30
	else
		note "throughput: bare central run $1 failed: ${DETAIL:-$(tail -n 1 "$DIR/bare$1.err")}"
		stop_sim 0
	fi
	rm -rf "$DIR/images"
}

scenario_throughput() {
	local bytes i ours=() bare=() ours_cpu=() bare_cpu=() failed=0
	bytes=$(wc -c <"$SELFTEST_BIN")
	for ((i = 1; i <= ${BENCH_PAIRS:-5}; i++)); do
		if ((i % 2)); then
			bench_nrfloader "$i" "$bytes"
			bench_bare "$i"
		else
			bench_bare "$i"
			bench_nrfloader "$i" "$bytes"
		fi
	done
	local ours_median bare_median
	ours_median=$(printf '%s\n' "${ours[@]}" | median)
	bare_median=$(printf '%s\n' "${bare[@]}" | median)
	if [ -z "$ours_median" ] || [ -z "$bare_median" ]; then
		DETAIL="nrfloader B/s: ${ours[*]:-none}; bare central B/s: ${bare[*]:-none}; no ratio"
	else
		DETAIL=$(awk -v a="$ours_median" -v b="$bare_median" -v o="${ours[*]}" -v r="${bare[*]}" 'BEGIN {
			printf "nrfloader %d B/s, bare central %d B/s (medians of %s and of %s), ratio %.2f", a, b, o, r, a / b }')
	fi
	# What each process cost the two vCPUs, whole run (connection and start-up included).
	DETAIL="$DETAIL; CPU seconds per run: nrfloader ${ours_cpu[*]:-none}, bare central ${bare_cpu[*]:-none}"
	echo "$DETAIL" >"$W/throughput.txt"
	[ "$failed" = 0 ] && [ -n "$ours_median" ] && [ -n "$bare_median" ]
}

# The same signed image uploaded (upload only) to `simulate --kind smp --flash instant` by nrfloader and by smpmgr
# 0.19.1 (the host's .build-rig/smp-venv, read over 9p, through Tests/Rig/smpmgr_rig.py; bleak through the same
# bluetoothd), $BENCH_PAIRS alternating
# pairs; each run's wall-clock time (process start to exit: finding, connecting and Python's start-up included) and
# CPU seconds, and the ratio of the medians. Both leave slot 1 holding the image, byte for byte.
bench_smp() {
	local tool=$1 run=$2 name=smp-$1-$2
	bench_stack || return 1
	DETAIL=
	IMAGES=images-$name start_sim hci1 1 --kind smp --flash instant || return 1
	local began=$EPOCHREALTIME status
	if [ "$tool" = nrfloader ]; then
		/usr/bin/time -o "$DIR/$name.cpu" -f "%U %S" timeout -s INT 300 "$NRF" upload --adapter hci0 --quiet \
			--smp-mode upload-only --target "$HCI1" "$SMP_IMAGE" >"$DIR/$name.out" 2>"$DIR/$name.err"
	else
		# smpmgr held to hci0 (Tests/Rig/smpmgr_rig.py): bleak otherwise takes any powered adapter, hci1-hci3 too.
		SMPMGR_ADAPTER=hci0 /usr/bin/time -o "$DIR/$name.cpu" -f "%U %S" timeout -s INT 300 "$SMP_PYTHON" \
			"$SMPMGR_RIG" --ble "$HCI1" --timeout 60 image upload "$SMP_IMAGE" >"$DIR/$name.out" 2>"$DIR/$name.err"
	fi
	status=$?
	local seconds
	seconds=$(awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
	stop_sim 0
	if [ "$status" = 0 ] && IMAGES=images-$name prefix "$SMP_IMAGE" slot1.bin; then
		eval "${tool}_s+=(\"\$seconds\")"
		eval "${tool}_cpu+=(\"\$(cpu_seconds \"\$DIR/\$name.cpu\")\")"
	else
		note "smp-throughput: $tool run $run failed (exit $status): ${DETAIL:-$(tail -n 1 "$DIR/$name.err")}"
		failed=$((failed + 1))
	fi
}

scenario_smp_throughput() {
	local i failed=0 nrfloader_s=() smpmgr_s=() nrfloader_cpu=() smpmgr_cpu=()
	for ((i = 1; i <= ${BENCH_PAIRS:-5}; i++)); do
		if ((i % 2)); then
			bench_smp nrfloader "$i" && bench_smp smpmgr "$i"
		else
			bench_smp smpmgr "$i" && bench_smp nrfloader "$i"
		fi
	done
	local a b
	a=$(printf '%s\n' "${nrfloader_s[@]}" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	b=$(printf '%s\n' "${smpmgr_s[@]}" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	DETAIL="$(stat -c %s "$SMP_IMAGE")-byte image, upload only; seconds per run: nrfloader ${nrfloader_s[*]:-none}, smpmgr ${smpmgr_s[*]:-none}"
	[ -n "$a" ] && [ -n "$b" ] && DETAIL="$DETAIL; medians $a s and $b s, ratio $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
	DETAIL="$DETAIL; CPU seconds: nrfloader ${nrfloader_cpu[*]:-none}, smpmgr ${smpmgr_cpu[*]:-none}"
	echo "$DETAIL" >"$W/smp-throughput.txt"
	[ "$failed" = 0 ] && [ -n "$a" ] && [ -n "$b" ]
}

# print_logs: the end of both sides' logs and of bluetoothd's since the scenario started.
print_logs() {
	local f
	for f in "$DIR"/*.cmd "$DIR"/*.err "$DIR"/*.out; do
		[ -f "$f" ] || continue
		echo "--- $(basename "$f") (last 25 lines)"
		tail -n 25 "$f"
	done
	echo "--- bluetoothd -d during the scenario (last 60 lines)"
	tail -n +"$BTD_FROM" "$LOGS/bluetoothd.log" | tail -n 60
	# The whole btmon slice stays in the scenario's directory (the run's work share, kept on the host).
	tail -n +"$MON_FROM" "$LOGS/btmon.log" >"$DIR/btmon.log"
	echo "--- btmon during the scenario: $(wc -l <"$DIR/btmon.log") lines kept in ${DIR#"$W"/}/btmon.log (last 40)"
	tail -n 40 "$DIR/btmon.log"
	if [ -s "$DIR/kernel.log" ]; then
		echo "--- kernel log during the scenario (last 30 lines)"
		tail -n 30 "$DIR/kernel.log"
	fi
}

# run ROUND NAME: runs scenario_NAME in its own directory and records the verdict.
run() {
	local round=$1 name=$2 started verdict seconds
	DIR=$LOGS/r$round-$name
	rm -rf "$DIR"
	mkdir -p "$DIR"
	DETAIL=
	SIM_COUNT=0
	BTD_FROM=$(($(wc -l <"$LOGS/bluetoothd.log") + 1))
	MON_FROM=$(($( (cat "$LOGS/btmon.log" 2>/dev/null || true) | wc -l) + 1))
	KMSG_FROM=$(($(dmesg | wc -l) + 1))
	started=$EPOCHREALTIME
	if "scenario_${name//-/_}"; then
		verdict=pass
		stop_sim 30
	else
		verdict=fail
		stop_sim 0
	fi
	seconds=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if ! kill -0 "$BLUETOOTHD" 2>/dev/null; then
		verdict=fail
		DETAIL="bluetoothd died${DETAIL:+; $DETAIL}"
	fi
	# A kernel BUG or oops in the Bluetooth stack fails the scenario, even if the upload itself succeeded.
	dmesg | tail -n +"$KMSG_FROM" >"$DIR/kernel.log"
	if grep -qE 'BUG|Oops|list_del corruption|general protection' "$DIR/kernel.log"; then
		verdict=fail
		DETAIL="kernel: $(grep -m1 -E 'BUG|Oops|list_del corruption|general protection' "$DIR/kernel.log")${DETAIL:+; $DETAIL}"
	fi
	echo "$verdict	$round	$name	$seconds	$DETAIL" >>"$RESULTS"
	note "$verdict $name (round $round, $seconds s)${DETAIL:+: $DETAIL}"
	if [ "$verdict" = fail ]; then print_logs; fi
	if ! kill -0 "$BLUETOOTHD" 2>/dev/null; then
		wait "$BLUETOOTHD" 2>/dev/null
		note "bluetoothd exited with status $?: starting it again"
		start_bluetoothd || setup_failed "bluetoothd did not start again"
	fi
}

for ((round = 1; round <= ROUNDS; round++)); do
	for name in $SCENARIOS; do run "$round" "$name"; done
done
if [ "${SOAK:-0}" -gt 0 ]; then
	for ((i = 1; i <= SOAK; i++)); do run "$i" soak-secure; done
fi
if [ "${BENCH:-0}" = 1 ]; then
	run 1 throughput
	run 1 smp-throughput
fi
kill -TERM "$BLUETOOTHD" $(jobs -p) 2>/dev/null
wait
note "done"
