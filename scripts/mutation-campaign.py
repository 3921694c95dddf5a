#!/usr/bin/env python3
"""Seeded mutation campaign against the built nrfloader, as a hostile user would try it (issue 16, point 7).

Package mutants (from the reference packages and the shared fuzz corpus) go through `info --json` and
`upload --target sim[:legacy] --json`; hostile catalogs go through `list` and `info ID` (human and JSON). Every run is
classified:

  rejected           a documented non-zero exit status, one `Error:` line, and (with --json) a final error object
                     carrying that status
  accepted-correct   exit 0, and the parts uploaded (or listed) are exactly the manifest's, each with the bytes and
                     CRC-32 of its image; human output holds no raw control character
  bad                a trap or signal, a hang (no exit within the time limit), an exit status the table does not
                     document, an exit 0 that skipped a part or confirmed a wrong image, a broken --json contract, or
                     raw control characters reaching human output

Usage:
  scripts/mutation-campaign.py [--seed N] [--packages N] [--catalogs N] [--binary PATH] [--jobs N] [--keep DIR]

Exits 1 when any run is bad. Mutants that were bad are written to --keep (default .campaign/bad) to replay; with
--corpus DIR, rejected package mutants that reached the init packet checks are added to the fuzz corpus there.
"""

import argparse
import concurrent.futures
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import zipfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTED = {0, 64, 65, 66, 69, 70, 73, 74, 75, 76, 130}
PART_NAMES = {
    "application": "application",
    "softdevice": "softdevice",
    "bootloader": "bootloader",
    "softdevice_bootloader": "softdevice+bootloader",
}
TIME_LIMIT = 30


def seed_packages():
    """The reference packages and the shared fuzz corpus's packages, smallest first (name, bytes)."""
    paths = []
    for folder in ("Tests/Data/packages", "Tests/Fuzz/Corpus/package"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".zip"):
                paths.append(os.path.join(ROOT, folder, name))
    seeds = []
    for path in paths:
        with open(path, "rb") as handle:
            data = handle.read()
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                manifest = json.loads(archive.read("manifest.json"))
                files = {name: archive.read(name) for name in archive.namelist()}
        except Exception:
            continue
        seeds.append((os.path.basename(path), manifest, files))
    return seeds


def build_zip(manifest, files, manifest_text=None):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", manifest_text if manifest_text is not None else json.dumps(manifest))
        for name, data in files.items():
            if name != "manifest.json":
                archive.writestr(name, data)
    return buffer.getvalue()


EXTREMES = [2**63 - 1, -(2**63), 2**64, -1, 0, 1, 2**32, 2**32 - 1, 2**31, 3, 10**30, 1.5, "12", None, True]


def images(manifest):
    return {key: value for key, value in manifest.get("manifest", {}).items() if isinstance(value, dict)}


