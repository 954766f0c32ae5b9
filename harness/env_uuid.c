// SPDX-License-Identifier: GPL-2.0-only
/*
 * env_uuid.c - UUIDs: random version-4 ones for runs, and the host's own,
 * kept in $IDLELAB_STATE_DIR/host-uuid (default /var/lib/idlelab) so every
 * run a machine stores carries the same identity and datasets from many
 * machines merge without collisions.  A host without that file takes the
 * identity derived from its machine-id(5), so a fresh state directory
 * does not make the same machine a second host.
 */
#include "env.h"
#include "err.h"
#include "sysfs.h"
#include "tsc.h"

#include <ctype.h>
#include <errno.h>
#include <nettle/hmac.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- UUIDs ----------------------------------------------------------- */

static void fill_random(unsigned char *b, size_t n)
{
	static uint64_t ctr;
	size_t got = 0;
	ssize_t r;
	int fd;

	while (got < n) {
		r = getrandom(b + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == n)
		return;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (got < n && (r = read(fd, b + got, n - got)) > 0)
			got += (size_t)r;
		close(fd);
	}
	/* Last resort, never expected on Linux >= 3.17: splitmix64 over the
	 * clock, the pid and a counter, so two calls still differ. */
	while (got < n) {
		uint64_t z = il_now_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32) ^
			     (__atomic_add_fetch(&ctr, 1, __ATOMIC_RELAXED) *
			      0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		for (int i = 0; i < 8 && got < n; i++)
			b[got++] = (unsigned char)(z >> (8 * i));
	}
}

void il_uuid_v4(char out[37])
{
	unsigned char b[16];

	fill_random(b, sizeof(b));
	b[6] = (b[6] & 0x0f) | 0x40;	/* version 4 (RFC 9562 5.4) */
	b[8] = (b[8] & 0x3f) | 0x80;	/* variant 10 */
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

int il_uuid_valid(const char *s)
{
	int i;

	if (!s || strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!isxdigit((unsigned char)s[i])) {
			return 0;
		}
	}
	return 1;
}

/* 0, -ENOENT if the file is missing, -EINVAL if it holds no UUID. */
static int uuid_file_read(const char *path, char out[37])
{
	char buf[64];
	ssize_t n;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!il_uuid_valid(buf))
		return -EINVAL;
	for (i = 0; i < 36; i++)
		out[i] = (char)tolower((unsigned char)buf[i]);
	out[36] = '\0';
	return 0;
}

/*
 * Write @want (NULL: a fresh random UUID) to a temporary file and link() it into place: link
 * fails if another process got there first, so concurrent first runs
 * agree on one identity instead of the last rename winning.
 */
static int uuid_file_create(const char *dir, const char *path,
			    const char *want, char out[37])
{
	char tmp[4200], id[37], line[38];
	int fd, ret = 0;

	ret = il_mkdir_p(dir);
	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%s/.host-uuid.XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (want)
		memcpy(id, want, 37);
	else
		il_uuid_v4(id);
	snprintf(line, sizeof(line), "%s\n", id);
	/* mkstemp() gives 0600; the identity is no secret. */
	if (fchmod(fd, 0644) || write(fd, line, 37) != 37 || fsync(fd))
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -EIO;
	if (!ret && link(tmp, path)) {
		ret = errno == EEXIST ? uuid_file_read(path, out) : -errno;
		unlink(tmp);
		return ret;
	}
	unlink(tmp);
	if (!ret)
		memcpy(out, id, 37);
	return ret;
}

static unsigned int hexval(unsigned char c)
{
	return isdigit(c) ? (unsigned int)(c - '0') :
	       (unsigned int)(tolower(c) - 'a' + 10);
}

/*
 * This installation's identity for idlelab, from machine-id(5): an HMAC
 * keyed by the machine ID over idlelab's own label, as systemd's
 * sd_id128_get_machine_app_specific() does, because machine-id(5) asks
 * that the ID itself never leave the machine, and datasets are shared.
 * The result is a version-8 UUID (RFC 9562 5.8: vendor-specific).
 * Return: 0, or -ENOENT when there is no valid machine ID.
 */
static int uuid_from_machine_id(char out[37])
{
	static const char label[] = "idlelab host-uuid v1";
	uint8_t key[16], d[SHA256_DIGEST_SIZE];
	struct hmac_sha256_ctx ctx;
	char buf[64];
	ssize_t n;
	int fd, i;

	fd = open("/etc/machine-id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 32)
		return -ENOENT;
	for (i = 0; i < 16; i++) {
		unsigned char hi = (unsigned char)buf[2 * i];
		unsigned char lo = (unsigned char)buf[2 * i + 1];

		if (!isxdigit(hi) || !isxdigit(lo))
			return -ENOENT;
		key[i] = (uint8_t)(hexval(hi) << 4 | hexval(lo));
	}
	/* "uninitialized" (first boot) and all zeroes name no machine. */
	for (i = 0; i < 16 && !key[i]; i++)
		;
	if (i == 16)
		return -ENOENT;
	hmac_sha256_set_key(&ctx, sizeof(key), key);
	hmac_sha256_update(&ctx, sizeof(label) - 1, (const uint8_t *)label);
	hmac_sha256_digest(&ctx, sizeof(d), d);
	d[6] = (d[6] & 0x0f) | 0x80;	/* version 8 */
	d[8] = (d[8] & 0x3f) | 0x80;	/* variant 10 */
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9],
		 d[10], d[11], d[12], d[13], d[14], d[15]);
	return 0;
}

int il_host_uuid(char out[37])
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char fallback[37];
	const char *dir = getenv("IDLELAB_STATE_DIR");
	char path[4200], id[37];
	bool from_id;
	int ret;

	if (!dir || !*dir)
		dir = "/var/lib/idlelab";
	snprintf(path, sizeof(path), "%s/host-uuid", dir);
	ret = uuid_file_read(path, out);
	if (!ret)
		return 0;
	/* Rewriting a damaged identity would silently split one machine's
	 * data in two; make the user decide. */
	if (ret == -EINVAL)
		return il_errorf(-EINVAL,
				 "%s does not hold a UUID; remove it to give this host a new identity",
				 path);
	/* No file yet: the machine ID decides, so a new state directory on
	 * the same installation is still the same host. */
	from_id = !uuid_from_machine_id(id);
	if (ret == -ENOENT && !uuid_file_create(dir, path, from_id ? id : NULL,
						out)) {
		if (!from_id)
			fprintf(stderr, "idlelab: notice: no /etc/machine-id: this host's new identity %s is random, kept in %s; keep that file to keep it\n",
				out, path);
		return 0;
	}
	if (from_id) {
		memcpy(out, id, 37);
		return 0;
	}
	/* Unwritable state directory, no machine ID: one identity for this
	 * process, so at least its runs agree with each other. */
	pthread_mutex_lock(&lock);
	if (!fallback[0]) {
		il_uuid_v4(fallback);
		fprintf(stderr, "idlelab: warning: no /etc/machine-id and %s cannot be written: this host's identity %s lasts for this process only\n",
			path, fallback);
	}
	memcpy(out, fallback, 37);
	pthread_mutex_unlock(&lock);
	return 0;
}
