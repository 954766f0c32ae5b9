#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make install` puts the CLI and every man page under PREFIX, and each
# subcommand's man page renders.
. tests/lib.sh
# Install the binary the tests were built as: sanitized or not.
san=0
ldd "$BUILD/idlelab" 2>/dev/null | grep -q libasan && san=1
make -s install BUILD="$BUILD" SAN=$san PREFIX="$T_TMP/p" >"$T_TMP/log" 2>&1
check "make install succeeds" [ $? -eq 0 ]
check "CLI installed" [ -x "$T_TMP/p/bin/idlelab" ]
check "installed CLI runs" "$T_TMP/p/bin/idlelab" --version
for c in "" -info -list -bench -report -db -run -restore -merge -import -export; do
	page=$T_TMP/p/share/man/man1/idlelab$c.1
	check "man page idlelab$c installed" [ -s "$page" ]
	if command -v man >/dev/null 2>&1; then
		check "man page idlelab$c renders" sh -c "MANWIDTH=80 man -l '$page' | grep -q NAME"
	fi
done
t_done
