"""Figures for the flashing station (`nrfloader serve`), printed, never asserted.

- Update -> confirmed through the page (Playwright, Debian's chromium) against `upload --target sim`, same image;
- eight simulated devices through the page against the command line's fleet (`upload --target sim` x 8);
- the server's resident memory at rest and at its peak with eight jobs running;
- requests per second of GET /api/catalog (wrk on loopback);
- the page's weight in bytes.

Usage: bench-station.py NRFLOADER CHROMIUM WRK
"""

import json
import re
import subprocess
import sys
import threading
import time
import urllib.request

from playwright.sync_api import expect, sync_playwright

nrfloader, chromium, wrk = sys.argv[1:4]
IMAGE, SPEED = "selftest-pca10040", "1"
expect.set_options(timeout=120_000)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("VmRSS:")).split()[1])


def serve(*arguments):
    server = subprocess.Popen([nrfloader, "serve", "--listen", "127.0.0.1:0", "--json", "--no-scan", "--no-serial",
                               "--sim-speed", SPEED, *arguments], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    return server, json.loads(server.stdout.readline())["url"]


def timed(arguments):
    started = time.monotonic()
    subprocess.run([nrfloader, *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def page_update(page, url, devices):
    """Presses Update for `devices` and returns the seconds until every new job says confirmed."""
    page.goto(url)
    page.get_by_role("combobox", name="Firmware").select_option(IMAGE)
    for device in devices:
        page.locator(f"#device-{device}").check()
    before = page.locator("#jobs > li").count()
    started = time.monotonic()
    page.get_by_role("button", name="Update").click()
    # Polled every 20 ms in the page itself (expect's back-off would add up to a second).
    page.wait_for_function(f"document.querySelectorAll('#jobs > li.confirmed').length >= {before + len(devices)}",
                           polling=20, timeout=120_000)
    elapsed = time.monotonic() - started
    with urllib.request.urlopen(url + "api/jobs") as response:
        jobs = json.loads(response.read())["jobs"][:len(devices)]
    return elapsed, max(job["elapsed_ms"] for job in jobs) / 1000


single_cli = timed(["upload", IMAGE, "--target", "sim", "--sim-speed", SPEED, "-q"])
fleet_cli = timed(["upload", IMAGE, "--sim-speed", SPEED, "-q", *["--target", "sim"] * 8])
fleet_cli_8 = timed(["upload", IMAGE, "--sim-speed", SPEED, "-q", "--parallel", "8", *["--target", "sim"] * 8])

server, url = serve(*["--sim", "sim"] * 8)
try:
    time.sleep(1)
    rest_before_page = rss_kib(server.pid)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        # The page forbids eval; the benchmark polls with a string predicate, so it bypasses the policy.
        page = browser.new_page(bypass_csp=True)
        single_page = page_update(page, url, ["sim-1"])
        time.sleep(1)
        rest = rss_kib(server.pid)
        peak = [rest]
        sampling = True

        def sample():
            while sampling:
                peak[0] = max(peak[0], rss_kib(server.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        fleet_page = page_update(page, url, [f"sim-{n}" for n in range(1, 9)])
        sampling = False
        sampler.join()
        browser.close()

    # The page's weight: the HTML, CSS and script, and the JSON the page fetches as it opens.
    weights = {}
    for path in ["", "station.css", "station.js", "api/catalog", "api/devices"]:
        with urllib.request.urlopen(url + path) as response:
            weights[path or "index.html"] = len(response.read())

    load = subprocess.run([wrk, "-t2", "-c16", "-d5s", "--latency", url + "api/catalog"], capture_output=True,
                          text=True, check=True).stdout
    requests = re.search(r"Requests/sec:\s+([\d.]+)", load).group(1)
    latency = re.search(r"50%\s+(\S+)", load).group(1)
    after_load = rss_kib(server.pid)
finally:
    server.terminate()
    server.wait(timeout=60)

static = weights["index.html"] + weights["station.css"] + weights["station.js"]
print(f"image {IMAGE} (131804 bytes), simulated Secure DFU at --sim-speed {SPEED}; binary {nrfloader}")
print(f"update -> confirmed, one device:   page {single_page[0]:6.2f} s (the job itself {single_page[1]:.2f} s)   "
      f"upload --target sim {single_cli:6.2f} s (the whole process)")
print(f"eight devices, all confirmed:      page {fleet_page[0]:6.2f} s (slowest job {fleet_page[1]:.2f} s)   "
      f"CLI fleet {fleet_cli:6.2f} s (--parallel 4, the default), {fleet_cli_8:6.2f} s (--parallel 8)")
print(f"server RSS: {rest_before_page / 1024:.1f} MiB at start, {rest / 1024:.1f} MiB at rest after a job, "
      f"{peak[0] / 1024:.1f} MiB peak with 8 jobs, {after_load / 1024:.1f} MiB after the load test")
print(f"GET /api/catalog: {requests} requests/s (wrk -t2 -c16 -d5s, loopback), median latency {latency}")
print(f"page weight: {static} bytes (index.html {weights['index.html']}, station.css {weights['station.css']}, "
      f"station.js {weights['station.js']}), plus {weights['api/catalog']} + {weights['api/devices']} bytes of "
      f"catalog and device JSON as it opens")
