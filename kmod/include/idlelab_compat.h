/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlelab_compat.h - the kernel-version differences the idlelab modules
 * meet on the kernels they build and run on (the rig tests Debian's 6.1
 * and 6.12), each with the release that made it and how it is handled.
 * Nothing else in kmod/ may depend on a kernel version; a difference that
 * one day needs a version test gets its macro here.
 *
 * 6.12 removed no_llseek().  A file_operations without .llseek already
 * meant the same on every older kernel the modules support (vfs_llseek()
 * fell back to no_llseek(), so seeking fails with -ESPIPE), so the misc
 * devices (IL_MISCDEV in idlelab_kcommon.h) leave .llseek unset and need
 * no test.
 *
 * 6.6 turned the APIC driver's callbacks (apic_read(), apic_write(), the
 * ICR accessors behind apic->icr_write) into static calls, whose keys are
 * not exported to modules (modpost: __SCT__apic_call_read undefined), and
 * dropped apic->wait_icr_idle().  The IPI module therefore reaches the
 * APIC the same way on every kernel, through the x2APIC MSRs or the
 * mapped xAPIC page with the kernel's inline accessors
 * (idlelab_apic_access.h); only the exported apic->name and x2apic_mode
 * are read from the kernel's APIC driver.
 *
 * The idle-entry VERW needs no shim: 6.1 and 6.12 both name it
 * x86_idle_clear_cpu_buffers() in asm/nospec-branch.h, behind the static
 * key cpu_buf_idle_clear, exported GPL on both (older kernels called them
 * mds_idle_clear_cpu_buffers() and mds_idle_clear).
 */
#ifndef IDLELAB_COMPAT_H
#define IDLELAB_COMPAT_H

#endif
