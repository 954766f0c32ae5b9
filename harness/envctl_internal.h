/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * envctl_internal.h - what the two halves of envctl share and nothing else
 * sees: the journal entry, and the journal's operations that applying the
 * controls (envctl_apply.c) calls in envctl_journal.c.  Errors follow
 * err.h: 0 or -errno with a message set.
 */
#ifndef IDLELAB_ENVCTL_INTERNAL_H
#define IDLELAB_ENVCTL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* One file to change, and what to put back. */
struct jentry {
	char *path;		/* as given to sysfs.h */
	char *file;		/* resolved: what is written back */
	unsigned char *orig;	/* original bytes */
	size_t orig_len;
	char *val;		/* wanted value (NULL for entries read back) */
	bool pm_qos;
};

/* Trailing whitespace aside, true if the two values are the same. */
bool il_envctl_same_value(const void *a, size_t alen, const void *b,
			  size_t blen);
void il_envctl_entries_free(struct jentry *e, int n);

/* Take the journal lock into *@fdp; -EBUSY (no message) if it is held. */
int il_envctl_lock_take(int *fdp);
/* Set the -EBUSY message naming the process that holds the journal. */
int il_envctl_busy_error(void);

/* Write the whole journal for @ent durably, before any change. */
int il_envctl_journal_write(const struct jentry *ent, int n);
int il_envctl_journal_remove(void);

/*
 * Write the originals of @e back, last first, reading each back;
 * *@nrestored counts those done.  Return: 0, or the first error.
 */
int il_envctl_restore_entries(const struct jentry *e, int n, int *nrestored);

#endif
