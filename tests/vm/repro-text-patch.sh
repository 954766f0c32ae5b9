#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The text-patching hazard of QEMU's multi-threaded TCG, reproduced and
# its fix checked (tests/vm/README.md, "Live text patching"):
#   sh tests/vm/repro-text-patch.sh N [BUSY]
# runs N guests in the old order (IDLELAB_VM_PATCH_ORDER=late: every CPU
# up from boot, swevent-hold started with the client), then N in the
# rig's order (swevent-hold first, waited for, before the modules load),
# each with BUSY busy loops (default 2) on the host, through
# tests/vm/vm-repeat.sh.  IDLELAB_VM_PROFILE and IDLELAB_VM_KERNEL pass
# through (default x2apic-cluster on 6.12, where CI saw the panic).  Run it
# outside CI, under the rig's lock:
#   flock /tmp/idlelab-vm.lock sh tests/vm/repro-text-patch.sh 10
# Prints each run, then one line per order; exit 0 when the rig's order
# passed every run.
set -u
cd "$(dirname "$0")/../.." || exit 1
n=${1:-}
busy=${2:-2}
case $n$busy in ''|*[!0-9]*) echo "usage: $0 N [BUSY]" >&2; exit 2 ;; esac
export IDLELAB_VM_PROFILE="${IDLELAB_VM_PROFILE:-x2apic-cluster}"
export IDLELAB_VM_KERNEL="${IDLELAB_VM_KERNEL:-6.12}"
pids=
i=0
while [ $i -lt "$busy" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
trap 'kill $pids 2>/dev/null' EXIT INT TERM
mkdir -p build-vm
echo "repro: $n guests per order, $IDLELAB_VM_PROFILE, $IDLELAB_VM_KERNEL, $busy busy loops, $(git rev-parse --short HEAD)"
IDLELAB_VM_PATCH_ORDER=late sh tests/vm/vm-repeat.sh "$n" qemu build-vm/repro-late |
	sed 's/^/late:  /'
IDLELAB_VM_PATCH_ORDER=early sh tests/vm/vm-repeat.sh "$n" qemu build-vm/repro-early \
	>build-vm/repro-early.log
rc=$?
sed 's/^/early: /' build-vm/repro-early.log
exit $rc
