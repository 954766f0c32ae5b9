// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_topo.c - placement parsing and relation classification (NUMA
 * nodes, binding and NUMA-local allocation are in test_topo_bind.c).
 *
 * Placement logic runs against hwloc synthetic topologies, so the same
 * expectations hold on any machine; the main one, "pack:2 l3:2 core:4
 * pu:2", numbers its 32 PUs so that core k is PUs 2k..2k+1, L3 j is PUs
 * 8j..8j+7 and package p is PUs 16p..16p+15 (SYN, topo_fixture.h).
 */
#include "err.h"
#include "tap.h"
#include "topo.h"
#include "topo_fixture.h"

#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* @spec expands to exactly the @n CPUs of @want. */
static void expect_cpus(struct il_topo *t, const char *spec, const int *want,
			int n)
{
	struct il_placement p;
	int ret, i, ok;

	ret = il_place_parse(t, spec, &p);
	CHECKF(ret == 0, "'%s': %d %s", spec, ret, il_errmsg());
	if (ret)
		return;
	CHECKF(p.kind == IL_PLACE_CPUS, "'%s' kind %d", spec, p.kind);
	CHECKF(!strcmp(p.spec, spec), "'%s' stored as '%s'", spec, p.spec);
	ok = p.ncpus == n;
	for (i = 0; ok && i < n; i++)
		ok = p.cpus[i] == want[i];
	CHECKF(ok, "'%s' expanded to %d CPUs (want %d), first %d", spec,
	       p.ncpus, n, p.ncpus ? p.cpus[0] : -1);
	il_place_free(&p);
}

/* @spec fails with @err and a message naming the spec and saying @what. */
static void expect_err(struct il_topo *t, const char *spec, int err,
		       const char *what)
{
	struct il_placement p;
	char quoted[300];
	int ret;

	memset(&p, 0x5a, sizeof(p));
	il_errclear();
	ret = il_place_parse(t, spec, &p);
	snprintf(quoted, sizeof(quoted), "'%s'", spec);
	CHECKF(ret == err, "'%s': got %d, want %d (%s)", spec, ret, err,
	       il_errmsg());
	CHECKF(strstr(il_errmsg(), quoted), "'%s': message '%s' does not name it",
	       spec, il_errmsg());
	CHECKF(!what || strstr(il_errmsg(), what),
	       "'%s': message '%s' lacks '%s'", spec, il_errmsg(), what);
	CHECKF(!p.cpus && !p.pairs, "'%s': allocation left after error", spec);
	if (!ret)
		il_place_free(&p);
}

TEST(synthetic_open)
{
	struct il_topo *t = syn_open(SYN), *e = NULL;
	int cpus[64], n, i, ok = 1;

	if (!t)
		return;
	CHECK(il_topo_ncpus_online(t) == 32);
	n = il_topo_online_list(t, cpus, 64);
	CHECK(n == 32);
	for (i = 0; i < n; i++)
		ok &= cpus[i] == i;
	CHECK(ok);
	CHECK(il_topo_online_list(t, cpus, 4) == 32);	/* total, not written */
	CHECK(il_topo_cpu_online(t, 0) && il_topo_cpu_online(t, 31));
	CHECK(!il_topo_cpu_online(t, 32) && !il_topo_cpu_online(t, -1));
	CHECK(!il_topo_cpu_online(t, IL_MAX_CPUS + 5));
	CHECK(il_topo_hwloc(t) != NULL);
	il_topo_close(t);

	/* il_topo_open() honours IDLELAB_TOPO_SYNTHETIC. */
	setenv("IDLELAB_TOPO_SYNTHETIC", "pack:1 core:3 pu:1", 1);
	CHECK(il_topo_open(&e) == 0);
	unsetenv("IDLELAB_TOPO_SYNTHETIC");
	if (e) {
		CHECK(il_topo_ncpus_online(e) == 3);
		il_topo_close(e);
	}
	e = (struct il_topo *)1;
	CHECK(il_topo_open_synthetic("pack:x", &e) == -EINVAL && !e);
	CHECK(strstr(il_errmsg(), "pack:x") != NULL);
	CHECK(il_topo_open_synthetic("", &e) == -EINVAL);
}

