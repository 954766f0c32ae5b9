/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace_capture.h - the kernel trace events recorded around a --causes run,
 * on the measured CPUs only, through tracefs.
 *
 * The capture lives in a tracefs instance of its own (instances/idlelab-PID),
 * so the top-level buffer and whatever else uses tracefs are never touched:
 * the buffer size, trace_clock, enabled events, tracing_cpumask and
 * tracing_on are the instance's.  Making the instance (and mounting tracefs
 * where it is not mounted) goes through the trace journal
 * (trace_journal.c) first, so a run killed with SIGKILL leaves nothing
 * behind once `idlelab restore` has run: removing the instance undoes every
 * setting inside it, unmounting undoes the mount.  The one top-level
 * setting touched, options/record-cmd, is off only while the instance is
 * made (trace_capture.c, instance_make()) and is journalled too.
 *
 * libtracefs reads the per-CPU binary buffers (trace_pipe_raw) and
 * libtraceevent parses the records with the kernel's own event formats;
 * this file only keeps, per CPU, the few fields attribution needs.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_TRACE_CAPTURE_H
#define IDLELAB_TRACE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

/* The trace clock, chosen to match how the benchmark stamps its samples. */
enum il_trace_clock {
	IL_TRACE_CLOCK_TSC,	/* "x86-tsc": raw TSC cycles */
	IL_TRACE_CLOCK_MONO,	/* "mono": CLOCK_MONOTONIC ns */
};

/* What one kept event is. */
enum il_trace_ev_type {
	IL_TEV_IRQ_ENTRY,	/* a = irq, name = handler name */
	IL_TEV_IRQ_EXIT,	/* a = irq */
	IL_TEV_SOFTIRQ_ENTRY,	/* a = vector */
	IL_TEV_SOFTIRQ_EXIT,	/* a = vector */
	IL_TEV_VEC_ENTRY,	/* name = irq_vectors event less "_entry" */
	IL_TEV_VEC_EXIT,	/* name = the same, less "_exit" */
	IL_TEV_NMI,		/* b = delta_ns of the handler (ends at ts) */
	IL_TEV_SWITCH,		/* a = next_pid, b = next_prio, name = next_comm */
	IL_TEV_WAKEUP,		/* a = pid woken, name = comm */
	IL_TEV_IDLE,		/* a = state (-1 for the exit) */
};

#define IL_TEV_NAME	32

struct il_trace_ev {
	uint64_t ts;		/* in the trace clock's unit */
	uint32_t seq;		/* read order, to keep equal stamps ordered */
	uint8_t type;		/* enum il_trace_ev_type */
	int32_t a;
	int64_t b;
	char name[IL_TEV_NAME];
};

struct il_trace_cpu {
	int cpu;
	size_t n, cap;
	struct il_trace_ev *ev;	/* sorted by ts once read */
	/* The ring buffer's own count of what it lost (overrun + commit
	 * overrun + dropped events of per_cpu/cpuN/stats); -1 unreadable. */
	int64_t lost;
};

struct il_trace {
	enum il_trace_clock clock;
	bool lean;			/* --causes-lean's shorter event list */
	uint64_t buffer_kb;		/* per CPU, as the kernel took it */
	int ncpus;
	struct il_trace_cpu *cpu;
	/* The benchmark process's own threads while it ran: their time on
	 * the CPU is the sample itself, not a cause. */
	int ntids;
	pid_t *tids;
	/* Tasks whose comm starts so are the benchmark's too (NULL: none). */
	const char *self_comm;
	uint64_t nevents;
	/* private */
	struct tracefs_instance *inst;
	char inst_dir[256];
	int lock_fd;
	int mounted;
	int record_cmd_off;		/* top-level record-cmd turned off, journalled */
	int closed;
	uint32_t seq;
};

/**
 * il_trace_unavailable() - NULL when a capture can start here, else why
 * not (not root, no tracefs, an event missing).  Mounts nothing.
 */
const char *il_trace_unavailable(void);

/** il_trace_clock_name() - "x86-tsc" or "mono", as tracefs names it. */
const char *il_trace_clock_name(enum il_trace_clock c);

/**
 * il_trace_buffer_kb() - the per-CPU buffer for @duration_ns of events at
 * @events_per_s per CPU (each kept event is about 40 bytes in the ring),
 * with headroom, within [256 KiB, 256 MiB].
 */
uint64_t il_trace_buffer_kb(uint64_t duration_ns, uint64_t events_per_s);

/**
 * il_trace_events_name() - the event list recorded, in words: "full", or
 * the lean one's with what it leaves out (stored as run attribute
 * causes_events).
 */
const char *il_trace_events_name(bool lean);

/**
 * il_trace_start() - journal, then make the instance, set its buffer
 * (@buffer_kb per CPU), clock, cpumask (@cpus) and events (@lean: the
 * lean list, see trace_capture.c), and turn it on.
 * Return: 0 with *@out set; -EBUSY if another run holds the trace
 * journal; -EOPNOTSUPP/-EACCES where tracing cannot be had (message set).
 */
int il_trace_start(struct il_trace **out, const int *cpus, int ncpus,
		   enum il_trace_clock clock, uint64_t buffer_kb, bool lean);

/**
 * il_trace_stop() - turn the instance off, read each CPU's lost-event
 * count, then every record of the measured CPUs, sorted by time per CPU.
 * Return: 0 or -errno (message set).
 */
int il_trace_stop(struct il_trace *t);

/**
 * il_trace_close() - remove the instance, unmount tracefs if this run
 * mounted it, drop the journal; the events read stay in @t.  Idempotent.
 * Return: 0, or -errno (the journal is then kept for `idlelab restore`).
 */
int il_trace_close(struct il_trace *t);

/**
 * il_trace_free() - il_trace_close(), then free @t (NULL is a no-op).
 * Return: il_trace_close()'s.
 */
int il_trace_free(struct il_trace *t);

#endif
