#!/usr/bin/env python3
"""Benchmark updating several devices in one run (issue 14): the wall-clock time of one `nrfloader upload` to 1, 2,
4 and 8 devices, as a ratio to one device measured in the same run. Goal: 4 devices in at most 1.6x one device.

Two settings:
- `sim`: the in-process simulator with its link model in real time (`--target sim` repeated, `--sim-speed 1`);
- `rig`: the bluezoo test rig (testrig.md, rung 1) on a private dbus-daemon, one central adapter (hci0) and one
  `nrfloader simulate --flash instant` per device, each on its own peripheral adapter (fresh for every
  measurement: a completed DFU leaves the simulated device in its new application).

BENCH_FLEET_QUIRKS (comma-separated) starts the rig with those bluetoothd 5.66 quirks (Tests/Rig/bluezoo_rig.py), e.g.
`unsignalled-services-resolved`, with which a device's services are seen resolved only at the next property re-read
(about 1 s after `Connect` answers), as on real bluetoothd, where resolution follows the link.

BENCH_FLEET_ACQUIRE_WRITE=1 has each simulated device offer `AcquireWrite`, so the central sends packets through a
socket, the path real bluetoothd gives every central (bluezoo offers it only when the server application does);
without it every packet is a `WriteValue` call that bluezoo forwards in Python, BlueZ's fallback path.

BENCH_FLEET_CPU=1 also prints, for each rig run, the CPU seconds spent while the upload ran: the central (`nrfloader
upload`), the simulated devices (`nrfloader simulate`) and the rig (bluezoo and dbus-daemon), against its wall time; on a machine of N cores a
run whose CPU seconds exceed N × its wall time is bound by the processor, not by the protocol.

Each count is measured ROUNDS times, the counts taking turns within a round, and the median is printed. COUNTS (comma-separated, default 1,2,4,8) picks the
device counts; 1 is always measured, since every ratio is to it.

    scripts/bench-fleet.py NRFLOADER [ROUNDS] [sim|rig|both] [COUNTS]
"""
import os
import resource
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, ".build-rig/venv/bin/python")
PACKAGE = os.path.join(ROOT, "Tests/Data/packages/nrfutil617-selftest-signed.zip")
PUBLIC_KEY = os.path.join(ROOT, "Tests/Data/packages/nrfutil-test-key.pub.pem")
COUNTS = (1, 2, 4, 8)
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


def process_cpu(pid):
    """User and system CPU seconds of a running process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def peripheral_address(index):
    return f"C0:DE:00:00:{index + 1:02X}:02"


def wait_for_line(process, needle, limit, what):
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
    sys.exit(f"bench-fleet: {what} did not report '{needle}' within {limit} s:\n{buffer.decode(errors='replace')}")


def stop(process):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def timed_upload(argv, env=None):
    started = time.monotonic()
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"bench-fleet: {' '.join(argv)} exited {result.returncode}:\n{result.stderr.strip()}")
    return elapsed


def report(setting, medians):
    one = medians[1]
    print(f"{setting}: median seconds for the whole run, and the ratio to one device")
    for count in sorted(medians):
        print(f"  {count} device{'s' if count > 1 else ' '}  {medians[count]:7.2f} s  ratio {medians[count] / one:5.2f}"
              f"  ({count * one / medians[count]:4.2f} devices' worth of work per single-device time)")
    if 4 in medians:
        verdict = "meets" if medians[4] <= 1.6 * one else "misses"
        print(f"  4 devices / 1 device = {medians[4] / one:.2f} ({verdict} the goal of <= 1.6)", flush=True)


def interleaved(measure, rounds, setting):
    """Medians per count; each round measures every count once, so a change in the machine's load falls on all."""
    times = {count: [] for count in COUNTS}
    for _ in range(rounds):
        for count in COUNTS:
            times[count].append(measure(count))
    for count in COUNTS:
        print(f"  {setting} {count}: {' '.join(f'{t:.2f}' for t in times[count])}", file=sys.stderr, flush=True)
    return {count: statistics.median(times[count]) for count in COUNTS}


