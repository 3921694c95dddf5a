#!/usr/bin/env python3
"""Fails when a string literal in a library module names a command-line flag (`--` then a letter).

The library speaks of its own API (`UpdateOptions.timeout`); `nrfloader` (Sources/nrfloader) renders those mentions
with its flags. Comments are not messages and are skipped. ALLOWED lists the few literals that quote another tool's
flag, each by file and the text it holds.
"""
import pathlib
import re
import sys

ALLOWED = {
    # A log line: an image pending permanently is what imgtool's own --confirm makes.
    ("Sources/SMP/Upload/SMPUploader.swift", "\u2026 is already pending permanently (imgtool --confirm); "),
}
FLAG = re.compile(r"(?<![A-Za-z0-9_-])--[A-Za-z]")


def literals(text):
    """Returns (line, content) for each string literal outside comments, its interpolations' code left out (their
    own literals are returned on their own)."""
    found = []
    n = len(text)

    def line_of(i):
        return text.count("\n", 0, i) + 1

    def code(i, closer):
        """Scans code from i to the `closer` that ends it (")" for an interpolation, None for the file)."""
        depth = 0
        while i < n:
            c = text[i]
            if text.startswith("//", i):
                i = text.find("\n", i)
                i = n if i < 0 else i
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                i = n if end < 0 else end + 2
            elif c == '"' or (c == "#" and re.match(r'#+"', text[i : i + 8])):
                i = string(i)
            elif closer and c == "(":
                depth += 1
                i += 1
            elif closer and c == ")":
                if depth == 0:
                    return i + 1
                depth -= 1
                i += 1
            else:
                i += 1
        return i

    def string(i):
        """Scans the literal starting at i; returns the index after it."""
        hashes = len(text[i:i + 8]) - len(text[i:i + 8].lstrip("#"))
        i += hashes
        quote = '"""' if text.startswith('"""', i) else '"'
        closing = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        i += len(quote)
        start, parts = i, []
        run = i
        while i < n and not text.startswith(closing, i):
            if text.startswith(escape + "(", i):
                parts.append(text[run:i])
                i = code(i + len(escape) + 1, ")")
                run = i
            elif text.startswith(escape, i):
                i += len(escape) + 1
            else:
                i += 1
        parts.append(text[run:i])
        found.append((line_of(start), "\u2026".join(parts)))
        return i + len(closing)

    code(0, None)
    return found


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    failures = []
    for path in sorted((root / "Sources").rglob("*.swift")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("Sources/nrfloader/"):
            continue
        for line, content in literals(path.read_text()):
            if FLAG.search(content) and (relative, content) not in ALLOWED:
                failures.append(f"{relative}:{line}: a library message names a command-line flag: \"{content}\"")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print("name the library's own settings instead; nrfloader renders them as flags (UpdateError.Mention, "
              "PackagingProblem)", file=sys.stderr)
        return 1
    print("flag names: ok", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
