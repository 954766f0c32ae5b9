#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest (TAP): Debian's 6.1 and 6.12 booted with an SSDT that
# declares C1-C3 per CPU (run-qemu.sh's cst profile, tests/vm/cst-ssdt.asl),
# so that acpi_idle is the cpuidle driver, as on a Zen machine, where
# CC6 is entered by an I/O port read.  Here: the states the kernel parsed,
# and a clean guest; the modules' _CST entry (issue 21) and the idle-state
# map on a real driver (issue 24) are checked by tests/vm/cst-asserts-*.sh.
# With IDLELAB_VM_RESULTS set it checks that directory (one kernel);
# otherwise it boots each kernel of IDLELAB_CST_KERNELS itself, or skips when the rig's packages
# or iasl (acpica-tools) are missing.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/vm/asserts.sh

# check_guest DIR LABEL
check_guest() {
	D=$1 K=$2
	R=$D/results.jsonl
	G=$D/guest.db
	vm_assert_wrote "$D" "cst $K: guest"
	vm_assert_steps "$D" "cst $K"
	drv=$(va_jv "$(grep '"op":"cpuidle_driver"' "$R")" driver)
	check "cst $K: acpi_idle is the cpuidle driver (${drv:-none})" \
		[ "$drv" = acpi_idle ]
	# Each CPU: POLL, then C1 (HLT), C2 and C3 (I/O port reads), with
	# the SSDT's latencies.
	for c in 0 1 2 3; do
		s=$(grep "\"op\":\"cpuidle_state\",\"cpu\":$c," "$R" |
			sed -n 's/.*"name":"\([^"]*\)","desc":"\([^"]*\)","latency":\([0-9]*\).*/\1=\2=\3/p' |
			paste -sd'|' -)
		check "cst $K: CPU $c's states are the SSDT's ($s)" sh -c "case '$s' in \
			'POLL=CPUIDLE CORE POLL IDLE=0|C1=ACPI HLT=1|C2=ACPI IOPORT 0x614=20|C3=ACPI IOPORT 0x615=80') exit 0 ;; \
			esac; exit 1"
	done
	for m in idlelab_cstate idlelab_ipi; do
		l=$(grep "\"op\":\"insmod\",\"module\":\"$m\"" "$R")
		check "cst $K: insmod $m" [ "$(va_jv "$l" rc)" = 0 ]
	done
	gq() { sqlite3 -batch -noheader "$G" "$@"; }
	. tests/vm/cst-asserts-kmod.sh
	. tests/vm/cst-asserts-idle.sh
	l=$(grep '"op":"idlelab_db_check"' "$R")
	check "cst $K: guest idlelab db check passed" [ "$(va_jv "$l" rc)" = 0 ]
	# debug-kernel.sh's kernel: a clean dmesg means something only if
	# its checks were on.  Its CSD-lock and hung-task reports say neither
	# BUG nor WARNING.
	if [ "${IDLELAB_VM_DEBUG_KERNEL:-0}" = 1 ]; then
		check "cst $K: the debug kernel booted ($(grep -o 'Linux version [^ ]*' "$D/dmesg.txt" | head -1))" \
			grep -q 'Linux version [^ ]*-idlelab-debug' "$D/dmesg.txt"
		check "cst $K: KASAN and lockdep were on" sh -c \
			"grep -q 'KernelAddressSanitizer initialized' '$D/dmesg.txt' &&
			 grep -q 'Lock dependency validator' '$D/dmesg.txt'"
	fi
	splat=$(sed -n '/idlelab-rig: loading/,$p' "$D/dmesg.txt" 2>/dev/null |
		grep -E 'BUG:|WARNING:|Oops|Call Trace|soft lockup|hard LOCKUP|general protection|csd: Detected non-responsive|blocked for more than')
	check "cst $K: guest dmesg clean" \
		sh -c "grep -q 'idlelab-rig: loading' '$D/dmesg.txt' && [ -z '$splat' ]"
}

if [ -n "${IDLELAB_VM_RESULTS:-}" ]; then
	check_guest "$IDLELAB_VM_RESULTS" "$(sed -n 's/^kernel=//p' "$IDLELAB_VM_RESULTS/rig-profile" 2>/dev/null)"
	t_done
	exit
fi
vm_need_qemu "_CST guest run"
if ! command -v iasl >/dev/null; then
	skip "_CST guest run" "missing: iasl (acpica-tools; run tests/vm/setup.sh)"
	t_done
	exit 0
fi
# IDLELAB_CST_KERNELS: the series to boot (debug-kernel.sh names only 6.1,
# its own kernel's).
for k in ${IDLELAB_CST_KERNELS:-6.1 6.12}; do
	IDLELAB_VM_PROFILE=cst IDLELAB_VM_KERNEL=$k IDLELAB_VM_OUT=$T_TMP/cst-$k \
		sh tests/vm/run-qemu.sh --no-setup --no-test >"$T_TMP/run-$k.log" 2>&1
	sed 's/^/# /' "$T_TMP/run-$k.log" | tail -3
	check_guest "$T_TMP/cst-$k" "$k"
done
t_done
