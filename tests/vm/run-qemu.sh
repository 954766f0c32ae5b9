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
# client.stderr, idlelab.stderr, seed*.out, serial.log, and rig-profile
# (kernel, profile, vCPUs, which build of the modules).  IDLELAB_VM_DKMS=1:
# the guest loads modules built by DKMS (vm_dkms in vmlib.sh).  Exit
# status: the test's, or 1.
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
# The guest's APIC, from IDLELAB_VM_PROFILE:
#   xapic           -cpu max, 4 vCPUs: xAPIC flat (any QEMU)
#   x2apic-cluster  q35 with an IOMMU doing interrupt remapping (which
#                   the kernel needs before it enables x2APIC) and
#                   -cpu max,+x2apic, 20 vCPUs so that the targets span
#                   two clusters (IDs 0-15 and 16-19): cluster x2apic
#   x2apic-phys     the same, with x2apic_phys on the kernel command line
#   lowres          -cpu max, 4 vCPUs, highres=off: hrtimers at tick
#                   resolution, for the cstate module's refusal of them
#   cst             -cpu max,+invtsc, 4 vCPUs, and an SSDT with a _CST per
#                   CPU (tests/vm/cst-ssdt.asl, compiled with acpica-tools'
#                   iasl): Linux's acpi_idle is the cpuidle driver, with C1
#                   (HLT) and C2, C3 entered by an I/O port read, as on Zen
#                   (tests/vm/test_cst.sh)
#   xen             q35, -cpu max, 4 vCPUs: Xen 4.17 booted as a multiboot
#                   kernel, the Debian kernel as its PV dom0 (tests/vm/
#                   test_xen.sh); the Xen files come from tests/vm/setup.sh
#                   --xen, unpacked in IDLELAB_XEN_DIR (build-vm/xen)
# Only QEMU 10's TCG (bookworm-backports) emulates x2APIC.  IDLELAB_QEMU
# names the binary (default qemu-system-x86_64).
PROFILE=${IDLELAB_VM_PROFILE:-xapic}
QEMU=${IDLELAB_QEMU:-qemu-system-x86_64}
X2="-machine q35 -device intel-iommu,intremap=on,eim=on -cpu max,+x2apic"
case $PROFILE in
# preempt=full: kernel code is preemptible at every interrupt return, so
# the kmod's preemption-off windows are put to the test (test_qemu.sh).
xapic) machine="-cpu max" smp=4 append=preempt=full client= ;;
x2apic-cluster) machine=$X2 smp=20 append= client=x2apic ;;
x2apic-phys) machine=$X2 smp=20 append=x2apic_phys client=x2apic ;;
lowres) machine="-cpu max" smp=4 append=highres=off client=lowres ;;
cst) machine="-cpu max,+invtsc" smp=4 append= client=cst ;;
xen) machine="-machine q35 -cpu max" smp=4 append='' client=xen ;;
*) echo "run-qemu: unknown IDLELAB_VM_PROFILE '$PROFILE'" >&2; exit 2 ;;
esac
smp=${IDLELAB_VM_SMP:-$smp}
[ -n "$client" ] && append="$append idlelab.client=$client"
# The xAPIC guest's storms run while the host injects NMIs through QMP
# (tests/vm/nmi-inject.sh), at most this many; the guest reads it from its
# command line.  Then, in the nmi_kernel step, exactly NMIK more during
# kernel-mode storms (tests/vm/kmod-client-nmik.c).
NMIS=0 NMIK=0
[ "$PROFILE" = xapic ] && NMIS=${IDLELAB_VM_NMIS:-6} NMIK=${IDLELAB_VM_NMIK:-3}
if [ "$NMIS" -gt 0 ] && ! command -v socat >/dev/null; then
	echo "run-qemu: no socat (TEST_DEPS): the guest gets no injected NMIs" >&2
	NMIS=0 NMIK=0
