#!/usr/bin/env bash
# Builds the DocC documentation of every module of the library products (issue 21) with warnings as errors: the four
# public modules' catalogs (articles, symbol links, every public symbol documented) and the engine modules the
# products carry, whose declarations are `package` (their documentation is empty, and must stay warning-free).
# The module list is read from Package.swift, so a module added to a product is checked without editing this file.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
manifest=$(swift package dump-package)
modules=$(python3 -c '
import json, sys
package = json.loads(sys.argv[1])
seen = []
for product in package["products"]:
    if "library" in product["type"]:
        for target in product["targets"]:
            if target not in seen:
                seen.append(target)
print(" ".join(seen))
' "$manifest")
[ -n "$modules" ] || { echo "docs-check: no library modules found in Package.swift" >&2; exit 1; }
arguments=()
for module in $modules; do arguments+=(--target "$module"); done
echo "docs-check: $(wc -w <<<"$modules") modules: $modules" >&2
# One plugin run for every module: the symbol graphs come from one build.
swift package generate-documentation "${arguments[@]}" --warnings-as-errors
echo "docs-check: ok in $((SECONDS - started)) s" >&2
