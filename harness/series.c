// SPDX-License-Identifier: GPL-2.0-only
/*
 * series.c - sample sink of one metric: exact summary + histogram + raw.
 */
#include "series.h"

#include <stdlib.h>
#include <string.h>

/* Raw samples are bounded so a mistaken --raw on a day-long run cannot eat
 * the machine's memory; what is cut off is counted, never silently lost. */
#define IL_RAW_DEFAULT_LIMIT	(UINT64_C(64) << 20)

struct il_series *il_series_new(const char *metric, const char *unit,
				int cpu, int cpu2, int64_t group,
				bool timed, bool keep_raw)
{
	struct il_series *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->hist = il_hist_new();
	if (!s->hist) {
		free(s);
		return NULL;
	}
	strncpy(s->metric, metric, sizeof(s->metric) - 1);
	strncpy(s->unit, unit, sizeof(s->unit) - 1);
	s->cpu = cpu;
	s->cpu2 = cpu2;
	s->group = group;
	s->keep_raw = keep_raw || timed;
	s->raw_layout = timed ? IL_RAW_TIMED : IL_RAW_VALUES;
	s->raw_limit = IL_RAW_DEFAULT_LIMIT;
	il_summary_init(&s->sum);
	return s;
}

void il_series_free(struct il_series *s)
{
	if (!s)
		return;
	il_hist_free(s->hist);
	free(s->raw);
	free(s);
}

static void raw_push(struct il_series *s, const uint64_t *w, size_t n)
{
	if (s->raw_len / n >= s->raw_limit) {
		s->dropped_raw++;
		return;
	}
	if (s->raw_len + n > s->raw_cap) {
		size_t cap = s->raw_cap ? s->raw_cap * 2 : 4096;
		uint64_t *p = realloc(s->raw, cap * sizeof(*p));

		if (!p) {
			s->dropped_raw++;
			return;
		}
		s->raw = p;
		s->raw_cap = cap;
	}
	memcpy(s->raw + s->raw_len, w, n * sizeof(*w));
	s->raw_len += n;
}

void il_series_add(struct il_series *s, uint64_t v)
{
	if (il_hist_record(s->hist, v) < 0) {
		s->sum.dropped++;
		return;
	}
	il_summary_add(&s->sum, v);
	if (s->keep_raw)
		raw_push(s, &v, 1);
}

void il_series_add_timed(struct il_series *s, uint64_t t_ns, uint64_t v)
{
	uint64_t w[2] = { t_ns, v };

	if (il_hist_record(s->hist, v) < 0) {
		s->sum.dropped++;
		return;
	}
	il_summary_add(&s->sum, v);
	raw_push(s, w, 2);
}
