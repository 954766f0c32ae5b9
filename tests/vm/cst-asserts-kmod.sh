# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest's module checks (issue 21), sourced by tests/vm/test_cst.sh
# with D (the guest's results), R (results.jsonl), G (guest.db), gq, and
# K (the kernel label) set.
l=$(grep '"op":"step","name":"cst_hlt_timer"' "$R")
check "cst $K: cstate_wake HLT ran under acpi_idle" [ "$(va_jv "$l" rc)" = 0 ]