TEST(xml_export_and_hwloc_xmlfile)
{
	struct il_topo *t = syn_open(SYN), *x = NULL;
	char path[] = "/tmp/idlelab-topo-XXXXXX";
	char *xml;
	FILE *f;
	int fd;

	if (!t)
		return;
	xml = il_topo_xml(t);
	CHECK(xml && strstr(xml, "<topology") && strstr(xml, "Package"));
	/* Round trip through hwloc's own HWLOC_XMLFILE: the same machine. */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (xml && fd >= 0) {
		f = fdopen(fd, "w");
		fputs(xml, f);
		fclose(f);
		setenv("HWLOC_XMLFILE", path, 1);
		CHECK(il_topo_open(&x) == 0);
		unsetenv("HWLOC_XMLFILE");
		if (x) {
			CHECK(il_topo_ncpus_online(x) == 32);
			CHECK(il_topo_relation(x, 0, 16) == IL_REL_CROSS_PACKAGE);
			CHECK(il_topo_relation(x, 0, 9) == IL_REL_CROSS_L3);
			il_topo_close(x);
		}
		unlink(path);
	}
	free(xml);
	il_topo_close(t);
}

TEST(place_all_and_lists)
{
	static const int l1[] = { 0, 2, 4, 5, 6, 7 };
	static const int l2[] = { 1, 2, 3, 7 };
	static const int l3[] = { 5 };
	static const int l4[] = { 31 };
	struct il_topo *t = syn_open(SYN);
	int all[32], i;

	if (!t)
		return;
	for (i = 0; i < 32; i++)
		all[i] = i;
	expect_cpus(t, "all", all, 32);
	expect_cpus(t, "0-31", all, 32);
	expect_cpus(t, "0,2,4-7", l1, 6);
	expect_cpus(t, "7,3,3,1-2", l2, 4);	/* sorted, unique */
	expect_cpus(t, "5", l3, 1);
	expect_cpus(t, "31-31", l4, 1);
	expect_cpus(t, "0-15,16-31", all, 32);
	il_topo_close(t);
}

TEST(place_one_per_core_and_l3)
{
	static const int l3[] = { 0, 8, 16, 24 };
	struct il_topo *t = syn_open(SYN), *nol3, *nocore;
	int cores[16], i;

	if (!t)
		return;
	for (i = 0; i < 16; i++)
		cores[i] = 2 * i;
	expect_cpus(t, "one-per-core", cores, 16);
	expect_cpus(t, "one-per-l3", l3, 4);
	il_topo_close(t);

	nol3 = syn_open("pack:2 core:2 pu:2");
	if (nol3) {
		expect_err(nol3, "one-per-l3", -ENOENT,
			   "no L3 caches in this topology");
		expect_err(nol3, "pairs:l3", -ENOENT,
			   "no L3 caches in this topology");
		il_topo_close(nol3);
	}
	nocore = syn_open("pack:2 pu:4");
	if (nocore) {
		expect_err(nocore, "one-per-core", -ENOENT, "no cores");
		il_topo_close(nocore);
	}
}

