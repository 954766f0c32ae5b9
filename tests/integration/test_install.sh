#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make install` puts the CLI and every man page under PREFIX, and each
# subcommand's man page renders.  The installed CLI finds the reference
# figures under that PREFIX (issue 20, defect 12): it looked under
# /usr/local and /usr whatever PREFIX was.
. tests/lib.sh
# Install the binary the tests were built as: sanitized or not.
san=0
ldd "$BUILD/idlelab" 2>/dev/null | grep -q libasan && san=1
# The PREFIX the build was compiled with, put back at the end: installing
# under another one recompiles the CLI with it.
was=$(cat "$BUILD/gen/prefix" 2>/dev/null || echo /usr/local)
make -s install BUILD="$BUILD" SAN=$san PREFIX="$T_TMP/p" >"$T_TMP/log" 2>&1
check "make install succeeds" [ $? -eq 0 ]
check "CLI installed" [ -x "$T_TMP/p/bin/idlelab" ]
check "installed CLI runs" "$T_TMP/p/bin/idlelab" --version
mkdir "$T_TMP/elsewhere"
(cd "$T_TMP/elsewhere" &&
	"$T_TMP/p/bin/idlelab" import reference --db ref.db) >"$T_TMP/out" 2>&1
check "installed CLI finds the reference file under PREFIX" \
	grep -q "^$T_TMP/p/share/idlelab/reference/seeds.json: [0-9]* reference runs imported" "$T_TMP/out"
check "import --help names that file" sh -c \
	"'$T_TMP/p/bin/idlelab' import --help | grep -q '$T_TMP/p/share/idlelab/reference/seeds.json'"
for c in "" -info -list -bench -report -db -run -restore -merge -import -export; do
	page=$T_TMP/p/share/man/man1/idlelab$c.1
	check "man page idlelab$c installed" [ -s "$page" ]
	if command -v man >/dev/null 2>&1; then
		check "man page idlelab$c renders" sh -c "MANWIDTH=80 man -l '$page' | grep -q NAME"
	fi
done
make -s BUILD="$BUILD" SAN=$san PREFIX="$was" >"$T_TMP/log" 2>&1
check "the build is back on its PREFIX" [ "$(cat "$BUILD/gen/prefix")" = "$was" ]
t_done
