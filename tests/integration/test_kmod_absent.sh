#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The kmod benchmarks (cstate_wake, wbinvd, gaps_irqoff, ipi_storm) on a
# machine without the idlelab modules: each run exits 3 and is stored as
# unsupported with a reason that says how to load the module; bad
# parameters are still refused first (exit 2, nothing stored); `list` and
# `info` report the modules as absent.  Where the devices do exist (a lab
# machine with the modules loaded), IDLELAB_SYSFS_ROOT points the lookup at
# an empty tree, which is what it is for.
. tests/lib.sh

DB=$T_TMP/k.db
q() { sqlite3 -batch -noheader "$DB" "$@"; }
if [ -e /dev/idlelab_cstate ] || [ -e /dev/idlelab_ipi ]; then
	mkdir -p "$T_TMP/root/dev"
	IDLELAB_SYSFS_ROOT=$T_TMP/root
	export IDLELAB_SYSFS_ROOT
	diag "modules loaded here: looking them up under an empty root"
fi

for b in cstate_wake wbinvd gaps_irqoff ipi_storm; do
	case $b in
	ipi_storm) ko=kmod/ipi/idlelab_ipi.ko dev=/dev/idlelab_ipi ;;
	*) ko=kmod/cstate/idlelab_cstate.ko dev=/dev/idlelab_cstate ;;
	esac
	expect_exit "bench $b without its module: exit 3" 3 \
		"$IDLELAB" bench "$b" --db "$DB"
	check "bench $b: the message says how to load the module" \
		grep -q "insmod $ko" "$T_TMP/err"
	check "bench $b: stored as unsupported with the load instructions" \
		[ "$(q "SELECT count(*) FROM runs WHERE bench='$b' AND status='unsupported' AND status_reason LIKE 'device $dev not found: load it with \`insmod $ko\`%make -C kmod%DKMS%'")" -eq 1 ]
	check "bench $b: no samples stored for it" \
		[ "$(q "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='$b'")" -eq 0 ]
done

# Bad input is still bad input: exit 2 and nothing written.
before=$(q "SELECT count(*) FROM runs")
expect_exit "cstate_wake: unknown method value exits 2" 2 \
	"$IDLELAB" bench cstate_wake --db "$DB" --param method=c6
expect_exit "wbinvd: unknown parameter exits 2" 2 \
	"$IDLELAB" bench wbinvd --db "$DB" --param footprint=1
check "wbinvd: the near miss is suggested" grep -q footprints "$T_TMP/err"
# The module's ABI-2 bounds, refused before any device is opened.
expect_exit "wbinvd blast: window_us not above width_us exits 2" 2 \
	"$IDLELAB" bench wbinvd --db "$DB" --cpus 0-1 --param mode=blast \
	--param width_us=1000 --param window_us=1000
check "wbinvd blast: the message asks for a duty cycle" \
	grep -q "window_us.*must be at least twice width_us" "$T_TMP/err"
# Issue 21: IRQs off at most half of each window, in both detectors.
expect_exit "wbinvd blast: width_us over half of window_us exits 2" 2 \
	"$IDLELAB" bench wbinvd --db "$DB" --cpus 0-1 --param mode=blast \
	--param width_us=1001 --param window_us=2001
expect_exit "gaps_irqoff: width_us over half of window_us exits 2" 2 \
	"$IDLELAB" bench gaps_irqoff --db "$DB" --param width_us=1500 \
	--param window_us=2000
check "gaps_irqoff: the message asks for a duty cycle" \
	grep -q "window_us.*must be at least twice width_us" "$T_TMP/err"
expect_exit "wbinvd blast: interval_us=0 exits 2" 2 \
	"$IDLELAB" bench wbinvd --db "$DB" --cpus 0-1 --param mode=blast \
	--param interval_us=0
# The per-repetition memset and write-back count: 20000 reps of 2 ms
# intervals are 45 s, but their 256 MiB each (about 513 ms) are hours.
expect_exit "wbinvd blast: the memset and write-back push it over the run limit: exit 2" 2 \
	"$IDLELAB" bench wbinvd --db "$DB" --cpus 0-1 --param mode=blast \
	--param reps=20000 --param interval_us=2000 \
	--param dirty_bytes=268435456
check "wbinvd blast: the message counts the dirty and write-back" \
	grep -q "dirty and write-back of dirty_bytes.*over the module's run limit" "$T_TMP/err"
