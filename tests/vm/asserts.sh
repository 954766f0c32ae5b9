# SPDX-License-Identifier: GPL-2.0-only
# Assertions every guest of the rig shares (source after tests/lib.sh):
# test_qemu.sh, test_x2apic.sh and test_bochs.sh call them on a results
# directory D (results.jsonl, serial.log, rig-profile, kmod-origin), each
# case's name starting with the label L.

# va_jv LINE KEY: the value of KEY in one flat JSON line (strings unquoted).
va_jv() {
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}

# vm_qemu_missing: what a QEMU guest needs that is not installed (the
# packages of tests/vm/setup.sh), as " qemu busybox-static ..."; empty
# when nothing is missing.
vm_qemu_missing() {
	m=
	command -v qemu-system-x86_64 >/dev/null || m="$m qemu"
	[ -x /bin/busybox ] || m="$m busybox-static"
	ls /lib/modules/*/build >/dev/null 2>&1 || m="$m headers"
	ls /boot/vmlinuz-* >/dev/null 2>&1 || m="$m kernel"
	printf '%s' "$m"
}

# vm_need_qemu NAME: skip the test NAME, saying what is missing, and end
# the script (exit 0) when a QEMU guest cannot run here.
vm_need_qemu() {
	miss=$(vm_qemu_missing)
	[ -z "$miss" ] && return 0
	skip "$1" "missing:$miss (run tests/vm/setup.sh)"
	t_done
	exit 0
}

# vm_assert_wrote D L: the guest wrote its results.jsonl and reached its
# end; without results the serial log's tail is shown and the script ends
# (exit 1), since nothing else can be checked.
vm_assert_wrote() {
	if [ ! -s "$1/results.jsonl" ]; then
		not_ok "$2 wrote results"
		tail -20 "$1/serial.log" 2>/dev/null | sed 's/^/# /'
		t_done
		exit 1
	fi
	ok "$2 wrote results"
	check "$2 ran to the end" grep -q '"op":"end"' "$1/results.jsonl"
}

# vm_panic D: what serial.log says of a kernel panic or oops, on one line,
# or nothing.  QEMU runs with panic=-1 -no-reboot, so a panic ends it at
# once and no hang dump is ever written: serial.log is all there is.  An
# "Oops: int3" is named for what it has always been here: a vCPU that ran
# the int3 of a live text patch after the patch had ended, QEMU TCG's
# text-patching hazard (tests/vm/README.md, "Live text patching").
vm_panic() {
	tr -d '\r' < "$1/serial.log" 2>/dev/null | awk '
	/Oops: |Kernel panic - not syncing|BUG: kernel NULL/ && !what {
		what = $0; sub(/^\[[ 0-9.]*\] */, "", what)
	}
	what && /RIP: [0-9a-f]*:/ && !rip {
		rip = $0; sub(/.*RIP: [0-9a-f]*:/, "", rip); sub(/ .*/, "", rip)
	}
	END {
		if (!what) exit
		sym = rip; sub(/\+.*/, "", sym)
		if (what ~ /Oops: int3/)
			printf "Oops: int3 at %s: QEMU TCG ran the int3 of a live text patch of %s after the patch ended (the rig'"'"'s text-patching hazard, tests/vm/README.md)\n", rip, sym
		else
			printf "%s%s\n", what, rip ? " at " rip : ""
	}'
}

# vm_assert_steps D L: every step of guest-init.sh ran to its end within its
# own limit, and the kernel did not panic.  A step that timed out, or one
# the guest started and never ended (the host's limit killed the
# emulator, or a panic ended it), is named.
vm_assert_steps() {
	D=$1 L=$2
	R=$D/results.jsonl
	why=$(vm_panic "$D")
	check "$L: the guest kernel did not panic or oops${why:+: $why}" [ -z "$why" ]
	n=$(grep -c '"op":"step"' "$R" 2>/dev/null)
	to=$(grep '"op":"step"' "$R" 2>/dev/null | grep '"timeout":1' |
		sed -n 's/.*"name":"\([^"]*\)".*"limit":\([0-9]*\).*/\1 (limit \2 s)/p' |
		paste -sd, -)
	check "$L: no guest step timed out${to:+: $to; task dump (sysrq t, l) in serial.log}" \
		[ -z "$to" ]
	# The serial log's step lines: the last one started and not ended.
	last=$(tr -d '\r' < "$D/serial.log" 2>/dev/null |
		sed -n 's/^IDLELAB-STEP .* \(start\|end\) \([^ ]*\).*/\1 \2/p' | tail -1)
	case $last in
	start\ *)
		not_ok "$L: the guest stopped inside step '${last#start }' (see serial.log; hang-dump.txt: each vCPU as QEMU saw it)" ;;
	*)
		check "$L: every started step ended ($n steps)" \
			[ "${n:-0}" -gt 0 -a -n "$last" ] ;;
	esac
	skipped=$(grep '"op":"step"' "$R" 2>/dev/null | grep -c '"skipped":1')
	check "$L: no step skipped after a timeout ($skipped)" [ "$skipped" = 0 ]
	diag "$L: steps (name s): $(grep '"op":"step"' "$R" 2>/dev/null |
		sed -n 's/.*"name":"\([^"]*\)".*"s":\([0-9.]*\).*/\1 \2/p' |
		paste -sd, -)"
}

