#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Xen PV dom0 guest (TAP): Xen 4.17 (Debian's, unpacked by
# tests/vm/setup.sh --xen, never installed) booted under QEMU TCG as a
# multiboot kernel, with Debian's 6.1 as its PV dom0 and the rig's
# initramfs (run-qemu.sh's xen profile, guest-init.sh's xen_steps).  In a
# PV guest HLT and MWAIT are privileged and Xen emulates WBINVD and the
# APIC, so the modules must refuse every raw HLT, MWAIT, WBINVD and ICR
# request with its reason, stored by idlelab as unsupported, never as a
# latency; gaps_irqoff runs, tagged as event-channel masking; the
# user-space benchmarks run and the database names Xen and its version;
# the bad-input suite passes; Xen's own idle states are read with xenpm
# before and after.  With IDLELAB_VM_RESULTS set it checks that directory;
# otherwise it boots the guest itself, or skips saying what is missing.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/vm/asserts.sh

XENDIR=${IDLELAB_XEN_DIR:-build-vm/xen}
if [ -z "${IDLELAB_VM_RESULTS:-}" ]; then
	vm_need_qemu "Xen PV dom0 guest run"
	if [ ! -s "$XENDIR/xen" ]; then
		skip "Xen PV dom0 guest run" \
			"no $XENDIR/xen: run sh tests/vm/setup.sh --xen (downloads and unpacks Xen 4.17, installs nothing)"
		t_done
		exit 0
	fi
	t0=$(date +%s)
	# Each idlelab step takes 10-20 s of TCG time under Xen: a longer
	# limit than the other guests' 600 s.
	IDLELAB_VM_PROFILE=xen IDLELAB_VM_OUT=$T_TMP/xen \
		IDLELAB_VM_TIMEOUT=${IDLELAB_VM_TIMEOUT:-900} \
		sh tests/vm/run-qemu.sh --no-setup --no-test >"$T_TMP/run.log" 2>&1
	diag "Xen guest: $(($(date +%s) - t0)) s from build to power-off"
	sed 's/^/# /' "$T_TMP/run.log" | tail -3
	IDLELAB_VM_RESULTS=$T_TMP/xen
fi
D=$IDLELAB_VM_RESULTS
R=$D/results.jsonl
G=$D/guest.db
gq() { sqlite3 -batch -noheader "$G" "$@"; }
# like STRING PATTERN: STRING matches the shell PATTERN (the stored
# reasons hold quotes, so no sh -c around them).
like() { case $1 in $2) return 0 ;; esac; return 1; }

vm_assert_wrote "$D" "xen: guest"
check "xen: dom0 is a Xen PV guest ($(tr '\n' ' ' < "$D/hypervisor.txt" 2>/dev/null))" \
	grep -qx '/sys/hypervisor/guest_type:PV' "$D/hypervisor.txt"
vm_assert_steps "$D" xen
vm_assert_swevent_hold "$D" xen
vm_assert_bad_input "$D" xen
for m in idlelab_cstate idlelab_ipi; do
	l=$(grep "\"op\":\"insmod\",\"module\":\"$m\"" "$R")
	check "xen: insmod $m" [ "$(va_jv "$l" rc)" = 0 ]
done

# run NAME: "status|reason" of the run the guest's step NAME stored; the
# steps' params tell them apart.
run() {
	m="coalesce(json_extract(params,'\$.method'),'hlt')"
	ws="coalesce(json_extract(params,'\$.wake_source'),'timer')"
	wb="coalesce(json_extract(params,'\$.wbinvd'),0) IN (1,'1')"
	mo="coalesce(json_extract(params,'\$.mode'),'sweep')"
	case $1 in
	hlt_timer) w="bench='cstate_wake' AND $m='hlt' AND $ws='timer' AND NOT $wb" ;;
	mwait_timer) w="bench='cstate_wake' AND $m='mwait'" ;;
	hlt_ipi) w="bench='cstate_wake' AND $m='hlt' AND $ws='ipi'" ;;
	poll_wbinvd) w="bench='cstate_wake' AND $m='poll' AND $wb" ;;
	poll_timer) w="bench='cstate_wake' AND $m='poll' AND NOT $wb" ;;
	wbinvd_sweep) w="bench='wbinvd' AND $mo='sweep'" ;;
	wbinvd_blast) w="bench='wbinvd' AND $mo='blast'" ;;
	ipi_*) w="bench='ipi_storm' AND $mo='${1#ipi_}'" ;;
	*) w="bench='$1'" ;;
	esac
	gq "SELECT status || '|' || coalesce(status_reason, '') FROM runs WHERE $w"
}
if [ ! -s "$G" ]; then
	not_ok "xen: guest wrote its idlelab database"
	t_done
	exit 0