TEST(relations)
{
	static const struct {
		int a, b;
		enum il_relation r;
	} cases[] = {
		{ 0, 0, IL_REL_SAME },
		{ 0, 1, IL_REL_SMT },
		{ 1, 0, IL_REL_SMT },
		{ 30, 31, IL_REL_SMT },
		{ 0, 2, IL_REL_L3 },
		{ 1, 7, IL_REL_L3 },
		{ 8, 15, IL_REL_L3 },
		{ 0, 8, IL_REL_CROSS_L3 },
		{ 7, 8, IL_REL_CROSS_L3 },
		{ 16, 31, IL_REL_CROSS_L3 },
		{ 0, 16, IL_REL_CROSS_PACKAGE },
		{ 15, 16, IL_REL_CROSS_PACKAGE },
		{ 31, 0, IL_REL_CROSS_PACKAGE },
		{ 0, 99, IL_REL_CROSS_PACKAGE },	/* unknown: farthest */
	};
	struct il_topo *t = syn_open(SYN), *flat;
	size_t i;

	if (!t)
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum il_relation r = il_topo_relation(t, cases[i].a, cases[i].b);

		CHECKF(r == cases[i].r, "%d-%d is %s, want %s", cases[i].a,
		       cases[i].b, il_relation_name(r),
		       il_relation_name(cases[i].r));
	}
	CHECK(!strcmp(il_relation_name(IL_REL_SAME), "same"));
	CHECK(!strcmp(il_relation_name(IL_REL_SMT), "smt"));
	CHECK(!strcmp(il_relation_name(IL_REL_L3), "l3"));
	CHECK(!strcmp(il_relation_name(IL_REL_CROSS_L3), "cross-l3"));
	CHECK(!strcmp(il_relation_name(IL_REL_CROSS_PACKAGE), "cross-package"));
	il_topo_close(t);

	/* No L3 and no package level: different cores are "cross-l3". */
	flat = syn_open("core:4 pu:2");
	if (flat) {
		CHECK(il_topo_relation(flat, 0, 1) == IL_REL_SMT);
		CHECK(il_topo_relation(flat, 0, 2) == IL_REL_CROSS_L3);
		il_topo_close(flat);
	}
}

/*
 * Every pair of pairs:@rel has a < b and exactly that relation, the list
 * is sorted without duplicates, and every CPU with a partner of that
 * relation appears in some pair.
 */
static void check_pairs(struct il_topo *t, const char *rel,
			enum il_relation want, int npairs)
{
	struct il_placement p;
	char spec[64];
	int ret, i, cpu, other, seen, has;

	snprintf(spec, sizeof(spec), "pairs:%s", rel);
	ret = il_place_parse(t, spec, &p);
	CHECKF(ret == 0, "%s: %d %s", spec, ret, il_errmsg());
	if (ret)
		return;
	CHECK(p.kind == IL_PLACE_PAIRS);
	CHECKF(p.npairs == npairs, "%s: %d pairs, want %d", spec, p.npairs,
	       npairs);
	for (i = 0; i < p.npairs; i++) {
		CHECKF(p.pairs[i].a < p.pairs[i].b, "%s: pair %d-%d", spec,
		       p.pairs[i].a, p.pairs[i].b);
		CHECKF(il_topo_relation(t, p.pairs[i].a, p.pairs[i].b) == want,
		       "%s: pair %d-%d is %s", spec, p.pairs[i].a, p.pairs[i].b,
		       il_relation_name(il_topo_relation(t, p.pairs[i].a,
							  p.pairs[i].b)));
		if (i)
			CHECKF(p.pairs[i - 1].a < p.pairs[i].a ||
			       (p.pairs[i - 1].a == p.pairs[i].a &&
				p.pairs[i - 1].b < p.pairs[i].b),
			       "%s: not sorted/unique at %d", spec, i);
	}
	if (p.npairs < 64) {
		for (cpu = 0; cpu < il_topo_ncpus_online(t); cpu++) {
			has = 0;
			for (other = 0; other < il_topo_ncpus_online(t); other++)
				has |= il_topo_relation(t, cpu, other) == want;
			seen = 0;
			for (i = 0; i < p.npairs; i++)
				seen |= p.pairs[i].a == cpu || p.pairs[i].b == cpu;
			CHECKF(seen == has, "%s: CPU %d coverage %d, want %d",
			       spec, cpu, seen, has);
		}
	}
	il_place_free(&p);
}

