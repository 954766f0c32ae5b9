# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest's idle-state map checks (issue 24), sourced by
# tests/vm/test_cst.sh with D, R, G, gq and K set.
check "cst $K: idle_sweep stored its runs" \
	[ "$(gq "SELECT count(*) FROM runs WHERE bench='idle_sweep' AND status='ok'")" -ge 1 ]
