// SPDX-License-Identifier: GPL-2.0-only
/*
 * causes_attribution.c - attribution: from one CPU's sorted trace events
 * to who owned the CPU when, and from that to each sample window's causes
 * (il_causes_attribute(), causes.h).
 *
 * Design notes:
 *  - the events of a CPU become a timeline of segments, each owned by
 *    exactly one thing: the innermost handler running (NMI over IRQ over
 *    softirq), else the task on the CPU.  So nested time is counted once,
 *    where it was spent, as osnoise splits its noise: an IRQ inside a
 *    preempting thread's slice is the IRQ's, not the thread's;
 *  - an NMI is one event stamped at its end with its length (nmi_handler's
 *    delta_ns), so it is turned into an entry and an exit first;
 *  - the benchmark's own threads and the time before the first event are
 *    not causes: they are what stays unexplained;
 *  - windows are visited in time order with one pointer into the
 *    timeline, so a run costs O(events + windows), not their product.
 */
#include "causes.h"
#include "err.h"
#include "grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OWNER_SELF	0	/* the benchmark's own threads */
#define OWNER_UNKNOWN	1	/* before the first event told us */
#define NEST_MAX	16

struct owner {
	char kind[IL_CAUSE_KIND_MAX];
	char name[IL_CAUSE_NAME_MAX];
};

struct seg {
	int64_t t0, t1;
	int owner;
	int idle_state;		/* the state the CPU sat in, -1 */
	bool start;		/* an entry began it (counted once) */
};

struct timeline {
	struct owner *own;
	int nown, capown;
	/* Open addressing, owner index + 1 (0: empty), kept under half full:
	 * a busy machine makes thousands of distinct comm/pid owners. */
	int *hash;
	unsigned int nhash;	/* a power of two */
	struct seg *seg;
	size_t nseg, capseg;
};

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

static unsigned int hash_str(const char *k, const char *n)
{
	unsigned int h = 2166136261u;

	while (*k)
		h = (h ^ (unsigned char)*k++) * 16777619u;
	while (*n)
		h = (h ^ (unsigned char)*n++) * 16777619u;
	return h;
}

static unsigned int slot(const struct timeline *tl, const char *kind,
			 const char *name)
{
	unsigned int i = hash_str(kind, name) & (tl->nhash - 1);
	int id;

	for (;; i = (i + 1) & (tl->nhash - 1)) {
		id = tl->hash[i] - 1;
		if (id < 0 || (!strcmp(tl->own[id].kind, kind) &&
			       !strcmp(tl->own[id].name, name)))
			return i;
	}
}

static int rehash(struct timeline *tl, unsigned int n)
{
	int *old = tl->hash, i;

	tl->hash = calloc(n, sizeof(*tl->hash));
	if (!tl->hash) {
		tl->hash = old;
		return -ENOMEM;
	}
	tl->nhash = n;
	free(old);
	for (i = 0; i < tl->nown; i++)
		tl->hash[slot(tl, tl->own[i].kind, tl->own[i].name)] = i + 1;
	return 0;
}

static int owner_id(struct timeline *tl, const char *kind, const char *name)
{
	unsigned int i;
	struct owner *o;

	if ((unsigned int)(tl->nown + 1) * 2 > tl->nhash &&
	    rehash(tl, tl->nhash ? tl->nhash * 2 : 256))
		return -ENOMEM;
	i = slot(tl, kind, name);
	if (tl->hash[i])
		return tl->hash[i] - 1;
	if (IL_GROW(tl->own, tl->capown, (size_t)tl->nown + 1, 64))
		return -ENOMEM;
	o = &tl->own[tl->nown];
	snprintf(o->kind, sizeof(o->kind), "%s", kind);
	snprintf(o->name, sizeof(o->name), "%s", name);
	tl->hash[i] = tl->nown + 1;
	return tl->nown++;
}

static int emit(struct timeline *tl, int64_t t0, int64_t t1, int owner,
		int idle_state, bool start)
{
	struct seg *s;

	if (t1 <= t0)
		return 0;
	if (tl->nseg) {
		s = &tl->seg[tl->nseg - 1];
		if (!start && s->owner == owner && s->idle_state == idle_state &&
		    s->t1 == t0) {
			s->t1 = t1;
			return 0;
		}
	}
	if (IL_GROW(tl->seg, tl->capseg, tl->nseg + 1, 4096))
		return -ENOMEM;
	tl->seg[tl->nseg++] = (struct seg){ t0, t1, owner, idle_state, start };
	return 0;
}