def bench_sim(nrfloader, rounds):
    def measure(count):
        argv = [nrfloader, "upload", "--sim-speed", "1", "--parallel", "8", "-q", "selftest-pca10040"]
        return timed_upload(argv + ["--target", "sim"] * count)

    medians = interleaved(measure, rounds, "sim")
    report("in-process simulator (--sim-speed 1, selftest-pca10040, 131804 bytes)", medians)


def bench_rig(nrfloader, rounds):
    if not os.access(VENV_PYTHON, os.X_OK):
        sys.exit("bench-fleet: the rig is not set up: run Tests/Rig/setup.sh")
    children = []
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
            adapters = ["-a", "00:11:22:33:44:01"]
            for index in range(max(COUNTS)):
                adapters += ["-a", peripheral_address(index)]
            quirks = []
            for quirk in filter(None, os.environ.get("BENCH_FLEET_QUIRKS", "").split(",")):
                quirks += ["--quirk", quirk]
            zoo = subprocess.Popen(
                [VENV_PYTHON, os.path.join(ROOT, "Tests/Rig/bluezoo_rig.py"), "--auto-enable", "--scan-interval", "1"]
                + adapters + quirks, env=env, stdout=log, stderr=log)
            children.append(zoo)
            for _ in range(100):
                probe = subprocess.run(
                    ["dbus-send", "--system", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                     "org.freedesktop.DBus.NameHasOwner", "string:org.bluez"], env=env, capture_output=True, text=True)
                if "boolean true" in probe.stdout:
                    break
                time.sleep(0.1)
            else:
                sys.exit("bench-fleet: bluezoo did not start")

            acquire_write = ["--acquire-write"] if os.environ.get("BENCH_FLEET_ACQUIRE_WRITE") else []
            path = "AcquireWrite sockets" if acquire_write else "WriteValue calls"

            def measure(count):
                simulators = []
                try:
                    for index in range(count):
                        simulate = subprocess.Popen(
                            [nrfloader, "simulate", "--adapter", f"hci{index + 1}", "--kind", "secure", "--sd-id",
                             "0x0101", "--key", PUBLIC_KEY, "--flash", "instant", "--json"] + acquire_write,
                            env=env, stdout=subprocess.PIPE, stderr=log)
                        simulators.append(simulate)
                        wait_for_line(simulate, "ready", 20, "nrfloader simulate")
                    argv = [nrfloader, "upload", "--adapter", "hci0", "--parallel", "8", "-q", PACKAGE]
                    for index in range(count):
                        argv += ["--target", peripheral_address(index)]
                    zoo_before, daemon_before = process_cpu(zoo.pid), process_cpu(daemon.pid)
                    devices_before = sum(process_cpu(simulate.pid) for simulate in simulators)
                    central_before = children_cpu()
                    elapsed = timed_upload(argv, env)
                    central = children_cpu() - central_before
                    devices = sum(process_cpu(simulate.pid) for simulate in simulators) - devices_before
                    zoo_cpu = process_cpu(zoo.pid) - zoo_before
                    daemon_cpu = process_cpu(daemon.pid) - daemon_before
                finally:
                    for simulate in simulators:
                        stop(simulate)
                if os.environ.get("BENCH_FLEET_CPU"):
                    total = central + devices + zoo_cpu + daemon_cpu
                    print(f"  rig {count}: {elapsed:.2f} s wall; CPU during the upload: central {central:.2f} s, "
                          f"simulated devices {devices:.2f} s, bluezoo {zoo_cpu:.2f} s (one thread), dbus-daemon "
                          f"{daemon_cpu:.2f} s ({total / elapsed:.2f} cores busy)", file=sys.stderr, flush=True)
                return elapsed

            medians = interleaved(measure, rounds, "rig")
            report(f"bluezoo rig, one central adapter, packets as {path} (nrfutil617-selftest-signed.zip, 131804 bytes)",
                   medians)
        finally:
            for child in reversed(children):
                stop(child)


def main():
    global COUNTS
    nrfloader = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    which = sys.argv[3] if len(sys.argv) > 3 else "both"
    if len(sys.argv) > 4:
        COUNTS = tuple(sorted({1} | {int(count) for count in sys.argv[4].split(",")}))
    if which in ("sim", "both"):
        bench_sim(nrfloader, rounds)
    if which in ("rig", "both"):
        bench_rig(nrfloader, rounds)


if __name__ == "__main__":
    main()
