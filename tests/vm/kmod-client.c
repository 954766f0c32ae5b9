// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod-client.c - the guest half of the kmod rig (tests/vm/run-qemu.sh):
 * opens /dev/idlelab_cstate and /dev/idlelab_ipi, checks GET_INFO, runs every
 * operation with small counts, then the bad-input suite (over 1000 malformed
 * or random requests, offline CPUs, -ENOTTY, -EBUSY, a fatal signal during a
 * run, a non-root open), and prints one JSON object per line on stdout.  The
 * host side (tests/vm/test_qemu.sh) asserts on those lines; nothing is
 * judged here, so a guest that crashes half-way still leaves evidence.
 *
 * Output buffers are pre-filled with a poison pattern, as the ntsync
 * selftest does, so a record the kernel claims but never wrote shows up.
 * Built static; needs only libc and the UAPI header.  The requests of
 * /dev/idlelab_cstate, and its bad inputs and hang checks, are in
 * kmod-client-cstate.c, the generic bad-input suite in kmod-client-bad.c;
 * kmod-client.h is what the files share.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmod-client.h"
#include "kmod-client-ipi.h"

/*
 * The ABI is frozen by these sizes: no implicit padding, the same layout for
 * 32- and 64-bit user space.  A change here is a new ABI version.
 */
_Static_assert(sizeof(struct idlelab_info) == 112, "abi");
_Static_assert(sizeof(struct idlelab_cstate_req) == 144, "abi");
_Static_assert(sizeof(struct idlelab_cstate_sample) == 152, "abi");
_Static_assert(sizeof(struct idlelab_wbinvd_req) == 152, "abi");
_Static_assert(sizeof(struct idlelab_wbinvd_sample) == 32, "abi");
_Static_assert(sizeof(struct idlelab_gaps_req) == 112, "abi");
_Static_assert(sizeof(struct idlelab_gap_sample) == 56, "abi");
_Static_assert(sizeof(struct idlelab_ipi_req) == 136, "abi");
_Static_assert(sizeof(struct idlelab_ipi_round) == 40, "abi");
_Static_assert(sizeof(struct idlelab_ipi_arrival) == 16, "abi");
_Static_assert(sizeof(struct idlelab_apic_cpu) == 16, "abi");
_Static_assert(sizeof(struct idlelab_apic_map_req) == 96, "abi");

#define DEV(n) "/dev/" n

int fd_c = -1, fd_i = -1;
unsigned int ncpu;

const char *ename(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EBUSY: return "EBUSY";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EINTR: return "EINTR";
	case ENOSPC: return "ENOSPC";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESPIPE: return "ESPIPE";
	case EIO: return "EIO";
	case ETIME: return "ETIME";
	case ENODEV: return "ENODEV";
	}
	return "other";
}

/* seek_err() - what lseek(2) on @fd says: "0" if it seeks, else the errno. */
static const char *seek_err(int fd)
{
	return lseek(fd, 0, SEEK_SET) < 0 ? ename(errno) : "0";
}

/* ioctl returning 0 or the errno. */
int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

long param_read(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int param_write(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, v, strlen(v)) != (ssize_t)strlen(v))
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

