// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_read.c - reading a stopped capture back (il_trace_stop(),
 * trace_capture.h): the kernel's lost-event counts per CPU, then every
 * record of the measured CPUs through libtracefs, parsed by libtraceevent
 * with the kernel's own event formats, reduced to the few fields the
 * attribution needs.
 *
 * Event ids are mapped to their kind once per event id (a small table), so
 * the per-record work is a lookup and the field reads; the field
 * descriptors are looked up once per event id too.
 */
#include "err.h"
#include "trace_capture.h"
#include "grow.h"

#include <errno.h>
#include <event-parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#define KIND_UNKNOWN	0xfe	/* not looked at yet */
#define KIND_IGNORED	0xff	/* an event attribution has no use for */

struct ev_map {
	uint8_t kind;
	struct tep_format_field *f_a, *f_b, *f_name;
	char vec[IL_TEV_NAME];	/* irq_vectors: the vector's name */
};

struct reader {
	struct il_trace *t;
	struct ev_map *map;
	int nmap;
	int cpu_index[4096];	/* CPU number -> index in t->cpu, or -1 */
	int ret;
};

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return tep_find_field(e, name);
}

static void classify(struct ev_map *m, struct tep_event *e)
{
	const char *sys = e->system, *n = e->name;
	size_t len = strlen(n);

	m->kind = KIND_IGNORED;
	if (!strcmp(sys, "irq")) {
		if (!strcmp(n, "irq_handler_entry")) {
			m->kind = IL_TEV_IRQ_ENTRY;
			m->f_name = field(e, "name");
		} else if (!strcmp(n, "irq_handler_exit")) {
			m->kind = IL_TEV_IRQ_EXIT;
		} else if (!strcmp(n, "softirq_entry")) {
			m->kind = IL_TEV_SOFTIRQ_ENTRY;
		} else if (!strcmp(n, "softirq_exit")) {
			m->kind = IL_TEV_SOFTIRQ_EXIT;
		}
		m->f_a = field(e, !strncmp(n, "softirq", 7) ? "vec" : "irq");
	} else if (!strcmp(sys, "irq_vectors")) {
		if (len > 6 && !strcmp(n + len - 6, "_entry")) {
			m->kind = IL_TEV_VEC_ENTRY;
			len -= 6;
		} else if (len > 5 && !strcmp(n + len - 5, "_exit")) {
			m->kind = IL_TEV_VEC_EXIT;
			len -= 5;
		}
		if (len >= sizeof(m->vec))
			len = sizeof(m->vec) - 1;
		memcpy(m->vec, n, len);
		m->vec[len] = '\0';
	} else if (!strcmp(sys, "nmi") && !strcmp(n, "nmi_handler")) {
		m->kind = IL_TEV_NMI;
		m->f_b = field(e, "delta_ns");
	} else if (!strcmp(sys, "sched") && !strcmp(n, "sched_switch")) {
		m->kind = IL_TEV_SWITCH;
		m->f_a = field(e, "next_pid");
		m->f_b = field(e, "next_prio");
		m->f_name = field(e, "next_comm");
	} else if (!strcmp(sys, "sched") && !strcmp(n, "sched_wakeup")) {
		m->kind = IL_TEV_WAKEUP;
		m->f_a = field(e, "pid");
		m->f_name = field(e, "comm");
	} else if (!strcmp(sys, "power") && !strcmp(n, "cpu_idle")) {
		m->kind = IL_TEV_IDLE;
		m->f_a = field(e, "state");
	}
}

static struct ev_map *lookup(struct reader *r, struct tep_event *e)
{
	struct ev_map *m;
	int i;

	if (e->id < 0 || e->id > 65535)
		return NULL;
	if (e->id >= r->nmap) {
		m = realloc(r->map, (size_t)(e->id + 1) * sizeof(*m));
		if (!m)
			return NULL;
		for (i = r->nmap; i <= e->id; i++) {
			memset(&m[i], 0, sizeof(m[i]));
			m[i].kind = KIND_UNKNOWN;
		}
		r->map = m;
		r->nmap = e->id + 1;
	}
	m = &r->map[e->id];
	if (m->kind == KIND_UNKNOWN)
		classify(m, e);
	return m;
}

static long long num(struct tep_format_field *f, struct tep_record *rec)
{
	unsigned long long v = 0;

	if (!f || tep_read_number_field(f, rec->data, &v))
		return 0;
	/* Sign-extend fields narrower than 64 bits that are signed. */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size == 4)
		return (long long)(int32_t)v;
	return (long long)v;
}

static void str(struct tep_format_field *f, struct tep_event *e,
		struct tep_record *rec, char *out)
{
	const char *p;
	int len = 0;

	out[0] = '\0';
	if (!f)
		return;
	p = tep_get_field_raw(NULL, e, f->name, rec, &len, 0);
	if (!p || len <= 0)
		return;
	if (len >= IL_TEV_NAME)
		len = IL_TEV_NAME - 1;
	memcpy(out, p, (size_t)len);
	out[len] = '\0';
}

