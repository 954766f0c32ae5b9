// SPDX-License-Identifier: GPL-2.0-only
/*
 * common.c - the helpers shared by the user-space benchmarks (common.h):
 * pinned worker threads behind a start gate, the futex wrapper, the
 * scheduling and memory controls cyclictest applies (each recorded with
 * what was actually obtained), the clock choice, and the spinning targets
 * of the IPI benchmarks with the frame around them.
 */
#include "common.h"
#include "err.h"
#include "pmqos.h"
#include "sysfs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IL_QOS_PATH	IL_PM_QOS_PATH
#define IL_CLOCKSOURCE	"/sys/devices/system/clocksource/clocksource0/current_clocksource"

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

/* ---- controls -------------------------------------------------------- */

static const char *policy_name(int pol)
{
	switch (pol) {
	case SCHED_OTHER:
		return "SCHED_OTHER";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_BATCH:
		return "SCHED_BATCH";
	case SCHED_IDLE:
		return "SCHED_IDLE";
	}
	return "unknown";
}

int il_sched_fifo(struct il_run *run, int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err = 0, pol = -1;

	if (prio > 0)
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (pthread_getschedparam(pthread_self(), &pol, &sp)) {
		pol = -1;
		sp.sched_priority = 0;
	}
	if (prio <= 0)
		il_run_attr(run, cpu, "sched_policy", "%s %d (SCHED_FIFO not requested)",
			    policy_name(pol), sp.sched_priority);
	else if (err)
		il_run_attr(run, cpu, "sched_policy", "%s %d (SCHED_FIFO %d refused: %s)",
			    policy_name(pol), sp.sched_priority, prio,
			    strerror(err));
	else
		il_run_attr(run, cpu, "sched_policy", "%s %d",
			    policy_name(pol), sp.sched_priority);
	if (prio <= 0 || (!err && pol == SCHED_FIFO))
		return 0;
	return err ? -err : -EPERM;
}

int il_timer_slack(struct il_run *run, int cpu, unsigned long ns)
{
	int ret = 0;
	int got;

	if (prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0))
		ret = -errno;
	got = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (got < 0)
		il_run_attr(run, cpu, "timer_slack_ns", "unknown: %s",
			    strerror(errno));
	else if (ret)
		il_run_attr(run, cpu, "timer_slack_ns", "%d (setting %lu refused: %s)",
			    got, ns, strerror(-ret));
	else
		il_run_attr(run, cpu, "timer_slack_ns", "%d", got);
	return ret;
}

#if !defined(__SANITIZE_ADDRESS__)
/*
 * Locked memory of this process in kB from /proc/self/status, or -1 if
 * unknown.  Non-zero means someone (a campaign's envctl mlockall, say)
 * locked memory before us, and it is not ours to unlock afterwards.
 */
static long locked_kb(void)
{
	char *buf = NULL, *p;
	long kb = -1;

	if (il_fs_read_all("/proc/self/status", &buf)) {
		il_errclear();
		return -1;
	}
	p = strstr(buf, "\nVmLck:");
	if (p)
		kb = strtol(p + 8, NULL, 10);
	free(buf);
	return kb;
}
#endif

bool il_mlock_all(struct il_run *run)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan reserves terabytes of shadow memory and ignores mlockall. */
	il_run_attr(run, -1, "mlockall", "no: not done under AddressSanitizer");
	return false;
#else
	long before = locked_kb();

	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		il_run_attr(run, -1, "mlockall", "no: %s", strerror(errno));
		return false;
	}
	if (before) {
		/* Locked already (or unknown): leave it so afterwards. */
		il_run_attr(run, -1, "mlockall", before > 0 ?
			    "yes (memory was already locked; left so)" :
			    "yes (left locked: the lock state before is unknown)");
		return false;
	}
	il_run_attr(run, -1, "mlockall", "yes");
	return true;
#endif
}

void il_munlock_all(void)
{
	munlockall();
}

