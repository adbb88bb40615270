/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/unit/marker_provider.c -- what an attacker would name in
 * RDMAV_DRIVERS: a "provider" whose constructor creates the file
 * SV_MARKER_FILE names. tests/unit/test_secure.sh checks that a
 * privileged program never runs it and an unprivileged one does. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void mark(void)
{
	const char *path = getenv("SV_MARKER_FILE");
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}
