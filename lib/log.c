/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* VERBS_LOG_LEVEL as rdma-core reads it: strtol(s, NULL, 0), so "0x3"
 * and "010" are numbers too, compared unsigned (a negative number logs
 * everything) and text that is no number is 0 (nothing). Our level
 * names are taken as well. */
static int parse_verbs_level(const char *s)
{
	static const char *const names[] = { "off", "error", "warn", "info", "debug" };
	char *end;
	long n;

	if (!s)
		return SV_LOG_OFF;
	for (int i = 0; i < 5; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	n = strtol(s, &end, 0);
	if (end == s)
		return SV_LOG_OFF;
	if (n < 0 || n > SV_LOG_DEBUG)
		return SV_LOG_DEBUG;
	return (int)n;
}

size_t sv_log_expand_path(char *out, size_t cap, const char *tmpl)
{
	size_t n = 0;

	if (!cap)
		return 0;
	for (const char *p = tmpl; *p; p++) {
		char buf[HOST_NAME_MAX + 2];
		const char *add = buf;
		size_t len;

		if (p[0] != '%' || !p[1]) {
			buf[0] = *p, buf[1] = '\0';
		} else if (p[1] == 'p') {
			snprintf(buf, sizeof(buf), "%d", (int)getpid());
			p++;
		} else if (p[1] == 'h') {
			if (gethostname(buf, sizeof(buf) - 1))
				snprintf(buf, sizeof(buf), "unknown");
			buf[sizeof(buf) - 1] = '\0';
			/* a name, never a folder (a container's UTS name is
			 * its owner's to choose) */
			for (char *c = buf; *c; c++)
				if (*c == '/')
					*c = '_';
			p++;
		} else if (p[1] == '%') {
			add = "%";
			p++;
		} else {
			/* an unknown %x stays as written */
			buf[0] = '%', buf[1] = '\0';
		}
		len = strlen(add);
		if (n + len >= cap) {
			out[0] = '\0';
			return 0;
		}
		memcpy(out + n, add, len);
		n += len;
	}
	out[n] = '\0';
	return n;
}

/* The variable that holds the level, and the one that names the file:
 * ours when set, rdma-core's otherwise. */
static const char *level_var(void)
{
	return sv_env("SOFTVERBS_LOG") ? "SOFTVERBS_LOG" : "VERBS_LOG_LEVEL";
}

static const char *file_var(void)
{
	return sv_env_path("SOFTVERBS_LOG_FILE") ? "SOFTVERBS_LOG_FILE" : "VERBS_LOG_FILE";
}

/* At library load, first of the constructors (fork safety's, in fork.c,
 * may already log); tests and the fuzzer call it again. A privileged
 * process logs to stderr only (lib/env.h). The file is opened without
 * following a symbolic link and, when created, readable by its owner
 * only: a debug log names buffers and device state. Unlike rdma-core,
 * which prints nothing when VERBS_LOG_LEVEL is set without
 * VERBS_LOG_FILE, a level alone logs to stderr. */
__attribute__((constructor(101))) void sv_log_init(void)
{
	const char *lvar = level_var(), *fvar, *file;
	char path[4096];
	int fd;

	if (log_fd != STDERR_FILENO) {
		close(log_fd);
		log_fd = STDERR_FILENO;
	}
	if (!strcmp(lvar, "SOFTVERBS_LOG"))
		sv_log_level = parse_level(sv_env(lvar));
	else
		sv_log_level = parse_verbs_level(sv_env(lvar));
	sv_env_report();
	if (sv_log_level == SV_LOG_OFF)
		return;
	fvar = file_var();
	file = sv_env_path(fvar);
	if (!file || !*file)
		return;
	if (!sv_log_expand_path(path, sizeof(path), file)) {
		sv_log_write(SV_LOG_WARN, __func__, "%s %s is too long once expanded; logging to stderr",
			     fvar, file);
		return;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		log_fd = fd;
	else
		sv_log_write(SV_LOG_WARN, __func__, "cannot open %s %s (%s); logging to stderr",
			     fvar, path, strerror(errno));
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
