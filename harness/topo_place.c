// SPDX-License-Identifier: GPL-2.0-only
/*
 * topo_place.c - placement specs: a spec expands to a sorted CPU set or to
 * a list of CPU pairs (see topo.h), checked against the online CPUs.
 *
 * Pairs by relation are a bounded, deterministic sample rather than every
 * pair: for each online CPU a, in ascending order, its first partner b of
 * that relation gives the pair (min, max); duplicates are dropped, at most
 * IL_PAIRS_MAX are kept, and the result is sorted.  Every CPU that has a
 * partner thus appears in some pair, without the quadratic blow-up of all
 * pairs on a large machine.
 */
#include "topo.h"
#include "err.h"
#include "topo_internal.h"
#include "grow.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough pairs for any benchmark matrix; more only multiplies run time. */
#define IL_PAIRS_MAX	64

static int check_online(struct il_topo *t, int cpu, const char *spec)
{
	char on[256];

	if (il_topo_cpu_online(t, cpu))
		return 0;
	online_str(t, on, sizeof(on));
	return il_errorf(-ENODEV,
			 "placement '%s': CPU %d is offline or does not exist (online: %s)",
			 spec, cpu, on);
}

static int set_to_array(hwloc_const_bitmap_t set, struct il_placement *out)
{
	int n = hwloc_bitmap_weight(set), i, k = 0;

	out->kind = IL_PLACE_CPUS;
	out->cpus = calloc(n > 0 ? (size_t)n : 1, sizeof(int));
	if (!out->cpus)
		return il_errorf(-ENOMEM, "out of memory expanding '%s'",
				 out->spec);
	hwloc_bitmap_foreach_begin(i, set) {
		out->cpus[k++] = i;
	} hwloc_bitmap_foreach_end();
	out->ncpus = k;
	return 0;
}

/* ---- placement ------------------------------------------------------- */

static int first_of_each(struct il_topo *t, hwloc_obj_type_t type,
			 const char *none, struct il_placement *out)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc(), tmp = hwloc_bitmap_alloc();
	hwloc_obj_t obj = NULL;
	int nobj = 0, ret, cpu;

	if (!set || !tmp) {
		ret = il_errorf(-ENOMEM, "out of memory expanding '%s'",
				out->spec);
		goto out;
	}
	while ((obj = hwloc_get_next_obj_by_type(t->h, type, obj))) {
		nobj++;
		hwloc_bitmap_and(tmp, obj->cpuset, t->online);
		cpu = hwloc_bitmap_first(tmp);
		if (cpu >= 0)
			hwloc_bitmap_set(set, (unsigned int)cpu);
	}
	if (!nobj)
		ret = il_errorf(-ENOENT, "placement '%s': %s", out->spec, none);
	else if (hwloc_bitmap_iszero(set))
		ret = il_errorf(-ENOENT, "placement '%s': no online CPU",
				out->spec);
	else
		ret = set_to_array(set, out);
out:
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(tmp);
	return ret;
}

static const struct {
	const char *name;
	enum il_relation rel;
	const char *what;
} pair_rels[] = {
	{ "smt", IL_REL_SMT, "share a core" },
	{ "l3", IL_REL_L3, "share an L3 cache on different cores" },
	{ "cross-l3", IL_REL_CROSS_L3, "are in one package under different L3 caches" },
	{ "cross-package", IL_REL_CROSS_PACKAGE, "are in different packages" },
};

