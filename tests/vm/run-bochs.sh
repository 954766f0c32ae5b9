#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Bochs half of the kmod rig: the same kernel, modules and client as
# run-qemu.sh, booted from an isolinux ISO under Bochs 2.7, whose MWAIT
# really sleeps, so the IRQ early/late ordering of t_intr and t_exit can be
# asserted (tests/vm/test_bochs.sh).  There is no 9p: the guest prints its
# results, and the run attributes the test needs, read from its idlelab
# database with sqlite3 (the serial line is too slow for the whole file),
# base64 between markers on the serial log.  Bochs may neither power
# off nor honour SIGTERM, so this script watches the serial log for the end
# marker and then SIGKILLs it.  A watchdog stops it early, saying why in
# $OUT/rig-status, when it sleeps writing to a terminal or uses no CPU for
# two minutes; the hard limit (default 2100 s) only bounds a slow host:
# about 7 minutes on an idle 2-vCPU host until 2026-12-01, but 1366 s on
# an idle host on 2026-12-02 and past 1500 s on a busy one (not explained
# yet: tests/vm/README.md), so the limit leaves room above that.
#   sh tests/vm/run-bochs.sh [--no-setup] [--no-test]
# Results land in $IDLELAB_VM_OUT (default build-vm/bochs).
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
OUT=${IDLELAB_VM_OUT:-build-vm/bochs}
LIMIT=${IDLELAB_VM_TIMEOUT:-2100}
[ "$setup" = 1 ] && { sh tests/vm/setup.sh --bochs || exit 1; }
. tests/vm/vmlib.sh
vm_pick_kernel || exit 1
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/iso" "$OUT/serial.log" "$OUT/rig-status" "$OUT/results.jsonl" "$OUT/dmesg.txt" \
	"$OUT/client.stderr" "$OUT/idlelab.stderr" "$OUT/guest-attrs.csv"
VM_9P=0 vm_build "$OUT" || exit 1
printf 'kernel=%s\nprofile=bochs\nsmp=4\nkmod=%s\n' "$KVER" \
	"$(head -1 "$OUT/kmod-origin")" > "$OUT/rig-profile"

mkdir -p "$OUT/iso/isolinux"
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 \
	"$OUT/iso/isolinux/"
cp "$KIMG" "$OUT/iso/vmlinuz"
cp "$INITRD" "$OUT/iso/initrd.gz"
cat > "$OUT/iso/isolinux/isolinux.cfg" <<EOF2
DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL /vmlinuz
  APPEND initrd=/initrd.gz console=ttyS0 quiet panic=-1 idlelab.client=cstate
EOF2
xorriso -as mkisofs -quiet -o "$OUT/boot.iso" -b isolinux/isolinux.bin \
	-c isolinux/boot.cat -no-emul-boot -boot-load-size 4 \
	-boot-info-table "$OUT/iso" || exit 1
# No sound: the ALSA plugin aborts bochs-bin where there is no sound card.
cat > "$OUT/bochsrc" <<EOF2
memory: guest=512, host=512
cpu: count=4, ips=200000000, quantum=16
cpu: model=corei7_skylake_x
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path=boot.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=serial.log
display_library: term
clock: sync=none
log: bochs.log
sound: driver=dummy
speaker: enabled=0
EOF2

echo "run-bochs: booting $KVER (limit ${LIMIT}s)" >&2
start=$(date +%s)
# Debian builds Bochs with its debugger, so the term display always opens a
# fresh pseudo-terminal (/dev/ptmx) and draws the emulated screen there,
# never on ours; it reads "c" (continue) for the debugger from stdin.  The
# other end of that pty must be read for as long as Bochs runs: once its
# few kilobytes of buffer are full, Bochs sleeps in n_tty_write for good.
printf 'c\n' > "$OUT/bochs.stdin"
(cd "$OUT" && TERM=${TERM:-xterm} exec bochs-bin -q -f bochsrc \
	<"$OUT/bochs.stdin" >"$OUT/bochs.out" 2>&1) &
bpid=$!
drain=
status=exited
reason="Bochs exited before the guest finished"
stuck=0
last_cpu=-1
still=0
while :; do
	sleep 5
	el=$(($(date +%s) - start))
	[ -z "$drain" ] && drain=$(vm_drain_pty "$OUT/bochs.out")
	if grep -q IDLELAB-GUEST-DONE "$OUT/serial.log" 2>/dev/null; then
		sleep 2
		status=done reason="guest finished"
		break
	fi
	kill -0 "$bpid" 2>/dev/null || break
	if [ "$el" -ge "$LIMIT" ]; then
		status=limit reason="limit of ${LIMIT}s hit"
		break
	fi
	# The watchdog: a Bochs that makes no CPU progress is stuck; one
	# that sleeps writing to a terminal is stuck on its own output.
	cpu=$(vm_cpu_ticks "$bpid")
	if [ "$cpu" = "$last_cpu" ]; then
		still=$((still + 5))
	else
		still=0
	fi
	last_cpu=$cpu
	if w=$(vm_tty_blocked "$bpid"); then
		stuck=$((stuck + 5))
	else
		stuck=0
	fi
	if [ "$stuck" -ge 20 ] && [ "$still" -ge 20 ]; then
		status=blocked
		reason="Bochs blocked on terminal output for ${stuck}s: $w"
		break
	fi
	if [ "$still" -ge 120 ]; then
		status=stalled
		reason="Bochs used no CPU for ${still}s (wchan $(vm_wchan "$bpid"))"
		break
	fi
done
cpu_s=$((${last_cpu#-} / $(getconf CLK_TCK)))
echo "run-bochs: $status: $reason" >&2
kill -KILL "$bpid" 2>/dev/null
wait "$bpid" 2>/dev/null
[ -n "$drain" ] && kill "$drain" 2>/dev/null
cat > "$OUT/rig-status" <<EOF2
status=$status
reason=$reason
elapsed_s=$(($(date +%s) - start))
bochs_cpu_s=$cpu_s
pty_drained=$([ -n "$drain" ] && echo 1 || echo 0)
EOF2
echo "run-bochs: done after $(($(date +%s) - start))s" >&2

# Decode the base64 blocks the guest printed between markers.
for f in results.jsonl dmesg.txt client.stderr idlelab.stderr \
	 guest-attrs.csv; do
	tr -d '\r' < "$OUT/serial.log" 2>/dev/null |
		sed -n "/^IDLELAB-BEGIN $f\$/,/^IDLELAB-END $f\$/p" |
		sed '1d;$d' | base64 -d > "$OUT/$f" 2>/dev/null
done
[ "$test" = 1 ] || exit 0
IDLELAB_VM_RESULTS=$OUT sh tests/vm/test_bochs.sh
