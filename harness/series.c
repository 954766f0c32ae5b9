// SPDX-License-Identifier: GPL-2.0-only
/*
 * series.c - sample sink of one metric: exact summary + histogram + raw.
 */
#include "series.h"
#include "err.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
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
	/* Allocated and touched now, never in a timed loop (see
	 * il_series_reserve()); without it the run is just not judged. */
	if (!s->keep_raw) {
		s->win = malloc(2 * IL_STATIONARY_WIN * sizeof(*s->win));
		if (s->win)
			memset(s->win, 0, 2 * IL_STATIONARY_WIN * sizeof(*s->win));
	}
	return s;
}

void il_series_free(struct il_series *s)
{
	if (!s)
		return;
	il_hist_free(s->hist);
	free(s->raw);
	free(s->win);
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
	else if (s->win) {
		if (s->win_n < IL_STATIONARY_WIN)
			s->win[s->win_n] = v;
		s->win[IL_STATIONARY_WIN + s->win_n % IL_STATIONARY_WIN] = v;
		s->win_n++;
	}
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

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Quartiles 1 and 3 of the @k values of @src from index @from on, the
 * index taken modulo @mod (a ring; SIZE_MAX for a plain array).
 */
static bool quartiles(const uint64_t *src, size_t from, size_t k, size_t mod,
		      uint64_t *q1, uint64_t *q3)
{
	uint64_t *v = malloc(k * sizeof(*v));
	size_t i;

	if (!v)
		return false;
	for (i = 0; i < k; i++)
		v[i] = src[(from + i) % mod];
	qsort(v, k, sizeof(*v), u64_cmp);
	*q1 = v[k / 4];
	*q3 = v[(3 * k) / 4];
	free(v);
	return true;
}

bool il_series_drifted(const struct il_series *s, char *why, size_t len)
{
	const size_t w = IL_STATIONARY_WIN;
	uint64_t a1, a3, b1, b3;
	bool raw = s->raw && s->raw_layout != IL_RAW_TIMED &&
		   s->raw_len == s->sum.count && !s->dropped_raw;
	size_t n = raw ? s->raw_len : (size_t)s->win_n;
	size_t k = n / 10;
	bool ok;

	/* Timed series are event lists (gaps above a threshold), whose
	 * lengths come and go with the interrupts: not a sampled level.
	 * A window must have seen every sample the summary counts. */
	if (s->raw_layout == IL_RAW_TIMED || n < IL_STATIONARY_MIN ||
	    (!raw && (!s->win || s->win_n != s->sum.count)))
		return false;
	if (raw) {
		ok = quartiles(s->raw, 0, k, SIZE_MAX, &a1, &a3) &&
		     quartiles(s->raw, n - k, k, SIZE_MAX, &b1, &b3);
	} else {
		k = k < w ? k : w;
		ok = quartiles(s->win, 0, k, SIZE_MAX, &a1, &a3) &&
		     quartiles(s->win + w, (n - k) % w, k, w, &b1, &b3);
	}
	if (!ok || (a3 >= b1 && b3 >= a1))
		return false;
	if (k == n / 10)
		snprintf(why, len, "%s: first tenth's middle half %" PRIu64 "-%" PRIu64
			 " %s, last tenth's %" PRIu64 "-%" PRIu64,
			 s->metric, a1, a3, s->unit, b1, b3);
	else
		snprintf(why, len, "%s: first %zu samples' middle half %" PRIu64 "-%" PRIu64
			 " %s, last %zu's %" PRIu64 "-%" PRIu64 " (of %zu)",
			 s->metric, k, a1, a3, s->unit, k, b1, b3, n);
	return true;
}