fi
ok "xen: guest wrote its idlelab database"
# Each raw request: unsupported, with the module's reason.
for n in hlt_timer mwait_timer hlt_ipi poll_wbinvd wbinvd_sweep wbinvd_blast; do
	t=$(run $n)
	check "xen: $n stored unsupported, Xen PV its reason ($t)" \
		like "$t" 'unsupported|*Xen PV guest*'
done
for m in physical logical broadcast; do
	t=$(run ipi_$m)
	check "xen: raw ICR storm $m stored unsupported, icr_write not native its reason ($t)" \
		like "$t" 'unsupported|*icr_write*'
done
check "xen: no refused run stored a wake latency" \
	[ "$(gq "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.status='unsupported' AND s.count > 0")" -eq 0 ]
# What still runs: a polled wake, a kernel-mode storm, gaps (tagged).
for n in poll_timer ipi_kernel gaps_irqoff timer_wake futex_wake tsc_gaps; do
	t=$(run $n)
	check "xen: $n ran (${t%%|*})" [ "${t%%|*}" = ok ]
done
scope=$(gq "SELECT a.value FROM run_attrs a JOIN runs r ON r.uuid=a.run_uuid WHERE r.bench='gaps_irqoff' AND a.key='irqs_off_scope'")
check "xen: gaps_irqoff tagged as event-channel masking ($scope)" \
	like "$scope" 'event-channel masking*'
# The fingerprint every run stores names Xen and its version.
hv=$(gq "SELECT DISTINCT json_extract(h.fingerprint,'\$.hypervisor.type') || ' ' || json_extract(h.fingerprint,'\$.hypervisor.version') || ' ' || json_extract(h.fingerprint,'\$.hypervisor.guest_type') FROM runs r JOIN machines h ON h.uuid=r.machine_uuid WHERE r.bench IN ('timer_wake','futex_wake','tsc_gaps')")
check "xen: the user-space runs store hypervisor xen with its version ($hv)" \
	like "$hv" 'xen 4.17.* PV'
l=$(grep '"op":"idlelab_db_check"' "$R")
check "xen: guest idlelab db check passed" [ "$(va_jv "$l" rc)" = 0 ]
# Xen's own idle states, read in dom0 with xenpm around the runs.
for w in before after; do
	l=$(grep "\"op\":\"xenpm\",\"when\":\"$w\"" "$R")
	check "xen: xenpm get-cpuidle-states $w the runs (rc $(va_jv "$l" rc))" \
		sh -c "[ '$(va_jv "$l" rc)' = 0 ] && grep -q 'total C-states' '$D/xenpm-$w.txt'"
done
diag "Xen's idle states after the runs (xenpm, CPU 0):"
sed -n '/^cpu id *: 0$/,/^$/p' "$D/xenpm-after.txt" 2>/dev/null | sed 's/^/#   /'
splat=$(sed -n '/idlelab-rig: loading/,$p' "$D/dmesg.txt" 2>/dev/null |
	grep -E 'BUG:|WARNING:|Oops|Call Trace|soft lockup|general protection')
check "xen: guest dmesg clean" sh -c "grep -q 'idlelab-rig: loading' '$D/dmesg.txt' && [ -z '$splat' ]"
t_done
