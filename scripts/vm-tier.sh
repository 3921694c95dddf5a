#!/usr/bin/env bash
# The real-bluetoothd tier: boots a qemu VM (TCG) with Debian's 6.1 kernel, a busybox initramfs and the
# host's own userland over 9p, and runs nrfloader against `nrfloader simulate` on btvirt's virtual
# controllers through a real bluetoothd 5.66 (Tests/VM/guest.sh). See docs/development.md.
#
# Usage: scripts/vm-tier.sh [--binary PATH] [--rounds K] [--soak N] [--bench] [--scenarios "a b c"]
#   --binary PATH   the nrfloader to test (default .build/debug/nrfloader)
#   --rounds K      run the scenario set K times in a row in one boot (default 1; 0 for none)
#   --soak N        then N secure uploads in a row, printed as successes/N
#   --bench         then nrfloader's upload throughput over a bare Python central's on the same target
#                   (medians of $BENCH_PAIRS alternating runs of each, default 5, and their CPU seconds), and
#                   SMP: nrfloader's upload time against smpmgr's on the same `simulate --kind smp` target
#   --work NAME     the run's directory under .build-vm/ (default work), so two runs can share the cache
# Prints the tier, one line per scenario (pass/fail, seconds) and "N passed, N failed"; exits non-zero if
# any scenario failed or the VM could not boot. Kernel, initramfs and logs live under .build-vm/; btmon runs in
# every boot, and a failed scenario keeps its slice (.build-vm/WORK/logs/rROUND-NAME/btmon.log) and kernel log.
# The whole script is one compound command, parsed before it runs: editing the file during a run is safe.
{
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BINARY=.build/debug/nrfloader
ROUNDS=1
SOAK=0
BENCH=0
WORK_NAME=work
ALL="secure secure-no-acquire secure-catalog sd-bl-app legacy legacy-catalog buttonless two-sessions"
ALL="$ALL fleet scan-then-upload name smp smp-resume smp-two-image"
SCENARIOS=$ALL
while [ $# -gt 0 ]; do
	case $1 in
	--binary) BINARY=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--soak) SOAK=$2; shift 2 ;;
	--bench) BENCH=1; shift ;;
	--work) WORK_NAME=$2; shift 2 ;;
	--scenarios) SCENARIOS=$2; shift 2 ;;
	-h | --help) sed -n '2,/^# The whole script/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "vm-tier: unknown option $1 (see --help)" >&2; exit 64 ;;
	esac
done
for value in "$ROUNDS" "$SOAK"; do
	[[ $value =~ ^[0-9]+$ ]] || { echo "vm-tier: --rounds and --soak take a whole number, not '$value'" >&2; exit 64; }
done
BENCH_PAIRS=${BENCH_PAIRS:-5}
[[ $BENCH_PAIRS =~ ^[1-9][0-9]*$ ]] || { echo "vm-tier: BENCH_PAIRS must be a whole number from 1, not '$BENCH_PAIRS'" >&2; exit 64; }
[[ $WORK_NAME =~ ^[A-Za-z0-9_-]+$ ]] || { echo "vm-tier: --work takes a plain name, not '$WORK_NAME'" >&2; exit 64; }
for name in $SCENARIOS; do
	# The two benches may also be named, to run one of them alone (--scenarios smp-throughput).
	[[ " $ALL throughput smp-throughput " == *" $name "* ]] ||
		{ echo "vm-tier: unknown scenario '$name' (known: $ALL, throughput, smp-throughput)" >&2; exit 64; }
done
[ -x "$BINARY" ] || { echo "vm-tier: no nrfloader at $BINARY (swift build first)" >&2; exit 66; }

say() { echo "vm-tier: $*" >&2; }
fail() {
	say "FAILED: $*"
	echo "0 passed, 1 failed"
	exit 1
}

