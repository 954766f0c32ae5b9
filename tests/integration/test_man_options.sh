#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Each command's man page names every option of its table (harness/
# cli/cli_opts.h): the hidden `idlelab COMMAND --list-options` prints the
# table's long names, and man/idlelab-COMMAND.1 must mention each as
# --NAME.  The man pages keep their own prose; this only catches an option
# added to a table but never documented.
. tests/lib.sh

# Commands whose options are not on the table yet, with the reason.  Once
# one is converted, its --list-options works and this test says to drop it
# from here, so the exception cannot outlive its cause.  Today every
# command is on its table; an entry would read NOT_ON_TABLE="cmd" with
# why_cmd="the reason".
NOT_ON_TABLE=""

# missing_in PAGE: the names read from stdin that PAGE does not mention as
# --NAME, each printed as " --NAME".  roff writes a hyphen as \-.
missing_in() {
	sed 's/\\-/-/g' "$1" >"$T_TMP/page"
	while read -r name; do
		grep -qE -- "--$name([^a-z0-9-]|\$)" "$T_TMP/page" || printf ' --%s' "$name"
	done
}

# The commands idlelab itself lists in --help.
cmds=$("$IDLELAB" --help | sed -n '/^Commands:/,/^$/{s/^  \([a-z][a-z]*\) .*/\1/p}')
check "idlelab --help lists commands" [ -n "$cmds" ]
for c in $cmds; do
	page=man/idlelab-$c.1
	if [ ! -f "$page" ]; then
		not_ok "$c: man page $page exists"
		continue
	fi
	case " $NOT_ON_TABLE " in
	*" $c "*)
		if "$IDLELAB" "$c" --list-options >/dev/null 2>&1; then
			not_ok "$c: --list-options works now; remove '$c' from NOT_ON_TABLE in $0"
		else
			eval "skip \"$c: options named in $page\" \"\$why_$c\""
		fi
		continue
		;;
	esac
	if ! "$IDLELAB" "$c" --list-options >"$T_TMP/opts" 2>"$T_TMP/err"; then
		not_ok "$c --list-options"
		sed 's/^/#   /' "$T_TMP/err"
		continue
	fi
	missing=$(missing_in "$page" <"$T_TMP/opts")
	if [ -z "$missing" ]; then
		ok "$c: $page names every option of its table ($(tr '\n' ' ' <"$T_TMP/opts"))"
	else
		not_ok "$c: $page does not name:$missing"
	fi
done

# The check itself can fail: of a documented and an undocumented name, it
# reports exactly the undocumented one, and a prefix does not count.
got=$(printf 'db\nno-such-option-xyz\nra\n' | missing_in man/idlelab-bench.1)
check "an undocumented option is caught" [ "$got" = " --no-such-option-xyz --ra" ]
t_done
