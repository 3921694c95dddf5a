#!/usr/bin/env python3
"""Benchmark the BlueZ transport on the test rig (testrig.md, rung 1): a Secure DFU of a 200 KB image through
`nrfloader simulate` against the time the same rig needs to move the same bytes as bare write-without-response
packets, on the acquired-socket path and on the plain D-Bus path, alternating, for several rounds.

Everything runs on a private dbus-daemon with the patched bluezoo (two adapters: hci0 central, hci1 peripheral);
each measurement gets a fresh `nrfloader simulate --flash instant` (a completed DFU leaves the simulated device
in its new application). `dfu` is the engine's default; `dfu-no-wait` drops its 400 ms pause after the first
Create (a protection for real SDK 15-17 bootloaders, which erase flash then; the simulated flash here is instant).
Prints each round, the medians, and the ratio bare / DFU per path (1.0 = DFU costs nothing over moving the bytes).

    scripts/bench-bluez.py NRFLOADER BLUEZ_BENCHMARK [ROUNDS] [SIZE]
"""
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, ".build-rig/venv/bin/python")
PERIPHERAL = "C0:DE:00:00:00:02"
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={path}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def wait_for_line(process, needle, limit, what):
    """Reads the child's stdout until a line contains `needle`."""
    deadline = time.monotonic() + limit
    buffer = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            buffer += chunk
            if needle.encode() in buffer:
                return
    sys.exit(f"bench-bluez: {what} did not report '{needle}' within {limit} s:\n{buffer.decode(errors='replace')}")


def main():
    nrfloader = os.path.abspath(sys.argv[1])
    benchmark = os.path.abspath(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    size = int(sys.argv[4]) if len(sys.argv) > 4 else 200 * 1024
    children = []

    def stop(process):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    with tempfile.TemporaryDirectory() as directory:
        bus_path = os.path.join(directory, "bus")
        with open(os.path.join(directory, "bus.conf"), "w") as f:
            f.write(BUS_CONFIG.format(path=bus_path))
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={bus_path}")
        daemon = subprocess.Popen(
            ["dbus-daemon", "--nofork", "--config-file", os.path.join(directory, "bus.conf"), "--print-address=1"],
            stdout=subprocess.PIPE)
        children.append(daemon)
        try:
            wait_for_line(daemon, "unix:", 10, "dbus-daemon")
            log = open(os.path.join(directory, "rig.log"), "w")
            zoo = subprocess.Popen(
                [VENV_PYTHON, os.path.join(ROOT, "Tests/Rig/bluezoo_rig.py"), "--auto-enable", "--scan-interval", "1",
                 "-a", "00:11:22:33:44:01", "-a", PERIPHERAL], env=env, stdout=log, stderr=log)
            children.append(zoo)
            for _ in range(100):
                probe = subprocess.run(
                    ["dbus-send", "--system", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                     "org.freedesktop.DBus.NameHasOwner", "string:org.bluez"], env=env, capture_output=True, text=True)
                if "boolean true" in probe.stdout:
                    break
                time.sleep(0.1)
            else:
                sys.exit("bench-bluez: bluezoo did not start")

            def measure(mode, path):
                simulate = subprocess.Popen(
                    [nrfloader, "simulate", "--adapter", "hci1", "--kind", "secure", "--sd-id", "0x0101", "--flash", "instant",
                     "--json"], env=env, stdout=subprocess.PIPE, stderr=log)
                try:
                    wait_for_line(simulate, "ready", 20, "nrfloader simulate")
                    argv = [benchmark, mode, "--target", PERIPHERAL, "--adapter", "hci0", "--size", str(size)]
                    if path == "dbus":
                        argv.append("--no-acquire")
                    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
                    if result.returncode != 0:
                        sys.exit(f"bench-bluez: {' '.join(argv)} failed: {result.stderr.strip()}")
                    fields = result.stdout.split()
                    if fields[1] != path:
                        sys.exit(f"bench-bluez: asked for the {path} path, the transport used {fields[1]}")
                    return float(fields[2])
                finally:
                    stop(simulate)

            print(f"{size} bytes per transfer, {rounds} rounds; seconds from first byte to last answer")
            print(f"{'round':>5}  {'path':<8}  {'bare':>8}  {'dfu':>8}  {'no-wait':>8}  {'ratio':>6}  {'no-wait':>7}")
            results = {"acquired": ([], [], []), "dbus": ([], [], [])}
            for index in range(1, rounds + 1):
                for path in ("acquired", "dbus"):
                    bare = measure("bare", path)
                    dfu = measure("dfu", path)
                    quick = measure("dfu-no-wait", path)
                    for series, value in zip(results[path], (bare, dfu, quick)):
                        series.append(value)
                    print(f"{index:>5}  {path:<8}  {bare:8.3f}  {dfu:8.3f}  {quick:8.3f}  {bare / dfu:6.3f}  "
                          f"{bare / quick:7.3f}", flush=True)
            print()
            objects = (size + 4095) // 4096
            for path, series in results.items():
                bare, dfu, quick = (statistics.median(values) for values in series)
                print(f"median {path:<8}  bare {bare:.3f} s ({size / bare / 1000:.1f} kB/s)  "
                      f"dfu {dfu:.3f} s ({size / dfu / 1000:.1f} kB/s, ratio {bare / dfu:.3f})  "
                      f"dfu without the 400 ms wait {quick:.3f} s (ratio {bare / quick:.3f}, "
                      f"{(quick - bare) / objects * 1000:.2f} ms of protocol per 4 KiB object)")
        finally:
            for child in reversed(children):
                stop(child)


if __name__ == "__main__":
    main()