void *poisoned(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	memset(p, POISON, n);
	return p;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void info(int fd, const char *dev)
{
	struct idlelab_info in;
	int e;

	memset(&in, 0, sizeof(in));
	in.abi_version = IDLELAB_ABI_VERSION;
	in.size = sizeof(in);
	e = xioctl(fd, IDLELAB_IOC_GET_INFO, &in);
	printf("{\"op\":\"info\",\"dev\":\"%s\",\"rc\":\"%s\",\"abi\":%u,"
	       "\"name\":\"%.32s\",\"version\":%u,\"ops\":%u,"
	       "\"features\":%u,\"nr_cpu_ids\":%u,\"tsc_khz\":%u,"
	       "\"cpuid5\":[%u,%u,%u,%u]}\n",
	       dev, ename(e), in.abi_version, (char *)in.name,
	       in.module_version, in.ops, in.features, in.nr_cpu_ids,
	       in.tsc_khz, in.cpuid5_eax, in.cpuid5_ebx, in.cpuid5_ecx,
	       in.cpuid5_edx);
	if (!e && !ncpu)
		ncpu = in.nr_cpu_ids;
}

static void apic_map(void)
{
	struct idlelab_apic_map_req r;
	struct idlelab_apic_cpu *c = poisoned(64 * sizeof(*c));
	unsigned int i;
	int e;

	memset(&r, 0, sizeof(r));
	r.abi_version = IDLELAB_ABI_VERSION;
	r.size = sizeof(r);
	r.nr_cpus = 64;
	r.cpus = (uintptr_t)c;
	e = xioctl(fd_i, IDLELAB_IOC_APIC_MAP, &r);
	printf("{\"op\":\"apic_map\",\"rc\":\"%s\",\"x2apic\":%u,"
	       "\"apic\":\"%.32s\",\"dest_model\":%u,\"dfr\":%u,\"cpus\":[",
	       ename(e), r.x2apic, (char *)r.apic_name, r.dest_model, r.dfr);
	for (i = 0; !e && i < r.nr_cpus; i++)
		printf("%s{\"cpu\":%u,\"apic_id\":%u,\"ldr\":%u,\"online\":%u}",
		       i ? "," : "", c[i].cpu, c[i].apic_id, c[i].ldr,
		       c[i].flags & 1);
	printf("]}\n");
	free(c);
}

struct idlelab_ipi_req ipi_base(uint32_t mode, uint32_t *targets,
				uint32_t n, uint32_t rounds)
{
	struct idlelab_ipi_req r;

	memset(&r, 0, sizeof(r));
	r.abi_version = IDLELAB_ABI_VERSION;
	r.size = sizeof(r);
	r.mode = mode;
	r.sender_cpu = 0;
	r.nr_targets = n;
	r.nr_rounds = rounds;
	r.targets = (uintptr_t)targets;
	/* The longest round the ABI allows: an emulated CPU may go unscheduled
	 * for a while on a busy host (200 ms once timed a round out). */
	r.timeout_us = IDLELAB_MAX_ROUND_TIMEOUT_US;
	return r;
}

/*
 * storm_set() - one closed-loop storm from CPU 0 to CPUs @first..@last,
 * printing what the host asserts: the ICR writes of the last round, the
 * rounds every target acknowledged exactly once, the timeouts.
 */
static void storm_set(const char *name, uint32_t mode, uint32_t first,
		      uint32_t last)
{
	uint32_t targets[64], n = 0, rounds = 50, i, k;
	struct idlelab_ipi_round *rd;
	struct idlelab_ipi_arrival *ar;
	struct idlelab_ipi_req r;
	unsigned int ok_rounds = 0, timeouts = 0, stray = 0, writes = 0;
	unsigned int bad_targets = 0;
	int e;

	for (i = first; i <= last && i < ncpu && n < 64; i++)
		targets[n++] = i;
	r = ipi_base(mode, targets, n, rounds);
	rd = poisoned(rounds * sizeof(*rd));
	ar = poisoned(rounds * n * sizeof(*ar));
	r.rounds = (uintptr_t)rd;
	r.arrivals = (uintptr_t)ar;
	e = xioctl(fd_i, IDLELAB_IOC_IPI_STORM, &r);
	for (i = 0; !e && i < r.nr_done; i++) {
		int good = rd[i].acks == n && !(rd[i].flags &
						 IDLELAB_ROUND_TIMEOUT);

		for (k = 0; k < n; k++) {
			struct idlelab_ipi_arrival *a = &ar[i * n + k];

			if (a->count != 1 || a->cpu != targets[k] ||
			    a->t < rd[i].t_issue || a->t > rd[i].t_complete) {
				good = 0;
				bad_targets++;
			}
		}
		ok_rounds += good;
		timeouts += !!(rd[i].flags & IDLELAB_ROUND_TIMEOUT);
		stray += rd[i].stray;
		writes = rd[i].icr_writes;
	}
	printf("{\"op\":\"ipi\",\"name\":\"%s\",\"rc\":\"%s\",\"first\":%u,"
	       "\"last\":%u,\"targets\":%u,"
	       "\"rounds\":%u,\"nr_done\":%u,\"unsupported\":%u,"
	       "\"ok_rounds\":%u,\"timeouts\":%u,\"stray\":%u,"
	       "\"bad_targets\":%u,\"icr_writes\":%u,\"dest_model\":%u,"
	       "\"x2apic\":%u,\"apic\":\"%.32s\",\"run_flags\":%u,"
	       "\"foreign\":%u,\"late\":%u,\"lost\":%u}\n",
	       name, ename(e), first, n ? targets[n - 1] : 0, n, rounds,
	       e ? 0 : r.nr_done,
	       e ? 0 : r.unsupported, ok_rounds, timeouts, stray, bad_targets,
	       writes, r.dest_model, r.x2apic, e ? "" : (char *)r.apic_name,
	       e ? 0 : r.run_flags, e ? 0 : r.foreign_nmis,
	       e ? 0 : r.late_nmis, e ? 0 : r.lost_nmis);
	free(rd);
	free(ar);
}

/*
 * storm_cpu0() - a storm from CPU 1 to CPU 0, which the module runs only
 * when the request asks for CPU 0 (IDLELAB_IPI_F_CPU0): the rounds every
 * target acknowledged exactly once, with the flag.
 */
static void storm_cpu0(void)
{
	uint32_t targets[1] = { 0 }, rounds = 20, i, ok = 0;
	struct idlelab_ipi_round *rd = poisoned(rounds * sizeof(*rd));
	struct idlelab_ipi_arrival *ar = poisoned(rounds * sizeof(*ar));
	struct idlelab_ipi_req r = ipi_base(IDLELAB_IPI_PHYSICAL, targets, 1,
					    rounds);
	int e;

	r.sender_cpu = 1;
	r.flags = IDLELAB_IPI_F_CPU0;
	r.rounds = (uintptr_t)rd;
	r.arrivals = (uintptr_t)ar;
	e = xioctl(fd_i, IDLELAB_IOC_IPI_STORM, &r);
	for (i = 0; !e && i < r.nr_done; i++)
		ok += rd[i].acks == 1 && ar[i].count == 1 && ar[i].cpu == 0;
	printf("{\"op\":\"ipi_cpu0\",\"rc\":\"%s\",\"rounds\":%u,"
	       "\"ok_rounds\":%u,\"unsupported\":%u}\n", ename(e), rounds, ok,
	       e ? 0 : r.unsupported);
	free(rd);
	free(ar);
}

/* storm() - every other CPU as a target. */
static void storm(const char *name, uint32_t mode)
{
	storm_set(name, mode, 1, ncpu - 1);
}

/*
 * x2apic_storms() - the x2APIC guests' target sets (tests/vm/test_x2apic.sh):
 * with 20 CPUs, IDs 1-15 lie in cluster 0 and 16-19 in cluster 1, so a
 * logical storm must take one ICR write per cluster among its targets and a
 * physical one a write per target.
 */
static void x2apic_storms(void)
{
	static const struct { const char *name; uint32_t first, last; } sets[] = {
		{ "all", 1, 63 }, { "c0", 1, 15 }, { "c1", 16, 19 },
		{ "t1", 1, 1 }, { "t15", 15, 15 }, { "t16", 16, 16 },
		{ "t17", 17, 17 }, { "t15_16", 15, 16 },
	};
	static const struct { const char *name; uint32_t mode; } modes[] = {
		{ "physical", IDLELAB_IPI_PHYSICAL },
		{ "logical", IDLELAB_IPI_LOGICAL },
	};
	char name[64];
	size_t s, m;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
			snprintf(name, sizeof(name), "%s_%s", modes[m].name,
				 sets[s].name);
			storm_set(name, modes[m].mode, sets[s].first,
				  sets[s].last);
		}
	storm("broadcast", IDLELAB_IPI_BROADCAST);
	storm("kernel", IDLELAB_IPI_KERNEL);
}

