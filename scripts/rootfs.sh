#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian root filesystem of 'make bench''s real-programs family: a
# bookworm minbase with make, gcc, git, python3 and perl, plus the inputs
# of the workloads (vm/guest/bench-real.sh), in an ext4 image cached in
# ${XDG_CACHE_HOME:-~/.cache}/autofaultaround/.  The image's name carries
# a hash of this script, so a change here builds a new one; an unchanged
# script reuses the cached image.  Needs root (debootstrap, chroot) and
# Debian's package mirror; the mirror is the one apt is configured with
# (AFA_ROOTFS_MIRROR overrides it).  Prints the image's path.
#
# Inside the image, /bench holds:
#   cproj/   a C project of 4 generated .c files and a plain Makefile
#   repo/    a git repository: Python 3.11's standard library (the .py
#            files of /usr/lib/python3.11 without tests) committed once,
#            then 40 commits that each edit a few files, packed by git gc
# usage: rootfs.sh [--path]
. "$(dirname "$0")/lib.sh"

stamp=$(sha256sum "$0" | cut -c1-12)
img=$AFA_CACHE/rootfs-bookworm-$stamp.img
if [ "$1" = --path ]; then
	echo "$img"
	exit 0
fi
if [ -s "$img" ]; then
	echo "$img"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "building the root image needs root (debootstrap, chroot)"
need_pkgs debootstrap e2fsprogs
mirror=${AFA_ROOTFS_MIRROR:-$(apt-cache policy 2>/dev/null |
	awk '$3 ~ /^bookworm\/main$/ && $4 == "amd64" { print $2; exit }')}
[ -n "$mirror" ] || die "no bookworm main mirror in apt's configuration; set AFA_ROOTFS_MIRROR"

mkdir -p "$AFA_CACHE"
work=$(mktemp -d "$AFA_CACHE/rootfs.XXXXXX") || die "mktemp failed"
trap 'umount "$work/root/proc" 2>/dev/null; rm -rf "$work"' EXIT
root=$work/root
t0=$(date +%s)
echo "rootfs: debootstrap bookworm minbase from $mirror into $root (a few minutes)" >&2
debootstrap --variant=minbase \
	--include=make,gcc,libc6-dev,git,python3,perl \
	bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
mount -t proc proc "$root/proc" || die "cannot mount proc in $root"
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 "$@"
}

# The C project: 3 small translation units and a main (one system header
# each, so that a build under TCG takes about a second: see
# docs/benchmarks.md), linked into one program.
echo "rootfs: the C project and the git repository" >&2
proj=$root/bench/cproj
mkdir -p "$proj"
{
	echo '/* SPDX-License-Identifier: GPL-2.0 */'
	echo '#include <stddef.h>'
	for i in $(seq -w 0 2); do
		echo "long unit${i}_run(const char *s, size_t n);"
	done
} >"$proj/proj.h"
for i in $(seq -w 0 2); do
	cat >"$proj/unit$i.c" <<EOF
// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "proj.h"

struct unit${i}_state {
	unsigned long long hash;
	size_t words;
	char last[64];
};

static unsigned long long unit${i}_mix(unsigned long long h, unsigned char c)
{
	return (h ^ c) * 1099511628211ULL + $((10#$i));
}

static void unit${i}_word(struct unit${i}_state *st, const char *w, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		st->hash = unit${i}_mix(st->hash, (unsigned char)(w[k] | 0x20));
	if (n >= sizeof(st->last))
		n = sizeof(st->last) - 1;
	memcpy(st->last, w, n);
	st->last[n] = '\0';
	st->words++;
}

long unit${i}_run(const char *s, size_t n)
{
	struct unit${i}_state state = { 0 }, *st = &state;
	size_t i, start = 0;
	long r;

	for (i = 0; i <= n; i++) {
		if (i == n || s[i] == ' ' || s[i] == '\n') {
			if (i > start)
				unit${i}_word(st, s + start, i - start);
			start = i + 1;
		}
	}
	r = (long)(st->hash % 1000003) + (long)st->words;
	if (st->words && strlen(st->last) > 3)
		r += st->last[0];
	return r;
}
EOF
done
{
	echo '// SPDX-License-Identifier: GPL-2.0'
	echo '#include <stdio.h>'
	echo '#include <string.h>'
	echo '#include "proj.h"'
	echo 'int main(int argc, char **argv)'
	echo '{'
	echo '	const char *s = argc > 1 ? argv[1] : "hello world";'
	echo '	long r = 0;'
	echo
	for i in $(seq -w 0 2); do
		echo "	r += unit${i}_run(s, strlen(s));"
	done
	echo '	printf("%ld\n", r);'
	echo '	return 0;'
	echo '}'
} >"$proj/main.c"
cat >"$proj/Makefile" <<'EOF'
CFLAGS = -O2 -Wall
OBJS = $(patsubst %.c,%.o,$(wildcard *.c))

proj: $(OBJS)
	$(CC) -o $@ $(OBJS)

%.o: %.c proj.h
	$(CC) $(CFLAGS) -c -o $@ $<

clean:
	rm -f proj *.o
EOF
in_root make -s -C /bench/cproj >/dev/null && in_root /bench/cproj/proj >/dev/null &&
	in_root make -s -C /bench/cproj clean || die "the C project does not build"

# The repository: the standard library once, then 40 small commits.
repo=$root/bench/repo
mkdir -p "$repo"
(cd "$root/usr/lib/python3.11" &&
	find . -name '*.py' -not -path '*/test/*' -not -path '*/tests/*' \
		-not -path '*/idle_test/*' -not -path './site-packages/*' \
		-not -path './dist-packages/*' | cpio -pdm --quiet "$repo") ||
	die "cannot copy the standard library"
git_() {
	in_root git -C /bench/repo -c user.name=bench -c user.email=bench@localhost \
		-c init.defaultBranch=main "$@"
}
git_ init -q && git_ add -A && git_ commit -q -m "standard library" ||
	die "git init failed"
files=$(cd "$repo" && find . -name '*.py' | sort | awk 'NR % 37 == 1')
m=$(echo "$files" | wc -l)
n=0
for c in $(seq 1 40); do
	for f in $(echo "$files" | awk -v c="$c" -v m="$m" 'NR == (c - 1) % m + 1 || NR == (c * 7) % m + 1'); do
		echo "# edit $c of ${f#./}" >>"$repo/$f"
		n=$((n + 1))
	done
	git_ commit -q -a -m "edit $c" || die "git commit failed"
done
git_ gc -q --aggressive || die "git gc failed"
echo "rootfs: $(du -sh "$repo/.git" | cut -f1) of git objects, $n edits, $(find "$repo" -name '*.py' | wc -l) files" >&2

# Trim what no workload reads, then the ext4 image (a third free).
umount "$root/proc"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
kib=$(du -sk "$root" | cut -f1)
kib=$((kib * 3 / 2 + 65536))
mkfs.ext4 -q -F -L afaroot -d "$root" "$work/root.img" "${kib}K" ||
	die "mkfs.ext4 -d failed"
mv "$work/root.img" "$img" || die "cannot write $img"
echo "rootfs: built $img ($((kib / 1024)) MiB) in $(($(date +%s) - t0)) s" >&2
echo "$img"
