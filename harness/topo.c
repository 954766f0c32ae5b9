// SPDX-License-Identifier: GPL-2.0-only
/*
 * topo.c - the topology (hwloc), placement specs, strict binding and
 * NUMA-local buffers.
 *
 * The topology is hwloc's.  "Online" here means hwloc's topology cpuset
 * intersected with its allowed cpuset: hwloc already reads
 * /sys/devices/system/cpu/online and the cgroup cpuset, and a CPU that the
 * cgroup forbids is as unusable for a benchmark thread as an offline one.
 * /sys is deliberately not consulted directly: IDLELAB_SYSFS_ROOT may point
 * at a fixture tree from another machine, which must not change where real
 * threads are placed.
 *
 * Placement specs expand to a sorted CPU set or to a list of pairs (see
 * topo.h).  Relations between two CPUs come from their hwloc ancestors
 * (core, L3 cache, package), looked up through a table indexed by OS CPU
 * number built once at open, so classifying is O(depth), not O(CPUs).
 * Pairs by relation are a bounded, deterministic sample rather than every
 * pair: for each online CPU a, in ascending order, its first partner b of
 * that relation gives the pair (min, max); duplicates are dropped, at most
 * IL_PAIRS_MAX are kept, and the result is sorted.  Every CPU that has a
 * partner thus appears in some pair, without the quadratic blow-up of all
 * pairs on a large machine.
 *
 * Binding is checked after the fact with hwloc_get_cpubind() and
 * hwloc_get_last_cpu_location(), because a cgroup or a concurrent
 * sched_setaffinity() can leave a thread somewhere else without any call
 * failing.
 */
#include "topo.h"
#include "err.h"

#include <errno.h>
#include <hwloc.h>
#include <hwloc/export.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Enough pairs for any benchmark matrix; more only multiplies run time. */
#define IL_PAIRS_MAX	64

struct il_topo {
	hwloc_topology_t h;
	hwloc_bitmap_t online;	/* topology cpuset & allowed cpuset */
	hwloc_obj_t *pu;	/* PU object by OS index, NULL if none */
	int npu;		/* length of @pu */
};

/* ---- open / close ---------------------------------------------------- */

static int topo_load(const char *synthetic, struct il_topo **out)
{
	struct il_topo *t;
	hwloc_obj_t obj = NULL;
	int last;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return il_errorf(-ENOMEM, "out of memory loading the topology");
	if (hwloc_topology_init(&t->h)) {
		free(t);
		return il_errorf(-ENOMEM, "hwloc_topology_init failed");
	}
	if (synthetic && hwloc_topology_set_synthetic(t->h, synthetic)) {
		hwloc_topology_destroy(t->h);
		free(t);
		return il_errorf(-EINVAL, "bad synthetic topology '%s'",
				 synthetic);
	}
	if (hwloc_topology_load(t->h)) {
		int e = errno ? errno : EIO;

		hwloc_topology_destroy(t->h);
		free(t);
		return il_errorf(-e, "cannot load the hwloc topology: %s",
				 strerror(e));
	}
	t->online = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->h));
	if (!t->online)
		goto nomem;
	hwloc_bitmap_and(t->online, t->online,
			 hwloc_topology_get_allowed_cpuset(t->h));
	last = hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(t->h));
	t->npu = last < 0 ? 0 : last + 1;
	t->pu = calloc(t->npu ? (size_t)t->npu : 1, sizeof(*t->pu));
	if (!t->pu)
		goto nomem;
	while ((obj = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PU, obj)))
		if ((int)obj->os_index < t->npu)
			t->pu[obj->os_index] = obj;
	*out = t;
	return 0;
nomem:
	il_topo_close(t);
	return il_errorf(-ENOMEM, "out of memory loading the topology");
}

int il_topo_open(struct il_topo **out)
{
	const char *syn = getenv("IDLELAB_TOPO_SYNTHETIC");

	/* HWLOC_XMLFILE needs nothing from us: hwloc honours it in load. */
	return topo_load(syn && *syn ? syn : NULL, out);
}

