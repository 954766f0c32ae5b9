/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * redact.h - what `idlelab publish` takes out of a dataset before a lab
 * shares it (issue 25): hostnames become keyed pseudonyms, machine UUIDs
 * keyed pseudonyms in UUID form, the kernel command line keeps only the
 * options that change a measurement, and serial numbers, DMI UUIDs and
 * asset tags leave the fingerprint and the hwloc XML.
 *
 * Pseudonyms are HMAC-SHA256 under a key the lab keeps, so two bundles
 * published with one key name the same machine alike (and merge), while
 * nobody without the key can test a guess of a hostname.
 *
 * Each function that removes something appends a short description of it
 * (a JSON string: an option's or field's name, never its value) to a
 * caller's array, which the bundle lists in redactions.json.
 *
 * Errors follow err.h: 0 or -errno with il_errorf()'s message.
 */
#ifndef IDLELAB_REDACT_H
#define IDLELAB_REDACT_H

#include <jansson.h>
#include <stdint.h>

#define IL_REDACT_KEY_LEN 32
/* The fewest bytes a key file may hold (128 bits). */
#define IL_REDACT_KEY_MIN 16
/* "host-" and 12 hex digits (48 bits: no clash in any real fleet). */
#define IL_REDACT_HOST_LEN 18

struct il_redact_key {
	uint8_t k[IL_REDACT_KEY_LEN];
	char id[17];	/* names the key without revealing it */
};

/**
 * il_redact_key_load() - the key: SHA-256 of the bytes of @path, or when
 * @path is NULL of $IDLELAB_STATE_DIR/publish-key (default
 * /var/lib/idlelab), created mode 0600 with 32 random bytes if missing.
 * An existing default key readable by group or others is refused
 * (-EPERM): whoever can read it can undo every pseudonym.  So is a file
 * of fewer than IL_REDACT_KEY_MIN bytes (-EINVAL), which can be guessed.
 * @used, when not NULL, gets the path read (malloc()ed).
 */
int il_redact_key_load(const char *path, struct il_redact_key *key,
		       char **used);

/**
 * il_redact_host() - the pseudonym of the hostname of machine @uuid,
 * "host-" and 12 hex digits.  It is derived from the machine's UUID, not
 * its hostname: machines that share a name (every guest of the rigs is
 * "(none)") must stay apart, and one machine keeps one name per key.
 */
void il_redact_host(const struct il_redact_key *key, const char *uuid,
		    char out[IL_REDACT_HOST_LEN]);

/** il_redact_uuid() - @uuid's pseudonym, a version-8 UUID (RFC 9562). */
void il_redact_uuid(const struct il_redact_key *key, const char *uuid,
		    char out[37]);

/**
 * il_redact_cmdline() - @cmdline with only the options that change a
 * measurement (il_redact_cmdline_keeps()); the names of the others are
 * appended to @dropped.  Return: malloc()ed, or NULL (out of memory).
 */
char *il_redact_cmdline(const char *cmdline, json_t *dropped);

/** il_redact_cmdline_keeps() - 1 if the option @word is kept. */
int il_redact_cmdline_keeps(const char *word);

/**
 * il_redact_fingerprint() - the fingerprint JSON text @in, redacted:
 * hostnames replaced by @host_pseudo, kernel.cmdline filtered, every
 * member whose name holds "serial", "asset" or "uuid" removed.  Paths of
 * what was removed go to @removed.  Return: 0 with *@out malloc()ed, or
 * -EINVAL for text that is not JSON, -ENOMEM.
 */
int il_redact_fingerprint(const char *in, const char *host_pseudo,
			  json_t *removed, char **out);

/**
 * il_redact_hwloc_xml() - hwloc's XML @in with the HostName info set to
 * @host_pseudo and every info whose name names a serial, a UUID, an asset
 * tag or a hardware address removed (their names to @removed).
 * Return: 0 with *@out malloc()ed, or -ENOMEM.
 */
int il_redact_hwloc_xml(const char *in, const char *host_pseudo,
			json_t *removed, char **out);

#endif
