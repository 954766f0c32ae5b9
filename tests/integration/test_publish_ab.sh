#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 25: the site's A/B section shows a tie as a tie.  tools/fleet-gen
# draws each machine around a base that repeats every fourth machine, so
# of its machines 0, 1 and 4, machine 4 is machine 0's twin (same base,
# its own random draws) and machine 1 is 16 % slower.  With 8 runs a
# campaign each, every tested row of index.html's A/B table must read
# machine 4 against machine 0 as "no evidence of a change" and machine 1
# as "higher than S1": a tie shown as a change, or a change hidden as a
# tie, fails.  Published --no-redact, so that the sides keep their
# hostnames' order (node0000 first) and the test knows which is which;
# without gnuplot, which this table does not need.
. tests/lib.sh

GEN=$PWD/$BUILD/tools/fleet-gen
[ -x "$GEN" ] || { not_ok "fleet-gen built ($GEN)"; t_done; exit 1; }
export IDLELAB_STATE_DIR=$T_TMP/state
"$GEN" --machines 5 --campaigns 2 --runs 8 --samples 200 --per-machine "$T_TMP/pm" >/dev/null
"$IDLELAB" merge "$T_TMP/ab.db" "$T_TMP/pm/m0000.db" "$T_TMP/pm/m0001.db" \
	"$T_TMP/pm/m0004.db" >/dev/null 2>&1
IDLELAB_GNUPLOT=/nonexistent/gnuplot "$IDLELAB" publish "$T_TMP/b" --db "$T_TMP/ab.db" \
	--no-redact >"$T_TMP/out" 2>&1
check "publish exits 0" [ $? -eq 0 ]
P=$T_TMP/b/index.html
check "the sides are machines 0, 1 and 4, in that order" sh -c \
	"grep -q '<p class=\"note\">S1: machine node0000</p>' '$P' && grep -q '<p class=\"note\">S2: machine node0001</p>' '$P' && grep -q '<p class=\"note\">S3: machine node0004</p>' '$P'"

# The A/B table's rows, one line each: its columns 24 and 30 are the
# verdicts of S2 and S3 (the header names them; checked first).
sed -n '/<h2 id="ab">/,/<\/table>/p' "$P" >"$T_TMP/ab.html"
check "the verdicts are columns 24 (S2) and 30 (S3)" sh -c \
	"grep '<thead>' '$T_TMP/ab.html' | sed 's#</th><th>#\n#g' | sed -n '24p;30p' | tr '\n' '|' | grep -q '^S2 verdict|S3 verdict'"
grep '^<tr><td>' "$T_TMP/ab.html" | sed 's#^<tr><td>##; s#</td></tr>$##; s#</td><td>#|#g' |
	grep -v 'not estimable' >"$T_TMP/rows"
n=$(wc -l <"$T_TMP/rows")
diag "$n rows tested"
check "rows with a test: the median and mean of both CPUs" [ "$n" -eq 4 ]
check "the twin's rows read as ties: no evidence of a change" \
	[ "$(cut -d'|' -f30 "$T_TMP/rows" | grep -c '^no evidence of a change (CI contains 0)$')" -eq "$n" ]
check "the slower machine's rows read as changes: higher than S1" \
	[ "$(cut -d'|' -f24 "$T_TMP/rows" | grep -c '^higher than S1 (Holm p &lt; 0.05)$')" -eq "$n" ]
check "a tie's interval contains 0, a change's does not" \
	awk -F'|' '{ split($26, t, /[][, ]+/); split($20, c, /[][, ]+/)
		if (!(t[2] + 0 <= 0 && t[3] + 0 >= 0 && c[2] + 0 > 0)) bad = 1 }
		END { exit bad }' "$T_TMP/rows"
check "the page says what a tie does not show" \
	grep -q 'A CI containing 0 is no evidence of a change; it does not show that the sides are equal' "$P"
t_done
