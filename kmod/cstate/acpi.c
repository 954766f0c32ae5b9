// SPDX-License-Identifier: GPL-2.0-only
/*
 * acpi.c - IDLELAB_METHOD_ACPI: a C-state the kernel's ACPI processor
 * driver parsed from _CST, found and checked once before the run
 * (il_acpi_resolve()) and then entered as acpi_idle enters it
 * (il_acpi_enter()), so that a machine whose deep state is an I/O port read
 * (Zen's CC6) can be measured at all: MWAIT's hints reach only C1 there.
 *
 * What acpi_idle does (drivers/acpi/processor_idle.c, 6.1 and 6.12):
 * acpi_idle_do_entry() runs HLT for ACPI_CSTATE_HALT (acpi_safe_halt(),
 * which the idle VERW precedes like any HLT of the kernel's idle), and for
 * ACPI_CSTATE_SYSTEMIO reads the state's port with IRQs off, then the
 * PM timer once more (6.1's wait_for_freeze(), 6.12's io_idle()) unless
 * the CPU runs under a hypervisor or is not Intel's.  For a C3-type state
 * acpi_idle_enter() flushes the caches (ACPI_FLUSH_CPU_CACHE) when the
 * processor has no bm_check; with bm_check and bm_control it sets ARB_DIS
 * once every CPU is in C3, counted under its own static lock, which no
 * module can take: that case is refused.  FFH entries go through MWAIT
 * with an ECX kept in arch/x86's private per-CPU table, so the module
 * cannot know it either: refused too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/acpi.h>
#include <linux/cpuidle.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <acpi/processor.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>

#include "idlelab_arch.h"
#include "idlelab_kcommon.h"
#include "cstate.h"

/* The UAPI's entries are the kernel's plus one (0: none resolved). */
static_assert(ACPI_CSTATE_SYSTEMIO + 1 == IDLELAB_ACPI_ENTRY_SYSTEMIO);
static_assert(ACPI_CSTATE_FFH + 1 == IDLELAB_ACPI_ENTRY_FFH);
static_assert(ACPI_CSTATE_HALT + 1 == IDLELAB_ACPI_ENTRY_HALT);
static_assert(IDLELAB_ACPI_MAX_STATES == ACPI_PROCESSOR_MAX_POWER);

/* acpi_idle is the cpuidle driver: the parsed states are the ones in use. */
static struct cpuidle_driver *il_acpi_driver(void)
{
	struct cpuidle_driver *drv = cpuidle_get_driver();

	return drv && !strcmp(drv->name, "acpi_idle") ? drv : NULL;
}

/*
 * The cpuidle index of power.states[@idx]: acpi_idle names the state it
 * registers for it "C<idx>" and leaves out the invalid ones and those past
 * processor.max_cstate.  Return: the index, or -1 when it registered none.
 */
static int il_acpi_cpuidle_index(struct cpuidle_driver *drv, u32 idx)
{
	char name[CPUIDLE_NAME_LEN];
	int k;

	snprintf(name, sizeof(name), "C%u", idx);
	for (k = 0; k < drv->state_count; k++)
		if (!strcmp(drv->states[k].name, name))
			return k;
	return -1;
}

/*
 * Is cpuidle state @k disabled on @cpu, by the user (disable) or by the
 * driver (default_status)?  An attribute that cannot be read counts as
 * disabled: the policy is then unknown, and the override says so.
 */
static bool il_acpi_disabled(unsigned int cpu, int k)
{
	char v[16];

	if (il_cpuidle_attr(cpu, k, "disable", v, sizeof(v)) || v[0] != '0')
		return true;
	/* Older kernels lack it: then only the user's bit exists. */
	if (il_cpuidle_attr(cpu, k, "default_status", v, sizeof(v)))
		return false;
	return !strncmp(v, "disabled", 8);
}

/* The entry itself: 0, or IDLELAB_UNSUP_CST_ENTRY. */
static u32 il_acpi_entry_of(const struct acpi_processor_cx *cx,
			    struct il_acpi_entry *e)
{
	switch (cx->entry_method) {
	case ACPI_CSTATE_HALT:
		return IDLELAB_UNSUP_NONE;
	case ACPI_CSTATE_SYSTEMIO:
		if (cx->address > 0xffff)
			return IDLELAB_UNSUP_CST_ENTRY;
		e->port = (u16)cx->address;
		/* The dummy wait, only where acpi_idle does it. */
		if (!boot_cpu_has(X86_FEATURE_HYPERVISOR) &&
		    boot_cpu_data.x86_vendor == X86_VENDOR_INTEL) {
			e->pmtmr = true;
			e->pmtmr_port = (u32)acpi_gbl_FADT.xpm_timer_block.address;
		}
		return IDLELAB_UNSUP_NONE;
	}
	return IDLELAB_UNSUP_CST_ENTRY;
}