int main(int argc, char **argv)
{
	/* "cstate": only GET_INFO, the APIC map and the C-state runs (Bochs). */
	int only_cstate = argc > 1 && !strcmp(argv[1], "cstate");
	/* "x2apic": GET_INFO, the APIC map and the x2APIC storms. */
	int only_x2apic = argc > 1 && !strcmp(argv[1], "x2apic");
	/* "bad": GET_INFO and the bad-input suite, which guest-init.sh runs
	 * as a step of its own in every profile; the other modes skip it. */
	int only_bad = argc > 1 && !strcmp(argv[1], "bad");
	/* "tsc_unstable": the last step, it marks the TSC unstable. */
	int only_tsc = argc > 1 && !strcmp(argv[1], "tsc_unstable");
	/* "hotplug": GET_INFO and a CPU taken offline in mid-run. */
	int only_hotplug = argc > 1 && !strcmp(argv[1], "hotplug");
	/* "nmi_kernel": NMIs injected during kernel-mode storms. */
	int only_nmik = argc > 1 && !strcmp(argv[1], "nmi_kernel");
	struct idlelab_cstate_req r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd_c = open(DEV(IDLELAB_DEV_CSTATE), O_RDWR);
	fd_i = open(DEV(IDLELAB_DEV_IPI), O_RDWR);
	printf("{\"op\":\"open\",\"cstate\":\"%s\",\"ipi\":\"%s\"}\n",
	       fd_c < 0 ? "fail" : "0", fd_i < 0 ? "fail" : "0");
	if (fd_c < 0 || fd_i < 0)
		return 1;
	/* The fops have no .llseek: unseekable on 6.1 and 6.12 alike. */
	printf("{\"op\":\"lseek\",\"cstate\":\"%s\",\"ipi\":\"%s\"}\n",
	       seek_err(fd_c), seek_err(fd_i));
	info(fd_c, "cstate");
	info(fd_i, "ipi");
	if (ncpu > (unsigned int)sysconf(_SC_NPROCESSORS_ONLN))
		ncpu = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 4) {
		printf("{\"op\":\"note\",\"msg\":\"needs 4 CPUs, has %u\"}\n",
		       ncpu);
		return 1;
	}
	if (only_bad) {
		bad_suite();
		goto out;
	}
	if (only_tsc) {
		tsc_unstable();
		goto out;
	}
	if (only_hotplug) {
		hotplug();
		goto out;
	}
	if (only_nmik) {
		nmi_kernel(fd_i, ncpu);
		goto out;
	}
	apic_map();
	if (only_x2apic) {
		x2apic_storms();
		goto out;
	}

	cstate("hlt_hrtimer_early", cstate_base());
	r = cstate_base();
	r.wake_source = IDLELAB_WAKE_IPI;
	r.sender_cpu = 2;
	cstate("hlt_ipi_early", r);
	r = cstate_base();
	r.method = IDLELAB_METHOD_POLL;
	cstate("poll_hrtimer_early", r);
	r = cstate_base();
	r.method = IDLELAB_METHOD_MWAIT;
	cstate("mwait_c1_hrtimer_early", r);
	r.wake_source = IDLELAB_WAKE_IPI;
	r.sender_cpu = 3;
	cstate("mwait_c1_ipi_early", r);
	r = cstate_base();
	r.method = IDLELAB_METHOD_MWAIT;
	r.irq_mode = IDLELAB_IRQ_LATE;
	cstate("mwait_c1_hrtimer_late", r);
	r = cstate_base();
	r.flags = IDLELAB_CSTATE_F_WBINVD;
	r.dirty_bytes = 1 << 20;
	r.launch_min_ns = 20000;
	r.launch_max_ns = 100000;
	cstate("hlt_wbinvd_random_launch", r);
	/* L = 1 us: the arming alone may outlast it, so late entries. */
	r = cstate_base();
	r.launch_min_ns = 1000;
	r.launch_max_ns = 1000;
	cstate("hlt_hrtimer_1us", r);
	/* Re-entering after foreign wakes: the IRQ-ordering runs (Bochs). */
	r = cstate_base();
	r.flags = IDLELAB_CSTATE_F_REENTER;
	cstate("hlt_hrtimer_early_reenter", r);
	r.method = IDLELAB_METHOD_MWAIT;
	cstate("mwait_c1_hrtimer_early_reenter", r);
	r.irq_mode = IDLELAB_IRQ_LATE;
	cstate("mwait_c1_hrtimer_late_reenter", r);
	if (only_cstate)
		goto out;

	gaps();
	wbinvd_sweep("wbinvd", 0);
	wbinvd_sweep("wbnoinvd", IDLELAB_WBINVD_F_NOINVD);
	wbinvd_blast();
	wbinvd_noop();

	storm("physical", IDLELAB_IPI_PHYSICAL);
	storm("logical", IDLELAB_IPI_LOGICAL);
	storm("broadcast", IDLELAB_IPI_BROADCAST);
	storm("kernel", IDLELAB_IPI_KERNEL);
	storm_cpu0();
	/* Injected NMIs, a sender that dies, the run limit (issue 9). */
	ipi_hazards(fd_i, ncpu);
out:
	close(fd_c);
	close(fd_i);
	printf("{\"op\":\"done\"}\n");
	return 0;
}
