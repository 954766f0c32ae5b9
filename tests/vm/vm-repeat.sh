#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run one guest rig N times in a row and report each run and the hangs:
#   sh tests/vm/vm-repeat.sh N bochs|qemu [OUTDIR]
# bochs: tests/vm/run-bochs.sh; a hang is a run whose watchdog stopped
#        Bochs (rig-status "blocked" or "stalled") or that hit the limit.
# qemu:  tests/vm/run-qemu.sh (IDLELAB_VM_PROFILE and IDLELAB_VM_KERNEL
#        pass through); a hang is a guest killed at the timeout, or one
#        whose step went past its own limit inside the guest (named, with
#        the sysrq task dump in that run's serial.log).
# Each run's assertions run too; the last line is
#   "RIG: N runs, H hangs, F failed, min-max s".
# Exit status 0 only when no run hung or failed.
# IDLELAB_VM_LOCK=FILE takes flock FILE around each run, not around all
# of them: other guests sharing the host (CI, a second checkout) queue
# between runs instead of waiting the whole hour and a half out.
set -u
cd "$(dirname "$0")/../.." || exit 1
n=${1:-}
rig=${2:-}
out=${3:-build-vm/repeat}
case $n in ''|*[!0-9]*) echo "usage: $0 N bochs|qemu [OUTDIR]" >&2; exit 2 ;; esac
case $rig in bochs|qemu) ;; *) echo "usage: $0 N bochs|qemu [OUTDIR]" >&2; exit 2 ;; esac
# vm_panic (tests/vm/asserts.sh): what serial.log says of a panic.
. tests/vm/asserts.sh
hangs=0 failed=0 min= max=
i=1
while [ "$i" -le "$n" ]; do
	d=$out/$rig-$i
	rm -rf "$d"
	mkdir -p "$d"
	t0=$(date +%s)
	${IDLELAB_VM_LOCK:+flock "$IDLELAB_VM_LOCK"} env IDLELAB_VM_OUT="$d" \
		sh "tests/vm/run-$rig.sh" --no-setup >"$d/run.log" 2>&1
	rc=$?
	s=$(($(date +%s) - t0))
	if [ "$rig" = bochs ]; then
		st=$(sed -n 's/^status=//p' "$d/rig-status" 2>/dev/null)
		why=$(sed -n 's/^reason=//p' "$d/rig-status" 2>/dev/null)
		case $st in done) hung=0 ;; *) hung=1 ;; esac
	else
		st=$(sed -n 's/^run-qemu: qemu exited \([0-9]*\) .*/\1/p' "$d/run.log")
		why="qemu exit $st"
		case $st in 137) hung=1 ;; *) hung=0 ;; esac
	fi
	# A guest step past its own limit (tests/vm/guest-steps.sh) is a hang
	# too, even though the guest then ended by itself: name the step.
	to=$(grep '"op":"step"' "$d/results.jsonl" 2>/dev/null |
		grep '"timeout":1' | sed -n 's/.*"name":"\([^"]*\)".*/\1/p')
	if [ -n "$to" ]; then
		hung=1
		why="$why, step $to timed out (task dump in $d/serial.log)"
	fi
	# The emulator killed at its limit: the step the guest was inside.
	if [ "$hung" = 1 ] && [ -z "$to" ]; then
		in=$(tr -d '\r' < "$d/serial.log" 2>/dev/null |
			sed -n 's/^IDLELAB-STEP .* \(start\|end\) \([^ ]*\).*/\1 \2/p' |
			tail -1)
		case $in in start\ *) why="$why, inside step ${in#start }" ;; esac
	fi
	# A panic ends QEMU at once, with no hang dump: named from serial.log.
	p=$(vm_panic "$d")
	[ -n "$p" ] && why="$why, panic: $p"
	nok=$(grep -c '^not ok' "$d/run.log")
	echo "run $i: ${s}s, exit $rc, $why, $nok failed assertions"
	hangs=$((hangs + hung))
	[ "$rc" -ne 0 ] && failed=$((failed + 1))
	[ -z "$min" ] || [ "$s" -lt "$min" ] && min=$s
	[ -z "$max" ] || [ "$s" -gt "$max" ] && max=$s
	i=$((i + 1))
done
echo "$rig: $n runs, $hangs hangs, $failed failed, ${min}-${max} s"
[ "$hangs" -eq 0 ] && [ "$failed" -eq 0 ]
