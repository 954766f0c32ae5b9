// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_energy.c - the RAPL powercap reader (harness/energy.c) against a
 * fake tree: no zone gives a reason and no zones, never a reading; two
 * package zones are summed; a counter that wraps at max_energy_range_uj
 * adds what it counted across the wrap; a zone whose energy_uj cannot be
 * read is unavailable with the reason.  Then the declared table's fit
 * (analysis/idle_declared_energy.c): energy against idle time, its
 * break-even against a shallower state, and the cells that say why not.
 */
#include "energy.h"
#include "err.h"
#include "idle_declared.h"
#include "sysfs.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[] = "/tmp/idlelab-energy-XXXXXX";

static void put(int zone, const char *file, unsigned long long v)
{
	char dir[512], path[600];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/sys/class/powercap/intel-rapl:%d", root, zone);
	il_mkdir_p(dir);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%llu\n", v);
	fclose(f);
}

TEST(no_zone)
{
	struct il_energy e;
	char why[256] = "";

	CHECK(il_energy_open(&e, why, sizeof(why)) == 0 && e.n == 0);
	CHECK(strstr(why, "no RAPL powercap zone") == why);
}

TEST(two_zones_and_a_wrap)
{
	struct il_energy e;
	char why[256] = "";
	uint64_t uj = 1;

	put(0, "energy_uj", 1000);
	put(0, "max_energy_range_uj", 5000);
	put(1, "energy_uj", 200);
	put(1, "max_energy_range_uj", 5000);
	CHECK(il_energy_open(&e, why, sizeof(why)) == 2);
	CHECK(il_energy_read(&e, &uj) == 0 && uj == 0);
	put(0, "energy_uj", 1500);
	put(1, "energy_uj", 300);
	CHECK(il_energy_read(&e, &uj) == 0 && uj == 600);
	/* Zone 0 wraps: 1500 -> 5000 is 3500, then 0 -> 100. */
	put(0, "energy_uj", 100);
	CHECK(il_energy_read(&e, &uj) == 0 && uj == 600 + 3600);
}

TEST(unreadable_zone)
{
	struct il_energy e;
	char path[600], why[256] = "";

	/* A directory where the file should be: read fails (root or not). */
	snprintf(path, sizeof(path), "%s/sys/class/powercap/intel-rapl:0/energy_uj", root);
	unlink(path);
	il_mkdir_p(path);
	CHECK(il_energy_open(&e, why, sizeof(why)) == 0 && e.n == 0);
	CHECK(strstr(why, "energy_uj not readable") != NULL);
	rmdir(path);
}

/* E = 5 + 0.5 d for C1, E = 20 + 0.2 d for C6: they cross at d = 50. */
TEST(fit_and_break_even)
{
	static struct dcl_block b;
	char w[300], be[300];
	double a, s, d;
	int k;

	memset(&b, 0, sizeof(b));
	b.nstates = 2;
	snprintf(b.st[0].name, sizeof(b.st[0].name), "C1");
	snprintf(b.st[1].name, sizeof(b.st[1].name), "C6");
	b.en_ok = true;
	for (k = 0; k < 2; k++)
		for (d = 10; d <= 100; d += 10) {
			double x = k ? 20 + 0.2 * d : 5 + 0.5 * d;

			b.en[k].n++;
			b.en[k].sd += d;
			b.en[k].se += x;
			b.en[k].sdd += d * d;
			b.en[k].sde += d * x;
		}
	CHECK(il_dcl_energy_fit(&b.en[1], &a, &s) && fabs(a - 20) < 1e-6 &&
	      fabs(s - 0.2) < 1e-9);
	il_dcl_energy_cells(&b, 1, w, sizeof(w), be, sizeof(be));
	CHECK(!strcmp(w, "31.0"));
	CHECK(!strcmp(be, "50 (vs C1)"));
	il_dcl_energy_cells(&b, 0, w, sizeof(w), be, sizeof(be));
	CHECK(!strcmp(w, "32.5") && !strcmp(be, "-"));
	/* One idle time only: a mean, but no line to cross. */
	b.en[1].n = 1;
	b.en[1].sd = 10;
	b.en[1].sdd = 100;
	CHECK(!il_dcl_energy_fit(&b.en[1], &a, &s));
	/* Unreadable: every cell says why, never 0. */
	b.en_ok = false;
	snprintf(b.en_why, sizeof(b.en_why), "no RAPL powercap zone");
	il_dcl_energy_cells(&b, 1, w, sizeof(w), be, sizeof(be));
	CHECK(!strcmp(w, "unavailable: no RAPL powercap zone") &&
	      !strcmp(be, w));
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(root)) {
		printf("Bail out! mkdtemp failed\n");
		return 1;
	}
	setenv("IDLELAB_SYSFS_ROOT", root, 1);
	RUN(no_zone);
	RUN(two_zones_and_a_wrap);
	RUN(unreadable_zone);
	RUN(fit_and_break_even);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	return tap_done();
}
