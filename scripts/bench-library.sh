#!/usr/bin/env bash
# The same update through the command line and through the library's Getting Started program (issue 21), timed in
# one run: `nrfloader upload --target sim --sim-speed 0 blinky-pca10040` against Examples' GettingStarted (which
# does exactly that), alternating, BENCH_PAIRS pairs (default 15). Prints each side's median and spread of wall
# time and CPU time, and the ratio library / CLI. Both are builds of the same commit in one configuration
# (BENCH_CONFIGURATION, default release: a debug build's ArgumentParser alone costs the CLI about 0.1 s per run).
set -euo pipefail
cd "$(dirname "$0")/.."
configuration=${BENCH_CONFIGURATION:-release}
swift build -c "$configuration" --product nrfloader >/dev/null
(cd Examples && swift build -c "$configuration" --scratch-path ../.build --product GettingStarted >/dev/null)
cli=$(swift build -c "$configuration" --show-bin-path)/nrfloader
library=$(cd Examples && swift build -c "$configuration" --scratch-path ../.build --show-bin-path)/GettingStarted
python3 - "$cli" "$library" "${BENCH_PAIRS:-15}" <<'PY'
import os, resource, statistics, subprocess, sys, time
cli, library, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
commands = {
    "CLI": [cli, "upload", "--target", "sim", "--sim-speed", "0", "--quiet", "blinky-pca10040"],
    "library": [library],
}
times = {name: [] for name in commands}
cpu = {name: [] for name in commands}
for _ in range(pairs):
    for name, command in commands.items():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if result.returncode != 0:
            sys.exit(f"{name} failed ({result.returncode}): {result.stderr.decode()}")
        times[name].append(elapsed * 1000)
        cpu[name].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
for name in commands:
    print(f"{name:8} wall median {statistics.median(times[name]):6.1f} ms (min {min(times[name]):.1f}, max "
          f"{max(times[name]):.1f}); CPU median {statistics.median(cpu[name]):6.1f} ms")
print(f"ratio library / CLI: wall {statistics.median(times['library']) / statistics.median(times['CLI']):.2f}, "
      f"CPU {statistics.median(cpu['library']) / statistics.median(cpu['CLI']):.2f} ({pairs} pairs)")
PY