expect_exit "wbinvd sweep: reps x footprints' write-back over the run limit: exit 2" 2 \
	"$IDLELAB" bench wbinvd --db "$DB" --cpus 0 --param reps=2000 \
	--param footprints=268435456
check "wbinvd sweep: the message names the run limit" \
	grep -q "mode=sweep.*over the module's run limit" "$T_TMP/err"
expect_exit "wbinvd blast: worst case over the module's run limit exits 2" 2 \
	"$IDLELAB" bench wbinvd --db "$DB" --cpus 0-1 --param mode=blast \
	--param reps=100000 --param interval_us=5400
check "wbinvd blast: the message names the run limit" \
	grep -q "over the module's run limit" "$T_TMP/err"
expect_exit "gaps_irqoff: threshold_ns below 100 exits 2" 2 \
	"$IDLELAB" bench gaps_irqoff --db "$DB" --param threshold_ns=99
printf 'name: x\ngroups:\n  - bench: wbinvd\n    cpus: "0-1"\n    params: {mode: blast, width_us: 3000, window_us: 2000}\n' \
	>"$T_TMP/blast.yaml"
expect_exit "campaign --dry-run: blast window_us below width_us exits 2" 2 \
	"$IDLELAB" run "$T_TMP/blast.yaml" --dry-run --db "$DB"
check "campaign --dry-run: FILE:LINE and the parameter named" \
	grep -q "blast.yaml:3: .*window_us" "$T_TMP/err"
# A storm's worst case, every round timing out, within the module's run
# limit (IDLELAB_MAX_RUN_US): refused before any module is needed.
expect_exit "ipi_storm: (4 x rounds + 1) x timeout_us over the run limit exits 2" 2 \
	"$IDLELAB" bench ipi_storm --db "$DB" --param rounds=100000 \
	--param timeout_us=1000000
check "ipi_storm: the message names the product and the limit" \
	grep -q "(4 x rounds + 1) x timeout_us = 400001000000 us is over the module's run limit of 600000000 us" "$T_TMP/err"
printf 'name: over-limit\ngroups:\n  - bench: ipi_storm\n    name: storm\n    cpus: all\n    params: {rounds: 150, timeout_us: 1000000}\n' \
	> "$T_TMP/over.yaml"
expect_exit "campaign --dry-run: a storm over the run limit exits 2" 2 \
	"$IDLELAB" run "$T_TMP/over.yaml" --dry-run --db "$DB"
check "campaign --dry-run: file:line and the limit in the message" \
	grep -q "over.yaml:3: group 'storm'.*601000000 us is over the module's run limit" "$T_TMP/err"
check "bad input stored nothing" [ "$(q "SELECT count(*) FROM runs")" -eq "$before" ]

"$IDLELAB" list --json >"$T_TMP/list.json"
check "list: the four kmod benchmarks, unsupported with a reason" \
	jq -e '[.[] | select(.name == "cstate_wake" or .name == "wbinvd" or .name == "gaps_irqoff" or .name == "ipi_storm") | select(.supported == false and (.unsupported_reason | test("insmod")))] | length == 4' "$T_TMP/list.json"
check "list: cstate_wake parameters follow the UAPI" \
	jq -e '[.[] | select(.name == "cstate_wake") | .params[].name] | (index("method") and index("wake_source") and index("irq_mode") and index("mwait_hint") and index("launch_min_ns") and index("launch_max_ns") and index("dirty_bytes"))' "$T_TMP/list.json"
"$IDLELAB" info --json >"$T_TMP/info.json"
check "info: both modules reported absent with the reason" \
	jq -e '.kmods.idlelab_cstate.present == false and .kmods.idlelab_ipi.present == false and (.kmods.idlelab_cstate.reason | test("insmod kmod/cstate/idlelab_cstate.ko")) and (.kmods.idlelab_ipi.reason | test("insmod kmod/ipi/idlelab_ipi.ko"))' "$T_TMP/info.json"
check "db check passes" "$IDLELAB" db check --db "$DB"
"$IDLELAB" report --db "$DB" >"$T_TMP/r.md" 2>"$T_TMP/err"
check "report lists the unsupported runs" grep -q "insmod kmod/cstate/idlelab_cstate.ko" "$T_TMP/r.md"
t_done
