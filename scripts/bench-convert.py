#!/usr/bin/env python3
"""Benchmark `nrfloader convert` against `objcopy -I ihex -O binary --gap-fill 0xff` in the same run.

A 16 MiB image of random bytes is written as Intel HEX by objcopy itself, then both tools convert it
back, alternating, for several rounds. Prints each round, the median wall time of each, their ratio,
and each tool's peak resident memory, against the size of the output.

Peak memory comes from GNU time (`/usr/bin/time -f %M`), not from this script's own wait4: Linux carries
the parent's high-water mark into a child it spawns, so a child of Python never reports less than
Python's own ~13 MB.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

def run(argv, report):
    start = time.perf_counter()
    status = subprocess.call(["/usr/bin/time", "-f", "%M", "-o", report] + argv)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{argv[0]} failed with status {status}")
    with open(report) as f:
        return elapsed, int(f.read().split()[-1]) * 1024

def main():
    tool = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bin/nrfloader")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    objcopy = subprocess.check_output(["which", "objcopy"], text=True).strip()
    size = 16 << 20
    with tempfile.TemporaryDirectory() as work:
        raw = os.path.join(work, "image.raw")
        with open(raw, "wb") as f:
            f.write(os.urandom(size))
        hexfile = os.path.join(work, "image.hex")
        subprocess.check_call([objcopy, "-I", "binary", "-O", "ihex", "--change-addresses", "0x26000", raw, hexfile])
        print(f"input: {os.path.getsize(hexfile) / 1e6:.1f} MB Intel HEX -> {size >> 20} MiB binary, {rounds} rounds")
        ours_out = os.path.join(work, "ours.bin")
        theirs_out = os.path.join(work, "objcopy.bin")
        report = os.path.join(work, "time.txt")
        ours, theirs, ours_rss, theirs_rss = [], [], [], []
        for round_number in range(1, rounds + 1):
            t, rss = run([objcopy, "-I", "ihex", "-O", "binary", "--gap-fill", "0xff", hexfile, theirs_out], report)
            theirs.append(t)
            theirs_rss.append(rss)
            # nrfloader runs as a user runs it: summary line, SHA-256 and all (its stderr goes to the console).
            t, rss = run([tool, "convert", hexfile, "-o", ours_out], report)
            ours.append(t)
            ours_rss.append(rss)
            print(f"round {round_number}: objcopy {theirs[-1] * 1000:7.1f} ms   nrfloader {ours[-1] * 1000:7.1f} ms")
        with open(ours_out, "rb") as a, open(theirs_out, "rb") as b:
            same = a.read() == b.read()
        if not same:
            sys.exit("outputs differ")
        m_ours, m_theirs = statistics.median(ours), statistics.median(theirs)
        print(f"median: objcopy {m_theirs * 1000:.1f} ms, nrfloader {m_ours * 1000:.1f} ms, "
              f"nrfloader is {m_theirs / m_ours:.2f}x faster (target >= 2x)")
        print(f"peak RSS: objcopy {max(theirs_rss) / 2**20:.1f} MiB, nrfloader {max(ours_rss) / 2**20:.1f} MiB "
              f"= {max(ours_rss) / size:.2f}x the {size >> 20} MiB output (target <= 2x); outputs identical")

if __name__ == "__main__":
    main()
