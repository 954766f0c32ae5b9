// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod-client-hotplug.c - issue 21's hotplug lock, in the guest client
 * (kmod-client.c, mode "hotplug"): a long run on CPUs 1-3 of the 4-vCPU
 * guest, with CPU 3 taken offline through sysfs a second into it.
 *
 * A module that held cpus_read_lock() for its whole run kept the offline
 * write waiting until the run's end (a minute here), and the run ended
 * normally.  Now the lock is held only while a run starts its workers, and
 * the modules' CPU teardown callback ends the run: the ioctl fails with
 * ENODEV within a few seconds and the offline completes as soon as the
 * workers are gone.  One {"op":"hotplug",...} line per run kind, for
 * tests/vm/test_qemu.sh; then CPU 3 comes back online and a short run
 * shows the device usable.
 *
 * The int3 rule (tests/vm/README.md): taking a CPU offline while the other
 * vCPUs are busy must not patch kernel text.  The kernel's text, read
 * through /proc/kcore between _stext and _etext, is hashed before the
 * first run and after the last online; the two hashes must match.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmod-client.h"

#define HP_CPU 3
#define HP_ONLINE "/sys/devices/system/cpu/cpu3/online"
/* Past this a run counts as not stopped by the offline (it plans 50 s+). */
#define HP_CAP_S 30
/* A run's exit status: it ended undrained, before the offline. */
#define HP_UNDRAINED 250
/* Runs of one kind, at most, while they end undrained. */
#define HP_TRIES 3

/* ksym() - the address of the kernel symbol @name, 0 if unreadable. */
static unsigned long ksym(const char *name)
{
	char line[256], sym[128], t;
	unsigned long a, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %127s", &a, &t, sym) == 3 &&
		    !strcmp(sym, name))
			found = a;
	fclose(f);
	return found;
}

/*
 * text_hash() - FNV-1a over the kernel's text [_stext, _etext), read from
 * /proc/kcore's PT_LOAD segment that holds it; 0 when it cannot be read
 * (no kcore, addresses hidden), and then the check is skipped, said so.
 */
static uint64_t text_hash(void)
{
	unsigned long lo = ksym("_stext"), hi = ksym("_etext"), off;
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned char buf[65536];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	ssize_t n;
	int fd, i, found = 0;

	if (!lo || hi <= lo)
		return 0;
	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto fail;
	for (i = 0; i < eh.e_phnum && !found; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff +
			  (off_t)i * eh.e_phentsize) != sizeof(ph))
			goto fail;
		found = ph.p_type == PT_LOAD && ph.p_vaddr <= lo &&
			hi <= ph.p_vaddr + ph.p_memsz;
	}
	if (!found)
		goto fail;
	for (off = lo; off < hi; off += (unsigned long)n) {
		size_t want = hi - off < sizeof(buf) ? hi - off : sizeof(buf);

		n = pread(fd, buf, want, ph.p_offset + (off - ph.p_vaddr));
		if (n <= 0)
			goto fail;
		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	}
	close(fd);
	return h;
fail:
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The three long runs, each on CPUs 1-3 (CPU 3 the one that goes). */
static int hp_blast(void)
{
	uint32_t victims[2] = { 2, HP_CPU };
	struct idlelab_wbinvd_req r = blast_base(victims, 2, 1000);

	/* 600 x 100 ms: a minute of events, victims IRQs-off half the time. */
	r.cpu = 1;
	r.reps = 600;
	r.interval_us = 100000;
	r.nr_samples = 65536;
	r.samples = (uintptr_t)poisoned(r.nr_samples *
					sizeof(struct idlelab_gap_sample));
	return xioctl(fd_c, IDLELAB_IOC_WBINVD, &r);
}

static int hp_wake(void)
{
	struct idlelab_cstate_req r = cstate_base();

	/* HLT on CPU 3 woken by CPU 1's IPIs, 500 x 100 ms. */
	r.cpu = HP_CPU;
	r.wake_source = IDLELAB_WAKE_IPI;
	r.sender_cpu = 1;
	r.launch_min_ns = 100000000;
	r.launch_max_ns = 100000000;
	r.nr_samples = 500;
	r.samples = (uintptr_t)poisoned(r.nr_samples *
					sizeof(struct idlelab_cstate_sample));
	return xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r);
}

/* The storm below must stay a valid request whatever the formula does. */
_Static_assert(IDLELAB_STORM_WORST_US(14999, 10000) <= IDLELAB_MAX_RUN_US,
	       "the hotplug storm is over the run limit");

