// SPDX-License-Identifier: GPL-2.0-only
/*
 * outfile.c - the output files of the commands (outfile.h): the guard
 * that keeps an output off the input databases, and the write to a
 * temporary name that is renamed into place only when complete.
 *
 * Two comparisons catch every spelling.  An existing output is compared
 * by st_dev/st_ino, which sees through relative paths, symlinks and hard
 * links alike; an output that does not exist yet cannot be a hard link,
 * and is compared by its resolved path, which also catches the -wal and
 * -shm files SQLite has not created yet but would.
 */
#include "outfile.h"
#include "err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Symlinks followed by hand when the last one dangles, as the kernel's
 * own limit on a path's links (MAXSYMLINKS). */
#define MAX_LINKS 40

struct guard {
	char *label;	/* the input file as the user spelled it */
	char *canon;	/* resolved, or NULL where it could not be */
	bool have_id;
	dev_t dev;
	ino_t ino;
};

static struct guard *guards;
static size_t nguards;

/* "DIR/BASE" with DIR resolved; NULL if DIR cannot be. */
static char *resolve_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *rdir, *out = NULL;
	const char *base = slash ? slash + 1 : path;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return NULL;
	dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return NULL;
	rdir = realpath(*dir ? dir : "/", NULL);
	if (rdir && asprintf(&out, "%s/%s", strcmp(rdir, "/") ? rdir : "", base) < 0)
		out = NULL;
	free(rdir);
	free(dir);
	return out;
}

/*
 * @path with every symlink resolved, whether or not the file it ends at
 * exists yet: realpath() for an existing file, a dangling link followed
 * by hand (writing through it creates its target), else the resolved
 * directory plus the name.  NULL if the directory does not resolve.
 */
static char *resolve(const char *path, int links)
{
	char *r = realpath(path, NULL), target[PATH_MAX], *next;
	struct stat st;
	ssize_t n;

	if (r || links >= MAX_LINKS)
		return r;
	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return resolve_parent(path);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (target[0] == '/' || !strchr(path, '/')) {
		next = strdup(target);
	} else if (asprintf(&next, "%.*s/%s", (int)(strrchr(path, '/') - path),
			    path, target) < 0) {
		next = NULL;
	}
	r = next ? resolve(next, links + 1) : NULL;
	free(next);
	return r;
}

static int add_guard(const char *label, char *canon, const struct stat *st)
{
	struct guard *v = realloc(guards, (nguards + 1) * sizeof(*v));

	if (!v || !(label = strdup(label))) {
		free(canon);
		if (v)
			guards = v;
		return il_errorf(-ENOMEM, "out of memory");
	}
	guards = v;
	guards[nguards++] = (struct guard){ (char *)label, canon, st != NULL,
					    st ? st->st_dev : 0, st ? st->st_ino : 0 };
	return 0;
}

int il_outfile_guard(const char *db)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char *real = resolve(db, 0), *name = NULL, *beside = NULL;
	struct stat st;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (asprintf(&name, "%s%s", db, sfx[i]) < 0)
			name = NULL;
		/* SQLite names -wal and -shm after the resolved file. */
		if (real && asprintf(&beside, "%s%s", real, sfx[i]) < 0)
			beside = NULL;
		if (!name || (real && !beside))
			ret = il_errorf(-ENOMEM, "out of memory");
		else
			ret = add_guard(name, resolve(name, 0),
					stat(name, &st) ? NULL : &st);
		if (!ret && beside)
			ret = add_guard(name, beside, NULL);
		else
			free(beside);
		free(name);
		name = beside = NULL;
	}
	free(real);
	return ret;
}

void il_outfile_guard_clear(void)
{
	while (nguards--) {
		free(guards[nguards].label);
		free(guards[nguards].canon);
	}
	free(guards);
	guards = NULL;
	nguards = 0;
}

