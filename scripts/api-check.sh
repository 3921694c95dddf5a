#!/usr/bin/env bash
# API-breakage check (issue 21): the public API of the library products NRFLoaderKit, NRFLoaderSimulator,
# NRFLoaderSerial and NRFLoaderBlueZ against the last release, which API-BASELINE names as one line `<tag> <sha>`.
#
# `swift package diagnose-api-breaking-changes` builds the baseline commit in a clone of its own, dumps the API of
# every Swift module of those products with swift-api-digester, and compares the working tree's build with it. The
# digester dumps `package` declarations too (it skips only internal and private ones), so the engine's `package`
# symbols would count as API: this script removes them from the baseline's dumps before comparing (on a cold cache
# after a first run of the tool that only makes the dumps), and a change to a `package` declaration is then never a
# breaking change. What the digester does not see, a `public` declaration of the four modules made `package`, the
# script checks itself against its own dump of the working tree. The baseline's dumps (public declarations only) are
# kept in API/baselines/<sha>/, committed with API-BASELINE when a release is tagged: only the run that makes them
# builds the baseline (5 to 8 minutes on 2 cores); every later run, CI's on a fresh clone included, takes seconds.
#
# Breaking changes fail the check unless VERSION allows them against the baseline tag: before 1.0.0 a new minor
# version may break the API, from 1.0.0 on only a new major version may, a patch version never may.
#
#   bash scripts/api-check.sh
#   exit 0: no breaking change, or only ones VERSION allows; 1: breaking changes VERSION does not allow, or the
#   comparison failed; 2: API-BASELINE or VERSION is missing, malformed or names a commit this clone lacks.
set -euo pipefail
cd "$(dirname "$0")/.."

products=(NRFLoaderKit NRFLoaderSimulator NRFLoaderSerial NRFLoaderBlueZ)
baseline_file=API-BASELINE
baseline_dir="$PWD/API/baselines"

