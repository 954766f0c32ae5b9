// SPDX-License-Identifier: GPL-2.0-only
/*
 * counters_papi.c - the PAPI backend ("papi"), for PAPI's portable
 * presets.  The Makefile builds this file only where papi.h is installed
 * and counters_nopapi.c otherwise, so nothing here needs an #ifdef.
 *
 * PAPI runs one event set per context and component at a time, so events
 * are grouped by component into one set per measured CPU, attached with
 * PAPI_CPU_ATTACH; where PAPI cannot attach, into one per-thread set that
 * counts the opening thread only, and every result says so.
 */
#include "counters.h"
#include "err.h"
#include "counters_internal.h"

#include <errno.h>
#include <math.h>
#include <papi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const papi_defaults[] = {
	"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM",
};

/* A PAPI event set: one CPU (or, cpu == -1, the opening thread) x one
 * component, since PAPI runs one set per context and component at a time. */
struct pset {
	int es;
	int cpu;
	int cidx;
	int nev;
	bool running;
};

/* The backend's state (il_counters.priv). */
struct papi_sets {
	bool inited;		/* papi_get() succeeded: papi_put() at close */
	int nps;
	struct pset *ps;
};

static struct papi_sets *S(struct il_counters *c)
{
	return c->priv;
}

/* ---- the PAPI backend ------------------------------------------------ */

static int papi_users;		/* under cnt_lock */

static const char *papi_err(int ret)
{
	const char *s = PAPI_strerror(ret);

	return s ? s : "unknown PAPI error";
}

/* Holds cnt_lock.  0, or the failing PAPI_library_init() return. */
static int papi_get(void)
{
	int ret;

	if (papi_users > 0) {
		papi_users++;
		return 0;
	}
	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT)
		return ret < 0 ? ret : PAPI_EINVAL;
	papi_users = 1;
	return 0;
}

static void papi_put(void)
{
	if (papi_users > 0 && --papi_users == 0)
		PAPI_shutdown();
}

static struct pset *papi_new_set(struct il_counters *c, int cpu, int cidx,
				 int *err)
{
	struct pset *ps = realloc(S(c)->ps, (size_t)(S(c)->nps + 1) * sizeof(*ps));
	PAPI_option_t opt;

	if (!ps) {
		*err = PAPI_ENOMEM;
		return NULL;
	}
	S(c)->ps = ps;
	ps = &ps[S(c)->nps];
	memset(ps, 0, sizeof(*ps));
	ps->es = PAPI_NULL;
	ps->cpu = cpu;
	ps->cidx = cidx;
	*err = PAPI_create_eventset(&ps->es);
	if (*err == PAPI_OK)
		*err = PAPI_assign_eventset_component(ps->es, cidx);
	if (*err == PAPI_OK && cpu >= 0) {
		memset(&opt, 0, sizeof(opt));
		opt.cpu.eventset = ps->es;
		opt.cpu.cpu_num = (unsigned int)cpu;
		*err = PAPI_set_opt(PAPI_CPU_ATTACH, &opt);
	}
	if (*err != PAPI_OK) {
		if (ps->es != PAPI_NULL)
			PAPI_destroy_eventset(&ps->es);
		return NULL;
	}
	S(c)->nps++;
	return ps;
}

/*
 * Count as the pfm backend does (user and kernel); PAPI defaults to user
 * only.  Where PAPI refuses, the note says the count is user-only.
 */
static void papi_domain(struct pset *ps, char *note, size_t len)
{
	PAPI_option_t opt;
	int ret;

	memset(&opt, 0, sizeof(opt));
	opt.domain.eventset = ps->es;
	opt.domain.domain = PAPI_DOM_USER | PAPI_DOM_KERNEL;
	ret = PAPI_set_opt(PAPI_DOMAIN, &opt);
	if (ret != PAPI_OK)
		setf(note, len, "user mode only (PAPI_DOMAIN: %s)",
		     papi_err(ret));
}

/* Why PAPI could not add @code: its own words, plus the component's. */
static void papi_why(char *buf, size_t len, int code, int ret,
		     const char *attach)
{
	const PAPI_component_info_t *ci;
	PAPI_event_info_t info;
	char extra[96] = "";
	int cidx = PAPI_get_event_component(code);

	ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	if (ci && ci->disabled)
		setf(extra, sizeof(extra), "; component '%s' disabled: %s",
		     ci->name, ci->disabled_reason);
	else if (PAPI_get_event_info(code, &info) == PAPI_OK &&
		 IS_PRESET(code) && info.count == 0)
		setf(extra, sizeof(extra),
		     "; no native event behind this preset here");
	if (attach[0])
		setf(buf, len, "PAPI_add_event: %s%s (per-thread set: %s)",
		     papi_err(ret), extra, attach);
	else
		setf(buf, len, "PAPI_add_event: %s%s", papi_err(ret), extra);
}

