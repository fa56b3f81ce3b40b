# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the host-side scripts; sourced, not run.

AFA_TOP=$(cd "$(dirname "$0")/.." && pwd)
AFA_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/autofaultaround
AFA_SRC_SERIES=${AFA_SRC_SERIES:-6.12}
AFA_SRCTREE=$AFA_CACHE/linux-source-$AFA_SRC_SERIES

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# need_pkgs PKG...: fail with the exact command to run when any Debian
# package is missing.
need_pkgs() {
	missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] ||
		die "missing Debian packages:$missing; run 'make deps' as root (or apt-get install$missing)"
}
