#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Host-side assertions on a QEMU guest run of the kmod rig (TAP).  With
# IDLELAB_VM_RESULTS set it checks that directory (run-qemu.sh does this);
# otherwise it boots the guest itself through run-qemu.sh --no-setup, or
# skips when the packages of tests/vm/setup.sh are missing.  It installs
# nothing.  QEMU's timings are meaningless: only function, counts and
# ordering are asserted.  The kmod-client lines (ABI, bad-input suite) are
# checked first, then the database the real idlelab wrote in the guest
# (guest.db), with sqlite3.  tests/run.sh runs it when IDLELAB_VMTEST=1.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/vm/asserts.sh

if [ -z "${IDLELAB_VM_RESULTS:-}" ]; then
	vm_need_qemu "qemu guest run"
	IDLELAB_VM_OUT=$T_TMP/qemu sh tests/vm/run-qemu.sh --no-setup \
		--no-test >"$T_TMP/run.log" 2>&1
	sed 's/^/# /' "$T_TMP/run.log" | tail -5
	IDLELAB_VM_RESULTS=$T_TMP/qemu
fi
D=$IDLELAB_VM_RESULTS
R=$D/results.jsonl

# jv LINE KEY: the value of KEY in one flat JSON line (strings unquoted).
jv() {
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}
# line OP [NAME]: the first result line of that op (and name).
line() {
	if [ $# -gt 1 ]; then
		grep "\"op\":\"$1\",\"name\":\"$2\"" "$R" | head -1
	else
		grep "\"op\":\"$1\"" "$R" | head -1
	fi
}

vm_assert_wrote "$D" guest
vm_assert_steps "$D" guest
vm_assert_swevent_hold "$D" guest
vm_assert_kmod_origin "$D" guest
vm_assert_bad_input "$D" guest
for m in idlelab_cstate idlelab_ipi; do
	l=$(grep "\"op\":\"insmod\",\"module\":\"$m\"" "$R")
	check "insmod $m" [ "$(jv "$l" rc)" = 0 ]
done
l=$(line open)
check "both devices open" [ "$(jv "$l" cstate)" = 0 -a "$(jv "$l" ipi)" = 0 ]
l=$(line lseek)
check "both devices refuse to seek (ESPIPE)" \
	[ "$(jv "$l" cstate)" = ESPIPE -a "$(jv "$l" ipi)" = ESPIPE ]
for d in cstate ipi; do
	l=$(grep "\"op\":\"info\",\"dev\":\"$d\"" "$R" | head -1)
	check "GET_INFO $d (ABI 2)" [ "$(jv "$l" rc)" = 0 -a "$(jv "$l" abi)" = 2 ]
done
l=$(line apic_map)
check "APIC map read" [ "$(jv "$l" rc)" = 0 ]
diag "apic: $(jv "$l" apic), x2apic $(jv "$l" x2apic), dest model $(jv "$l" dest_model)"

# Every request produced samples or was stored as unsupported with a reason.
grep '"op":"cstate"' "$R" > "$T_TMP/cstate"
while IFS= read -r l; do
	n=$(jv "$l" name)
	rc=$(jv "$l" rc)
	done_=$(jv "$l" nr_done)
	want=$(jv "$l" nr_samples)
	un=$(jv "$l" unsupported)
	if [ "$rc" = 0 ] && { [ "$done_" = "$want" ] || [ "$un" != 0 ]; }; then
		ok "cstate $n: $done_ samples, unsupported=$un"
	else
		not_ok "cstate $n: rc $rc, $done_/$want samples, unsupported=$un"
	fi
	# t_entry is read after the hrtimer is armed L ahead, so the timer
	# is due less than L after it (kmod-client-cstate.c); t_entry <
	# t_exit, two ordered reads on one CPU, could not fail.
	check "cstate $n: every timer due within L of t_entry ($(jv "$l" launch_past_l) past L of $(jv "$l" timed)), records not poisoned" \
		[ "$(jv "$l" launch_past_l)" = 0 -a "$(jv "$l" poison)" = 0 ]
	check "cstate $n: residency deltas only where a counter was read" \
		[ "$(jv "$l" res_bad)" = 0 ]
	diag "$n: early $(jv "$l" early_wake) other-irq $(jv "$l" other_irq) no-intr $(jv "$l" no_intr) late $(jv "$l" late_entry) no-op $(jv "$l" noop), counted apart; hw_flags $(jv "$l" hw_flags) res_avail $(jv "$l" res_avail)"
done < "$T_TMP/cstate"
# The late-entry flag against what is known without the module's own
# comparison (kmod-client-cstate.c recomputes that one, late_unflagged):
# at L = 1 us the timer is due long before the CPU is idle, since arming
# it and the backstop takes longer, so every sample must be flagged.  The
# other direction is the timer-distance check above.
l=$(line cstate hlt_hrtimer_1us)
check "cstate hlt_hrtimer_1us: every sample flagged late-entry, the timer due before arming ends ($(jv "$l" late_entry) of $(jv "$l" nr_done))" \
	[ "$(jv "$l" nr_done)" -gt 0 -a "$(jv "$l" late_entry)" = "$(jv "$l" nr_done)" ]
diag "late entries the client's own comparison would flag but the module did not: $(grep '"op":"cstate"' "$R" | sed -n 's/.*"late_unflagged":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')"
check "cstate: at least 7 request kinds ran" \
	[ "$(grep -c '"op":"cstate"' "$R")" -ge 7 ]
# --- issue 21, section 3: vendor gate, calibration, NUMA, TSC, t_launch ---
# QEMU's TCG -cpu max is AuthenticAMD (family 6 model 6): no Intel MSR
# may be read, so every residency counter but APERF/MPERF is gated with
# IDLELAB_GATE_NOT_INTEL (1), whatever QEMU would answer to the rdmsr.
amd=0
tr -d '\r' < "$D/dmesg.txt" | grep -qE 'smpboot: CPU0: (AMD|Hygon)' && amd=1
gate_bad=0 calib_bad=0 ran=0
while IFS= read -r l; do
	[ "$(jv "$l" rc)" = 0 ] && [ "$(jv "$l" unsupported)" = 0 ] &&
		[ "$(jv "$l" nr_done)" -gt 0 ] || continue
	ran=$((ran + 1))
	g=$(jv "$l" res_gated) w=$(jv "$l" gate_why)
	if [ "$amd" = 1 ]; then
		[ "$w" = 1 ] && [ $(( ${g:-0} & 0x27f )) = $((0x27f)) ] ||
			gate_bad=$((gate_bad + 1))
	else
		[ "$w" = 0 ] || [ "$w" = 2 ] || gate_bad=$((gate_bad + 1))
	fi
	c=$(jv "$l" cpuid_cycles) n=$(jv "$l" noop_cycles)
	[ "${c:-0}" -gt 0 ] && [ "${n:-0}" = $(( ${c:-0} * 3 )) ] ||
		calib_bad=$((calib_bad + 1))
done < "$T_TMP/cstate"
check "cstate: Intel-only MSRs gated by vendor (AMD: $amd) in all $ran runs that measured, $gate_bad wrong" \
	[ "$ran" -ge 7 -a "$gate_bad" = 0 ]
check "cstate: a CPUID round trip calibrated on the measured CPU, no-op threshold 3x it, in all $ran runs ($calib_bad wrong)" \
	[ "$calib_bad" = 0 ]
l=$(line cstate hlt_hrtimer_early)
diag "calibration: CPUID $(jv "$l" cpuid_cycles) cycles, no-op threshold $(jv "$l" noop_cycles) cycles"
l=$(line cstate hlt_wbinvd_random_launch)
check "cstate: the dirty buffer's pages looked up, on the guest's one node 0 ($(jv "$l" dirty_node), flags $(jv "$l" dirty_flags))" \
	[ "$(jv "$l" dirty_flags)" = 1 -a "$(jv "$l" dirty_node)" = 0 ]
l=$(line cstate hlt_hrtimer_early)
check "cstate: no sample or run flagged TSC-unstable-during when nothing changed during the run" \
	[ "$(jv "$l" tsc_unstable)" = 0 -a $(( $(jv "$l" hw_flags) & 2048 )) = 0 ]
l=$(line cstate hlt_tsc_marked_unstable)
check "cstate: TSC marked unstable before sample 1 of 10: run flagged (hw_flags $(jv "$l" hw_flags)), samples 1-9 flagged ($(jv "$l" tsc_unstable))" \
	[ "$(jv "$l" rc)" = 0 -a "$(jv "$l" nr_done)" = 10 -a \
	  $(( $(jv "$l" hw_flags) & 2050 )) = 2050 -a "$(jv "$l" tsc_unstable)" = 9 ]
l=$(line cstate mwait_c1_hrtimer_late)
diag "mwait late: unsupported=$(jv "$l" unsupported) (3 = MWAIT ECX fault, 14 = hint not in CPUID.5:EDX)"
# --- kmod/cstate hazards (issue 9, part 3) -------------------------------
l=$(line cstate mwait_hint_c16)
check "cstate: an MWAIT hint CPUID leaf 5 cannot enumerate is unsupported (14)" \
	[ "$(jv "$l" rc)" = 0 -a "$(jv "$l" unsupported)" = 14 -a "$(jv "$l" nr_done)" = 0 ]
l=$(line cstate hlt_ipi_sender_stall)
check "cstate IPI wake: a sender stalled past L+1 s costs one sample, its late IPI ignored as stale" \
	[ "$(jv "$l" rc)" = 0 -a "$(jv "$l" nr_done)" = 10 -a \
	  "$(jv "$l" no_intr)" = 1 -a "$(jv "$l" stale_ipis)" = 1 ]
diag "sender stall run: $(jv "$l" secs) s, no-intr $(jv "$l" no_intr), stale $(jv "$l" stale_ipis)"
# Issue 21: a lost wake (inject 8: none armed, the backstop due at L) with
# re-entry: only the backstop timer ends that sample's HLT, and flags it;
# the other nine are woken by their own timer.
bs_ok() {
	[ "$(jv "$1" rc)" = 0 ] && [ "$(jv "$1" nr_done)" = 10 ] &&
	[ "$(jv "$1" backstop)" = 1 ] && [ "$(jv "$1" no_intr)" = 1 ] &&
	awk -v m="$(jv "$1" backstop_ms)" 'BEGIN { exit !(m < 100) }'
}
l=$(line cstate hlt_lost_wake_reenter)
check "cstate: a lost wake costs one sample, ended by the backstop timer and flagged ($(jv "$l" backstop) flagged, $(jv "$l" backstop_ms) ms idle, no-intr $(jv "$l" no_intr))" \
	bs_ok "$l"
l=$(line worker_death)
check "a worker that dies without completing fails its run with EIO, no hang, device usable after" \
	[ "$(jv "$l" hung)" = 0 -a "$(jv "$l" rc)" = EIO -a "$(jv "$l" next_run)" = 0 ]
diag "worker death: the ioctl returned after $(jv "$l" secs) s"
# Issue 21: workers joined all at once, and a wall-clock limit inside
# every worker loop (tests/vm/kmod-client-limits.c).
l=$(line pair_death)
check "two workers, the IPI sender dies: EIO by itself, before the measured worker's 500 samples (killed $(jv "$l" killed), hung $(jv "$l" hung)), device usable after" \
	[ "$(jv "$l" rc)" = EIO -a "$(jv "$l" killed)" = 0 -a "$(jv "$l" hung)" = 0 -a "$(jv "$l" next_run)" = 0 ]
diag "pair death: the ioctl returned after $(jv "$l" secs) s"
l=$(line run_limit)
check "run limit: run_limit_us cannot be raised past IDLELAB_MAX_RUN_US ($(jv "$l" over_cap))" \
	[ "$(jv "$l" over_cap)" = EINVAL ]
check "run limit: gaps, sweep, blast and wake runs within their formulas stop at the lowered limit (ETIME: $(jv "$l" gaps) $(jv "$l" sweep) $(jv "$l" blast) $(jv "$l" wake))" \
	[ "$(jv "$l" gaps)" = ETIME -a "$(jv "$l" sweep)" = ETIME -a \
	  "$(jv "$l" blast)" = ETIME -a "$(jv "$l" wake)" = ETIME ]
check "run limit: back at 0, the same gap detector runs" [ "$(jv "$l" after)" = 0 ]
diag "run limit: the four runs and the last took $(jv "$l" secs) s"
# Issue 21: the hotplug lock is held only while a run starts its workers;
# a CPU of the run going offline ends it (tests/vm/kmod-client-hotplug.c).
# hp_ok LINE: ENODEV, not killed, offline and online written, both soon.
hp_ok() {
	[ "$(jv "$1" rc)" = ENODEV ] && [ "$(jv "$1" killed)" = 0 ] &&
	[ "$(jv "$1" offline)" = 0 ] && [ "$(jv "$1" online)" = 0 ] &&
	awk -v r="$(jv "$1" run_secs)" -v o="$(jv "$1" offline_secs)" \
		'BEGIN { exit !(r >= 0 && r < 10 && o >= 0 && o < 15) }'
}
for n in blast wake_ipi storm; do
	l=$(line hotplug "$n")
	check "hotplug $n: CPU 3 offline mid-run ends the run with ENODEV within 10 s, the offline done within 15 s, online again (rc $(jv "$l" rc), killed $(jv "$l" killed))" \
		hp_ok "$l"
	diag "hotplug $n: the run ended $(jv "$l" run_secs) s and the offline $(jv "$l" offline_secs) s after the offline began (try $(jv "$l" tries))"
done
# A storm the offline did not stop says how it ended (kmod-client-hotplug.c
# runs one that ended undrained, a target unscheduled past two timeouts,
# again, 3 tries at most).
grep '"op":"hotplug_storm_end"' "$R" | sed 's/^/# hotplug storm not stopped by the offline: /'
l=$(line hotplug_after)
check "hotplug: the device runs on CPU 3 once it is back ($(jv "$l" next_run))" \
	[ "$(jv "$l" next_run)" = 0 ]
check "hotplug: offlining and onlining CPU 3 while the others were busy patched no kernel text (read $(jv "$l" text_read))" \
	[ "$(jv "$l" text_read)" = 1 -a "$(jv "$l" text_same)" = 1 ]
# Twice on a loaded host the hash changed; the second time the guest's
# clocksource watchdog had marked the TSC unstable during the step, which
# clears sched_clock's static key (run-qemu.sh now boots with
# tsc=reliable).  On a failure the kernel's own lines on its clocks and
# patches say where to look.
[ "$(jv "$l" text_same)" = 1 ] ||
	tr -d '\r' < "$D/dmesg.txt" | grep -iE 'tsc|clocksource|sched_clock|jump.?label|alternative|smt' |
		tail -8 | sed 's/^/# hotplug text changed; dmesg: /'
# Issue 21: a kernel-mode round waits for its acks no longer than
# timeout_us, even for a target with IRQs off (kmod-client-limits.c).
kt_ok() {
	[ "$(jv "$1" rc)" = 0 ] && [ "$(jv "$1" timeouts)" -ge 1 ] &&
	awk -v m="$(jv "$1" max_round_ms)" 'BEGIN { exit !(m < 50) }'
}
l=$(line kernel_timeout)
check "kernel-mode storm, a target's IRQs off 100 ms at a time: rounds time out at 1 ms, none waits 50 ms (longest $(jv "$l" max_round_ms) ms, $(jv "$l" timeouts) timed out, undrained $(jv "$l" undrained))" \
	kt_ok "$l"
check "kernel-mode storm after it: every csd idle again, 20 exact rounds ($(jv "$l" next) $(jv "$l" next_done) $(jv "$l" next_bad))" \
	[ "$(jv "$l" next)" = 0 -a "$(jv "$l" next_done)" = 20 -a "$(jv "$l" next_bad)" = 0 ]
# --- end of the kmod/cstate hazard block ----------------------------------

l=$(line gaps)
check "gap detector produced records, one window record per window" [ "$(jv "$l" rc)" = 0 -a \
	"$(jv "$l" nr_done)" -gt 0 -a "$(jv "$l" bad_records)" = 0 -a \
	"$(jv "$l" loop_period)" -gt 0 -a "$(jv "$l" windows)" = 5 ]
for n in wbinvd wbnoinvd; do
	l=$(line wbinvd_sweep "$n")
	if [ "$(jv "$l" rc)" = 0 ] && [ "$(jv "$l" bad_records)" = 0 ] &&
	   { [ "$(jv "$l" nr_done)" = 9 ] || [ "$(jv "$l" unsupported)" != 0 ]; }; then
		ok "$n sweep: $(jv "$l" nr_done) samples, unsupported=$(jv "$l" unsupported)"
	else
		not_ok "$n sweep: $l"
	fi
done
l=$(line wbinvd_blast)
check "WBINVD blast radius: 5 events, victim gaps and windows" [ "$(jv "$l" rc)" = 0 \
	-a "$(jv "$l" events)" = 5 -a "$(jv "$l" gaps)" -gt 0 -a \
	"$(jv "$l" bad_records)" = 0 -a "$(jv "$l" windows)" -ge 2 ]
# Issue 21: the WBINVD no-op threshold from both sides
# (kmod-client-noop.c).  Under TCG a plain WBINVD costs about one CPUID,
# so most fall under the threshold: exactly those must be flagged (not
# every one is under it: the host can stretch a span past it, 1 in 20
# and 1 in 6 in one 6.1 guest; on the debug kernel, slower between the
# two TSC reads, every one of a wake run's 20 was at or over it), and
# the two plain runs together must have had some under it.
# With inject 32 each WBINVD spins the run's threshold more inside its
# timed window: every span is then at least the threshold and none may be
# flagged, which a module flagging every WBINVD, or comparing against a
# far larger threshold, fails.
# np_ran LINE: ran, and every sample it kept timed a WBINVD.
np_ran() {
	[ "$(jv "$1" rc)" = 0 ] && [ "$(jv "$1" timed)" -gt 0 ] &&
	[ "$(jv "$1" timed)" = "$(jv "$1" nr_done)" ]
}
np_plain() {
	np_ran "$1" && [ $(( ${hw:-0} & 1 )) = 1 ] &&
	[ "$(jv "$1" flagged)" = "$(jv "$1" below)" ] &&
	[ "$(jv "$1" flagged_high)" = 0 ]
}
np_slowed() {
	np_ran "$1" && [ "$(jv "$1" flagged)" = 0 ] &&
	[ "$(jv "$1" below)" = 0 ] &&
	[ "$(jv "$1" min)" -ge "$(jv "$1" noop_cycles)" ] &&
	[ "$(jv "$1" inject_left)" = 0 ]
}
for k in wake sweep; do
	l=$(line wbinvd_noop "${k}_plain")
	hw=$(jv "$l" hw_flags)
	check "no-op threshold, $k as it comes: under a hypervisor (hw_flags $hw), exactly the WBINVDs under the threshold flagged ($(jv "$l" flagged) of $(jv "$l" timed) flagged, $(jv "$l" below) under $(jv "$l" noop_cycles) cycles, $(jv "$l" flagged_high) flagged at or above)" \
		np_plain "$l"
	np_below=$(( ${np_below:-0} + $(jv "$l" below) ))
	diag "no-op threshold, $k as it comes: $(jv "$l" min) to $(jv "$l" max) cycles, threshold $(jv "$l" noop_cycles)"
	l=$(line wbinvd_noop "${k}_slowed")
	check "no-op threshold, $k slowed by the threshold (inject 32): every span at least it, none flagged, the bit taken ($(jv "$l" flagged) of $(jv "$l" timed) flagged, $(jv "$l" below) below $(jv "$l" noop_cycles) cycles, inject left $(jv "$l" inject_left))" \
		np_slowed "$l"
	diag "no-op threshold, $k slowed: $(jv "$l" min) to $(jv "$l" max) cycles, threshold $(jv "$l" noop_cycles)"
done
check "no-op threshold: the plain runs had WBINVDs under it, so both sides were tested ($np_below)" \
	[ "$np_below" -ge 1 ]

# Logical xAPIC only where the kernel's own driver uses logical
# destinations: 6.1's "flat" does; 6.12 drives a small xAPIC machine with
# "physical flat" (and leaves the LDR empty), and then the module must
# refuse logical mode with that reason (IDLELAB_UNSUP_KERNEL_PHYS, 12).
map=$(line apic_map)
logical=1
[ "$(jv "$map" apic)" = "physical flat" ] && logical=0
diag "kernel APIC driver: $(jv "$map" apic); logical destinations: $logical"
for m in physical logical broadcast kernel; do
	l=$(line ipi "$m")
	r=$(jv "$l" rounds)
	if [ "$m" = logical ] && [ "$logical" = 0 ]; then
		check "ipi logical: refused under physical flat (kernel uses physical destinations)" \
			[ "$(jv "$l" rc)" = 0 -a "$(jv "$l" unsupported)" = 12 -a \
			  "$(jv "$l" nr_done)" = 0 ]
		continue
	fi
	if [ "$(jv "$l" rc)" = 0 ] && [ "$(jv "$l" unsupported)" = 0 ] &&
	   [ "$(jv "$l" nr_done)" = "$r" ] && [ "$(jv "$l" ok_rounds)" = "$r" ] &&
	   [ "$(jv "$l" stray)" = 0 ] && [ "$(jv "$l" bad_targets)" = 0 ]; then
		ok "ipi $m: exactly one ack per target in each of $r rounds"
	else
		not_ok "ipi $m: $l"
	fi
done
l=$(line ipi physical)
check "ipi physical: one ICR write per target" \
	[ "$(jv "$l" icr_writes)" = "$(jv "$l" targets)" ]
l=$(line ipi logical)
[ "$logical" = 1 ] && check "ipi logical: xAPIC flat, one ICR write" \
	[ "$(jv "$l" dest_model)" = 1 -a "$(jv "$l" icr_writes)" = 1 ]
l=$(line ipi broadcast)
check "ipi broadcast: one shorthand write" [ "$(jv "$l" icr_writes)" = 1 ]

# The IPI module's checks: storms, injected NMIs, stragglers.
. tests/vm/qemu-asserts-ipi.sh
l=$(line client_exit)
check "client exited 0" [ "$(jv "$l" rc)" = 0 ]
vm_assert_seeds "$D" guest seed000-c3-wbinvd seed002-wake-per-state \
	seed003-c1-irq-early
for m in idlelab_cstate idlelab_ipi; do
	l=$(grep "\"op\":\"rmmod\",\"module\":\"$m\"" "$R")
	check "$m: unload refused while open" [ "$(jv "$l" rc_open)" != 0 ]
	check "$m: unloads cleanly once closed" \
		[ "$(jv "$l" rc_closed)" = 0 -a "$(jv "$l" still_loaded)" = 0 ]
done
# --- the real idlelab in the guest: assertions on its database ----------
G=$D/guest.db
gq() { sqlite3 -batch -noheader "$G" "$@"; }
KM="'cstate_wake','wbinvd','gaps_irqoff','ipi_storm'"
if [ ! -s "$G" ]; then
	not_ok "guest wrote its idlelab database"
	sed 's/^/# /' "$D/idlelab.stderr" 2>/dev/null | tail -5
else
	ok "guest wrote its idlelab database"
	bad=$(grep '"op":"idlelab"' "$R" | grep -v '"rc":[03]}')
	check "every guest idlelab bench exited 0 or 3 (unsupported)" [ -z "$bad" ]
	[ -n "$bad" ] && printf '%s\n' "$bad" | sed 's/^/# /'
	l=$(line idlelab_run)
	check "guest idlelab run of the kmod campaign exited 0" [ "$(jv "$l" rc)" = 0 ]
	l=$(line idlelab_db_check)
	check "guest idlelab db check passed" [ "$(jv "$l" rc)" = 0 ]
	check "host idlelab db check passes on the guest database" \
		"$IDLELAB" db check --db "$G"
	check "host idlelab report reads the guest database" \
		sh -c "'$IDLELAB' report --db '$G' | grep -q ipi_storm"
	check "info: both modules present, ABI 2" jq -e \
		'.kmods.idlelab_cstate.present and .kmods.idlelab_ipi.present and .kmods.idlelab_cstate.abi == 2 and .kmods.idlelab_ipi.abi == 2' \
		"$D/info.json"
	check "kmod runs stored: 23 single (two of them --cpus all, two under a PM QoS, one ACPI refused, one slowed by inject 32), 6 from the campaign" \
		[ "$(gq "SELECT count(*) FROM runs WHERE bench IN ($KM) AND campaign IS NULL")" -eq 23 -a \
		  "$(gq "SELECT count(*) FROM runs WHERE bench IN ($KM) AND campaign='guest-kmod'")" -eq 6 ]
	# Samples, or unsupported with its reason: nothing else.
	# A gap detector that saw no gap above its threshold in its windows
	# has measured something (seen: 1 run in 2 of the guest campaign's
	# 3 x 1 ms windows); its loop period shows the windows ran.
	check "every kmod run has samples (or gap windows that ran) or is unsupported with a reason" \
		[ "$(gq "SELECT count(*) FROM runs r WHERE bench IN ($KM) AND NOT (
			(status='ok' AND (SELECT sum(count + early + dropped) FROM summaries s WHERE s.run_uuid=r.uuid) > 0)
			OR (status='ok' AND bench='gaps_irqoff' AND EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='loop_period_ns' AND CAST(a.value AS REAL) > 0))
			OR (status='unsupported' AND length(status_reason) > 0))")" -eq 0 ]
	gq "SELECT bench || ': ' || status_reason FROM runs WHERE status='unsupported'" |
		sed 's/^/# unsupported: /'
	for m in physical logical broadcast kernel; do
		if [ "$m" = logical ] && [ "$logical" = 0 ]; then
			check "idlelab ipi_storm logical: unsupported, physical destinations named as the reason" \
				[ "$(gq "SELECT count(*) FROM runs WHERE bench='ipi_storm' AND json_extract(params, '\$.mode')='logical' AND NOT (status='unsupported' AND status_reason LIKE '%physical destinations%')")" -eq 0 ]
			continue
		fi
		check "idlelab ipi_storm $m: exactly one ack per target per round (acks_ok=1)" \
			[ "$(gq "SELECT count(*) FROM runs r JOIN run_attrs a ON a.run_uuid=r.uuid AND a.key='acks_ok' AND a.value='1' WHERE r.bench='ipi_storm' AND r.status='ok' AND json_extract(r.params, '\$.mode')='$m'")" -ge 1 -a \
			  "$(gq "SELECT count(*) FROM runs r WHERE r.bench='ipi_storm' AND json_extract(r.params, '\$.mode')='$m' AND NOT EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='acks_ok' AND a.value='1')")" -eq 0 ]
	done
	check "idlelab ipi_storm: every ok run tagged hypervisor=1 and tsc_unstable recorded" \
		[ "$(gq "SELECT count(*) FROM runs r WHERE r.bench='ipi_storm' AND r.status='ok' AND NOT (EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='hypervisor' AND a.value='1') AND EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='tsc_unstable' AND a.value IN ('0','1')))")" -eq 0 ]
	iw() { gq "SELECT a.value FROM runs r JOIN run_attrs a ON a.run_uuid=r.uuid AND a.key='icr_writes' WHERE r.bench='ipi_storm' AND r.campaign IS NULL AND json_extract(r.params, '\$.mode')='$1' AND json_extract(r.params, '\$.targets')='[0]'"; }
	wl=1
	[ "$logical" = 0 ] && wl=
	check "idlelab ipi_storm: ICR writes physical 3, logical (xAPIC flat) ${wl:-none}, broadcast 1" \
		[ "$(iw physical)" = 3 -a "$(iw logical)" = "$wl" -a "$(iw broadcast)" = 1 ]
	check "idlelab ipi_storm: APIC ID and LDR of every CPU stored" \
		[ "$(gq "SELECT count(*) FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='ipi_storm' AND r.campaign IS NULL AND json_extract(r.params, '\$.mode')='physical' AND json_extract(r.params, '\$.targets')='[0]' AND a.key IN ('apic_id','ldr') AND a.cpu >= 0")" -eq 8 ]
	# --cpus all leaves the housekeeping CPUs out: CPU 0 and the CPU of
	# the harness's main thread, which the run records (issue 21).
	hk_want() {
		m=${1#0}; m=${m#,}
		for c in 1 2 3; do [ "$c" = "$m" ] || printf '%s,' "$c"; done |
			sed 's/,$//'
	}
	hk_got() {
		gq "SELECT group_concat(cpu) FROM (SELECT DISTINCT s.cpu FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='$1' AND r.campaign IS NULL AND r.status='ok' AND $2 AND s.metric='$3' ORDER BY s.cpu)"
	}
	hk_attr() {
		gq "SELECT a.value FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='$1' AND r.campaign IS NULL AND $2 AND a.key='housekeeping_cpus'"
	}
	hs="json_extract(r.params, '\$.rounds')=10"
	hg="json_extract(r.params, '\$.windows')=3"
	h=$(hk_attr ipi_storm "$hs")
	check "idlelab ipi_storm --cpus all: targets $(hk_got ipi_storm "$hs" arrival) leave out housekeeping CPUs ${h:-none recorded}" \
		[ -n "$h" -a "$(hk_got ipi_storm "$hs" arrival)" = "$(hk_want "$h")" ]
	h=$(hk_attr gaps_irqoff "$hg")
	check "idlelab gaps_irqoff --cpus all: CPUs $(hk_got gaps_irqoff "$hg" gap_window) leave out housekeeping CPUs ${h:-none recorded}" \
		[ -n "$h" -a "$(hk_got gaps_irqoff "$hg" gap_window)" = "$(hk_want "$h")" ]
	check "idlelab ipi_storm targets=1,2,3: round_time per target count" \
		[ "$(gq "SELECT group_concat(grp) FROM (SELECT s.grp FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE json_extract(r.params, '\$.targets')='[1,2,3]' AND s.metric='round_time' AND s.count=20 ORDER BY s.grp)")" = "1,2,3" ]
	# Where t_entry was taken, judged by the bench against the other side
	# of each on-time wake (bench/cstate_wake_lead.c): lead = t_launch -
	# t_entry is at most L (10% for TCG's clock reads) for a timer, which
	# the module armed before t_entry; for an IPI, from CPU 0, at least 0
	# and at most L plus the sample's wait.  The bench counts the samples
	# outside that bound per CPU; the stored min and max are checked here
	# again from the run's parameters, and both sources must have been
	# judged at all.  An IPI sender waits L on its own TSC after the
	# measured CPU published the sample, which it does a little before
	# t_entry, so the largest lead of an IPI run is over L/2 (TCG stretched
	# that little to most of L in single samples, never in a whole run).
	lq="FROM runs r JOIN run_attrs a ON a.run_uuid=r.uuid WHERE r.bench='cstate_wake' AND r.status='ok'"
	lv() { echo "(SELECT CAST(b.value AS INTEGER) FROM run_attrs b WHERE b.run_uuid=a.run_uuid AND b.cpu=a.cpu AND b.key='entry_lead_$1')"; }
	lmin="coalesce(json_extract(r.params, '\$.launch_min_ns'), 100000)"
	lmax="max(coalesce(json_extract(r.params, '\$.launch_max_ns'), 0), $lmin)"
	ipi="coalesce(json_extract(r.params, '\$.wake_source'), 'timer')='ipi'"
	check "idlelab cstate_wake: every measured CPU's t_entry within its wake's bound (out-of-bounds $(gq "SELECT coalesce(sum(CAST(a.value AS INTEGER)), 'none') $lq AND a.key='entry_lead_out_of_bounds'"))" \
		[ "$(gq "SELECT count(*) FROM runs r WHERE bench='cstate_wake' AND status='ok' AND NOT EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='entry_lead_out_of_bounds')")" -eq 0 -a \
		  "$(gq "SELECT count(*) $lq AND a.key='entry_lead_out_of_bounds' AND a.value<>'0'")" -eq 0 -a \
		  "$(gq "SELECT count(*) FROM runs WHERE bench='cstate_wake' AND status='ok'")" -ge 6 ]
	check "idlelab cstate_wake: entry leads min/max within the bound from each run's parameters" \
		[ "$(gq "SELECT count(*) $lq AND a.key='entry_lead_samples' AND CAST(a.value AS INTEGER) > 0 AND NOT (
			$(lv min_ns) >= 0 AND $(lv max_ns) >= $(lv min_ns) AND
			CASE WHEN $ipi THEN $(lv max_ns) <= $lmax + 1000000000 AND
			  $(lv max_ns) >= $lmin / 2
			ELSE $(lv max_ns) <= $lmax + $lmax / 10 END)")" -eq 0 ]
	check "idlelab cstate_wake: entry leads judged for timer and IPI wakes ($(gq "SELECT group_concat(k || ' ' || n, ', ') FROM (SELECT CASE WHEN $ipi THEN 'ipi' ELSE 'timer' END k, sum(CAST(a.value AS INTEGER)) n $lq AND a.key='entry_lead_samples' GROUP BY k)") samples)" \
		[ "$(gq "SELECT count(*) FROM (SELECT $ipi k $lq AND a.key='entry_lead_samples' GROUP BY k HAVING sum(CAST(a.value AS INTEGER)) > 0)")" -eq 2 ]
	diag "cstate_wake entry lead ns (source L cpu n min max): $(gq "SELECT group_concat(coalesce(json_extract(r.params, '\$.wake_source'), 'timer') || ' ' || $lmin || ' ' || a.cpu || ' ' || a.value || ' ' || $(lv min_ns) || ' ' || $(lv max_ns), '; ') $lq AND a.key='entry_lead_samples' AND r.campaign IS NULL")"
	# A task waiting for the CPU ends the re-entries (need_resched):
	# guest-init.sh's resched_reenter, a sleeper on the measured CPU.
	rs=$(gq "SELECT sum(CAST(a.value AS INTEGER)) FROM runs r JOIN run_attrs a ON a.run_uuid=r.uuid AND a.key='reenter_resched_stops' WHERE r.bench='cstate_wake' AND r.status='ok' AND r.campaign IS NULL AND json_extract(r.params, '\$.launch_min_ns')=2000000")
	check "idlelab cstate_wake reenter: a task waking on the CPU ended the re-entries (${rs:-no} need_resched stops in 40 samples)" \
		[ "${rs:-0}" -gt 0 ]
	# preempt=full (run-qemu.sh): an interrupt return preempts kernel code
	# that has not disabled preemption, and the sleeper above made a task
	# runnable on the measured CPU inside windows (the stops).  A window
	# the kthread was switched out of would count in preempted_windows, a
	# storm round in preempted_rounds_n*: both must stay 0.
	check "guest kernel runs with full preemption (Dynamic Preempt: full)" \
		grep -q 'Dynamic Preempt: full' "$D/dmesg.txt"
	pw=$(gq "SELECT count(*) || '/' || coalesce(sum(CAST(a.value AS INTEGER)), 0) FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='cstate_wake' AND r.status='ok' AND a.key='preempted_windows'")
	check "idlelab cstate_wake: no window was preempted (runs/preempted: $pw)" \
		[ "${pw%/*}" -ge 6 -a "${pw#*/}" = 0 ]
	pr=$(gq "SELECT count(*) || '/' || coalesce(sum(CAST(a.value AS INTEGER)), 0) FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='ipi_storm' AND r.status='ok' AND a.key LIKE 'preempted_rounds_n%'")
	check "idlelab ipi_storm: no round was preempted (counts/preempted: $pr)" \
		[ "${pr%/*}" -ge 3 -a "${pr#*/}" = 0 ]
	# QEMU's CPUID.5:EDX enumerates no MWAIT sub-state, so the module
	# refuses every MWAIT hint there (IDLELAB_UNSUP_MWAIT_HINT).
	check "idlelab cstate_wake mwait: unsupported where CPUID leaf 5 enumerates no such hint" \
		[ "$(gq "SELECT count(*) FROM runs WHERE bench='cstate_wake' AND json_extract(params, '\$.method')='mwait' AND NOT (status='ok' OR (status='unsupported' AND status_reason LIKE '%CPUID leaf 5%'))")" -eq 0 ]
	# No _CST in this guest's firmware: method=acpi is refused with
	# IDLELAB_UNSUP_NO_CST's reason, never run (issue 21).
	check "idlelab cstate_wake acpi: unsupported without _CST" \
		[ "$(gq "SELECT count(*) FROM runs WHERE bench='cstate_wake' AND json_extract(params, '\$.method')='acpi' AND status='unsupported' AND status_reason LIKE '%no ACPI C-states%'")" -eq 1 -a \
		  "$(gq "SELECT count(*) FROM runs WHERE bench='cstate_wake' AND json_extract(params, '\$.method')='acpi'")" -eq 1 ]
	# Each sample lands in exactly one place: the latency, or the early
	# count, or the other-interrupt (dropped) count.
	att() { echo "(SELECT CAST(value AS INTEGER) FROM run_attrs a WHERE a.run_uuid=s.run_uuid AND a.cpu=s.cpu AND a.key='$1')"; }
	check "idlelab cstate_wake: early, other-interrupt and late-entry wakes counted apart" \
		[ "$(gq "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='cstate_wake' AND r.status='ok' AND s.metric='wake_latency' AND NOT (
			s.early = $(att early_wakes) AND s.dropped = $(att other_irq_wakes) + $(att late_entries) + $(att preempted_windows) AND
			s.count + s.early + s.dropped = $(att samples_done) - $(att unsupported_samples))")" -eq 0 ]
	diag "cstate_wake wake_latency (method cpu count early other): $(gq "SELECT group_concat(json_extract(r.params, '\$.method') || '/' || json_extract(r.params, '\$.wake_source') || ' ' || s.cpu || ' ' || s.count || ' ' || s.early || ' ' || s.dropped, '; ') FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='cstate_wake' AND r.status='ok' AND s.metric='wake_latency' AND r.campaign IS NULL")"
	# Under a hypervisor a WBINVD under the calibrated threshold is a
	# no-op: dropped, counted.
	check "idlelab cstate_wake wbinvd: wbinvd_time per CPU, no-ops counted apart" \
		[ "$(gq "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='cstate_wake' AND s.metric='wbinvd_time' AND coalesce(json_extract(r.params, '\$.dirty_bytes'), 0) <> 131072 AND s.count + s.dropped = 20 AND s.dropped = $(att wbinvd_noop)")" -eq 2 ]
	# Issue 21: the run after inject 32 (guest-init.sh, dirty_bytes
	# 131072) spun the threshold more in every WBINVD: no no-op, the
	# whole series kept.
	check "idlelab cstate_wake wbinvd slowed by the threshold (inject 32): wbinvd_noop=0, all 20 samples in wbinvd_time" \
		[ "$(gq "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='cstate_wake' AND r.status='ok' AND json_extract(r.params, '\$.dirty_bytes') = 131072 AND s.metric='wbinvd_time' AND s.count = 20 AND s.dropped = 0 AND $(att wbinvd_noop) = 0")" -eq 1 ]
	diag "cstate_wake wbinvd slowed: wbinvd_time min/p50/max $(gq "SELECT s.min || '/' || s.p50 || '/' || s.max || ' ' || s.unit FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='cstate_wake' AND json_extract(r.params, '\$.dirty_bytes') = 131072 AND s.metric='wbinvd_time'"), threshold $(gq "SELECT a.value FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='cstate_wake' AND json_extract(r.params, '\$.dirty_bytes') = 131072 AND a.key='noop_threshold_cycles'") cycles"
	check "idlelab cstate_wake: hw_state beside idle_state, residency per counter or unsupported with the reason" \
		[ "$(gq "SELECT count(*) FROM runs r WHERE bench='cstate_wake' AND status='ok' AND NOT (
			EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.cpu=-1 AND a.key='hw_state' AND length(a.value) > 0) AND
			(SELECT count(*) FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.cpu>=0 AND a.key LIKE 'res_%_pct' AND (a.value LIKE 'unsupported: MSR 0x%' OR a.value LIKE 'unavailable: MSR 0x%' OR a.value GLOB '[0-9]*.[0-9][0-9][0-9]')) =
			10 * (SELECT count(*) FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.cpu>=0 AND a.key='hw_state') AND
			EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='hypervisor') AND
			EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='tsc_unstable'))")" -eq 0 ]
	diag "cstate_wake hw_state: $(gq "SELECT DISTINCT value FROM run_attrs WHERE key='hw_state' AND cpu=-1" | head -2 | tr '\n' ';')"
	if [ "$amd" = 1 ]; then
		check "idlelab cstate_wake on AMD: every Intel residency MSR unsupported with the vendor reason, SMI count too" \
			[ "$(gq "SELECT count(*) FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='cstate_wake' AND r.status='ok' AND a.key IN ('res_core_c1_pct','res_core_c3_pct','res_core_c6_pct','res_core_c7_pct','res_pkg_c2_pct','res_pkg_c3_pct','res_pkg_c6_pct','res_pkg_c7_pct','smi_count') AND a.value NOT LIKE 'unsupported: MSR 0x% this CPU is not Intel''s%'")" -eq 0 -a \
			  "$(gq "SELECT count(*) FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='cstate_wake' AND r.status='ok' AND a.key='res_pkg_c2_pct'")" -ge 6 ]
	fi
	check "idlelab: every run on this hypervisor-tagged guest says so (under_hypervisor), and the report lists them" \
		[ "$(gq "SELECT count(*) FROM runs r WHERE r.status='ok' AND NOT EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='under_hypervisor' AND a.cpu=-1)")" -eq 0 -a \
		  "$(gq "SELECT count(*) FROM runs WHERE status='ok'")" -ge 20 ]
	check "host idlelab report lists the guest's runs under its hypervisor" \
		sh -c "'$IDLELAB' report --db '$G' | grep -A4 '^Runs under a hypervisor' | grep -q '| [0-9]* |\$'"
	check "idlelab cstate_wake, wbinvd: the calibrated no-op threshold stored per measured CPU" \
		[ "$(gq "SELECT count(*) FROM runs r WHERE r.bench IN ('cstate_wake','wbinvd') AND r.status='ok' AND NOT EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='noop_threshold_cycles' AND CAST(a.value AS INTEGER) > 0)")" -eq 0 ]
	diag "no-op thresholds (cycles): $(gq "SELECT group_concat(DISTINCT value) FROM run_attrs WHERE key='noop_threshold_cycles'")"
	check "idlelab gaps_irqoff: every window on record, NMI/SMI per gap keyed like the gap series" \
		[ "$(gq "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='gaps_irqoff' AND r.campaign IS NULL AND s.metric='gap_window' AND s.count = 5")" -eq 2 -a \
		  "$(gq "SELECT count(*) FROM summaries g JOIN runs r ON r.uuid=g.run_uuid JOIN summaries n ON n.run_uuid=g.run_uuid AND n.cpu=g.cpu AND n.metric='gap_nmi' WHERE r.bench='gaps_irqoff' AND g.metric='gap' AND n.count <> g.count")" -eq 0 ]
	# The kernel's idle-entry rules (kmod/README.md): whether the idle
	# VERW and the CLFLUSH before MONITOR were done is on every raw run.
	check "idlelab cstate_wake: idle_verw on every HLT/MWAIT run, clflush_monitor on every MWAIT run" \
		[ "$(gq "SELECT count(*) FROM runs r WHERE bench='cstate_wake' AND status='ok' AND json_extract(params, '\$.method') IN ('hlt','mwait') AND NOT (EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='idle_verw' AND a.value IN ('0','1')) AND (json_extract(params, '\$.method')='hlt' OR EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='clflush_monitor' AND a.value IN ('0','1'))))")" -eq 0 -a \
		  "$(gq "SELECT count(*) FROM runs r WHERE bench='cstate_wake' AND status='ok' AND json_extract(params, '\$.method') IN ('hlt','mwait')")" -ge 1 ]
	diag "cstate_wake idle_verw clflush_monitor: $(gq "SELECT group_concat(DISTINCT a.key || '=' || a.value) FROM run_attrs a WHERE a.key IN ('idle_verw','clflush_monitor')")"
	# The kernel's idle policy (issue 21): CPU 1's resume-latency PM QoS
	# at "n/a" refuses a HLT run with the reason; policy_override=1 runs
	# it and the run says so.
	qs="bench='cstate_wake' AND campaign IS NULL AND json_extract(params, '\$.samples')=12"
	check "idlelab cstate_wake under PM QoS n/a: refused with the reason, unless policy_override=1 (recorded)" \
		[ "$(gq "SELECT count(*) FROM runs WHERE $qs AND coalesce(json_extract(params, '\$.policy_override'), 0) = 0 AND status='unsupported' AND status_reason LIKE '%resume-latency PM QoS%'")" -eq 1 -a \
		  "$(gq "SELECT count(*) FROM runs r WHERE $qs AND r.status='ok' AND EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='policy_override' AND a.value='1')")" -eq 1 ]
	check "PM QoS of CPU 1 lifted after the policy runs ($(jv "$(line qos_policy)" restored))" \
		[ "$(jv "$(line qos_policy)" restored)" = 0 ]
	check "idlelab cstate_wake: run attrs idle_state and wake_source" \
		[ "$(gq "SELECT count(*) FROM runs r WHERE bench='cstate_wake' AND status='ok' AND (SELECT count(*) FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key IN ('idle_state','wake_source','irq_mode','mwait_hint','method'))<>5")" -eq 0 ]
	check "idlelab gaps_irqoff: gap records with their times, loop period" \
		[ "$(gq "SELECT sum(s.count) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='gaps_irqoff' AND r.campaign IS NULL AND s.metric='gap'")" -gt 0 -a \
		  "$(gq "SELECT count(*) FROM raw_samples x JOIN summaries s ON s.id=x.summary_id JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='gaps_irqoff' AND s.metric='gap' AND s.count > 0")" -ge 1 -a \
		  "$(gq "SELECT count(*) FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='gaps_irqoff' AND r.campaign IS NULL AND json_extract(r.params, '\$.windows')=5 AND a.key='loop_period_ns' AND CAST(a.value AS REAL) > 0")" -eq 2 ]
	check "idlelab wbinvd blast: 5 WBINVD events (no-ops counted apart), victim gaps and windows" \
		[ "$(gq "SELECT s.count + s.dropped FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE json_extract(r.params, '\$.mode')='blast' AND r.campaign IS NULL AND s.metric='wbinvd_time'")" = 5 -a \
		  "$(gq "SELECT sum(s.count) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE json_extract(r.params, '\$.mode')='blast' AND r.campaign IS NULL AND s.metric='victim_window'")" -ge 2 -a \
		  "$(gq "SELECT sum(s.count) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE json_extract(r.params, '\$.mode')='blast' AND r.campaign IS NULL AND s.metric='victim_gap'")" -gt 0 ]
	# Issue 24: the guest is the machine without cpuidle.
	check "idle_sweep without cpuidle: each idle time measured, no state named, the reason kept" \
		[ "$(gq "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='idle_sweep' AND r.status='ok' AND s.metric='wake_latency' AND s.count > 0")" -eq 3 -a \
		  "$(gq "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='idle_sweep' AND s.metric LIKE 'wake\\_latency\\_%' ESCAPE '\\'")" -eq 0 -a \
		  "$(gq "SELECT count(*) FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='idle_sweep' AND a.key='entered_state' AND a.value LIKE 'unavailable:%no cpuidle states%'")" -ge 1 ]
	l=$(line advise)
	check "advise in the guest exited 0" [ "$(jv "$l" rc)" = 0 ]
	check "advise on the guest's sweep: no_cpuidle, cpuidle driver none" \
		[ "$(jq -r '.[0] | "\(.answer) \(.driver)"' "$D/advise.json" 2>/dev/null)" = "no_cpuidle none" ]
	check "idlelab wbinvd sweep: 3 samples for each footprint (KiB 0, 64, 1024)" \
		[ "$(gq "SELECT group_concat(grp || ':' || count) FROM (SELECT s.grp, s.count + s.dropped AS count FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='wbinvd' AND r.status='ok' AND r.campaign IS NULL AND json_extract(r.params, '\$.mode')='sweep' AND json_extract(r.params, '\$.noinvd')=0 ORDER BY s.grp)")" = "0:3,64:3,1024:3" ]