/* Add the events of component @cidx to one set per CPU, or to a per-thread
 * set where PAPI cannot attach to a CPU. */
static int papi_component(struct il_counters *c, char **tok, const int *code,
			  const int *comp, int ntok, int cidx,
			  const int *cpus, int ncpus)
{
	char attach[96] = "", note[96] = "";	/* attach: why per-thread */
	int first = S(c)->nps, i, j, err = PAPI_OK;
	struct pset *ps;

	for (j = 0; j < ncpus; j++) {
		if (papi_new_set(c, cpus[j], cidx, &err))
			continue;
		setf(attach, sizeof(attach),
		     "PAPI_CPU_ATTACH to CPU %d failed: %s", cpus[j],
		     papi_err(err));
		break;
	}
	if (err != PAPI_OK) {
		/* All or nothing: a mix of attached and per-thread sets
		 * would not add up to anything. */
		while (S(c)->nps > first) {
			S(c)->nps--;
			PAPI_destroy_eventset(&S(c)->ps[S(c)->nps].es);
		}
		if (!papi_new_set(c, -1, cidx, &err)) {
			for (i = 0; i < ntok; i++) {
				struct cnt *n;

				if (comp[i] != cidx)
					continue;
				for (j = 0; j < ncpus; j++) {
					n = cnt_add_row(c, tok[i], cpus[j]);
					if (!n)
						return il_errorf(-ENOMEM,
								 "out of memory");
					n->res.status = IL_CNT_UNSUPPORTED;
					setf(n->res.reason,
					     sizeof(n->res.reason),
					     "PAPI_create_eventset: %s; %s",
					     papi_err(err), attach);
				}
			}
			return 0;
		}
	}
	for (j = first; j < S(c)->nps; j++) {
		ps = &S(c)->ps[j];
		note[0] = '\0';
		papi_domain(ps, note, sizeof(note));
		for (i = 0; i < ntok; i++) {
			struct cnt *n;
			int ret, k;

			if (comp[i] != cidx)
				continue;
			ret = PAPI_add_event(ps->es, code[i]);
			if (ret == PAPI_OK) {
				n = cnt_add_row(c, tok[i], ps->cpu);
				if (!n)
					return il_errorf(-ENOMEM,
							 "out of memory");
				n->pset = j;
				n->pidx = ps->nev++;
				if (ps->cpu < 0)
					setf(n->note, sizeof(n->note),
					     "per-thread, opening thread only (%s)%s%s",
					     attach, note[0] ? "; " : "", note);
				else
					setf(n->note, sizeof(n->note), "%s",
					     note);
				cnt_set_pending(n);
				continue;
			}
			/* A per-thread set stands for every measured CPU. */
			for (k = 0; k < (ps->cpu < 0 ? ncpus : 1); k++) {
				n = cnt_add_row(c, tok[i],
					    ps->cpu < 0 ? cpus[k] : ps->cpu);
				if (!n)
					return il_errorf(-ENOMEM,
							 "out of memory");
				n->res.status = IL_CNT_UNSUPPORTED;
				papi_why(n->res.reason, sizeof(n->res.reason),
					 code[i], ret, attach);
			}
		}
	}
	return 0;
}