int il_topo_open_synthetic(const char *desc, struct il_topo **out)
{
	if (!desc || !*desc) {
		*out = NULL;
		return il_errorf(-EINVAL, "empty synthetic topology");
	}
	return topo_load(desc, out);
}

void il_topo_close(struct il_topo *t)
{
	if (!t)
		return;
	hwloc_bitmap_free(t->online);
	free(t->pu);
	hwloc_topology_destroy(t->h);
	free(t);
}

void *il_topo_hwloc(struct il_topo *t)
{
	return t->h;
}

/* ---- online CPUs ----------------------------------------------------- */

int il_topo_ncpus_online(struct il_topo *t)
{
	return hwloc_bitmap_weight(t->online);
}

int il_topo_cpu_online(struct il_topo *t, int cpu)
{
	return cpu >= 0 && cpu < IL_MAX_CPUS &&
	       hwloc_bitmap_isset(t->online, (unsigned int)cpu);
}

int il_topo_online_list(struct il_topo *t, int *cpus, int max)
{
	int n = 0, i;

	hwloc_bitmap_foreach_begin(i, t->online) {
		if (n < max)
			cpus[n] = i;
		n++;
	} hwloc_bitmap_foreach_end();
	return n;
}

static void online_str(struct il_topo *t, char *buf, size_t len)
{
	if (hwloc_bitmap_iszero(t->online))
		snprintf(buf, len, "none");
	else
		hwloc_bitmap_list_snprintf(buf, len, t->online);
}

/* ---- CPU lists ------------------------------------------------------- */

/*
 * Parse a decimal CPU number at *pp.  Digits only: no sign, no blanks, no
 * hex, so "+1", " 1" and "0x1" are errors rather than surprises.
 */
static int parse_cpu_num(const char **pp, int *out)
{
	const char *p = *pp;
	long v = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		if (v < IL_MAX_CPUS)
			v = v * 10 + (*p - '0');
		p++;
	}
	*pp = p;
	if (v >= IL_MAX_CPUS)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

/*
 * "0,2,4-7" into @set.  @what and @spec only shape the message, so the
 * same parser serves placement specs and the kernel's cpulist files.
 */
static int parse_list(const char *s, hwloc_bitmap_t set, const char *what,
		      const char *spec)
{
	const char *p = s, *start;
	int a, b, ret;

	if (!*p)
		return il_errorf(-EINVAL, "bad %s '%s': empty CPU list", what,
				 spec);
	for (;;) {
		start = p;
		ret = parse_cpu_num(&p, &a);
		if (ret)
			goto bad_num;
		b = a;
		if (*p == '-') {
			p++;
			start = p;
			ret = parse_cpu_num(&p, &b);
			if (ret)
				goto bad_num;
			if (b < a)
				return il_errorf(-EINVAL,
						 "bad %s '%s': range %d-%d runs backwards",
						 what, spec, a, b);
		}
		hwloc_bitmap_set_range(set, (unsigned int)a, b);
		if (!*p)
			return 0;
		if (*p != ',')
			return il_errorf(-EINVAL,
					 "bad %s '%s': unexpected '%c' after CPU %d",
					 what, spec, *p, b);
		p++;
	}
bad_num:
	if (ret == -ERANGE) {
		int digits = (int)strspn(start, "0123456789");

		return il_errorf(-EINVAL,
				 "bad %s '%s': CPU number %.*s%s is beyond the limit of %d",
				 what, spec, digits > 12 ? 12 : digits, start,
				 digits > 12 ? "..." : "", IL_MAX_CPUS - 1);
	}
	if (!*start)
		return il_errorf(-EINVAL, "bad %s '%s': CPU list ends early",
				 what, spec);
	return il_errorf(-EINVAL, "bad %s '%s': expected a CPU number at '%s'",
			 what, spec, start);
}

int il_cpulist_parse(const char *s, int *cpus, int max)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int n = 0, i, ret;

	if (!set)
		return il_errorf(-ENOMEM, "out of memory parsing a CPU list");
	ret = parse_list(s, set, "CPU list", s);
	if (!ret) {
		hwloc_bitmap_foreach_begin(i, set) {
			if (n < max)
				cpus[n] = i;
			n++;
		} hwloc_bitmap_foreach_end();
		ret = n;
	}
	hwloc_bitmap_free(set);
	return ret;
}

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

