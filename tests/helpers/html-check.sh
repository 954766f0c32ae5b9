# SPDX-License-Identifier: GPL-2.0-only
# html-check.sh - sourced by the Chromium tests of idlelab's HTML pages
# (test_html_chromium.sh, test_publish_site.sh), after tests/lib.sh.
#
# chrome ARGS...: Debian's headless chromium run as root, with nothing
#   that reaches the network.
# probe PAGE OUT: PAGE opened from file:// with tests/helpers/html-probe.js
#   inlined first into a copy of it; the probe's line, and the console
#   messages chromium logs itself (a CSP or parse error the page's own
#   scripts never see), into OUT.
# probe_ok OUT PAGE: the line says no broken image, no request, no error,
#   and as many tables and inline plots as PAGE holds.
# layout PAGE OUT: PAGE opened at 1366x900 with html-layout.js inlined
#   first; its line into OUT.
# pick PAGE OUT: PAGE (a published site) with html-pick.js inlined
#   first, which clears every box of the machine picker but the first;
#   its line into OUT.
# layout_ok OUT: at 1366 pixels the page does not scroll sideways, every
#   cell of its key/value tables is on screen and aligned left, and every
#   table keeps its first column in view while it scrolls.

chrome() {
	profile=$(mktemp -d "$T_TMP/profile.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

# inline JS PAGE COPY: PAGE with the script JS put first into its head,
# so the script needs no request the page's policy would refuse.
inline() {
	awk -v f="$1" '
		BEGIN { while ((getline l < f) > 0) js = js l "\n" }
		!done && (i = index($0, "<head>")) {
			print substr($0, 1, i + 5) "<script>"; printf "%s", js
			print "</script>" substr($0, i + 6); done = 1; next
		}
		{ print }' "$2" >"$3"
}

probe() {
	pcopy=$(dirname "$1")/probe-$(basename "$1")
	inline tests/helpers/html-probe.js "$1" "$pcopy"
	chrome --virtual-time-budget=5000 --dump-dom "file://$pcopy" \
		>"$T_TMP/dom" 2>"$T_TMP/chrome.err"
	rm -f "$pcopy"
	# The probe's own line, not its source inlined in the page.
	grep -o '<pre id="idlelab-probe">[^<]*' "$T_TMP/dom" | sed 's/^<pre[^>]*>//' >"$2"
	grep 'CONSOLE' "$T_TMP/chrome.err" >>"$2"
}

# js_line JS ID PAGE OUT [CHROME-ARGS...]: PAGE with JS inlined first;
# the line JS writes into <pre id="ID"> once the page loaded, into OUT.
js_line() {
	js=$1 id=$2 page=$3 jout=$4
	shift 4
	jcopy=$(dirname "$page")/$id-$(basename "$page")
	inline "$js" "$page" "$jcopy"
	chrome "$@" --virtual-time-budget=5000 --dump-dom "file://$jcopy" \
		>"$T_TMP/dom" 2>"$T_TMP/chrome.err"
	rm -f "$jcopy"
	grep -o "<pre id=\"$id\">[^<]*" "$T_TMP/dom" | sed 's/^<pre[^>]*>//' >"$jout"
}

layout() {
	js_line tests/helpers/html-layout.js idlelab-layout "$1" "$2" \
		--window-size=1366,900
}

pick() {
	js_line tests/helpers/html-pick.js idlelab-pick "$1" "$2"
}

probe_ok() {
	ntab=$(grep -o '<table>' "$2" | wc -l)
	nsvg=$(grep -o '<figure id="[^"]*">' "$2" | wc -l)
	grep -q "^idlelab-probe: images=0 broken=0 svgs=$nsvg tables=$ntab requests=0 errors=0\$" "$1" &&
		[ "$(wc -l <"$1")" -eq 1 ]
}

layout_ok() {
	# shellcheck disable=SC2046
	set -- $(sed -n 's/^idlelab-layout: width=\([0-9]*\) page=\([0-9]*\) tables=\([0-9]*\) kv=\([0-9]*\) kv_offscreen=\([0-9]*\) kv_right=\([0-9]*\) unstuck=\([0-9]*\) wide=[0-9]*$/\1 \2 \3 \4 \5 \6 \7/p' "$1")
	[ $# -eq 7 ] && [ "$1" -eq 1366 ] && [ "$2" -le "$1" ] && [ "$3" -gt 0 ] &&
		[ "$4" -gt 0 ] && [ "$5" -eq 0 ] && [ "$6" -eq 0 ] && [ "$7" -eq 0 ]
}
