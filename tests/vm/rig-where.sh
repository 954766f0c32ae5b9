#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run every guest of the rig once into OUTDIR/<kernel>-<profile> (each
# under the rig's lock, /tmp/idlelab-vm.lock, so it never overlaps another
# guest) and rewrite the what-ran-where table of BENCHMARKS.md from their
# databases (tools/what-ran-where.sh --update):
#   sh tests/vm/rig-where.sh [OUTDIR]     (default build-vm/where)
# The guests: xAPIC on 6.1 and 6.12 (6.12 with the DKMS-built modules),
# x2APIC cluster and physical on both, the low-resolution guest
# (highres=off) and Bochs on 6.1.  About 15 to 25
# minutes on a 2-core host, most of it Bochs.  IDLELAB_WHERE_GUESTS
# overrides the list ("KERNEL:PROFILE ...", profile bochs for Bochs).
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${1:-build-vm/where}
guests=${IDLELAB_WHERE_GUESTS:-"6.1:xapic 6.12:xapic 6.1:x2apic-cluster 6.1:x2apic-phys 6.12:x2apic-cluster 6.12:x2apic-phys 6.1:lowres 6.1:bochs"}
dirs=
for g in $guests; do
	k=${g%%:*} p=${g#*:}
	d=$out/$k-$p
	mkdir -p "$d"
	if [ "$p" = bochs ]; then
		flock /tmp/idlelab-vm.lock env IDLELAB_VM_KERNEL="$k" \
			IDLELAB_VM_OUT="$d" sh tests/vm/run-bochs.sh --no-setup \
			>"$d/run.log" 2>&1
	else
		dkms=0
		[ "$k" = 6.12 ] && [ "$p" = xapic ] && dkms=1
		flock /tmp/idlelab-vm.lock env IDLELAB_VM_KERNEL="$k" \
			IDLELAB_VM_PROFILE="$p" IDLELAB_VM_DKMS=$dkms \
			IDLELAB_VM_OUT="$d" sh tests/vm/run-qemu.sh --no-setup \
			>"$d/run.log" 2>&1
	fi
	echo "rig-where: $k $p: exit $?, $(grep -c '^not ok' "$d/run.log") failed assertions"
	dirs="$dirs $d"
done
# shellcheck disable=SC2086
sh tools/what-ran-where.sh --update $dirs