/* ---- relations ------------------------------------------------------- */

static hwloc_obj_t pu_obj(struct il_topo *t, int cpu)
{
	return cpu >= 0 && cpu < t->npu ? t->pu[cpu] : NULL;
}

static hwloc_obj_t ancestor(struct il_topo *t, hwloc_obj_type_t type,
			    hwloc_obj_t pu)
{
	return hwloc_get_ancestor_obj_by_type(t->h, type, pu);
}

enum il_relation il_topo_relation(struct il_topo *t, int a, int b)
{
	hwloc_obj_t pa = pu_obj(t, a), pb = pu_obj(t, b), x, y;

	if (!pa || !pb)
		return IL_REL_CROSS_PACKAGE;
	if (pa == pb)
		return IL_REL_SAME;
	x = ancestor(t, HWLOC_OBJ_CORE, pa);
	y = ancestor(t, HWLOC_OBJ_CORE, pb);
	if (x && x == y)
		return IL_REL_SMT;
	x = ancestor(t, HWLOC_OBJ_L3CACHE, pa);
	y = ancestor(t, HWLOC_OBJ_L3CACHE, pb);
	if (x && x == y)
		return IL_REL_L3;
	x = ancestor(t, HWLOC_OBJ_PACKAGE, pa);
	y = ancestor(t, HWLOC_OBJ_PACKAGE, pb);
	/* No package objects at all (some synthetic or XML topologies):
	 * the whole machine is one package. */
	if (x == y)
		return IL_REL_CROSS_L3;
	return IL_REL_CROSS_PACKAGE;
}

