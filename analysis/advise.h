/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * advise.h - `idlelab advise` (issue 24): the deepest set of idle states
 * whose measured wake latency meets a budget such as p99.99<=50us, shown
 * by a distribution-free upper confidence bound on the quantile, and the
 * settings that keep a machine to that set.
 *
 * The parts are apart so the deterministic ones are tested without a
 * dataset: the budget parser and the order-statistic bound (advise.c),
 * the choice and the settings text (advise.c), and what a dataset holds
 * for one machine (advise_db.c).  Errors follow err.h.
 */
#ifndef IDLELAB_ADVISE_H
#define IDLELAB_ADVISE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct il_store;
struct il_hist;

#define IL_ADV_NAME_LEN	32
#define IL_ADV_MAX_STATES	16

struct il_budget {
	double q;		/* the quantile, in (0, 1): 0.9999 */
	uint64_t limit_ns;	/* the quantile must be at most this */
	char text[48];		/* as given, for messages */
};

/**
 * il_budget_parse() - "pQ<=N[ns|us|ms]", e.g. "p99.99<=50us" or
 * "p50<=2000ns" (no unit: us).  Return: 0, or -EINVAL with a message.
 */
int il_budget_parse(const char *s, struct il_budget *b);

/**
 * il_quantile_ucb_rank() - the 1-based rank u of the order statistic
 * X(u) of @n samples that lies at or above the @q quantile with
 * probability at least @conf, for any continuous distribution: the
 * smallest u with P(Binomial(n, q) <= u - 1) >= conf.  Return: u, or 0
 * when even the largest sample is not such a bound (too few samples).
 */
uint64_t il_quantile_ucb_rank(uint64_t n, double q, double conf);

/**
 * il_quantile_min_n() - the fewest samples for which the largest one is
 * an upper bound on the @q quantile at @conf: the least n with
 * q^n <= 1 - conf.
 */
uint64_t il_quantile_min_n(double q, double conf);

enum il_adv_verdict {
	IL_ADV_MEETS,		/* the bound is within the budget */
	IL_ADV_FAILS,		/* the bound is above it */
	IL_ADV_FEW,		/* samples, but too few for a bound */
	IL_ADV_UNMEASURED,	/* no sample entered it */
};

/* One idle state, shallow to deep, as cpuidle numbers them. */
struct il_adv_state {
	char name[IL_ADV_NAME_LEN];
	int index;
	int64_t latency_us;	/* declared; -1: unknown */
	int64_t residency_us;	/* declared; -1: unknown */
	/* Filled by the caller from the measurements: */
	uint64_t n;		/* samples that entered it alone */
	uint64_t point_ns;	/* the quantile's estimate (n > 0) */
	uint64_t ucb_ns;	/* its upper bound (rank found) */
	bool has_ucb;
	/* Filled by il_advise_choose(): */
	enum il_adv_verdict verdict;
	uint64_t need_n;	/* IL_ADV_FEW, IL_ADV_UNMEASURED */
};

enum il_adv_answer {
	IL_ADV_NO_CPUIDLE,	/* no states: nothing to choose */
	IL_ADV_TOO_FEW,		/* the shallowest undecided state lacks samples */
	IL_ADV_NONE_MEETS,	/* not even the shallowest state meets it */
	IL_ADV_ONLY_POLL,	/* only POLL (busy polling) meets it */
	IL_ADV_CAP,		/* states up to `deepest` meet it; cap there */
	IL_ADV_ALL,		/* every state meets it: no cap needed */
};

struct il_advice {
	enum il_adv_answer answer;
	int deepest;		/* index into the states; -1: none */
	int stop;		/* the state that ended the walk; -1: none */
	uint64_t need_n;	/* IL_ADV_TOO_FEW: samples that state needs */
};

/**
 * il_advise_choose() - walk @st (@n states, shallow to deep), set each
 * state's verdict for @b at @conf, and answer: the deepest state such
 * that it and every shallower state meet the budget.  A state without
 * enough samples ends the walk, as a failing one does: allowing it would
 * be a guess.
 */
void il_advise_choose(struct il_adv_state *st, int n,
		      const struct il_budget *b, double conf,
		      struct il_advice *out);

/**
 * il_advise_settings() - the settings that keep a machine whose cpuidle
 * driver is @driver to states 0..@a->deepest, as a JSON object:
 * cpu_dma_latency_us, pm_qos_resume_latency_us (what to write), disable
 * (state indices), disable_cmds, tuned (a profile snippet), cmdline (or
 * null with cmdline_why), and notes[].  NULL for an answer with no
 * settings (no cpuidle, too few samples, none meets) or out of memory.
 */
