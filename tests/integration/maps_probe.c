/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An LD_PRELOAD probe for the integration tests: when a process that
 * loaded a libibverbs exits normally, the lines of its /proc/self/maps
 * that name a verbs library (libibverbs, rdma-core providers) are written
 * to $SV_MAPS_DIR/maps.<pid>, so that a test can check afterwards which
 * libraries really served it (tests/integration/lib.sh: sv_maps_check).
 * Processes without a libibverbs (exec'd helpers) write nothing. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int wanted(const char *line)
{
	return strstr(line, "/libibverbs.so") || strstr(line, "-rdmav") ||
	       strstr(line, "/libmlx5.so") || strstr(line, "/libmlx4.so") ||
	       strstr(line, "/libefa.so") || strstr(line, "/libmana.so");
}

__attribute__((destructor)) static void write_maps(void)
{
	const char *dir = getenv("SV_MAPS_DIR");
	char path[4096], line[4096];
	int has_verbs = 0, fd;
	FILE *in, *out;

	if (!dir || !*dir)
		return;
	in = fopen("/proc/self/maps", "re");
	if (!in)
		return;
	snprintf(path, sizeof(path), "%s/maps.%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		if (fd >= 0)
			close(fd);
		fclose(in);
		return;
	}
	fprintf(out, "exe %s\n", realpath("/proc/self/exe", line) ? line : "?");
	while (fgets(line, sizeof(line), in)) {
		if (!wanted(line))
			continue;
		has_verbs |= strstr(line, "/libibverbs.so") != NULL;
		fputs(line, out);
	}
	fclose(in);
	fclose(out);
	if (!has_verbs)
		unlink(path);
}
