#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The layering issue 19 set for harness/: no file of the library includes
# a header of analysis/ (only the CLI, harness/cli/, does), and no two
# files of harness/ (harness/cli/ included) call each other's functions in
# a circle, directly or through others.  The calls are read from the built
# objects with nm: a file calls another when it leaves undefined a global
# symbol the other defines.  Each check is then shown to fail on a made-up
# case.
. tests/lib.sh
# Byte order, so that sort and awk agree on which of a pair comes first.
LC_ALL=C
export LC_ALL

# edges: one "CALLER CALLEE" line per pair of objects in $BUILD/harness/
# and $BUILD/harness/cli/ where CALLER uses a symbol CALLEE defines.
edges() {
	nm -A "$BUILD"/harness/*.o "$BUILD"/harness/cli/*.o 2>/dev/null | awk -v b="$BUILD/" '
	{
		f = $1; sub(/:.*/, "", f); sub(b, "", f); sub(/\.o$/, "", f)
		sym = $NF; type = $(NF - 1)
		if (type == "U")
			use[f, sym] = 1
		else if (type ~ /^[TDBRC]$/)
			owner[sym] = f
	}
	END {
		for (k in use) {
			split(k, p, SUBSEP)
			if ((p[2] in owner) && owner[p[2]] != p[1])
				e[p[1] " " owner[p[2]]] = 1
		}
		for (x in e)
			print x
	}' | sort
}

# circles: from "A B" lines on stdin, each pair "A B" (A before B) of
# nodes that reach each other, one a line, sorted.
circles() {
	awk '
	{
		r[$1, $2] = 1
		if (!($1 in n)) { n[$1] = 1; v[++nv] = $1 }
		if (!($2 in n)) { n[$2] = 1; v[++nv] = $2 }
	}
	END {
		for (k = 1; k <= nv; k++)
			for (i = 1; i <= nv; i++)
				if ((v[i], v[k]) in r)
					for (j = 1; j <= nv; j++)
						if ((v[k], v[j]) in r)
							r[v[i], v[j]] = 1
		for (i = 1; i <= nv; i++)
			for (j = 1; j <= nv; j++)
				if (v[i] < v[j] && ((v[i], v[j]) in r) &&
				    ((v[j], v[i]) in r))
					print v[i], v[j]
	}' | sort
}

# analysis_includes FILE...: each '#include' of an analysis/ header.
analysis_includes() {
	for h in analysis/*.h; do
		grep -Hn "^#include \"$(basename "$h")\"" "$@"
	done
}

if ! ls "$BUILD"/harness/*.o "$BUILD"/harness/cli/*.o >/dev/null 2>&1; then
	not_ok "the objects of $BUILD/harness are built (make BUILD=$BUILD)"
else
	edges >"$T_TMP/edges"
	check "nm names calls between harness files" test -s "$T_TMP/edges"
	circles <"$T_TMP/edges" >"$T_TMP/circles"
	if [ -s "$T_TMP/circles" ]; then
		not_ok "no two harness files call each other in a circle"
		sed 's/^/#   circle: /' "$T_TMP/circles" | head -20
	else
		ok "no two harness files call each other in a circle"
	fi
	# The check can fail: turn one real call around, and the two files
	# are a circle.
	set -- $(head -n 1 "$T_TMP/edges")
	{ cat "$T_TMP/edges"; echo "$2 $1"; } | circles >"$T_TMP/circles"
	want=$(printf '%s\n%s\n' "$1" "$2" | sort | paste -sd ' ')
	check "a call back from $2 to $1 is caught" grep -qx "$want" "$T_TMP/circles"
fi
printf 'a b\nb c\nc a\nc d\n' | circles >"$T_TMP/circles"
check "a circle through three files names each pair, and nothing else" \
	test "$(tr '\n' ';' <"$T_TMP/circles")" = "a b;a c;b c;"

lib=$(ls harness/*.c harness/*.h)
analysis_includes $lib >"$T_TMP/inc"
if [ -s "$T_TMP/inc" ]; then
	not_ok "no file of the library includes a header of analysis/"
	sed 's/^/#   /' "$T_TMP/inc" | head -10
else
	ok "no file of the library includes a header of analysis/"
fi
check "the CLI's includes of them are found" \
	test -n "$(analysis_includes harness/cli/cmd_report.c)"
printf '#include "analysis.h"\n' >"$T_TMP/x.c"
check "an include of analysis.h is caught" \
	test -n "$(analysis_includes "$T_TMP/x.c")"
t_done
