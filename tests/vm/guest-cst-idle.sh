# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest's user-space idle steps (issue 24), sourced by
# guest-init.sh in the cst profile: the idle-state map and the advisor on
# a real cpuidle driver (acpi_idle).  Asserted by
# tests/vm/cst-asserts-idle.sh.
ib cst_idle_sweep idle_sweep --cpus pairs:0-1 --param wake=ipi \
	--param samples=20 --param idle_us=10,100,1000
