#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the kernel's checkpatch.pl --strict over the module and the tests.
. "$(dirname "$0")/lib.sh"

tree=$("$AFA_TOP/scripts/srctree.sh") || exit 1
cd "$AFA_TOP" || exit 1
bad=0
for f in $(git ls-files module kunit | grep -E "(\.[ch]|Kbuild|Kconfig)$"); do
	[ -f "$f" ] || continue
	# module/compat.h is the one place an out-of-tree module that builds
	# for several releases compares LINUX_VERSION_CODE, which checkpatch
	# asks in-tree code not to do (and whose "LINUX_VERSION_CODE < ..."
	# it takes for a constant on the left); everything else stays strict.
	ignore=
	[ "$f" = module/compat.h ] && ignore="--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON"
	# shellcheck disable=SC2086
	if ! perl "$tree/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types $ignore -f "$f"; then
		bad=$((bad + 1))
	fi
done
[ "$bad" -eq 0 ] && echo "checkpatch: clean" && exit 0
echo "checkpatch: $bad files with findings"
exit 1