/* The bus-master handling asked for: 0, or IDLELAB_UNSUP_CST_ENTRY. */
static u32 il_acpi_bm(u32 bm, const struct acpi_processor *pr,
		      const struct acpi_processor_cx *cx,
		      struct il_acpi_entry *e)
{
	if (bm == IDLELAB_ACPI_BM_FLUSH)
		e->flush = true;
	if (bm != IDLELAB_ACPI_BM_KERNEL || cx->type != ACPI_STATE_C3)
		return IDLELAB_UNSUP_NONE;
	if (!pr->flags.bm_check)
		e->flush = true;
	else if (pr->flags.bm_control)
		return IDLELAB_UNSUP_CST_ENTRY;
	return IDLELAB_UNSUP_NONE;
}

/**
 * il_acpi_resolve - find and check the ACPI state @req names on its CPU
 * @req:	a checked METHOD_ACPI request; its CPU is online
 * @e:		filled in: how to enter it, and the acpi_out word
 * @why:	set to an IDLELAB_UNSUP_* reason, or IDLELAB_UNSUP_NONE
 *
 * Read once, before any worker starts: the samples use only @e, so the
 * processor's states may change (a _CST notification) without the run
 * reading them half-written.
 *
 * Return: 0, or -EINVAL for an index past the CPU's power.count.
 */
int il_acpi_resolve(const struct idlelab_cstate_req *req,
		    struct il_acpi_entry *e, u32 *why)
{
	u32 idx = IDLELAB_ACPI_REQ_INDEX(req->acpi_req);
	struct acpi_processor_cx *cx;
	struct cpuidle_driver *drv;
	struct acpi_processor *pr;
	int k;

	memset(e, 0, sizeof(*e));
	*why = IDLELAB_UNSUP_NONE;
	pr = per_cpu(processors, req->cpu);
	drv = il_acpi_driver();
	if (!pr || !pr->flags.power || !drv) {
		*why = IDLELAB_UNSUP_NO_CST;
		return 0;
	}
	if (idx > (u32)pr->power.count)
		return -EINVAL;
	cx = &pr->power.states[idx];
	e->out = (cx->type & 3U) << 18 |
		 (u32)((cx->entry_method + 1) & 3) << 16 |
		 (pr->flags.bm_check ? IDLELAB_ACPI_OUT_BM_CHECK : 0) |
		 (pr->flags.bm_control ? IDLELAB_ACPI_OUT_BM_CONTROL : 0);
	if (!(req->flags & IDLELAB_CSTATE_F_POLICY_OVERRIDE)) {
		k = il_acpi_cpuidle_index(drv, idx);
		if (!cx->valid || k < 0 || il_acpi_disabled(req->cpu, k)) {
			*why = IDLELAB_UNSUP_STATE_DISABLED;
			return 0;
		}
	}
	*why = il_acpi_entry_of(cx, e);
	if (!*why)
		*why = il_acpi_bm(IDLELAB_ACPI_REQ_BM(req->acpi_req), pr, cx,
				  e);
	e->halt = cx->entry_method == ACPI_CSTATE_HALT;
	e->out |= e->port | (e->flush ? IDLELAB_ACPI_OUT_FLUSH : 0) |
		  (e->pmtmr ? IDLELAB_ACPI_OUT_PMTMR : 0);
	return 0;
}

/**
 * il_acpi_enter - one entry of the resolved state, IRQs off
 * @e:		the resolved entry
 * @s:		the sample: t_entry, t_exit, and the flush's cycles
 *
 * Returns with IRQs on after HLT (an interrupt ended it, and was taken
 * before t_exit), off after an I/O port read (it is taken at the caller's
 * local_irq_enable(), after t_exit, as acpi_idle's caller takes it).
 *
 * Return: 0, or the fault of the flush's WBINVD.
 */
int il_acpi_enter(const struct il_acpi_entry *e,
		  struct idlelab_cstate_sample *s)
{
	u64 t0;

	if (e->flush) {
		t0 = il_tsc();
		if (il_wbinvd_safe())
			return -EOPNOTSUPP;
		s->wbinvd_cycles = il_tsc() - t0;
		s->flags |= IDLELAB_SAMPLE_WBINVD;
	}
	if (e->halt) {
		il_idle_clear_cpu_buffers();
		s->t_entry = il_tsc();
		il_sti_hlt();
		s->t_exit = il_tsc();
		return 0;
	}
	s->t_entry = il_tsc();
	inb(e->port);
	if (e->pmtmr)
		inl(e->pmtmr_port);
	s->t_exit = il_tsc();
	return 0;
}
