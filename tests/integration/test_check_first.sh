#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every benchmark's check op runs before anything is stored, in `bench`,
# `run` and `run --dry-run` alike, against this machine's topology
# (issue 20, defect 6), and `bench --dry-run` (issue 20, machine-readable
# output) stops right after them: a target count the placement cannot hold is a
# usage error (exit 2) with the check's own message, and no run, failed or
# otherwise, reaches the database.  The spinning-target benchmarks once
# checked their targets in setup() only, so `bench membarrier_ipi -p
# targets=5` on two CPUs stored a failed run whose reason was whatever
# the teardown path said last, and --dry-run accepted the campaign.
. tests/lib.sh

if [ "$(nproc)" -lt 2 ]; then
	skip "check ops before the store" "needs two CPUs"
	t_done
	exit
fi

DB=$T_TMP/c.db
runs() { sqlite3 "$DB" "SELECT count(*) FROM runs" 2>/dev/null || echo 0; }

# refused NAME CMD...: exit 2, the check's message, nothing stored.
refused() {
	what=$1; shift
	expect_exit "$what: exit 2" 2 "$@"
	check "$what: the check's message" grep -q "targets need" "$T_TMP/err"
	check "$what: no run stored" [ "$(runs)" -eq 0 ]
}

for b in membarrier_ipi tlb_shootdown; do
	refused "bench $b targets=5 on 0-1" \
		"$IDLELAB" bench "$b" --cpus 0-1 -p targets=5 -p samples=50 --db "$DB"
	n=$(nproc)
	refused "bench $b targets=$n on all" \
		"$IDLELAB" bench "$b" -p "targets=0,$n" -p samples=50 --db "$DB"
done

# bench --dry-run: the same checks, then what would run, and no database.
DRY=$T_TMP/dry.db
expect_exit "bench --dry-run targets=5 on 0-1: exit 2" 2 \
	"$IDLELAB" bench membarrier_ipi --cpus 0-1 -p targets=5 --dry-run --db "$DRY"
check "bench --dry-run: the check's message" grep -q "targets need" "$T_TMP/err"
"$IDLELAB" bench timer_wake --cpus 0 -p samples=10 --dry-run --db "$DRY" \
	>"$T_TMP/dry" 2>"$T_TMP/err"
check "bench --dry-run: exit 0" [ $? -eq 0 ]
check "bench --dry-run: names the benchmark and placement" \
	grep -q '^bench timer_wake: cpus 0 (1 measured)$' "$T_TMP/dry"
check "bench --dry-run: the parameters as stored, defaults included" \
	sh -c "grep '^params: {.*\"samples\":10[,}]' '$T_TMP/dry' | grep -q '\"interval_us\":1000[,}]'"
check "bench --dry-run: says whether it can run here" \
	grep -q '^supported here$\|^unsupported here: ' "$T_TMP/dry"
check "bench --dry-run: no database created" [ ! -e "$DRY" ]
expect_exit "bench --dry-run --json: exit 2" 2 \
	"$IDLELAB" bench timer_wake --dry-run --json --db "$DRY"

# The kmod benchmarks: a CPU count checked on any placement, pairs too,
# before the missing module could turn the run into a stored unsupported.
expect_exit "ipi_storm targets=2 on pairs:0-1: exit 2" 2 \
	"$IDLELAB" bench ipi_storm --cpus pairs:0-1 -p targets=2 --db "$DB"
check "ipi_storm: the check's message" grep -q "placed CPUs after the sender" "$T_TMP/err"
check "ipi_storm: no run stored" [ "$(runs)" -eq 0 ]

cat >"$T_TMP/c.yaml" <<'EOF'
name: check-first
groups:
  - bench: membarrier_ipi
    cpus: "0-1"
    params: {samples: 50, targets: [0, 5]}
EOF
refused "run --dry-run targets [0, 5]" "$IDLELAB" run "$T_TMP/c.yaml" --dry-run --db "$DB"
check "run --dry-run names the file and line" grep -q "c.yaml:3:" "$T_TMP/err"
refused "run targets [0, 5]" "$IDLELAB" run "$T_TMP/c.yaml" --db "$DB"

# What the placement can hold still runs.
"$IDLELAB" bench membarrier_ipi --cpus 0-1 -p targets=0,1 -p samples=50 \
	--db "$DB" >/dev/null 2>"$T_TMP/err"
rc=$?
if [ $rc -eq 3 ]; then
	skip "bench membarrier_ipi targets=0,1 on 0-1 runs" "unsupported here"
else
	check "bench membarrier_ipi targets=0,1 on 0-1 runs" [ $rc -eq 0 ]
fi
t_done
