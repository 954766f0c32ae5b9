#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 25, item 3: the comparison site of `idlelab publish`, index.html,
# read from the bundle of the two-machine fixture database.
#   - it stands alone: one file, nothing it would fetch, plots inline;
#   - a section per machine with its fingerprint summarised, its runs and
#     its states table; the machines side by side, a column per machine;
#     the A/B table of the second machine against the first, whose
#     verdicts and note read ties as "no evidence of a change";
#   - it shows the bundle as redacted: no hostname of the source;
#   - in headless chromium (tests/helpers/html-check.sh): no console
#     error, no request, every table and plot present; at 1366 pixels no
#     sideways scroll, a long fingerprint's key/value table on screen and
#     aligned left, first columns sticky (tests/helpers/html-layout.js);
#     a screenshot at a laptop's width is left at $BUILD/publish-site.png
#     to look at;
#   - without gnuplot the site is still written and says why it has no
#     plots.
. tests/lib.sh
. tests/helpers/html-check.sh

FX=$T_TMP/fx.db
# The plots' temporary directory goes here, for the check that it is gone.
export TMPDIR=$T_TMP/tmp
mkdir "$TMPDIR"
B=$T_TMP/bundle
P=$B/index.html
SHOT=$PWD/$BUILD/publish-site.png
export IDLELAB_STATE_DIR=$T_TMP/state
"$BUILD/tests/mkfixture" "$FX" || { not_ok "mkfixture"; t_done; exit 1; }
# A fingerprint as long as a real one's: a number among text values, and a
# value (a CPU's flags) wider than a laptop's screen on one line.
flags='fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl'
sqlite3 "$FX" "UPDATE machines SET fingerprint = json_patch(fingerprint,
	json_object('cpu', json_object('family', 26, 'flags', '$flags', 'stepping', 1))) WHERE fingerprint LIKE '%Fixture A%'"
"$IDLELAB" publish "$B" --db "$FX" >"$T_TMP/out" 2>"$T_TMP/err"
check "publish exits 0" [ $? -eq 0 ]
check "the bundle has index.html" test -s "$P"
check "no temporary plot directory is left" [ -z "$(ls -A "$TMPDIR")" ]
check "it stands alone: no image, link or script it would fetch" \
	sh -c "! grep -Eq '<img |<link |src=\"' '$P' && grep -q 'Content-Security-Policy' '$P'"

nm=$(sqlite3 -batch -noheader "$B/idlelab.db" "SELECT count(*) FROM machines")
check "the bundle holds the fixture's two machines" [ "$nm" -eq 2 ]
check "a section per machine" [ "$(grep -c '<section id="machine-' "$P")" -eq "$nm" ]
for what in 'Fingerprint (summary)' 'Runs' 'Wake latency per idle state and wake source'; do
	check "each machine's section has its $what table" \
		[ "$(grep -c "<h2>$what</h2>" "$P")" -ge "$nm" ]
done
check "the fingerprint is summarised as fields" grep -q '<td>cpu.model</td><td>Fixture A</td>' "$P"
check "every run of the bundle is listed" [ "$(grep -Ec '<tr><td>[0-9a-f-]{36}</td>' "$P")" -eq \
	"$(sqlite3 -batch -noheader "$B/idlelab.db" "SELECT count(*) FROM runs")" ]
check "machines side by side: a median column per machine" \
	[ "$(grep -o '<th>host-[0-9a-f]* median</th>' "$P" | wc -l)" -eq "$nm" ]
check "an A/B table of the machines, with a verdict column" \
	sh -c "grep -q '<h2>A/B comparison</h2>' '$P' && grep -q '<th>S2 verdict</th>' '$P'"
check "ties read as ties: no evidence of a change" grep -q 'no evidence of a change' "$P"
check "the results table, and plots inline" \
	sh -c "grep -q '<h2>Results</h2>' '$P' && grep -q '<figure id=\"group000-cdf\">' '$P'"
check "no inline plot is titled Gnuplot (a browser's hover text)" sh -c \
	"grep -q '<svg' '$P' && ! grep -qi '<title>Gnuplot</title>' '$P'"
check "redacted: no hostname of the source" sh -c "! grep -Eq 'alpha|beta' '$P'"

probe "$P" "$T_TMP/probe"
diag "$(cat "$T_TMP/probe")"
check "chromium: no error, no request, every table and plot there" probe_ok "$T_TMP/probe" "$P"

# At a laptop's width: the page does not scroll sideways, a key/value
# table's numbers (cpu.family 26) sit left beside its text, on screen;
# a wide table scrolls inside itself with its first column in view.
layout "$P" "$T_TMP/layout"
diag "$(cat "$T_TMP/layout")"
check "1366 px: key/value cells on screen and left, first columns held" layout_ok "$T_TMP/layout"

rm -f "$SHOT"
chrome --window-size=1366,900 --hide-scrollbars --screenshot="$SHOT" \
	"file://$P" >"$T_TMP/shot.out" 2>&1
check "screenshot written under the build directory" sh -c \
	"[ \"\$(head -c 4 '$SHOT' | od -An -tx1 | tr -d ' \n')\" = 89504e47 ] && [ \$(wc -c <'$SHOT') -gt 20000 ]"
diag "screenshot: $SHOT"

IDLELAB_GNUPLOT=/nonexistent/gnuplot "$IDLELAB" publish "$T_TMP/nogp" --db "$FX" \
	>"$T_TMP/out" 2>"$T_TMP/err"
check "no gnuplot: the site is written and says why it has no plots" sh -c \
	"[ $? -eq 0 ] && grep -q 'plots unavailable: gnuplot not installed' '$T_TMP/nogp/index.html' && grep -q '<h2>Machines</h2>' '$T_TMP/nogp/index.html'"
t_done
