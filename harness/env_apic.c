// SPDX-License-Identifier: GPL-2.0-only
/*
 * env_apic.c - the fingerprint's "apic" section.
 *
 * The APIC driver has no sysfs file.  The kernel logs its choice once at
 * boot ("APIC: Switched APIC routing to: physical x2apic"), so when the
 * log is readable (/dev/kmsg, root, and the line not yet rotated out) it is
 * taken from there, along with the paravirtual overrides the kernel logs
 * ("kvm-guest: APIC: send_IPI_mask() replaced with kvm_send_ipi_mask()"),
 * which decide what an IPI benchmark is really measuring in a guest.
 */
#include "env_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* The kernel log is a few MiB at most; bound what we buffer anyway. */
#define IL_KMSG_MAX	(16u << 20)

/*
 * The kernel log, whole.  /dev/kmsg returns one record per read() and
 * -EAGAIN at the end (O_NONBLOCK), or -EPIPE when a record was overwritten
 * while we read; a fixture's regular file returns plain chunks and 0 at the
 * end.  Both come out as newline-separated text.
 */
static int kmsg_read(char **out)
{
	size_t cap = 1 << 16, got = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t n;
	int fd;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	fd = il_fs_open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		free(buf);
		return fd;
	}
	for (;;) {
		if (cap - got < 8192) {
			if (cap >= IL_KMSG_MAX)
				break;
			nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*out = buf;
	return 0;
}

/* The message part of a kmsg record ("6,1,2,-;text") or a dmesg line
 * ("[    0.25] text"). */
static const char *log_text(const char *line)
{
	const char *semi = strchr(line, ';');

	if (line[0] == '[') {
		const char *rb = strchr(line, ']');

		return rb ? rb + 1 + (rb[1] == ' ') : line;
	}
	if (semi && isdigit((unsigned char)line[0]))
		return semi + 1;
	return line;
}

static void apic_from_log(json_t *apic)
{
	static const char *const routing[] = {
		"APIC routing to: ", "APIC routing to ",
		"APIC routing finalized to ",
	};
	char *log, *line, *next, *drv = NULL, *p;
	json_t *overrides;
	const char *text;
	size_t i;
	int ret;

	ret = kmsg_read(&log);
	if (ret) {
		set(apic, "driver",
		    unknownf("the APIC driver is not exported in sysfs, and the kernel log is unreadable (%s)",
			     il_errmsg()));
		set(apic, "overrides", il_unknown("the kernel log is unreadable"));
		return;
	}
	overrides = json_array();
	for (line = log; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (line[0] == ' ')
			continue;	/* kmsg continuation (KEY=value) */
		text = log_text(line);
		for (i = 0; i < sizeof(routing) / sizeof(*routing); i++) {
			p = strstr(text, routing[i]);
			if (!p)
				continue;
			free(drv);
			drv = strdup(p + strlen(routing[i]));
			break;
		}
		if (strstr(text, "APIC: ") && strstr(text, " replaced with "))
			json_array_append_new(overrides, jstr(text));
	}
	free(log);
	if (drv) {
		size_t n = strlen(drv);

		while (n && (drv[n - 1] == '.' || isspace((unsigned char)drv[n - 1])))
			drv[--n] = '\0';
		set(apic, "driver", jstr(drv));
		set(apic, "driver_source", json_string("kernel log"));
		free(drv);
	} else {
		set(apic, "driver",
		    il_unknown("the APIC driver is not exported by this kernel, and no 'APIC routing' line is left in the kernel log"));
	}
	set(apic, "overrides", overrides);
}

json_t *env_apic_section(struct cpuinfo *ci, unsigned int ecx1)
{
	json_t *apic = json_object();

	/* The kernel clears the x2apic flag when it does not use x2APIC
	 * mode (nox2apic, no interrupt remapping), so the flag is the
	 * kernel's mode; CPUID.1:ECX[21] is what the CPU offers. */
	set(apic, "x2apic", env_cpuinfo_flag(ci, "x2apic"));
	set(apic, "x2apic_cpuid", env_cpuid_x2apic(ecx1));
	apic_from_log(apic);
	return apic;
}