def mutate_package(rng, seed):
    """One mutant: (family, zip bytes)."""
    _, manifest, files = seed
    manifest = json.loads(json.dumps(manifest))
    files = dict(files)
    parts = images(manifest)
    family = rng.choice(
        ["rename-part", "extra-key", "number", "drop-key", "file-ref", "dat-bytes", "bin-bytes", "zip-bytes",
         "entry-name", "duplicate-part", "type-change", "repack"])
    body = manifest.setdefault("manifest", {})
    if family == "rename-part" and parts:
        key = rng.choice(sorted(parts))
        new = rng.choice(["app", "Application", key + "_", key.upper(), "softdevice_application", "firmware",
                          "bootloader_softdevice", " " + key])
        body[new] = body.pop(key)
    elif family == "extra-key":
        target = rng.choice([manifest, body] + list(parts.values()))
        target[rng.choice(["comment", "version", "app", "crc", "sd_req", "generator"])] = rng.choice([1, "x", {}, []])
    elif family == "number" and parts:
        part = parts[rng.choice(sorted(parts))]
        field = rng.choice(["sd_size", "bl_size", "dfu_version", "init_packet_data", "info_read_only_metadata"])
        if field == "dfu_version":
            body["dfu_version"] = rng.choice(EXTREMES + [0.5, 0.6, 0.7, 0.8, 1e308])
        elif field in ("init_packet_data", "info_read_only_metadata") and isinstance(part.get(field), dict):
            sub = part[field]
            if sub:
                sub[rng.choice(sorted(sub))] = rng.choice(EXTREMES + [[2**63 - 1], [70000], []])
        else:
            part[field] = rng.choice(EXTREMES)
    elif family == "drop-key":
        target = rng.choice([body] + list(parts.values()))
        if target:
            del target[rng.choice(sorted(target))]
    elif family == "file-ref" and parts:
        part = parts[rng.choice(sorted(parts))]
        choice = rng.randrange(4)
        if choice == 0:
            part["bin_file"], part["dat_file"] = part.get("dat_file"), part.get("bin_file")
        elif choice == 1:
            part[rng.choice(["bin_file", "dat_file"])] = rng.choice(["missing.bin", "../x.bin", "", "manifest.json"])
        elif choice == 2:
            other = rng.choice([name for name in files if name != "manifest.json"])
            part["bin_file"] = other
        else:
            part["dat_file"] = rng.choice(list(parts.values())).get("dat_file")
    elif family in ("dat-bytes", "bin-bytes") and parts:
        part = parts[rng.choice(sorted(parts))]
        name = part.get("dat_file" if family == "dat-bytes" else "bin_file")
        if name in files:
            data = bytearray(files[name])
            action = rng.randrange(5)
            if action == 0 and data:
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            elif action == 1:
                del data[rng.randrange(len(data) + 1):]
            elif action == 2:
                data += bytes(rng.randrange(1, 9))
            elif action == 3 and data:
                position = rng.randrange(len(data))
                data[position:position + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\xff\xff\xff\x0f"])
            else:
                data = bytearray(rng.randbytes(rng.randrange(0, 80)))
            files[name] = bytes(data)
    elif family == "entry-name" and parts:
        part = parts[rng.choice(sorted(parts))]
        old = part.get("bin_file")
        if old in files:
            new = rng.choice(["app\x1b[2J.bin", "a\nb.bin", "\x07bell.bin", "del\x7f.bin", "c1\u009b.bin"])
            files[new] = files.pop(old)
            part["bin_file"] = new
    elif family == "duplicate-part" and parts:
        key = rng.choice(sorted(parts))
        free = [name for name in PART_NAMES if name not in parts]
        if free:
            body[rng.choice(free)] = json.loads(json.dumps(parts[key]))
    elif family == "type-change" and parts:
        key = rng.choice(sorted(parts))
        body[key] = rng.choice([[], "x", 5, None, {"bin_file": 5, "dat_file": "x"}])
    if family == "repack":
        # Harmless to a correct reader: entries stored instead of deflated, in reverse order, manifest last.
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for name in reversed(sorted(files)):
                if name != "manifest.json":
                    archive.writestr(name, files[name])
            archive.writestr("manifest.json", json.dumps(manifest, indent=rng.choice([None, 4])))
        return family, buffer.getvalue()
    data = build_zip(manifest, files)
    if family == "zip-bytes":
        raw = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            action = rng.randrange(3)
            if action == 0:
                raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
            elif action == 1:
                position = rng.randrange(max(1, len(raw) - 4))
                raw[position:position + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\xf0\xff\xff\x7f"])
            else:
                del raw[rng.randrange(len(raw)):]
        data = bytes(raw)
    return family, data


def run(binary, arguments, environment=None):
    try:
        completed = subprocess.run(
            [binary] + arguments, capture_output=True, timeout=TIME_LIMIT, stdin=subprocess.DEVNULL,
            env=dict(os.environ, SWIFT_BACKTRACE="enable=no", **(environment or {})))
        return completed.returncode, completed.stdout, completed.stderr
    except subprocess.TimeoutExpired:
        return None, b"", b""


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]")


def verdict(status, stdout, stderr, json_mode, oracle=None):
    """The worst thing wrong with a run, or None for a clean rejection or a correct success.

    Severity order: trap, hang, undocumented status, an exit 0 the oracle refutes (a skipped part, a wrong image),
    raw control characters on stderr, a broken --json contract (no final object, or one that disagrees).
    """
    if status is None:
        return "hang"
    if status < 0 or (status > 128 and status != 130):
        return "trap"
    if status not in DOCUMENTED:
        return "undocumented"
    if status == 0 and oracle is not None:
        try:
            if not oracle(stdout):
                return "skipped-or-wrong"
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            return "skipped-or-wrong"
    text = stderr.decode("utf-8", "replace")
    if CONTROL.search(text.replace("\r", "")):
        return "unescaped"
    if json_mode:
        lines = stdout.decode("utf-8", "replace").splitlines()
        try:
            last = json.loads(lines[-1]) if lines else None
        except ValueError:
            return "contract"
        if status != 0:
            if not isinstance(last, dict) or last.get("event") != "error" or last.get("exit_status") != status:
                return "contract"
        elif not isinstance(last, dict) or last.get("event") != "result":
            return "contract"
    if status != 0:
        errors = [line for line in text.splitlines() if line.startswith("Error: ")]
        if len(errors) != 1:
            return "contract"
    return None


def last_json(stdout):
    """The last line of stdout as JSON (a list for the old `list --json`)."""
    return json.loads(stdout.decode().splitlines()[-1])


def expected_parts(data):
    """The parts a correct tool must send for this zip: [(type, image bytes)], or None if it is not readable."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            manifest = json.loads(archive.read("manifest.json"))
            body = manifest["manifest"]
            parts = []
            for key in ("softdevice_bootloader", "softdevice", "bootloader", "application"):
                if isinstance(body.get(key), dict):
                    parts.append((PART_NAMES[key], archive.read(body[key]["bin_file"])))
            # A part under a key no vendor writes ("app") is still a part the user meant to send: no tool can
            # have sent it, so an exit 0 skipped it.
            for key, value in body.items():
                if key not in PART_NAMES and isinstance(value, dict) and "bin_file" in value:
                    parts.append(("unknown part '" + key + "'", b""))
            return parts
    except Exception:
        return None


def manifest_files(data):
    """The bin_file of every image the manifest lists, sorted."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        body = json.loads(archive.read("manifest.json"))["manifest"]
        return sorted(value["bin_file"] for value in body.values() if isinstance(value, dict) and "bin_file" in value)


def classify_package(binary, path, data):
    expected = expected_parts(data)

    def info_oracle(stdout):
        # info lists each part's files; its "type" key is shadowed by the init packet's type field, so the files
        # are what is compared: every image the manifest names, and nothing else.
        listed = last_json(stdout).get("parts", [])
        return expected is not None and manifest_files(data) == sorted(part.get("bin_file") for part in listed)

    def upload_oracle(stdout):
        parts = last_json(stdout).get("parts", [])
        if expected is None or len(parts) != len(expected):
            return False
        for (name, image), part in zip(expected, parts):
            crc = part.get("crc32")
            if part.get("type") != name or part.get("bytes_confirmed") != len(image):
                return False
            if crc is not None and int(crc, 16) != zlib.crc32(image):
                return False
        return True

    results = []
    status, stdout, stderr = run(binary, ["info", path, "--json"])
    results.append(("info", verdict(status, stdout, stderr, True, info_oracle), status))
    legacy = b'"dfu_version"' in data or b"init_packet_data" in data
    target = "sim:legacy" if legacy else "sim"
    status, stdout, stderr = run(binary, ["upload", "--target", target, path, "--sim-speed", "0", "--json"])
    results.append(("upload", verdict(status, stdout, stderr, True, upload_oracle), status))
    return results


def catalog_mutants(rng, count):
    """Hostile catalogs: (family, text bytes, id to ask info about, image file name, image bytes)."""
    with open(os.path.join(ROOT, "Resources/firmware/blinky-pca10040.bin"), "rb") as handle:
        image = handle.read()
    import hashlib
    digest = hashlib.sha256(image).hexdigest()

    def entry():
        return {
            "id": "mine", "title": "Mine", "description": "d", "version": "1", "boards": ["PCA10040"],
            "chip": "nRF52832", "type": "application", "file": "img.bin", "size": len(image), "sha256": digest,
            "load_address": "0x00026000",
            "dfu": {"secure": {"hardware_version": 52, "firmware_version": 1, "softdevice_required": [257]},
                    "legacy": {"device_type": 65535, "device_revision": 65535, "application_version": 1,
                               "softdevice_ids": [257]}},
        }

    hostile_text = ["T\x1b]52;c;aGk=\x07", "\x1b[2J", "a\nb", "\u009b31m", "\x7f", "\x00", "\u202e", "x" * 5000]
    values = [2**63 - 1, -(2**63), 2**64, -1, 0, 2**32, 1e400, 1.5, "0x26000", None, True, [], {}, "", "\x1b[2J"]
    mutants = []
    for index in range(count):
        document = {"schema": 1, "firmware": [entry()]}
        item = document["firmware"][0]
        family = ["text-escape", "field-value", "unknown-key", "address", "duplicate", "path", "raw-bytes",
                  "nesting"][index % 8]
        if family == "text-escape":
            for field in rng.sample(["title", "description", "version", "chip", "id"], 2):
                item[field] = rng.choice(hostile_text)
            item["boards"] = [rng.choice(hostile_text)]
        elif family == "field-value":
            path = rng.choice([("size",), ("dfu", "secure", "hardware_version"), ("dfu", "legacy", "device_type"),
                               ("dfu", "secure", "softdevice_required"), ("schema",), ("boards",), ("type",)])
            target = document if path == ("schema",) else item
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = rng.choice(values)
        elif family == "unknown-key":
            rng.choice([document, item, item["dfu"], item["dfu"]["secure"]])[rng.choice(["x", "Size", "\x1b"])] = 1
        elif family == "address":
            item["load_address"] = rng.choice(
                ["0xFFFFFFFF", "0xFFFFFF00", "0x100000000", "0x-0000001", "0x+0000001", "26000", "0xFFFFFD9C"])
        elif family == "duplicate":
            document["firmware"].append(entry())
            document["firmware"][1]["title"] = rng.choice(hostile_text)
        elif family == "path":
            item["file"] = rng.choice(["../img.bin", "/etc/passwd", "", "img.bin/", "missing.bin", "img\x1b.bin"])
        text = json.dumps(document, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
        if family == "raw-bytes":
            raw = bytearray(text)
            for _ in range(rng.randrange(1, 4)):
                raw[rng.randrange(len(raw))] = rng.choice([0x00, 0x1B, 0x7F, 0xC2, 0xFF, 0x22, 0x5C, 0x7B])
            text = bytes(raw)
        elif family == "nesting":
            depth = rng.choice([100, 1000, 100000])
            text = text[:-2] + b"," + b"[" * depth + b"]" * depth + b"]}"
        mutants.append((family, text, "mine", "img.bin", image))
    return mutants


def classify_catalog(binary, directory, text, identifier, image_name, image):
    with open(os.path.join(directory, image_name), "wb") as handle:
        handle.write(image)
    path = os.path.join(directory, "catalog.json")
    with open(path, "wb") as handle:
        handle.write(text)
    results = []
    for arguments, json_mode in (
            (["list", "--catalog", path], False), (["info", identifier, "--catalog", path], False),
            (["info", identifier, "--catalog", path, "--json"], True)):
        status, stdout, stderr = run(binary, arguments)
        problem = verdict(status, stdout, stderr, json_mode)
        if problem in (None, "contract") and status == 0 and not json_mode:
            # Human output of an accepted catalog must show every outside character as a visible escape.
            if CONTROL.search(stdout.decode("utf-8", "replace").replace("\n", "")):
                problem = "unescaped"
        results.append((arguments[0], problem, status))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--packages", type=int, default=2000)
    parser.add_argument("--catalogs", type=int, default=60)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/nrfloader"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", default=os.path.join(ROOT, ".campaign/bad"))
    parser.add_argument("--corpus", help="add rejected package mutants to this fuzz corpus folder")
    options = parser.parse_args()
    rng = random.Random(options.seed)
    seeds = seed_packages()
    work = tempfile.mkdtemp(prefix="nrfloader-campaign-")
    os.makedirs(options.keep, exist_ok=True)
    rows = {}
    bad_examples = []

    def record(kind, family, results, keep_name, keep_bytes):
        row = rows.setdefault((kind, family), {"runs": 0, "rejected": 0, "correct": 0, "bad": {}})
        for command, problem, status in results:
            row["runs"] += 1
            if problem:
                row["bad"][problem] = row["bad"].get(problem, 0) + 1
                if len(bad_examples) < 40:
                    bad_examples.append(f"{kind} {family} {command}: {problem} (exit {status}) -> {keep_name}")
                with open(os.path.join(options.keep, keep_name), "wb") as handle:
                    handle.write(keep_bytes)
            elif status == 0:
                row["correct"] += 1
            else:
                row["rejected"] += 1

    package_jobs = []
    for index in range(options.packages):
        seed = seeds[rng.randrange(len(seeds))]
        family, data = mutate_package(rng, seed)
        path = os.path.join(work, f"mutant-{index:05d}.zip")
        with open(path, "wb") as handle:
            handle.write(data)
        package_jobs.append((family, path, data))
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        futures = {pool.submit(classify_package, options.binary, path, data): (family, path, data)
                   for family, path, data in package_jobs}
        for future in concurrent.futures.as_completed(futures):
            family, path, data = futures[future]
            results = future.result()
            record("package", family, results, os.path.basename(path), data)
            if options.corpus and all(status == 65 for _, _, status in results) and len(data) <= 4096:
                with open(os.path.join(options.corpus, "campaign-" + os.path.basename(path)), "wb") as handle:
                    handle.write(data)

    for index, (family, text, identifier, image_name, image) in enumerate(catalog_mutants(rng, options.catalogs)):
        directory = os.path.join(work, f"catalog-{index:03d}")
        os.makedirs(directory)
        results = classify_catalog(options.binary, directory, text, identifier, image_name, image)
        record("catalog", family, results, f"catalog-{index:03d}.json", text)

    print(f"mutation campaign: seed {options.seed}, {options.packages} package mutants (info + upload), "
          f"{options.catalogs} catalogs (list + info + info --json), binary {options.binary}")
    print(f"{'input':8} {'mutation':15} {'runs':>5} {'rejected':>9} {'accepted-correct':>17} {'bad':>5}  bad kinds")
    totals = {"runs": 0, "rejected": 0, "correct": 0, "bad": 0}
    kinds = {}
    for (kind, family), row in sorted(rows.items()):
        bad = sum(row["bad"].values())
        detail = ", ".join(f"{name} {count}" for name, count in sorted(row["bad"].items()))
        print(f"{kind:8} {family:15} {row['runs']:5} {row['rejected']:9} {row['correct']:17} {bad:5}  {detail}")
        for name, count in row["bad"].items():
            kinds[name] = kinds.get(name, 0) + count
        totals["runs"] += row["runs"]
        totals["rejected"] += row["rejected"]
        totals["correct"] += row["correct"]
        totals["bad"] += bad
    detail = ", ".join(f"{name} {count}" for name, count in sorted(kinds.items()))
    print(f"{'total':24} {totals['runs']:5} {totals['rejected']:9} {totals['correct']:17} {totals['bad']:5}  {detail}")
    for example in bad_examples:
        print("  bad: " + example)
    if totals["bad"]:
        print(f"bad mutants kept in {options.keep}")
    return 1 if totals["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
