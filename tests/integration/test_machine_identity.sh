#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 20, defect 8: machine identity.
#   - a fresh IDLELAB_STATE_DIR on this installation is the same host
#     (the identity comes from /etc/machine-id), and the machine ID itself
#     is not what is stored;
#   - two machines with one hostname, merged, are told apart in the
#     report's rows (hostname/short id), and host= accepts either name.
. tests/lib.sh

q() { sqlite3 -batch -noheader "$1" "$2"; }
I=$IDLELAB
if [ -s /etc/machine-id ]; then
	for d in s1 s2; do
		IDLELAB_STATE_DIR=$T_TMP/$d "$I" bench tsc_gaps --cpus 0 \
			--param duration_ms=20 --db "$T_TMP/same.db" >/dev/null 2>"$T_TMP/err-$d"
	done
	check "two fresh state directories: one machine row" \
		[ "$(q "$T_TMP/same.db" "SELECT count(*) FROM machines")" = 1 ]
	check "both runs under it" \
		[ "$(q "$T_TMP/same.db" "SELECT count(DISTINCT machine_uuid) || ' ' || count(*) FROM runs")" = "1 2" ]
	check "each state directory keeps that identity" cmp "$T_TMP/s1/host-uuid" "$T_TMP/s2/host-uuid"
	check "it is not the machine ID itself" \
		sh -c '! grep -qi "$(cat /etc/machine-id)" "$1"' sh "$T_TMP/same.db"
	check "no notice: the identity is not random" [ ! -s "$T_TMP/err-s1" ]
else
	skip "a fresh state directory is the same host" "no /etc/machine-id on this machine"
fi

# Two machines, one hostname: separate state directories with identities
# of their own stand for two cloned VMs.
for h in a b; do
	t_new_host "$T_TMP/state-$h"
	IDLELAB_STATE_DIR=$T_TMP/state-$h "$I" bench tsc_gaps --cpus 0 \
		--param duration_ms=20 --db "$T_TMP/$h.db" >/dev/null 2>&1
done
"$I" merge "$T_TMP/fleet.db" "$T_TMP/a.db" "$T_TMP/b.db" >/dev/null 2>&1
host=$(q "$T_TMP/fleet.db" "SELECT DISTINCT hostname FROM machines")
ida=$(cut -c1-8 "$T_TMP/state-a/host-uuid")
idb=$(cut -c1-8 "$T_TMP/state-b/host-uuid")
check "the fleet holds two machines with one hostname" \
	[ "$(q "$T_TMP/fleet.db" "SELECT count(*) || ' ' || count(DISTINCT hostname) FROM machines")" = "2 1" ]
"$I" report --db "$T_TMP/fleet.db" >"$T_TMP/rep" 2>&1
check "report: machine a's rows are labelled $host/$ida" grep -q "^| $host/$ida | tsc_gaps" "$T_TMP/rep"
check "report: machine b's rows are labelled $host/$idb" grep -q "^| $host/$idb | tsc_gaps" "$T_TMP/rep"
check "report: no row shows the bare hostname" sh -c "! grep -q '^| $host | ' '$T_TMP/rep'"
"$I" report --db "$T_TMP/fleet.db" --format csv >"$T_TMP/rep.csv" 2>&1
check "csv: the labels too" sh -c "grep -q '$host/$ida' '$T_TMP/rep.csv' && grep -q '$host/$idb' '$T_TMP/rep.csv'"
"$I" report --db "$T_TMP/fleet.db" --compare "host=$host/$ida" \
	--compare "host=$host/$idb" >"$T_TMP/cmp" 2>"$T_TMP/cmp.err"
check "--compare host=LABEL selects one machine per side" \
	grep -q "^| tsc_gaps | gap | - | 0 | median | ns | 1 | " "$T_TMP/cmp"
"$I" report --db "$T_TMP/fleet.db" --compare "host=$host" \
	--compare "host=$host/$idb" >/dev/null 2>"$T_TMP/cmp.err"
check "host=HOSTNAME still selects both (so the sides overlap: refused)" \
	grep -q "both select run" "$T_TMP/cmp.err"
# One machine per hostname: the plain hostname, as before.
"$I" report --db "$T_TMP/a.db" >"$T_TMP/rep1" 2>&1
check "a unique hostname is shown as it is" grep -q "^| $host | tsc_gaps" "$T_TMP/rep1"
t_done