json_t *il_advise_settings(const struct il_adv_state *st, int n,
			   const char *driver, const struct il_advice *a);

/** il_adv_answer_name() - "no_cpuidle", "too_few_samples", ... */
const char *il_adv_answer_name(enum il_adv_answer a);
/** il_adv_verdict_name() - "meets", "fails", "too_few", "unmeasured". */
const char *il_adv_verdict_name(enum il_adv_verdict v);

/**
 * il_adv_states_from_fingerprint() - the cpuidle states of a stored (or
 * il_fingerprint()) fingerprint into @st, shallow to deep, and its driver
 * name into @driver.  Return: the number of states, 0 when it has none
 * (the reason in @why).
 */
int il_adv_states_from_fingerprint(json_t *fp, struct il_adv_state *st,
				   int max, char *driver, size_t dlen,
				   char *why, size_t wlen);

/* One machine's inputs and answer, from a dataset (advise_db.c). */
struct il_adv_machine {
	char uuid[37];
	char host[128];
	char driver[64];
	char why[256];		/* no states: why */
	int nstates;
	struct il_adv_state st[IL_ADV_MAX_STATES];
	uint64_t ambiguous;	/* samples with two or more idle entries */
	uint64_t runs;		/* idle_sweep runs read */
	struct il_advice advice;
};

/**
 * il_advise_machines() - for every machine of @s (or the one whose UUID
 * starts with, or whose hostname is, @machine) that has a fingerprint,
 * its states, the quantile of @b and its bound per state pooled over the
 * ok idle_sweep runs woken by @wake ("timer" or "ipi"), and the advice.
 * Return: the number of machines in *@out (free() it), or -errno; 0
 * machines with a message when @machine matches none.
 */
int il_advise_machines(struct il_store *s, const char *machine,
		       const char *wake, const struct il_budget *b,
		       double conf, struct il_adv_machine **out);

/**
 * il_adv_hist_rank() - the order statistic of 1-based @rank in @h, as its
 * bucket's high edge (@hi: a bound that errs high) or low edge.
 */
uint64_t il_adv_hist_rank(const struct il_hist *h, uint64_t rank, bool hi);

/**
 * il_adv_hist_into() - merge @h into *@into, or make it *@into when that
 * is NULL; @h is consumed either way.  Return: 0 or il_hist_merge()'s.
 */
int il_adv_hist_into(struct il_hist **into, struct il_hist *h);

/**
 * il_adv_state_index() - the state of @st whose name idle_sweep wrote as
 * @metric_state (the part after wake_latency_in_), or -1.
 */
int il_adv_state_index(const struct il_adv_state *st, int n,
		       const char *metric_state);

/* One arm of `advise --verify`'s confirmation campaign (advise_verify.c). */
enum il_adv_check {
	IL_ADV_CHECK_MET,	/* the upper bound is within the budget */
	IL_ADV_CHECK_NOT_MET,	/* the bound (or the estimate) is above it */
	IL_ADV_CHECK_TOO_FEW,	/* no bound: too few samples */
};

struct il_adv_arm {
	uint64_t runs;		/* ok idle_sweep runs of the arm */
	uint64_t n;		/* their wake_latency samples, pooled */
	uint64_t point_ns;	/* the budget's quantile (n > 0) */
	uint64_t ucb_ns;	/* its upper bound (has_ucb) */
	bool has_ucb;
	enum il_adv_check check;
	uint64_t need_n;	/* IL_ADV_CHECK_TOO_FEW: samples a bound needs */
};

/**
 * il_adv_arm_bound() - the quantile of @b in @h (NULL: no samples), its
 * upper bound at @conf and the verdict, into @a (runs left alone).
 */
void il_adv_arm_bound(const struct il_hist *h, const struct il_budget *b,
		      double conf, struct il_adv_arm *a);

/**
 * il_advise_arm_load() - every ok idle_sweep run of @campaign in @s, its
 * wake_latency pooled, bounded and judged by il_adv_arm_bound().
 * Return: 0, or -errno with a message.
 */
int il_advise_arm_load(struct il_store *s, const char *campaign,
		       const struct il_budget *b, double conf,
		       struct il_adv_arm *a);

/** il_adv_check_name() - "met", "not_met", "too_few_samples". */
const char *il_adv_check_name(enum il_adv_check c);

#endif
