#!/usr/bin/env python3
"""`fs upload` and `fs download` of 100 KiB over Bluetooth LE on the bluezoo rig: nrfloader against smpmgr (a
third-party SMP client, PyPI, in .build-rig/smp-venv), same simulated Zephyr device (`nrfloader simulate --kind smp`
on hci1), alternating, ROUNDS pairs; the median wall-clock seconds of each client process (Python's start-up counts
against smpmgr, as a user sees it).

    scripts/bench-fs-ble.py NRFLOADER [ROUNDS]
"""
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("bench_fleet", os.path.join(ROOT, "scripts/bench-fleet.py"))
rig = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rig)
SMP_PYTHON = os.path.join(ROOT, ".build-rig/smp-venv/bin/python")
# smpmgr with the rig's adapter and bus (Tests/Rig/smpmgr_rig.py, as the rig's smpmgr tests run it).
SMPMGR = [SMP_PYTHON, os.path.join(ROOT, "Tests/Rig/smpmgr_rig.py")]
PERIPHERAL = "C0:DE:00:00:00:02"


def timed(argv, env, cwd=None):
    started = time.monotonic()
    result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"bench-fs-ble: {' '.join(argv)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return elapsed


def main():
    nrfloader = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if not (os.access(rig.VENV_PYTHON, os.X_OK) and os.access(SMP_PYTHON, os.X_OK)):
        sys.exit("bench-fs-ble: run Tests/Rig/setup.sh and Tests/Rig/setup-smp.sh first")
    with tempfile.TemporaryDirectory() as directory:
        bus_path = os.path.join(directory, "bus")
        with open(os.path.join(directory, "bus.conf"), "w") as f:
            f.write(rig.BUS_CONFIG.format(path=bus_path))
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={bus_path}")
        log = open(os.path.join(directory, "rig.log"), "w")
        daemon = subprocess.Popen(
            ["dbus-daemon", "--nofork", "--config-file", os.path.join(directory, "bus.conf"), "--print-address=1"],
            stdout=subprocess.PIPE, stderr=log)
        children = [daemon]
        try:
            rig.wait_for_line(daemon, "unix:", 10, "dbus-daemon")
            zoo = subprocess.Popen(
                [rig.VENV_PYTHON, os.path.join(ROOT, "Tests/Rig/bluezoo_rig.py"), "--auto-enable", "--scan-interval",
                 "1", "-a", "00:11:22:33:44:01", "-a", PERIPHERAL], env=env, stdout=log, stderr=log)
            children.append(zoo)
            time.sleep(2)
            simulate = subprocess.Popen(
                [nrfloader, "simulate", "--adapter", "hci1", "--kind", "smp", "--flash", "instant", "--acquire-write",
                 "--json"],
                env=env, stdout=subprocess.PIPE, stderr=log)
            children.append(simulate)
            rig.wait_for_line(simulate, "ready", 20, "nrfloader simulate")
            with open(os.path.join(directory, "file.bin"), "wb") as f:
                f.write(os.urandom(102_400))
            ours = ["--adapter", "hci0", "--target", PERIPHERAL]
            theirs = SMPMGR + ["--ble", PERIPHERAL, "--timeout", "10"]
            runs = {key: [] for key in ("nrfloader upload", "smpmgr upload", "nrfloader download", "smpmgr download")}
            for _ in range(rounds):
                runs["nrfloader upload"].append(timed(
                    [nrfloader, "fs", "upload", "-q", "file.bin", "/lfs/a.bin"] + ours, env, cwd=directory))
                runs["smpmgr upload"].append(timed(
                    theirs + ["file", "upload", "file.bin", "/lfs/b.bin"], env, cwd=directory))
                runs["nrfloader download"].append(timed(
                    [nrfloader, "fs", "download", "-q", "/lfs/a.bin", "a.bin"] + ours, env, cwd=directory))
                runs["smpmgr download"].append(timed(
                    theirs + ["file", "download", "/lfs/b.bin", "b.bin"], env, cwd=directory))
            for name in ("a.bin", "b.bin"):
                with open(os.path.join(directory, name), "rb") as back, open(os.path.join(directory, "file.bin"),
                                                                               "rb") as sent:
                    if back.read() != sent.read():
                        sys.exit(f"bench-fs-ble: {name} is not the file sent")
            print(f"fs over BLE (bluezoo rig), 102400 bytes, {rounds} rounds: median wall-clock seconds")
            for key, values in runs.items():
                print(f"  {key:<20} {statistics.median(values):6.2f} s   ({' '.join(f'{v:.2f}' for v in values)})")
            for verb in ("upload", "download"):
                ratio = statistics.median(runs[f"nrfloader {verb}"]) / statistics.median(runs[f"smpmgr {verb}"])
                print(f"  {verb}: nrfloader takes {ratio:.2f}x the time smpmgr takes")
        finally:
            for child in reversed(children):
                rig.stop(child)


if __name__ == "__main__":
    main()
