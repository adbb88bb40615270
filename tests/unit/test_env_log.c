/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/unit/test_env_log.c -- the environment rule (lib/env.h) and the
 * log's one-call-one-line promise (lib/log.c), white-box: a privileged
 * process is simulated with sv_env_force_secure (the real setuid and
 * file-capability programs are tests/unit/test_secure.sh). */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "../check_main.h"

/* Read everything from fd (a pipe's read end, writer closed). */
static size_t slurp(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return n;
}

/* Run sv_log_init() (and so sv_env_report) with stderr on a pipe, return
 * what it wrote. */
static void init_capturing(char *buf, size_t cap)
{
	int p[2], saved = dup(STDERR_FILENO);

	ck_assert_int_eq(pipe(p), 0);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	sv_log_init();
	dup2(saved, STDERR_FILENO);
	close(saved);
	slurp(p[0], buf, cap);
	close(p[0]);
}

/* ---- escaping: one call, one line ---------------------------------------- */

START_TEST(escapes_every_outside_byte)
{
	char line[1024];
	size_t n = sv_log_format_line(line, sizeof(line), SV_LOG_WARN, "f",
				      "a\nb\\c\r\x1b[31m\x7f\xff\tz");
	const char *body;

	line[n] = '\0';
	body = strstr(line, " f: ");
	ck_assert_ptr_nonnull(body);
	ck_assert_str_eq(body + 4, "a\\nb\\\\c\\x0d\\x1b[31m\\x7f\\xff\\x09z\n");
	ck_assert_ptr_eq(strchr(line, '\n'), line + n - 1);
}
END_TEST

START_TEST(the_forged_second_line_stays_on_the_first)
{
	char line[1024];
	size_t n = sv_log_format_line(line, sizeof(line), SV_LOG_WARN, "read_mode",
				      "SOFTVERBS_PROVIDERS=x\n* * * * * root id is not understood");

	line[n] = '\0';
	ck_assert_ptr_eq(strchr(line, '\n'), line + n - 1);
	ck_assert_ptr_nonnull(strstr(line, "x\\n* * * * * root id"));
}
END_TEST

/* A message of nothing but bytes to escape (4 bytes each) is cut at a
 * whole escape, the line still ends in "...\n" and fits. */
