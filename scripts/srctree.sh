#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source tarball into the cache (once per tarball
# version) and print the tree's path.  KUnit builds and checkpatch use it.
. "$(dirname "$0")/lib.sh"

need_pkgs "linux-source-$AFA_SRC_SERIES" xz-utils
tarball=/usr/src/linux-source-$AFA_SRC_SERIES.tar.xz
[ -f "$tarball" ] || die "$tarball not found; run 'make deps' as root"
stamp=$(dpkg-query -W -f='${Version}' "linux-source-$AFA_SRC_SERIES")

mkdir -p "$AFA_CACHE" || die "cannot create $AFA_CACHE"
exec 9>"$AFA_CACHE/.unpack.lock"
flock 9
if [ "$(cat "$AFA_SRCTREE/.afa-unpacked" 2>/dev/null)" != "$stamp" ]; then
	echo "unpacking $tarball into $AFA_CACHE ..." >&2
	rm -rf "$AFA_SRCTREE" "$AFA_CACHE/kunit-$AFA_SRC_SERIES"
	tar -C "$AFA_CACHE" -xf "$tarball" || die "cannot unpack $tarball"
	echo "$stamp" >"$AFA_SRCTREE/.afa-unpacked"
fi
echo "$AFA_SRCTREE"
