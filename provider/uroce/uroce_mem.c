/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's registration check: the memory an MR names must be there, and
 * writable when the MR may be written.
 *
 * The kernel's rxe pins an MR's pages at ibv_reg_mr (ib_umem_get), for
 * writing when the access flags let anyone write (local write, remote
 * write, remote atomic, MW bind: ib_access_writable), and refuses with
 * EFAULT a range that is not mapped, or not readable, or not writable
 * when it must be. uroce pins nothing: its progress thread writes the
 * MR's bytes itself. Without this check a registration rxe refuses would
 * succeed, and the first write of a peer into a read-only page would
 * kill the process with SIGSEGV. So the range is checked against the
 * process's mappings (/proc/self/maps) as the pinning would judge it.
 *
 * What the check cannot see: a range unmapped or made read-only after
 * the registration (rxe keeps its pinned pages; here the memory is
 * gone). Freeing registered memory is the program's error under any
 * provider; doc/providers.md says what uroce then does. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uroce.h"

/* One line of the maps file: its range and whether it is readable and
 * writable. False when the line does not read as one. */
static bool parse_line(const char *line, uint64_t *start, uint64_t *end,
		       bool *r, bool *w)
{
	char perms[5];

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", start, end, perms) != 3)
		return false;
	*r = perms[0] == 'r';
	*w = perms[1] == 'w';
	return true;
}

int uroce_mem_check(const void *addr, size_t len, bool write)
{
	uint64_t at = (uintptr_t)addr, end = at + len, s, e;
	char buf[8192], line[512];
	size_t fill = 0, n;
	ssize_t got;
	bool r, w, eof = false;
	int fd;

	if (!len)
		return 0;
	if (end < at)
		return EFAULT;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) { /* no /proc (a bare chroot): as before, unchecked */
		sv_dbg("uroce: /proc/self/maps: %s; the MR's range is not checked",
		       strerror(errno));
		return 0;
	}
	/* the lines are in address order: walk them until the range is
	 * covered, or a hole or a refusing mapping is found */
	while (at < end) {
		char *nl = memchr(buf, '\n', fill);

		if (!nl) {
			if (eof || fill == sizeof(buf))
				break; /* the end, or a line past all reason */
			got = read(fd, buf + fill, sizeof(buf) - fill);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				eof = true;
			else
				fill += (size_t)got;
			continue;
		}
		n = (size_t)(nl - buf);
		/* the fields wanted come first: a long path may be cut */
		memcpy(line, buf, n < sizeof(line) ? n : sizeof(line) - 1);
		line[n < sizeof(line) ? n : sizeof(line) - 1] = '\0';
		memmove(buf, nl + 1, fill - n - 1);
		fill -= n + 1;
		if (!parse_line(line, &s, &e, &r, &w) || e <= at)
			continue;
		if (s > at || !r || (write && !w))
			break; /* a hole before the next mapping, or refused */
		at = e;
	}
	close(fd);
	return at >= end ? 0 : EFAULT;
}
