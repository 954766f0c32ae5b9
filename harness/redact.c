// SPDX-License-Identifier: GPL-2.0-only
/*
 * redact.c - the publish key, the keyed pseudonyms and the kernel command
 * line filter of redact.h.  The fingerprint and hwloc XML walks, which use
 * these, are in redact_doc.c.
 *
 * The command line is filtered by an allow list, not a block list: a lab's
 * boot options can carry anything (root=UUID=..., ip= with addresses,
 * NFS servers, console and serial settings, site-specific module options),
 * and a block list would let through whatever it did not foresee.  What
 * is kept is what a reader needs to judge idle and wake-up figures.
 */
#include "redact.h"
#include "err.h"
#include "sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whole option names kept as they are. */
static const char *const keep_names[] = {
	"idle", "nohz", "nohz_full", "isolcpus", "mitigations", "nox2apic",
	"nmi_watchdog", "preempt", "intremap", "nosmt", "maxcpus", "nr_cpus",
	"possible_cpus", "threadirqs", "irqaffinity", "rcu_nocbs",
	"rcu_nocb_poll", "skew_tick", "tsc", "clocksource", "hpet", "highres",
	"nohalt", "nosoftlockup", "nowatchdog", "pti", "nopti", "spectre_v2",
	"spec_store_bypass_disable", "mds", "tsx", "tsx_async_abort", "l1tf",
	"retbleed", "noapic", "nolapic", "lapic", "apic", "noapictimer",
	"intel_pstate", "amd_pstate", "transparent_hugepage", "numa_balancing",
	"audit", "quiet", "no_timer_check", "acpi", "pcie_aspm", "iommu",
	"intel_iommu", "amd_iommu", "cpuidle_haltpoll", "haltpoll",
	"mce", "nokaslr", "init_on_alloc", "init_on_free", "kvm-intel.vmentry_l1d_flush",
};

/* Option names kept by prefix: module options of the idle and frequency
 * drivers, the x2APIC family, tick and RCU offload settings. */
static const char *const keep_prefixes[] = {
	"cpuidle.", "intel_idle.", "processor.", "x2apic", "nohz", "cpufreq.",
	"intel_pstate.", "amd_pstate.", "rcu_nocb", "rcutree.", "haltpoll.",
	"workqueue.power_efficient", "kvm.", "kvm-intel.", "kvm_amd.",
};

int il_redact_cmdline_keeps(const char *word)
{
	size_t n = strcspn(word, "="), i;

	for (i = 0; i < sizeof(keep_names) / sizeof(keep_names[0]); i++)
		if (strlen(keep_names[i]) == n && !strncmp(word, keep_names[i], n))
			return 1;
	for (i = 0; i < sizeof(keep_prefixes) / sizeof(keep_prefixes[0]); i++)
		if (!strncmp(word, keep_prefixes[i], strlen(keep_prefixes[i])))
			return 1;
	return 0;
}

/* The end of the word at @s: the kernel's own rule (next_arg()), blanks
 * outside double quotes end it. */
static const char *word_end(const char *s)
{
	int quoted = 0;

	for (; *s && (quoted || !isspace((unsigned char)*s)); s++)
		if (*s == '"')
			quoted = !quoted;
	return s;
}

char *il_redact_cmdline(const char *cmdline, json_t *dropped)
{
	size_t len = strlen(cmdline), used = 0;
	char *out = malloc(len + 1), name[128];
	const char *s = cmdline, *e;
	int init_args = 0;

	if (!out)
		return NULL;
	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		e = word_end(s);
		/* After "--" the words are init's arguments, none of the
		 * kernel's: dropped whole, under one name. */
		if (!init_args && e - s == 2 && !strncmp(s, "--", 2)) {
			init_args = 1;
			if (dropped)
				json_array_append_new(dropped, json_string("-- (init's arguments)"));
		} else if (!init_args) {
			char *w = strndup(s, (size_t)(e - s));

			if (!w) {
				free(out);
				return NULL;
			}
			if (il_redact_cmdline_keeps(w)) {
				used += (size_t)sprintf(out + used, "%s%s", used ? " " : "", w);
			} else if (dropped) {
				snprintf(name, sizeof(name), "%.*s", (int)strcspn(w, "="), w);
				json_array_append_new(dropped, json_string(name));
			}
			free(w);
		}
		s = e;
	}
	out[used] = '\0';
	return out;
}

static void hmac(const struct il_redact_key *key, const char *domain,
		 const char *msg, uint8_t d[SHA256_DIGEST_SIZE])
{
	struct hmac_sha256_ctx ctx;

	hmac_sha256_set_key(&ctx, sizeof(key->k), key->k);
	/* The domain and its NUL keep a hostname's pseudonym from ever
	 * equalling a UUID's. */
	hmac_sha256_update(&ctx, strlen(domain) + 1, (const uint8_t *)domain);
	hmac_sha256_update(&ctx, strlen(msg), (const uint8_t *)msg);
	hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, d);
}

