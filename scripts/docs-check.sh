#!/usr/bin/env bash
# Builds the DocC documentation of every module of the library products (issue 21), warnings as errors:
#  - the four public modules (NRFLoaderKit and the transports): their catalogs, articles and symbol links, at the
#    public level, which is what a program that depends on the package sees;
#  - the engine modules the products carry, whose declarations are `package`: at the internal level, so that their
#    own catalogs and doc comments (written for this package's developers) stay link-clean too.
# Every public declaration having a doc comment is swift-format's AllPublicDeclarationsHaveDocumentation rule
# (.swift-format-library), run in the lint stage of scripts/test.sh. The module lists come from Package.swift.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
modules=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
public, engine = [], []
for product in package["products"]:
    if "library" in product["type"]:
        first, *rest = product["targets"]
        public.append(first)
        engine += [target for target in rest if target not in engine]
print(" ".join(public))
print(" ".join(engine))
')
public=$(sed -n 1p <<<"$modules")
engine=$(sed -n 2p <<<"$modules")
[ -n "$public" ] || { echo "docs-check: no library products found in Package.swift" >&2; exit 1; }
targets() { for module in "$@"; do printf -- '--target\n%s\n' "$module"; done; }
echo "docs-check: public modules: $public" >&2
mapfile -t arguments < <(targets $public)
swift package generate-documentation "${arguments[@]}" --warnings-as-errors
echo "docs-check: engine modules: $engine" >&2
mapfile -t arguments < <(targets $engine)
swift package generate-documentation "${arguments[@]}" --warnings-as-errors --symbol-graph-minimum-access-level internal
echo "docs-check: ok in $((SECONDS - started)) s" >&2