static int on_record(struct tep_event *e, struct tep_record *rec, int cpu,
		     void *ctx)
{
	struct reader *r = ctx;
	struct il_trace_cpu *pc;
	struct il_trace_ev *ev;
	struct ev_map *m;
	int idx;

	if (cpu < 0 || cpu >= 4096 || (idx = r->cpu_index[cpu]) < 0)
		return 0;
	m = lookup(r, e);
	if (!m) {
		r->ret = -ENOMEM;
		return 1;
	}
	if (m->kind == KIND_IGNORED)
		return 0;
	pc = &r->t->cpu[idx];
	if (IL_GROW(pc->ev, pc->cap, (size_t)pc->n + 1, 4096)) {
		r->ret = -ENOMEM;
		return 1;
	}
	ev = &pc->ev[pc->n++];
	memset(ev, 0, sizeof(*ev));
	ev->ts = rec->ts;
	ev->seq = r->t->seq++;
	ev->type = m->kind;
	ev->a = (int32_t)num(m->f_a, rec);
	ev->b = num(m->f_b, rec);
	if (m->kind == IL_TEV_VEC_ENTRY || m->kind == IL_TEV_VEC_EXIT)
		snprintf(ev->name, sizeof(ev->name), "%s", m->vec);
	else
		str(m->f_name, e, rec, ev->name);
	if (m->kind == IL_TEV_IDLE && (uint32_t)ev->a == 0xffffffffu)
		ev->a = -1;
	r->t->nevents++;
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct il_trace_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* overrun + commit overrun + dropped events, from per_cpu/cpuN/stats. */
static int64_t lost_events(struct il_trace *t, int cpu)
{
	static const char *const keys[] = { "overrun:", "commit overrun:",
					     "dropped events:" };
	char file[64], *s, *p;
	int64_t lost = 0;
	size_t i;
	int found = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	s = tracefs_instance_file_read(t->inst, file, NULL);
	if (!s)
		return -1;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		p = strstr(s, keys[i]);
		/* "commit overrun:" contains "overrun:"; match line starts. */
		while (p && p != s && p[-1] != '\n')
			p = strstr(p + 1, keys[i]);
		if (p) {
			lost += strtoll(p + strlen(keys[i]), NULL, 10);
			found++;
		}
	}
	free(s);
	return found ? lost : -1;
}

/*
 * The event formats of the systems recorded, parsed by libtraceevent.
 * tracefs_local_events_system() would do it too, but it also loads
 * /proc/kallsyms and every printk format (seconds, for symbol names
 * nothing here prints), so the handle is filled with only what the
 * records need: the ring's page header and these formats.
 */
static struct tep_handle *load_formats(const char *const *systems)
{
	struct tep_handle *tep = tep_alloc();
	char **events, *buf;
	int size, i, j, ok = 0;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, (int)sizeof(long));
	tep_set_page_size(tep, (int)sysconf(_SC_PAGESIZE));
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(tep, buf, (unsigned long)size,
					  (int)sizeof(long))) {
		free(buf);
		tep_free(tep);
		return NULL;
	}
	free(buf);
	for (i = 0; systems[i]; i++) {
		events = tracefs_system_events(NULL, systems[i]);
		for (j = 0; events && events[j]; j++) {
			buf = tracefs_event_file_read(NULL, systems[i], events[j],
						      "format", &size);
			if (buf && !tep_parse_event(tep, buf, (unsigned long)size,
						    systems[i]))
				ok++;
			free(buf);
		}
		tracefs_list_free(events);
	}
	if (!ok) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

int il_trace_stop(struct il_trace *t)
{
	static const char *const systems[] = { "irq", "irq_vectors", "nmi",
					       "sched", "power", NULL };
	struct tep_handle *tep;
	struct reader *r;
	cpu_set_t *set;
	size_t setsz;
	int i, maxcpu = 0, ret;

	if (tracefs_trace_off(t->inst) < 0)
		return il_errorf(-EIO, "cannot turn %s/tracing_on off", t->inst_dir);
	for (i = 0; i < t->ncpus; i++) {
		t->cpu[i].lost = lost_events(t, t->cpu[i].cpu);
		if (t->cpu[i].cpu > maxcpu)
			maxcpu = t->cpu[i].cpu;
	}
	tep = load_formats(systems);
	if (!tep)
		return il_errorf(-EIO, "libtraceevent could not load the event formats from tracefs");
	r = calloc(1, sizeof(*r));
	set = CPU_ALLOC((size_t)maxcpu + 1);
	if (!r || !set) {
		free(r);
		CPU_FREE(set);
		tep_free(tep);
		return il_errorf(-ENOMEM, "out of memory");
	}
	setsz = CPU_ALLOC_SIZE((size_t)maxcpu + 1);
	CPU_ZERO_S(setsz, set);
	r->t = t;
	for (i = 0; i < 4096; i++)
		r->cpu_index[i] = -1;
	for (i = 0; i < t->ncpus; i++) {
		if (t->cpu[i].cpu < 4096)
			r->cpu_index[t->cpu[i].cpu] = i;
		CPU_SET_S((size_t)t->cpu[i].cpu, setsz, set);
	}
	ret = tracefs_iterate_raw_events(tep, t->inst, set, (int)setsz,
					 on_record, r);
	if (r->ret)
		ret = il_errorf(r->ret, "out of memory reading trace events");
	else if (ret < 0)
		ret = il_errorf(-EIO, "cannot read the trace buffers of %s",
				t->inst_dir);
	else
		ret = 0;
	for (i = 0; !ret && i < t->ncpus; i++)
		qsort(t->cpu[i].ev, t->cpu[i].n, sizeof(*t->cpu[i].ev), cmp_ev);
	free(r->map);
	free(r);
	CPU_FREE(set);
	tep_free(tep);
	return ret;
}
