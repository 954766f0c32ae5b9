// SPDX-License-Identifier: GPL-2.0-only
/*
 * swevent-hold.c - the guest rig's keeper of the kernel's software-event
 * static keys: opens one disabled, CPU-wide counter of each software event
 * idlelab counts by default (context-switches, cpu-migrations,
 * page-faults: harness/counters_perf.c), writes one JSON line, and sleeps
 * until it is killed.
 *
 * Why.  The first open of a software event of a kind enables its static
 * key (perf_swevent_enabled[], perf_swevent_init()) and the last close
 * disables it, and each flip rewrites kernel text on the live machine
 * through text_poke_bp(): an int3 over the site, an IPI to every CPU, the
 * new bytes, more IPIs.  idlelab opens and closes its counters around
 * every run, so a guest flips these keys hundreds of times.  Under QEMU
 * 10's multi-threaded TCG, with 20 vCPUs on a loaded 2-core host, such a
 * flip now and then livelocks the guest: the vCPUs loop between the int3
 * left at __schedule+0x280 and exc_int3 with interrupts off, so the CPU
 * doing the flip never gets their IPI replies, and idlelab sits in
 * perf_release() (the NMI backtraces in serial.log and QEMU's own view of
 * each vCPU in hang-dump.txt showed exactly this; tests/vm/README.md has
 * the counts).  Real hardware patches kernel text this way all the time;
 * the emulator is what fails.  With one event of each kind held open for
 * the guest's whole life, idlelab's opens and closes only move the keys'
 * counts, never their state, and idlelab's counting path is still the
 * one under test.
 *
 * `swevent-hold flips N` first opens and closes the three events N times
 * (6 key flips each time, 2 ms apart) and only then holds them: the
 * reproduction's bad order (tests/vm/repro-text-patch.sh) uses it to
 * patch kernel text many times while other vCPUs are busy, which the
 * rig's own order never does.  Its JSON line then carries "flips".
 *
 * Exit status: 1 when an event cannot be opened (the JSON line says
 * which), 2 on a bad argument, otherwise it never exits by itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	const char *name;
	unsigned long long config;
} held[] = {
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
};

/* open_all() - one disabled CPU-wide counter of each kind into @fd. */
static int open_all(int fd[])
{
	struct perf_event_attr a;
	size_t i;

	for (i = 0; i < sizeof(held) / sizeof(held[0]); i++) {
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.size = sizeof(a);
		a.config = held[i].config;
		a.disabled = 1;
		/* pid -1, CPU 0: CPU-wide, like idlelab's own counters. */
		fd[i] = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
		if (fd[i] < 0) {
			printf("{\"op\":\"swevent_hold\",\"event\":\"%s\",\"error\":\"%s\"}\n",
			       held[i].name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int fd[sizeof(held) / sizeof(held[0])];
	long flips = 0, n;
	size_t i;
	char *end;

	if (argc == 3 && !strcmp(argv[1], "flips")) {
		flips = strtol(argv[2], &end, 10);
		if (*end || flips < 0 || flips > 100000)
			return 2;
	} else if (argc != 1) {
		return 2;
	}
	for (n = 0; n < flips; n++) {
		if (open_all(fd))
			return 1;
		for (i = 0; i < sizeof(fd) / sizeof(fd[0]); i++)
			close(fd[i]);
		usleep(2000);
	}
	if (open_all(fd))
		return 1;
	if (flips)
		printf("{\"op\":\"swevent_hold\",\"held\":%zu,\"flips\":%ld}\n",
		       sizeof(fd) / sizeof(fd[0]), flips);
	else
		printf("{\"op\":\"swevent_hold\",\"held\":%zu}\n",
		       sizeof(fd) / sizeof(fd[0]));
	fflush(stdout);
	for (;;)
		pause();
}
