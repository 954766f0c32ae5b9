#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The low-resolution guest (TAP): Debian's 6.1 booted with highres=off, 4
# vCPUs (run-qemu.sh's lowres profile), where hrtimers have the tick's
# resolution.  A timer wake there would be up to a tick late by design, so
# the cstate module must refuse it as unsupported with its reason
# (IDLELAB_UNSUP_LOWRES_TIMER), stored by idlelab as such, never as a
# latency; an IPI wake, which needs no hrtimer, still runs.  With
# IDLELAB_VM_RESULTS set it checks that directory; otherwise it boots the
# guest itself, or skips when the rig's packages are missing.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/vm/asserts.sh

if [ -z "${IDLELAB_VM_RESULTS:-}" ]; then
	vm_need_qemu "low-resolution guest run"
	IDLELAB_VM_PROFILE=lowres IDLELAB_VM_OUT=$T_TMP/lowres \
		sh tests/vm/run-qemu.sh --no-setup --no-test >"$T_TMP/run.log" 2>&1
	sed 's/^/# /' "$T_TMP/run.log" | tail -3
	IDLELAB_VM_RESULTS=$T_TMP/lowres
fi
D=$IDLELAB_VM_RESULTS
R=$D/results.jsonl
G=$D/guest.db
gq() { sqlite3 -batch -noheader "$G" "$@"; }

vm_assert_wrote "$D" "lowres: guest"
vm_assert_steps "$D" lowres
vm_assert_swevent_hold "$D" lowres
vm_assert_bad_input "$D" lowres
ns=$(va_jv "$(grep '"op":"hrtimer_resolution"' "$R")" ns)
check "lowres: the guest's hrtimers are at tick resolution (${ns:-no} ns)" \
	[ "${ns:-0}" -gt 1 ]
for m in idlelab_cstate idlelab_ipi; do
	l=$(grep "\"op\":\"insmod\",\"module\":\"$m\"" "$R")
	check "lowres: insmod $m" [ "$(va_jv "$l" rc)" = 0 ]
done
run() { gq "SELECT status || '|' || coalesce(status_reason, '') FROM runs WHERE bench='cstate_wake' AND coalesce(json_extract(params, '\$.wake_source'), 'timer')='$1'"; }
if [ ! -s "$G" ]; then
	not_ok "lowres: guest wrote its idlelab database"
else
	ok "lowres: guest wrote its idlelab database"
	t=$(run timer)
	check "lowres: cstate_wake timer wake stored unsupported, the tick resolution its reason ($t)" \
		sh -c "case '$t' in 'unsupported|'*'low-resolution'*) exit 0 ;; esac; exit 1"
	check "lowres: the refused run stored no wake latency" \
		[ "$(gq "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='cstate_wake' AND coalesce(json_extract(r.params, '\$.wake_source'), 'timer')='timer' AND s.metric='wake_latency' AND s.count > 0")" -eq 0 ]
	i=$(run ipi)
	check "lowres: cstate_wake IPI wake still runs (${i%%|*})" [ "${i%%|*}" = ok ]
	check "lowres: the IPI wake stored its latencies" \
		[ "$(gq "SELECT sum(s.count + s.early + s.dropped) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='cstate_wake' AND json_extract(r.params, '\$.wake_source')='ipi' AND s.metric='wake_latency'")" -gt 0 ]
	l=$(grep '"op":"idlelab_db_check"' "$R")
	check "lowres: guest idlelab db check passed" [ "$(va_jv "$l" rc)" = 0 ]
fi
splat=$(sed -n '/idlelab-rig: loading/,$p' "$D/dmesg.txt" 2>/dev/null |
	grep -E 'BUG:|WARNING:|Oops|Call Trace|soft lockup|general protection')
check "lowres: guest dmesg clean" sh -c "grep -q 'idlelab-rig: loading' '$D/dmesg.txt' && [ -z '$splat' ]"
t_done
