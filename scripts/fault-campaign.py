#!/usr/bin/env python3
"""Seeded fault campaign: `nrfloader upload` against the in-process simulator, one fault per run.

Each run is the built binary as a subprocess (`--target sim…`, `--sim-speed 0`, `--json`), with one
`--sim-fault` drawn from the run's seed, and `--sim-save-images DIR` so that the campaign can compare what
the simulated device activated with the input byte for byte. A run ends as one of:

  recovered      exit 0, the result confirms the input (size, CRC-32 for Secure DFU), and the device
                 activated exactly the input
  clean failure  a documented non-zero exit status (64-76, 130 but 70), a final JSON `error` object with
                 that status, and nothing activated that differs from the input
  bad            a wrong image activated, a crash (signal, 70), a hang (no exit within --hang-limit),
                 an undocumented exit status, exit 0 without a matching confirmation, or a missing verdict

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
TARGETS = ["sim", "sim:buttonless", "sim:legacy"]
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
# The kinds issue 11 requires to recover in the same run.
RECOVERABLE = {"drop-packet", "corrupt-packet", "drop-notification", "disconnect", "reboot"}
INPUT = "selftest-pca10040"
SECURE_OPCODES = ["01", "02", "03", "04", "06"]
SECURE_ERRORS = ["02", "03", "04", "05", "07", "08", "0A", "0B:05", "0B:07"]
LEGACY_OPCODES = ["01", "02", "03", "04", "05"]
LEGACY_ERRORS = ["02", "03", "04", "05", "06"]


def fault_for(kind, target, rng, image_size):
    """The `--sim-fault` text for a run, positioned within the transfer of `image_size` bytes."""
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


def classify(result, stdout, images, image, timed_out):
    """Returns (class, reason) for one run."""
    if timed_out:
        return "bad", "hang"
    status = result
    if status < 0 or (status > 128 and status != 130):
        return "bad", f"crash (status {status})"
    if status == 70:
        return "bad", "internal error (70)"
    wrong = [name for name, data in images.items() if name == "application" and data != image]
    if wrong:
        return "bad", "wrong image activated"
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        last = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        last = None
    if status == 0:
        if not last or last.get("event") != "result":
            return "bad", "exit 0 without a result object"
        parts = last.get("parts") or []
        if len(parts) != 1 or parts[0].get("bytes_confirmed") != len(image):
            return "bad", "exit 0 but the result does not confirm the whole image"
        crc = parts[0].get("crc32")
        if crc is not None and int(crc, 16) != zlib.crc32(image):
            return "bad", "exit 0 with a CRC-32 that is not the input's"
        if images.get("application") != image:
            return "bad", "exit 0 but the device did not activate the input"
        return "recovered", ""
    if status not in DOCUMENTED_FAILURES:
        return "bad", f"undocumented exit status {status}"
    if not last or last.get("event") != "error" or last.get("exit_status") != status:
        return "bad", f"exit {status} without a matching error object"
    return "clean failure", f"exit {status}: {last.get('message', '')}"


def run_one(binary, target, kind, seed, image, hang_limit):
    rng = random.Random(seed)
    fault = fault_for(kind, target, rng, len(image))
    with tempfile.TemporaryDirectory(prefix="nrfloader-campaign-") as saved:
        command = [
            binary, "upload", "--target", target, INPUT, "--sim-speed", "0", "--json",
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
    outcome, reason = classify(status, stdout, images, image, timed_out)
    return {"target": target, "kind": kind, "fault": fault, "seed": seed, "outcome": outcome, "reason": reason,
            "seconds": elapsed}


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
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()

    image_path = os.path.join(os.path.dirname(__file__), "..", "Resources", "firmware", INPUT + ".bin")
    with open(image_path, "rb") as handle:
        image = handle.read()
    plan = []
    for index in range(arguments.runs):
        target = TARGETS[index % len(TARGETS)]
        kind = KINDS[(index // len(TARGETS)) % len(KINDS)]
        plan.append((target, kind, arguments.seed * 1_000_003 + index))
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=arguments.jobs) as pool:
        results = list(pool.map(lambda item: run_one(arguments.binary, *item, image, arguments.hang_limit), plan))
    wall = time.monotonic() - started

    table = {}
    for result in results:
        row = table.setdefault((result["target"], result["kind"]), {"recovered": 0, "clean failure": 0, "bad": 0})
        row[result["outcome"]] += 1
        if result["outcome"] == "bad" or arguments.verbose:
            print(f"{result['outcome']}: {result['target']} --sim-fault {result['fault']} --sim-seed {result['seed']}:"
                  f" {result['reason']}", file=sys.stderr)
    print(f"fault campaign: {len(results)} runs of `upload {INPUT}`, seed {arguments.seed}, {wall:.0f} s")
    print(f"{'target':<16}{'kind':<24}{'runs':>6}{'recovered':>11}{'clean fail':>12}{'bad':>6}{'recovered %':>13}")
    totals = {"recovered": 0, "clean failure": 0, "bad": 0}
    failed_requirement = []
    for target in TARGETS:
        for kind in KINDS:
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
