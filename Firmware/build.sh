#!/usr/bin/env bash
# Builds the example firmware images that nrfloader's catalog embeds.
#
#   Firmware/build.sh          build, then install .bin/.hex into Resources/firmware/
#   Firmware/build.sh --check  build, then compare with the committed files and with
#                              catalog.json's size/sha256; exit 1 on any difference
#
# Needs arm-none-eabi-gcc/objcopy (Debian: gcc-arm-none-eabi, libnewlib-arm-none-eabi)
# and python3. Byte-identical output needs the compiler version in Firmware/README.md.
# MCUboot images are signed here with imgtool 2.5.0 (installed from PyPI into
# .build-imgtool/ on first use) and the test key in Firmware/keys/; ed25519
# signatures are deterministic, so --check can compare them byte for byte.
# Works from any working directory; builds in a temporary directory.

set -euo pipefail
export LC_ALL=C

usage() {
    echo "usage: ${0##*/} [--check]" >&2
}

check=0
case $# in
0) ;;
1)
    case $1 in
    --check) check=1 ;;
    -h | --help)
        usage
        exit 0
        ;;
    *)
        usage
        exit 64
        ;;
    esac
    ;;
*)
    usage
    exit 64
    ;;
esac

fw_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
repo_dir=$(dirname -- "$fw_dir")
install_dir="$repo_dir/Resources/firmware"
catalog="$repo_dir/catalog.json"

cross=arm-none-eabi-
cc=${cross}gcc
objcopy=${cross}objcopy

for tool in "$cc" "$objcopy" python3 sha256sum cmp install; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "error: '$tool' not found (install gcc-arm-none-eabi, libnewlib-arm-none-eabi, python3)" >&2
        exit 69
    fi
done

echo "toolchain: $("$cc" --version | sed -n 1p)" >&2
echo "binutils:  $("$objcopy" --version | sed -n 1p)" >&2

imgtool_venv="$repo_dir/.build-imgtool"
imgtool="$imgtool_venv/bin/imgtool"
if [ "$("$imgtool" version 2>/dev/null || true)" != 2.5.0 ]; then
    python3 -m venv "$imgtool_venv" && "$imgtool_venv/bin/pip" install -q imgtool==2.5.0 ||
        { echo "error: cannot install imgtool 2.5.0 into $imgtool_venv" >&2; exit 69; }
fi
echo "imgtool:   $("$imgtool" version)" >&2

work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT

# No debug info, no dates, fixed link order; the prefix maps cover any path the
# compiler might still record (assertions, __FILE__).
common_cflags=(
    -std=gnu11 -Os -mthumb -mfloat-abi=soft
    -ffunction-sections -fdata-sections -fno-common -ffreestanding
    -Wall -Wextra
    "-ffile-prefix-map=$fw_dir=Firmware"
    "-ffile-prefix-map=$work=build"
    -I "$fw_dir/common"
)
common_ldflags=(
    -nostartfiles
    -Wl,--gc-sections
    -Wl,--build-id=none
    -L "$fw_dir/ld"
)

# build_image ID VERSION CPU CHIP_DEFINE IRQ_COUNT BOARD LINKER_SCRIPT KIND
build_image() {
    local id=$1 version=$2 cpu=$3 chip=$4 irq_count=$5 board=$6 script=$7 kind=$8
    local out="$work/$id"
    mkdir -p "$out/obj"

    local cflags=("${common_cflags[@]}"
        "-mcpu=$cpu" "-D$chip" "-DIRQ_COUNT=$irq_count"
        "-DBOARD_HEADER=\"$board.h\"" -I "$fw_dir/boards"
        "-DIMAGE_ID=\"$id\"" "-DIMAGE_VERSION=\"$version\"")
    local sources=("$fw_dir/common/startup.c" "$fw_dir/common/image_info.c" "$fw_dir/common/board.c")
    case $kind in
    blinky)
        sources+=("$fw_dir/blinky/main.c")
        ;;
    selftest)
        python3 "$fw_dir/selftest/gen_selftest_table.py" "$out"
        cflags+=(-DSELFTEST -I "$out")
        sources+=("$fw_dir/common/crc32.c" "$fw_dir/selftest/main.c" "$out/selftest_table.c")
        ;;
    esac

    local objects=() src obj
    for src in "${sources[@]}"; do
        obj="$out/obj/$(basename -- "$(dirname -- "$src")")_$(basename -- "$src" .c).o"
        "$cc" "${cflags[@]}" -c "$src" -o "$obj"
        objects+=("$obj")
    done

    "$cc" "-mcpu=$cpu" -mthumb -mfloat-abi=soft "${common_ldflags[@]}" \
        -T "$fw_dir/ld/$script" -Wl,-Map="$out/$id.map" \
        "${objects[@]}" -o "$out/$id.elf"

    # Both outputs come from the same ELF. The .bin starts at the load address.
    "$objcopy" -O binary "$out/$id.elf" "$work/$id.bin"
    "$objcopy" -O ihex "$out/$id.elf" "$work/$id.hex"
}

# sign_mcuboot ID VERSION SLOT_SIZE: replaces $work/ID.bin (linked after a 0x200-byte
# gap at the slot's start) with the signed MCUboot image: header, body, TLVs
# (SHA-256, key hash, ed25519 signature). No .hex: SMP sends the signed .bin.
sign_mcuboot() {
    local id=$1 version=$2 slot_size=$3
    "$imgtool" sign --key "$fw_dir/keys/mcuboot-ed25519-test.pem" --header-size 0x200 --pad-header --align 4 \
        --version "$version" --slot-size "$slot_size" "$work/$id.bin" "$work/$id.signed.bin" >/dev/null
    mv -- "$work/$id.signed.bin" "$work/$id.bin"
    rm -f -- "$work/$id.hex"
}

