#!/usr/bin/env python3
"""How nrfloader ends against a hostile SMP device: `upload --port` against
`simulate-serial --protocol smp --smp-misbehave KIND`, for every kind, with the default options and with
`--retries 1 --timeout 5`. Prints one row per run: the exit status, the seconds to the end, the bound the options
allow (timeout x (retries + 1) plus the reset waits, plus the seconds a well-behaved device of the same run took for
the same upload: the progress made before the device turns), and the error line.

Usage: scripts/hostile-smp.py [--binary PATH] [--kinds k1,k2] [--image PATH]
A measurement, not a test: it exits 1 only if a run outlived its bound by far (a hang) or exited 0 without a result.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

KINDS = ["stuck-offset", "offset-back", "ignored-state-write", "duplicate-keys", "huge-length", "no-return", "drip",
         "garbage"]
# --timeout and --retries defaults (UploadOptions), and the reset waits (the SMP reset disconnect wait, 5 s).
DEFAULT_TIMEOUT, DEFAULT_RETRIES, RESET_WAITS = 20, 3, 5


def run(binary, image, kind, options, baseline=0.0):
    with tempfile.TemporaryDirectory() as work:
        port = os.path.join(work, "tty")
        misbehave = ["--smp-misbehave", kind] if kind else []
        simulator = subprocess.Popen([binary, "simulate-serial", "--protocol", "smp", *misbehave, "--port", port],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                if os.path.exists(port):
                    break
                time.sleep(0.01)
            timeout = float(options[options.index("--timeout") + 1]) if "--timeout" in options else DEFAULT_TIMEOUT
            retries = int(options[options.index("--retries") + 1]) if "--retries" in options else DEFAULT_RETRIES
            bound = timeout * (retries + 1) + RESET_WAITS + baseline
            start = time.monotonic()
            upload = subprocess.run([binary, "upload", "--port", port, "--json", *options, image],
                                    capture_output=True, text=True, timeout=bound * 3 + 30)
            seconds = time.monotonic() - start
        finally:
            simulator.send_signal(signal.SIGINT)
            simulator.wait(timeout=10)
    final = json.loads(upload.stdout.strip().split("\n")[-1])
    message = final.get("message") or final.get("state")
    return upload.returncode, seconds, bound, message


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/debug/nrfloader")
    parser.add_argument("--image", default="Tests/Data/mcuboot/ed25519.bin")
    parser.add_argument("--kinds", default=",".join(KINDS))
    arguments = parser.parse_args()
    bad = False
    baselines = {}
    for options in ([], ["--retries", "1", "--timeout", "5"]):
        status, seconds, _, message = run(arguments.binary, arguments.image, None, options)
        baselines[" ".join(options)] = seconds
        print(f"well-behaved device, {' '.join(options) or 'defaults'}: exit {status} in {seconds:.1f} s ({message})")
    print(f"{'misbehaviour':<20} {'options':<26} {'exit':>4} {'seconds':>8} {'bound':>6}  message")
    for kind in arguments.kinds.split(","):
        for options in ([], ["--retries", "1", "--timeout", "5"]):
            status, seconds, bound, message = run(
                arguments.binary, arguments.image, kind, options, baselines[" ".join(options)])
            label = " ".join(options) or "defaults"
            print(f"{kind:<20} {label:<26} {status:>4} {seconds:>8.1f} {bound:>6.0f}  {message[:110]}", flush=True)
            bad |= seconds > bound or (status == 0 and message != "confirmed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
