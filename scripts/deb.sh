#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 'make deb': build the Debian packages from this checkout into build/deb/:
#   autofaultaround-dkms_<version>_all.deb     the module's source, for DKMS
#   autofaultaround-tools_<version>_<arch>.deb afa-stat and its man page
# <version> is dkms.conf's PACKAGE_VERSION.  AFA_DEB_VERSION builds
# another version (dkms.conf and MODULE_VERSION rewritten in the copy
# that is packaged: scripts/deb-test.sh's upgrade), AFA_DEB_OUT another
# output directory.  Prints the paths of the packages.
. "$(dirname "$0")/lib.sh"

need_pkgs dpkg-dev debhelper dh-dkms fakeroot gcc make libc6-dev
cd "$AFA_TOP" || exit 1
upstream=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
[ -n "$upstream" ] || die "no PACKAGE_VERSION in dkms.conf"
ver=${AFA_DEB_VERSION:-$upstream}
out=${AFA_DEB_OUT:-$AFA_TOP/build/deb}
src=$out/src/autofaultaround-$ver

rm -rf "$out/src" "$out"/autofaultaround-*_"$ver"_*.deb
mkdir -p "$src" || die "cannot create $src"
# the files git knows, as they are in the work tree
git ls-files -z --cached --others --exclude-standard |
	tar cf - --null -T - | tar xf - -C "$src" || die "cannot copy the tree"
if [ "$ver" != "$upstream" ]; then
	sed -i "s/^PACKAGE_VERSION=\".*\"$/PACKAGE_VERSION=\"$ver\"/" "$src/dkms.conf"
	sed -i "s/^MODULE_VERSION(\".*\");$/MODULE_VERSION(\"$ver\");/" "$src/module/main.c"
fi
when=$(git log -1 --format=%ct 2>/dev/null || date +%s)
cat >"$src/debian/changelog" <<EOC
autofaultaround ($ver) bookworm; urgency=medium

  * Built by scripts/deb.sh from $(git describe --always --dirty 2>/dev/null || echo "a source tree").

 -- autofaultaround developers <autofaultaround@localhost>  $(date -R -d "@$when")
EOC

log=$out/build.log
echo "deb: building autofaultaround $ver in $src (log: $log)" >&2
(cd "$src" && SOURCE_DATE_EPOCH=$when dpkg-buildpackage -b -us -uc) >"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; die "dpkg-buildpackage failed (log: $log)"; }
mv "$out"/src/*.deb "$out/" || die "no package built (log: $log)"
ls "$out"/autofaultaround-*_"$ver"_*.deb
