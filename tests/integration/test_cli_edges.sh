#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The smaller input slips of issue 20 (defect 12), each of which once
# passed, or was refused with the wrong words:
#  - a --param given twice: the last one silently won.  A value with more
#    digits than 64 bits hold: "not a non-negative integer".
. tests/lib.sh

DB=$T_TMP/e.db

# --- a --param given twice ------------------------------------------------
# The last one silently won; a campaign file refuses a duplicate key.
expect_exit "bench: --param given twice" 2 \
	"$IDLELAB" bench timer_wake -p samples=10 -p samples=20 --db "$DB"
check "bench: the duplicate named" grep -q "parameter 'samples' is given twice" "$T_TMP/err"
check "bench: nothing stored" [ ! -e "$DB" ]
expect_exit "bench: out-of-range --param" 2 \
	"$IDLELAB" bench timer_wake -p samples=99999999999999999999999 --db "$DB"
check "bench: out of range, not 'not an integer'" grep -q "is out of range" "$T_TMP/err"
t_done
