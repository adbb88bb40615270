/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "log.h"

int sv_log_level = SV_LOG_OFF;
static int log_fd = STDERR_FILENO;

static int parse_level(const char *s)
{
	static const char *const names[] = { "off", "error", "warn", "info", "debug" };

	if (!s || !*s)
		return SV_LOG_OFF;
	for (int i = 0; i < 5; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	if (s[0] >= '0' && s[0] <= '9') {
		/* strtoul, not atoi: a number beyond int is no undefined
		 * behaviour and no negative level (found by
		 * tests/fuzz/fuzz_env) */
		unsigned long n = strtoul(s, NULL, 10);

		return n > SV_LOG_DEBUG ? SV_LOG_DEBUG : (int)n;
	}
	return SV_LOG_DEBUG; /* set to something unknown: be verbose */
}

/* At library load, first of the constructors (fork safety's, in fork.c,
 * may already log); tests and the fuzzer call it again. */
__attribute__((constructor(101))) void sv_log_init(void)
{
	const char *file;

	sv_log_level = parse_level(getenv("SOFTVERBS_LOG"));
	if (sv_log_level == SV_LOG_OFF)
		return;
	file = getenv("SOFTVERBS_LOG_FILE");
	if (file && *file) {
		int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			log_fd = fd;
	}
}

void sv_log_write(enum sv_log_level level, const char *func, const char *fmt, ...)
{
	static const char tag[] = "?EWID";
	char buf[512];
	int saved_errno = errno;
	int n;
	va_list ap;

	/* One write() per line, so lines from threads and forked children
	 * never interleave. */
	n = snprintf(buf, sizeof(buf), "softverbs[%d] %c %s: ", (int)getpid(),
		     tag[level <= SV_LOG_DEBUG ? level : 0], func);
	if (n < 0 || n > (int)sizeof(buf) / 2)
		n = 0;
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(log_fd, buf, (size_t)n) < 0) {
		/* nowhere left to report it */
	}
	errno = saved_errno;
}