fi

# Kernel splats of any kind; boot-time CPU-bug notices that merely contain
# "WARNING:" (RETBleed on Bochs's Skylake model) are not splats.
# The debug kernel's CSD-lock and hung-task reports say neither BUG nor
# WARNING.
pat='BUG:|WARNING:|Oops|Call Trace|soft lockup|hard LOCKUP|general protection|NMI received for unknown reason|csd: Detected non-responsive|blocked for more than'
benign='RETBleed: WARNING|Spectre V2 : WARNING|MDS CPU bug present|MMIO Stale Data CPU bug'
# Only what follows the loading of our modules counts; an emulator's
# boot-time complaints (Bochs: an xstate size WARNING) are not ours.
# The injected NMIs' own lines are not splats: their number is asserted
# above (at most one per injected NMI and CPU).
[ "${ninj:-0}" -gt 0 ] && benign="$benign|Uhhuh. NMI received for unknown reason"
splats() {
	tr -d '\r' < "$1" | sed -n '/idlelab-rig: loading/,$p' |
		grep -E "$pat" | grep -vE "$benign"
}
boot=$(tr -d '\r' < "$D/dmesg.txt" 2>/dev/null | sed '/idlelab-rig: loading/,$d' |
	grep -cE "$pat")
[ "$boot" -gt 0 ] && diag "$boot splat line(s) at boot, before idlelab loaded"

# On the debug kernel (tests/vm/debug-kernel.sh) a clean dmesg means
# something only if its checks were on.
if [ "${IDLELAB_VM_DEBUG_KERNEL:-0}" = 1 ]; then
	check "debug kernel: the guest booted it ($(grep -o 'Linux version [^ ]*' "$D/dmesg.txt" | head -1))" \
		grep -q 'Linux version [^ ]*-idlelab-debug' "$D/dmesg.txt"
	check "debug kernel: KASAN was on" \
		grep -q 'KernelAddressSanitizer initialized' "$D/dmesg.txt"
	check "debug kernel: lockdep was on" \
		grep -q 'Lock dependency validator' "$D/dmesg.txt"
fi
if grep -q 'idlelab-rig: loading' "$D/dmesg.txt" 2>/dev/null &&
   [ -z "$(splats "$D/dmesg.txt")" ] &&
   [ -z "$(splats "$D/serial.log" 2>/dev/null)" ]; then
	ok "guest dmesg clean"
else
	not_ok "guest dmesg clean"
	splats "$D/dmesg.txt" | head -5 | sed 's/^/# /'
fi
t_done
