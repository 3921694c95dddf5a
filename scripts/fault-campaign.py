#!/usr/bin/env python3
"""Seeded fault campaign: `nrfloader upload` against the in-process simulators, one fault per run.

Each run is the built binary as a subprocess (`--target sim…`, `--sim-speed 0`, `--json`), with one
`--sim-fault` drawn from the run's seed, and `--sim-save-images DIR` so that the campaign can compare what
the simulated device activated with the input byte for byte. A run ends as one of:

  recovered      exit 0, the result confirms the input (size, CRC-32 for Secure DFU), and the device
                 activated exactly the input
  clean failure  a documented non-zero exit status (64-76, 130 but 70), a final JSON `error` object with
                 that status, and nothing activated that differs from the input
  bad            a wrong image activated, a crash (signal, 70), a hang (no exit within --hang-limit),
                 an undocumented exit status, exit 0 without a matching confirmation, or a missing verdict

The SMP target (`sim:smp`, issue 20) takes the catalog's signed MCUboot image with its own fault kinds; it
recovers when exit 0 reports the state "confirmed" for the image's SHA-256 TLV and slot 0 holds exactly the
input, and a clean failure leaves slot 0 holding either the input or the image the device ran before.

Usage: scripts/fault-campaign.py [--runs N] [--seed S] [--jobs J] [--binary PATH] [--verbose]
Prints one table per target and kind, and exits 1 if any run was bad (or if --require-recovery is given and
a kind listed in it recovered in less than that share of its runs).
"""

import argparse
import concurrent.futures
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import zlib

DOCUMENTED_FAILURES = {64, 65, 66, 69, 73, 74, 75, 76, 130}
TARGETS = ["sim", "sim:buttonless", "sim:legacy", "sim:smp"]
# Every fault the simulator injects (FaultSpecification.swift).
KINDS = [
    "drop-packet",
    "corrupt-packet",
    "duplicate-packet",
    "drop-notification",
    "duplicate-notification",
    "corrupt-notification",
    "disconnect",
    "reboot",
    "stall",
    "respond",
    "mtu",
    "misaligned",
    "drop-packet-random",
]
# What `sim:smp` injects (SMPFaults.swift).
SMP_KINDS = [
    "drop-packet",
    "drop-notification",
    "duplicate-notification",
    "disconnect",
    "reboot",
    "stall",
    "respond",
    "mtu",
]
# The kinds issue 11 requires to recover in the same run.
RECOVERABLE = {"drop-packet", "corrupt-packet", "drop-notification", "disconnect", "reboot"}
INPUT = "selftest-pca10040"
SMP_INPUT = "selftest-nrf52840dk-mcuboot"
# sim:smp: image-group commands (state, upload) answered with Zephyr img_mgmt errors (hex).
SMP_COMMANDS = ["00", "01"]
SMP_ERRORS = ["01", "02", "05", "09", "1C", "21"]
SECURE_OPCODES = ["01", "02", "03", "04", "06"]
SECURE_ERRORS = ["02", "03", "04", "05", "07", "08", "0A", "0B:05", "0B:07"]
LEGACY_OPCODES = ["01", "02", "03", "04", "05"]
LEGACY_ERRORS = ["02", "03", "04", "05", "06"]


