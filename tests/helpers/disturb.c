// SPDX-License-Identifier: GPL-2.0-only
/*
 * disturb.c - known disturbances of a CPU, the ground truth of the
 * --causes tests (tests/integration/test_causes.sh).
 *
 *   disturb burst CPU BURST_US PERIOD_MS SECONDS
 *     a SCHED_FIFO 90 thread named il-burst, bound to CPU, that spins for
 *     BURST_US of CLOCK_MONOTONIC every PERIOD_MS (absolute schedule), so
 *     whatever else runs on CPU is preempted for exactly that long;
 *   disturb wake CPU FROM_CPU PERIOD_US SECONDS
 *     a SCHED_FIFO 90 thread named il-wakee, bound to CPU, blocked on a
 *     futex, woken every PERIOD_US by a thread bound to FROM_CPU: each wake
 *     of a busy CPU is a reschedule IPI (irq_vectors:reschedule) followed
 *     by the wakee's short run.
 *
 * Both print "ready TID" on stdout once the disturbing thread runs (TID is
 * what sched_switch names), and at the end "done N": the bursts spun, or
 * the wakes that woke the wakee.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int cpu, from_cpu;
static uint64_t burst_ns, period_ns, end_ns;
static uint32_t word;
static volatile int stop;
static volatile long woken;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void bind_fifo(int c, const char *name)
{
	struct sched_param sp = { .sched_priority = 90 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		fprintf(stderr, "disturb: cannot bind to CPU %d\n", c);
		exit(2);
	}
	if (name && pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		fprintf(stderr, "disturb: SCHED_FIFO refused (not root?)\n");
		exit(2);
	}
	if (name)
		prctl(PR_SET_NAME, name);
}

static void *burst(void *arg)
{
	uint64_t next, t;
	long n = 0;

	(void)arg;
	bind_fifo(cpu, "il-burst");
	printf("ready %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	next = now() + period_ns;
	while (next < end_ns) {
		sleep_until(next);
		t = now();
		while (now() - t < burst_ns)
			;
		n++;
		next += period_ns;
	}
	printf("done %ld\n", n);
	return NULL;
}

static long futex(uint32_t *w, int op, uint32_t v)
{
	return syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

static void *wakee(void *arg)
{
	(void)arg;
	bind_fifo(cpu, "il-wakee");
	printf("ready %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	while (!stop) {
		if (__atomic_load_n(&word, __ATOMIC_ACQUIRE) == 0)
			futex(&word, FUTEX_WAIT_PRIVATE, 0);
		if (__atomic_exchange_n(&word, 0, __ATOMIC_ACQ_REL))
			woken++;
	}
	return NULL;
}

static int run_wake(void)
{
	pthread_t th;
	uint64_t next;
	long sent = 0;

	bind_fifo(from_cpu, NULL);
	if (pthread_create(&th, NULL, wakee, NULL))
		return 2;
	usleep(100000);
	next = now() + period_ns;
	while (next < end_ns) {
		sleep_until(next);
		__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
		if (futex(&word, FUTEX_WAKE_PRIVATE, 1) == 1)
			sent++;
		next += period_ns;
	}
	stop = 1;
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	futex(&word, FUTEX_WAKE_PRIVATE, 1);
	pthread_join(th, NULL);
	printf("done %ld\n", sent);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc != 6 || (strcmp(argv[1], "burst") && strcmp(argv[1], "wake"))) {
		fprintf(stderr, "usage: disturb burst CPU BURST_US PERIOD_MS SECONDS\n"
				"       disturb wake CPU FROM_CPU PERIOD_US SECONDS\n");
		return 2;
	}
	cpu = atoi(argv[2]);
	end_ns = now() + (uint64_t)atoi(argv[5]) * 1000000000u;
	if (!strcmp(argv[1], "wake")) {
		from_cpu = atoi(argv[3]);
		period_ns = (uint64_t)atoi(argv[4]) * 1000u;
		return run_wake();
	}
	burst_ns = (uint64_t)atoi(argv[3]) * 1000u;
	period_ns = (uint64_t)atoi(argv[4]) * 1000000u;
	if (pthread_create(&th, NULL, burst, NULL))
		return 2;
	pthread_join(th, NULL);
	return 0;
}