static int hp_storm(void)
{
	uint32_t targets[2] = { 2, HP_CPU };
	uint32_t rounds = 14999;
	struct idlelab_ipi_req r = ipi_base(IDLELAB_IPI_PHYSICAL, targets, 2,
					    rounds);

	/*
	 * A round took about 0.25 ms under TCG here, so 4000 were over in a
	 * second, before the offline: 15000 rounds of up to 10 ms (an
	 * emulated CPU may go unscheduled a while), whose worst case,
	 * IDLELAB_STORM_WORST_US, is within the run limit.
	 */
	int e;

	r.sender_cpu = 1;
	r.timeout_us = 10000;
	r.rounds = (uintptr_t)poisoned(rounds *
				       sizeof(struct idlelab_ipi_round));
	r.arrivals = (uintptr_t)poisoned(rounds * 2 *
					 sizeof(struct idlelab_ipi_arrival));
	e = xioctl(fd_i, IDLELAB_IOC_IPI_STORM, &r);
	/* How a run that was not stopped by the offline ended. */
	if (!e) {
		printf("{\"op\":\"hotplug_storm_end\",\"nr_done\":%u,"
		       "\"run_flags\":%u}\n", r.nr_done, r.run_flags);
		fflush(stdout);
	}
	/*
	 * A target the host left unscheduled past the round timeout and the
	 * drain after it (20 ms) ends the storm early, as it should, before
	 * the offline could: that says nothing of the hotplug path, so
	 * hp_one() runs it again (HP_UNDRAINED).
	 */
	if (!e && (r.run_flags & IDLELAB_RUN_UNDRAINED))
		return HP_UNDRAINED;
	return e;
}

/* A child that writes @v to CPU 3's online file: its exit is the errno. */
static pid_t hp_write(const char *v)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(param_write(HP_ONLINE, v));
	return pid;
}

/* Reap @pid if it has exited: 1 with *rc its errno name, else 0. */
static int hp_reaped(pid_t pid, const char **rc)
{
	int st;

	if (waitpid(pid, &st, WNOHANG) != pid)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == HP_UNDRAINED)
		*rc = "undrained";
	else
		*rc = WIFEXITED(st) ? ename(WEXITSTATUS(st)) : "signal";
	return 1;
}

/*
 * hp_try() - run @fn in a child, offline CPU 3 @delay_cs hundredths of a
 * second in, and time both from the offline (a run over before it reports
 * a negative time); a run still going after HP_CAP_S is killed (killed
 * 1).  CPU 3 is back online before this returns.  Return: 1 when the run
 * ended undrained, before the offline reached it (hp_storm()).
 */
static int hp_try(const char *name, int (*fn)(void), int delay_cs, int tries)
{
	const char *rc = "", *off_rc = "", *on_rc = "";
	double t0, t_off, run_s = -1, off_s = -1;
	int killed = 0, over = 0, i;
	pid_t run, off = 0, on;

	t0 = now_s();
	t_off = t0 + delay_cs / 100.0;
	fflush(stdout);	/* or the child's flush prints it again */
	run = fork();
	if (run == 0)
		_exit(fn());
	for (i = 0; i < 100 * (HP_CAP_S + 30); i++) {
		if (i == delay_cs) {
			off = hp_write("0");
			t_off = now_s();
		}
		if (i == 100 * HP_CAP_S && !over) {
			kill(run, SIGKILL);
			killed = 1;
		}
		if (!over && hp_reaped(run, &rc)) {
			over = 1;
			run_s = now_s() - t_off;
		}
		if (off && off_s < 0 && hp_reaped(off, &off_rc))
			off_s = now_s() - t_off;
		if (over && off_s >= 0)
			break;
		usleep(10000);
	}
	on = hp_write("1");
	for (i = 0; i < 6000 && !hp_reaped(on, &on_rc); i++)
		usleep(10000);
	if (!strcmp(rc, "undrained") && tries < HP_TRIES)
		return 1;
	printf("{\"op\":\"hotplug\",\"name\":\"%s\",\"rc\":\"%s\","
	       "\"killed\":%d,\"run_secs\":%.3f,\"offline\":\"%s\","
	       "\"offline_secs\":%.3f,\"online\":\"%s\",\"secs\":%.3f,"
	       "\"tries\":%d}\n",
	       name, rc, killed, run_s, off_rc, off_s, on_rc, now_s() - t0,
	       tries);
	return 0;
}

/* hp_try() until a run is not ended undrained, HP_TRIES at most. */
static void hp_one(const char *name, int (*fn)(void), int delay_cs)
{
	int tries = 1;

	while (hp_try(name, fn, delay_cs, tries))
		tries++;
}


void hotplug(void)
{
	struct idlelab_cstate_req r = cstate_base();
	uint64_t h0 = text_hash(), h1;
	int e;

	hp_one("blast", hp_blast, 100);
	hp_one("wake_ipi", hp_wake, 100);
	/* Its rounds run fast under TCG: offline it sooner. */
	hp_one("storm", hp_storm, 20);
	/* The device still runs, on the CPU that came back. */
	r.cpu = HP_CPU;
	r.samples = (uintptr_t)poisoned(r.nr_samples *
					sizeof(struct idlelab_cstate_sample));
	e = xioctl(fd_c, IDLELAB_IOC_CSTATE_WAKE, &r);
	h1 = text_hash();
	printf("{\"op\":\"hotplug_after\",\"next_run\":\"%s\","
	       "\"text_read\":%d,\"text_same\":%d}\n", ename(e), h0 && h1,
	       h0 == h1);
}
