# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest's module steps (issue 21), sourced by guest-init.sh in
# the cst profile after the states are recorded: cstate_wake through the
# C-states the kernel's ACPI processor driver parsed from _CST.
# Asserted by tests/vm/cst-asserts-kmod.sh, which tells the runs apart by
# their parameters (samples among them).
w="--param launch_min_ns=50000 --param samples=20"
ib cst_hlt_timer cstate_wake --cpus 1 $w
# TCG ends an I/O port read at once, so a C2 or C3 entry returns before
# its wake: reenter=1 goes back in until ours comes, as acpi_idle's loop
# would.  C1 is the SSDT's HLT entry.
a="--param method=acpi --param reenter=1"
ib cst_acpi_c1_timer cstate_wake --cpus 1 $w $a --param cst_state=1
ib cst_acpi_c2_timer cstate_wake --cpus 1 $w $a --param cst_state=2
ib cst_acpi_c3_timer cstate_wake --cpus 1 $w $a --param cst_state=3
ib cst_acpi_c2_ipi cstate_wake --cpus pairs:2-1 --param wake_source=ipi \
	$w $a --param cst_state=2
ib cst_acpi_c3_ipi cstate_wake --cpus pairs:2-1 --param wake_source=ipi \
	$w $a --param cst_state=3
ib cst_acpi_c3_flush cstate_wake --cpus 1 $w $a --param cst_state=3 \
	--param bm=flush
ib cst_acpi_c3_none cstate_wake --cpus 1 $w $a --param cst_state=3 \
	--param bm=none
# Past the CPU's three _CST states: -EINVAL, a failed run.
ib cst_acpi_range cstate_wake --cpus 1 --param samples=22 \
	--param launch_min_ns=50000 $a --param cst_state=4

# cst_disabled: C2 disabled in cpuidle on CPU 1 (state2/disable), so the
# module refuses it (IDLELAB_UNSUP_STATE_DISABLED) unless the run says
# policy_override=1; then enabled again.
cst_disabled() {
	d=/sys/devices/system/cpu/cpu1/cpuidle/state2/disable
	if ! echo 1 > "$d"; then
		jl "{\"op\":\"cst_disabled\",\"skip\":\"cannot write $d\"}"
		return
	fi
	bench cst_acpi_disabled cstate_wake --cpus 1 --param samples=21 \
		--param launch_min_ns=50000 $a --param cst_state=2
	bench cst_acpi_override cstate_wake --cpus 1 --param samples=21 \
		--param launch_min_ns=50000 $a --param cst_state=2 \
		--param policy_override=1
	echo 0 > "$d"
	jl "{\"op\":\"cst_disabled\",\"restored\":\"$(cat "$d")\"}"
}
step cst_disabled "$IB_LIMIT" cst_disabled
