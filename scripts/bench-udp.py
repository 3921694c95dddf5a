#!/usr/bin/env python3
"""Benchmarks SMP over UDP and the file system group against smpmgr 0.19.1 (smpclient 7.3.0), and prints the figures.

0. Start-up: one `echo` with each tool, which every other figure includes.
1. Image upload over UDP on loopback, `nrfloader upload --smp-mode upload-only` against `smpmgr image upload`, for a
   40 KiB and a 130 KiB MCUboot image (hash-only, made here), to a fresh `nrfloader simulate-udp` each time: once as
   Zephyr builds it by default (no MCUmgr parameters: nrfloader sizes requests to the default 384-byte buffer, and
   smpclient to its own UDP MTU), once answering parameters 1500,4.
2. A lost datagram: the same 130 KiB upload with request datagram 20 lost (`--drop 20`): the time it adds.
3. A fleet: one `nrfloader upload` of the 40 KiB image to 1, 10 and 100 devices of one `simulate-udp --devices N`,
   with `--parallel N`, as a ratio to one device.
4. `fs upload` and `fs download` of 100 KiB over serial (`simulate-serial --protocol smp`, unpaced and paced at
   115200 baud), nrfloader against `smpmgr file upload|download`.

Each figure is the median of ROUNDS runs (default 3). smpmgr's UDP transport always uses port 1337: every simulator
serves 127.0.0.N:1337 for a free N.

    scripts/bench-udp.py NRFLOADER SMPMGR [ROUNDS]
"""
import hashlib
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def hash_only_image(size):
    """An MCUboot image of `size` body bytes with a SHA-256 TLV and no signature, version 2.0.0."""
    body = bytes((i * 7 + i // 251) & 0xFF for i in range(size))
    header = struct.pack("<IIHHIIBBHII", 0x96F3B83D, 0, 32, 0, size, 0, 2, 0, 0, 0, 0)
    digest = hashlib.sha256(header + body).digest()
    tlvs = struct.pack("<HH", 0x6907, 4 + 4 + 32) + struct.pack("<BBH", 0x10, 0, 32) + digest
    return header + body + tlvs


class Simulator:
    """`simulate-udp` (or `simulate-serial`) in the background, stopped by pid."""

    next_host = 2

    def __init__(self, nrfloader, arguments, serial=False, folder=None):
        self.folder = folder
        if serial:
            self.port = os.path.join(folder, "tty")
            self.process = subprocess.Popen(
                [nrfloader, "simulate-serial", "--protocol", "smp", "--port", self.port] + arguments,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 30
            while not os.path.islink(self.port):
                if time.monotonic() > deadline:
                    raise SystemExit("simulate-serial made no port")
                time.sleep(0.01)
            return
        while True:
            host = f"127.0.0.{Simulator.next_host}"
            Simulator.next_host = Simulator.next_host % 250 + 2
            self.process = subprocess.Popen(
                [nrfloader, "simulate-udp", "--host", host, "--port", "1337"] + arguments,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            line = self.process.stdout.readline().decode()
            if line.startswith("ready "):
                self.host = host
                return
            self.process.wait()

    def stop(self):
        self.process.terminate()
        self.process.wait()


def timed(command, cwd=None):
    started = time.monotonic()
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        raise SystemExit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr.decode()[-2000:]}")
    return elapsed


def median(values):
    return statistics.median(values)


def start_up(nrfloader, smpmgr, rounds):
    print("0. Start-up and one request: `echo` over UDP on loopback (median seconds; part of every figure below)")
    sim = Simulator(nrfloader, [])
    ours = [timed([nrfloader, "echo", "x", "--target", f"udp:{sim.host}:1337"]) for _ in range(rounds)]
    theirs = [timed([smpmgr, "--ip", sim.host, "--timeout", "5", "os", "echo", "x"]) for _ in range(rounds)]
    sim.stop()
    print(f"   nrfloader {median(ours):.2f} s, smpmgr {median(theirs):.2f} s")


def udp_uploads(nrfloader, smpmgr, rounds, folder):
    print("1. MCUboot image upload over UDP on loopback (upload only, fresh device each run; median seconds)")
    print(f"   {'image':>8}  {'device buffer':<26}  {'nrfloader':>9}  {'smpmgr':>8}  {'nrfloader kB/s':>14}")
    images = {}
    for kib in (40, 130):
        path = os.path.join(folder, f"image-{kib}k.bin")
        with open(path, "wb") as file:
            file.write(hash_only_image(kib * 1024 - 32 - 40))
        images[kib] = path
    for kib, path in images.items():
        for label, extra in (("384 (no params, default)", []), ("1500,4 (params answered)", ["--smp-params", "1500,4"])):
            ours, theirs = [], []
            for _ in range(rounds):
                sim = Simulator(nrfloader, extra)
                ours.append(timed([nrfloader, "upload", "-q", "--smp-mode", "upload-only", "--target",
                                   f"udp:{sim.host}:1337", path]))
                sim.stop()
                sim = Simulator(nrfloader, extra)
                theirs.append(timed([smpmgr, "--ip", sim.host, "--timeout", "5", "image", "upload",
                                     os.path.basename(path)], cwd=folder))
                sim.stop()
            size = os.path.getsize(path)
            print(f"   {kib:>5} KiB  {label:<26}  {median(ours):>9.2f}  {median(theirs):>8.2f}  "
                  f"{size / median(ours) / 1000:>14.0f}")
    return images


def lost_datagram(nrfloader, image, rounds):
    print("2. A lost request datagram during a 130 KiB upload (upload only; median seconds)")
    clean, lossy = [], []
    for _ in range(rounds):
        for drop, times in (([], clean), (["--drop", "20"], lossy)):
            sim = Simulator(nrfloader, drop)
            times.append(timed([nrfloader, "upload", "-q", "--smp-mode", "upload-only", "--target",
                                f"udp:{sim.host}:1337", image]))
            sim.stop()
    print(f"   no loss {median(clean):.2f} s, request 20 lost {median(lossy):.2f} s: "
          f"the loss costs {median(lossy) - median(clean):.2f} s (limit 3 s)")


def fleet(nrfloader, image, rounds):
    print("3. A fleet of simulated UDP devices in one run (40 KiB image, default test-and-confirm, --parallel N; "
          "median seconds)")
    one = None
    for count in (1, 10, 100):
        times = []
        for _ in range(rounds):
            sim = Simulator(nrfloader, ["--devices", str(count)])
            targets = []
            for index in range(count):
                targets += ["--target", f"udp:{sim.host}:{1337 + index}"]
            times.append(timed([nrfloader, "upload", "-q", "--parallel", str(count), image] + targets))
            sim.stop()
        value = median(times)
        one = one or value
        print(f"   {count:>4} devices: {value:>6.2f} s, {value / one:>5.2f}x one device")


def serial_files(nrfloader, smpmgr, rounds, folder):
    print("4. fs upload and fs download of 100 KiB over serial (simulate-serial --protocol smp; median seconds; the")
    print("   simulator paces only the bytes it reads, so a paced line slows uploads, not downloads)")
    print(f"   {'line':<18}  {'nrfloader up':>12}  {'smpmgr up':>9}  {'nrfloader down':>14}  {'smpmgr down':>11}")
    local = os.path.join(folder, "file.bin")
    with open(local, "wb") as file:
        file.write(bytes((i * 13 + i // 253) & 0xFF for i in range(102400)))
    for label, extra in (("unpaced", []), ("115200 baud", ["--pace-baud", "115200"])):
        results = {"nu": [], "su": [], "nd": [], "sd": []}
        for _ in range(rounds):
            with tempfile.TemporaryDirectory() as run:
                sim = Simulator(nrfloader, extra, serial=True, folder=run)
                port = sim.port
                results["nu"].append(timed([nrfloader, "fs", "upload", "-q", "--no-resume", "--port", port, local,
                                            "/lfs/a.bin"]))
                results["nd"].append(timed([nrfloader, "fs", "download", "-q", "--port", port, "/lfs/a.bin",
                                            os.path.join(run, "a.back")]))
                results["su"].append(timed([smpmgr, "--port", port, "--timeout", "5", "file", "upload", local,
                                            "/lfs/b.bin"]))
                results["sd"].append(timed([smpmgr, "--port", port, "--timeout", "5", "file", "download",
                                            "/lfs/b.bin", os.path.join(run, "b.back")]))
                sim.stop()
                for name in ("a.back", "b.back"):
                    with open(os.path.join(run, name), "rb") as back, open(local, "rb") as original:
                        if back.read() != original.read():
                            raise SystemExit(f"{name}: the file did not come back whole")
        print(f"   {label:<18}  {median(results['nu']):>12.2f}  {median(results['su']):>9.2f}  "
              f"{median(results['nd']):>14.2f}  {median(results['sd']):>11.2f}")


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    nrfloader, smpmgr = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with tempfile.TemporaryDirectory() as folder:
        start_up(nrfloader, smpmgr, rounds)
        images = udp_uploads(nrfloader, smpmgr, rounds, folder)
        lost_datagram(nrfloader, images[130], rounds)
        fleet(nrfloader, images[40], rounds)
        serial_files(nrfloader, smpmgr, rounds, folder)


if __name__ == "__main__":
    main()