static bool is_own(const struct il_trace *t, int pid)
{
	int i;

	for (i = 0; i < t->ntids; i++)
		if (t->tids[i] == pid)
			return true;
	return false;
}

struct conv {
	enum il_trace_clock clock;
	uint64_t t0;
	double ns_per_unit;
};

static int64_t to_ns(const struct conv *c, uint64_t ts)
{
	if (ts >= c->t0)
		return (int64_t)((double)(ts - c->t0) * c->ns_per_unit);
	return -(int64_t)((double)(c->t0 - ts) * c->ns_per_unit);
}

/* The owner a handler entry, or a switch to a task, makes current. */
static int event_owner(struct timeline *tl, const struct il_trace *t,
		       const struct il_trace_ev *e)
{
	char name[IL_CAUSE_NAME_MAX];

	switch (e->type) {
	case IL_TEV_IRQ_ENTRY:
		snprintf(name, sizeof(name), "irq %d %s", e->a, e->name);
		return owner_id(tl, IL_CAUSE_IRQ, name);
	case IL_TEV_SOFTIRQ_ENTRY:
		if (e->a >= 0 && e->a < (int)(sizeof(softirq_names) / sizeof(softirq_names[0])))
			snprintf(name, sizeof(name), "%s", softirq_names[e->a]);
		else
			snprintf(name, sizeof(name), "vector %d", e->a);
		return owner_id(tl, IL_CAUSE_SOFTIRQ, name);
	case IL_TEV_VEC_ENTRY:
		return owner_id(tl, IL_CAUSE_IRQ, e->name);
	case IL_TEV_SWITCH:
		if (e->a == 0)
			return owner_id(tl, IL_CAUSE_IDLE, "idle");
		if (is_own(t, e->a) || (t->self_comm &&
		    !strncmp(e->name, t->self_comm, strlen(t->self_comm))))
			return OWNER_SELF;
		if (e->b < 100)
			snprintf(name, sizeof(name), "%s/%d (RT %d)", e->name,
				 e->a, 99 - (int)e->b);
		else
			snprintf(name, sizeof(name), "%s/%d", e->name, e->a);
		return owner_id(tl, IL_CAUSE_THREAD, name);
	default:
		return owner_id(tl, IL_CAUSE_NMI, "nmi");
	}
}

/* An NMI as an entry at its start and the exit the kernel stamped. */
struct tick {
	int64_t t;
	const struct il_trace_ev *e;
	bool nmi_entry;
};

static int cmp_tick(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->e->seq < y->e->seq ? -1 : x->e->seq > y->e->seq;
}

/* A handler entry: its owner goes on top of the nesting stack. */
static int push(struct timeline *tl, const struct il_trace *t,
		const struct il_trace_ev *e, int *stack, int *depth)
{
	int cur = event_owner(tl, t, e);

	if (cur < 0)
		return cur;
	if (*depth < NEST_MAX)
		stack[(*depth)++] = cur;
	return 0;
}

