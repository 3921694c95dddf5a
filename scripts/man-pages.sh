#!/usr/bin/env bash
# Writes nrfloader's manual pages into DIR, generated from the built executable BIN by swift-argument-parser's own
# generate-manual tool (the one its GenerateManual plugin runs), so the pages say what `--help` says:
#   scripts/man-pages.sh BIN DIR
# The plugin would build every product in release mode again (about 3 minutes here); this script builds only the
# small generate-manual tool (debug, into .build-man/, once per argument-parser revision) from the copy of
# swift-argument-parser the package resolved, and runs it against BIN (`BIN --experimental-dump-help`).
#
# The pages are then named as git names its own: nrfloader-upload(1), with `nrfloader-upload` in the NAME line, so
# that `man nrfloader-upload`, man-db's `man nrfloader upload` and whatis agree (the tool writes nrfloader.upload.1
# with "nrfloader upload" as its name, which lintian reports as bad-whatis-entry). The synopsis keeps the command
# as typed (`nrfloader upload`). The top page gets a real EXIT STATUS section, made from the table `nrfloader --help`
# prints (ExitStatus.swift), instead of the tool's generic one, and the JSON contract from
# packaging/nrfloader-json.mdoc. `help`, which --help does not list as a subcommand, gets no page.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: scripts/man-pages.sh BIN DIR}
out=${2:?usage: scripts/man-pages.sh BIN DIR}

parser=.build/checkouts/swift-argument-parser
[ -d "$parser" ] || { echo "man-pages.sh: $parser is missing; build the package first (scripts/build.sh)" >&2; exit 66; }
revision=$(git -C "$parser" rev-parse HEAD)
source=.build-man/swift-argument-parser-$revision
if [ ! -f "$source/Package.swift" ]; then
    rm -rf "$source"
    mkdir -p "$source"
    git -C "$parser" archive HEAD | tar -x -C "$source"
fi
swift build --package-path "$source" --scratch-path .build-man/build --product generate-manual >&2
tool=$(swift build --package-path "$source" --scratch-path .build-man/build --show-bin-path)/generate-manual

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
# The date of the commit built, so that the same commit gives the same pages.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
"$tool" --multi-page --date "$date" -o "$raw" "$bin"
rm -f "$raw/nrfloader.help.1"

mkdir -p "$out"
for page in "$raw"/*.1; do
    base=$(basename "$page" .1)      # nrfloader.keys.display
    name=${base//./-}                # nrfloader-keys-display
    words=${base//./ }               # nrfloader keys display
    awk -v name="$name" -v words="$words" -v top="$([ "$base" = nrfloader ] && echo 1 || echo 0)" \
        -v json=packaging/nrfloader-json.mdoc '
        function exitTable(   i, parts, status, meaning) {
            print ".Sh \"EXIT STATUS\""
            print "A script can tell \"fix the input\" (64\\(en66) from \"try again\" (75):"
            print ".Bl -tag -width 6n -compact"
            for (i = 1; i <= exitCount; i++) {
                status = exitLines[i]; sub(/^ +/, "", status); meaning = status
                sub(/ .*/, "", status); sub(/^[0-9]+ +/, "", meaning)
                print ".It " status
                print meaning
            }
            print ".El"
        }
        /^\.Dt / { print ".Dt " toupper(name) " " $3; next }
        section == "NAME" && /^\.Nm / { print ".Nm " name; next }
        section == "SYNOPSIS" && /^\.Nm$/ && top == 0 { print ".Nm \"" words "\""; next }
        /^\.Sh / {
            if (section == "DESCRIPTION" && top == 1) {
                # The JSON contract, before EXIT STATUS as mdoc orders sections.
                while ((getline line < json) > 0) print line
            }
            section = $0; sub(/^\.Sh "?/, "", section); sub(/"$/, "", section)
            if (section == "DESCRIPTION" && top == 1) {
                print
                print "Each command has its own page, listed under SEE ALSO, such as"
                print ".Xr nrfloader-upload 1 ;"
                print "with man-db, \\fBman nrfloader upload\\fR opens it too."
                # The discussion (what nrfloader does) follows as a paragraph of its own.
                print ".Pp"
                next
            }
        }
        # The top page: the exit status table --help prints becomes the EXIT STATUS section.
        top == 1 && section == "DESCRIPTION" && /^EXIT STATUS:$/ { inTable = 1; next }
        inTable && /^ *[0-9]+ / { exitLines[++exitCount] = $0; next }
        inTable { inTable = 0 }
        /^\.Ex -std/ {
            if (top == 1) exitTable()
            else { print "The exit statuses are listed in"; print ".Xr nrfloader 1 ." }
            next
        }
        /^\.Sh "EXIT STATUS"$/ && top == 1 { next }
        /^\.Xr nrfloader\.help 1/ { next }
        /^\.Xr nrfloader[.a-z-]* / { gsub(/\./, "-", $2); print; next }
        { print }
    ' "$page" > "$out/$name.1"
    # The tool ends its pages without a newline, and lists SEE ALSO entries ending in " ,": drop a trailing comma.
    sed -i -e '$a\' "$out/$name.1"
done
# generate-manual (1.8.2) writes a bare .Pp where an option's allowed values belong, and lists none of them;
# groff then drops every item after it. Put back what --help prints, "(values: a, b)", from the dump-help data.
# It also copies a discussion's blank lines, which mdoc wants as .Pp.
"$bin" --experimental-dump-help > "$raw/dump-help.json"
python3 - "$raw/dump-help.json" "$out" <<'PYTHON'
import json, pathlib, re, sys

root = json.load(open(sys.argv[1]))["command"]

def commands(command, path):
    yield path, command
    for sub in command.get("subcommands") or []:
        yield from commands(sub, path + [sub["commandName"]])

for path, command in commands(root, ["nrfloader"]):
    page = pathlib.Path(sys.argv[2]) / ("-".join(path) + ".1")
    if not page.exists():
        continue
    values = {}
    for argument in command.get("arguments") or []:
        if argument.get("allValues") and not argument.get("allValueDescriptions"):
            names = ["-" + n["name"] if n["kind"] == "short" else "--" + n["name"] for n in argument.get("names") or []]
            values[tuple(names) or (argument["valueName"],)] = argument["allValues"]
    lines, out, current = page.read_text().splitlines(), [], None
    for index, line in enumerate(lines):
        if line.startswith(".It "):
            flags = re.findall(r"Fl (-?[\w-]+)", line)
            current = next((v for k, v in values.items() if any(("-" + f) in k for f in flags)), None)
        # A blank line in a discussion is a paragraph break to mdoc (groff warns "empty input line" otherwise).
        if line == "":
            line = ".Pp"
        if line == ".Pp" and index + 1 < len(lines) and re.match(r"\.(It|El|Pp)\b|$", lines[index + 1]):
            if current:
                out[-1] += " (values: " + ", ".join(current) + ")"
            continue
        out.append(line)
    page.write_text("\n".join(out) + "\n")
PYTHON
# A SEE ALSO list whose last entry was the dropped help page ends in a comma; end it cleanly.
for page in "$out"/*.1; do
    awk '{ lines[NR] = $0 } END {
        last = 0; for (i = 1; i <= NR; i++) if (lines[i] ~ /^\.Xr /) last = i
        if (last > 0) sub(/ ,$/, "", lines[last])
        for (i = 1; i <= NR; i++) print lines[i] }' "$page" > "$page.tmp"
    mv "$page.tmp" "$page"
done
echo "man-pages.sh: $(ls "$out" | wc -l) pages in $out" >&2
