#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Host-side assertions on a QEMU guest run of the kmod rig (TAP).  With
# IDLELAB_VM_RESULTS set it checks that directory (run-qemu.sh does this);
# otherwise it boots the guest itself through run-qemu.sh --no-setup, or
# skips when the packages of tests/vm/setup.sh are missing.  It installs
# nothing.  QEMU's timings are meaningless: only function, counts and
# ordering are asserted.  tests/run.sh runs it when IDLELAB_VMTEST=1.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

if [ -z "${IDLELAB_VM_RESULTS:-}" ]; then
	miss=
	command -v qemu-system-x86_64 >/dev/null || miss="$miss qemu"
	[ -x /bin/busybox ] || miss="$miss busybox-static"
	ls /lib/modules/*/build >/dev/null 2>&1 || miss="$miss headers"
	ls /boot/vmlinuz-* >/dev/null 2>&1 || miss="$miss kernel"
	if [ -n "$miss" ]; then
		skip "qemu guest run" "missing:$miss (run tests/vm/setup.sh)"
		t_done
		exit 0
	fi
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

if [ ! -s "$R" ]; then
	not_ok "guest wrote results"
	tail -20 "$D/serial.log" 2>/dev/null | sed 's/^/# /'
	t_done
	exit 1
fi
ok "guest wrote results"
check "guest ran to the end" grep -q '"op":"end"' "$R"
for m in idlelab_cstate idlelab_ipi; do
	l=$(grep "\"op\":\"insmod\",\"module\":\"$m\"" "$R")
	check "insmod $m" [ "$(jv "$l" rc)" = 0 ]
done
l=$(line open)
check "both devices open" [ "$(jv "$l" cstate)" = 0 -a "$(jv "$l" ipi)" = 0 ]
for d in cstate ipi; do
	l=$(grep "\"op\":\"info\",\"dev\":\"$d\"" "$R")
	check "GET_INFO $d (ABI 1)" [ "$(jv "$l" rc)" = 0 -a "$(jv "$l" abi)" = 1 ]
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
	if [ "$(jv "$l" entry_ge_exit)" = 0 ] && [ "$(jv "$l" poison)" = 0 ]; then
		ok "cstate $n: every t_entry < t_exit"
	else
		not_ok "cstate $n: t_entry >= t_exit in $(jv "$l" entry_ge_exit)"
	fi
	diag "$n: early $(jv "$l" early_wake) other-irq $(jv "$l" other_irq) no-intr $(jv "$l" no_intr), counted apart"
done < "$T_TMP/cstate"
check "cstate: at least 7 request kinds ran" \
	[ "$(grep -c '"op":"cstate"' "$R")" -ge 7 ]
l=$(line cstate mwait_c1_hrtimer_late)
diag "mwait late: unsupported=$(jv "$l" unsupported) (3 = MWAIT ECX fault)"

l=$(line gaps)
check "gap detector produced records" [ "$(jv "$l" rc)" = 0 -a \
	"$(jv "$l" nr_done)" -gt 0 -a "$(jv "$l" bad_records)" = 0 -a \
	"$(jv "$l" loop_period)" -gt 0 ]
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
check "WBINVD blast radius: 5 events and victim gaps" [ "$(jv "$l" rc)" = 0 \
	-a "$(jv "$l" events)" = 5 -a "$(jv "$l" gaps)" -gt 0 -a \
	"$(jv "$l" bad_records)" = 0 ]

for m in physical logical broadcast kernel; do
	l=$(line ipi "$m")
	r=$(jv "$l" rounds)
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
check "ipi logical: xAPIC flat, one ICR write" \
	[ "$(jv "$l" dest_model)" = 1 -a "$(jv "$l" icr_writes)" = 1 ]
l=$(line ipi broadcast)
check "ipi broadcast: one shorthand write" [ "$(jv "$l" icr_writes)" = 1 ]

total=0
grep '"op":"bad"' "$R" > "$T_TMP/bad"
while IFS= read -r l; do
	n=$(jv "$l" name)
	if [ -n "$(jv "$l" skip)" ]; then
		skip "bad input $n" "$(jv "$l" skip)"
		continue
	fi
	total=$((total + $(jv "$l" total)))
	check "bad input $n: $(jv "$l" ok)/$(jv "$l" total) gave $(jv "$l" want)" \
		[ "$(jv "$l" ok)" = "$(jv "$l" total)" ]
done < "$T_TMP/bad"
check "bad-input suite: $total requests (>= 1000)" [ "$total" -ge 1000 ]
for d in cstate ipi; do
	l=$(grep "\"op\":\"busy_holder\",\"dev\":\"$d\"" "$R")
	check "the run holding $d during the EBUSY probes succeeded" \
		[ "$(jv "$l" rc)" = 0 ]
done
l=$(line fatal_signal)
fast=$(awk -v s="$(jv "$l" exit_s)" 'BEGIN { print (s != "" && s < 5) }')
check "SIGKILL aborts a run promptly, device usable after" \
	[ "$(jv "$l" killed)" = 1 -a "$(jv "$l" next_run)" = 0 -a "$fast" = 1 ]
diag "SIGKILL exit took $(jv "$l" exit_s) s"
l=$(line client_exit)
check "client exited 0" [ "$(jv "$l" rc)" = 0 ]
for m in idlelab_cstate idlelab_ipi; do
	l=$(grep "\"op\":\"rmmod\",\"module\":\"$m\"" "$R")
	check "$m: unload refused while open" [ "$(jv "$l" rc_open)" != 0 ]
	check "$m: unloads cleanly once closed" \
		[ "$(jv "$l" rc_closed)" = 0 -a "$(jv "$l" still_loaded)" = 0 ]
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
   [ -z "$(splats "$D/dmesg.txt")" ] &&
   [ -z "$(splats "$D/serial.log" 2>/dev/null)" ]; then
	ok "guest dmesg clean"
else
	not_ok "guest dmesg clean"
	splats "$D/dmesg.txt" | head -5 | sed 's/^/# /'
fi
t_done
