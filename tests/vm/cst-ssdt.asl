/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * An SSDT for the _CST guest (run-qemu.sh's cst profile, passed with
 * -acpitable): a _CST on each of the 4 processor devices QEMU's firmware
 * declares (\_SB.CPUS.C000..C003), so that Linux's ACPI processor driver
 * parses idle states and acpi_idle becomes the cpuidle driver, as on a
 * Zen machine.  C1 is FFixedHW (acpi_idle turns it into HLT where the
 * CPU has no MWAIT C-state hint for it); C2 and C3 are SystemIO, entered
 * by reading the port.  0x614 and 0x615 are the ICH9 PM block's
 * level-2 and level-3 registers (QEMU's PMBASE 0x600 plus 0x14, 0x15):
 * a read there is harmless and returns at once under TCG.
 *
 * Each package: the register, the type (1-3), the worst-case latency in
 * microseconds, the average power in milliwatts.  The latencies are
 * made up for the test, chosen so that the menu governor picks C2 and C3
 * at different idle times.
 */
DefinitionBlock ("cst-ssdt.aml", "SSDT", 2, "IDLLAB", "CSTSSDT", 1)
{
	External (\_SB.CPUS.C000, DeviceObj)
	External (\_SB.CPUS.C001, DeviceObj)
	External (\_SB.CPUS.C002, DeviceObj)
	External (\_SB.CPUS.C003, DeviceObj)

	Method (ILCS, 0, NotSerialized)
	{
		Return (Package (0x04) {
			3,
			Package (4) {
				ResourceTemplate () { Register (FFixedHW, 0, 0, 0, ) },
				1, 1, 1000 },
			Package (4) {
				ResourceTemplate () { Register (SystemIO, 8, 0, 0x614, ) },
				2, 20, 500 },
			Package (4) {
				ResourceTemplate () { Register (SystemIO, 8, 0, 0x615, ) },
				3, 80, 250 }
		})
	}

	Scope (\_SB.CPUS.C000) { Method (_CST, 0) { Return (ILCS ()) } }
	Scope (\_SB.CPUS.C001) { Method (_CST, 0) { Return (ILCS ()) } }
	Scope (\_SB.CPUS.C002) { Method (_CST, 0) { Return (ILCS ()) } }
	Scope (\_SB.CPUS.C003) { Method (_CST, 0) { Return (ILCS ()) } }
}
