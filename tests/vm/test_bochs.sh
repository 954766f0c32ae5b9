#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Host-side assertions on a Bochs guest run (TAP): Bochs's MWAIT really
# sleeps, so the IRQ-mode semantics can be checked there: with IRQ late
# (MWAIT ECX=1, IRQs off) t_exit precedes t_intr; with IRQ early t_intr
# precedes t_exit.  Asserted twice: on kmod-client's lines and on the
# database the real idlelab wrote in the guest (run attributes counting
# the two orders over every record, sent back as CSV rows).  With IDLELAB_VM_RESULTS set it checks that directory
# (run-bochs.sh does this); otherwise it runs run-bochs.sh --no-setup, or
# skips when the packages of tests/vm/setup.sh --bochs are missing.  It
# installs nothing.  A run takes about 5 minutes.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/vm/asserts.sh

if [ -z "${IDLELAB_VM_RESULTS:-}" ]; then
	miss=
	command -v bochs-bin >/dev/null || miss="$miss bochs"
	command -v xorriso >/dev/null || miss="$miss xorriso"
	[ -f /usr/lib/ISOLINUX/isolinux.bin ] || miss="$miss isolinux"
	[ -x /bin/busybox ] || miss="$miss busybox-static"
	ls /lib/modules/*/build >/dev/null 2>&1 || miss="$miss headers"
	ls /usr/lib/*/bochs/plugins/libbx_term_gui.so >/dev/null 2>&1 ||
		miss="$miss bochs-term"
	if [ -n "$miss" ]; then
		skip "bochs guest run" "missing:$miss (run tests/vm/setup.sh --bochs)"
		t_done
		exit 0
	fi
	IDLELAB_VM_OUT=$T_TMP/bochs sh tests/vm/run-bochs.sh --no-setup \
		--no-test >"$T_TMP/run.log" 2>&1
	sed 's/^/# /' "$T_TMP/run.log" | tail -5
	IDLELAB_VM_RESULTS=$T_TMP/bochs
fi
D=$IDLELAB_VM_RESULTS
R=$D/results.jsonl

# The rig's watchdog (run-bochs.sh) says how and why Bochs stopped: "done"
# once the guest finished; "blocked" when Bochs slept writing to a
# terminal, "stalled" when it used no CPU, "limit" or "exited" otherwise.
st=$(sed -n 's/^status=//p' "$D/rig-status" 2>/dev/null)
why=$(sed -n 's/^reason=//p' "$D/rig-status" 2>/dev/null)
diag "rig: $(tr '\n' ' ' < "$D/rig-status" 2>/dev/null)"
check "Bochs never blocked on its own output ($why)" [ "$st" != blocked ]
check "Bochs ran until the guest finished ($why)" [ "$st" = done ]

jv() {
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}
cs() { grep "\"op\":\"cstate\",\"name\":\"$1\"" "$R" | head -1; }

if [ ! -s "$R" ]; then
	not_ok "guest wrote results on the serial log"
	tail -20 "$D/serial.log" 2>/dev/null | tr -d '\r' | sed 's/^/# /'
	t_done
	exit 1
fi
ok "guest wrote results on the serial log"
check "guest ran to the end" grep -q '"op":"end"' "$R"
vm_assert_steps "$D" bochs
vm_assert_swevent_hold "$D" bochs
vm_assert_bad_input "$D" bochs
for m in idlelab_cstate idlelab_ipi; do
	l=$(grep "\"op\":\"insmod\",\"module\":\"$m\"" "$R")
	check "insmod $m" [ "$(jv "$l" rc)" = 0 ]
done
grep '"op":"cstate"' "$R" > "$T_TMP/cstate"
while IFS= read -r l; do
	n=$(jv "$l" name)
	un=$(jv "$l" unsupported)
	full=0
	[ "$(jv "$l" nr_done)" = "$(jv "$l" nr_samples)" ] && full=1
	[ "$un" != 0 ] && full=1
	check "cstate $n: samples or unsupported ($un)" \
		[ "$(jv "$l" rc)" = 0 -a "$full" = 1 ]
	# t_entry < t_exit, checked here once, held by construction (two
	# ordered reads on one CPU); where t_entry was taken is judged from
	# the database below (entry_lead_*).
	diag "$n: early $(jv "$l" early_wake) other-irq $(jv "$l" other_irq) intr<exit $(jv "$l" intr_before_exit) intr>exit $(jv "$l" intr_after_exit)"
done < "$T_TMP/cstate"

# Bochs's APIC timer interrupts come before the hrtimer is due, so a plain
# pass is woken by a foreign interrupt (counted as early/other-interrupt
# wakes); the _reenter runs go back to sleep until their own event and are
# the ones whose order of t_intr and t_exit is asserted.  Samples woken by
# another interrupt are excluded from the intr/exit counts by the client.
l=$(cs mwait_c1_hrtimer_late_reenter)
check "MWAIT IRQ late runs under Bochs (ECX=1 does not fault)" \
	[ "$(jv "$l" unsupported)" = 0 -a "$(jv "$l" nr_done)" -gt 0 ]
check "MWAIT IRQ late: t_exit precedes t_intr" \
	[ "$(jv "$l" intr_after_exit)" -gt 0 -a "$(jv "$l" intr_before_exit)" = 0 ]
l=$(cs mwait_c1_hrtimer_early_reenter)
check "MWAIT IRQ early: t_intr precedes t_exit" \
	[ "$(jv "$l" intr_before_exit)" -gt 0 -a "$(jv "$l" intr_after_exit)" = 0 ]
