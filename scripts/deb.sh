#!/usr/bin/env bash
# Builds the Debian package bin/nrfloader_<version>_<arch>.deb from this checkout, from the one release build
# scripts/build.sh makes (bin/nrfloader): the executable, a manual page per command generated from it
# (scripts/man-pages.sh), bash, zsh and fish completions generated from it, the copyright file and a changelog.
# The version is the VERSION file's, the one `nrfloader --version` prints; Depends is computed from the executable
# by dpkg-shlibdeps. Installs the Debian packages it needs (dpkg-dev, python3) first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --package
bash scripts/build.sh

version=$(tr -d '[:space:]' < VERSION)
arch=$(dpkg --print-architecture)
deb=bin/nrfloader_${version}_${arch}.deb
work=.build-deb/package
root=$work/root
rm -rf "$work"
mkdir -p "$root/DEBIAN" "$root/usr/bin"

# The executable (stripped by build.sh) and what is generated from it.
install -m 0755 bin/nrfloader "$root/usr/bin/nrfloader"
bash scripts/man-pages.sh bin/nrfloader "$root/usr/share/man/man1"
gzip -9n "$root"/usr/share/man/man1/*.1
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
# bash-completion sources the file: it carries no #! line (lintian: bash-completion-with-hashbang).
bin/nrfloader --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/nrfloader"
bin/nrfloader --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_nrfloader"
bin/nrfloader --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/nrfloader.fish"

# Documentation: the copyright file, and a changelog entry for this version (a native package's changelog.gz).
doc=$root/usr/share/doc/nrfloader
install -d "$doc"
install -m 0644 packaging/copyright "$doc/copyright"
maintainer=$(sed -n 's/^Maintainer: //p' packaging/control)
commit=$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
when=$(git log -1 --format=%cD 2>/dev/null || date -R)
{
    echo "nrfloader ($version) unstable; urgency=medium"
    echo
    sed 's/^/  /' packaging/changes
    echo "  * Built from commit $commit."
    echo
    echo " -- $maintainer  $when"
} > "$work/changelog"
gzip -9n < "$work/changelog" > "$doc/changelog.gz"

# Depends from the executable's shared libraries (dpkg-shlibdeps reads the ELF NEEDED entries and the libraries'
# shlibs/symbols files); it needs a debian/control naming the package, which the work folder provides.
mkdir -p "$work/debian"
printf 'Source: nrfloader\n\nPackage: nrfloader\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e root/usr/bin/nrfloader 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 70; }

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" -e "s/@SIZE@/$size/" \
    packaging/control > "$root/DEBIAN/control"
(cd "$root" && find usr -type f -printf '%P\n' | sort | sed 's|^|usr/|' | xargs md5sum) > "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +
find "$root/usr/share" -type f -exec chmod 0644 {} +
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p bin
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s) \
    dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "deb.sh: $deb ($(du -h "$deb" | cut -f1)); Depends: $depends" >&2
