// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_cyclictest.c - `idlelab import cyclictest FILE`
 * (il_import_cyclictest()): the input is the file, read through a memfd so
 * the importer opens it by path as it does any file.  The dataset is one
 * temporary database for the whole session; an input is imported twice,
 * and the second import must find it there (the run's UUID is derived
 * from the file's bytes).
 */
#include "fuzz.h"
#include "import.h"
#include "store.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct il_store *store;
static char db_path[4096];

/* SQLite refuses to write a database whose name was unlinked, so the
 * files are removed at exit (a crash leaves them in $TMPDIR). */
static void remove_store(void)
{
	char p[4200];

	il_store_close(store);
	unlink(db_path);
	snprintf(p, sizeof(p), "%s-wal", db_path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", db_path);
	unlink(p);
}

static void open_store(void)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(db_path, sizeof(db_path), "%s/idlelab-fuzz-cyclictest.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(db_path);
	if (fd < 0)
		fuzz_fail("mkstemp: no temporary database");
	close(fd);
	if (il_store_open(db_path, IL_STORE_CREATE, &store))
		fuzz_fail("cannot create the database %s", db_path);
	atexit(remove_store);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], uuid[37], again[37];
	bool already = false;
	int fd;

	if (!store)
		open_store();
	fd = memfd_create("cyclictest.json", 0);
	if (fd < 0)
		fuzz_fail("memfd_create failed");
	if (size && write(fd, data, size) != (ssize_t)size)
		fuzz_fail("write to the memfd failed");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!il_import_cyclictest(store, path, NULL, uuid, &already)) {
		if (il_import_cyclictest(store, path, NULL, again, &already))
			fuzz_fail("a file imported once is refused the second time");
		if (!already || strcmp(uuid, again))
			fuzz_fail("one file imported twice is two runs");
	}
	close(fd);
	return 0;
}
