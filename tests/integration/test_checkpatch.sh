#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The kernel modules are checkpatch clean (--strict).  checkpatch.pl ships
# in no Debian package on its own; it is taken from Debian's linux-source
# tarball (installed by ./run.sh test) and cached in $BUILD/checkpatch.
# Two checks are ignored, each for a reason:
#   BIT_MACRO            the UAPI header is included by user space, where
#                        the kernel's BIT() does not exist;
#   PREFER_KERNEL_TYPES  idlelab_apicdest.h and the request checks
#                        (idlelab_*_check.h) are plain C shared with the
#                        user-space unit tests and fuzz targets, on the
#                        UAPI's __u32 and __u64.
. tests/lib.sh
cp_dir=$PWD/$BUILD/checkpatch
if [ ! -f "$cp_dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -1)
	if [ -z "$tarball" ]; then
		skip "checkpatch" "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)"
		t_done
		exit 0
	fi
	mkdir -p "$cp_dir"
	tar -xJf "$tarball" -C "$cp_dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
for f in $(git ls-files 'kmod/*.c' 'kmod/*.h'); do
	out=$(perl "$cp_dir/scripts/checkpatch.pl" --strict --no-tree -q \
		--ignore BIT_MACRO,PREFER_KERNEL_TYPES -f "$f" 2>&1)
	if [ -z "$out" ]; then
		ok "checkpatch --strict $f"
	else
		not_ok "checkpatch --strict $f"
		echo "$out" | sed 's/^/#   /' | head -20
	fi
done
t_done