const char *il_relation_name(enum il_relation r)
{
	switch (r) {
	case IL_REL_SAME:
		return "same";
	case IL_REL_SMT:
		return "smt";
	case IL_REL_L3:
		return "l3";
	case IL_REL_CROSS_L3:
		return "cross-l3";
	case IL_REL_CROSS_PACKAGE:
		return "cross-package";
	}
	return "unknown";
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
	struct il_pair *pairs = NULL, *np;
	int n = 0, cap = 0, a, b, ret;

	for (;;) {
		start = p;
		ret = parse_cpu_num(&p, &a);
		if (!ret && *p != '-') {
			ret = il_errorf(-EINVAL,
					"bad placement '%s': expected a pair A-B at '%s'",
					out->spec, start);
			goto fail;
		}
		if (!ret) {
			p++;
			start = p;
			ret = parse_cpu_num(&p, &b);
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
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			np = realloc(pairs, (size_t)cap * sizeof(*pairs));
			if (!np) {
				ret = il_errorf(-ENOMEM,
						"out of memory expanding '%s'",
						out->spec);
				goto fail;
			}
			pairs = np;
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
	ret = parse_list(s, set, "placement", out->spec);
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

/* ---- binding --------------------------------------------------------- */

int il_bind_self(struct il_topo *t, int cpu)
{
	hwloc_bitmap_t want, got;
	char s[256], on[256];
	int ret = 0;

	if (!il_topo_cpu_online(t, cpu)) {
		online_str(t, on, sizeof(on));
		return il_errorf(-ENODEV,
				 "cannot bind to CPU %d: it is offline or does not exist (online: %s)",
				 cpu, on);
	}
	if (!hwloc_topology_is_thissystem(t->h))
		return il_errorf(-EOPNOTSUPP,
				 "cannot bind to CPU %d: the topology is synthetic or from XML, not this system",
				 cpu);
	want = hwloc_bitmap_alloc();
	got = hwloc_bitmap_alloc();
	if (!want || !got) {
		ret = il_errorf(-ENOMEM, "out of memory binding to CPU %d", cpu);
		goto out;
	}
	hwloc_bitmap_only(want, (unsigned int)cpu);
	if (hwloc_set_cpubind(t->h, want,
			      HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT)) {
		ret = il_errorf(-errno, "cannot bind thread to CPU %d: %s", cpu,
				strerror(errno));
		goto out;
	}
	if (hwloc_get_cpubind(t->h, got, HWLOC_CPUBIND_THREAD)) {
		ret = il_errorf(-errno, "cannot read back the binding to CPU %d: %s",
				cpu, strerror(errno));
		goto out;
	}
	if (!hwloc_bitmap_isequal(got, want)) {
		hwloc_bitmap_list_snprintf(s, sizeof(s), got);
		ret = il_errorf(-EIO,
				"binding to CPU %d did not hold: the thread is bound to %s",
				cpu, s);
		goto out;
	}
	/* sched_setaffinity() migrates the caller before returning; a last
	 * location elsewhere means something rebound us meanwhile. */
	if (hwloc_get_last_cpu_location(t->h, got, HWLOC_CPUBIND_THREAD)) {
		ret = il_errorf(-errno, "cannot read where the thread runs: %s",
				strerror(errno));
		goto out;
	}
	if (!hwloc_bitmap_isincluded(got, want)) {
		hwloc_bitmap_list_snprintf(s, sizeof(s), got);
		ret = il_errorf(-EIO,
				"bound to CPU %d but the thread last ran on CPU %s",
				cpu, s);
	}
out:
	hwloc_bitmap_free(want);
	hwloc_bitmap_free(got);
	return ret;
}

/* ---- NUMA ------------------------------------------------------------ */

int il_topo_cpu_node(struct il_topo *t, int cpu)
{
	hwloc_obj_t pu = pu_obj(t, cpu);

	if (!pu || !pu->nodeset || hwloc_bitmap_iszero(pu->nodeset))
		return -1;
	return hwloc_bitmap_first(pu->nodeset);
}

static size_t page_round(size_t size)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (size + pg - 1) / pg * pg;
}

/* The node of the page at @p per the kernel, or -1. */
static int page_node(void *p)
{
	void *pages[1] = { p };
	int status = -1;

	if (move_pages(0, 1, pages, NULL, &status, 0) || status < 0)
		return -1;
	return status;
}

void *il_alloc_local(struct il_topo *t, int cpu, size_t size, int *node)
{
	size_t len;
	int target = -1, bound = 0, n0, n1;
	void *p;

	if (node)
		*node = -1;
	if (!size) {
		il_errorf(-EINVAL, "il_alloc_local: zero size");
		return NULL;
	}
	len = page_round(size);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		il_errorf(-errno, "cannot map %zu bytes: %s", len,
			  strerror(errno));
		return NULL;
	}
	/* A synthetic topology's node numbers are fiction here. */
	if (hwloc_topology_is_thissystem(t->h))
		target = il_topo_cpu_node(t, cpu);
	/* mbind() straight from numaif.h: libnuma's allocators report
	 * failures on stderr, and the library must not print. */
	if (target >= 0 && numa_available() >= 0 &&
	    target <= numa_max_possible_node()) {
		struct bitmask *bm = numa_allocate_nodemask();

		if (bm) {
			numa_bitmask_setbit(bm, (unsigned int)target);
			bound = !mbind(p, len, MPOL_BIND, bm->maskp,
				       bm->size + 1, 0);
			numa_bitmask_free(bm);
		}
	}
	/* Touch every page now, so it is placed under the policy and the
	 * benchmark's first pass does not measure page faults. */
	memset(p, 0, len);
	if (bound && node) {
		n0 = page_node(p);
		n1 = page_node((char *)p + len - 1);
		*node = n0 == n1 ? n0 : -1;
	}
	return p;
}

void il_free_local(void *p, size_t size)
{
	if (p && size)
		munmap(p, page_round(size));
}

/* ---- XML ------------------------------------------------------------- */

char *il_topo_xml(struct il_topo *t)
{
	char *buf = NULL, *copy;
	int len = 0;

	if (hwloc_topology_export_xmlbuffer(t->h, &buf, &len, 0) || !buf) {
		il_errorf(-EIO, "cannot export the topology as XML");
		return NULL;
	}
	copy = strdup(buf);
	hwloc_free_xmlbuffer(t->h, buf);
	if (!copy)
		il_errorf(-ENOMEM, "out of memory exporting the topology");
	return copy;
}