def fault_for(kind, target, rng, image_size):
    """The `--sim-fault` text for a run, positioned within the transfer of `image_size` bytes."""
    if target == "sim:smp":
        return smp_fault_for(kind, rng, image_size)
    legacy = target.startswith("sim:legacy")
    packet = 20 if legacy else 244
    packets = image_size // packet + 2
    # Notifications: receipts (PRN 10 legacy, 12 Secure) plus the responses around them.
    notifications = packets // 10 + 8 if legacy else packets // 12 + 3 * (image_size // 4096 + 1) + 8
    if kind in ("drop-packet", "corrupt-packet", "duplicate-packet"):
        return f"{kind}@{rng.randint(1, packets)}"
    if kind in ("drop-notification", "duplicate-notification", "corrupt-notification"):
        return f"{kind}@{rng.randint(1, notifications)}"
    if kind in ("disconnect", "reboot"):
        return f"{kind}@{rng.randint(0, image_size)}"
    if kind == "stall":
        writes = 8 if legacy else 3 * (image_size // 4096 + 1) + 6
        return f"stall@{rng.randint(1, writes)}"
    if kind == "respond":
        if legacy:
            return f"respond@{rng.choice(LEGACY_OPCODES)}:{rng.choice(LEGACY_ERRORS)}"
        return f"respond@{rng.choice(SECURE_OPCODES)}:{rng.choice(SECURE_ERRORS)}"
    if kind == "mtu":
        return f"mtu@{rng.choice([23, 27, 64, 100, 185])}"
    if kind == "misaligned":
        return "misaligned"
    if kind == "drop-packet-random":
        return f"drop-packet~{rng.choice(['0.001', '0.003', '0.01'])}"
    raise ValueError(kind)


def smp_fault_for(kind, rng, image_size):
    """The `--sim-fault` text for an SMP run: requests and answers counted over about image_size / 200 chunks."""
    requests = image_size // 200 + 8
    if kind == "drop-packet":
        return f"drop-packet@{rng.randint(1, requests)}"
    if kind in ("drop-notification", "duplicate-notification"):
        return f"{kind}@{rng.randint(1, requests)}"
    if kind in ("disconnect", "reboot"):
        return f"{kind}@{rng.randint(0, image_size)}"
    if kind == "stall":
        return f"stall@{rng.randint(1, requests)}"
    if kind == "respond":
        return f"respond@{rng.choice(SMP_COMMANDS)}:{rng.choice(SMP_ERRORS)}"
    if kind == "mtu":
        return f"mtu@{rng.choice([23, 27, 64, 100, 185])}"
    raise ValueError(kind)


def mcuboot_tlv_area(image):
    """(start, end) of a signed MCUboot image's TLV area: after the header, the body and the protected TLVs."""
    header_size, protected_size, image_size = int.from_bytes(image[8:10], "little"), \
        int.from_bytes(image[10:12], "little"), int.from_bytes(image[12:16], "little")
    start = header_size + image_size + protected_size
    assert int.from_bytes(image[start:start + 2], "little") == 0x6907, "no TLV area"
    return start, start + int.from_bytes(image[start + 2:start + 4], "little")


def mcuboot_hash(image):
    """The SHA-256 TLV (type 0x10) of a signed MCUboot image, as lowercase hex."""
    offset, end = mcuboot_tlv_area(image)
    offset += 4
    while offset < end:
        kind, length = image[offset], int.from_bytes(image[offset + 2:offset + 4], "little")
        if kind == 0x10:
            return image[offset + 4:offset + 4 + length].hex()
        offset += 4 + length
    raise ValueError("no SHA-256 TLV")


def verdict(status, stdout, timed_out, wrong_image, unconfirmed):
    """Returns (class, reason) for one run. `wrong_image()` names an image the device must not hold, and
    `unconfirmed(result)` what an exit-0 result object fails to confirm; each gives None when all is well."""
    if timed_out:
        return "bad", "hang"
    if status < 0 or (status > 128 and status != 130):
        return "bad", f"crash (status {status})"
    if status == 70:
        return "bad", "internal error (70)"
    problem = wrong_image()
    if problem:
        return "bad", problem
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        last = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        last = None
    if status == 0:
        if not last or last.get("event") != "result":
            return "bad", "exit 0 without a result object"
        problem = unconfirmed(last)
        return ("bad", problem) if problem else ("recovered", "")
    if status not in DOCUMENTED_FAILURES:
        return "bad", f"undocumented exit status {status}"
    if not last or last.get("event") != "error" or last.get("exit_status") != status:
        return "bad", f"exit {status} without a matching error object"
    return "clean failure", f"exit {status}: {last.get('message', '')}"


def classify_smp(status, stdout, images, image, original, timed_out):
    """Returns (class, reason) for one sim:smp run."""
    slot0 = images.get("slot0", b"")

    def wrong_image():
        if not (slot0.startswith(image) or slot0.startswith(original)):
            return "slot 0 holds neither the input nor the image the device ran before"
        return None

    def unconfirmed(result):
        if result.get("state") != "confirmed" or (result.get("image") or {}).get("hash") != mcuboot_hash(image):
            return "exit 0 but the result does not report the input confirmed"
        # Bytes the device accepted: the whole image, more when a reboot made it start over.
        if result.get("bytes_uploaded", 0) < len(image):
            return "exit 0 but the result counts less than the whole image"
        if not slot0.startswith(image):
            return "exit 0 but slot 0 does not hold the input"
        return None

    return verdict(status, stdout, timed_out, wrong_image, unconfirmed)


def classify(status, stdout, images, image, timed_out):
    """Returns (class, reason) for one nRF5 DFU run."""
    def wrong_image():
        activated = images.get("application")
        return "wrong image activated" if activated is not None and activated != image else None

    def unconfirmed(result):
        parts = result.get("parts") or []
        if len(parts) != 1 or parts[0].get("bytes_confirmed") != len(image):
            return "exit 0 but the result does not confirm the whole image"
        crc = parts[0].get("crc32")
        if crc is not None and int(crc, 16) != zlib.crc32(image):
            return "exit 0 with a CRC-32 that is not the input's"
        if images.get("application") != image:
            return "exit 0 but the device did not activate the input"
        return None

    return verdict(status, stdout, timed_out, wrong_image, unconfirmed)


def run_one(binary, target, kind, seed, inputs, hang_limit):
    path, image, original = inputs[target == "sim:smp"]
    rng = random.Random(seed)
    fault = fault_for(kind, target, rng, len(image))
    with tempfile.TemporaryDirectory(prefix="nrfloader-campaign-") as saved:
        command = [
            binary, "upload", "--target", target, path, "--sim-speed", "0", "--json",
            "--sim-fault", fault, "--sim-seed", str(seed), "--sim-save-images", saved,
        ]
        started = time.monotonic()
        try:
            completed = subprocess.run(command, capture_output=True, timeout=hang_limit)
            status, stdout, timed_out = completed.returncode, completed.stdout.decode(errors="replace"), False
        except subprocess.TimeoutExpired as expired:
            status, stdout, timed_out = None, (expired.stdout or b"").decode(errors="replace"), True
        elapsed = time.monotonic() - started
        images = {}
        for name in os.listdir(saved):
            with open(os.path.join(saved, name), "rb") as handle:
                images[name.removesuffix(".bin")] = handle.read()
    if target == "sim:smp":
        outcome, reason = classify_smp(status, stdout, images, image, original, timed_out)
    else:
        outcome, reason = classify(status, stdout, images, image, timed_out)
    return {"target": target, "kind": kind, "fault": fault, "seed": seed, "outcome": outcome, "reason": reason,
            "seconds": elapsed}


def smp_running_image(binary, path):
    """The image the simulated SMP device runs before an update: slot 0 after an upload-only run (no swap)."""
    with tempfile.TemporaryDirectory(prefix="nrfloader-campaign-") as saved:
        subprocess.run([binary, "upload", "--target", "sim:smp", path, "--sim-speed", "0", "--smp-mode", "upload-only",
                        "--sim-save-images", saved], capture_output=True, check=True, timeout=120)
        with open(os.path.join(saved, "slot0.bin"), "rb") as handle:
            slot0 = handle.read()
    # Its header says how long it is: header, body, protected TLVs, then the TLV area with its own length.
    return slot0[:mcuboot_tlv_area(slot0)[1]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1014)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "..", ".build", "debug",
                                                          "nrfloader"))
    parser.add_argument("--hang-limit", type=float, default=120)
    parser.add_argument("--require-recovery", type=float, default=None,
                        help="fail unless each of " + ", ".join(sorted(RECOVERABLE)) + " recovers this share")
    parser.add_argument("--targets", default=",".join(TARGETS),
                        help="comma-separated targets to cycle through (default: all of " + ", ".join(TARGETS) + ")")
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()

    firmware = os.path.join(os.path.dirname(__file__), "..", "Resources", "firmware")
    with open(os.path.join(firmware, INPUT + ".bin"), "rb") as handle:
        image = handle.read()
    smp_path = os.path.join(firmware, SMP_INPUT + ".bin")
    with open(smp_path, "rb") as handle:
        smp_image = handle.read()
    inputs = {False: (INPUT, image, None), True: (smp_path, smp_image, smp_running_image(arguments.binary, smp_path))}
    targets = arguments.targets.split(",")
    unknown = [target for target in targets if target not in TARGETS]
    if unknown:
        parser.error("unknown target " + ", ".join(unknown))
    plan = []
    for index in range(arguments.runs):
        target = targets[index % len(targets)]
        kinds = SMP_KINDS if target == "sim:smp" else KINDS
        kind = kinds[(index // len(targets)) % len(kinds)]
        plan.append((target, kind, arguments.seed * 1_000_003 + index))
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=arguments.jobs) as pool:
        results = list(pool.map(lambda item: run_one(arguments.binary, *item, inputs, arguments.hang_limit), plan))
    wall = time.monotonic() - started

    table = {}
    for result in results:
        row = table.setdefault((result["target"], result["kind"]), {"recovered": 0, "clean failure": 0, "bad": 0})
        row[result["outcome"]] += 1
        if result["outcome"] == "bad" or arguments.verbose:
            print(f"{result['outcome']}: {result['target']} --sim-fault {result['fault']} --sim-seed {result['seed']}:"
                  f" {result['reason']}", file=sys.stderr)
    print(f"fault campaign: {len(results)} runs of `upload {INPUT}` (sim:smp: {SMP_INPUT}.bin), seed "
          f"{arguments.seed}, {wall:.0f} s")
    print(f"{'target':<16}{'kind':<24}{'runs':>6}{'recovered':>11}{'clean fail':>12}{'bad':>6}{'recovered %':>13}")
    totals = {"recovered": 0, "clean failure": 0, "bad": 0}
    failed_requirement = []
    for target in TARGETS:
        for kind in SMP_KINDS if target == "sim:smp" else KINDS:
            row = table.get((target, kind))
            if not row:
                continue
            runs = sum(row.values())
            share = row["recovered"] / runs
            for key in totals:
                totals[key] += row[key]
            print(f"{target:<16}{kind:<24}{runs:>6}{row['recovered']:>11}{row['clean failure']:>12}{row['bad']:>6}"
                  f"{share * 100:>12.1f}%")
            if arguments.require_recovery is not None and kind in RECOVERABLE and share < arguments.require_recovery:
                failed_requirement.append(f"{target} {kind} {share * 100:.1f} %")
    runs = sum(totals.values())
    print(f"{'all':<16}{'':<24}{runs:>6}{totals['recovered']:>11}{totals['clean failure']:>12}{totals['bad']:>6}"
          f"{totals['recovered'] / max(runs, 1) * 100:>12.1f}%")
    recoverable = [r for r in results if r["kind"] in RECOVERABLE]
    if recoverable:
        share = sum(r["outcome"] == "recovered" for r in recoverable) / len(recoverable)
        print(f"lost/corrupt packet, lost notification, disconnect, reboot: {share * 100:.1f} % recovered "
              f"of {len(recoverable)} runs")
    if failed_requirement:
        print("below the required recovery share: " + "; ".join(failed_requirement), file=sys.stderr)
    return 1 if totals["bad"] or failed_requirement else 0


if __name__ == "__main__":
    sys.exit(main())