int il_outfile_check(const char *path)
{
	struct stat st;
	bool exists = !stat(path, &st);
	char *canon = resolve(path, 0);
	const char *hit = NULL;
	size_t i;

	for (i = 0; !hit && i < nguards; i++) {
		const struct guard *g = &guards[i];

		if ((exists && g->have_id && g->dev == st.st_dev && g->ino == st.st_ino) ||
		    (canon && g->canon && !strcmp(canon, g->canon)))
			hit = g->label;
	}
	free(canon);
	if (hit)
		return il_errorf(-EEXIST, "refusing to write %s: it is %s, a file of an input database",
				 path, hit);
	return 0;
}

/* The mode a new file gets from open(..., 0666): the umask applied. */
static mode_t new_file_mode(void)
{
	mode_t m = umask(0);

	umask(m);
	return 0666 & ~m;
}

/* Open @o->path itself: what cannot be renamed over (outfile.h). */
static int open_in_place(struct il_outfile *o, const char *path)
{
	o->f = fopen(o->path, "w");
	if (!o->f) {
		int err = errno;

		free(o->path);
		o->path = NULL;
		return il_errorf(-err, "%s: %s", path, strerror(err));
	}
	return 0;
}

int il_outfile_open(struct il_outfile *o, const char *path)
{
	struct stat st;
	int ret, fd, err;
	mode_t mode;

	*o = (struct il_outfile){ NULL, NULL, NULL };
	ret = il_outfile_check(path);
	if (ret)
		return ret;
	errno = 0;
	o->path = resolve(path, 0);
	if (!o->path) {
		err = errno ? errno : ENOENT;
		return il_errorf(-err, "%s: its directory: %s", path, strerror(err));
	}
	if (!stat(o->path, &st) && !S_ISREG(st.st_mode))
		return open_in_place(o, path);
	/* A dot name beside the target: same file system, so rename()
	 * is atomic, and hidden from a glob of the directory's outputs. */
	if (asprintf(&o->tmp, "%.*s/.%s.XXXXXX",
		     (int)(strrchr(o->path, '/') - o->path), o->path,
		     strrchr(o->path, '/') + 1) < 0) {
		o->tmp = NULL;
		ret = il_errorf(-ENOMEM, "out of memory");
		goto fail;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		err = errno;
		free(o->tmp);
		o->tmp = NULL;
		ret = il_errorf(-err, "%s: %s", path, strerror(err));
		goto fail;
	}
	/* mkstemp() gives 0600; keep what the file had, or a new file's. */
	mode = !stat(o->path, &st) ? st.st_mode & 07777 : new_file_mode();
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		ret = il_errorf(-err, "%s: %s", o->tmp, strerror(err));
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	return 0;
fail:
	free(o->path);
	o->path = NULL;
	return ret;
}

static void outfile_free(struct il_outfile *o)
{
	free(o->path);
	free(o->tmp);
	*o = (struct il_outfile){ NULL, NULL, NULL };
}

int il_outfile_commit(struct il_outfile *o)
{
	int err = 0, ret = 0;

	if (!o->f)
		return il_errorf(-EINVAL, "no output file open");
	/* Every way a write can fail is seen before the rename: a full
	 * disk surfaces at fflush(), fsync() or, on NFS, fclose(). */
	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		err = errno ? errno : EIO;
	else if (o->tmp && fsync(fileno(o->f)))
		err = errno;
	if (fclose(o->f) && !err)
		err = errno;
	o->f = NULL;
	if (!err && o->tmp && rename(o->tmp, o->path))
		err = errno;
	if (err) {
		ret = il_errorf(-EIO, "writing %s: %s", o->path, strerror(err));
		if (o->tmp)
			unlink(o->tmp);
	}
	outfile_free(o);
	return ret;
}

void il_outfile_abort(struct il_outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	outfile_free(o);
}

void il_outfile_remove_dir(const char *dir, int rmdir_too)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	if (rmdir_too)
		rmdir(dir);
}
