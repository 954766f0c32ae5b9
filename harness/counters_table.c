// SPDX-License-Identifier: GPL-2.0-only
/*
 * counters_table.c - what the counter backends share: the result table's
 * rows (cnt_add_row(), cnt_set_pending()) and cnt_lock, under which every
 * libpfm4 and PAPI call runs (counters.c's design notes, "Locking").  It
 * is apart from counters.c, which looks the backends up, so that the
 * backends call down into this file instead of back into their caller.
 */
#include "counters_internal.h"
#include "grow.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

pthread_mutex_t cnt_lock = PTHREAD_MUTEX_INITIALIZER;

struct cnt *cnt_add_row(struct il_counters *c, const char *event, int cpu)
{
	struct cnt *n;

	if (IL_GROW(c->c, c->cap, (size_t)c->n + 1, 16))
		return NULL;
	n = &c->c[c->n++];
	memset(n, 0, sizeof(*n));
	setf(n->res.event, sizeof(n->res.event), "%s", event);
	n->res.cpu = cpu;
	n->res.value = NAN;
	setf(n->res.unit, sizeof(n->res.unit), "count");
	n->fd = -1;
	n->scale = 1.0;
	n->pset = n->pidx = -1;
	return n;
}

void cnt_set_pending(struct cnt *n)
{
	n->live = true;
	n->res.status = IL_CNT_UNAVAILABLE;
	setf(n->res.reason, sizeof(n->res.reason),
	     "not measured: il_counters_stop() was not reached");
}
