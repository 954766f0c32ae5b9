#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The HTML report as a person sees it: `idlelab report --format html
# --output FILE.html` of the fixture database, one page that stands alone,
# opened in Debian's headless chromium (tests/helpers/html-check.sh).
# The page must be
# the one file written, with real tables (no Markdown in <pre>) and the
# plots inline as SVG; in chromium it must raise no error (a script error,
# a resource that fails to load, console.error), make no request (its own
# policy forbids them), and hold every table and plot.  The same check run
# on a copy with an image that does not exist must fail, and so must one
# that asks the network for an image, and one whose script throws, so none
# of these can pass.  Screenshots of the real page, at a laptop's width,
# are left at $BUILD/html-report*.png for a person to look at.
. tests/lib.sh
. tests/helpers/html-check.sh

FX=$T_TMP/fx.db
# The plots' temporary directory goes here, for the check that it is gone.
export TMPDIR=$T_TMP/tmp
mkdir "$TMPDIR"
D=$T_TMP/page
P=$D/report.html
SHOT=$PWD/$BUILD/html-report.png
"$BUILD/tests/mkfixture" "$FX" || { not_ok "mkfixture"; t_done; exit 1; }
mkdir "$D"
"$IDLELAB" report --db "$FX" --format html --output "$P" \
	--compare params.irq_mode=early --compare params.irq_mode=late >"$T_TMP/out" 2>"$T_TMP/err"
check "report --format html --output x.html exits 0" [ $? -eq 0 ]
check "x.html is the one file written: no directory, nothing beside it" \
	sh -c "[ -f '$P' ] && [ \"\$(ls -A '$D')\" = report.html ]"
check "no temporary plot directory is left" [ -z "$(ls -A "$TMPDIR")" ]
check "tables are HTML tables, no Markdown in <pre>" \
	sh -c "! grep -q '<pre>' '$P' && ! grep -q '^| ' '$P' && grep -q '<th>Nr samples</th>' '$P'"
check "plots inline as SVG: histogram, CDF, IPI, heatmap" sh -c \
	"grep -q '<figure id=\"group000-hist\">' '$P' && grep -q '<figure id=\"group000-cdf\">' '$P' && grep -q '<figure id=\"ipi00\">' '$P' && grep -q '<figure id=\"pairs00\">' '$P'"
# gnuplot titles every SVG "Gnuplot", which a browser shows as the hover
# text of each inline plot.
check "no inline plot is titled Gnuplot" sh -c \
	"grep -q '<svg' '$P' && ! grep -qi '<title>Gnuplot</title>' '$P'"
check "no image or link the page would fetch" sh -c "! grep -Eq '<img |<link |src=\"[^d#]' '$P'"
check "each plot's ids are its own" sh -c \
	"[ \$(grep -o \"id='[^']*'\" '$P' | sort | uniq -d | wc -l) -eq 0 ] && grep -q \"id='group000-hist-gpPt0'\" '$P'"
check "titles show parameters as key=value, never cut-off JSON" sh -c \
	"! grep -q '{&quot;' '$P' && ! grep -q '{\"' '$P' && ! grep -Fq ' ...</text>' '$P' && grep -q 'interval_us=200 irq_mode=early' '$P'"

probe "$P" "$T_TMP/good"
diag "$(cat "$T_TMP/good")"
check "chromium ran the probe" grep -q '^idlelab-probe: images=' "$T_TMP/good"
check "no error, no request, every table and plot there" probe_ok "$T_TMP/good" "$P"

# The check must be able to fail: an image that is not there ...
B=$T_TMP/broken.html
sed 's#</body>#<img src="missing.png" alt="x"></body>#' "$P" >"$B"
probe "$B" "$T_TMP/bad"
diag "$(head -c 300 "$T_TMP/bad")"
check "a missing image is caught" sh -c \
	"grep -q 'broken=1 ' '$T_TMP/bad' && ! probe_ok '$T_TMP/bad' '$B'"
# ... a request for the network (the page's policy refuses it) ...
N=$T_TMP/net.html
sed 's#</body>#<img src="http://192.0.2.1/x.png" alt="x"></body>#' "$P" >"$N"
probe "$N" "$T_TMP/net"
diag "$(head -c 300 "$T_TMP/net")"
check "a request that leaves the page is caught" sh -c \
	"grep -q '192.0.2.1' '$T_TMP/net' && ! probe_ok '$T_TMP/net' '$N'"
# ... and a page whose script fails.
E=$T_TMP/scripterr.html
sed 's#</body>#<script>undefined_function_of_the_test();</script></body>#' "$P" >"$E"
probe "$E" "$T_TMP/err.probe"
diag "$(head -c 300 "$T_TMP/err.probe")"
check "a script error is caught" sh -c \
	"grep -q 'errors=1 .*undefined_function_of_the_test' '$T_TMP/err.probe'"

# The report's tables at a laptop's width: the page itself never scrolls
# sideways, and a wide table keeps its first column in view.
layout "$P" "$T_TMP/layout"
diag "$(cat "$T_TMP/layout")"
check "1366 px: no sideways page scroll, first columns held" sh -c \
	"grep -Eq '^idlelab-layout: width=1366 page=([0-9]{1,3}|1[0-2][0-9]{2}|13[0-5][0-9]|136[0-6]) tables=[1-9][0-9]* .* unstuck=0 ' '$T_TMP/layout'"

rm -f "$SHOT" "${SHOT%.png}-top.png"
chrome --window-size=1366,900 --hide-scrollbars --screenshot="${SHOT%.png}-top.png" \
	"file://$P" >"$T_TMP/shot.out" 2>&1
chrome --window-size=1366,6000 --hide-scrollbars --screenshot="$SHOT" \
	"file://$P" >>"$T_TMP/shot.out" 2>&1
check "screenshots written under the build directory" sh -c \
	"for s in '$SHOT' '${SHOT%.png}-top.png'; do [ \"\$(head -c 4 \$s | od -An -tx1 | tr -d ' \n')\" = 89504e47 ] && [ \$(wc -c <\$s) -gt 20000 ] || exit 1; done"
diag "screenshots: $SHOT ${SHOT%.png}-top.png"
t_done
