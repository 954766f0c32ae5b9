#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every man page (man/*.1) has the standard sections of a section-1 page:
# NAME, SYNOPSIS, DESCRIPTION and SEE ALSO, and EXIT STATUS where the page
# documents a command (its SYNOPSIS shows an "idlelab" invocation).  Then
# the check is shown to fail: on a copy of a page with each section taken
# out in turn, it names exactly the section removed.
. tests/lib.sh

# lacks PAGE: the required sections PAGE does not have, each as " NAME".
lacks() {
	for sec in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" "SEE ALSO"; do
		if [ "$sec" = "EXIT STATUS" ] &&
			! sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$1" | grep -q '^\.B idlelab'; then
			continue
		fi
		grep -qE "^\\.SH \"?$sec\"?\$" "$1" || printf ' %s' "$sec"
	done
}

n=0
for page in man/*.1; do
	[ -f "$page" ] || continue
	n=$((n + 1))
	missing=$(lacks "$page")
	if [ -z "$missing" ]; then
		ok "$page has NAME, SYNOPSIS, DESCRIPTION, EXIT STATUS, SEE ALSO"
	else
		not_ok "$page lacks:$missing"
	fi
done
check "there are man pages to check" test "$n" -gt 0

# The check catches a missing section: remove each in turn from a copy.
for sec in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" "SEE ALSO"; do
	sed "/^\\.SH $sec\$/d" man/idlelab-export.1 >"$T_TMP/page.1"
	got=$(lacks "$T_TMP/page.1")
	check "a page without $sec is caught" test "$got" = " $sec"
done
# A page with no idlelab invocation in its SYNOPSIS needs no EXIT STATUS.
sed '/^\.SH EXIT STATUS$/d; s/^\.B idlelab/.B other/' man/idlelab-export.1 >"$T_TMP/page.1"
check "EXIT STATUS is asked only of a command's page" test -z "$(lacks "$T_TMP/page.1")"
t_done