# Milliseconds since the epoch (EPOCHREALTIME without its decimal separator is microseconds).
now_ms() {
    local us=${EPOCHREALTIME//[!0-9]/}
    echo $((us / 1000))
}
seconds() { printf '%d.%01d s' $(($1 / 1000)) $(($1 % 1000 / 100)); }
started=$(now_ms)
step_started=$started
# step_done NAME: a line with the time the step took.
step_done() {
    local t
    t=$(now_ms)
    echo "api-check: $1: $(seconds $((t - step_started)))" >&2
    step_started=$t
}
fail() {
    echo "api-check: $*" >&2
    exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/log

# --- the baseline: the tag when this clone has it, else the commit (a clone without tags) ---
[[ -f $baseline_file ]] || fail "$baseline_file is missing (one line: <tag> <full-commit-sha>)"
mapfile -t lines <"$baseline_file"
tag='' sha='' extra=''
((${#lines[@]} == 1)) && read -r tag sha extra <<<"${lines[0]}"
[[ -n $tag && $sha =~ ^[0-9a-f]{40}$ && -z $extra ]] \
    || fail "$baseline_file must be one line '<tag> <full-commit-sha>'" \
        "(it has ${#lines[@]} lines, the first '${lines[0]-}')"
if tag_commit=$(git rev-parse --quiet --verify "$tag^{commit}" 2>/dev/null); then
    [[ $tag_commit == "$sha" ]] || fail "tag $tag is commit $tag_commit, but $baseline_file says $sha"
    treeish=$tag
    what=$tag
elif git rev-parse --quiet --verify "$sha^{commit}" >/dev/null 2>&1; then
    treeish=$sha
    what="$sha (tag $tag is not in this clone)"
else
    fail "baseline $tag ($sha, from $baseline_file) is in this clone neither as a tag nor as a commit; fetch it"
fi
[[ $sha == "$(git rev-parse HEAD)" ]] && what="$what, which is HEAD: the working tree is compared with its own commit"

# --- what VERSION allows against the baseline tag ---
semver='^([0-9]+)\.([0-9]+)\.([0-9]+)$'
[[ -f VERSION ]] || fail "VERSION is missing"
version=$(<VERSION)
version=${version//[[:space:]]/}
[[ $version =~ $semver ]] || fail "VERSION must be X.Y.Z, not '$version'"
version_major=$((10#${BASH_REMATCH[1]})) version_minor=$((10#${BASH_REMATCH[2]}))
[[ $tag == v* && ${tag#v} =~ $semver ]] || fail "the tag in $baseline_file must be vX.Y.Z, not '$tag'"
baseline_major=$((10#${BASH_REMATCH[1]})) baseline_minor=$((10#${BASH_REMATCH[2]}))
allowed=''
if ((version_major > baseline_major)); then
    allowed="$version is a new major version"
elif ((version_major == 0 && baseline_major == 0 && version_minor > baseline_minor)); then
    allowed="$version is a new minor version before 1.0.0"
fi

shopt -s nullglob
dumps=("$baseline_dir/$sha"/*.json)
shopt -u nullglob
cache=cold
((${#dumps[@]} > 0)) && cache=warm
verdict="not allowed"
[[ -n $allowed ]] && verdict="allowed ($allowed)"
echo "api-check: baseline $what; VERSION $version: breaking changes $verdict; baseline dumps in API/baselines/: $cache" >&2
step_done "resolve baseline"

# --- the working tree's debug build (the tool builds the same; this step only times it apart) ---
swift build
step_done "build working tree (swift build)"

diagnose() {
    swift package diagnose-api-breaking-changes "$treeish" --products "${products[@]}" --baseline-dir "$baseline_dir"
}

# --- a cold cache: the tool builds the baseline commit (in .build/<triple>/apidiff/<sha>-checkout) and dumps its
# API; its verdict is not the check's, since those dumps still hold the `package` declarations ---
if [[ $cache == cold ]]; then
    status=0
    diagnose >"$log" 2>&1 || status=$?
    shopt -s nullglob
    dumps=("$baseline_dir/$sha"/*.json)
    shopt -u nullglob
    if ((${#dumps[@]} == 0)); then
        cat "$log" >&2
        echo "api-check: FAILED: building or dumping the baseline $what failed (status $status, output above)" >&2
        exit 1
    fi
    step_done "build and dump baseline $tag (${#dumps[@]} modules)"
fi

# --- keep only public declarations in the baseline's dumps (idempotent) ---
python3 - "${dumps[@]}" <<'EOF'
import json, os, sys

def strip(node):
    """Drops the children the digester marks isInternal (package declarations, and conformances to package
    protocols); returns how many it dropped."""
    children = node.get("children")
    if not children:
        return 0
    kept = [child for child in children if not child.get("isInternal")]
    dropped = len(children) - len(kept)
    node["children"] = kept
    return dropped + sum(strip(child) for child in kept)

total = 0
for path in sys.argv[1:]:
    with open(path) as file:
        dump = json.load(file)
    dropped = strip(dump["ABIRoot"])
    if dropped:
        with open(path + ".tmp", "w") as file:
            json.dump(dump, file, indent=1)
        os.replace(path + ".tmp", path)
    total += dropped
print(f"api-check: package declarations removed from the baseline's dumps: {total}", file=sys.stderr)
EOF
step_done "keep public declarations in the baseline"

# --- the comparison ---
status=0
diagnose 2>&1 | tee "$log" || status=$?
step_done "diagnose-api-breaking-changes"

# --- what the digester does not report: a public declaration of a product's own module made `package` (both
# sides still list it, so for the digester it is neither removed nor changed) ---
modules=()
for module in "${products[@]}"; do
    [[ -f $baseline_dir/$sha/$module.json ]] || continue
    if ! swift-api-digester -dump-sdk -module "$module" -I "$(swift build --show-bin-path)/Modules" \
        -o "$work/$module.json" >"$work/$module.dump.log" 2>&1; then
        cat "$work/$module.dump.log" >&2
        echo "api-check: FAILED: swift-api-digester could not dump the working tree's $module" >&2
        exit 1
    fi
    modules+=("$module")
done
python3 - "$baseline_dir/$sha" "$work" "${modules[@]}" <<'EOF' | tee -a "$log"
import json, sys

baseline_dir, current_dir, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
SKIPPED = ("Conformance", "TypeNominal", "TypeFunc", "TypeAlias")


def walk(node, parents, found):
    """found[usr] = (kind, qualified name, isInternal) for every declaration."""
    for child in node.get("children", []):
        usr = child.get("usr")
        if usr and child.get("kind") not in SKIPPED:
            name = ".".join(parents + [child.get("printedName", child.get("name", "?"))])
            found.setdefault(usr, (child.get("declKind", child.get("kind")), name, bool(child.get("isInternal"))))
        walk(child, parents + [child.get("name", "?")] if child.get("kind") == "TypeDecl" else parents, found)


for module in modules:
    baseline, current = {}, {}
    walk(json.load(open(f"{baseline_dir}/{module}.json"))["ABIRoot"], [], baseline)
    walk(json.load(open(f"{current_dir}/{module}.json"))["ABIRoot"], [], current)
    demoted = sorted(baseline[usr][:2] for usr in baseline if not baseline[usr][2] and current.get(usr, (0, 0, 0))[2])
    # A type made package takes its members with it: name the outermost declaration only.
    names = [name for _, name in demoted]
    outermost = [(kind, name) for kind, name in demoted if not any(name.startswith(n + ".") for n in names)]
    if outermost:
        count = len(outermost)
        print(f"\n{count} breaking change{'s' if count > 1 else ''} detected in {module}, declarations made package:")
        for kind, name in outermost:
            print(f"  💔 API breakage: {kind.lower()} {name} is package now, no longer public")
EOF
step_done "public declarations made package"

breakages=$(grep -c 'API breakage' "$log" || true)
errors=$(grep -c -E '(^|: )error:' "$log" || true)
verdict_lines='^No breaking changes detected in |^[0-9]+ breaking changes? detected in [A-Za-z0-9_]+:$'
compared=$(grep -c -E "$verdict_lines" "$log" || true)
total="$(seconds $(($(now_ms) - started)))"
if ((status == 0 && breakages == 0)); then
    echo "api-check: no breaking change against $tag in ${products[*]} ($compared modules, $total)" >&2
elif ((breakages > 0 && errors == 0)) && [[ -n $allowed ]]; then
    echo "api-check: $breakages breaking change(s) against $tag, allowed: $allowed ($total)" >&2
elif ((breakages > 0)); then
    echo "api-check: FAILED: $breakages breaking change(s) against $tag, listed above; VERSION $version does not" \
        "allow them (before 1.0.0 a new minor version does, from 1.0.0 on a new major version) ($total)" >&2
    exit 1
else
    echo "api-check: FAILED: diagnose-api-breaking-changes exited with status $status without a verdict ($total)" >&2
    exit 1
fi
