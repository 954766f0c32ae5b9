#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The x2APIC guests of the kmod rig (TAP): QEMU 10's TCG with interrupt
# remapping and -cpu max,+x2apic, 20 vCPUs, in the kernel's cluster and
# physical x2APIC modes (tests/vm/run-qemu.sh, IDLELAB_VM_PROFILE), on each
# kernel of IDLELAB_VM_KERNELS (default "6.1 6.12").  Timings mean nothing
# here; what is asserted is exact:
#   - the LDR each CPU reads is (id >> 4) << 16 | 1 << (id & 15) (SDM vol. 3
#     "Logical Destination Mode in x2APIC Mode"), in both kernel modes,
#     since the register is derived from the x2APIC ID by the hardware;
#   - physical storms issue one ICR write per target, logical ones one per
#     cluster among the targets' APIC IDs (cluster mode; under the kernel's
#     physical x2apic they are refused with that reason), broadcast one;
#   - every target acknowledges once per round, with no timeout;
#   - kernel mode records the kernel's APIC driver ("cluster x2apic" or
#     "physical x2apic");
#   - the real idlelab's storms exit 0 and its database passes db check.
# With IDLELAB_VM_RESULTS=DIR and IDLELAB_VM_PROFILE it only checks DIR.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/vm/asserts.sh

