// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptywriter: stands in for Bochs's term display in the rig watchdog's test
 * (tests/integration/test_vm_watchdog.sh).  Like Bochs built with its
 * debugger, it opens a fresh pseudo-terminal, says on stderr which slave
 * it draws on, in Bochs's own words, and then writes BYTES bytes to the
 * master.  Nobody reading the slave, it sleeps in n_tty_write once the
 * buffer is full; with a reader it writes them all and exits 0.
 *
 *   ptywriter BYTES
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	long long left;
	int fd;

	if (argc != 2 || (left = atoll(argv[1])) <= 0) {
		fprintf(stderr, "usage: ptywriter BYTES\n");
		return 2;
	}
	fd = posix_openpt(O_RDWR | O_NOCTTY);
	if (fd < 0 || grantpt(fd) || unlockpt(fd)) {
		fprintf(stderr, "ptywriter: /dev/ptmx: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "\nBochs connected to screen \"%s\"\n", ptsname(fd));
	memset(buf, 'x', sizeof(buf));
	while (left > 0) {
		size_t n = left < (long long)sizeof(buf) ? (size_t)left : sizeof(buf);
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "ptywriter: write: %s\n", strerror(errno));
			return 1;
		}
		left -= w;
	}
	return 0;
}
