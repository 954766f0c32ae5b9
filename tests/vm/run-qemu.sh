#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The QEMU half of the kmod rig (also `make vmtest`): install the Debian
# kernel, headers, QEMU and busybox (tests/vm/setup.sh), build the modules
# against those headers, pack an initramfs with busybox, the modules and
# tests/vm/kmod-client and idlelab, boot it under TCG with 4 vCPUs and a 9p share, and
# assert on what the guest wrote there (tests/vm/test_qemu.sh).
#   sh tests/vm/run-qemu.sh [--no-setup] [--no-test]
# Results land in $IDLELAB_VM_OUT (default build-vm/qemu): results.jsonl,
# guest.db (the guest's idlelab database), info.json, dmesg.txt,
# client.stderr, idlelab.stderr, serial.log.  Exit status: the test's, or 1.
set -u
cd "$(dirname "$0")/../.." || exit 1
setup=1
test=1
for a in "$@"; do
	case $a in
	--no-setup) setup=0 ;;
	--no-test) test=0 ;;
	*) echo "usage: $0 [--no-setup] [--no-test]" >&2; exit 2 ;;
	esac
done
OUT=${IDLELAB_VM_OUT:-build-vm/qemu}
TIMEOUT=${IDLELAB_VM_TIMEOUT:-600}
[ "$setup" = 1 ] && { sh tests/vm/setup.sh || exit 1; }
. tests/vm/vmlib.sh
vm_pick_kernel || exit 1
mkdir -p "$OUT/share"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/share/"* "$OUT/serial.log" "$OUT/results.jsonl" "$OUT/guest.db" \
	"$OUT/info.json" "$OUT/idlelab.stderr"
vm_build "$OUT" || exit 1

echo "run-qemu: booting $KVER (timeout ${TIMEOUT}s)" >&2
start=$(date +%s)
timeout -s KILL "$TIMEOUT" qemu-system-x86_64 \
	-accel tcg,thread=multi -cpu max -smp 4 -m 1024 \
	-kernel "$KIMG" -initrd "$INITRD" \
	-append "console=ttyS0 quiet panic=-1" \
	-virtfs "local,path=$OUT/share,mount_tag=share,security_model=none" \
	-nographic -no-reboot </dev/null >"$OUT/serial.log" 2>&1
rc=$?
echo "run-qemu: qemu exited $rc after $(($(date +%s) - start))s" >&2
for f in results.jsonl dmesg.txt client.stderr idlelab.stderr guest.db \
	 info.json; do
	[ -f "$OUT/share/$f" ] && cp "$OUT/share/$f" "$OUT/$f"
done
[ "$test" = 1 ] || exit 0
IDLELAB_VM_RESULTS=$OUT sh tests/vm/test_qemu.sh