static int cmp_pair(const void *x, const void *y)
{
	const struct il_pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

/*
 * The CPUs that may stand in @rel to @a: a superset narrowed by the
 * container objects, which keeps the search linear; each candidate is
 * still confirmed with il_topo_relation() so the two can never disagree.
 */
static void rel_candidates(struct il_topo *t, int a, enum il_relation rel,
			   hwloc_bitmap_t cand)
{
	hwloc_obj_t pu = pu_obj(t, a);
	hwloc_obj_t core = ancestor(t, HWLOC_OBJ_CORE, pu);
	hwloc_obj_t l3 = ancestor(t, HWLOC_OBJ_L3CACHE, pu);
	hwloc_obj_t pkg = ancestor(t, HWLOC_OBJ_PACKAGE, pu);

	hwloc_bitmap_zero(cand);
	switch (rel) {
	case IL_REL_SMT:
		if (core)
			hwloc_bitmap_copy(cand, core->cpuset);
		break;
	case IL_REL_L3:
		if (l3)
			hwloc_bitmap_copy(cand, l3->cpuset);
		break;
	case IL_REL_CROSS_L3:
		hwloc_bitmap_copy(cand, pkg ? pkg->cpuset :
				  hwloc_topology_get_topology_cpuset(t->h));
		break;
	case IL_REL_CROSS_PACKAGE:
		if (pkg)
			hwloc_bitmap_andnot(cand,
					    hwloc_topology_get_topology_cpuset(t->h),
					    pkg->cpuset);
		break;
	case IL_REL_SAME:
		break;
	}
	hwloc_bitmap_and(cand, cand, t->online);
	hwloc_bitmap_clr(cand, (unsigned int)a);
}

static int pairs_by_relation(struct il_topo *t, enum il_relation rel,
			     const char *what, struct il_placement *out)
{
	hwloc_bitmap_t cand = hwloc_bitmap_alloc();
	struct il_pair *pairs;
	int n = 0, a, b, i, dup;

	pairs = calloc(IL_PAIRS_MAX, sizeof(*pairs));
	if (!cand || !pairs) {
		hwloc_bitmap_free(cand);
		free(pairs);
		return il_errorf(-ENOMEM, "out of memory expanding '%s'",
				 out->spec);
	}
	hwloc_bitmap_foreach_begin(a, t->online) {
		if (n == IL_PAIRS_MAX)
			break;
		rel_candidates(t, a, rel, cand);
		hwloc_bitmap_foreach_begin(b, cand) {
			struct il_pair p = { a < b ? a : b, a < b ? b : a };

			if (il_topo_relation(t, a, b) != rel)
				continue;
			for (i = 0, dup = 0; i < n; i++)
				if (pairs[i].a == p.a && pairs[i].b == p.b)
					dup = 1;
			if (!dup)
				pairs[n++] = p;
			break;
		} hwloc_bitmap_foreach_end();
	} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(cand);
	if (!n) {
		free(pairs);
		return il_errorf(-ENOENT,
				 "placement '%s': no two online CPUs %s here%s",
				 out->spec, what,
				 rel == IL_REL_L3 && !hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_L3CACHE) ?
				 " (no L3 caches in this topology)" : "");
	}
	qsort(pairs, (size_t)n, sizeof(*pairs), cmp_pair);
	out->kind = IL_PLACE_PAIRS;
	out->pairs = pairs;
	out->npairs = n;
	return 0;
}

/* "pairs:A-B,C-D": kept in the order given, since the user chose it. */
static int pairs_explicit(struct il_topo *t, const char *s,
			  struct il_placement *out)
{
	const char *p = s, *start;
	struct il_pair *pairs = NULL;
	int n = 0, cap = 0, a, b, ret;

	for (;;) {
		start = p;
		ret = topo_parse_cpu_num(&p, &a);
		if (!ret && *p != '-') {
			ret = il_errorf(-EINVAL,
					"bad placement '%s': expected a pair A-B at '%s'",
					out->spec, start);
			goto fail;
		}
		if (!ret) {
			p++;
			start = p;
			ret = topo_parse_cpu_num(&p, &b);
		}
		if (ret == -ERANGE) {
			ret = il_errorf(-EINVAL,
					"bad placement '%s': CPU number at '%s' is beyond the limit of %d",
					out->spec, start, IL_MAX_CPUS - 1);
			goto fail;
		}
		if (ret) {
			ret = il_errorf(-EINVAL,
					"bad placement '%s': expected a CPU number at '%s'",
					out->spec, start);
			goto fail;
		}
		if (a == b) {
			ret = il_errorf(-EINVAL,
					"bad placement '%s': pair %d-%d names one CPU twice",
					out->spec, a, b);
			goto fail;
		}
		ret = check_online(t, a, out->spec);
		if (!ret)
			ret = check_online(t, b, out->spec);
		if (ret)
			goto fail;
		if (IL_GROW(pairs, cap, (size_t)n + 1, 8)) {
			ret = il_errorf(-ENOMEM, "out of memory expanding '%s'",
					out->spec);
			goto fail;
		}
		pairs[n].a = a;
		pairs[n].b = b;
		n++;
		if (!*p)
			break;
		if (*p != ',') {
			ret = il_errorf(-EINVAL,
					"bad placement '%s': unexpected '%c' after pair %d-%d",
					out->spec, *p, a, b);
			goto fail;
		}
		p++;
	}
	out->kind = IL_PLACE_PAIRS;
	out->pairs = pairs;
	out->npairs = n;
	return 0;
fail:
	free(pairs);
	return ret;
}