l=$(cs hlt_hrtimer_early_reenter)
check "HLT (sti;hlt): t_intr precedes t_exit" \
	[ "$(jv "$l" intr_before_exit)" -gt 0 -a "$(jv "$l" intr_after_exit)" = 0 ]
# The same semantics, from the database the real idlelab wrote in the guest:
# the bench counts, over every sample not woken by another interrupt, those
# with t_intr < t_exit and the others, as run attributes; the guest sends
# those rows (guest-attrs.csv: bench, status, method, irq_mode, reenter,
# cpu, key, value), read from its database with sqlite3.
A=$D/guest-attrs.csv
# ia METHOD IRQ_MODE KEY: that attribute of CPU 1 in the reenter run.
ia() {
	tr -d '\r"' < "$A" | grep "^cstate_wake,ok,$1,$2,1,1,$3," | cut -d, -f8
}
if [ ! -s "$A" ]; then
	not_ok "guest idlelab run attributes came back on the serial log"
	sed 's/^/# /' "$D/idlelab.stderr" 2>/dev/null | tail -5
else
	ok "guest idlelab run attributes came back on the serial log"
	bad=$(grep '"op":"idlelab"' "$R" | grep -v '"rc":0}')
	check "every guest idlelab bench exited 0" [ -z "$bad" ]
	[ -n "$bad" ] && printf '%s\n' "$bad" | sed 's/^/# /'
	l=$(grep '"op":"idlelab_db_check"' "$R")
	check "guest idlelab db check passed" [ "$(jv "$l" rc)" = 0 ]
	# Each on-time timer wake's lead, t_launch - t_entry, is at most L:
	# the module armed the timer before t_entry (bench/cstate_wake_lead.c
	# counts the samples outside that bound; CPU 1 is each run's only).
	# Bochs's emulated time may leave no sample on time (every one a late
	# entry at L = 50 us, or early): then there is nothing to judge, and
	# the check says so rather than pass on nothing.
	leads=$(tr -d '\r"' < "$A" | grep '^cstate_wake,ok,.*,1,entry_lead_' | cut -d, -f3,4,7,8 | tr '\n' ' ')
	if [ "$(tr -d '\r"' < "$A" | grep -c '^cstate_wake,ok,.*,1,entry_lead_samples,[1-9][0-9]*$')" -ge 1 ]; then
		check "idlelab: 3 cstate_wake runs, every judged t_entry after its timer's arming ($leads)" \
			[ "$(tr -d '\r"' < "$A" | grep -c '^cstate_wake,ok,.*,1,entry_lead_out_of_bounds,0$')" -eq 3 ]
	else
		skip "idlelab: every judged t_entry after its timer's arming" "no on-time sample in the 3 runs to judge ($leads)"
	fi
	for c in "mwait late" "mwait early" "hlt early"; do
		set -- $c
		diag "idlelab $1 IRQ $2: intr<exit $(ia $1 $2 intr_before_exit) intr>exit $(ia $1 $2 intr_after_exit) early $(ia $1 $2 early_wakes) other-irq $(ia $1 $2 other_irq_wakes) late $(ia $1 $2 late_entries) reentries $(ia $1 $2 reentries)"
	done
	check "idlelab MWAIT IRQ late: t_exit precedes t_intr" \
		[ "$(ia mwait late intr_after_exit)" -gt 0 -a "$(ia mwait late intr_before_exit)" = 0 ]
	check "idlelab MWAIT IRQ early: t_intr precedes t_exit" \
		[ "$(ia mwait early intr_before_exit)" -gt 0 -a "$(ia mwait early intr_after_exit)" = 0 ]
	check "idlelab HLT (sti;hlt): t_intr precedes t_exit" \
		[ "$(ia hlt early intr_before_exit)" -gt 0 -a "$(ia hlt early intr_after_exit)" = 0 ]
fi
for m in idlelab_cstate idlelab_ipi; do
	l=$(grep "\"op\":\"rmmod\",\"module\":\"$m\"" "$R")
	check "$m: unload refused while open, clean once closed" \
		[ "$(jv "$l" rc_open)" != 0 -a "$(jv "$l" rc_closed)" = 0 ]
done
# Kernel splats of any kind; boot-time CPU-bug notices that merely contain
# "WARNING:" (RETBleed on Bochs's Skylake model) are not splats.
pat='BUG:|WARNING:|Oops|Call Trace|soft lockup|hard LOCKUP|general protection|NMI received for unknown reason'
benign='RETBleed: WARNING|Spectre V2 : WARNING|MDS CPU bug present|MMIO Stale Data CPU bug'
# Only what follows the loading of our modules counts; an emulator's
# boot-time complaints (Bochs: an xstate size WARNING) are not ours.
splats() {
	tr -d '\r' < "$1" | sed -n '/idlelab-rig: loading/,$p' |
		grep -E "$pat" | grep -vE "$benign"
}
boot=$(tr -d '\r' < "$D/dmesg.txt" 2>/dev/null | sed '/idlelab-rig: loading/,$d' |
	grep -cE "$pat")
[ "$boot" -gt 0 ] && diag "$boot splat line(s) at boot, before idlelab loaded"

if grep -q 'idlelab-rig: loading' "$D/dmesg.txt" 2>/dev/null &&
   [ -z "$(splats "$D/dmesg.txt")" ]; then
	ok "guest dmesg clean"
else
	not_ok "guest dmesg clean"
	splats "$D/dmesg.txt" | head -5 | sed 's/^/# /'
fi
t_done
