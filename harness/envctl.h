/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * envctl.h - environment controls for a campaign, with guaranteed restore.
 *
 * The controls: the PM QoS CPU latency request (/dev/cpu_dma_latency, held
 * open for the campaign), the enabled cpuidle states per CPU (stateK/
 * disable), the cpufreq governor and min = max frequency pinning, and the
 * process-local SCHED_FIFO priority and mlockall() of the measuring
 * process.  Every sysfs path goes through sysfs.h, so IDLELAB_SYSFS_ROOT
 * runs all of it against a fake tree.
 *
 * Restore is guaranteed by a write-ahead journal, $IDLELAB_STATE_DIR/
 * restore-journal.json (default /var/lib/idlelab), that lists every file
 * to be changed with its original bytes.  It is complete and fsync()ed
 * before the first change, so whatever kills the process afterwards, the
 * next il_envctl_recover() (`idlelab run` and `idlelab restore` call it
 * first) puts every value back.  Restoring is idempotent: it only writes
 * originals, so an entry whose change never happened is harmless, and a
 * restore interrupted half-way is simply done again.  The journal is
 * removed only once every entry has been written back and read back equal.
 *
 * A lock file beside the journal (flock, released by the kernel when the
 * process dies, even by SIGKILL) tells a live campaign's journal from a
 * leftover one: recovery never touches the journal of a running process.
 *
 * Errors follow err.h.
 */
#ifndef IDLELAB_ENVCTL_H
#define IDLELAB_ENVCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct il_run;
struct il_envctl;

enum il_pin_kind {
	IL_PIN_NONE,
	IL_PIN_MAX,		/* cpuinfo_max_freq */
	IL_PIN_MIN,		/* cpuinfo_min_freq */
	IL_PIN_KHZ,		/* pin_khz */
};

/* What a campaign asks for; a zero struct asks for nothing. */
struct il_envctl_spec {
	bool pm_qos;			/* hold a PM QoS request ... */
	int32_t pm_qos_us;		/* ... of this many us */
	int ncpuidle_only;		/* > 0: enable only these states */
	char **cpuidle_only;		/* state names, as in stateK/name */
	char *governor;			/* NULL: untouched */
	enum il_pin_kind pin;
	uint64_t pin_khz;		/* IL_PIN_KHZ */
	int sched_fifo;			/* 0: untouched, else 1..99 */
	bool mlockall;
};

/** il_envctl_spec_empty() - true if @s asks for no control at all. */
bool il_envctl_spec_empty(const struct il_envctl_spec *s);
/** il_envctl_spec_free() - free the strings of @s (not @s itself). */
void il_envctl_spec_free(struct il_envctl_spec *s);

/**
 * il_envctl_apply() - journal, then apply @s on every online CPU.
 * On failure everything already changed is restored before returning.
 * Return: 0 with *@out set; -EBUSY if another live idlelab holds the
 * journal; -ENOENT/-EOPNOTSUPP if a control does not exist here (no
 * cpuidle or cpufreq, unknown state or governor); -EACCES/-EPERM without
 * privileges; other -errno.  Message set in every case.
 */
int il_envctl_apply(const struct il_envctl_spec *s, struct il_envctl **out);

/**
 * il_envctl_apply_available() - il_envctl_apply(), except that a control
 * which does not exist here (what il_envctl_apply() refuses with -ENOENT or
 * -EOPNOTSUPP) is left out, changing nothing, instead of refusing the
 * whole spec; the others are applied.  il_envctl_unavailable() then names
 * what was left out and why, and il_envctl_run_attrs() records it.
 * Return: as il_envctl_apply(), never -ENOENT/-EOPNOTSUPP for a control.
 */
int il_envctl_apply_available(const struct il_envctl_spec *s,
			      struct il_envctl **out);

/**
 * il_envctl_probe() - which controls of @s do not exist here, without
 * changing anything: the plan il_envctl_apply_available() makes, read
 * only (no lock, no journal, no write), for `run --dry-run`.
 * @why: set to a malloc()ed "key: reason; ..." as il_envctl_unavailable()
 *       would give, or NULL when every control exists here.
 * Return: 0, or -errno (message set) when the state could not be read.
 */
int il_envctl_probe(const struct il_envctl_spec *s, char **why);

/**
 * il_envctl_unavailable() - "key: reason" for each control that
 * il_envctl_apply_available() left out, joined by "; ", or NULL when every
 * control was applied (or @c is NULL).
 */
const char *il_envctl_unavailable(const struct il_envctl *c);

/**
 * il_envctl_restore() - put every value back, release the PM QoS request,
 * munlockall() and the original scheduling policy; remove the journal once
 * all is verified; free @c (NULL is a no-op).
 * Return: 0, or -errno (the journal is then kept for `idlelab restore`).
 */
int il_envctl_restore(struct il_envctl *c);

