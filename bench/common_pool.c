// SPDX-License-Identifier: GPL-2.0-only
/*
 * common_pool.c - pinned worker threads behind a start gate, and the futex
 * and absolute-sleep wrappers the user-space benchmarks time with
 * (common.h).  A pool's threads are created and pinned first and released
 * together, so thread creation never falls inside a measurement.  The
 * controls (common_controls.c) and the spinning targets (common_spin.c)
 * are the other two parts of common.h.
 */
#include "common.h"
#include "err.h"

#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Small stacks: the workers are shallow, and under mlockall(MCL_FUTURE)
 * every stack byte is locked and populated. */
#define IL_WORKER_STACK	(1u << 20)

enum {
	IL_GATE_WAIT,
	IL_GATE_GO,
	IL_GATE_ABORT,
};

int il_futex_wait(uint32_t *word, uint32_t val, uint64_t timeout_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / 1000000000u),
		.tv_nsec = (long)(timeout_ns % 1000000000u),
	};

	if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val,
		    timeout_ns ? &ts : NULL, NULL, 0))
		return -errno;
	return 0;
}

int il_futex_wake(uint32_t *word, int n)
{
	long r = syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);

	return r < 0 ? -errno : (int)r;
}

int il_wait_turn(uint32_t *turn, uint32_t k)
{
	uint32_t t;

	/* Bounded waits, so a stop request is seen within a slice. */
	while ((t = __atomic_load_n(turn, __ATOMIC_ACQUIRE)) != k) {
		if (il_stop_requested())
			return 1;
		il_futex_wait(turn, t, IL_WAIT_SLICE_NS);
	}
	return 0;
}

int il_sleep_until(clockid_t clk, uint64_t t_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / 1000000000u),
		.tv_nsec = (long)(t_ns % 1000000000u),
	};
	int r;

	/* clock_nanosleep returns the error; it does not set errno.  With
	 * TIMER_ABSTIME a restart after a signal keeps the same deadline. */
	while ((r = clock_nanosleep(clk, TIMER_ABSTIME, &ts, NULL)) == EINTR)
		;
	return -r;
}

/* ---- worker pool ----------------------------------------------------- */

static void worker_fail(struct il_worker *w, int ret)
{
	w->ret = ret;
	snprintf(w->err, sizeof(w->err), "%s", il_errmsg());
}

static void *pool_thread(void *arg)
{
	struct il_worker *w = arg;
	struct il_pool *p = w->pool;
	int ret, gate;

	il_errclear();
	ret = il_bind_self(p->run->topo, w->cpu);
	if (!ret && p->init)
		ret = p->init(w);
	if (ret)
		worker_fail(w, ret);

	pthread_mutex_lock(&p->lock);
	p->nready++;
	pthread_cond_broadcast(&p->cond);
	while (p->gate == IL_GATE_WAIT)
		pthread_cond_wait(&p->cond, &p->lock);
	gate = p->gate;
	pthread_mutex_unlock(&p->lock);

	if (gate == IL_GATE_GO && !w->ret) {
		ret = p->fn(w);
		if (ret)
			worker_fail(w, ret);
	}
	return NULL;
}

static void pool_open_gate(struct il_pool *p, int gate)
{
	pthread_mutex_lock(&p->lock);
	p->gate = gate;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void pool_join(struct il_pool *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		if (p->w[i].created)
			pthread_join(p->w[i].tid, NULL);
		p->w[i].created = false;
	}
	p->live = false;
}

static void pool_free(struct il_pool *p)
{
	if (!p->w)
		return;
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->w);
	p->w = NULL;
}

/* The first failure of a worker, raised again in the calling thread. */
static int pool_error(struct il_pool *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->w[i].ret)
			return il_errorf(p->w[i].ret, "CPU %d: %s", p->w[i].cpu,
					 p->w[i].err);
	return 0;
}

int il_pool_start(struct il_pool *p, struct il_run *run, int n,
		  const int *cpus, il_worker_fn init, il_worker_fn fn,
		  void *arg)
{
	pthread_attr_t attr;
	int i, ret = 0, created = 0;

	memset(p, 0, sizeof(*p));
	if (n <= 0)
		return il_errorf(-EINVAL, "no CPU to run on");
	p->w = calloc((size_t)n, sizeof(*p->w));
	if (!p->w)
		return il_errorf(-ENOMEM, "out of memory for %d threads", n);
	p->run = run;
	p->arg = arg;
	p->n = n;
	p->init = init;
	p->fn = fn;
	p->gate = IL_GATE_WAIT;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, IL_WORKER_STACK);
	p->live = true;
	for (i = 0; i < n; i++) {
		struct il_worker *w = &p->w[i];

		w->pool = p;
		w->idx = i;
		w->cpu = cpus[i];
		ret = pthread_create(&w->tid, &attr, pool_thread, w);
		if (ret) {
			ret = il_errorf(-ret, "cannot create a thread for CPU %d: %s",
					cpus[i], strerror(ret));
			break;
		}
		w->created = true;
		created++;
	}
	pthread_attr_destroy(&attr);

	pthread_mutex_lock(&p->lock);
	while (p->nready < created)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	if (!ret)
		ret = pool_error(p);
	if (ret) {
		pool_open_gate(p, IL_GATE_ABORT);
		pool_join(p);
		pool_free(p);
	}
	return ret;
}

int il_pool_run(struct il_pool *p)
{
	if (!p->w || !p->live)
		return il_errorf(-EINVAL, "worker threads not started");
	pool_open_gate(p, IL_GATE_GO);
	pool_join(p);
	return pool_error(p);
}

void il_pool_stop(struct il_pool *p)
{
	if (!p->w)
		return;
	if (p->live) {
		pool_open_gate(p, IL_GATE_ABORT);
		pool_join(p);
	}
	pool_free(p);
}