fi
[ "$NMIS" -gt 0 ] || NMIK=0
# QEMU raises each injected NMI on every vCPU's LINT1, but Linux leaves
# LINT1 masked on all CPUs but CPU 0 unless told otherwise: without this,
# no target ever saw one (the nmi_kernel step's first run, 2026-12-05).
[ "$NMIS" -gt 0 ] && append="$append apic_extnmi=all"
append="$append idlelab.nmi_inject=$NMIS idlelab.nmi_kernel=$NMIK"
# The guest makes the rig's static-key flips before any busy step
# (guest-init.sh, "live text patching").  IDLELAB_VM_PATCH_ORDER=late
# restores the old order, swevent-hold started with the client, for the
# reproduction (tests/vm/repro-text-patch.sh) only.
case ${IDLELAB_VM_PATCH_ORDER:-early} in
early) ;;
late) append="$append idlelab.patch_order=late" ;;
*) echo "run-qemu: IDLELAB_VM_PATCH_ORDER is early or late" >&2; exit 2 ;;
esac
XENDIR=${IDLELAB_XEN_DIR:-build-vm/xen}
sopt=
[ "$PROFILE" = xen ] && sopt=--xen
[ "$setup" = 1 ] && { sh tests/vm/setup.sh $sopt || exit 1; }
. tests/vm/vmlib.sh
vm_pick_kernel || exit 1
if [ "$PROFILE" = xen ]; then
	if [ ! -s "$XENDIR/xen" ]; then
		echo "run-qemu: no $XENDIR/xen (sh tests/vm/setup.sh --xen)" >&2
		exit 1
	fi
	VM_XEN=$XENDIR
fi
mkdir -p "$OUT/share"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/share/"* "$OUT/serial.log" "$OUT/results.jsonl" "$OUT/guest.db" \
	"$OUT/info.json" "$OUT/idlelab.stderr" "$OUT/"seed*.out "$OUT/hang-dump.txt"
vm_build "$OUT" || exit 1
if [ "$PROFILE" = cst ]; then
	iasl -p "$OUT/cst-ssdt" tests/vm/cst-ssdt.asl >"$OUT/iasl.log" 2>&1 || {
		cat "$OUT/iasl.log" >&2
		exit 1
	}
	machine="$machine -acpitable file=$OUT/cst-ssdt.aml"
fi
# What this guest is, for the assertions and tools/what-ran-where.sh.
printf 'kernel=%s\nprofile=%s\nsmp=%s\nkmod=%s\n' "$KVER" "$PROFILE" "$smp" \
	"$(head -1 "$OUT/kmod-origin")" > "$OUT/rig-profile"

echo "run-qemu: booting $KVER, $PROFILE, $smp vCPUs (timeout ${TIMEOUT}s)" >&2
start=$(date +%s)
# A UNIX socket path must be short: not under $OUT.
qdir=$(mktemp -d /tmp/idlelab-qmp.XXXXXX) || exit 1
rm -f "$OUT/nmi-inject.log" "$OUT/hang-dump.txt"
: > "$OUT/serial.log"
injector=
if [ "$NMIS" -gt 0 ]; then
	sh tests/vm/nmi-inject.sh "$OUT/serial.log" "$qdir/qmp.sock" "$NMIS" \
		"$OUT/nmi-inject.log" "$TIMEOUT" "$NMIK" &
	injector=$!
