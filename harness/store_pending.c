// SPDX-License-Identifier: GPL-2.0-only
/*
 * store_pending.c - keep a finished run the database refused
 * (store_pending.h).  The kept file is an ordinary idlelab database with
 * one machine and one run, written through the same store API as the
 * main one, so `idlelab import pending` is a merge (merge.h) and inherits
 * its checks: nothing new to parse, nothing that could drift from the
 * schema.  It is written under a temporary name and renamed into place,
 * so a half-written file is never taken for a kept run.
 */
#include "store_pending.h"
#include "err.h"
#include "store_causes.h"
#include "store_internal.h"
#include "sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *il_store_pending_dir(const char *db_path, char *out, size_t size)
{
	int n = snprintf(out, size, "%s.pending", db_path);

	return n < 0 || (size_t)n >= size ? NULL : out;
}

/* The machine row @s stored, else a bare one: the run needs its key. */
static int put_machine(struct il_store *k, const struct il_store *s,
		       const char *uuid)
{
	if (s->machine_uuid && !strcmp(s->machine_uuid, uuid))
		return il_store_put_machine(k, uuid, s->machine_host,
					    s->machine_fp, s->machine_xml);
	return il_store_put_machine(k, uuid, NULL, NULL, NULL);
}

int il_store_pending_save(struct il_store *s, const struct il_run_rec *r,
			  const struct il_causes_run *c, char *path,
			  size_t size)
{
	char cause[1024], dir[4096], tmp[4200];
	struct il_store *k = NULL;
	int ret, n;

	/* The refusal is what the user must read; keep its words. */
	snprintf(cause, sizeof(cause), "%s", il_errmsg());
	if (!il_store_pending_dir(s->path, dir, sizeof(dir)))
		return il_errorf(-ENAMETOOLONG, "%s: path too long", s->path);
	n = snprintf(path, size, "%s/%s.db", dir, r->uuid);
	if (n < 0 || (size_t)n >= size)
		return il_errorf(-ENAMETOOLONG, "%s: path too long", dir);
	snprintf(tmp, sizeof(tmp), "%s/.%s.db.tmp", dir, r->uuid);
	ret = il_mkdir_p(dir);
	if (!ret)
		ret = il_store_open(tmp, IL_STORE_CREATE, &k);
	if (!ret)
		ret = put_machine(k, s, r->machine_uuid);
	if (!ret)
		ret = il_store_save_run_causes(k, r, c);
	il_store_close(k);
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		il_store_remove(tmp);
		path[0] = '\0';
		return il_errorf(ret, "%s; keeping the run in %s failed too: %s",
				 cause, dir, il_errmsg());
	}
	il_errorf(-EIO, "%s", cause);
	return 0;
}
