#!/usr/bin/env bash
# Prints the public API surface of each library product (issue 21): the public symbols of its public module, from
# the compiler's symbol graph (`swift package dump-symbol-graph`, public access only, synthesized members left out),
# by kind, extensions of another product's types included (UpdateTarget.bluetooth(...) counts for NRFLoaderBlueZ).
set -euo pipefail
cd "$(dirname "$0")/.."
output=$(swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members 2>&1)
directory=$(sed -n 's/^Files written to //p' <<<"$output")
[ -d "$directory" ] || { echo "api-surface: no symbol graphs ($output)" >&2; exit 1; }
python3 - "$directory" <<'PY'
import collections, glob, json, os, sys
directory = sys.argv[1]
total = 0
for module in ["NRFLoaderKit", "NRFLoaderSimulator", "NRFLoaderSerial", "NRFLoaderBlueZ"]:
    kinds = collections.Counter()
    for path in [os.path.join(directory, module + ".symbols.json")] + glob.glob(os.path.join(directory, module + "@*.symbols.json")):
        for symbol in json.load(open(path))["symbols"]:
            if symbol["accessLevel"] == "public":
                kinds[symbol["kind"]["displayName"]] += 1
    count = sum(kinds.values())
    total += count
    print(f"{module:20} {count:4}  " + ", ".join(f"{n} {k.lower()}" for k, n in kinds.most_common()))
print(f"{'all products':20} {total:4}")
PY