static int parse_pairs(struct il_topo *t, const char *s,
		       struct il_placement *out)
{
	size_t i;

	if (*s >= '0' && *s <= '9')
		return pairs_explicit(t, s, out);
	for (i = 0; i < sizeof(pair_rels) / sizeof(pair_rels[0]); i++)
		if (!strcmp(s, pair_rels[i].name))
			return pairs_by_relation(t, pair_rels[i].rel,
						 pair_rels[i].what, out);
	return il_errorf(-EINVAL,
			 "bad placement '%s': unknown pair relation '%s' (expected smt, l3, cross-l3, cross-package or A-B pairs)",
			 out->spec, s);
}

static int parse_cpus(struct il_topo *t, const char *s,
		      struct il_placement *out)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int ret, cpu;

	if (!set)
		return il_errorf(-ENOMEM, "out of memory expanding '%s'",
				 out->spec);
	ret = topo_parse_list(s, set, "placement", out->spec);
	if (!ret) {
		hwloc_bitmap_foreach_begin(cpu, set) {
			ret = check_online(t, cpu, out->spec);
			if (ret)
				break;
		} hwloc_bitmap_foreach_end();
	}
	if (!ret)
		ret = set_to_array(set, out);
	hwloc_bitmap_free(set);
	return ret;
}

int il_place_parse(struct il_topo *t, const char *spec,
		   struct il_placement *out)
{
	size_t len;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!spec)
		spec = "";
	/* spec[] keeps what fits; an over-long explicit list is recorded with
	 * a visible "..." rather than silently cut. */
	len = strlen(spec);
	if (len < sizeof(out->spec))
		memcpy(out->spec, spec, len + 1);
	else
		snprintf(out->spec, sizeof(out->spec), "%.*s...",
			 (int)sizeof(out->spec) - 4, spec);

	if (!strcmp(spec, "all")) {
		ret = hwloc_bitmap_iszero(t->online) ?
		      il_errorf(-ENOENT, "placement 'all': no online CPU") :
		      set_to_array(t->online, out);
	} else if (!strcmp(spec, "one-per-core")) {
		ret = first_of_each(t, HWLOC_OBJ_CORE,
				    "no cores in this topology", out);
	} else if (!strcmp(spec, "one-per-l3")) {
		ret = first_of_each(t, HWLOC_OBJ_L3CACHE,
				    "no L3 caches in this topology", out);
	} else if (!strncmp(spec, "pairs:", 6)) {
		ret = parse_pairs(t, spec + 6, out);
	} else if (*spec >= '0' && *spec <= '9') {
		ret = parse_cpus(t, spec, out);
	} else if (!*spec) {
		ret = il_errorf(-EINVAL, "bad placement '': empty spec");
	} else {
		ret = il_errorf(-EINVAL,
				"bad placement '%s': expected all, one-per-core, one-per-l3, pairs:RELATION, pairs:A-B,... or a CPU list such as 0,2,4-7",
				out->spec);
	}
	if (ret) {
		il_place_free(out);
		return ret;
	}
	return 0;
}

void il_place_free(struct il_placement *p)
{
	if (!p)
		return;
	free(p->cpus);
	free(p->pairs);
	p->cpus = NULL;
	p->pairs = NULL;
	p->ncpus = 0;
	p->npairs = 0;
}

int il_place_cpus(const struct il_placement *p, int *cpus, int max)
{
	hwloc_bitmap_t set;
	int n = 0, i;

	if (p->kind == IL_PLACE_CPUS) {
		for (i = 0; i < p->ncpus; i++)
			if (i < max)
				cpus[i] = p->cpus[i];
		return p->ncpus;
	}
	set = hwloc_bitmap_alloc();
	if (!set)
		return il_errorf(-ENOMEM, "out of memory listing CPUs");
	for (i = 0; i < p->npairs; i++) {
		hwloc_bitmap_set(set, (unsigned int)p->pairs[i].a);
		hwloc_bitmap_set(set, (unsigned int)p->pairs[i].b);
	}
	hwloc_bitmap_foreach_begin(i, set) {
		if (n < max)
			cpus[n] = i;
		n++;
	} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(set);
	return n;
}