# Vector-table sanity: word 0 is a RAM address (initial SP), word 1 an odd (Thumb)
# address inside the image (Reset_Handler).
check_vectors() {
    local id=$1 load=$2
    python3 - "$work/$id.bin" "$load" <<'EOF'
import struct, sys
path, load = sys.argv[1], int(sys.argv[2], 16)
data = open(path, "rb").read()
sp, reset = struct.unpack_from("<II", data)
ok = 0x20000000 <= sp <= 0x20040000 and reset & 1 and load <= (reset & ~1) < load + len(data)
if not ok:
    sys.exit("%s: bad vector table (SP 0x%08X, reset 0x%08X)" % (path, sp, reset))
EOF
}

#          id                version cpu        chip      irqs board     linker script       kind
images=(
    "blinky-pca10028   1.0.0 cortex-m0 NRF51     32 pca10028 nrf51422_s130.ld  blinky   0x0001B000"
    "blinky-pca10040   1.0.0 cortex-m4 NRF52832  39 pca10040 nrf52832_s132.ld  blinky   0x00026000"
    "blinky-pca10056   1.0.0 cortex-m4 NRF52840  48 pca10056 nrf52840_s140.ld  blinky   0x00027000"
    "blinky-pca10059   1.0.0 cortex-m4 NRF52840  48 pca10059 nrf52840_s140.ld  blinky   0x00027000"
    "selftest-pca10040 1.0.0 cortex-m4 NRF52832  39 pca10040 nrf52832_s132.ld  selftest 0x00026000"
    "selftest-nrf52840dk-mcuboot 1.0.0 cortex-m4 NRF52840 48 pca10056 nrf52840_mcuboot.ld selftest 0x0000C200"
)
# Images that go through MCUboot: id and slot size (the slot starts 0x200 bytes before the load address above).
declare -A mcuboot_slot_sizes=([selftest-nrf52840dk-mcuboot]=0x76000)

ids=()
for line in "${images[@]}"; do
    read -r id version cpu chip irqs board script kind load <<<"$line"
    build_image "$id" "$version" "$cpu" "$chip" "$irqs" "$board" "$script" "$kind"
    check_vectors "$id" "$load"
    [ -z "${mcuboot_slot_sizes[$id]:-}" ] || sign_mcuboot "$id" "$version" "${mcuboot_slot_sizes[$id]}"
    ids+=("$id")
done

for id in "${ids[@]}"; do
    printf '%-28s %7d  %s\n' "$id" "$(stat -c %s "$work/$id.bin")" \
        "$(sha256sum "$work/$id.bin" | cut -d ' ' -f 1)" >&2
done

if [ "$check" -eq 0 ]; then
    mkdir -p "$install_dir"
    for id in "${ids[@]}"; do
        files=("$work/$id.bin")
        [ -f "$work/$id.hex" ] && files+=("$work/$id.hex")
        install -m 0644 -- "${files[@]}" "$install_dir/"
    done
    echo "installed into $install_dir" >&2
    exit 0
fi

status=0
for id in "${ids[@]}"; do
    extensions=(bin hex)
    [ -z "${mcuboot_slot_sizes[$id]:-}" ] || extensions=(bin)
    for ext in "${extensions[@]}"; do
        committed="$install_dir/$id.$ext"
        if [ ! -f "$committed" ]; then
            echo "MISSING  Resources/firmware/$id.$ext" >&2
            status=1
        elif ! cmp -s "$work/$id.$ext" "$committed"; then
            echo "DIFFERS  Resources/firmware/$id.$ext" >&2
            status=1
        fi
    done
done

# catalog.json must describe the committed .bin files exactly.
if ! python3 - "$catalog" "$repo_dir" "${ids[@]}" <<'EOF'; then
import hashlib, json, os, sys
catalog_path, repo_dir, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    with open(catalog_path, encoding="utf-8") as f:
        entries = {e["id"]: e for e in json.load(f)["firmware"]}
except (OSError, ValueError, KeyError) as error:
    sys.exit("catalog.json: %s" % error)
failed = False
for image_id in ids:
    entry = entries.get(image_id)
    if entry is None:
        print("CATALOG  no entry for %s" % image_id, file=sys.stderr)
        failed = True
        continue
    path = os.path.join(repo_dir, entry["file"])
    if not os.path.isfile(path):
        print("CATALOG  %s: file %s missing" % (image_id, entry["file"]), file=sys.stderr)
        failed = True
        continue
    data = open(path, "rb").read()
    if entry["size"] != len(data) or entry["sha256"] != hashlib.sha256(data).hexdigest():
        print("CATALOG  %s: size/sha256 do not match %s" % (image_id, entry["file"]), file=sys.stderr)
        failed = True
sys.exit(1 if failed else 0)
EOF
    status=1
fi

if [ "$status" -eq 0 ]; then
    echo "check passed: Resources/firmware and catalog.json match this build" >&2
else
    echo "check FAILED (rebuild with Firmware/build.sh, or use the toolchain version in Firmware/README.md)" >&2
fi
exit "$status"