fi
# nokaslr: the RIPs of a hang dump (qemu-hang-dump.sh) then read straight
# against the kernel's System.map.  no_timer_check: at boot the kernel
# counts timer ticks over a short busy wait to prove the IO-APIC routes
# them; a vCPU unscheduled on a busy host misses that window, and with
# interrupt remapping (the x2APIC guests) the kernel then panics ("timer
# doesn't work through Interrupt-remapped IO-APIC", seen 2026-12-02 with
# two busy loops on the host).  The guests' timer works; the check is what
# the emulator's pace defeats.
kargs="quiet panic=-1 nokaslr no_timer_check $append"
# tsc=reliable: TCG's TSC follows the host's, but on a loaded host the
# guest's clocksource watchdog sees it skew against the HPET (1.5 ms over
# 478 ms, a 6.12 xAPIC guest, 2026-12-05) and marks it unstable in the
# middle of a busy step.  That clears sched_clock's static key: a live
# text patch while the other vCPUs run, the int3 hazard of "Live text
# patching" in tests/vm/README.md, which the hotplug step's text hash
# caught.  Xen's dom0 keeps Xen's clock and its own flags.
[ "$PROFILE" = xen ] || kargs="$kargs tsc=reliable"
if [ "$PROFILE" = xen ]; then
	# QEMU's multiboot loader starts Xen (an ELF32 once gunzipped) with
	# two modules: the dom0 kernel with its command line, then the
	# initramfs.  Xen's console is the serial port; dom0's is hvc0,
	# which Xen writes to the same port.  dom0_mem leaves Xen room.
	boot="-kernel $XENDIR/xen"
	xargs="console=com1 dom0_mem=512M,max:512M loglvl=all guest_loglvl=all"
	mods="$KIMG console=hvc0 $kargs,$INITRD"
else
	boot="-kernel $KIMG -initrd $INITRD"
	xargs="console=ttyS0 $kargs"
	mods=
fi
# shellcheck disable=SC2086
$QEMU \
	-accel tcg,thread=multi $machine -smp "$smp" -m 1024 \
	-qmp "unix:$qdir/qmp.sock,server=on,wait=off" \
	$boot ${mods:+-initrd "$mods"} -append "$xargs" \
	-virtfs "local,path=$OUT/share,mount_tag=share,security_model=none" \
	-nographic -no-reboot </dev/null >"$OUT/serial.log" 2>&1 &
qpid=$!
# The host's limit: past it, what each vCPU was doing (hang-dump.txt),
# then SIGKILL; rc 137 as timeout(1) would give.
( s=
  trap '[ -n "$s" ] && kill "$s" 2>/dev/null; exit 0' TERM
  sleep "$TIMEOUT" &
  s=$!
  wait "$s"
  kill -0 "$qpid" 2>/dev/null || exit 0
  sh tests/vm/qemu-hang-dump.sh "$qdir/qmp.sock" "$smp" "$OUT/hang-dump.txt" \
	"$OUT/share/kallsyms.gz"
  kill -KILL "$qpid" 2>/dev/null ) >/dev/null 2>&1 &
limiter=$!
wait "$qpid"
rc=$?
kill "$limiter" 2>/dev/null
wait "$limiter" 2>/dev/null
[ -n "$injector" ] && { kill "$injector" 2>/dev/null; wait "$injector"; }
rm -rf "$qdir"
echo "run-qemu: qemu exited $rc after $(($(date +%s) - start))s" >&2
# Everything the guest wrote: results.jsonl, dmesg.txt, client.stderr,
# idlelab.stderr, guest.db, info.json, and each seed campaign's output.
for f in "$OUT/share/"*; do
	[ -f "$f" ] && cp "$f" "$OUT/"
done
[ "$test" = 1 ] || exit 0
case $PROFILE in
x2apic-*) IDLELAB_VM_RESULTS=$OUT IDLELAB_VM_PROFILE=$PROFILE \
	exec sh tests/vm/test_x2apic.sh ;;
lowres) IDLELAB_VM_RESULTS=$OUT exec sh tests/vm/test_lowres.sh ;;
cst) IDLELAB_VM_RESULTS=$OUT exec sh tests/vm/test_cst.sh ;;
xen) IDLELAB_VM_RESULTS=$OUT exec sh tests/vm/test_xen.sh ;;
esac
IDLELAB_VM_RESULTS=$OUT sh tests/vm/test_qemu.sh
