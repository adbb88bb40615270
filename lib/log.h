/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The library's one logging function. Off by default; SOFTVERBS_LOG
 * (error|warn|info|debug, or 1..4) turns it on, SOFTVERBS_LOG_FILE sends
 * it to a file instead of stderr (not in a privileged process: lib/env.h).
 * rdma-core's VERBS_LOG_LEVEL (0..4, the same levels) and VERBS_LOG_FILE
 * do the same when ours are not set; a level alone logs to stderr. %p
 * and %h in the file name are the pid and the host name. Everything a
 * line says is escaped: one call, one line. */
#ifndef SV_LOG_H
#define SV_LOG_H

enum sv_log_level {
	SV_LOG_OFF = 0,
	SV_LOG_ERROR = 1,
	SV_LOG_WARN = 2,
	SV_LOG_INFO = 3,
	SV_LOG_DEBUG = 4,
};

extern int sv_log_level __attribute__((visibility("hidden")));

#include <stddef.h>

void sv_log_init(void);
/* A log file name with %p (the pid), %h (the host name, '/' read as
 * '_') and %% (one %) expanded; any other % stays as written. Writes
 * out[0..cap) and returns the length, or 0 when it does not fit. */
size_t sv_log_expand_path(char *out, size_t cap, const char *tmpl);
/* One log line into out[0..cap): "softverbs[PID] L func: msg\n", func
 * and msg escaped (no byte below 0x20 or from 0x7f up survives, newline
 * reads \n, backslash \\), "...\n" at the end if it had to be cut;
 * returns its length (0 if cap < 64). */
size_t sv_log_format_line(char *out, size_t cap, enum sv_log_level level,
			  const char *func, const char *msg);
void sv_log_write(enum sv_log_level level, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Cheap when off: one load and a branch, arguments not evaluated. */
#define sv_log(level, ...)                                                    \
	do {                                                                  \
		if ((int)(level) <= sv_log_level)                             \
			sv_log_write((level), __func__, __VA_ARGS__);         \
	} while (0)
#define sv_err(...) sv_log(SV_LOG_ERROR, __VA_ARGS__)
#define sv_warn(...) sv_log(SV_LOG_WARN, __VA_ARGS__)
#define sv_info(...) sv_log(SV_LOG_INFO, __VA_ARGS__)
#define sv_dbg(...) sv_log(SV_LOG_DEBUG, __VA_ARGS__)
/* A configuration mistake the user must hear about even with logging
 * off (like rdma-core's "libibverbs: Warning: ..." lines): always
 * written. */
#define sv_complain(...) sv_log_write(SV_LOG_WARN, __func__, __VA_ARGS__)

#endif
