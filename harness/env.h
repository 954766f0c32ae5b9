/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * env.h - the machine fingerprint and the per-run environment snapshots.
 *
 * The fingerprint describes what the machine *is* (CPU, kernel, TSC, APIC,
 * cpuidle and cpufreq configuration, SMT, NUMA, hwloc XML, PM QoS).  A
 * snapshot describes the state that moves during a run (cpuidle usage and
 * time per state per CPU, interrupt counts per CPU from /proc/interrupts,
 * governors); one is taken before and one after every run, and
 * il_env_delta() turns the pair into per-CPU deltas.
 *
 * Both are JSON objects (jansson).  Anything that cannot be read is stored
 * as {"unknown": "<reason>"} in place of its value, never as 0 or "".
 * All /sys and /proc paths go through sysfs.h, so IDLELAB_SYSFS_ROOT
 * redirects them to fixture trees.
 */
#ifndef IDLELAB_ENV_H
#define IDLELAB_ENV_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct il_topo;

/** il_unknown() - the JSON for a value that could not be read. */
json_t *il_unknown(const char *reason);

/**
 * il_fingerprint() - the machine fingerprint.
 *
 * Keys: cpu {vendor, family, model, stepping, brand, microcode, hypervisor},
 * kernel {release, version, cmdline, clocksource}, tsc {flags[],
 * khz_measured, constant, nonstop}, apic {x2apic, driver}, cpuidle {driver,
 * governor, states[{name, desc, latency_us, residency_us, disabled}]},
 * cpufreq {driver, governor, min_khz, max_khz}, smt {control, active},
 * cpus {online, possible, count}, numa {nodes, distances[][]},
 * pm_qos_us, hostname.
 * hostname is $IDLELAB_HOSTNAME when that is set and non-empty (a fleet's
 * inventory name, fleet/); the UTS name is then in uts_hostname
 * and hostname_source is "IDLELAB_HOSTNAME".
 * Extra keys: cpu.signature (CPUID.1:EAX), kernel.machine and
 * clocksources_available, tsc.invariant (CPUID.80000007H:EDX[8]) and
 * khz_method, apic.x2apic_cpuid, apic.driver_source and apic.overrides
 * (the "APIC: ... replaced with ..." lines of the kernel log, which is
 * where the driver name comes from when it is known), cpuidle.states_cpu
 * (the first online CPU, whose table is shown) and states[].index and
 * default_status, cpufreq.cpu and scaling_{min,max}_khz, cpus.present and
 * cpus.allowed (hwloc's usable set, when @t is given).
 * @t may be NULL.  CPUID, uname, hostname, libnuma and the TSC always
 * describe the running machine, even under IDLELAB_SYSFS_ROOT; but
 * kernel.release is /proc/sys/kernel/osrelease read through sysfs.h (a
 * fixture tree may name its kernel), uname's where that cannot be read.
 * The hwloc XML is not included (it is stored in its own column).
 */
json_t *il_fingerprint(struct il_topo *t);

/**
 * il_fingerprint_declared() - what one run keeps of the fingerprint for
 * `report --kind declared`: {kernel {release}, cpuidle} (the fingerprint's
 * sections, cpuidle's states those of @cpu).  The machine's row keeps
 * only its latest fingerprint, so after an in-place kernel upgrade only
 * the runs still know which kernel declared which table.
 * Return: a new object, or NULL when out of memory.
 */
json_t *il_fingerprint_declared(int cpu);

/**
 * il_env_snapshot() - cpuidle usage/time and interrupt counts, per CPU.
 *
 * {"mono_ns": CLOCK_MONOTONIC now,
 *  "governors": {"cpuidle": ...},
 *  "irq_global": {"ERR": n, "MIS": n},
 *  "cpus": {"0": {"cpuidle": {"<state name>": {"usage", "time_us",
 *                                              "above", "below"}},
 *                 "irq": {"total", "devices", "LOC", "RES", "CAL", ...}}}}
 * for every CPU in /sys/devices/system/cpu/online.  "devices" sums the
 * numbered device IRQ lines; named lines are kept one by one.  Any part
 * that cannot be read is {"unknown": reason}.  NULL only on OOM.
 * Plus "fleet": {"<key>": "<value>"} for every environment variable
 * IDLELAB_FLEET_<KEY> (key lower-cased), when any is set: how a fleet
 * runner drove the run, e.g. poll_s, its status-polling interval.
 */
json_t *il_env_snapshot(void);

/**
 * il_env_delta() - after - before, per CPU, for every counter in both.
 *
 * Same shape as the snapshots, with "elapsed_ns" for "mono_ns".  Counters
 * unknown on either side are left out; one that went backwards is
 * {"unknown": ...}; a string that changed is {"before", "after"}.
 * NULL if either argument is NULL.
 */
json_t *il_env_delta(json_t *before, json_t *after);

/**
 * il_env_thermal_rose() - whether one CPU's entry of an il_env_delta()
 * ("cpus": {"N": ...}) shows its thermal-throttle counters rising, with
 * the rises in *@core and *@pkg (0 where unknown).
 */
bool il_env_thermal_rose(json_t *cpu_delta, long long *core, long long *pkg);

/**
 * il_env_effective_khz() - one CPU's effective frequency over a run from
 * its il_env_delta() entry: @tsc_khz x APERF / MPERF (MPERF counts at the
 * TSC's rate while the CPU is in C0), into *@khz.
 * Return: false where the MSRs were not readable or MPERF did not move.
 */
bool il_env_effective_khz(json_t *cpu_delta, uint64_t tsc_khz, double *khz);

/**
 * il_host_uuid() - this host's stable identity, 36 chars + NUL.
 *
 * Read from $IDLELAB_STATE_DIR/host-uuid (default /var/lib/idlelab), and
 * created there on first use: derived from /etc/machine-id (an HMAC,
 * version 8), so a fresh state directory on the same installation is the
 * same host and machines with identical hardware stay distinct; random
 * (version 4, with a notice) where there is no machine ID.  Without a
 * writable directory the machine ID's UUID is still returned; failing
 * both, a fresh UUID in memory, the same one for the rest of the process.  Return: 0, or -EINVAL if the file exists but holds no UUID
 * (it is never overwritten: that would split one host's data in two).
 */
int il_host_uuid(char out[37]);

/**
 * il_env_hypervisor() - does CPUID.1:ECX[31] say this runs under a
 * hypervisor?  If so, @sig (at least 13 bytes) gets its CPUID 0x40000000
 * signature ("KVMKVMKVM", "TCGTCGTCGTCG"), or "unnamed".
 * Return: 1 under a hypervisor, 0 otherwise or off x86.
 */
int il_env_hypervisor(char *sig, size_t len);

/** il_uuid_v4() - a random UUID string (getrandom(), RFC 9562 version 4). */
void il_uuid_v4(char out[37]);

/** il_uuid_valid() - 1 if @s is 8-4-4-4-12 hex digits, else 0. */
int il_uuid_valid(const char *s);

#endif