int il_pm_qos_hold(struct il_run *run, uint64_t us)
{
	int32_t v = us > INT32_MAX ? INT32_MAX : (int32_t)us, cur;
	int fd, ret;

	fd = il_fs_open(IL_QOS_PATH, O_WRONLY);
	if (fd < 0) {
		il_run_attr(run, -1, "pm_qos_us", "unavailable: %s", il_errmsg());
		return fd;
	}
	if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		ret = -errno;
		il_run_attr(run, -1, "pm_qos_us", "unavailable: writing %s: %s",
			    IL_QOS_PATH, strerror(errno));
		close(fd);
		return ret ? ret : -EIO;
	}
	il_run_attr(run, -1, "pm_qos_us", "%" PRId32, v);
	/* The kernel takes the minimum of every open request; what it
	 * enforces is what matters for the figures. */
	if (il_fs_read_bin(IL_QOS_PATH, &cur, sizeof(cur)) == (int)sizeof(cur))
		il_run_attr(run, -1, "pm_qos_effective_us", "%" PRId32, cur);
	return fd;
}

void il_pm_qos_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* ---- clock ----------------------------------------------------------- */

void il_clock_pick(struct il_run *run, struct il_clock *c, bool cross_cpu)
{
	uint64_t khz = il_tsc_khz();
	char cs[64] = "";

	c->tsc = false;
	if (!khz) {
		il_run_attr(run, -1, "clock",
			    "CLOCK_MONOTONIC (no calibrated TSC)");
		return;
	}
	if (cross_cpu && (il_fs_read(IL_CLOCKSOURCE, cs, sizeof(cs)) ||
			  strcmp(cs, "tsc"))) {
		il_run_attr(run, -1, "clock",
			    "CLOCK_MONOTONIC (clocksource '%s' is not tsc, so TSCs across CPUs are not trusted)",
			    cs[0] ? cs : "unknown");
		return;
	}
	c->tsc = true;
	run->tsc_khz = khz;
	il_run_attr(run, -1, "clock", "tsc %" PRIu64 " kHz", khz);
}

/* ---- placement ------------------------------------------------------- */

int il_bench_cpus(struct il_run *run, int **cpus)
{
	int n = il_place_cpus(&run->place, NULL, 0);

	*cpus = NULL;
	if (n < 0)
		return n;
	if (n == 0)
		return il_errorf(-EINVAL, "placement '%s' has no CPU",
				 run->place.spec);
	*cpus = malloc((size_t)n * sizeof(**cpus));
	if (!*cpus)
		return il_errorf(-ENOMEM, "out of memory");
	return il_place_cpus(&run->place, *cpus, n);
}

int il_check_targets(struct il_run *run, const struct il_u64_list *t,
		     int nspin)
{
	int i, j;

	if (t->n <= 0)
		return il_errorf(-EINVAL, "parameter 'targets': empty list");
	for (i = 0; i < t->n; i++) {
		if (t->v[i] > (uint64_t)nspin)
			return il_errorf(-EINVAL,
					 "parameter 'targets': %" PRIu64 " targets need %" PRIu64 " placed CPUs (one timer + the targets), but --cpus '%s' places %d",
					 t->v[i], t->v[i] + 1, run->place.spec,
					 nspin + 1);
		for (j = 0; j < i; j++)
			if (t->v[j] == t->v[i])
				return il_errorf(-EINVAL,
						 "parameter 'targets': %" PRIu64 " is listed twice",
						 t->v[i]);
	}
	return 0;
}

/* ---- spinning targets ------------------------------------------------ */

int il_spin_init(struct il_spin_ctl *c, int nspin, const volatile char *touch)
{
	memset(c, 0, sizeof(*c));
	c->nspin = nspin;
	c->touch = touch;
	if (!nspin)
		return 0;
	c->slot = aligned_alloc(IL_CACHELINE, (size_t)nspin * sizeof(*c->slot));
	c->mark = calloc((size_t)nspin, sizeof(*c->mark));
	if (!c->slot || !c->mark) {
		il_spin_free(c);
		return il_errorf(-ENOMEM, "out of memory for %d spinners", nspin);
	}
	memset(c->slot, 0, (size_t)nspin * sizeof(*c->slot));
	return 0;
}