static int papi_open(struct il_counters *c, const char *events,
		     const int *cpus, int ncpus)
{
	char **tok = NULL, why[160] = "";
	int *code = NULL, *comp = NULL, ntok = 0, i, j, ret, pret;

	ret = cnt_event_tokens(events, papi_defaults,
			       (int)(sizeof(papi_defaults) /
				     sizeof(papi_defaults[0])), &tok, &ntok);
	if (ret)
		return ret;
	code = calloc((size_t)ntok, sizeof(*code));
	comp = calloc((size_t)ntok, sizeof(*comp));
	c->priv = calloc(1, sizeof(struct papi_sets));
	if (!code || !comp || !c->priv) {
		ret = il_errorf(-ENOMEM, "out of memory");
		goto out_free;
	}

	pthread_mutex_lock(&cnt_lock);
	pret = papi_get();
	if (pret != PAPI_OK) {
		/* PAPI cannot count at all: say so for every event. */
		pthread_mutex_unlock(&cnt_lock);
		setf(why, sizeof(why), "PAPI_library_init: %s",
		     papi_err(pret));
		ret = 0;
		for (i = 0; !ret && i < ntok; i++)
			for (j = 0; !ret && j < ncpus; j++) {
				struct cnt *n = cnt_add_row(c, tok[i], cpus[j]);

				if (!n) {
					ret = il_errorf(-ENOMEM,
							"out of memory");
					break;
				}
				n->res.status = IL_CNT_UNSUPPORTED;
				setf(n->res.reason, sizeof(n->res.reason),
				     "%s", why);
			}
		goto out_free;
	}
	S(c)->inited = true;
	ret = 0;
	for (i = 0; i < ntok; i++) {
		pret = PAPI_event_name_to_code(tok[i], &code[i]);
		if (pret != PAPI_OK) {
			ret = il_errorf(-EINVAL, "unknown event '%s' (PAPI: %s)",
					tok[i], papi_err(pret));
			goto out_unlock;
		}
		comp[i] = PAPI_get_event_component(code[i]);
		if (comp[i] < 0)
			comp[i] = 0;
	}
	for (i = 0; !ret && i < ntok; i++) {
		for (j = 0; j < i; j++)
			if (comp[j] == comp[i])
				break;
		if (j == i)
			ret = papi_component(c, tok, code, comp, ntok, comp[i],
					     cpus, ncpus);
	}
out_unlock:
	pthread_mutex_unlock(&cnt_lock);
out_free:
	free(code);
	free(comp);
	cnt_free_tokens(tok, ntok);
	return ret;
}

static void papi_start(struct il_counters *c)
{
	int i, j, ret;

	pthread_mutex_lock(&cnt_lock);
	for (i = 0; i < S(c)->nps; i++) {
		struct pset *ps = &S(c)->ps[i];

		if (!ps->nev || ps->running)
			continue;
		ret = PAPI_start(ps->es);
		if (ret == PAPI_OK) {
			ps->running = true;
			continue;
		}
		for (j = 0; j < c->n; j++) {
			struct cnt *n = &c->c[j];

			if (n->pset != i || !n->live)
				continue;
			n->live = false;
			n->res.status = IL_CNT_UNSUPPORTED;
			setf(n->res.reason, sizeof(n->res.reason),
			     "PAPI_start: %s", papi_err(ret));
		}
	}
	pthread_mutex_unlock(&cnt_lock);
}

static void papi_stop(struct il_counters *c)
{
	long long *vals;
	int i, j, ret;

	pthread_mutex_lock(&cnt_lock);
	for (i = 0; i < S(c)->nps; i++) {
		struct pset *ps = &S(c)->ps[i];

		if (!ps->running)
			continue;
		ps->running = false;
		vals = calloc((size_t)ps->nev, sizeof(*vals));
		ret = vals ? PAPI_stop(ps->es, vals) : PAPI_ENOMEM;
		if (!vals)
			PAPI_stop(ps->es, NULL);
		for (j = 0; j < c->n; j++) {
			struct cnt *n = &c->c[j];

			if (n->pset != i || !n->live)
				continue;
			if (ret != PAPI_OK) {
				n->res.status = IL_CNT_UNSUPPORTED;
				n->res.value = NAN;
				setf(n->res.reason, sizeof(n->res.reason),
				     "PAPI_stop: %s", papi_err(ret));
				continue;
			}
			n->res.status = IL_CNT_OK;
			n->res.value = (double)vals[n->pidx];
			setf(n->res.reason, sizeof(n->res.reason), "%s",
			     n->note);
		}
		free(vals);
	}
	pthread_mutex_unlock(&cnt_lock);
}

static void papi_close(struct il_counters *c)
{
	int i;

	if (!S(c))
		return;
	pthread_mutex_lock(&cnt_lock);
	for (i = 0; i < S(c)->nps; i++) {
		if (S(c)->ps[i].running)
			PAPI_stop(S(c)->ps[i].es, NULL);
		PAPI_cleanup_eventset(S(c)->ps[i].es);
		PAPI_destroy_eventset(&S(c)->ps[i].es);
	}
	if (S(c)->inited)
		papi_put();
	pthread_mutex_unlock(&cnt_lock);
	free(S(c)->ps);
	free(c->priv);
	c->priv = NULL;
}

const struct cnt_backend cnt_papi_backend = {
	.name = "papi",
	.open = papi_open,
	.start = papi_start,
	.stop = papi_stop,
	.close = papi_close,
};
