// SPDX-License-Identifier: GPL-2.0-only
/*
 * common_busy.c - the busy baseline of the spinning-target benchmarks
 * (common.h, `baseline: busy`): CPUs that are not targets of the timed
 * call are kept spinning by a separate process, so that going from 0 to k
 * targets changes only who the k CPUs run, not how many CPUs are busy.
 * With idle non-targets, adding targets also turns idle CPUs into
 * spinners, which changes SMT contention on the timer's core and the
 * package's frequency, and the difference is charged to the IPIs.
 *
 * One forked process per busy CPU, each bound to its CPU.  A separate
 * process has its own mm, so membarrier(PRIVATE_EXPEDITED) and this mm's
 * TLB flushes have no reason to interrupt it: it keeps the CPU busy without
 * being a target.  Each child spins while its CPU is not a target and
 * sleeps on a shared futex while it is, so a target spinner never shares
 * its CPU with it.  The control words live in a MAP_SHARED page; the
 * children touch nothing else, call only system calls after fork() (the
 * parent has threads) and end with _exit(), on request or when the parent
 * dies (PR_SET_PDEATHSIG).
 */
#include "common.h"
#include "err.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct il_busy_shared {
	uint32_t gen __attribute__((aligned(IL_CACHELINE)));
	uint32_t targets;	/* CPUs [0, targets) of the list are targets */
	uint32_t quit;
	uint64_t state[] __attribute__((aligned(IL_CACHELINE)));
};

/* Process-shared futex: the words are in a MAP_SHARED page. */
static void shared_wait(uint32_t *w, uint32_t val)
{
	struct timespec ts = { 0, IL_WAIT_SLICE_NS };

	syscall(SYS_futex, w, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void shared_wake(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

static void __attribute__((noreturn)) busy_child(struct il_busy_shared *sh,
						 int i, int cpu, pid_t parent)
{
	cpu_set_t set;
	uint32_t g;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(3);
	for (;;) {
		g = __atomic_load_n(&sh->gen, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&sh->quit, __ATOMIC_ACQUIRE))
			_exit(0);
		if ((uint32_t)i >= __atomic_load_n(&sh->targets, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&sh->state[i], (uint64_t)g << 1 | 1,
					 __ATOMIC_RELEASE);
			while (__atomic_load_n(&sh->gen, __ATOMIC_ACQUIRE) == g)
				il_cpu_relax();
		} else {
			__atomic_store_n(&sh->state[i], (uint64_t)g << 1,
					 __ATOMIC_RELEASE);
			shared_wait(&sh->gen, g);
		}
	}
}

int il_busy_start(struct il_busy *b, const int *cpus, int n)
{
	pid_t parent = getpid();
	int i;

	memset(b, 0, sizeof(*b));
	b->n = n;
	b->size = sizeof(*b->sh) + (size_t)n * sizeof(uint64_t);
	b->sh = mmap(NULL, b->size, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b->sh == MAP_FAILED) {
		b->sh = NULL;
		return il_errorf(-errno, "baseline busy: mmap: %s", strerror(errno));
	}
	/* Every CPU a target until the first il_busy_set(): asleep. */
	b->sh->targets = (uint32_t)n;
	b->pid = calloc((size_t)n + 1, sizeof(*b->pid));
	if (!b->pid)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0)
			return il_errorf(-errno, "baseline busy: fork for CPU %d: %s",
					 cpus[i], strerror(errno));
		if (!p)
			busy_child(b->sh, i, cpus[i], parent);
		b->pid[i] = p;
	}
	return il_busy_set(b, n);
}

int il_busy_set(struct il_busy *b, int targets)
{
	uint64_t deadline = il_now_ns(CLOCK_MONOTONIC) + IL_SPIN_SETTLE_NS;
	uint32_t g;
	int i = 0;

	__atomic_store_n(&b->sh->targets, (uint32_t)targets, __ATOMIC_RELEASE);
	g = __atomic_add_fetch(&b->sh->gen, 1, __ATOMIC_ACQ_REL);
	shared_wake(&b->sh->gen);
	while (i < b->n) {
		uint64_t want = (uint64_t)g << 1 | (i >= targets);

		if (__atomic_load_n(&b->sh->state[i], __ATOMIC_ACQUIRE) == want) {
			i++;
			continue;
		}
		if (il_stop_requested())
			return -EINTR;
		if (il_now_ns(CLOCK_MONOTONIC) > deadline) {
			int st;

			if (waitpid(b->pid[i], &st, WNOHANG) == b->pid[i]) {
				b->pid[i] = 0;
				return il_errorf(-ECHILD, "baseline busy: the process for its CPU %d exited (status %d)",
						 i, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
			}
			return il_errorf(-ETIMEDOUT, "baseline busy: process %d did not %s within %llu s",
					 i, i >= targets ? "start spinning" : "park",
					 IL_SPIN_SETTLE_NS / 1000000000ull);
		}
		il_cpu_relax();
	}
	return 0;
}

void il_busy_stop(struct il_busy *b)
{
	uint64_t deadline;
	int i, st;

	if (!b->sh)
		return;
	__atomic_store_n(&b->sh->quit, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&b->sh->gen, 1, __ATOMIC_ACQ_REL);
	shared_wake(&b->sh->gen);
	deadline = il_now_ns(CLOCK_MONOTONIC) + 2000000000ull;
	for (i = 0; b->pid && i < b->n; i++) {
		if (b->pid[i] <= 0)
			continue;
		/* Bounded: a child that does not leave is killed. */
		while (waitpid(b->pid[i], &st, WNOHANG) == 0) {
			if (il_now_ns(CLOCK_MONOTONIC) > deadline) {
				kill(b->pid[i], SIGKILL);
				waitpid(b->pid[i], &st, 0);
				break;
			}
			usleep(1000);
		}
		b->pid[i] = 0;
	}
	free(b->pid);
	munmap(b->sh, b->size);
	memset(b, 0, sizeof(*b));
}
