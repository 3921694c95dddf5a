#!/usr/bin/env bash
# CI stage: builds the Debian package (scripts/deb.sh) and proves it.
#  1. The package itself: lintian with no error and no warning docs/debian-package.md does not explain; Depends
#     covers every shared library the executable loads (libdbus-1-3 included: lintian does not check that) and no
#     OpenSSL; the files it must hold; a manual page per command that says what --help says; a copyright paragraph
#     for every Swift package Package.resolved pins; one version in VERSION, the package, its changelog and
#     --version.
#  2. A clean Debian 12 root (debootstrap --variant=minbase, cached as a tarball in .build-deb/): apt-get installs
#     the package with --no-install-recommends, resolving Depends; then nrfloader --version, list, an upload to the
#     simulated bootloader, a convert, man nrfloader-upload (and man nrfloader upload), the bash completion; then
#     apt-get purge removes every file the package installed.
# Needs root (chroot) and Debian's package mirror, which it reads from apt's own sources.
set -euo pipefail
# Under pipefail a reader that stops early (head, grep -q, awk's exit) kills its writer with SIGPIPE and fails the
# whole pipeline (exit 141): every reader here reads to the end, or the output is captured first.
cd "$(dirname "$0")/.."
stage() { printf 'deb-check: %s (at %d:%02d)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }
fail() {
    echo "deb-check: $*" >&2
    exit 1
}

stage "build the package (scripts/deb.sh)"
bash scripts/deb.sh
version=$(tr -d '[:space:]' < VERSION)
arch=$(dpkg --print-architecture)
deb=bin/nrfloader_${version}_${arch}.deb
work=.build-deb/check
rm -rf "$work"
mkdir -p "$work"
dpkg-deb -x "$deb" "$work/files"
echo "deb-check: $deb is $(stat -c %s "$deb") bytes" >&2

stage "lintian"
lintian --no-tag-display-limit --display-info "$deb" > "$work/lintian.txt" 2>&1 || true
cat "$work/lintian.txt" >&2
grep -q '^E: ' "$work/lintian.txt" && fail "lintian reports errors"
# Every warning must be one docs/debian-package.md explains (its "Lintian" section names each tag).
while read -r tag; do
    grep -q "^- \`$tag\`" docs/debian-package.md ||
        fail "lintian warning '$tag' is neither fixed nor explained in docs/debian-package.md"
done < <(sed -n 's/^W: nrfloader[^:]*: \([a-z0-9-]*\).*/\1/p' "$work/lintian.txt" | sort -u)

stage "Depends, libraries, files, version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "deb-check: Depends: $depends" >&2
# Every library the executable needs must come from a package named in Depends (dpkg -S on this build machine).
while read -r soname; do
    path=$(ldconfig -p | awk -v so="$soname" '$1 == so && !found { print $NF; found = 1 }')
    [ -n "$path" ] || fail "no $soname on this machine"
    # dpkg records a library under /lib or /usr/lib (merged /usr); ask for the name and the resolved file both ways.
    owner=""
    for candidate in "$path" "$(readlink -f "$path")" "${path#/usr}" "$(readlink -f "$path" | sed 's|^/usr||')"; do
        owner=$(dpkg -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p') && [ -n "$owner" ] && break
    done
    [ -n "$owner" ] || fail "no Debian package owns $path ($soname)"
    [[ ", $depends," == *", $owner "* || ", $depends," == *", $owner,"* ]] ||
        fail "the executable needs $soname ($owner), which Depends does not name"
done < <(readelf -d "$work/files/usr/bin/nrfloader" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[[ $depends == *libdbus-1-3* ]] || fail "Depends lacks libdbus-1-3"
needed=$(readelf -d "$work/files/usr/bin/nrfloader")
[[ $needed == *libcrypto* || $needed == *libssl* ]] && fail "the executable links OpenSSL"
[[ $depends == *libssl* ]] && fail "Depends names OpenSSL"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "package version is not VERSION's $version"
for file in usr/bin/nrfloader usr/share/man/man1/nrfloader.1.gz usr/share/man/man1/nrfloader-upload.1.gz \
    usr/share/bash-completion/completions/nrfloader usr/share/zsh/vendor-completions/_nrfloader \
    usr/share/fish/vendor_completions.d/nrfloader.fish usr/share/doc/nrfloader/copyright \
    usr/share/doc/nrfloader/changelog.gz; do
    [ -s "$work/files/$file" ] || fail "the package lacks /$file"
done
changelog_version=$(zcat "$work/files/usr/share/doc/nrfloader/changelog.gz" | sed -n '1s/^nrfloader (\(.*\)).*/\1/p')
[ "$changelog_version" = "$version" ] || fail "changelog is for '$changelog_version', not $version"
printed=$("$work/files/usr/bin/nrfloader" --version)
[[ $printed =~ ^nrfloader\ ${version//./\\.}\ \((commit\ [0-9a-f]{7}(-dirty)?|unknown\ commit)\)$ ]] ||
    fail "--version printed '$printed'"
python3 scripts/check-man-pages.py "$work/files/usr/bin/nrfloader" "$work/files/usr/share/man/man1"
for page in "$work"/files/usr/share/man/man1/*.gz; do
    whatis=$(lexgrog "$page" 2>&1) || fail "lexgrog cannot read $(basename "$page"): $whatis"
    name=$(basename "$page" .1.gz)
    [[ $whatis == *": \"$name - "* ]] || fail "whatis entry of $(basename "$page") is $whatis"
done
while read -r identity; do
    grep -q "^Files: \.build/checkouts/$identity/\*$" "$work/files/usr/share/doc/nrfloader/copyright" ||
        fail "the copyright file has no paragraph for the Swift package $identity (Package.resolved)"
done < <(sed -n 's/.*"identity" : "\(.*\)".*/\1/p' Package.resolved)

stage "a clean Debian 12 root"
root=$work/root
cache=.build-deb/bookworm-minbase.tar
if [ ! -s "$cache" ]; then
    mirror=$(awk '$1 == "URIs:" && !found { print $2; found = 1 }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && !found { print $2; found = 1 }' /etc/apt/sources.list)
    rm -rf "$work/bootstrap"
    # man-db is there so that the test can read the page; bash-completion is not needed by the script.
    debootstrap --variant=minbase --include=man-db bookworm "$work/bootstrap" "$mirror" > "$work/debootstrap.log" 2>&1 ||
        { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }
    tar -C "$work/bootstrap" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
    rm -rf "$work/bootstrap"
fi
mkdir -p "$root"
tar -C "$root" -xf "$cache"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
cp Resources/firmware/selftest-pca10040.hex Resources/firmware/selftest-pca10040.bin "$root/tmp/"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

stage "apt-get install --no-install-recommends (resolving Depends)"
in_root dpkg -s libdbus-1-3 > /dev/null 2>&1 && fail "the clean root already has libdbus-1-3"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" \
    > "$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "apt-get install failed"; }
in_root dpkg -s libdbus-1-3 > /dev/null || fail "apt did not install libdbus-1-3 for Depends"
in_root dpkg -s libssl3 > /dev/null 2>&1 && echo "deb-check: note: libssl3 is in the root (not for nrfloader)" >&2

stage "run it in the root"
printed=$(in_root nrfloader --version)
[ "$printed" = "$("$work/files/usr/bin/nrfloader" --version)" ] || fail "--version in the root printed '$printed'"
[[ $printed == "nrfloader $(dpkg-deb -f "$deb" Version) "* ]] || fail "--version '$printed' is not the package's"
listed=$(in_root nrfloader list)
grep -q '^selftest-pca10040 ' <<< "$listed" || fail "list does not show selftest-pca10040"
in_root nrfloader upload --target sim --sim-speed 0 selftest-pca10040 2> "$work/upload.log" ||
    { cat "$work/upload.log" >&2; fail "upload to the simulated bootloader failed"; }
in_root nrfloader convert /tmp/selftest-pca10040.hex --nordic -o /tmp/out.bin
cmp "$root/tmp/out.bin" "$root/tmp/selftest-pca10040.bin" || fail "convert did not reproduce the committed .bin"
page=$(in_root man -P cat nrfloader-upload 2> /dev/null || true)
[[ $page == *--sim-speed* ]] || fail "man nrfloader-upload shows no page"
page=$(in_root man -P cat nrfloader upload 2> /dev/null || true)
grep -q '^NAME' <<< "$page" || fail "man nrfloader upload shows no page"
completion=$(in_root bash -c 'source /usr/share/bash-completion/completions/nrfloader
    COMP_LINE="nrfloader upl"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(nrfloader upl); COMP_CWORD=1
    _nrfloader nrfloader upl nrfloader; printf "%s\n" "${COMPREPLY[@]}"')
[ "$completion" = upload ] || fail "bash completion of 'nrfloader upl' gave '$completion'"

stage "apt-get purge"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' > "$work/files.txt"
in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq nrfloader > "$work/purge.log" 2>&1 ||
    { cat "$work/purge.log" >&2; fail "apt-get purge failed"; }
while read -r file; do
    [ ! -e "$root$file" ] || fail "$file is still there after purge"
done < "$work/files.txt"
in_root dpkg -s nrfloader > /dev/null 2>&1 && fail "dpkg still knows nrfloader after purge"
umount "$root/proc"
trap - EXIT
rm -rf "$root"
stage "done: the package installs, runs and purges in a clean Debian 12 root"