/* A UUID in lower case: one machine, however it was spelled, is one
 * pseudonym. */
static void uuid_lower(const char *uuid, char lower[37])
{
	size_t i;

	for (i = 0; i < 36 && uuid[i]; i++)
		lower[i] = (char)tolower((unsigned char)uuid[i]);
	lower[i] = '\0';
}

void il_redact_host(const struct il_redact_key *key, const char *uuid,
		    char out[IL_REDACT_HOST_LEN])
{
	uint8_t d[SHA256_DIGEST_SIZE];
	char lower[37];

	uuid_lower(uuid, lower);
	hmac(key, "idlelab hostname", lower, d);
	snprintf(out, IL_REDACT_HOST_LEN, "host-%02x%02x%02x%02x%02x%02x",
		 d[0], d[1], d[2], d[3], d[4], d[5]);
}

void il_redact_uuid(const struct il_redact_key *key, const char *uuid,
		    char out[37])
{
	uint8_t d[SHA256_DIGEST_SIZE];
	char lower[37];

	uuid_lower(uuid, lower);
	hmac(key, "idlelab machine uuid", lower, d);
	d[6] = (d[6] & 0x0f) | 0x80;	/* version 8: custom */
	d[8] = (d[8] & 0x3f) | 0x80;	/* variant 10 */
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9],
		 d[10], d[11], d[12], d[13], d[14], d[15]);
}

/* A new default key: 32 random bytes as hex, created 0600 and never
 * replaced (O_EXCL), so two publishers racing keep one key. */
static int key_create(const char *path)
{
	uint8_t b[IL_REDACT_KEY_LEN];
	char hex[2 * IL_REDACT_KEY_LEN + 2];
	size_t i;
	int fd, ret = 0;

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return il_errorf(-EIO, "no random bytes for a publish key");
	for (i = 0; i < sizeof(b); i++)
		sprintf(hex + 2 * i, "%02x", b[i]);
	strcat(hex, "\n");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == EEXIST ? 0 :
		       il_errorf(-errno, "cannot create the publish key %s: %s",
				 path, strerror(errno));
	if (il_fd_write_full(fd, hex, strlen(hex)) != (ssize_t)strlen(hex) || fsync(fd))
		ret = il_errorf(-EIO, "cannot write the publish key %s", path);
	close(fd);
	if (ret)
		unlink(path);
	return ret;
}

static int key_read(const char *path, int check_mode, struct il_redact_key *key)
{
	struct sha256_ctx ctx;
	uint8_t buf[4096], id[SHA256_DIGEST_SIZE];
	struct stat st;
	size_t total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), i;

	if (fd < 0)
		return il_errorf(-errno, "cannot open the publish key %s: %s",
				 path, strerror(errno));
	if (check_mode && !fstat(fd, &st) && (st.st_mode & 077)) {
		close(fd);
		return il_errorf(-EPERM, "the publish key %s is readable by others (mode %03o): chmod 600 it, or publish with a new key",
				 path, (unsigned)(st.st_mode & 0777));
	}
	sha256_init(&ctx);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		sha256_update(&ctx, (size_t)n, buf);
		total += (size_t)n;
	}
	close(fd);
	if (n < 0)
		return il_errorf(-EIO, "cannot read the publish key %s", path);
	/* A short key can be guessed, and with it every pseudonym undone
	 * by trying hostnames. */
	if (total < IL_REDACT_KEY_MIN)
		return il_errorf(-EINVAL, "the publish key %s holds %zu bytes: give at least %d random ones (e.g. head -c 32 /dev/urandom)",
				 path, total, IL_REDACT_KEY_MIN);
	sha256_digest(&ctx, sizeof(key->k), key->k);
	/* The key's name: a hash of the key under a fixed label, so a lab can
	 * tell which key a bundle used and learns nothing of the key. */
	hmac(key, "idlelab key id", "", id);
	for (i = 0; i < 8; i++)
		sprintf(key->id + 2 * i, "%02x", id[i]);
	return 0;
}

int il_redact_key_load(const char *path, struct il_redact_key *key,
		       char **used)
{
	const char *dir = getenv("IDLELAB_STATE_DIR");
	char *def = NULL;
	int ret;

	if (used)
		*used = NULL;
	if (path) {
		ret = key_read(path, 0, key);
		if (!ret && used && !(*used = strdup(path)))
			ret = il_errorf(-ENOMEM, "out of memory");
		return ret;
	}
	if (!dir || !*dir)
		dir = "/var/lib/idlelab";
	if (asprintf(&def, "%s/publish-key", dir) < 0)
		return il_errorf(-ENOMEM, "out of memory");
	ret = il_mkdir_p(dir) ?: key_create(def) ?: key_read(def, 1, key);
	if (!ret && used)
		*used = def;
	else
		free(def);
	return ret;
}