TEST(pairs_by_relation)
{
	struct il_topo *t = syn_open(SYN), *big;
	struct il_placement p;
	int i, ok = 1;

	if (!t)
		return;
	check_pairs(t, "smt", IL_REL_SMT, 16);
	check_pairs(t, "l3", IL_REL_L3, 28);
	check_pairs(t, "cross-l3", IL_REL_CROSS_L3, 30);
	check_pairs(t, "cross-package", IL_REL_CROSS_PACKAGE, 31);
	/* pairs:smt is exactly the sibling pairs. */
	if (!il_place_parse(t, "pairs:smt", &p)) {
		for (i = 0; i < p.npairs; i++)
			ok &= p.pairs[i].a == 2 * i && p.pairs[i].b == 2 * i + 1;
		CHECK(ok);
		il_place_free(&p);
	}
	/* The first pairs of cross-package: every CPU of package 0 with the
	 * first CPU of package 1. */
	if (!il_place_parse(t, "pairs:cross-package", &p)) {
		CHECK(p.pairs[0].a == 0 && p.pairs[0].b == 16);
		CHECK(p.pairs[1].a == 0 && p.pairs[1].b == 17);
		il_place_free(&p);
	}
	il_topo_close(t);

	/* Bounded: a machine with many cross-package partners gives 64. */
	big = syn_open("pack:4 core:32 pu:1");
	if (big) {
		check_pairs(big, "cross-package", IL_REL_CROSS_PACKAGE, 64);
		expect_err(big, "pairs:smt", -ENOENT, "share a core");
		il_topo_close(big);
	}
	big = syn_open("pack:1 l3:1 core:4 pu:1");
	if (big) {
		expect_err(big, "pairs:cross-package", -ENOENT,
			   "different packages");
		expect_err(big, "pairs:cross-l3", -ENOENT, "different L3");
		il_topo_close(big);
	}
}

TEST(pairs_explicit)
{
	static const int want[] = { 0, 1, 2, 16, 17 };
	struct il_topo *t = syn_open(SYN);
	struct il_placement p;
	int cpus[8], n, i, ok = 1;

	if (!t)
		return;
	CHECK(il_place_parse(t, "pairs:0-1,2-17,16-0", &p) == 0);
	CHECK(p.kind == IL_PLACE_PAIRS && p.npairs == 3);
	if (p.npairs == 3) {
		/* Order as given, not sorted. */
		CHECK(p.pairs[0].a == 0 && p.pairs[0].b == 1);
		CHECK(p.pairs[1].a == 2 && p.pairs[1].b == 17);
		CHECK(p.pairs[2].a == 16 && p.pairs[2].b == 0);
		CHECK(il_topo_relation(t, p.pairs[0].a, p.pairs[0].b) == IL_REL_SMT);
		CHECK(il_topo_relation(t, p.pairs[1].a, p.pairs[1].b) ==
		      IL_REL_CROSS_PACKAGE);
	}
	n = il_place_cpus(&p, cpus, 8);
	CHECK(n == 5);
	for (i = 0; i < 5 && n == 5; i++)
		ok &= cpus[i] == want[i];
	CHECK(ok);
	CHECK(il_place_cpus(&p, cpus, 2) == 5 && cpus[0] == 0 && cpus[1] == 1);
	il_place_free(&p);
	il_place_free(&p);	/* idempotent */

	CHECK(il_place_parse(t, "0,4-5", &p) == 0);
	CHECK(il_place_cpus(&p, cpus, 8) == 3 && cpus[2] == 5);
	il_place_free(&p);
	il_topo_close(t);
}

