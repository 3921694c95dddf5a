#!/usr/bin/env bash
# Start-up cost of nrfloader against a static hello-world Swift executable, measured in the same run:
#   scripts/bench-startup.sh [BINARY...]     (default: bin/nrfloader, from scripts/build.sh)
# For each binary, `--version` and `list --json` run RUNS times (default 300) under hyperfine (Debian's
# hyperfine, installed when missing), interleaved with the hello world built here with `swiftc -O -static-stdlib`.
# Prints the median and the minimum wall time and the mean user+system CPU time of each, and each one's ratio to
# hello world's. On a busy machine the medians swing; the minimum and the CPU time are the steadier figures.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-300}
[ $# -gt 0 ] || set -- bin/nrfloader
command -v hyperfine > /dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hyperfine > /dev/null
}
work=.build-measure
mkdir -p "$work"
[ -x "$work/hello" ] || {
    echo 'print("hello")' > "$work/hello.swift"
    swiftc -O -static-stdlib "$work/hello.swift" -o "$work/hello"
    strip "$work/hello"
}
commands=("$work/hello")
for binary in "$@"; do commands+=("$binary --version" "$binary list --json"); done
hyperfine -N --warmup 30 --runs "$runs" --export-json "$work/startup.json" "${commands[@]}" > /dev/null
python3 - "$work/startup.json" <<'PYTHON'
import json, statistics, sys

results = json.load(open(sys.argv[1]))["results"]
base = None
for result in results:
    times = sorted(result["times"])
    median, minimum = statistics.median(times) * 1000, times[0] * 1000
    cpu = (result["user"] + result["system"]) * 1000
    base = base or (median, minimum, cpu)
    print(f"{result['command']:40s} median {median:6.2f} ms ({median / base[0]:4.2f}x)  "
          f"min {minimum:6.2f} ms ({minimum / base[1]:4.2f}x)  user+sys {cpu:5.2f} ms ({cpu / base[2]:4.2f}x)")
PYTHON
