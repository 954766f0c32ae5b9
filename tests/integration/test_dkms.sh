#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kmod/dkms.conf with Debian's dkms, on both kernels the rig tests (6.1 and
# 6.12 from bookworm-backports, each named explicitly with -k, since this
# host runs neither): dkms add, build and install against the kernel's
# headers (building loads nothing), then dkms remove.  It runs in trees of
# its own (--sourcetree, --dkmstree, --installtree), so the host's
# /usr/src, /var/lib/dkms and /lib/modules stay as they were and the test
# can be repeated; the commands are otherwise those of kmod/README.md.
# Asserted: each step succeeds; both modules are installed for each kernel,
# built for that kernel (vermagic); the build log has no warning; dkms
# status says installed, then nothing once removed, and the install tree
# is empty again.  The guest rig loads DKMS-built modules too
# (IDLELAB_VM_DKMS=1 in tests/vm/test_qemu_612.sh).
. tests/lib.sh

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' kmod/dkms.conf)
pkg=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' kmod/dkms.conf)
mods=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"$/\1/p' kmod/dkms.conf | sort | paste -sd' ' -)
check "dkms.conf: package idlelab, a version ($ver)" [ "$pkg" = idlelab -a -n "$ver" ]
check "dkms.conf: builds the two modules kmod/ has ($mods)" \
	[ "$mods" = "idlelab_cstate idlelab_ipi" ]

D=$T_TMP/dkms
mkdir -p "$D/src" "$D/tree" "$D/install"
cp -r kmod "$D/src/$pkg-$ver"
O="--sourcetree $D/src --dkmstree $D/tree --installtree $D/install"
# shellcheck disable=SC2086
dk() { dkms "$@" $O >>"$T_TMP/dkms.log" 2>&1; }

# shellcheck disable=SC2086
check "dkms add $pkg/$ver" dk add "$pkg/$ver"
ran=0
for series in 6.1 6.12; do
	k=
	for b in $(ls -d /lib/modules/"$series".*/build /lib/modules/"$series"-*/build 2>/dev/null | sort -V); do
		k=${b%/build}
		k=${k##*/}
	done
	if [ -z "$k" ]; then
		skip "dkms on $series" "no /lib/modules/$series.*/build (tests/vm/setup.sh installs the headers)"
		continue
	fi
	ran=$((ran + 1))
	mkdir -p "$D/install/$k"
	check "$k: dkms build -k $k" dk build "$pkg/$ver" -k "$k"
	log=$(ls "$D/tree/$pkg/$ver/$k"/*/log/make.log 2>/dev/null | head -1)
	check "$k: the build log has no warning" \
		sh -c "[ -s '$log' ] && ! grep -i 'warning' '$log'"
	check "$k: dkms install -k $k" dk install "$pkg/$ver" -k "$k"
	for m in idlelab_cstate idlelab_ipi; do
		f=$(find "$D/install/$k" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
		vm=$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)
		check "$k: $m installed under updates/dkms, built for $k ($vm)" \
			[ -n "$f" -a "$vm" = "$k" ]
	done
	check "$k: dkms status says installed" \
		sh -c "dkms status $O -k '$k' 2>/dev/null | grep -q '^$pkg/$ver, $k, .*: installed'"
done
check "dkms ran on both kernels ($ran)" [ "$ran" = 2 ]
check "dkms remove $pkg/$ver --all" dk remove "$pkg/$ver" --all
# shellcheck disable=SC2086
check "dkms status is empty once removed" \
	[ -z "$(dkms status $O 2>/dev/null | grep "^$pkg/")" ]
check "no module left in the install tree" \
	[ -z "$(find "$D/install" -name 'idlelab_*')" ]
[ "$T_FAILED" -gt 0 ] && tail -20 "$T_TMP/dkms.log" | sed 's/^/#   /'
t_done
