# SPDX-License-Identifier: GPL-2.0-only
# The IPI module's checks on a QEMU xAPIC guest's results, sourced by
# tests/vm/test_qemu.sh (its D, R, T_TMP, jv, line, check and diag): the
# storm modes, the NMIs injected from the host (nmi-inject.sh) during NMI
# storms and kernel-mode storms, late acknowledgments, stragglers, the
# sender's preemption guard and CPU 0 as a target.  Sets ninj, the NMIs
# the host injected, which the dmesg check at the end allows for.
# --- IPI hazards (issue 9, kmod-client-ipi.c) ---------------------------
# NMIs injected through QMP during storms (tests/vm/nmi-inject.sh): the
# module claims only the NMIs its targets are owed, so every injected NMI
# still reaches the kernel on CPU 0 (the sender, never owed one) as an
# unknown NMI, and the storms stay exact.  On a target an injected NMI may
# coalesce with ours (one NMI latch), so only CPU 0's count is exact.
ninj=$(grep -c '^injected ' "$D/nmi-inject.log" 2>/dev/null)
ninj=${ninj:-0}
# From 6.8 the kernel's "unknown reason" line is rate-limited, and the
# rate limit takes its lock with a trylock: with apic_extnmi=all every
# vCPU takes an injected NMI at nearly the same instant, and a CPU that
# loses the race prints nothing and counts nothing as suppressed (CI,
# 2026-12-05: CPU 0's only line of the storms' step lost; CPU 1 printed 2
# of 3 in the nmi_kernel step).  The CPU holding the lock prints, so each
# NMI still gives at least one line, on some CPU.  So there a CPU's lines
# are at most its NMIs, and the lines of a set of CPUs at least the NMIs
# sent to the set; before 6.8 (plain pr_emerg()) each CPU's count is
# exact.  lines_ok LINES NMIS: one CPU's count.
kv=$(tr -d '\r' < "$D/dmesg.txt" 2>/dev/null | sed -n 's/.*Linux version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -1)
rl=$(echo "$kv" | awk '{ print ($1 > 6 || ($1 == 6 && $2 >= 8)) ? 1 : 0 }')
lines_ok() {
	if [ "$rl" = 1 ]; then
		[ "$1" -le "$2" ]
	else
		[ "$1" = "$2" ]
	fi
}
l=$(line nmi_inject)
if [ -n "$(jv "$l" skip)" ]; then
	skip "NMIs injected during storms" "$(jv "$l" skip)"
else
	check "host injected NMIs through QMP, at most $(jv "$l" inject) ($ninj)" \
		[ "$ninj" -ge 1 -a "$ninj" -le "$(jv "$l" inject)" ]
	sed 's/^/# nmi-inject: /' "$D/nmi-inject.log" 2>/dev/null | grep -v ' injected ' | head -3
	check "guest: CPU 0 took the $ninj injected NMIs ($(jv "$l" cpu0_nmis))" \
		[ "$(jv "$l" cpu0_nmis)" = "$ninj" ]
	check "guest: unknown_nmi_panic and panic_on_unrecovered_nmi off" \
		[ "$(jv "$l" unknown_nmi_panic)" = 0 -a \
		  "$(jv "$l" panic_on_unrecovered_nmi)" = 0 ]
	check "storms under injected NMIs: every round exact ($(jv "$l" exact_rounds)/$(jv "$l" rounds) in $(jv "$l" storms) storms)" \
		[ "$(jv "$l" errors)" = 0 -a "$(jv "$l" rounds)" -gt 0 -a \
		  "$(jv "$l" exact_rounds)" = "$(jv "$l" rounds)" -a \
		  "$(jv "$l" timeouts)" = 0 -a "$(jv "$l" late)" = 0 -a \
		  "$(jv "$l" lost)" = 0 -a "$(jv "$l" undrained)" = 0 ]
	check "storms saw the injected NMIs and passed them on (foreign $(jv "$l" foreign), $(jv "$l" foreign_rounds) rounds flagged)" \
		[ "$(jv "$l" foreign)" -ge 1 -a "$(jv "$l" foreign_rounds)" -ge 1 ]
	# Up to the nmi_kernel step, whose NMIs are counted below.
	uh=$(tr -d '\r' < "$D/dmesg.txt" |
		sed -n '/idlelab-rig: loading/,/IDLELAB-NMIK-BEGIN/p' |
		grep -c 'NMI received for unknown reason')
	uh0=$(tr -d '\r' < "$D/dmesg.txt" |
		sed -n '/idlelab-rig: loading/,/IDLELAB-NMIK-BEGIN/p' |
		grep -c 'NMI received for unknown reason .* on CPU 0\.')
	p1_ok() { lines_ok "$uh0" "$ninj" && [ "$uh" -ge "$ninj" -a "$uh" -le $((ninj * 4)) ]; }
	check "kernel reported the $ninj injected NMIs as unknown on CPU 0 ($uh0$([ "$rl" = 1 ] && echo ', rate-limited kernel: at most that many')), $uh on all CPUs ($ninj to $((ninj * 4)))" \
		p1_ok
fi
# Issue 21: the check above counts only CPU 0, which is never owed an NMI,
# so it held even with a handler that claimed every NMI on the targets.
# The nmi_kernel step (kmod-client-nmik.c) injects K NMIs during
# kernel-mode storms, which owe no CPU an NMI: each must reach the kernel
# as unknown on every CPU, once (its "on CPU n" lines between the step's
# markers = its /proc/interrupts NMI delta = K), and the host's 5.5 s
# spacing keeps 6.12's rate limit from dropping a line (none suppressed).
nk=$(grep -c '^nmik injected ' "$D/nmi-inject.log" 2>/dev/null)
nk=${nk:-0}
l=$(line nmi_kernel)
if [ -n "$(jv "$l" skip)" ]; then
	skip "NMIs injected during kernel-mode storms" "$(jv "$l" skip)"
else
	k=$(jv "$l" k) nc=$(jv "$l" ncpu)
	check "nmi_kernel: host injected the K=$k NMIs ($nk) into $nc vCPUs" \
		[ "${k:-0}" -ge 1 -a "$nk" = "${k:-0}" -a "${nc:-0}" -ge 2 ]
	tr -d '\r' < "$D/dmesg.txt" 2>/dev/null |
		sed -n '/IDLELAB-NMIK-BEGIN/,/IDLELAB-NMIK-END/p' > "$T_TMP/nmik"
	nk_ok() { [ "$2" = "$3" ] && lines_ok "$1" "$3"; }
	c=0 tl=0
	while [ "$c" -lt "${nc:-0}" ]; do
		u=$(grep -c "NMI received for unknown reason .* on CPU $c\." \
			"$T_TMP/nmik")
		d=$(jv "$l" "nmi_cpu$c")
		check "nmi_kernel: CPU $c reported each injected NMI as unknown once ($u lines, NMI count +$d, K=$k$([ "$rl" = 1 ] && echo ', rate-limited kernel: at most K lines'))" \
			nk_ok "$u" "$d" "$k"
		[ "$c" -gt 0 ] && tl=$((tl + u))
		[ "$rl" = 1 ] && [ "$u" -lt "$k" ] &&
			diag "nmi_kernel: CPU $c printed $u of its $k lines (the rate limit's trylock)"
		c=$((c + 1))
	done
	# Where a line can be lost, the targets together: every injected NMI
	# reached each of them, and each NMI prints at least one line; a
	# handler that claimed the NMIs on the targets leaves them none.
	[ "$rl" = 1 ] &&
		check "nmi_kernel: the targets (CPUs 1-$((nc - 1))) reported the NMIs as unknown: $tl lines, K=$k to $(( k * (nc - 1) ))" \
			[ "$tl" -ge "$k" -a "$tl" -le $(( k * (nc - 1) )) ]
	sup=$(tr -d '\r' < "$D/dmesg.txt" 2>/dev/null |
		sed -n '/IDLELAB-NMIK-BEGIN/,$p' |
		grep -c 'unknown_nmi_error: .*callbacks suppressed')
	check "nmi_kernel: no unknown-NMI line suppressed by the rate limit ($sup)" \
		[ "$sup" = 0 ]
	check "nmi_kernel: an injected NMI landed inside a storm (foreign $(jv "$l" foreign), $(jv "$l" foreign_rounds) rounds flagged)" \
		[ "$(jv "$l" foreign)" -ge 1 ]
	check "nmi_kernel: every kernel-mode storm exact ($(jv "$l" exact_rounds)/$(jv "$l" rounds) rounds in $(jv "$l" storms) storms, $(jv "$l" errors) errors)" \
		[ "$(jv "$l" errors)" = 0 -a "$(jv "$l" rounds)" -gt 0 -a \
		  "$(jv "$l" exact_rounds)" = "$(jv "$l" rounds)" -a \
		  "$(jv "$l" timeouts)" = 0 -a "$(jv "$l" undrained)" = 0 ]
	l=$(grep '"op":"client_exit","mode":"nmi_kernel"' "$R")
	check "nmi_kernel: client exited 0" [ "$(jv "$l" rc)" = 0 ]
fi
# CPU 0 is a storm target only on request (IDLELAB_IPI_F_CPU0); without
# the flag the bad-input suite's limits_invalid gets EINVAL.
l=$(line ipi_cpu0)
check "ipi storm to CPU 0 with IDLELAB_IPI_F_CPU0: $(jv "$l" ok_rounds)/$(jv "$l" rounds) rounds exact ($(jv "$l" rc))" \
	[ "$(jv "$l" rc)" = 0 -a "$(jv "$l" ok_rounds)" = "$(jv "$l" rounds)" ]
check "ipi storms: run tagged as measured under a hypervisor (run_flags $(jv "$(line ipi physical)" run_flags))" \
	[ $(( $(jv "$(line ipi physical)" run_flags) & 1 )) = 1 ]
l=$(line late_acks)
if [ -n "$(jv "$l" skip)" ]; then
	not_ok "late acknowledgments: $(jv "$l" skip)"
else
	# A round is either the late form (timed out, the punctual targets'
	# acks only) or, when the host did not run the sender until after the
	# late claim, exact; any other shape (a late ack counted in the next
	# round, before its t_issue) fails.
	check "late acknowledgments: the punctual targets' acks within each round, the late one in none ($(jv "$l" as_expected) late-form + $(jv "$l" in_round) exact of $(jv "$l" rounds))" \
		[ "$(jv "$l" rc)" = 0 -a "$(jv "$l" nr_done)" = "$(jv "$l" rounds)" -a \
		  $(( $(jv "$l" as_expected) + $(jv "$l" in_round) )) = "$(jv "$l" rounds)" -a \
		  "$(jv "$l" as_expected)" -ge 1 ]
	check "test_late_us is capped: 200001 us refused ($(jv "$l" over_cap))" \
		[ "$(jv "$l" over_cap)" = EINVAL ]
	check "late acknowledgments: each late-form round's ack counted late, none lost ($(jv "$l" late) late, $(jv "$l" stray) in later rounds' windows)" \
		[ "$(jv "$l" late)" = "$(jv "$l" as_expected)" -a "$(jv "$l" lost)" = 0 -a \
		  "$(jv "$l" undrained)" = 0 ]
fi
# Issue 21: NMIs a run still owes when it ends (1 us rounds: under TCG
# every NMI takes longer than that to land) are claimed after the run as
# stragglers; none may reach the kernel as unknown (no NMI is injected
# between the client's two markers).
l=$(line stragglers)
uhs=$(tr -d '\r' < "$D/dmesg.txt" |
	sed -n '/IDLELAB-STRAGGLE-BEGIN/,/IDLELAB-STRAGGLE-END/p' |
	grep -c 'NMI received for unknown reason')
check "stragglers: $(jv "$l" runs) storms of 1 us rounds, $(jv "$l" owing_runs) ended owing NMIs ($(jv "$l" lost) lost)" \
	[ "$(jv "$l" errors)" = 0 -a "$(jv "$l" owing_runs)" -ge 1 ]
check "stragglers: the NMIs that landed after their run were claimed ($(jv "$l" stragglers)), none reported unknown ($uhs)" \
	[ "$(jv "$l" stragglers)" -ge 1 -a "$uhs" = 0 ]
# Issue 21: the sender's preempt_disable() against a task spinning on its
# CPU through rounds of about 3 ms (kmod-client-ipi.c, preempt_guard).
# On a loaded host a target's NMI can arrive late enough that the storm
# ends undrained (the 6.1 guest once ran 23 of 100 rounds): 10 rounds
# are enough to see a tick inside one.
l=$(line preempt_guard)
check "preempt guard: a task spinning on the sender's CPU ran during the storm ($(jv "$l" spins) spins) and between rounds ($(jv "$l" gaps) gaps of 1 ms), no round preempted ($(jv "$l" preempted) of $(jv "$l" nr_done))" \
	[ "$(jv "$l" rc)" = 0 -a "$(jv "$l" nr_done)" -ge 10 -a \
	  "$(jv "$l" spins)" -gt 0 -a "$(jv "$l" gaps)" -ge 1 -a \
	  "$(jv "$l" preempted)" = 0 ]
l=$(line ipi_sender_death)
if [ -n "$(jv "$l" skip)" ]; then
	not_ok "sender that dies: $(jv "$l" skip)"
else
	check "sender that dies: the storm returns EIO by itself, no hang ($(jv "$l" secs) s, killed $(jv "$l" killed), hung $(jv "$l" hung))" \
		[ "$(jv "$l" rc)" = EIO -a "$(jv "$l" killed)" = 0 -a "$(jv "$l" hung)" = 0 ]
	check "after the dead sender: the next storm is exact" \
		[ "$(jv "$l" next_exact)" = "$(jv "$l" next_rounds)" -a "$(jv "$l" param_after)" = 0 ]
fi

