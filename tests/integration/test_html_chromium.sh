#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The HTML report as a person sees it: `idlelab report --format html` of
# the fixture database opened in Debian's headless chromium.  Every image
# must load and decode and the page must raise no error (a script error, a
# resource that fails to load, console.error); the probe that checks it
# (tests/helpers/html-probe.js) runs first in a copy of the page and writes
# its verdict into the DOM that --dump-dom prints.  The same check run on a
# copy with one PNG removed must fail, and so must one whose script throws,
# so a broken image or a console error cannot pass.  A
# screenshot of the real page is left at $BUILD/html-report.png for a
# person to look at.
. tests/lib.sh

FX=$T_TMP/fx.db
H=$T_TMP/html
SHOT=$PWD/$BUILD/html-report.png
"$BUILD/tests/mkfixture" "$FX" || { not_ok "mkfixture"; t_done; exit 1; }
"$IDLELAB" report --db "$FX" --format html --output "$H" \
	--compare params.irq_mode=early --compare params.irq_mode=late >"$T_TMP/out" 2>"$T_TMP/err"
check "report --format html exits 0" [ $? -eq 0 ]
check "the page has images to check" sh -c "grep -c '<img ' '$H/index.html' | awk '{exit !(\$1 >= 4)}'"

# chromium run as root, with nothing that reaches the network.
chrome() {
	profile=$(mktemp -d "$T_TMP/profile.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

# probe DIR OUT: the probe's line for DIR/index.html, into OUT.
probe() {
	cp tests/helpers/html-probe.js "$1/probe.js"
	sed '0,/<head>/s##<head><script src="probe.js"></script>#' "$1/index.html" >"$1/probe.html"
	chrome --virtual-time-budget=5000 --dump-dom "file://$1/probe.html" \
		>"$T_TMP/dom" 2>"$T_TMP/chrome.err"
	grep -o 'idlelab-probe: [^<]*' "$T_TMP/dom" >"$2"
	# Console messages chromium logs itself (a CSP or a parse error the
	# page's own scripts never see).
	grep 'CONSOLE' "$T_TMP/chrome.err" >>"$2"
}

probe "$H" "$T_TMP/good"
diag "$(cat "$T_TMP/good")"
check "chromium ran the probe" grep -q '^idlelab-probe: images=' "$T_TMP/good"
check "every image loads, no errors" sh -c \
	"grep -q '^idlelab-probe: images=[1-9][0-9]* broken=0 errors=0\$' '$T_TMP/good' && [ \$(wc -l <'$T_TMP/good') -eq 1 ]"
check "as many images loaded as the page holds" sh -c \
	"n=\$(grep -o '<img ' '$H/index.html' | wc -l); grep -q \"images=\$n \" '$T_TMP/good'"

# The check must be able to fail: the same page with one plot missing.
B=$T_TMP/broken
cp -r "$H" "$B"
rm -f "$B/ipi00.png"
probe "$B" "$T_TMP/bad"
diag "$(cat "$T_TMP/bad")"
check "a missing PNG is caught" sh -c \
	"grep -q 'broken=1 ' '$T_TMP/bad' && grep -q 'ipi00.png' '$T_TMP/bad'"

# And a page whose script fails: a console error is caught too.
E=$T_TMP/scripterr
cp -r "$H" "$E"
sed -i 's#</body>#<script>undefined_function_of_the_test();</script></body>#' "$E/index.html"
probe "$E" "$T_TMP/err.probe"
diag "$(head -c 300 "$T_TMP/err.probe")"
check "a script error is caught" sh -c \
	"grep -q 'broken=0 errors=1 .*undefined_function_of_the_test' '$T_TMP/err.probe'"

rm -f "$SHOT"
chrome --window-size=1280,3000 --hide-scrollbars --screenshot="$SHOT" \
	"file://$H/index.html" >"$T_TMP/shot.out" 2>&1
check "screenshot written under the build directory" sh -c \
	"[ \"\$(head -c 4 '$SHOT' | od -An -tx1 | tr -d ' \n')\" = 89504e47 ] && [ \$(wc -c <'$SHOT') -gt 20000 ]"
diag "screenshot: $SHOT"
t_done