void il_spin_free(struct il_spin_ctl *c)
{
	free(c->slot);
	free(c->mark);
	c->slot = NULL;
	c->mark = NULL;
}

int il_spinner(struct il_spin_ctl *c, int i)
{
	struct il_spin_slot *s = &c->slot[i];
	uint64_t laps = 0;
	uint32_t g;

	for (;;) {
		g = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&c->quit, __ATOMIC_ACQUIRE))
			return 0;
		if ((uint32_t)i < __atomic_load_n(&c->active, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&s->state, (uint64_t)g << 1 | 1,
					 __ATOMIC_RELEASE);
			/* Stay on the CPU, in this process, reading: that
			 * is what puts the CPU in the IPI target set. */
			while (__atomic_load_n(&c->gen, __ATOMIC_ACQUIRE) == g) {
				if (c->touch)
					(void)*c->touch;
				__atomic_store_n(&s->laps, ++laps,
						 __ATOMIC_RELEASE);
				il_cpu_relax();
			}
		} else {
			__atomic_store_n(&s->state, (uint64_t)g << 1,
					 __ATOMIC_RELEASE);
			/* Parked asleep, the CPU does not run this process
			 * and is not a target; the timeout only bounds a
			 * missed wake-up. */
			il_futex_wait(&c->gen, g, IL_WAIT_SLICE_NS);
		}
	}
}

static int settle_check(uint64_t deadline, const char *what, int i)
{
	if (il_stop_requested())
		return -EINTR;
	if (il_now_ns(CLOCK_MONOTONIC) > deadline)
		return il_errorf(-ETIMEDOUT, "spinner %d did not %s within %llu s",
				 i, what, IL_SPIN_SETTLE_NS / 1000000000ull);
	il_cpu_relax();
	return 0;
}

int il_spin_set(struct il_spin_ctl *c, int n)
{
	uint64_t deadline = il_now_ns(CLOCK_MONOTONIC) + IL_SPIN_SETTLE_NS;
	uint32_t g;
	int i = 0, ret;

	__atomic_store_n(&c->active, (uint32_t)n, __ATOMIC_RELEASE);
	g = __atomic_add_fetch(&c->gen, 1, __ATOMIC_ACQ_REL);
	il_futex_wake(&c->gen, INT_MAX);
	while (i < c->nspin) {
		uint64_t want = (uint64_t)g << 1 | (i < n);

		if (__atomic_load_n(&c->slot[i].state, __ATOMIC_ACQUIRE) == want) {
			i++;
			continue;
		}
		ret = settle_check(deadline, i < n ? "start spinning" : "park", i);
		if (ret)
			return ret;
	}
	return 0;
}

