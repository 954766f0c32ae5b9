// SPDX-License-Identifier: GPL-2.0-only
/*
 * series.c - sample sink of one metric: exact summary + histogram + raw.
 */
#include "series.h"
#include "err.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
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

int il_series_reserve(struct il_series *s, uint64_t nsamples)
{
	size_t words = s->raw_layout == IL_RAW_TIMED ? 2 : 1;
	uint64_t n = nsamples < s->raw_limit ? nsamples : s->raw_limit;
	size_t cap;
	uint64_t *p;

	if (!s->keep_raw || n > SIZE_MAX / (words * sizeof(*p)))
		return s->keep_raw ? il_errorf(-ENOMEM, "%" PRIu64 " raw samples do not fit in memory", n) : 0;
	cap = (size_t)n * words;
	if (cap <= s->raw_cap)
		return 0;
	p = realloc(s->raw, cap * sizeof(*p));
	if (!p)
		return il_errorf(-ENOMEM, "out of memory for %" PRIu64 " raw samples of %s",
				 n, s->metric);
	/* Touch every page now, not in the timed loop. */
	memset(p + s->raw_len, 0, (cap - s->raw_len) * sizeof(*p));
	s->raw = p;
	s->raw_cap = cap;
	return 0;
}

static void raw_push(struct il_series *s, const uint64_t *w, size_t n)
{
	if (s->raw_len / n >= s->raw_limit) {
		s->dropped_raw++;
		return;
	}
	if (IL_GROW(s->raw, s->raw_cap, s->raw_len + n, 4096)) {
		s->dropped_raw++;
		return;
	}
	memcpy(s->raw + s->raw_len, w, n * sizeof(*w));
	s->raw_len += n;
}

void il_series_add(struct il_series *s, uint64_t v)
{
	if (il_hist_record(s->hist, v) < 0) {
		il_series_drop(s, IL_DROP_RANGE);
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
		il_series_drop(s, IL_DROP_RANGE);
		return;
	}
	il_summary_add(&s->sum, v);
	raw_push(s, w, 2);
}
