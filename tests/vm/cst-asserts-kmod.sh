# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest's module checks (issue 21), sourced by tests/vm/test_cst.sh
# with D (the guest's results), R (results.jsonl), G (guest.db), gq, and
# K (the kernel label) set.
l=$(grep '"op":"step","name":"cst_hlt_timer"' "$R")
check "cst $K: cstate_wake HLT ran under acpi_idle" [ "$(va_jv "$l" rc)" = 0 ]

# ca RUN KEY [CPU]: a run attribute; RUN is a WHERE clause on runs r.
ca() {
	gq "SELECT a.value FROM runs r JOIN run_attrs a ON a.run_uuid=r.uuid AND a.key='$2' AND a.cpu=${3:--1} WHERE $1"
}
# The method=acpi runs, told apart by state, wake, bm and samples.
acpi() {
	echo "r.bench='cstate_wake' AND json_extract(r.params, '\$.method')='acpi' AND json_extract(r.params, '\$.cst_state')=$1 AND json_extract(r.params, '\$.wake_source')='$2' AND coalesce(json_extract(r.params, '\$.bm'), 'kernel')='$3' AND json_extract(r.params, '\$.samples')=${4:-20}"
}
# An I/O port entry: the port the SSDT gives the state, read with IRQs
# off, so every wake of ours was taken after t_exit; HLT (C1) sleeps until
# the interrupt, which runs before t_exit.  TCG ends each port read at
# once, so the sample goes back in (reentries, in the tens of thousands)
# until its wake comes; and TCG delivers the timer or IPI a few re-entries
# after it was due, so many samples' last entry began after t_launch:
# counted in late_entries and dropped, never stored as latencies.  Every
# sample is one or the other (or early), none lost or foreign.
for c in "2 timer kernel 0x614" "3 timer kernel 0x615" "2 ipi kernel 0x614" \
	"3 ipi kernel 0x615" "3 timer flush 0x615" "3 timer none 0x615"; do
	set -- $c
	cs=$1 cw=$2 cb=$3 cp=$4
	q=$(acpi "$cs" "$cw" "$cb")
	st=$(gq "SELECT status || ':' || coalesce(status_reason, '') FROM runs r WHERE $q")
	check "cst $K: acpi C$cs $cw bm=$cb ran ($st)" [ "$st" = "ok:" ]
	e="$(ca "$q" acpi_entry)/$(ca "$q" acpi_io_port)/$(ca "$q" idle_state)/$(ca "$q" acpi_state_desc)"
	check "cst $K: acpi C$cs $cw bm=$cb entered the SSDT's port ($e)" \
		[ "$e" = "systemio/$cp/C$cs/ACPI IOPORT $cp" ]
	n=$(gq "SELECT coalesce(sum(count), 0) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE $q AND s.metric='wake_latency'")
	o="$(ca "$q" intr_after_exit 1) $(ca "$q" intr_before_exit 1) $(ca "$q" reentries 1)"
	set -- $o
	check "cst $K: acpi C$cs $cw bm=$cb: every interrupt after t_exit, re-entered (after/before/reentries $o)" \
		[ "${1:-0}" -ge 1 -a "${2:-x}" = 0 -a "${3:-0}" -gt 0 ]
	a="$n $(ca "$q" late_entries 1) $(ca "$q" early_wakes 1) $(ca "$q" other_irq_wakes 1) $(ca "$q" backstop_samples 1)"
	set -- $a
	check "cst $K: acpi C$cs $cw bm=$cb: each sample a latency, a late entry or early (latencies/late/early/other/backstop $a)" \
		[ "$(( ${1:-0} + ${2:-0} + ${3:-0} ))" = 20 -a "${4:-x}" = 0 -a "${5:-x}" = 0 ]
	# No dummy PM-timer read in a guest, as io_idle() skips it there.
	check "cst $K: acpi C$cs $cw bm=$cb: no PM-timer read under a hypervisor" \
		[ "$(ca "$q" acpi_pmtmr_read)" = 0 ]
done
q=$(acpi 1 timer kernel)
o="$(ca "$q" acpi_entry) $(ca "$q" intr_before_exit 1) $(ca "$q" intr_after_exit 1) $(ca "$q" idle_verw)"
set -- $o
check "cst $K: acpi C1 is the HLT entry, interrupt before t_exit (entry/before/after/verw $o)" \
	[ "$1" = halt -a "${2:-0}" -ge 10 -a "${3:-x}" = 0 -a -n "$4" ]
# Bus-master handling: what acpi_idle does for C3 (a flush without
# bm_check), nothing asked (none), or a flush asked (flush), timed.
q=$(acpi 3 timer kernel)
f="$(ca "$q" acpi_flush)/$(ca "$q" acpi_bm_check)"
check "cst $K: acpi C3 bm=kernel flushes exactly without bm_check (flush/bm_check $f)" \
	[ "$f" = 1/0 -o "$f" = 0/1 ]
check "cst $K: acpi C2 bm=kernel never flushes" \
	[ "$(ca "$(acpi 2 timer kernel)" acpi_flush)" = 0 ]
check "cst $K: acpi C3 bm=none does not flush" \
	[ "$(ca "$(acpi 3 timer none)" acpi_flush)" = 0 ]
q=$(acpi 3 timer flush)
# Under TCG most WBINVDs cost less than the trapped-CPUID threshold and
# are counted as no-ops (wbinvd_noop) rather than stored as costs.
wb=$(gq "SELECT coalesce(sum(count), 0) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE $q AND s.metric='wbinvd_time'")
nop=$(ca "$q" wbinvd_noop 1)
check "cst $K: acpi C3 bm=flush flushed before every entry ($(ca "$q" acpi_flush), wbinvd_time of $wb samples, $nop no-ops)" \
	[ "$(ca "$q" acpi_flush)" = 1 -a "$(( wb + ${nop:-0} ))" = 20 ]
# Past the CPU's _CST states: -EINVAL, so the run failed.
st=$(gq "SELECT status || ':' || coalesce(status_reason, '') FROM runs r WHERE $(acpi 4 timer kernel 22)")
case $st in failed:*'Invalid argument'*) ok=1 ;; *) ok=0 ;; esac
check "cst $K: acpi state 4 of 3 is refused as bad input ($st)" [ $ok = 1 ]
# A state disabled in cpuidle: refused with its reason, then run with
# policy_override=1, which the run records.
q=$(acpi 2 timer kernel 21)
st=$(gq "SELECT status || ':' || coalesce(status_reason, '') FROM runs r WHERE $q AND json_extract(r.params, '\$.policy_override') IS NULL")
case $st in unsupported:*'disabled or beyond max_cstate'*) ok=1 ;; *) ok=0 ;; esac
check "cst $K: acpi C2 disabled in cpuidle is refused ($st)" [ $ok = 1 ]
q="$q AND json_extract(r.params, '\$.policy_override')=1"
st=$(gq "SELECT status || '/' || (SELECT value FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='policy_override') FROM runs r WHERE $q")
check "cst $K: acpi C2 disabled runs with policy_override=1 ($st, $(ca "$q" acpi_entry))" \
	[ "$st" = ok/1 -a "$(ca "$q" acpi_entry)" = systemio ]
l=$(grep '"op":"cst_disabled","restored"' "$R")
check "cst $K: C2 enabled again after the policy runs" \
	[ "$(va_jv "$l" restored)" = 0 ]
