/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "env.h"
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
 * may already log); tests and the fuzzer call it again. A privileged
 * process logs to stderr only (lib/env.h). The file is opened without
 * following a symbolic link and, when created, readable by its owner
 * only: a debug log names buffers and device state. */
__attribute__((constructor(101))) void sv_log_init(void)
{
	const char *file;

	if (log_fd != STDERR_FILENO) {
		close(log_fd);
		log_fd = STDERR_FILENO;
	}
	sv_log_level = parse_level(sv_env("SOFTVERBS_LOG"));
	sv_env_report();
	if (sv_log_level == SV_LOG_OFF)
		return;
	file = sv_env_path("SOFTVERBS_LOG_FILE");
	if (file && *file) {
		int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			      0600);
		if (fd >= 0)
			log_fd = fd;
		else
			sv_log_write(SV_LOG_WARN, __func__,
				     "cannot open SOFTVERBS_LOG_FILE %s (%s); logging to stderr",
				     file, strerror(errno));
	}
}

/* Append src escaped to out[*n..cap): newline as \n, backslash as \\,
 * every other control byte and every byte from 0x7f up as \xNN, so that
 * whatever a string holds, it reads back unambiguously and cannot end
 * the line. An escape that does not fit whole is left out; returns false
 * when something was left out. */
static bool append_escaped(char *out, size_t cap, size_t *n, const char *src)
{
	static const char hex[] = "0123456789abcdef";

	for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
		char esc[4];
		size_t len = 1;

		if (*p == '\n') {
			esc[0] = '\\', esc[1] = 'n', len = 2;
		} else if (*p == '\\') {
			esc[0] = '\\', esc[1] = '\\', len = 2;
		} else if (*p < 0x20 || *p >= 0x7f) {
			esc[0] = '\\', esc[1] = 'x', esc[2] = hex[*p >> 4], esc[3] = hex[*p & 15];
			len = 4;
		} else {
			esc[0] = (char)*p;
		}
		if (*n + len > cap)
			return false;
		memcpy(out + *n, esc, len);
		*n += len;
	}
	return true;
}

size_t sv_log_format_line(char *out, size_t cap, enum sv_log_level level,
			  const char *func, const char *msg)
{
	static const char tag[] = "?EWID";
	size_t n, room;
	int len;

	if (cap < 64)
		return 0;
	room = cap - 4; /* "...\n" always fits after what is written */
	len = snprintf(out, room, "softverbs[%d] %c ", (int)getpid(),
		       tag[(unsigned)level <= SV_LOG_DEBUG ? level : 0]);
	n = len > 0 ? (size_t)len : 0;
	if (n >= room)
		n = room - 1;
	if (append_escaped(out, room, &n, func ? func : "?") && n + 2 <= room) {
		memcpy(out + n, ": ", 2);
		n += 2;
		if (append_escaped(out, room, &n, msg ? msg : "")) {
			out[n++] = '\n';
			return n;
		}
	}
	memcpy(out + n, "...\n", 4);
	return n + 4;
}

void sv_log_write(enum sv_log_level level, const char *func, const char *fmt, ...)
{
	char msg[512], line[1024];
	int saved_errno = errno;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		msg[0] = '\0';
	va_end(ap);
	/* One write() per line, so lines from threads and forked children
	 * never interleave; every byte that came from outside escaped, so a
	 * line is always one line. */
	n = sv_log_format_line(line, sizeof(line), level, func, msg);
	if (write(log_fd, line, n) < 0) {
		/* nowhere left to report it */
	}
	errno = saved_errno;
}
