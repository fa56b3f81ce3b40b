#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the debug kernel of 'make vmtest-debug' (KASAN, lockdep, atomic
# sleep, kmemleak, KFENCE) from Debian's linux-source tree, once, into
# the cache, and print its build directory (the KDIR for module builds).
#
#   debug-kernel.sh           build if needed, print the build directory
#   debug-kernel.sh --cached  print it if a current build is cached, else
#                             say why not on stderr and exit 1; never builds
#   debug-kernel.sh --dir     print where the build directory is
#
# AFA_DEBUG_RT=1 selects the PREEMPT_RT flavour (make debug-kernel-rt):
# scripts/debug-kernel-rt.config merged over the same fragment, its own
# build directory, the same checks.  Debian's -rt kernel has no lockdep
# and no DEBUG_ATOMIC_SLEEP; this one has both, so a sleeping lock taken
# in atomic context is reported, not only broken under contention.
#
# The source tree is the one scripts/srctree.sh unpacks and KUnit shares:
# the build is out of tree (O=), never touches the tree, and holds the
# tree's KUnit lock so that the two never run make in it at once.  The
# config is 'make allnoconfig' with scripts/debug-kernel.config merged
# over it (merge_config.sh), then olddefconfig; every line of the
# fragment must end up in .config.  A stamp holds the source package
# version and a hash of the fragment and of this recipe: when either
# changes, the kernel is rebuilt (from scratch for a new source version,
# whose files may be older than the cached objects).
#
# In the build directory: arch/x86/boot/bzImage, the module tree
# modroot/lib/modules/<release> (modules.builtin etc., depmod run), and
# include/config/kernel.release.
. "$(dirname "$0")/lib.sh"

if [ -n "$AFA_DEBUG_RT" ]; then
	flavour=rt-
	frags="$AFA_TOP/scripts/debug-kernel.config $AFA_TOP/scripts/debug-kernel-rt.config"
else
	flavour=
	frags=$AFA_TOP/scripts/debug-kernel.config
fi
build=$AFA_CACHE/debug-kernel-$flavour$AFA_SRC_SERIES
log=$AFA_TOP/build/debug-kernel-${flavour}log
# what the stamp covers besides the fragment: bump when the recipe changes
recipe="allnoconfig+fragment+olddefconfig all modules_install v1"

want_stamp() {
	local srcver
	srcver=$(dpkg-query -W -f='${Version}' "linux-source-$AFA_SRC_SERIES" 2>/dev/null) ||
		return 1
	# shellcheck disable=SC2086 # $frags is a list of paths without blanks
	echo "$srcver $({ echo "$recipe"; cat $frags; } | sha256sum | cut -c1-16)"
}

# cached: the build directory holds a complete build of this fragment
# for the installed source package
cached() {
	local want have
	want=$(want_stamp) || { echo "linux-source-$AFA_SRC_SERIES is not installed"; return 1; }
	have=$(cat "$build/.afa-debug-stamp" 2>/dev/null)
	if [ -z "$have" ]; then
		echo "no debug kernel in $build"
		return 1
	elif [ "$have" != "$want" ]; then
		echo "the debug kernel in $build is out of date (built for '$have', want '$want')"
		return 1
	fi
}

case "$1" in
--dir)
	echo "$build"
	exit 0
	;;
--cached)
	why=$(cached) || { echo "debug-kernel: $why" >&2; exit 1; }
	echo "$build"
	exit 0
	;;
"") ;;
*)
	die "usage: debug-kernel.sh [--cached|--dir]"
	;;
esac

if cached >/dev/null; then
	echo "$build"
	exit 0
fi

need_pkgs build-essential flex bison bc libelf-dev kmod xz-utils
tree=$("$AFA_TOP/scripts/srctree.sh") || exit 1
mkdir -p "$build" "$AFA_TOP/build" || die "cannot create $build"

exec 9>"$tree/.afa-kunit.lock"
flock 9
# another run may have built it while we waited for the lock
if cached >/dev/null; then
	echo "$build"
	exit 0
fi

# The tree's top Kconfig may source the KUnit hook (scripts/kunit.sh):
# it must resolve, or no config can be made.
if grep -qx 'source "autofaultaround/kunit/Kconfig"' "$tree/Kconfig" &&
   [ ! -r "$tree/autofaultaround/kunit/Kconfig" ]; then
	die "$tree/autofaultaround points at a checkout that is gone ($(readlink "$tree/autofaultaround")); run 'make kunit' once (it re-points it), then retry"
fi

want=$(want_stamp)
have=$(cat "$build/.afa-debug-stamp" 2>/dev/null)
if [ "${have%% *}" != "${want%% *}" ]; then
	# a new source version (or no build yet): start from scratch
	rm -rf "$build"
	mkdir -p "$build" || die "cannot create $build"
fi
rm -f "$build/.afa-debug-stamp"

echo "debug-kernel: building Linux $AFA_SRC_SERIES ${flavour:+(PREEMPT_RT) }with KASAN, lockdep, kmemleak in $build" >&2
echo "debug-kernel: (nice -n 19, -j$(nproc); the first build takes a while; log in $log)" >&2
start=$(date +%s)
kmake() {
	nice -n 19 make -C "$tree" O="$build" -j"$(nproc)" "$@"
}
# shellcheck disable=SC2086 # $frags: paths without blanks
{
	kmake allnoconfig &&
	(cd "$build" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$build" .config $frags) &&
	kmake olddefconfig
} >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuring the debug kernel failed (log: $log)"; }

# Every line of the fragments, as written, in .config ("is not set" may
# also be absent, for a symbol whose dependencies are off); where the
# -rt fragment sets a symbol again, its line is the one that counts.
bad=
# shellcheck disable=SC2086
lines=$(cat $frags | awk '/^CONFIG_|^# CONFIG_.* is not set$/ {
	sym = $0; sub(/^# /, "", sym); sub(/[= ].*/, "", sym)
	if (!(sym in at)) order[n++] = sym
	at[sym] = $0
} END { for (i = 0; i < n; i++) print at[order[i]] }')
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$build/.config" || bad="$bad
  want '$line', have '$(grep -E "^(# )?${line%%=*}[= ]" "$build/.config")'"
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		! grep -q "^$sym=" "$build/.config" || bad="$bad
  want '$line', have '$(grep "^$sym=" "$build/.config")'"
		;;
	esac
done <<<"$lines"
[ -z "$bad" ] || die "the debug kernel's .config does not have what $frags asks for:$bad"

{
	kmake all &&
	rm -rf "$build/modroot" &&
	kmake INSTALL_MOD_PATH="$build/modroot" modules_install
} >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "building the debug kernel failed (log: $log)"; }
krel=$(cat "$build/include/config/kernel.release")
[ -r "$build/arch/x86/boot/bzImage" ] && [ -d "$build/modroot/lib/modules/$krel" ] ||
	die "no bzImage or module tree in $build after the build (log: $log)"
echo "$want" >"$build/.afa-debug-stamp"
echo "debug-kernel: built $krel in $(($(date +%s) - start)) s" >&2
echo "$build"
