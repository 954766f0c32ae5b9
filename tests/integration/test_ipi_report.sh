#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The IPI and pair reports on the fixture database (tests/helpers/
# mkfixture.c): rows never merge runs whose parameters differ (madvise
# against mprotect, idle_us 0 against 50), the marginal cost per target is
# taken against the N = 0 row of the same configuration, the fit table
# gives a slope with an interval, and every table says what its columns
# mean and how many runs stand behind each figure.  csv is one table per
# file (--table N) with no notes, so the notes are read from md.
. tests/lib.sh

FX=$T_TMP/fx.db
"$BUILD/tests/mkfixture" "$FX" || { not_ok "mkfixture"; t_done; exit 1; }
"$IDLELAB" report --db "$FX" --kind ipi --format csv --table 1 >"$T_TMP/ipi.csv" 2>"$T_TMP/err"
check "report --kind ipi exits 0" [ $? -eq 0 ]
C=$T_TMP/ipi.csv
F=$T_TMP/fit.csv
M=$T_TMP/modes.csv
MD=$T_TMP/ipi.md
"$IDLELAB" report --db "$FX" --kind ipi --format csv --table 2 >"$F"
"$IDLELAB" report --db "$FX" --kind ipi --format csv --table 3 >"$M"
"$IDLELAB" report --db "$FX" --kind ipi >"$MD"

# Two configurations of tlb_shootdown: two rows at N = 2, not one merged.
check "madvise and mprotect are separate rows" sh -c \
	"grep -q '^alpha,tlb_shootdown,mode=madvise,2,' '$C' && grep -q '^alpha,tlb_shootdown,mode=mprotect,2,' '$C'"
# Their medians differ as the fixture made them (mprotect ~1000 ns dearer
# per target): a merged row would sit between the two.
check "mprotect's median above madvise's at N=16" sh -c \
	"awk -F, '\$2==\"tlb_shootdown\" && \$4==16 {m[\$3]=\$7} END {exit !(m[\"mode=mprotect\"] > m[\"mode=madvise\"] + 10000)}' '$C'"
# Marginal = (median(N) - median(0)) / N, from the table's own columns.
check "marginal per target is (median(N) - median(0)) / N" sh -c \
	"awk -F, '/^\$/ {exit} \$2==\"tlb_shootdown\" && \$4==0 {b[\$3]=\$7} \$2==\"tlb_shootdown\" && \$4>0 {n++; d=(\$7-b[\$3])/\$4-\$8; if (d<-0.06||d>0.06) bad++} END {exit !(n==8 && !bad)}' '$C'"
check "no marginal without an N = 0 row" sh -c \
	"grep '^alpha,ipi_storm,mode=physical,4,' '$C' | awk -F, '{exit !(\$8==\"\")}'"
check "runs counted per row" sh -c \
	"grep -q '^alpha,tlb_shootdown,mode=madvise,2,3,1500,' '$C' && grep -q '^alpha,tlb_shootdown,mode=mprotect,2,2,1000,' '$C'"
# Seed 001's table: ipi_storm's modes side by side, one row per N, the
# same figures as the scaling table's per-mode rows.
check "modes table: logical and physical side by side at each N" sh -c \
	"grep -q '^alpha,ipi_storm,,16,12803 (1),16003 (1)\$' '$M'"
check "modes table: the mode's median equals the scaling row's" sh -c \
	"grep -q '^alpha,ipi_storm,mode=physical,16,1,[0-9]*,16003,' '$C'"
check "the columns are explained, runs included" sh -c \
	"grep -q 'Runs: how many runs were merged' '$MD' && grep -q 'Marginal per target = (median(N) - median(0)) / N' '$MD'"
# The fit: slopes near the fixture's 1200, 1500 and 2500 ns per target,
# with an interval that holds them.
check "fit table: slope and interval per configuration" sh -c \
	"awk -F, '/^alpha,membarrier_ipi,/ && \$7>1190 && \$7<1210 && \$8<=\$7 && \$9>=\$7 {a=1} /^alpha,tlb_shootdown,mode=mprotect,/ && \$7>2490 && \$7<2510 && \$8<=\$7 && \$9>=\$7 {b=1} END {exit !(a && b)}' '$F'"
check "fit: too few points says so" grep -q 'ipi_storm | mode=physical | 1 | 4 | 2-16 | [0-9.]* | n/a: too few points' "$MD"
check "fit csv: an empty interval where there is none" grep -q '^alpha,ipi_storm,mode=physical,1,4,2-16,[0-9.]*,,$' "$F"
check "fit note names the method" grep -q "Theil-Sen.*Sen's distribution-free interval" "$MD"

# Pairs: one matrix per idle_us.
"$IDLELAB" report --db "$FX" --kind pairs --format csv --table 1 >"$T_TMP/pairs.csv"
"$IDLELAB" report --db "$FX" --kind pairs >"$T_TMP/pairs.md"
check "pairs: a matrix per idle_us" sh -c \
	"grep -q '^### futex_wake idle_us=0 median' '$T_TMP/pairs.md' && grep -q '^### futex_wake idle_us=50 median' '$T_TMP/pairs.md'"
check "pairs: the idle_us=0 cells are its own (table 1)" sh -c \
	"awk '/^0,/ {split(\$0, c, \",\"); ok = c[3] < 2500} END {exit !ok}' '$T_TMP/pairs.csv'"
check "pairs: the note counts the runs" grep -q 'at most 1 run per cell' "$T_TMP/pairs.md"
t_done
