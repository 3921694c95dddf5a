"""The station in a real browser, the way a person uses it: Debian's chromium driven by Playwright.

Starts the real `nrfloader serve` on a free loopback port, then, keyboard first: picks catalog firmware, picks two
simulated devices, presses Update and watches both reach "confirmed"; drops a corrupt file and reads the command
line's error for it; sends a good file and reads its info; cancels a job; reloads the page and opens a second tab,
which show the same jobs. A job's event stream, fetched by the page, is compared with `nrfloader upload --json`'s
lines for the same image. Screenshots go to docs/.

Usage: browser_check.py NRFLOADER CHROMIUM SCREENSHOT_DIR
"""

import json
import os
import re
import subprocess
import sys
import tempfile

from playwright.sync_api import expect, sync_playwright

nrfloader, chromium, shots = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 90_000
expect.set_options(timeout=TIMEOUT)
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def start_server(*arguments):
    server = subprocess.Popen(
        [nrfloader, "serve", "--listen", "127.0.0.1:0", "--json", "--no-scan", "--no-serial", *arguments],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    listening = json.loads(server.stdout.readline())
    return server, listening["url"]


def stop_server(server):
    server.terminate()
    out, err = server.communicate(timeout=60)
    return server.returncode, out, err


def cli_lines(*arguments, cwd=None):
    done = subprocess.run([nrfloader, *arguments], capture_output=True, text=True, cwd=cwd, timeout=120)
    return done.returncode, done.stdout.splitlines()


def steady(lines):
    """The lines that do not depend on timing: no thinned progress, no result (it carries the elapsed time)."""
    return [line for line in lines if '"event":"progress"' not in line and '"event":"result"' not in line]


def tab_to(page, element_id, limit=40):
    """Presses Tab until the element with `element_id` has the focus: it is reachable by keyboard alone."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.id") == element_id:
            return True
    return False


server, url = start_server("--sim", "sim", "--sim", "sim", "--sim", "sim:smp", "--sim-speed", "1", "--sd-req", "0x0101")
try:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1100, "height": 1000})
        page = context.new_page()
        page_errors = []
        page.on("pageerror", lambda error: page_errors.append(str(error)))
        page.set_default_timeout(TIMEOUT)
        page.goto(url)
        firmware = page.get_by_role("combobox", name="Firmware", exact=True)
        check(page.get_by_label("Firmware", exact=True).count() == 1, "one control is labelled Firmware")
        expect(firmware.locator("option")).not_to_have_count(0)
        first = page.get_by_role("checkbox", name=re.compile(r"^sim · "))
        second = page.get_by_role("checkbox", name=re.compile(r"^sim #2 · "))
        smp = page.get_by_role("checkbox", name=re.compile(r"^sim:smp · "))
        expect(first).to_have_count(1)
        expect(smp).to_have_count(1)

        # Keyboard only: Tab to the firmware list, choose, Tab to each device and press Space, Tab to Update, Enter.
        check(tab_to(page, "firmware"), "the Firmware list is reachable with Tab")
        page.keyboard.type("DFU self-test for nRF52 DK")
        expect(firmware).to_have_value("selftest-pca10040")
        expect(page.locator("#firmware-info")).to_contain_text("application")
        check(tab_to(page, "device-sim-1"), "the first simulated device is reachable with Tab")
        page.keyboard.press("Space")
        check(tab_to(page, "device-sim-2"), "the second simulated device is reachable with Tab")
        page.keyboard.press("Space")
        check(first.is_checked() and second.is_checked() and not smp.is_checked(), "Space ticked the two devices")
        check(tab_to(page, "update"), "the Update button is reachable with Tab")
        check(page.get_by_role("button", name="Update").evaluate("b => b === document.activeElement"),
              "the focused button is named Update")
        page.keyboard.press("Enter")

        bars = page.get_by_role("progressbar")
        expect(bars).to_have_count(2)
        seen = set()
        for _ in range(400):
            seen.update(bars.evaluate_all("bs => bs.map(b => b.getAttribute('aria-valuenow'))"))
            if page.locator("#jobs li.running").count() == 0:
                break
            page.wait_for_timeout(50)
        statuses = [page.locator(f"#job-{n} .status") for n in (1, 2)]
        for n, status in enumerate(statuses, 1):
            expect(status).to_contain_text(re.compile(r"^confirmed: part 1/1: application confirmed by the device"))
            expect(page.locator(f"#job-{n} [role=progressbar]")).to_have_attribute("aria-valuenow", "100")
        check(any(value not in ("0", "100") for value in seen), f"the bars moved through {sorted(seen, key=int)[:6]}…")
        page.screenshot(path=os.path.join(shots, "serve-confirmed.png"), full_page=True)

        # The event stream of job 1 against upload --json for the same image on the same kind of device.
        stream = page.evaluate("fetch('api/jobs/1/events').then(r => r.text())")
        events = [frame.split("\n")[1][len("data: "):] for frame in stream.strip().split("\n\n")]
        status, cli = cli_lines("upload", "selftest-pca10040", "--target", "sim", "--json", "--sim-speed", "1")
        check(status == 0, "upload --target sim exits 0")
        check(steady(events) == steady(cli), "job 1's events are upload --json's lines")
        check('"event":"result"' in events[-1] and '"event":"result"' in cli[-1],
              "both end with a result object")
        result_keys = lambda line: sorted(json.loads(line).keys())
        check(result_keys(events[-1]) == result_keys(cli[-1]), "the result objects have the same members")

        # A corrupt file, dropped: the command line's message for the same file, and its exit status.
        corrupt = b"PK\x03\x04this is not a zip archive"
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "corrupt.zip"), "wb") as file:
                file.write(corrupt)
            status, cli = cli_lines("upload", "corrupt.zip", "--target", "sim", "--json", cwd=folder)
        expected = json.loads(cli[-1])
        transfer = page.evaluate_handle(
            "bytes => { const t = new DataTransfer();"
            " t.items.add(new File([new Uint8Array(bytes)], 'corrupt.zip')); return t; }", list(corrupt))
        page.dispatch_event("#drop-zone", "drop", {"dataTransfer": transfer})
        alert = page.get_by_role("alert")
        expect(alert).to_have_text(f"Error: {expected['message']} (exit status {expected['exit_status']})")
        check(status == 65, "upload exits 65 for the corrupt file; the page shows its message and status")
        page.screenshot(path=os.path.join(shots, "serve-error.png"), full_page=True)

        # A good file, picked: its info before anything is sent; the file is now the chosen firmware.
        page.get_by_label("Firmware file").set_input_files(os.path.join(root, "Resources/firmware/blinky-pca10056.hex"))
        expect(firmware).to_have_value("upload-1")
        expect(page.locator("#firmware-info")).to_contain_text("blinky-pca10056.hex")
        expect(page.locator("#firmware-info")).to_contain_text("Part")
        expect(page.locator("#firmware-error")).to_have_text("")
        check(True, "the sent file is checked, its info shown, and it is the chosen firmware")

        # Cancel: a job on the second device, stopped the way Ctrl-C stops upload.
        first.uncheck()
        firmware.select_option("selftest-pca10040")
        page.get_by_role("button", name="Update").click()
        job = page.locator("#job-3")
        expect(job.get_by_role("progressbar")).not_to_have_attribute("aria-valuenow", "0")
        job.get_by_role("button", name="Cancel job 3").click()
        expect(job.locator(".status")).to_have_text(re.compile(r"^cancelled: Error: .* \(exit status 130\)$"))
        check("confirmed" not in job.locator(".status").text_content(), "a cancelled job does not say confirmed")

        # A busy device: the second job on it is refused with the station's message.
        second.check()
        page.get_by_role("button", name="Update").click()
        page.get_by_role("button", name="Update").click()
        expect(page.locator("#update-status")).to_have_text(re.compile(r"^Error: device sim #2 is busy with job \d+"))
        expect(page.locator("#jobs li.running")).to_have_count(0)

        # The history survives a reload, and a second tab sees the same jobs.
        page.reload()
        expect(page.locator("#jobs > li")).to_have_count(4)
        expect(firmware.locator("optgroup[label=Files] option")).to_have_text(["blinky-pca10056.hex"])
        other = browser.new_context().new_page()  # another browser: its own cookies and storage
        other.goto(url)
        expect(other.locator("#jobs > li")).to_have_count(4)
        for n in (1, 2):
            expect(other.locator(f"#job-{n} .status")).to_contain_text(re.compile("^confirmed: "))
        expect(other.locator("#job-3 .status")).to_contain_text(re.compile("^cancelled: "))
        tab = context.new_page()
        tab.goto(url)
        expect(tab.locator("#jobs > li")).to_have_count(4)
        page.screenshot(path=os.path.join(shots, "serve-history.png"), full_page=True)
        check(True, "reload and a second browser show the same four jobs")
        check(page_errors == [], f"no script error on the page {page_errors}")
        browser.close()
finally:
    code, out, err = stop_server(server)
check(code == 130, f"SIGTERM: nrfloader serve exits 130 (got {code})")
check(out.splitlines()[-1].startswith('{"event":"error","exit_status":130,'), "stdout ends with the error object")

# With a token: the page answers 401 without it; opened once as /?token=TOKEN, it works on its cookie.
with tempfile.TemporaryDirectory() as folder:
    token_file = os.path.join(folder, "token")
    with open(token_file, "w") as file:
        file.write("s3cret-station\n")
    server, url = start_server("--token-file", token_file, "--sim", "sim", "--sim-speed", "0")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page()
            check(page.goto(url).status == 401, "without the token the page gets 401")
            check(page.goto(url + "?token=s3cret-station").status == 200, "with ?token= the page opens")
            page.goto(url)
            page.get_by_role("combobox", name="Firmware").select_option("blinky-pca10040")
            page.get_by_role("checkbox", name=re.compile(r"^sim · ")).check()
            page.get_by_role("button", name="Update").click()
            expect(page.locator("#job-1 .status")).to_contain_text(re.compile("^confirmed: "))
            check(True, "on its cookie, the page updates a device")
            browser.close()
    finally:
        code, _, _ = stop_server(server)
    check(code == 130, "SIGTERM: exit 130")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("browser checks passed")