int il_spin_wait_laps(struct il_spin_ctl *c, int n)
{
	uint64_t deadline = il_now_ns(CLOCK_MONOTONIC) + IL_SPIN_SETTLE_NS;
	uint64_t snap[64];
	int base, i, m, ret;

	/* The lap a spinner is in may have read before now; the one after it
	 * started after the snapshot, so two laps on is a whole fresh pass. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (base = 0; base < n; base += m) {
		m = n - base < 64 ? n - base : 64;
		for (i = 0; i < m; i++)
			snap[i] = __atomic_load_n(&c->slot[base + i].laps,
						  __ATOMIC_ACQUIRE);
		for (i = 0; i < m; ) {
			if (__atomic_load_n(&c->slot[base + i].laps,
					    __ATOMIC_ACQUIRE) >= snap[i] + 2) {
				i++;
				continue;
			}
			ret = settle_check(deadline, "complete a lap", base + i);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void il_spin_mark(struct il_spin_ctl *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		c->mark[i] = __atomic_load_n(&c->slot[i].laps, __ATOMIC_ACQUIRE);
}

bool il_spin_all_moved(const struct il_spin_ctl *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (__atomic_load_n(&c->slot[i].laps, __ATOMIC_ACQUIRE) ==
		    c->mark[i])
			return false;
	return true;
}

void il_spin_quit(struct il_spin_ctl *c)
{
	__atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&c->gen, 1, __ATOMIC_ACQ_REL);
	il_futex_wake(&c->gen, INT_MAX);
}

/* ---- the frame of the spinning-target benchmarks --------------------- */

int il_spin_bench_init(struct il_spin_bench *b, struct il_run *run,
		       const struct il_u64_list *targets, uint64_t samples,
		       uint64_t tries)
{
	int i, ret;

	memset(b, 0, sizeof(*b));
	b->targets = targets;
	b->samples = samples;
	b->tries = tries;
	ret = il_bench_cpus(run, &b->cpus);
	if (ret < 0)
		return ret;
	b->n = ret;
	ret = il_check_targets(run, targets, b->n - 1);
	if (ret)
		return ret;
	for (i = 0; i < targets->n; i++)
		if (targets->v[i] > (uint64_t)b->maxn)
			b->maxn = (int)targets->v[i];
	return 0;
}

/* The calls for one target count @nt, into @s. */
static int spin_bench_count(struct il_spin_bench *b, struct il_series *s,
			    int nt)
{
	uint64_t k, ns = 0;
	int ret;

	for (k = 0; s->sum.count < b->samples &&
		    k < IL_SPIN_WARMUP + b->tries; k++) {
		if (il_stop_requested())
			return -EINTR;
		ret = b->sample(b->arg, nt, k, &ns);
		if (ret < 0)
			return ret;
		if (k < IL_SPIN_WARMUP)
			continue;
		if (ret == IL_SPIN_KEEP)
			il_series_add(s, ns);
		else
			il_series_dropped(s);
	}
	return 0;
}

static int spin_bench_timer(struct il_spin_bench *b)
{
	int i, ret = 0;

	for (i = 0; i < b->targets->n && !ret; i++) {
		int nt = (int)b->targets->v[i];

		ret = il_spin_set(&b->spin, nt);
		if (!ret)
			ret = spin_bench_count(b, b->s[i], nt);
	}
	/* A stop request is not a failure: what was measured is kept. */
	return ret == -EINTR ? 0 : ret;
}

static int spin_bench_thread(struct il_worker *w)
{
	struct il_spin_bench *b = w->pool->arg;
	int ret;

	if (w->idx)
		return il_spinner(&b->spin, w->idx - 1);
	ret = spin_bench_timer(b);
	/* Always, or the spinners would never return. */
	il_spin_quit(&b->spin);
	return ret;
}

int il_spin_bench_start(struct il_spin_bench *b, struct il_run *run,
			const volatile char *touch, il_spin_sample_fn sample,
			void *arg)
{
	int i, ret;

	b->sample = sample;
	b->arg = arg;
	b->s = calloc((size_t)b->targets->n, sizeof(*b->s));
	if (!b->s)
		return il_errorf(-ENOMEM, "out of memory");
	for (i = 0; i < b->targets->n; i++) {
		b->s[i] = il_run_series(run, "call_latency", "ns", b->cpus[0],
					-1, (int64_t)b->targets->v[i], false);
		if (!b->s[i])
			return il_errorf(-ENOMEM, "out of memory for a series");
	}
	ret = il_spin_init(&b->spin, b->maxn, touch);
	if (ret)
		return ret;
	/* Thread 0 is the timer on cpus[0]; thread i is spinner i - 1. */
	return il_pool_start(&b->pool, run, 1 + b->maxn, b->cpus, NULL,
			     spin_bench_thread, b);
}

void il_spin_bench_free(struct il_spin_bench *b)
{
	/* The threads first: the spinners use the spin state until joined. */
	il_pool_stop(&b->pool);
	il_spin_free(&b->spin);
	free(b->s);
	free(b->cpus);
	b->s = NULL;
	b->cpus = NULL;
}