QEMU=${IDLELAB_QEMU:-qemu-system-x86_64}
miss=
command -v jq >/dev/null || miss="$miss jq"
command -v ${QEMU%% *} >/dev/null || miss="$miss qemu"
if [ -z "$miss" ]; then
	qv=$($QEMU --version | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p')
	[ "${qv:-0}" -ge 10 ] ||
		miss="$miss qemu>=10 (have ${qv:-?}; bookworm-backports)"
fi
if [ -n "$miss" ] && [ -z "${IDLELAB_VM_RESULTS:-}" ]; then
	skip "x2apic guests" "missing:$miss (run tests/vm/setup.sh)"
	t_done
	exit 0
fi

# check_seed001 DIR PROFILE LABEL: seed 001's storms in the guest, one per
# mode, and `idlelab report --kind ipi` on the guest's database giving
# physical and logical side by side (cluster mode; under physical routing
# logical is unsupported, with the reason, and has no column).
check_seed001() {
	D=$1 P=$2 L=$3
	st=$(sqlite3 "$D/guest.db" "SELECT json_extract(params, '\$.mode') ||
		'=' || status FROM runs WHERE bench = 'ipi_storm' AND
		campaign = 'seed001-ipi-modes' ORDER BY 1" | tr '\n' ' ')
	lw=ok
	[ "$P" = x2apic-phys ] && lw=unsupported
	check "$L: seed 001 storms: logical $lw, the others ok ($st)" \
		[ "$st" = "broadcast=ok kernel=ok logical=$lw physical=ok " ]
	"$IDLELAB" report --db "$D/guest.db" --kind ipi > "$D/report-ipi.md" \
		2>"$D/report-ipi.err"
	check "$L: idlelab report --kind ipi reads the guest database" [ $? -eq 0 ]
	sed 's/^/# /' "$D/report-ipi.md" | head -12
	# The modes table's header: one column per mode ("physical: ...").
	hdr=$(grep -m1 '^|.*| physical: ' "$D/report-ipi.md")
	if [ "$P" = x2apic-cluster ]; then
		# One row per target count; in each, a physical and a logical
		# figure (not "-" or empty), side by side in one table.
		rows=$(awk -F'|' -v h="$hdr" '
			BEGIN { n = split(h, c, "|"); for (i = 1; i <= n; i++) {
				gsub(/^ +| +$/, "", c[i])
				if (c[i] ~ /^physical/ && !p) p = i
				if (c[i] ~ /^logical/ && !l) l = i } }
			$0 == h { in_t = 1; next }
			!in_t || !p || !l { next }
			!/^\|/ { in_t = 0; next }
			/^\|[-:| ]*$/ { next }
			/^\|/ { x = $p; y = $l; gsub(/ /, "", x); gsub(/ /, "", y)
				if (x ~ /^[0-9.]+/ && y ~ /^[0-9.]+/) ok++ }
			END { print ok + 0 }' "$D/report-ipi.md")
		check "$L: report --kind ipi: physical and logical side by side ($rows rows with both)" \
			[ "$rows" -ge 1 ]
	fi
}

# check_run DIR PROFILE LABEL: every assertion on one guest's results.
check_run() {
	D=$1 P=$2 L=$3
	R=$D/results.jsonl
	if [ ! -s "$R" ]; then
		not_ok "$L: guest wrote results"
		tail -20 "$D/serial.log" 2>/dev/null | sed 's/^/# /'
		return
	fi
	ok "$L: guest wrote results"
	check "$L: guest ran to the end" grep -q '"op":"end"' "$R"
	vm_assert_steps "$D" "$L"
	vm_assert_swevent_hold "$D" "$L"
	vm_assert_kmod_origin "$D" "$L"
	vm_assert_bad_input "$D" "$L"
	for m in idlelab_cstate idlelab_ipi; do
		check "$L: insmod $m" sh -c "grep '\"op\":\"insmod\"' '$R' |
			jq -s -e 'map(select(.module == \"$m\")) |
				length == 1 and .[0].rc == 0' >/dev/null"
	done
	map=$(grep '"op":"apic_map"' "$R" | head -1)
	case $P in
	x2apic-cluster) drv="cluster x2apic" ;;
	*) drv="physical x2apic" ;;
	esac
	check "$L: APIC map read, x2APIC enabled" \
		sh -c "printf '%s' '$map' | jq -e '.rc == \"0\" and .x2apic == 1' >/dev/null"
	n=$(printf '%s' "$map" | jq '[.cpus[] | select(.online == 1)] | length')
	check "$L: 20 CPUs online ($n)" [ "$n" = 20 ]
	bad=$(printf '%s' "$map" | jq -c '[.cpus[] | select(.online == 1) |
		select(.ldr != (((.apic_id / 16 | floor) * 65536) +
		 pow(2; .apic_id % 16)))]')
	check "$L: each CPU's LDR is (id >> 4) << 16 | 1 << (id & 15) ($bad)" \
		[ "$bad" = "[]" ]
	diag "$L: LDR of CPU 15 $(printf '%s' "$map" | jq -r '.cpus[15].ldr | tostring') CPU 16 $(printf '%s' "$map" | jq -r '.cpus[16].ldr | tostring')"
	check "$L: APIC driver is '$drv'" \
		sh -c "printf '%s' '$map' | jq -e '.apic == \"$drv\"' >/dev/null"
	grep '"op":"ipi"' "$R" > "$D/ipi.jsonl"
	check "$L: 18 storms ran" [ "$(wc -l < "$D/ipi.jsonl")" -eq 18 ]
	while IFS= read -r l; do
		sname=$(printf '%s' "$l" | jq -r .name)
		# The writes the destination arithmetic must give: one per
		# target, one per cluster of the targets' APIC IDs, or one.
		want=$(printf '%s' "$map" | jq --argjson s "$l" '
			[.cpus[] | select(.cpu >= $s.first and .cpu <= $s.last)] as $t |
			if ($s.name | startswith("physical")) then ($t | length)
			elif ($s.name | startswith("logical")) then
				([$t[] | .apic_id / 16 | floor] | unique | length)
			elif $s.name == "broadcast" then 1
			else 0 end')
		got=$(printf '%s' "$l" | jq .icr_writes)
		case $P/$sname in
		x2apic-phys/logical_*)
			check "$L: $sname: refused, the kernel routes physically" \
				sh -c "printf '%s' '$l' | jq -e '.rc == \"0\" and .unsupported == 12 and .nr_done == 0' >/dev/null"
			continue ;;
		esac
		check "$L: $sname: $want ICR writes ($got)" [ "$got" = "$want" ]
		check "$L: $sname: one ack per target per round, no timeout" \
			sh -c "printf '%s' '$l' | jq -e '.rc == \"0\" and .nr_done == .rounds and .ok_rounds == .rounds and .timeouts == 0 and .bad_targets == 0' >/dev/null"
		if [ "$sname" = kernel ]; then
			check "$L: kernel mode records '$drv'" \
				sh -c "printf '%s' '$l' | jq -e '.apic == \"$drv\"' >/dev/null"
		fi
	done < "$D/ipi.jsonl"
	# Exit 3 is "unsupported here": logical under physical routing.
	ok3='"name":"ipi_logical","rc":3}'
	[ "$P" = x2apic-phys ] || ok3=NOTHING
	bad=$(grep '"op":"idlelab"' "$R" | grep -v '"rc":0}' | grep -vF "$ok3")
	check "$L: every idlelab ipi_storm exited 0 (3 for logical under physical routing)" [ -z "$bad" ]
	check "$L: 4 idlelab ipi_storm runs" \
		[ "$(grep -c '"op":"idlelab"' "$R")" -eq 4 ]
	check "$L: guest idlelab db check passed" \
		sh -c "grep '\"op\":\"idlelab_db_check\"' '$R' | jq -e '.rc == 0' >/dev/null"
	if [ -s "$D/guest.db" ]; then
		w=$(sqlite3 "$D/guest.db" "SELECT json_extract(params, '\$.mode') ||
			'=' || status FROM runs WHERE bench = 'ipi_storm'
			AND campaign IS NULL ORDER BY 1" | tr '\n' ' ')
		lw=ok
		[ "$P" = x2apic-phys ] && lw=unsupported
		check "$L: guest.db holds the four storms, logical $lw ($w)" \
			[ "$w" = "broadcast=ok kernel=ok logical=$lw physical=ok " ]
		vm_assert_seeds "$D" "$L" seed001-ipi-modes
		check_seed001 "$D" "$P" "$L"
	else
		not_ok "$L: guest.db came back"
	fi
	splat=$(sed -n '/idlelab-rig: loading/,$p' "$D/dmesg.txt" 2>/dev/null |
		grep -E 'BUG:|WARNING:|Oops|Call Trace|soft lockup|hard LOCKUP|general protection|NMI received for unknown reason')
	check "$L: guest dmesg clean" sh -c "grep -q 'idlelab-rig: loading' '$D/dmesg.txt' && [ -z '$splat' ]"
}

if [ -n "${IDLELAB_VM_RESULTS:-}" ]; then
	check_run "$IDLELAB_VM_RESULTS" "${IDLELAB_VM_PROFILE:-x2apic-cluster}" \
		"${IDLELAB_VM_PROFILE:-x2apic-cluster}"
	t_done
	exit
fi
for k in ${IDLELAB_VM_KERNELS:-6.1 6.12}; do
	for p in x2apic-cluster x2apic-phys; do
		o=$T_TMP/$k-$p
		IDLELAB_VM_KERNEL=$k IDLELAB_VM_PROFILE=$p IDLELAB_VM_OUT=$o \
			sh tests/vm/run-qemu.sh --no-setup --no-test \
			>"$T_TMP/run.log" 2>&1
		sed 's/^/# /' "$T_TMP/run.log" | tail -3
		check_run "$o" "$p" "$k $p"
	done
done
t_done
