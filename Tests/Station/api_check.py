"""The station's API from outside, against the real `nrfloader serve`: schemathesis over the served OpenAPI
document (no server error, responses as documented), then the safety rules a program meets at the door.

Usage: api_check.py NRFLOADER SCHEMATHESIS
"""

import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

nrfloader, schemathesis = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def serve(*arguments):
    server = subprocess.Popen(
        [nrfloader, "serve", "--json", "--no-scan", "--no-serial", "--sim-speed", "0", *arguments],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    return server, json.loads(line) if line else None


def stop(server):
    server.terminate()
    out, err = server.communicate(timeout=60)
    return server.returncode, out, err


def status_of(url, method="GET", headers=None, body=None):
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


# schemathesis: every operation, generated inputs; no 5xx, statuses, content types and bodies as documented.
server, listening = serve("--listen", "127.0.0.1:0")
try:
    base = listening["url"]
    with tempfile.TemporaryDirectory() as scratch:
        run = subprocess.run(
            # positive_data_acceptance expects every schema-valid body to be taken, but a schema cannot say what a
            # valid firmware file is: random bytes are rightly refused (422, or 400 for a missing --sd-req).
            [schemathesis, "run", base + "api/openapi.json", "--url", base.rstrip("/"), "--checks", "all",
             "--exclude-checks", "positive_data_acceptance",
             "--max-examples", os.environ.get("STATION_SCHEMATHESIS_EXAMPLES", "40"), "--workers", "1",
             "--no-color"],
            capture_output=True, text=True, timeout=900, cwd=scratch)  # its .schemathesis cache there
    print(run.stdout[-4000:])
    if run.returncode != 0:
        print(run.stderr[-4000:], file=sys.stderr)
    check(run.returncode == 0, "schemathesis passes against the served OpenAPI document")
    status, _ = status_of(base + "api/catalog")
    check(status == 200, "the server still serves after schemathesis")
finally:
    code, _, err = stop(server)
check(code == 130, "SIGTERM after schemathesis: exit 130")

# Off loopback without a token: refuses to start, exit 64, the reason on stderr.
done = subprocess.run([nrfloader, "serve", "--listen", "0.0.0.0:0", "--no-scan", "--json"], capture_output=True,
                      text=True, timeout=60)
check(done.returncode == 64, f"off loopback without --token-file: exit 64 (got {done.returncode})")
check(done.stderr.startswith("Error: 0.0.0.0 is not a loopback address"), "with the reason: " + done.stderr.strip())
check(json.loads(done.stdout.splitlines()[-1])["exit_status"] == 64, "and the error object on stdout")

# Off loopback with a token: every request without it gets 401, with it the answer.
with tempfile.TemporaryDirectory() as folder:
    token_file = os.path.join(folder, "token")
    with open(token_file, "w") as file:
        file.write("correct horse battery staple\n")
    server, listening = serve("--listen", "0.0.0.0:0", "--token-file", token_file)
    try:
        base = f"http://127.0.0.1:{listening['port']}/"
        paths = ["", "station.js", "station.css", "api/openapi.json", "api/catalog", "api/devices", "api/jobs",
                 "api/jobs/1", "api/jobs/1/events", "api/firmware/blinky-pca10040", "nothing"]
        refused = [path for path in paths if status_of(base + path)[0] != 401]
        refused += [p for p in ["api/jobs", "api/firmware?name=a.bin", "api/jobs/1/cancel"]
                    if status_of(base + p, "POST", body=b"{}")[0] != 401]
        check(refused == [], f"every request without the token gets 401 (not: {refused})")
        wrong = status_of(base + "api/jobs", headers={"Authorization": "Bearer wrong"})[0]
        check(wrong == 401, "a wrong token gets 401")
        bearer = {"Authorization": "Bearer correct horse battery staple"}
        check(status_of(base + "api/catalog", headers=bearer)[0] == 200, "the token opens the API")
        status, body = status_of(base + "?token=correct%20horse%20battery%20staple")
        check(status == 200 and b"<title>nrfloader station</title>" in body, "and the page, by ?token=")
        # A program drives a job with the token, and reads its result at the mapped HTTP status.
        status, body = status_of(base + "api/jobs", "POST", {**bearer, "Content-Type": "application/json"},
                                 json.dumps({"firmware": "blinky-pca10040", "devices": ["sim-1"]}).encode())
        check(status == 202, "a job starts with the token")
        job = json.loads(body)["jobs"][0]["id"]
        status, body = status_of(base + f"api/jobs/{job}/result", headers=bearer)
        check(status == 200 and json.loads(body)["event"] == "result", "its result: 200 and the result line")
        # Another site's page cannot drive the station through the operator's browser.
        status, body = status_of(base + "api/jobs", "POST",
                                 {**bearer, "Origin": "http://evil.example", "Content-Type": "application/json"},
                                 json.dumps({"firmware": "blinky-pca10040", "devices": ["sim-1"]}).encode())
        check(status == 403, "a request from another origin gets 403")
    finally:
        code, out, err = stop(server)
    check(code == 130, "SIGTERM: exit 130")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("API checks passed")
