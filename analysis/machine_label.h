/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * machine_label.h - the machine column of every report, as SQL.
 *
 * A merged fleet often holds machines with one hostname (cloned VMs, all
 * "vm"): their rows must not look alike.  A machine is shown by its
 * hostname where that is unique in the dataset, else by its hostname and
 * the first 8 hex digits of its UUID, "vm/485da137".  The subquery is not
 * correlated, so SQLite evaluates it once per statement into an
 * ephemeral index, whatever the number of rows.
 *
 * @H and @U are SQL expressions for the hostname and the machine UUID.
 */
#ifndef IDLELAB_MACHINE_LABEL_H
#define IDLELAB_MACHINE_LABEL_H

#define IL_MACHINE_LABEL_SQL(H, U)					\
	"(CASE WHEN " H " IN (SELECT hostname FROM machines"		\
	" GROUP BY hostname HAVING count(*) > 1)"			\
	" THEN " H " || '/' || (CASE WHEN substr(" U ", 1, 8) IN"	\
	" (SELECT substr(uuid, 1, 8) FROM machines"			\
	" GROUP BY hostname, substr(uuid, 1, 8) HAVING count(*) > 1)"	\
	" THEN " U " ELSE substr(" U ", 1, 8) END) ELSE " H " END)"

/* The usual case: machines joined as m. */
#define IL_MACHINE_LABEL_M IL_MACHINE_LABEL_SQL("m.hostname", "m.uuid")

#endif
