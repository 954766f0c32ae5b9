# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest's module steps (issue 21), sourced by guest-init.sh in
# the cst profile after the states are recorded: cstate_wake through the
# C-states the kernel's ACPI processor driver parsed from _CST.
# Asserted by tests/vm/cst-asserts-kmod.sh.
w="--param launch_min_ns=50000 --param samples=20"
ib cst_hlt_timer cstate_wake --cpus 1 $w