static int build(struct timeline *tl, const struct il_trace *t,
		 const struct il_trace_cpu *pc, const struct conv *c)
{
	int stack[NEST_MAX], depth = 0, task = OWNER_UNKNOWN, idle = -1;
	int idle_owner, ret = 0, cur;
	struct tick *tk;
	size_t i, n = 0;
	int64_t last = INT64_MIN;
	bool start = false, task_idle = false;

	tk = calloc(pc->n * 2 + 1, sizeof(*tk));
	if (!tk)
		return -ENOMEM;
	for (i = 0; i < pc->n; i++) {
		int64_t at = to_ns(c, pc->ev[i].ts);

		tk[n++] = (struct tick){ at, &pc->ev[i], false };
		if (pc->ev[i].type == IL_TEV_NMI)
			tk[n++] = (struct tick){ at - pc->ev[i].b, &pc->ev[i],
						 true };
	}
	qsort(tk, n, sizeof(*tk), cmp_tick);
	idle_owner = owner_id(tl, IL_CAUSE_IDLE, "idle");
	if (idle_owner < 0)
		ret = idle_owner;
	for (i = 0; !ret && i < n; i++) {
		const struct il_trace_ev *e = tk[i].e;

		cur = depth ? stack[depth - 1] : task;
		if (last != INT64_MIN)
			ret = emit(tl, last, tk[i].t, cur,
				   !depth && task_idle ? idle : -1, start);
		else
			ret = emit(tl, INT64_MIN / 2, tk[i].t, OWNER_UNKNOWN, -1,
				   false);
		if (ret)
			break;
		last = tk[i].t;
		start = false;
		switch (e->type) {
		case IL_TEV_IRQ_ENTRY:
		case IL_TEV_SOFTIRQ_ENTRY:
		case IL_TEV_VEC_ENTRY:
			ret = push(tl, t, e, stack, &depth);
			start = true;
			break;
		case IL_TEV_NMI:
			if (tk[i].nmi_entry) {
				ret = push(tl, t, e, stack, &depth);
				start = true;
			} else if (depth) {
				depth--;
			}
			break;
		case IL_TEV_IRQ_EXIT:
		case IL_TEV_SOFTIRQ_EXIT:
		case IL_TEV_VEC_EXIT:
			if (depth)
				depth--;
			break;
		case IL_TEV_SWITCH:
			depth = 0;	/* a switch happens outside handlers */
			task = event_owner(tl, t, e);
			if (task < 0)
				ret = task;
			task_idle = task == idle_owner;
			start = true;
			break;
		case IL_TEV_IDLE:
			idle = e->a;
			break;
		default:
			break;
		}
	}
	if (!ret)
		ret = emit(tl, last == INT64_MIN ? INT64_MIN / 2 : last,
			   INT64_MAX / 2, depth ? stack[depth - 1] :
			   (last == INT64_MIN ? OWNER_UNKNOWN : task),
			   !depth && task_idle ? idle : -1, start);
	free(tk);
	return ret;
}

