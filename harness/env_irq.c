// SPDX-License-Identifier: GPL-2.0-only
/*
 * env_irq.c - the /proc/interrupts parser behind the snapshots' per-CPU
 * interrupt counts (see struct irq_cols in env_internal.h for the shape).
 */
#include "env_internal.h"
#include "grow.h"

#include <errno.h>

/*
 * The header line [@line, @eol): one "CPUn" column per CPU, whose numbers
 * go to @ic->cpu.  A header that names no CPU is -EINVAL, with @why.
 */
static int parse_header(const char *line, const char *eol,
			struct irq_cols *ic, char *why, size_t wlen)
{
	const char *p;
	char *end;
	int cap = 16;

	ic->cpu = malloc((size_t)cap * sizeof(int));
	for (p = line; ic->cpu && p < eol;) {
		while (p < eol && *p == ' ')
			p++;
		if (p >= eol)
			break;
		if (strncmp(p, "CPU", 3) || !isdigit((unsigned char)p[3])) {
			snprintf(why, wlen, "/proc/interrupts header has an unexpected column");
			return -EINVAL;
		}
		if (IL_GROW(ic->cpu, cap, (size_t)ic->n + 1, 16))
			break;
		ic->cpu[ic->n++] = (int)strtol(p + 3, &end, 10);
		p = end;
	}
	if (!ic->n) {
		snprintf(why, wlen, "/proc/interrupts header names no CPU");
		return -EINVAL;
	}
	return 0;
}

int env_irq_parse(const char *text, struct irq_cols *ic, json_t *global,
		     char *why, size_t wlen)
{
	const char *line = text, *p, *eol;
	char name[64], *end;
	uint64_t *vals;
	int i, nv, ret;

	memset(ic, 0, sizeof(*ic));
	eol = strchr(line, '\n');
	if (!eol) {
		snprintf(why, wlen, "/proc/interrupts has no header line");
		return -EINVAL;
	}
	ret = parse_header(line, eol, ic, why, wlen);
	if (ret)
		return ret;
	ic->obj = calloc((size_t)ic->n, sizeof(*ic->obj));
	ic->total = calloc((size_t)ic->n, sizeof(uint64_t));
	ic->dev = calloc((size_t)ic->n, sizeof(uint64_t));
	vals = calloc((size_t)ic->n, sizeof(uint64_t));
	if (!ic->cpu || !ic->obj || !ic->total || !ic->dev || !vals) {
		free(vals);
		snprintf(why, wlen, "out of memory parsing /proc/interrupts");
		return -ENOMEM;
	}
	for (i = 0; i < ic->n; i++)
		ic->obj[i] = json_object();
	for (line = eol + 1; *line; line = *eol ? eol + 1 : eol) {
		const char *colon;
		size_t nl;

		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		while (line < eol && *line == ' ')
			line++;
		colon = memchr(line, ':', (size_t)(eol - line));
		if (!colon)
			continue;
		nl = (size_t)(colon - line);
		if (!nl || nl >= sizeof(name))
			continue;
		memcpy(name, line, nl);
		name[nl] = '\0';
		p = colon + 1;
		for (nv = 0; nv < ic->n; nv++) {
			while (p < eol && *p == ' ')
				p++;
			if (p >= eol || !isdigit((unsigned char)*p))
				break;
			vals[nv] = strtoull(p, &end, 10);
			if (end < eol && *end != ' ')
				break;	/* "0-edge" and the like */
			p = end;
		}
		if (nv == 1 && ic->n > 1) {
			set(global, name, json_integer((json_int_t)vals[0]));
			continue;
		}
		if (nv != ic->n)
			continue;
		for (i = 0; i < ic->n; i++) {
			ic->total[i] += vals[i];
			if (isdigit((unsigned char)name[0]))
				ic->dev[i] += vals[i];
			else
				set(ic->obj[i], name,
				    json_integer((json_int_t)vals[i]));
		}
	}
	for (i = 0; i < ic->n; i++) {
		set(ic->obj[i], "total", json_integer((json_int_t)ic->total[i]));
		set(ic->obj[i], "devices", json_integer((json_int_t)ic->dev[i]));
	}
	free(vals);
	return 0;
}

void env_irq_free(struct irq_cols *ic)
{
	int i;

	for (i = 0; ic->obj && i < ic->n; i++)
		json_decref(ic->obj[i]);
	free(ic->obj);
	free(ic->cpu);
	free(ic->total);
	free(ic->dev);
}

json_t *env_snap_irq(struct irq_cols *ic, int ok, const char *why, int cpu)
{
	int i;

	if (!ok)
		return il_unknown(why);
	for (i = 0; i < ic->n; i++)
		if (ic->cpu[i] == cpu)
			return json_incref(ic->obj[i]);
	return unknownf("CPU %d has no column in /proc/interrupts", cpu);
}
