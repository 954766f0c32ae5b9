// SPDX-License-Identifier: GPL-2.0-only
/*
 * progress.c - the reading commands' progress line (progress.h): elapsed
 * time and the last count, redrawn in place with "\r ESC[K" and cleared
 * at the end, so a terminal is left as the command's own output made it
 * and a pipe or file never sees it.
 */
#include "progress.h"
#include "tsc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_AFTER_MS	2000
#define PROGRESS_EVERY_NS	250000000ULL

static struct {
	bool on;		/* begun, on a terminal */
	bool shown;		/* drawn, so to be cleared */
	const char *what;
	const char *unit;
	uint64_t n;
	uint64_t t0, after_ns, last;
} prog;

/* The delay before the first draw; tests set 0 to see the line at once. */
static uint64_t progress_after_ns(void)
{
	const char *v = getenv("IDLELAB_PROGRESS_AFTER_MS");
	char *end;
	unsigned long long ms;

	if (!v || !*v)
		return PROGRESS_AFTER_MS * 1000000ULL;
	errno = 0;
	ms = strtoull(v, &end, 10);
	if (errno || *end || ms > 3600000)
		return PROGRESS_AFTER_MS * 1000000ULL;
	return ms * 1000000ULL;
}

void il_progress_begin(const char *what)
{
	memset(&prog, 0, sizeof(prog));
	prog.on = isatty(STDERR_FILENO) == 1;
	prog.what = what;
	prog.t0 = il_now_ns(CLOCK_MONOTONIC);
	prog.after_ns = progress_after_ns();
}

bool il_progress_active(void)
{
	return prog.on;
}

static void progress_draw(uint64_t now)
{
	uint64_t s = (now - prog.t0) / 1000000000ULL;

	fprintf(stderr, "\r\033[Kidlelab %s: %" PRIu64 " s", prog.what, s);
	if (prog.unit)
		fprintf(stderr, ", %" PRIu64 " %s", prog.n, prog.unit);
	fflush(stderr);
	prog.shown = true;
	prog.last = now;
}

void il_progress_poll(void)
{
	uint64_t now;

	if (!prog.on)
		return;
	now = il_now_ns(CLOCK_MONOTONIC);
	if (now - prog.t0 < prog.after_ns)
		return;
	if (prog.shown && now - prog.last < PROGRESS_EVERY_NS)
		return;
	progress_draw(now);
}

void il_progress_count(uint64_t n, const char *unit)
{
	if (!prog.on)
		return;
	prog.n = n;
	prog.unit = unit;
	il_progress_poll();
}

void il_progress_clear(void)
{
	if (prog.shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		prog.shown = false;
	}
}

void il_progress_end(void)
{
	il_progress_clear();
	memset(&prog, 0, sizeof(prog));
}