static int cmp_win(const void *a, const void *b, void *arg)
{
	const struct il_cause_sample *w = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (w[x].t_ns != w[y].t_ns)
		return w[x].t_ns < w[y].t_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_cause(const void *a, const void *b)
{
	const struct il_cause *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* The causes of one window from the timeline, @p the first segment that
 * may overlap it. */
static int assign(const struct timeline *tl, size_t p,
		  struct il_cause_sample *w)
{
	int64_t ws = w->t_ns, we = w->t_ns + (int64_t)w->value_ns, a, b;
	uint64_t explained = 0;
	struct il_cause *c;
	size_t j;
	int k;

	w->idle_state = -1;
	for (j = p; j < tl->nseg && tl->seg[j].t0 < we; j++) {
		const struct seg *s = &tl->seg[j];

		a = s->t0 > ws ? s->t0 : ws;
		b = s->t1 < we ? s->t1 : we;
		if (b <= a)
			continue;
		if (s->idle_state >= 0)
			w->idle_state = s->idle_state;
		if (s->owner == OWNER_SELF || s->owner == OWNER_UNKNOWN)
			continue;
		for (k = 0; k < w->ncauses; k++)
			if (!strcmp(w->causes[k].kind, tl->own[s->owner].kind) &&
			    !strcmp(w->causes[k].name, tl->own[s->owner].name))
				break;
		if (k == w->ncauses) {
			c = realloc(w->causes, (size_t)(k + 1) * sizeof(*c));
			if (!c)
				return -ENOMEM;
			w->causes = c;
			memset(&c[k], 0, sizeof(c[k]));
			memcpy(c[k].kind, tl->own[s->owner].kind, sizeof(c[k].kind));
			memcpy(c[k].name, tl->own[s->owner].name, sizeof(c[k].name));
			w->ncauses++;
		}
		w->causes[k].ns += (uint64_t)(b - a);
		if (s->start || j == p || s->t0 >= ws)
			w->causes[k].count += s->start || s->t0 < ws ? 1 : 0;
		explained += (uint64_t)(b - a);
	}
	w->unexplained_ns = explained < w->value_ns ? w->value_ns - explained : 0;
	if (w->ncauses > 1)
		qsort(w->causes, (size_t)w->ncauses, sizeof(*w->causes), cmp_cause);
	return 0;
}

/* The module's counts as causes: SMIs always (tracefs cannot see them),
 * NMIs only where no nmi_handler event already stands for them. */
static int add_counts(struct il_cause_sample *w)
{
	struct il_cause *c;
	int have_nmi = 0, k;

	for (k = 0; k < w->ncauses; k++)
		have_nmi |= !strcmp(w->causes[k].kind, IL_CAUSE_NMI);
	for (k = 0; k < 2; k++) {
		bool smi = k == 0;
		uint32_t n = smi ? w->smi : w->nmi;

		if (!n || !(w->counts_valid & (smi ? IL_CAUSES_SMI_VALID :
					       IL_CAUSES_NMI_VALID)) ||
		    (!smi && have_nmi))
			continue;
		c = realloc(w->causes, (size_t)(w->ncauses + 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		w->causes = c;
		c = &c[w->ncauses++];
		memset(c, 0, sizeof(*c));
		snprintf(c->kind, sizeof(c->kind), "%s", smi ? IL_CAUSE_SMI : IL_CAUSE_NMI);
		snprintf(c->name, sizeof(c->name), "%s", smi ?
			 "SMI (MSR 0x34 count, untimed)" : "NMI (module count, untimed)");
		c->count = n;
	}
	return 0;
}

int il_causes_attribute(const struct il_trace *t, uint64_t t0, uint64_t khz,
			struct il_cause_sample *win, size_t nwin,
			const int *win_cpu)
{
	struct conv c = { t->clock, t0, 1.0 };
	struct timeline *tl = NULL;
	size_t *ord = NULL, nord, i, p;
	int ci, ret = 0;

	if (t->clock == IL_TRACE_CLOCK_TSC)
		c.ns_per_unit = khz ? 1e6 / (double)khz : 1.0;
	ord = calloc(nwin + 1, sizeof(*ord));
	tl = calloc(1, sizeof(*tl));
	if (!ord || !tl) {
		ret = -ENOMEM;
		goto out;
	}
	for (ci = 0; !ret && ci < t->ncpus; ci++) {
		if (tl->hash)
			memset(tl->hash, 0, tl->nhash * sizeof(*tl->hash));
		tl->nown = 0;
		tl->nseg = 0;
		/* Owners 0 and 1 are fixed: self and unknown. */
		if (owner_id(tl, "self", "self") != OWNER_SELF ||
		    owner_id(tl, "unknown", "unknown") != OWNER_UNKNOWN) {
			ret = -ENOMEM;
			break;
		}
		for (nord = 0, i = 0; i < nwin; i++)
			if (win_cpu[i] == t->cpu[ci].cpu)
				ord[nord++] = i;
		if (!nord)
			continue;
		qsort_r(ord, nord, sizeof(*ord), cmp_win, win);
		ret = build(tl, t, &t->cpu[ci], &c);
		for (p = 0, i = 0; !ret && i < nord; i++) {
			while (p < tl->nseg && tl->seg[p].t1 <= win[ord[i]].t_ns)
				p++;
			ret = assign(tl, p, &win[ord[i]]);
			if (!ret)
				ret = add_counts(&win[ord[i]]);
		}
	}
out:
	if (tl) {
		free(tl->own);
		free(tl->seg);
		free(tl->hash);
	}
	free(tl);
	free(ord);
	return ret ? il_errorf(ret, "out of memory attributing causes") : 0;
}

static void fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f µs", (double)ns / 1e3);
	else
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
}

void il_causes_describe(const struct il_cause_sample *s, char *buf,
			size_t len)
{
	char d[32];
	size_t off;
	int i;

	fmt_ns(s->value_ns, d, sizeof(d));
	off = (size_t)snprintf(buf, len, "%s:", d);
	for (i = 0; i < s->ncauses && off < len; i++) {
		if (!s->causes[i].ns && s->causes[i].count)	/* untimed */
			snprintf(d, sizeof(d), "%" PRIu64 "x", s->causes[i].count);
		else
			fmt_ns(s->causes[i].ns, d, sizeof(d));
		off += (size_t)snprintf(buf + off, len - off, "%s %s %s %s",
					i ? ";" : "", d, s->causes[i].kind,
					s->causes[i].name);
	}
	if (off < len && (s->unexplained_ns || !s->ncauses)) {
		fmt_ns(s->unexplained_ns, d, sizeof(d));
		snprintf(buf + off, len - off, "%s %s unexplained",
			 s->ncauses ? ";" : "", d);
	}
}
