#!/usr/bin/env python3
"""Checks that nrfloader's manual pages say what its --help says.

    scripts/check-man-pages.py BIN MANDIR

For every command --help lists (recursively), MANDIR must hold nrfloader-<path>.1[.gz] whose NAME line is
`nrfloader-<path>` with --help's OVERVIEW as its description, and whose option list names exactly the arguments
and options --help lists. No other page may be there. Prints one line per problem and exits 1 if there is any.
"""

import gzip
import pathlib
import re
import subprocess
import sys


def help_text(binary, path):
    result = subprocess.run([binary, *path, "--help"], capture_output=True, text=True, check=True)
    return result.stdout


def sections(text):
    """Splits --help output into its titled sections (OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS)."""
    found, title = {}, None
    for line in text.splitlines():
        match = re.match(r"^([A-Z][A-Z ]*[A-Z]):(.*)$", line)
        if match:
            title = match.group(1)
            found[title] = [match.group(2)]
        elif title:
            found[title].append(line)
    return found


def help_entries(parts):
    """The names --help lists: '--long' for options and flags, '<value>' for arguments."""
    names = set()
    for line in [line for title, lines in parts.items() if title not in ("OVERVIEW", "USAGE") for line in lines]:
        match = re.match(r"^  (?:-\w, )?(--[\w-]+)", line)
        if match:
            names.add(match.group(1))
    for line in parts.get("ARGUMENTS", []):
        match = re.match(r"^  <([\w-]+)(?:\.\.\.)?>", line)
        if match:
            names.add("<" + match.group(1) + ">")
    return names


def subcommands(parts):
    return [m.group(1) for line in parts.get("SUBCOMMANDS", []) for m in [re.match(r"^  ([\w-]+)(?:  |$)", line)] if m]


def page_entries(source):
    names = set()
    for line in source.splitlines():
        if not line.startswith(".It "):
            continue
        long_names = re.findall(r"Fl (?:\w , )?(-[\w-]+)", line)
        if long_names:
            names.add("-" + long_names[0])
        elif line.startswith(".It Ar "):
            names.add("<" + line.split()[2].rstrip(".") + ">")
    return names


def main():
    binary, mandir = sys.argv[1], pathlib.Path(sys.argv[2])
    problems, expected = [], set()
    queue = [[]]
    while queue:
        path = queue.pop(0)
        parts = sections(help_text(binary, path))
        name = "-".join(["nrfloader", *path])
        expected.add(name)
        page = next((p for p in [mandir / (name + ".1"), mandir / (name + ".1.gz")] if p.exists()), None)
        if page is None:
            problems.append(f"{name}: no manual page for '{' '.join(['nrfloader', *path])}'")
            continue
        source = gzip.decompress(page.read_bytes()).decode() if page.suffix == ".gz" else page.read_text()
        nm = re.search(r"^\.Sh NAME\n\.Nm (.+)\n\.Nd \"(.*)\"$", source, re.MULTILINE)
        overview = " ".join(" ".join(parts.get("OVERVIEW", [""])).split())
        if not nm or nm.group(1) != name:
            problems.append(f"{page.name}: NAME line is not '{name}'")
        elif " ".join(nm.group(2).split()) != overview.split("\n")[0] and not overview.startswith(nm.group(2)):
            problems.append(f"{page.name}: description '{nm.group(2)}' differs from --help's '{overview}'")
        in_help, in_page = help_entries(parts), page_entries(source)
        for missing in sorted(in_help - in_page):
            problems.append(f"{page.name}: --help lists {missing}, the page does not")
        for extra in sorted(in_page - in_help):
            problems.append(f"{page.name}: the page lists {extra}, --help does not")
        queue.extend(path + [sub] for sub in subcommands(parts))
    for page in sorted(mandir.iterdir()):
        stem = page.name.removesuffix(".gz").removesuffix(".1")
        if stem not in expected:
            problems.append(f"{page.name}: a page for no command --help lists")
    for problem in problems:
        print(f"check-man-pages: {problem}", file=sys.stderr)
    print(f"check-man-pages: {len(expected)} commands, {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
