/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * schemas.h - the migrations compiled in from schemas/NNN_*.sql by
 * tools/embed-schemas.sh.  il_migrations[i].version is strictly increasing.
 */
#ifndef IDLELAB_SCHEMAS_H
#define IDLELAB_SCHEMAS_H

struct il_migration {
	int version;
	const char *name;
	const char *sql;
};

extern const struct il_migration il_migrations[];
extern const int il_nmigrations;

#endif