# vm_assert_swevent_hold D L: the software counters that keep the kernel's
# static keys still (tests/vm/swevent-hold.c) were open before idlelab ran.
vm_assert_swevent_hold() {
	D=$1 L=$2
	l=$(grep '"op":"swevent_hold"' "$D/results.jsonl" 2>/dev/null | head -1)
	check "$L: swevent-hold holds its 3 software counters${l:+: $l}" \
		[ "$(va_jv "$l" held)" = 3 ]
}

# vm_assert_bad_input D L: the bad-input suite of kmod-client (its "bad"
# mode, a step of its own in every profile) ran whole: every malformed
# request got its errno, over 1000 of them, EBUSY probes against a busy
# device, SIGKILL ending a run promptly, root-only open.
vm_assert_bad_input() {
	D=$1 L=$2
	R=$D/results.jsonl
	l=$(grep '"op":"client_exit","mode":"bad"' "$R" 2>/dev/null)
	check "$L: bad-input suite ran and exited 0" [ "$(va_jv "$l" rc)" = 0 ]
	total=0
	names=
	grep '"op":"bad"' "$R" > "$D/bad.jsonl" 2>/dev/null
	while IFS= read -r l; do
		n=$(va_jv "$l" name)
		if [ -n "$(va_jv "$l" skip)" ]; then
			skip "$L: bad input $n" "$(va_jv "$l" skip)"
			continue
		fi
		names="$names $n"
		total=$((total + $(va_jv "$l" total)))
		check "$L: bad input $n: $(va_jv "$l" ok)/$(va_jv "$l" total) gave $(va_jv "$l" want)" \
			[ "$(va_jv "$l" ok)" = "$(va_jv "$l" total)" ]
	done < "$D/bad.jsonl"
	for n in cstate_invalid_field random_header gaps_wbinvd_ipi_invalid \
		 unknown_command nonroot_open limits_invalid; do
		case " $names " in
		*" $n "*) ;;
		*) not_ok "$L: bad input $n ran" ;;
		esac
	done
	check "$L: bad-input suite: $total requests (>= 1000)" [ "$total" -ge 1000 ]
	for d in cstate ipi; do
		l=$(grep "\"op\":\"busy_holder\",\"dev\":\"$d\"" "$R")
		check "$L: the run holding $d during the EBUSY probes succeeded" \
			[ "$(va_jv "$l" rc)" = 0 ]
	done
	l=$(grep '"op":"fatal_signal"' "$R" | head -1)
	fast=$(awk -v s="$(va_jv "$l" exit_s)" 'BEGIN { print (s != "" && s < 5) }')
	check "$L: SIGKILL aborts a run promptly, device usable after" \
		[ "$(va_jv "$l" killed)" = 1 -a "$(va_jv "$l" next_run)" = 0 -a "$fast" = 1 ]
}

# vm_assert_kmod_origin D L: the guest loaded the very modules the rig
# built (DKMS's when rig-profile says kmod=dkms): their sha256 as the
# guest read them equals the one recorded at build time.
vm_assert_kmod_origin() {
	D=$1 L=$2
	origin=$(head -1 "$D/kmod-origin" 2>/dev/null)
	[ "$origin" = dkms ] || return 0
	for m in idlelab_cstate idlelab_ipi; do
		want=$(sed -n "s/^$m //p" "$D/kmod-origin")
		got=$(va_jv "$(grep "\"op\":\"insmod\",\"module\":\"$m\"" "$D/results.jsonl")" sha256)
		check "$L: the guest loaded the DKMS-built $m (sha256 ${want%${want#????????}}...)" \
			[ -n "$want" -a "$got" = "$want" ]
	done
}

# vm_assert_seeds D L SEED...: each seed campaign ran end to end in the
# guest (exit 0, its database rows there), every run ok or unsupported with
# a reason, and the controls no emulator has recorded per run.
vm_assert_seeds() {
	D=$1 L=$2
	shift 2
	G=$D/guest.db
	for s in "$@"; do
		l=$(grep "\"op\":\"seed\",\"name\":\"$s\"" "$D/results.jsonl")
		check "$L: $s ran end to end in the guest (exit $(va_jv "$l" rc))" \
			[ "$(va_jv "$l" rc)" = 0 ]
		q() { sqlite3 -batch -noheader "$G" "$1" 2>/dev/null; }
		n=$(q "SELECT count(*) FROM runs WHERE campaign='$s'")
		bad=$(q "SELECT bench || '=' || status FROM runs WHERE campaign='$s' AND NOT (status='ok' OR (status='unsupported' AND length(status_reason) > 0))" | paste -sd, -)
		check "$L: $s: all $n runs ok or unsupported with a reason${bad:+ ($bad)}" \
			[ "${n:-0}" -gt 0 -a -z "$bad" ]
		q "SELECT DISTINCT bench || ': ' || status_reason FROM runs WHERE campaign='$s' AND status='unsupported'" |
			sed "s/^/# $L: $s unsupported: /"
		m=$(q "SELECT count(*) FROM runs r WHERE campaign='$s' AND status='ok' AND NOT EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_uuid=r.uuid AND a.key='envctl.not_applied' AND length(a.value) > 0)")
		check "$L: $s: each measured run records the controls not applied here" \
			[ "$m" = 0 ]
	done
}
