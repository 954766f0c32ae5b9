#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The smaller input slips of issue 20 (defect 12), each of which once
# passed, or was refused with the wrong words:
#  - a --param given twice: the last one silently won.  A value with more
#    digits than 64 bits hold: "not a non-negative integer".
#  - `run --name` took 96 characters and ':', where the file's `name`
#    takes 64 and no ':'; both now go through one check.
#  - `idlelab help`, `idlelab help CMD` and `idlelab -V` were unknown
#    commands; they are --help, `CMD --help` and --version.
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

# --- run --name and the file's name: one rule ------------------------------
cat >"$T_TMP/n.yaml" <<'YAML'
name: edges
groups:
  - bench: timer_wake
    cpus: "0"
    params: {samples: 20}
YAML
long65=$(printf 'a%.0s' $(seq 65))
long64=$(printf 'a%.0s' $(seq 64))
for bad in "a:b" "a b" "$long65"; do
	label="'$bad'"
	[ ${#bad} -gt 60 ] && label="of 65 characters"
	expect_exit "run --name $label refused" 2 \
		"$IDLELAB" run "$T_TMP/n.yaml" --dry-run --name "$bad" --db "$DB"
	check "run --name $label: the file's rule" grep -q "use 1-64 of A-Z a-z 0-9 . _ -" "$T_TMP/err"
	sed "s/^name: edges/name: \"$bad\"/" "$T_TMP/n.yaml" >"$T_TMP/bad.yaml"
	expect_exit "the file's name $label refused alike" 2 \
		"$IDLELAB" run "$T_TMP/bad.yaml" --dry-run --db "$DB"
done
"$IDLELAB" run "$T_TMP/n.yaml" --dry-run --name "$long64" --db "$DB" >/dev/null 2>&1
check "run --name of 64 characters accepted" [ $? -eq 0 ]
sed "s/^name: edges/name: $long64/" "$T_TMP/n.yaml" >"$T_TMP/ok.yaml"
"$IDLELAB" run "$T_TMP/ok.yaml" --dry-run --db "$DB" >/dev/null 2>&1
check "the file's name of 64 characters accepted alike" [ $? -eq 0 ]

# --- help and -V ------------------------------------------------------------
"$IDLELAB" --help >"$T_TMP/want" 2>&1
"$IDLELAB" help >"$T_TMP/got" 2>&1
check "help: exit 0" [ $? -eq 0 ]
check "help is --help" cmp "$T_TMP/want" "$T_TMP/got"
for c in bench report run; do
	"$IDLELAB" $c --help >"$T_TMP/want" 2>&1
	w=$?
	"$IDLELAB" help $c >"$T_TMP/got" 2>&1
	g=$?
	check "help $c is $c --help" sh -c "[ $w -eq 0 ] && [ $g -eq 0 ] && cmp -s '$T_TMP/want' '$T_TMP/got'"
done
expect_exit "help of an unknown command" 2 "$IDLELAB" help nosuch
check "help nosuch: says unknown command" grep -q "unknown command 'nosuch'" "$T_TMP/err"
expect_exit "help with two commands" 2 "$IDLELAB" help bench run
# Issue 19: the environment keys had a printer nothing called.
"$IDLELAB" help environment >"$T_TMP/env" 2>&1
check "help environment: exit 0" [ $? -eq 0 ]
for k in pm_qos_us cpuidle_only governor; do
	check "help environment: names $k, what it changes and how it is restored" \
		sh -c "grep -A3 '^$k:' '$T_TMP/env' | grep -q '^  changes:' && grep -A3 '^$k:' '$T_TMP/env' | grep -q '^  restored:'"
done
check "--help points at help environment" sh -c "'$IDLELAB' --help | grep -q 'idlelab help environment'"
"$IDLELAB" --version >"$T_TMP/want" 2>&1
"$IDLELAB" -V >"$T_TMP/got" 2>&1
check "-V: exit 0" [ $? -eq 0 ]
check "-V is --version" cmp "$T_TMP/want" "$T_TMP/got"
expect_exit "a near miss suggests help" 2 "$IDLELAB" hepl
check "hepl: did you mean 'help'" grep -q "did you mean 'help'" "$T_TMP/err"
t_done