/**
 * il_envctl_run_attrs() - record the controlled settings on @run as run
 * attributes: per CPU "envctl" (now) and "envctl.before" (before the
 * campaign), run-wide "envctl.pm_qos_us", "envctl.sched_fifo",
 * "envctl.mlockall", and "envctl.not_applied" (il_envctl_unavailable())
 * when a control was left out.  @c may be NULL (no controls: only
 * "envctl").
 */
int il_envctl_run_attrs(struct il_envctl *c, struct il_run *run);

/** il_envctl_journal_path() - where the journal lives, into @buf. */
const char *il_envctl_journal_path(char *buf, size_t len);

/** il_envctl_journal_pending() - true if a journal file exists. */
bool il_envctl_journal_pending(void);

/**
 * il_envctl_recover() - restore from a leftover journal (a campaign killed
 * by SIGKILL or a crash).
 * @nrestored: set to the number of journal entries written back.
 * @pid: set to the pid recorded in the journal (0 if none).
 * Return: 1 if a journal was found and fully restored (and removed), 0 if
 * there was none, -EBUSY if a live process holds it, -errno otherwise
 * (message set; the journal is kept).
 */
int il_envctl_recover(int *nrestored, long *pid);

/*
 * The campaign file's `environment:` keys, declared once.  The campaign
 * parser validates and stores each key through this table, `idlelab run
 * --dry-run` renders the spec through it, and a test checks that
 * idlelab-run(1) names every key in it.  Adding a control is one entry
 * here (with its setter and renderer in envctl_keys.c) plus its apply
 * code.
 */

/* The shape of a value as the campaign parser read it. */
enum il_envctl_val_kind {
	IL_ENVVAL_NULL,			/* null or ~: leave the setting alone */
	IL_ENVVAL_SCALAR,
	IL_ENVVAL_LIST,
	IL_ENVVAL_MAPPING,
};

/*
 * One value, independent of the parser: a scalar's text, or a list's
 * items (one level deep; a nested list or mapping is an item of that kind
 * and is refused).
 */
struct il_envctl_val {
	enum il_envctl_val_kind kind;
	const char *text;		/* IL_ENVVAL_SCALAR */
	bool plain;			/* a scalar written without quotes */
	int nitems;			/* IL_ENVVAL_LIST */
	const struct il_envctl_val *items;
};

/* What a key accepts; the exact bounds are the key's min and max. */
enum il_envctl_key_type {
	IL_ENVKEY_UINT,			/* a whole number in [min, max] */
	IL_ENVKEY_NAMES,		/* a non-empty list of names */
	IL_ENVKEY_STRING,		/* one name */
	IL_ENVKEY_FREQ,			/* max, min, or kHz in [min, max] */
	IL_ENVKEY_PRIO,			/* [min, max], or false for none */
	IL_ENVKEY_BOOL,			/* true or false */
};

struct il_envctl_key {
	const char *name;
	enum il_envctl_key_type type;
	uint64_t min, max;
	const char *accepts;		/* the accepted values, for people */
	const char *help;		/* what asking for it does */
	const char *changes;		/* which settings it changes */
	const char *restore;		/* how they are put back */
	/* Validate @v and store it in @s; never called with a null value. */
	int (*set)(struct il_envctl_spec *s, const struct il_envctl_key *k,
		   const struct il_envctl_val *v);
	/* Render @s's value into @buf; return false if @s leaves it alone. */
	bool (*show)(const struct il_envctl_spec *s, char *buf, size_t len);
};

/* Every key, in the order they are printed; ends with a NULL name. */
extern const struct il_envctl_key il_envctl_keys[];

/** il_envctl_key_find() - the key called @name, or NULL. */
const struct il_envctl_key *il_envctl_key_find(const char *name);

/** il_envctl_key_names() - every key's name, NULL-terminated. */
const char *const *il_envctl_key_names(void);

/**
 * il_envctl_key_set() - validate @v for @k and store it in @s.  A null
 * value leaves @s as it is (a key can be switched off without deleting
 * it).  The message names neither file nor key; the caller adds both.
 * Return: 0, -EINVAL (message set, e.g. "100 is out of range [1, 99]"),
 * -ENOMEM.
 */
int il_envctl_key_set(struct il_envctl_spec *s, const struct il_envctl_key *k,
		      const struct il_envctl_val *v);

/**
 * il_envctl_spec_describe() - "environment: unchanged", or "environment:"
 * followed by " key=value" for every key @s sets, in table order, into
 * @buf (no newline).
 * Return: 0, or -ENOSPC if @len is too short (message set).
 */
int il_envctl_spec_describe(const struct il_envctl_spec *s, char *buf,
			    size_t len);

/**
 * il_envctl_keys_print() - every key with what it accepts, what it
 * changes and how that is restored, one paragraph each, to @f.
 * Return: 0, or -EIO if writing @f failed (message set).
 */
int il_envctl_keys_print(FILE *f);

#endif
