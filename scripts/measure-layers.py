#!/usr/bin/env python3
"""Lines of Swift per layer, at one or more git revisions: scripts/measure-layers.py [REV ...] (default HEAD).

Layers: the CLI (Sources/nrfloader), the public modules (the first module of each library product), the engine
(protocols, machines, inputs and their shared core), the transports (BlueZ, D-Bus, serial), the simulators, and the
tests. A module is sorted by its name; modules a revision does not have count nothing. Also counts, per revision,
the driver loops (files defining a `while true` loop over a machine's actions), the types named *Failure or *Error,
and the firmware model types (FIRMWARE_MODEL).
"""

import re
import subprocess
import sys

LAYERS = [
    ("CLI", lambda m: m == "nrfloader"),
    ("public modules", lambda m: m in {"NRFLoaderKit", "NRFLoaderSimulator", "NRFLoaderSerial", "NRFLoaderBlueZ"}),
    ("transports", lambda m: m in {"BlueZ", "BlueZTransport", "DBus", "CDBus", "SMPBlueZ", "SerialDFU", "SMPSerial",
                                   "SerialLine"}),
    ("simulators", lambda m: m in {"DFUSimulator", "SMPSimulator", "SerialSimulator", "SimulatedPeripheral"}),
    ("engine", lambda m: True),
]


# The types that carry firmware between the input and the wire (the issue that asked for one model counted these).
FIRMWARE_MODEL = ["Firmware", "FirmwareInput", "DFUFirmware", "FirmwareImage", "FirmwarePart", "SMPUpdateInput",
                  "SMPImageUpload", "UpdateFirmware"]


def files(rev):
    out = subprocess.check_output(["git", "ls-tree", "-r", "--name-only", rev], text=True)
    return [f for f in out.splitlines() if f.endswith(".swift")]


def text(rev, path):
    return subprocess.check_output(["git", "show", f"{rev}:{path}"], text=True, errors="replace")


def measure(rev):
    lines = {name: 0 for name, _ in LAYERS}
    lines["tests"] = 0
    failures, firmware = set(), set()
    loops = 0
    for path in files(rev):
        parts = path.split("/")
        if parts[0] == "Tests":
            lines["tests"] += text(rev, path).count("\n")
            continue
        if parts[0] != "Sources":
            continue
        body = text(rev, path)
        module = parts[1]
        for name, test in LAYERS:
            if test(module):
                lines[name] += body.count("\n")
                break
        failures.update(re.findall(r"^(?:package |public )?(?:struct|enum|final class|class) (\w+(?:Failure|Error))\b",
                                   body, re.M))
        firmware.update(re.findall(r"^(?:package |public )?(?:struct|enum) (" + "|".join(FIRMWARE_MODEL) + r")\b",
                                   body, re.M))
        if re.search(r"^extension DFUFirmware \{\n(?:\s*///.*\n)*\s*package struct Part\b", body, re.M):
            firmware.add("DFUFirmware.Part")  # the old FirmwarePart, nested since
        if re.search(r"var pending = \w+\.start\(at: now\(\)\)", body) and "while true" in body:
            loops += 1
    return lines, loops, sorted(failures), sorted(firmware)


def main():
    revs = sys.argv[1:] or ["HEAD"]
    results = {rev: measure(rev) for rev in revs}
    names = [name for name, _ in LAYERS] + ["tests"]
    print(f"{'layer':<16}" + "".join(f"{rev[:12]:>14}" for rev in revs))
    for name in names:
        print(f"{name:<16}" + "".join(f"{results[rev][0][name]:>14}" for rev in revs))
    print(f"{'driver loops':<16}" + "".join(f"{results[rev][1]:>14}" for rev in revs))
    print(f"{'failure types':<16}" + "".join(f"{len(results[rev][2]):>14}" for rev in revs))
    print(f"{'firmware types':<16}" + "".join(f"{len(results[rev][3]):>14}" for rev in revs))
    for rev in revs:
        print(f"\n{rev}: failure/error types: {', '.join(results[rev][2])}")
        print(f"{rev}: firmware types: {', '.join(results[rev][3])}")


if __name__ == "__main__":
    main()