TEST(bad_specs)
{
	static const struct {
		const char *spec, *what;
	} bad[] = {
		{ "3-1", "runs backwards" },
		{ "x", "expected all" },
		{ "", "empty" },
		{ "1,,2", "expected a CPU number" },
		{ "1,", "ends early" },
		{ ",1", NULL },
		{ "1-", "ends early" },
		{ "1x", "unexpected 'x'" },
		{ "1-2-3", "unexpected '-'" },
		{ "0-3junk", "unexpected 'j'" },
		{ "4096", "beyond the limit of 4095" },
		{ "0-4096", "beyond the limit" },
		{ "99999999999999999999999", "beyond the limit" },
		{ " 1", NULL },
		{ "1 ", NULL },
		{ "-1", NULL },
		{ "+1", NULL },
		{ "0x1", NULL },
		{ "ALL", NULL },
		{ "all,1", NULL },
		{ "one-per-cores", NULL },
		{ "pairs:", "unknown pair relation" },
		{ "pairs:foo", "unknown pair relation" },
		{ "pairs:SMT", "unknown pair relation" },
		{ "pairs:1", "expected a pair" },
		{ "pairs:1-1", "names one CPU twice" },
		{ "pairs:0-1,", "expected a CPU number" },
		{ "pairs:0-1;2-3", "unexpected ';'" },
		{ "pairs:0-2-3", "unexpected '-'" },
		{ "pairs:0-99999", "beyond the limit" },
		{ "pairs:0-x", "expected a CPU number" },
	};
	struct il_topo *t = syn_open(SYN);
	size_t i;

	if (!t)
		return;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_err(t, bad[i].spec, -EINVAL, bad[i].what);
	il_topo_close(t);
}

TEST(offline_cpus)
{
	struct il_topo *t = syn_open(SYN), *one;

	if (!t)
		return;
	expect_err(t, "40", -ENODEV,
		   "CPU 40 is offline or does not exist (online: 0-31)");
	expect_err(t, "0,4095", -ENODEV, "CPU 4095 is offline");
	expect_err(t, "30-33", -ENODEV, "CPU 32 is offline");
	expect_err(t, "pairs:0-40", -ENODEV, "CPU 40 is offline");
	expect_err(t, "pairs:40-0", -ENODEV, "CPU 40 is offline");
	il_topo_close(t);

	one = syn_open("pack:1 core:2 pu:1");
	if (one) {
		expect_err(one, "7", -ENODEV,
			   "CPU 7 is offline or does not exist (online: 0-1)");
		il_topo_close(one);
	}
}

TEST(long_spec)
{
	struct il_topo *t = syn_open(SYN);
	struct il_placement p;
	char spec[400];
	size_t off = 0;
	int i;

	if (!t)
		return;
	for (i = 0; i < 100; i++)
		off += (size_t)snprintf(spec + off, sizeof(spec) - off, "%s%d",
					i ? "," : "", i % 32);
	CHECK(il_place_parse(t, spec, &p) == 0);
	CHECK(p.ncpus == 32);
	CHECK(strlen(p.spec) == sizeof(p.spec) - 1);
	CHECK(!strcmp(p.spec + sizeof(p.spec) - 4, "..."));
	CHECK(!strncmp(p.spec, spec, sizeof(p.spec) - 4));
	il_place_free(&p);
	il_topo_close(t);
}

TEST(cpulist_parse)
{
	int cpus[8];

	CHECK(il_cpulist_parse("0-3,8", cpus, 8) == 5);
	CHECK(cpus[0] == 0 && cpus[3] == 3 && cpus[4] == 8);
	CHECK(il_cpulist_parse("0", cpus, 8) == 1 && cpus[0] == 0);
	CHECK(il_cpulist_parse("0-63", cpus, 8) == 64 && cpus[7] == 7);
	CHECK(il_cpulist_parse("", cpus, 8) == -EINVAL);
	CHECK(il_cpulist_parse("3-1", cpus, 8) == -EINVAL);
	CHECK(strstr(il_errmsg(), "CPU list '3-1'") != NULL);
	CHECK(il_cpulist_parse("0-3\n", cpus, 8) == -EINVAL);
}

int main(void)
{
	RUN(synthetic_open);
	RUN(xml_export_and_hwloc_xmlfile);
	RUN(place_all_and_lists);
	RUN(place_one_per_core_and_l3);
	RUN(relations);
	RUN(pairs_by_relation);
	RUN(pairs_explicit);
	RUN(bad_specs);
	RUN(offline_cpus);
	RUN(long_spec);
	RUN(cpulist_parse);
	return tap_done();
}