# --- what it needs from Debian
NEEDED="qemu-system-x86_64:qemu-system-x86 busybox:busybox-static cpio:cpio bluetoothd:bluez btvirt:bluez-test-tools"
NEEDED="$NEEDED btmgmt:bluez btmon:bluez dbus-daemon:dbus python3:python3 /usr/bin/time:time"
missing=()
for pair in $NEEDED; do
	command -v "${pair%%:*}" >/dev/null 2>&1 || [ -x "/usr/libexec/bluetooth/${pair%%:*}" ] || missing+=("${pair#*:}")
done
/usr/bin/python3 -c 'import dbus' 2>/dev/null || missing+=(python3-dbus)
CC=${CC:-$(command -v cc || command -v clang || true)}
[ -n "$CC" ] || { CC=gcc; missing+=(gcc libc6-dev); }
[[ $(dpkg-query -W -f '${Status}' busybox-static 2>/dev/null) == *'ok installed'* ]] || missing+=(busybox-static)
if [ ${#missing[@]} -gt 0 ]; then
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || fail "apt-get update failed"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || fail "apt-get install ${missing[*]} failed"
fi

# --- the kernel: Debian's newest 6.1 image, unpacked (not installed) into .build-vm/kernel
CACHE=$ROOT/.build-vm
mkdir -p "$CACHE"
kernel_package() {
	apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null | awk '{print $1}' | sort -V | tail -n 1
}
vmlinuz=$(ls "$CACHE"/kernel/boot/vmlinuz-6.1.0-*-amd64 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$vmlinuz" ]; then
	package=$(kernel_package)
	if [ -z "$package" ]; then
		apt-get update -qq >&2 || fail "apt-get update failed"
		package=$(kernel_package)
	fi
	[ -n "$package" ] || fail "apt offers no linux-image-6.1.0-NN-amd64"
	say "downloading $package"
	rm -rf "$CACHE/download" "$CACHE/kernel.tmp"
	mkdir -p "$CACHE/download"
	(cd "$CACHE/download" && apt-get download "$package" >&2 2>/dev/null) || fail "apt-get download $package failed"
	dpkg-deb -x "$CACHE"/download/"$package"_*.deb "$CACHE/kernel.tmp" || fail "dpkg-deb -x $package failed"
	mv "$CACHE/kernel.tmp" "$CACHE/kernel"
	rm -rf "$CACHE/download"
	vmlinuz=$(ls "$CACHE"/kernel/boot/vmlinuz-6.1.0-*-amd64 | sort -V | tail -n 1)
fi
release=${vmlinuz##*/vmlinuz-}
MODULES_DIR=$CACHE/kernel/lib/modules/$release

# --- the initramfs: static busybox, the modules in load order, Tests/VM/init
MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache 9pnet
9pnet_virtio 9p ecc ecdh_generic rfkill crc16 bluetooth hci_vhci af_alg algif_hash algif_skcipher cmac ecb"
WORK=$CACHE/$WORK_NAME
staging=$WORK.initramfs
rm -rf "$staging"
mkdir -p "$staging/bin" "$staging/modules"
cp "$(command -v busybox)" "$staging/bin/busybox"
cp Tests/VM/init "$staging/init"
chmod 755 "$staging/init"
: >"$staging/modules.list"
for module in $MODULES; do
	file=$(find "$MODULES_DIR" \( -name "$module.ko" -o -name "$module.ko.xz" \) -print -quit)
	[ -n "$file" ] || fail "kernel $release has no module $module"
	case $file in
	*.xz) xz -dc "$file" >"$staging/modules/$module.ko" ;;
	*) cp "$file" "$staging/modules/$module.ko" ;;
	esac
	echo "$module" >>"$staging/modules.list"
done
(cd "$staging" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK.cpio.gz"

# --- the work share: the binary, the guest's files, the inputs and their images
rm -rf "$WORK"
mkdir -p "$WORK/data/firmware"
cp "$BINARY" "$WORK/nrfloader"
cp Tests/VM/guest.sh Tests/VM/main.conf Tests/VM/bare-central.py "$WORK/"
# The guest runs the host's userland, so the btvirt address shim is built here, for the host's libc.
"$CC" -shared -fPIC -O2 -Wall -o "$WORK/btvirt-address.so" Tests/VM/btvirt-address.c -ldl ||
	fail "cannot build Tests/VM/btvirt-address.c with $CC"
cp Tests/Data/packages/*.zip Tests/Data/packages/nrfutil-test-key.pub.pem "$WORK/data/"
cp Tests/Data/mcuboot/ncs/dfu_application.zip "$WORK/data/ncs-dfu_application.zip"
cp Resources/firmware/*.bin "$WORK/data/firmware/"
python3 - "$WORK/data" <<'EOF' || fail "cannot unpack the test packages"
import pathlib, sys, zipfile
data = pathlib.Path(sys.argv[1])
for package in data.glob("*.zip"):
    zipfile.ZipFile(package).extractall(data / package.stem)
EOF
cat >"$WORK/config" <<EOF
ROUNDS=$ROUNDS
SOAK=$SOAK
BENCH=$BENCH
BENCH_PAIRS=$BENCH_PAIRS
SCENARIOS="$SCENARIOS"
SMP_PYTHON=$PWD/.build-rig/smp-venv/bin/python
SMPMGR_RIG=$PWD/Tests/Rig/smpmgr_rig.py
EOF

# --- boot; the guest powers off when done, the timeout is for a hung VM
budget=$((300 + ROUNDS * 900 + SOAK * 150 + BENCH * BENCH_PAIRS * 240))
say "tier: real bluetoothd (qemu TCG, Debian kernel $release, $(/usr/libexec/bluetooth/bluetoothd -v 2>/dev/null ||
	echo '?') bluetoothd), binary $BINARY, rounds $ROUNDS, soak $SOAK, bench $BENCH"
started=$SECONDS
set +e
timeout "$budget" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m 2048 -smp 2 -nographic -no-reboot \
	-kernel "$vmlinuz" -initrd "$WORK.cpio.gz" -append "console=ttyS0 panic=-1 quiet" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$WORK,mount_tag=work,security_model=none,multidevs=remap" \
	</dev/null 2>&1 | tee "$WORK.console.log" | sed -u 's/^/  vm| /' >&2
qemu_status=${PIPESTATUS[0]}
set -e
say "VM ran $((SECONDS - started)) s (qemu exit $qemu_status)"

# --- verdicts
[ -f "$WORK/results.tsv" ] || fail "the VM did not boot or did not start the guest (console: $WORK.console.log)"
passed=0
failed=0
echo "tier: real bluetoothd 5.66 in a qemu VM (btvirt controllers)"
while IFS=$'\t' read -r verdict round name seconds detail; do
	[ -n "$verdict" ] || continue
	printf '%s %-20s round %-3s %6s s%s\n' "$verdict" "$name" "$round" "$seconds" "${detail:+  ($detail)}"
	if [ "$verdict" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done <"$WORK/results.tsv"
if [ "$SOAK" -gt 0 ]; then
	soaked=$(grep -c $'^pass\t[0-9]*\tsoak-secure\t' "$WORK/results.tsv" || true)
	echo "soak: $soaked/$SOAK secure uploads succeeded"
fi
[ -f "$WORK/throughput.txt" ] && echo "throughput: $(cat "$WORK/throughput.txt")"
[ -f "$WORK/smp-throughput.txt" ] && echo "smp-throughput: $(cat "$WORK/smp-throughput.txt")"
guest_status=$(cat "$WORK/guest.status" 2>/dev/null || echo none)
expected=$((ROUNDS * $(wc -w <<<"$SCENARIOS") + SOAK + 2 * BENCH))
if [ "$guest_status" != 0 ] || [ $((passed + failed)) -lt "$expected" ]; then
	say "the guest ended with status $guest_status after $((passed + failed)) of $expected scenarios"
	[ $((passed + failed)) -ge "$expected" ] || failed=$((failed + expected - passed - failed))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
exit
}