START_TEST(long_lines_are_cut_whole)
{
	char msg[512], line[300];
	size_t n;

	memset(msg, '\n', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	n = sv_log_format_line(line, sizeof(line), SV_LOG_DEBUG, "f", msg);
	ck_assert_uint_le(n, sizeof(line));
	ck_assert_int_eq(memcmp(line + n - 4, "...\n", 4), 0);
	ck_assert_ptr_eq(memchr(line, '\n', n), line + n - 1);
	/* no half escape before the dots: the body is whole "\n" pairs */
	for (size_t i = (size_t)(strstr(line, " f: ") - line) + 4; i < n - 4; i += 2)
		ck_assert(line[i] == '\\' && line[i + 1] == 'n');
	ck_assert_uint_eq(sv_log_format_line(line, 10, SV_LOG_DEBUG, "f", "x"), 0);
}
END_TEST

/* sv_log_write goes through the same formatter: what reaches the file
 * descriptor is one line per call. */
START_TEST(write_is_one_line)
{
	char dir[] = "/tmp/sv_env_log.XXXXXX", path[64], buf[4096];
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log", dir);
	setenv("SOFTVERBS_LOG", "debug", 1);
	setenv("SOFTVERBS_LOG_FILE", path, 1);
	sv_log_init();
	sv_warn("device %s netdev %s", "rxe\n0", "lo\r\nsoftverbs[1] E forged: x");
	sv_warn("second");
	unsetenv("SOFTVERBS_LOG_FILE");
	unsetenv("SOFTVERBS_LOG");
	sv_log_init();
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	slurp(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_ptr_nonnull(strstr(buf, "device rxe\\n0 netdev lo\\x0d\\nsoftverbs[1] E forged: x\n"));
	ck_assert_ptr_eq(strchr(strchr(buf, '\n') + 1, '\n'), buf + strlen(buf) - 1);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- the log file: 0600, no symbolic link followed ------------------------- */

START_TEST(log_file_owner_only_and_no_symlink)
{
	char dir[] = "/tmp/sv_env_log.XXXXXX", path[64], link[64], target[64], out[1024];
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	umask(022);
	setenv("SOFTVERBS_LOG", "warn", 1);
	setenv("SOFTVERBS_LOG_FILE", path, 1);
	sv_log_init();
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);

	ck_assert_int_eq(symlink(target, link), 0);
	setenv("SOFTVERBS_LOG_FILE", link, 1);
	init_capturing(out, sizeof(out));
	ck_assert_int_eq(access(target, F_OK), -1); /* not created through the link */
	ck_assert_ptr_nonnull(strstr(out, "cannot open SOFTVERBS_LOG_FILE"));
	unsetenv("SOFTVERBS_LOG_FILE");
	unsetenv("SOFTVERBS_LOG");
	sv_log_init();
	unlink(link);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- the environment rule ----------------------------------------------- */

START_TEST(privileged_takes_no_path)
{
	char out[1024];

	for (const char *const *v = sv_env_path_names; *v; v++)
		setenv(*v, "/root-owned/x", 1);
	sv_env_force_secure(0);
	for (const char *const *v = sv_env_path_names; *v; v++)
		ck_assert_ptr_nonnull(sv_env_path(*v));
	sv_env_force_secure(1);
	for (const char *const *v = sv_env_path_names; *v; v++)
		ck_assert_msg(sv_env_path(*v) == NULL, "%s taken by a privileged process", *v);
	/* the protecting variables still work */
	setenv("RDMAV_FORK_SAFE", "1", 1);
	ck_assert_str_eq(sv_env("RDMAV_FORK_SAFE"), "1");

	/* one warning line naming every ignored variable that is set */
	init_capturing(out, sizeof(out));
	ck_assert_ptr_eq(strchr(out, '\n'), out + strlen(out) - 1);
	for (const char *const *v = sv_env_path_names; *v; v++)
		ck_assert_msg(strstr(out, *v) != NULL, "warning does not name %s: %s", *v, out);
	ck_assert_ptr_nonnull(strstr(out, "AT_SECURE"));

	/* the sysfs root of a privileged process is /sys */
	sv_sysfs_reset();
	ck_assert_str_eq(sv_sysfs_root(), "/sys");
	/* and the provider choice is the default one */
	setenv("SOFTVERBS_PROVIDERS", "rdma-core", 1);

	/* unprivileged: nothing to say */
	sv_env_force_secure(0);
	init_capturing(out, sizeof(out));
	ck_assert_str_eq(out, "");
	sv_sysfs_reset();
	ck_assert_str_eq(sv_sysfs_root(), "/root-owned/x");
	for (const char *const *v = sv_env_path_names; *v; v++)
		unsetenv(*v);
	sv_env_force_secure(-1);
	sv_sysfs_reset();
	sv_log_init();
}
END_TEST

/* A privileged process with logging on and SOFTVERBS_LOG_FILE set logs
 * to stderr and creates nothing. */
START_TEST(privileged_log_goes_to_stderr)
{
	char dir[] = "/tmp/sv_env_log.XXXXXX", path[64], out[2048];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log", dir);
	setenv("SOFTVERBS_LOG", "debug", 1);
	setenv("SOFTVERBS_LOG_FILE", path, 1);
	sv_env_force_secure(1);
	init_capturing(out, sizeof(out));
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_ptr_nonnull(strstr(out, "ignoring SOFTVERBS_LOG_FILE"));
	sv_env_force_secure(-1);
	unsetenv("SOFTVERBS_LOG_FILE");
	unsetenv("SOFTVERBS_LOG");
	sv_log_init();
	rmdir(dir);
}
END_TEST


/* ---- rdma-core's variables: VERBS_LOG_LEVEL, VERBS_LOG_FILE ---------------- */

static void unset_log_vars(void)
{
	unsetenv("SOFTVERBS_LOG");
	unsetenv("SOFTVERBS_LOG_FILE");
	unsetenv("VERBS_LOG_LEVEL");
	unsetenv("VERBS_LOG_FILE");
}

/* rdma-core's levels (driver.h: NONE 0, ERR 1, WARN 2, INFO 3, DEBUG
 * 4), read with strtol(.., 0) and compared unsigned. */
START_TEST(verbs_log_level_numbers)
{
	static const struct {
		const char *v;
		int level;
	} cases[] = {
		{ "0", SV_LOG_OFF },    { "1", SV_LOG_ERROR },   { "2", SV_LOG_WARN },
		{ "3", SV_LOG_INFO },   { "4", SV_LOG_DEBUG },   { "5", SV_LOG_DEBUG },
		{ "0x3", SV_LOG_INFO }, { "-1", SV_LOG_DEBUG },  { "", SV_LOG_OFF },
		{ "yes", SV_LOG_OFF },  { "warn", SV_LOG_WARN }, { "99999999999999999999", SV_LOG_DEBUG },
	};

	unset_log_vars();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("VERBS_LOG_LEVEL", cases[i].v, 1);
		sv_log_init();
		ck_assert_msg(sv_log_level == cases[i].level, "VERBS_LOG_LEVEL=%s: level %d, expected %d",
			      cases[i].v, sv_log_level, cases[i].level);
	}
	unset_log_vars();
	sv_log_init();
	ck_assert_int_eq(sv_log_level, SV_LOG_OFF);
}
END_TEST

/* Ours win when both are set: the level and the file each. */
START_TEST(softverbs_variables_win)
{
	char dir[] = "/tmp/sv_env_log.XXXXXX", ours[64], theirs[64], buf[1024];
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(ours, sizeof(ours), "%s/ours", dir);
	snprintf(theirs, sizeof(theirs), "%s/theirs", dir);
	unset_log_vars();
	setenv("VERBS_LOG_LEVEL", "4", 1);
	setenv("SOFTVERBS_LOG", "error", 1);
	sv_log_init();
	ck_assert_int_eq(sv_log_level, SV_LOG_ERROR);
	setenv("SOFTVERBS_LOG", "off", 1);
	sv_log_init();
	ck_assert_int_eq(sv_log_level, SV_LOG_OFF);
	unsetenv("SOFTVERBS_LOG");

	/* VERBS_LOG_FILE alone is taken, created 0600 */
	setenv("VERBS_LOG_FILE", theirs, 1);
	sv_log_init();
	sv_warn("to theirs");
	ck_assert_int_eq(access(theirs, F_OK), 0);
	/* both set: SOFTVERBS_LOG_FILE */
	setenv("SOFTVERBS_LOG_FILE", ours, 1);
	sv_log_init();
	sv_warn("to ours");
	unset_log_vars();
	sv_log_init();
	fd = open(ours, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	slurp(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_ptr_nonnull(strstr(buf, "to ours\n"));
	ck_assert_ptr_null(strstr(buf, "to theirs"));
	fd = open(theirs, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	slurp(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_ptr_nonnull(strstr(buf, "to theirs\n"));
	ck_assert_ptr_null(strstr(buf, "to ours"));
	unlink(ours);
	unlink(theirs);
	rmdir(dir);
}
END_TEST

/* A level without a file logs to stderr (rdma-core would print
 * nothing): the documented difference. */
START_TEST(verbs_log_level_alone_is_stderr)
{
	char out[1024];
	int p[2], saved = dup(STDERR_FILENO);

	unset_log_vars();
	setenv("VERBS_LOG_LEVEL", "2", 1);
	sv_log_init();
	ck_assert_int_eq(pipe(p), 0);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	sv_warn("on stderr");
	dup2(saved, STDERR_FILENO);
	close(saved);
	slurp(p[0], out, sizeof(out));
	close(p[0]);
	ck_assert_ptr_nonnull(strstr(out, " W "));
	ck_assert_ptr_nonnull(strstr(out, "on stderr\n"));
	unset_log_vars();
	sv_log_init();
}
END_TEST

START_TEST(file_name_expansion)
{
	char out[256], want[256], host[HOST_NAME_MAX + 1] = "";

	ck_assert_int_eq(gethostname(host, sizeof(host) - 1), 0);
	for (char *c = host; *c; c++)
		if (*c == '/')
			*c = '_';
	snprintf(want, sizeof(want), "/x/log.%s.%d", host, (int)getpid());
	ck_assert_uint_eq(sv_log_expand_path(out, sizeof(out), "/x/log.%h.%p"), strlen(want));
	ck_assert_str_eq(out, want);
	/* %% is one %, an unknown %x and a lone % at the end stay */
	sv_log_expand_path(out, sizeof(out), "/x/100%%-%x-%q%");
	ck_assert_str_eq(out, "/x/100%-%x-%q%");
	snprintf(want, sizeof(want), "%%p=%d", (int)getpid());
	sv_log_expand_path(out, sizeof(out), "%%p=%p");
	ck_assert_str_eq(out, want);
	/* no room: 0, an empty string */
	ck_assert_uint_eq(sv_log_expand_path(out, 8, "/x/log.%p.%p.%p"), 0);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(sv_log_expand_path(out, 4, "abc"), 3);
	ck_assert_uint_eq(sv_log_expand_path(out, 3, "abc"), 0);
}
END_TEST

/* The expanded name is the file opened. */
START_TEST(verbs_log_file_expanded)
{
	char dir[] = "/tmp/sv_env_log.XXXXXX", tmpl[64], path[64];
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(tmpl, sizeof(tmpl), "%s/log.%%p", dir);
	snprintf(path, sizeof(path), "%s/log.%d", dir, (int)getpid());
	unset_log_vars();
	setenv("VERBS_LOG_LEVEL", "4", 1);
	setenv("VERBS_LOG_FILE", tmpl, 1);
	umask(022);
	sv_log_init();
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	unset_log_vars();
	sv_log_init();
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A privileged process ignores VERBS_LOG_FILE too, and says so in the
 * one line. */
START_TEST(privileged_ignores_verbs_log_file)
{
	char dir[] = "/tmp/sv_env_log.XXXXXX", path[64], out[2048];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log", dir);
	unset_log_vars();
	setenv("VERBS_LOG_LEVEL", "4", 1);
	setenv("VERBS_LOG_FILE", path, 1);
	sv_env_force_secure(1);
	ck_assert_ptr_null(sv_env_path("VERBS_LOG_FILE"));
	init_capturing(out, sizeof(out));
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_ptr_nonnull(strstr(out, "ignoring VERBS_LOG_FILE"));
	ck_assert_ptr_eq(strchr(out, '\n'), strstr(out, "ignoring") + strcspn(strstr(out, "ignoring"), "\n"));
	sv_env_force_secure(-1);
	unset_log_vars();
	sv_log_init();
	rmdir(dir);
}
END_TEST

static Suite *make_env_log_suite(void)
{
	Suite *s = suite_create("env_log");
	TCase *tc = tcase_create("escape");

	tcase_add_test(tc, escapes_every_outside_byte);
	tcase_add_test(tc, the_forged_second_line_stays_on_the_first);
	tcase_add_test(tc, long_lines_are_cut_whole);
	tcase_add_test(tc, write_is_one_line);
	tcase_add_test(tc, log_file_owner_only_and_no_symlink);
	suite_add_tcase(s, tc);
	tc = tcase_create("env");
	tcase_add_test(tc, privileged_takes_no_path);
	tcase_add_test(tc, privileged_log_goes_to_stderr);
	tcase_add_test(tc, privileged_ignores_verbs_log_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("rdma-core");
	tcase_add_test(tc, verbs_log_level_numbers);
	tcase_add_test(tc, softverbs_variables_win);
	tcase_add_test(tc, verbs_log_level_alone_is_stderr);
	tcase_add_test(tc, file_name_expansion);
	tcase_add_test(tc, verbs_log_file_expanded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(make_env_log_suite());
}
