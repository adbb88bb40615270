/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fork API through its public symbols, with the kernel as oracle:
 * /proc/self/smaps shows VmFlags "dc" on MADV_DONTFORK pages, and a
 * forked child touching such a page dies with SIGSEGV. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <softverbs/softverbs.h>

#include "../check_main.h"
#include "fork.h"
#include "pagesize.h"

static size_t pg;

/* 1 if the mapping holding addr is MADV_DONTFORK, 0 if not, -1 if addr
 * is not mapped. */
static int dc_at(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[1024];
	int in = 0, ret = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		uintptr_t s, e;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= s && (uintptr_t)addr < e;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			ret = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* pattern: one '1' (DONTFORK) or '0' per page of base. */
static void expect_dc(const char *base, size_t step, const char *pattern)
{
	for (size_t i = 0; pattern[i]; i++)
		ck_assert_msg(dc_at(base + i * step) == (pattern[i] == '1'),
			      "page %zu: dc %d, expected %c (pattern %s)", i, dc_at(base + i * step),
			      pattern[i], pattern);
}

/* Fork a child that reads addr: its exit signal (SIGSEGV when addr is
 * not in the child), or 0. A read, because a write to a private hugetlb
 * page in the child needs a free huge page for the copy (else SIGBUS). */
/* Report the fault by exit code: a child dying of SIGSEGV would make
 * valgrind print a report for a fault the test wants. */
static void segv_exit(int sig)
{
	_exit(128 + sig);
}

static int child_touch(volatile char *addr)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGSEGV, segv_exit);
		_exit(*addr == 42);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status) > 128 ? WEXITSTATUS(status) - 128 : WEXITSTATUS(status);
}

static char *map_pages(size_t n)
{
	char *p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(p != MAP_FAILED);
	memset(p, 0, n * pg);
	return p;
}

static void no_copy_on_fork(void)
{
	/* Whatever this kernel says, test the madvise path. */
	sv_fork_set_copy_on_fork(0);
}

static void fork_safe_setup(void)
{
	no_copy_on_fork();
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_ENABLED);
}

static void stats(struct softverbs_fork_stats *st)
{
	ck_assert_int_eq(softverbs_fork_stats(st, sizeof(*st)), 0);
}

/* ---- oracles ------------------------------------------------------------ */

START_TEST(test_dc_exact_pages)
{
	char *p = map_pages(8);
	struct softverbs_fork_stats st;

	/* Partial pages at both ends: pages 2..4 are covered. */
	ck_assert_int_eq(ibv_dontfork_range(p + 2 * pg + 100, 2 * pg + 10), 0);
	expect_dc(p, pg, "00111000");
	stats(&st);
	ck_assert_int_eq(st.fork_safe, 1);
	ck_assert_uint_eq(st.live_ranges, 1);
	ck_assert_uint_eq(st.protected_pages, 3);
	ck_assert_int_eq(child_touch(p + 3 * pg), SIGSEGV);
	ck_assert_int_eq(child_touch(p + 1 * pg), 0);
	ck_assert_int_eq(child_touch(p + 5 * pg), 0);

	ck_assert_int_eq(ibv_dofork_range(p + 2 * pg + 100, 2 * pg + 10), 0);
	expect_dc(p, pg, "00000000");
	ck_assert_int_eq(child_touch(p + 3 * pg), 0);
	stats(&st);
	ck_assert_uint_eq(st.live_ranges, 0);
	ck_assert_uint_eq(st.protected_pages, 0);
	munmap(p, 8 * pg);
}
END_TEST

START_TEST(test_overlap_released_at_last)
{
	char *p = map_pages(10);

	ck_assert_int_eq(ibv_dontfork_range(p + pg, 4 * pg), 0);     /* 1..4 */
	ck_assert_int_eq(ibv_dontfork_range(p + pg, 4 * pg), 0);     /* again */
	ck_assert_int_eq(ibv_dontfork_range(p + 3 * pg, 4 * pg), 0); /* 3..6 */
	expect_dc(p, pg, "0111111000");
	ck_assert_int_eq(ibv_dofork_range(p + pg, 4 * pg), 0);
	expect_dc(p, pg, "0111111000");
	ck_assert_int_eq(ibv_dofork_range(p + 3 * pg, 4 * pg), 0);
	expect_dc(p, pg, "0111100000");
	ck_assert_int_eq(child_touch(p + 5 * pg), 0);
	ck_assert_int_eq(child_touch(p + 4 * pg), SIGSEGV);
	ck_assert_int_eq(ibv_dofork_range(p + pg, 4 * pg), 0);
	expect_dc(p, pg, "0000000000");
	ck_assert_int_eq(child_touch(p + 4 * pg), 0);
	munmap(p, 10 * pg);
}
END_TEST

START_TEST(test_noop_and_errors)
{
	char *p = map_pages(4);

	ck_assert_int_eq(ibv_dontfork_range(NULL, 4096), 0);
	ck_assert_int_eq(ibv_dontfork_range(p, 0), 0);
	ck_assert_int_eq(ibv_dofork_range(NULL, 4096), 0);
	ck_assert_int_eq(ibv_dofork_range(p, 0), 0);
	errno = 0;
	ck_assert_int_eq(ibv_dontfork_range((void *)(UINTPTR_MAX - 10), 100), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* Releasing what was never registered: 0 and nothing changes, as
	 * with rdma-core (cleanup code calls it unconditionally). */
	{
		struct softverbs_fork_stats st0, st1;

		stats(&st0);
		ck_assert_int_eq(ibv_dofork_range(p, pg), 0);
		ck_assert_int_eq(ibv_dofork_range(p + pg, 3 * pg), 0);
		stats(&st1);
		ck_assert_uint_eq(st1.live_ranges, 0);
		ck_assert_uint_eq(st1.madvise_calls, st0.madvise_calls);
		expect_dc(p, pg, "0000");
		/* Partly registered is still an error, and changes nothing. */
		ck_assert_int_eq(ibv_dontfork_range(p + pg, pg), 0);
		errno = 0;
		ck_assert_int_eq(ibv_dofork_range(p, 2 * pg), -1);
		ck_assert_int_eq(errno, EINVAL);
		expect_dc(p, pg, "0100");
		/* A range next to a registered one is not registered. */
		ck_assert_int_eq(ibv_dofork_range(p + 2 * pg, pg), 0);
		expect_dc(p, pg, "0100");
		ck_assert_int_eq(ibv_dofork_range(p + pg, pg), 0);
		expect_dc(p, pg, "0000");
	}
	/* An unmapped range: the kernel's ENOMEM, nothing recorded. */
	munmap(p + pg, pg);
	errno = 0;
	ck_assert_int_eq(ibv_dontfork_range(p, 3 * pg), -1);
	ck_assert_int_eq(errno, ENOMEM);
	expect_dc(p, pg, "0");
	expect_dc(p + 2 * pg, pg, "0");
	ck_assert_int_eq(softverbs_fork_stats(NULL, 64), EINVAL);
	{
		struct softverbs_fork_stats st;

		ck_assert_int_eq(softverbs_fork_stats(&st, 8), EINVAL);
		ck_assert_int_eq(softverbs_fork_stats(&st, SOFTVERBS_FORK_STATS_V1_SIZE), 0);
		ck_assert_uint_eq(st.live_ranges, 0);
	}
	munmap(p, 4 * pg);
}
END_TEST

/* Registered, then freed before deregistration: DOFORK restores what is
 * still mapped in one call. */
START_TEST(test_dofork_partly_unmapped)
{
	char *p = map_pages(8);
	struct softverbs_fork_stats st0, st1;

	ck_assert_int_eq(ibv_dontfork_range(p, 8 * pg), 0);
	munmap(p + 2 * pg, 3 * pg);
	stats(&st0);
	ck_assert_int_eq(ibv_dofork_range(p, 8 * pg), 0);
	stats(&st1);
	ck_assert_uint_eq(st1.madvise_calls - st0.madvise_calls, 1);
	expect_dc(p, pg, "00");
	expect_dc(p + 5 * pg, pg, "000");
	ck_assert_int_eq(child_touch(p + 6 * pg), 0);
	ck_assert_uint_eq(st1.live_ranges, 0);
}
END_TEST

/* ---- copy-on-fork kernels: pages registered in part are left alone ---- */

static void cof_setup(void)
{
	/* Whatever this kernel says: test the partial-page rule (the madvise
	 * side of it; the kernel's copy of pinned pages is tested in the VM,
	 * tests/integration/test_fork_*.sh). */
	sv_fork_set_copy_on_fork(1);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
}

/* Fork a child that compares len bytes at addr with want: 0 equal, 1
 * different, SIGSEGV when the page is not in the child. */
static int child_compare(const char *addr, const char *want, size_t len)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGSEGV, segv_exit);
		_exit(memcmp(addr, want, len) != 0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status) > 128 ? WEXITSTATUS(status) - 128 : WEXITSTATUS(status);
}

/* The probe's shape: a string in the first half of a page, 1 KiB
 * registered in the second half; the child reads the string. */
START_TEST(test_cof_subpage_child_keeps_page)
{
	char *p = map_pages(4);
	static const char hello[] = "unregistered bytes on a registered page";
	struct softverbs_fork_stats st;

	strcpy(p + pg, hello);
	ck_assert_int_eq(ibv_dontfork_range(p + pg + pg / 2, 1024), 0);
	expect_dc(p, pg, "0000");
	ck_assert_int_eq(child_compare(p + pg, hello, sizeof(hello)), 0);
	stats(&st);
	ck_assert_int_eq(st.copy_on_fork, 1);
	ck_assert_uint_eq(st.protected_pages, 0);
	ck_assert_uint_eq(st.partial_pages, 1);
	ck_assert_uint_eq(st.tracked_pages, 1);
	/* more than a page: only the whole ones */
	ck_assert_int_eq(ibv_dontfork_range(p + 100, 3 * pg), 0); /* pages 0..3, 1 and 2 whole */
	expect_dc(p, pg, "0110");
	ck_assert_int_eq(child_touch(p + 2 * pg), SIGSEGV);
	ck_assert_int_eq(child_touch(p + 3 * pg), 0);
	ck_assert_int_eq(child_touch(p), 0);
	stats(&st);
	ck_assert_uint_eq(st.protected_pages, 2);
	ck_assert_uint_eq(st.partial_pages, 2);
	ck_assert_int_eq(ibv_dofork_range(p + 100, 3 * pg), 0);
	expect_dc(p, pg, "0000");
	ck_assert_int_eq(child_compare(p + pg, hello, sizeof(hello)), 0);
	ck_assert_int_eq(ibv_dofork_range(p + pg + pg / 2, 1024), 0);
	stats(&st);
	ck_assert_uint_eq(st.live_ranges, 0);
	ck_assert_uint_eq(st.partial_pages, 0);
	munmap(p, 4 * pg);
}
END_TEST

/* Overlapping, adjacent and nested registrations: a page is protected
 * exactly while the union of the live ones covers it, whatever the order
 * of release. */
START_TEST(test_cof_union_and_release_order)
{
	char *p = map_pages(4);

	ck_assert_int_eq(ibv_dontfork_range(p + pg, pg / 2), 0);           /* first half */
	expect_dc(p, pg, "0000");
	ck_assert_int_eq(ibv_dontfork_range(p + pg + pg / 2, pg / 2), 0);  /* adjacent */
	expect_dc(p, pg, "0100");
	ck_assert_int_eq(ibv_dontfork_range(p + pg + 10, 20), 0);          /* nested */
	ck_assert_int_eq(ibv_dontfork_range(p + pg + pg / 4, pg), 0);      /* overlapping, into page 2 */
	expect_dc(p, pg, "0100");
	ck_assert_int_eq(ibv_dofork_range(p + pg, pg / 2), 0);
	expect_dc(p, pg, "0000"); /* [0, pg/4) of page 1 is free again */
	ck_assert_int_eq(child_touch(p + pg), 0);
	ck_assert_int_eq(ibv_dontfork_range(p + pg - 1, pg / 4 + 1), 0);   /* from page 0, fills it */
	expect_dc(p, pg, "0100");
	ck_assert_int_eq(child_touch(p + pg), SIGSEGV);
	ck_assert_int_eq(ibv_dofork_range(p + pg + 10, 20), 0); /* nested: no change */
	expect_dc(p, pg, "0100");
	/* the overlapping one alone held [pg/4, pg/2) of page 1 */
	ck_assert_int_eq(ibv_dofork_range(p + pg + pg / 4, pg), 0);
	expect_dc(p, pg, "0000");
	ck_assert_int_eq(child_touch(p + pg), 0);
	ck_assert_int_eq(ibv_dofork_range(p + pg + pg / 2, pg / 2), 0);
	ck_assert_int_eq(ibv_dofork_range(p + pg - 1, pg / 4 + 1), 0);
	{
		struct softverbs_fork_stats st;

		stats(&st);
		ck_assert_uint_eq(st.live_ranges, 0);
	}
	munmap(p, 4 * pg);
}
END_TEST

/* Registered before ibv_fork_init(): the late call protects the whole
 * pages only. */
START_TEST(test_cof_late_init)
{
	char *p = map_pages(6);

	sv_fork_set_copy_on_fork(1);
	ck_assert_int_eq(ibv_dontfork_range(p + pg + 1, 2 * pg), 0);    /* page 2 whole */
	ck_assert_int_eq(ibv_dontfork_range(p + 4 * pg, 100), 0);       /* part of page 4 */
	ck_assert_int_eq(ibv_dontfork_range(p + 4 * pg + 100, pg - 100), 0); /* the rest */
	expect_dc(p, pg, "000000");
	ck_assert_int_eq(ibv_fork_init(), 0);
	expect_dc(p, pg, "001010");
	ck_assert_int_eq(ibv_dofork_range(p + 4 * pg, 100), 0);
	expect_dc(p, pg, "001000");
}
END_TEST

/* SOFTVERBS_FORK_WHOLE_PAGES: today's rounding even on a copy-on-fork
 * kernel. */
START_TEST(test_cof_whole_pages_env)
{
	char *p = map_pages(4);
	struct softverbs_fork_stats st;

	setenv("SOFTVERBS_FORK_WHOLE_PAGES", "1", 1);
	cof_setup();
	ck_assert_int_eq(ibv_dontfork_range(p + pg + 100, 10), 0);
	expect_dc(p, pg, "0100");
	stats(&st);
	ck_assert_uint_eq(st.protected_pages, 1);
	ck_assert_uint_eq(st.partial_pages, 0);
	ck_assert_int_eq(ibv_dofork_range(p + pg + 100, 10), 0);
	expect_dc(p, pg, "0000");
}
END_TEST

/* A child starts with an empty map (none of the parent's registrations
 * is its own) and fork safety still on. */
START_TEST(test_cof_child_map_empty)
{
	char *p = map_pages(4);
	int status;
	pid_t pid;

	ck_assert_int_eq(ibv_dontfork_range(p, 2 * pg), 0);
	pid = fork();
	if (pid == 0) {
		struct softverbs_fork_stats st;
		char *q = mmap(p, 2 * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		/* the parent's pages are not here; new memory at the same
		 * address is the child's own, and protected afresh */
		if (softverbs_fork_stats(&st, sizeof(st)) || st.live_ranges || !st.fork_safe)
			_exit(1);
		if (q != p || ibv_dontfork_range(q, pg) || dc_at(q) != 1 || ibv_dofork_range(q, pg) ||
		    dc_at(q) != 0)
			_exit(2);
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	ck_assert_int_eq(ibv_dofork_range(p, 2 * pg), 0);
}
END_TEST

/* ---- ibv_fork_init ------------------------------------------------------ */

START_TEST(test_late_init_retroactive)
{
	char *p = map_pages(6);

	no_copy_on_fork();
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
	ck_assert_int_eq(ibv_dontfork_range(p + pg, pg), 0);
	ck_assert_int_eq(ibv_dontfork_range(p + 2 * pg, 2 * pg), 0);
	ck_assert_int_eq(ibv_dontfork_range(p + 2 * pg, pg), 0);
	expect_dc(p, pg, "000000"); /* recorded, not yet protected */
	ck_assert_int_eq(child_touch(p + pg), 0);

	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_ENABLED);
	expect_dc(p, pg, "011100");
	ck_assert_int_eq(child_touch(p + pg), SIGSEGV);
	ck_assert_int_eq(ibv_fork_init(), 0); /* idempotent */

	ck_assert_int_eq(ibv_dofork_range(p + 2 * pg, pg), 0);
	expect_dc(p, pg, "011100");
	ck_assert_int_eq(ibv_dofork_range(p + 2 * pg, 2 * pg), 0);
	expect_dc(p, pg, "010000");
	ck_assert_int_eq(ibv_dofork_range(p + pg, pg), 0);
	expect_dc(p, pg, "000000");
	munmap(p, 6 * pg);
}
END_TEST

/* Late init that fails part way leaves nothing protected. */
static int fail_second(void *addr, size_t len, int advice)
{
	static int calls;

	if (++calls == 4) { /* probe: 2 calls, then the ranges */
		errno = EPERM;
		return -1;
	}
	return madvise(addr, len, advice);
}

START_TEST(test_late_init_rollback)
{
	char *p = map_pages(6);

	no_copy_on_fork();
	ck_assert_int_eq(ibv_dontfork_range(p, pg), 0);
	ck_assert_int_eq(ibv_dontfork_range(p + 2 * pg, pg), 0);
	ck_assert_int_eq(ibv_dontfork_range(p + 4 * pg, pg), 0);
	sv_fork_set_advise(fail_second);
	ck_assert_int_eq(ibv_fork_init(), EPERM);
	sv_fork_set_advise(NULL);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
	expect_dc(p, pg, "000000");
	ck_assert_int_eq(ibv_fork_init(), 0);
	expect_dc(p, pg, "101010");
}
END_TEST

static int always_enosys(void *addr, size_t len, int advice)
{
	(void)addr;
	(void)len;
	(void)advice;
	errno = ENOSYS;
	return -1;
}

START_TEST(test_init_enosys)
{
	no_copy_on_fork();
	sv_fork_set_advise(always_enosys);
	ck_assert_int_eq(ibv_fork_init(), ENOSYS);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
	sv_fork_set_advise(NULL);
}
END_TEST

START_TEST(test_copy_on_fork_unneeded)
{
	struct softverbs_fork_stats st;

	/* A kernel that copies DMA pages at fork: the status says UNNEEDED
	 * whatever happens, but ibv_fork_init() still protects (fork() cost
	 * and what the child sees), like rdma-core 44. */
	sv_fork_set_copy_on_fork(1);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ck_assert_int_eq(ibv_fork_init(), 0);
	stats(&st);
	ck_assert_int_eq(st.fork_safe, 1);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
}
END_TEST

/* The answer from the kernel is asked once: whatever it is, it does not
 * change between calls. */
START_TEST(test_is_fork_initialized_stable)
{
	enum ibv_fork_status a = ibv_is_fork_initialized();

	ck_assert_int_eq(ibv_is_fork_initialized(), a);
	ck_assert(a == IBV_FORK_DISABLED || a == IBV_FORK_UNNEEDED);
}
END_TEST

/* ---- environment, read at library load: run ourselves again ------------- */

static char *self_exe;

/* Run this binary in --env-probe mode with extra environment and the
 * probe's own arguments (NULL-terminated); parse "fork_safe huge_safe"
 * from its output. */
static void run_probe_args(const char *const *env, const char *const *args, int *fork_safe,
			   int *huge_safe)
{
	int fds[2], status;
	char buf[64] = "";
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		unsetenv("RDMAV_FORK_SAFE");
		unsetenv("IBV_FORK_SAFE");
		unsetenv("RDMAV_HUGEPAGES_SAFE");
		for (size_t i = 0; env[i]; i += 2)
			setenv(env[i], env[i + 1], 1);
		dup2(fds[1], STDOUT_FILENO);
		{
			const char *argv[8] = { self_exe, "--env-probe" };

			for (size_t i = 0; args && args[i] && i < 5; i++)
				argv[i + 2] = args[i];
			execv(self_exe, (char *const *)argv);
		}
		_exit(127);
	}
	close(fds[1]);
	ck_assert_int_gt(read(fds[0], buf, sizeof(buf) - 1), 0);
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(sscanf(buf, "%d %d", fork_safe, huge_safe), 2);
}

static void run_probe(const char *const *env, int *fork_safe, int *huge_safe)
{
	run_probe_args(env, NULL, fork_safe, huge_safe);
}

/* --env-probe [VAR VALUE|-VAR] [list|reg]: optionally set (or unset) VAR
 * in main(), then make the first device listing or registration, then
 * print "fork_safe huge_safe". */
static int env_probe(int argc, char **argv)
{
	struct softverbs_fork_stats st;
	int i = 2;

	if (i < argc && argv[i][0] == '-') {
		unsetenv(argv[i] + 1);
		i++;
	} else if (i + 1 < argc && strcmp(argv[i], "list") && strcmp(argv[i], "reg")) {
		setenv(argv[i], argv[i + 1], 1);
		i += 2;
	}
	if (i < argc && !strcmp(argv[i], "list")) {
		ibv_free_device_list(ibv_get_device_list(NULL));
	} else if (i < argc && !strcmp(argv[i], "reg")) {
		static char page[1 << 16] __attribute__((aligned(1 << 16)));

		if (ibv_dontfork_range(page, 100) || ibv_dofork_range(page, 100))
			return 1;
	}
	/* Without a trigger: the environment as it took effect at load. */
	if (softverbs_fork_stats(&st, sizeof(st)))
		return 1;
	printf("%d %d\n", st.fork_safe, st.huge_pages_safe);
	return 0;
}

START_TEST(test_env_vars)
{
	static const struct {
		const char *env[5];
		int fork_safe, huge_safe;
	} cases[] = {
		{ { NULL }, 0, 0 },
		{ { "RDMAV_FORK_SAFE", "1", NULL }, 1, 0 },
		{ { "IBV_FORK_SAFE", "yes", NULL }, 1, 0 },
		{ { "RDMAV_FORK_SAFE", "0", NULL }, 0, 0 },
		{ { "RDMAV_FORK_SAFE", "1", "RDMAV_HUGEPAGES_SAFE", "1", NULL }, 1, 1 },
		{ { "RDMAV_HUGEPAGES_SAFE", "1", NULL }, 0, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fs = -1, hs = -1;

		run_probe(cases[i].env, &fs, &hs);
		ck_assert_msg(fs == cases[i].fork_safe && hs == cases[i].huge_safe,
			      "case %zu: fork_safe %d huge_safe %d", i, fs, hs);
	}
}
END_TEST

/* setenv() in main() before the first verbs call, as rdma-core allows:
 * read again at the first device listing or registration; once on, never
 * off again. */
START_TEST(test_env_set_in_main)
{
	static const struct {
		const char *env[3];
		const char *args[4];
		int fork_safe, huge_safe;
	} cases[] = {
		{ { NULL }, { "RDMAV_FORK_SAFE", "1", "list", NULL }, 1, 0 },
		{ { NULL }, { "IBV_FORK_SAFE", "1", "list", NULL }, 1, 0 },
		{ { NULL }, { "RDMAV_FORK_SAFE", "1", "reg", NULL }, 1, 0 },
		{ { NULL }, { "IBV_FORK_SAFE", "yes", "reg", NULL }, 1, 0 },
		{ { NULL }, { "RDMAV_FORK_SAFE", "0", "list", NULL }, 0, 0 },
		{ { NULL }, { "RDMAV_HUGEPAGES_SAFE", "1", "reg", NULL }, 0, 1 },
		{ { NULL }, { "list", NULL }, 0, 0 },
		/* on at load, unset in main: stays on */
		{ { "RDMAV_FORK_SAFE", "1", NULL }, { "-RDMAV_FORK_SAFE", "list", NULL }, 1, 0 },
		{ { "IBV_FORK_SAFE", "1", NULL }, { "IBV_FORK_SAFE", "0", "reg", NULL }, 1, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fs = -1, hs = -1;

		run_probe_args(cases[i].env, cases[i].args, &fs, &hs);
		ck_assert_msg(fs == cases[i].fork_safe && hs == cases[i].huge_safe,
			      "case %zu: fork_safe %d huge_safe %d", i, fs, hs);
	}
}
END_TEST

/* ---- threads and fork --------------------------------------------------- */

static atomic_int stop;
static atomic_int worker_failures;
static char *shared_buf;

/* Workers must not call Check: a child forked while one of them holds
 * Check's own lock would hang in its first ck_assert. */

static void *reg_worker(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!atomic_load(&stop)) {
		size_t a = (size_t)rand_r(&seed) % 60;
		size_t n = (size_t)rand_r(&seed) % 4 + 1;

		if (ibv_dontfork_range(shared_buf + a * pg, n * pg) ||
		    ibv_dofork_range(shared_buf + a * pg, n * pg))
			atomic_fetch_add(&worker_failures, 1);
	}
	return NULL;
}

/* Under valgrind (make check-valgrind-fork sets SOFTVERBS_TEST_SHORTEN=N)
 * N times fewer forks: every child runs under valgrind too, and the
 * races it looks for are there from the first fork on. */
static int forks(int n)
{
	const char *s = getenv("SOFTVERBS_TEST_SHORTEN");
	long div = s ? strtol(s, NULL, 10) : 1;

	return div > 1 && div < n ? (int)(n / div) : n;
}

START_TEST(test_threads_and_fork)
{
	int nforks = forks(150);

	pthread_t th[4];
	struct softverbs_fork_stats st;

	if (_i)
		setenv("RDMAV_HUGEPAGES_SAFE", "1", 1);
	fork_safe_setup();
	shared_buf = map_pages(64);
	for (uintptr_t i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, reg_worker, (void *)(i + 1)), 0);
	for (int i = 0; i < nforks; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			/* The child can use the library even if a thread held
			 * its lock at the fork. */
			char *q = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (q == MAP_FAILED || ibv_dontfork_range(q, pg) || ibv_dofork_range(q, pg))
				_exit(1);
			_exit(0);
		}
		ck_assert_int_gt(pid, 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d failed", i);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(atomic_load(&worker_failures), 0);
	stats(&st);
	ck_assert_uint_eq(st.live_ranges, 0);
	for (size_t i = 0; i < 64; i++)
		ck_assert_int_eq(dc_at(shared_buf + i * pg), 0);
}
END_TEST

/* ---- huge pages ---------------------------------------------------------- */

#define HUGE_2M (2ul << 20)
static long saved_nr_hugepages = -1;

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int write_long(const char *path, long v)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%ld\n", v) > 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

#define NR_2M "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
#define FREE_2M "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

/* Map len bytes of 2 MiB hugetlb pages, reserving them first; NULL (the
 * test skipped) where this machine cannot. */
static char *map_huge(size_t len, void *at)
{
	long need = (long)(len / HUGE_2M);
	char *h;

	if (read_long(FREE_2M) < need) {
		long nr = read_long(NR_2M);

		if (nr < 0 || write_long(NR_2M, nr + need) || read_long(FREE_2M) < need) {
			check_skip("cannot reserve %ld 2 MiB huge pages (%s)", need,
				   nr < 0 ? "no hugetlbfs support" : "not root or no memory");
			return NULL;
		}
	}
	h = mmap(at, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (at ? MAP_FIXED : 0), -1, 0);
	if (h == MAP_FAILED) {
		check_skip("MAP_HUGETLB failed: %s", strerror(errno));
		return NULL;
	}
	memset(h, 0, len);
	return h;
}

static void huge_setup(void)
{
	saved_nr_hugepages = read_long(NR_2M);
	fork_safe_setup();
}

static void huge_cof_setup(void)
{
	saved_nr_hugepages = read_long(NR_2M);
}

static void huge_teardown(void)
{
	if (saved_nr_hugepages >= 0)
		write_long(NR_2M, saved_nr_hugepages);
}

START_TEST(test_huge_page_size_lookup)
{
	char *h = map_huge(2 * HUGE_2M, NULL);
	char *p = map_pages(2);
	uintptr_t end;

	if (!h)
		return;
	for (int fallback = 0; fallback < 2; fallback++) {
		sv_pagesize_force_fallback(fallback);
		ck_assert_uint_eq(sv_mapping_page_size((uintptr_t)h + 5000, &end), HUGE_2M);
		ck_assert_uint_eq(end, (uintptr_t)h + 2 * HUGE_2M);
		ck_assert_uint_eq(sv_mapping_page_size((uintptr_t)p, NULL), pg);
		munmap(p + pg, pg);
		ck_assert_uint_eq(sv_mapping_page_size((uintptr_t)p + pg, NULL), 0);
	}
	sv_pagesize_force_fallback(0);
}
END_TEST

/* Without RDMAV_HUGEPAGES_SAFE: the kernel refuses to split a hugetlb
 * mapping at 4 KiB, and the library widens instead of failing. */
START_TEST(test_huge_without_env)
{
	char *h = map_huge(2 * HUGE_2M, NULL);

	if (!h)
		return;
	ck_assert_int_eq(ibv_dontfork_range(h + pg, pg), 0);
	ck_assert_int_eq(dc_at(h), 1);
	ck_assert_int_eq(dc_at(h + HUGE_2M - 1), 1);
	ck_assert_int_eq(dc_at(h + HUGE_2M), 0);
	ck_assert_int_eq(child_touch(h + HUGE_2M), 0);
	ck_assert_int_eq(child_touch(h + 5 * pg), SIGSEGV);
	/* A second registration in the same huge page. */
	ck_assert_int_eq(ibv_dontfork_range(h + 7 * pg, 3 * pg), 0);
	ck_assert_int_eq(ibv_dofork_range(h + pg, pg), 0);
	ck_assert_int_eq(dc_at(h), 1);
	ck_assert_int_eq(ibv_dofork_range(h + 7 * pg, 3 * pg), 0);
	ck_assert_int_eq(dc_at(h), 0);
	ck_assert_int_eq(child_touch(h + 5 * pg), 0);
	/* Exactly one huge page (no EINVAL to give it away), then a small
	 * range inside it, released in the other order. */
	ck_assert_int_eq(ibv_dontfork_range(h + HUGE_2M, HUGE_2M), 0);
	ck_assert_int_eq(ibv_dontfork_range(h + HUGE_2M + 3 * pg, pg), 0);
	ck_assert_int_eq(ibv_dofork_range(h + HUGE_2M, HUGE_2M), 0);
	ck_assert_int_eq(dc_at(h + HUGE_2M), 1);
	ck_assert_int_eq(ibv_dofork_range(h + HUGE_2M + 3 * pg, pg), 0);
	ck_assert_int_eq(dc_at(h + HUGE_2M), 0);
	{
		struct softverbs_fork_stats st;

		stats(&st);
		ck_assert_uint_eq(st.live_ranges, 0);
	}
}
END_TEST

/* With RDMAV_HUGEPAGES_SAFE, also across a 4 KiB mapping followed by a
 * hugetlb one: each end is widened to its own mapping's page size. */
START_TEST(test_huge_with_env_spanning)
{
	char *area, *h;
	struct softverbs_fork_stats st;

	setenv("RDMAV_HUGEPAGES_SAFE", "1", 1);
	ck_assert_int_eq(ibv_fork_init(), 0);
	stats(&st);
	ck_assert_int_eq(st.huge_pages_safe, 1);

	/* Reserve 8 MiB, put 4 MiB of huge pages at a 2 MiB boundary inside. */
	area = mmap(NULL, 4 * HUGE_2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(area != MAP_FAILED);
	h = (char *)(((uintptr_t)area + HUGE_2M) & ~(HUGE_2M - 1));
	if (!map_huge(2 * HUGE_2M, h))
		return;
	memset(h - 4 * pg, 0, 4 * pg);

	ck_assert_int_eq(ibv_dontfork_range(h - 2 * pg, 3 * pg), 0);
	ck_assert_int_eq(dc_at(h - 3 * pg), 0);
	ck_assert_int_eq(dc_at(h - 2 * pg), 1);
	ck_assert_int_eq(dc_at(h - pg), 1);
	ck_assert_int_eq(dc_at(h + HUGE_2M - 1), 1);
	ck_assert_int_eq(dc_at(h + HUGE_2M), 0);
	ck_assert_int_eq(child_touch(h - 3 * pg), 0);
	ck_assert_int_eq(child_touch(h + HUGE_2M - 1), SIGSEGV);
	ck_assert_int_eq(ibv_dofork_range(h - 2 * pg, 3 * pg), 0);
	ck_assert_int_eq(dc_at(h - 2 * pg), 0);
	ck_assert_int_eq(dc_at(h), 0);
	stats(&st);
	ck_assert_uint_eq(st.live_ranges, 0);
}
END_TEST

/* A copy-on-fork kernel and huge pages: the same rule at the huge page's
 * size. A huge page registered in part is not DONTFORK (the kernel copies
 * it into the child at fork, which needs a free huge page then); one the
 * registrations cover entirely is. */
START_TEST(test_huge_cof)
{
	char *h;

	sv_fork_set_copy_on_fork(1);
	ck_assert_int_eq(ibv_fork_init(), 0);
	h = map_huge(2 * HUGE_2M, NULL);
	if (!h)
		return;
	strcpy(h + 3, "unregistered");
	ck_assert_int_eq(ibv_dontfork_range(h + pg, 3 * pg), 0);
	ck_assert_int_eq(dc_at(h), 0);
	ck_assert_int_eq(child_compare(h + 3, "unregistered", 13), 0);
	/* the rest of the first huge page, in two ranges: then it is whole */
	ck_assert_int_eq(ibv_dontfork_range(h, pg), 0);
	ck_assert_int_eq(dc_at(h), 0);
	ck_assert_int_eq(ibv_dontfork_range(h + 4 * pg, HUGE_2M - 4 * pg + 10), 0);
	ck_assert_int_eq(dc_at(h), 1);
	ck_assert_int_eq(dc_at(h + HUGE_2M), 0);
	ck_assert_int_eq(child_touch(h + 5), SIGSEGV);
	ck_assert_int_eq(child_touch(h + HUGE_2M), 0);
	/* release in another order */
	ck_assert_int_eq(ibv_dofork_range(h, pg), 0);
	ck_assert_int_eq(dc_at(h), 0);
	ck_assert_int_eq(ibv_dofork_range(h + 4 * pg, HUGE_2M - 4 * pg + 10), 0);
	ck_assert_int_eq(ibv_dofork_range(h + pg, 3 * pg), 0);
	ck_assert_int_eq(dc_at(h), 0);
	{
		struct softverbs_fork_stats st;

		stats(&st);
		ck_assert_uint_eq(st.live_ranges, 0);
	}
}
END_TEST

/* 1 GiB pages where the machine has them. */
#define NR_1G "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"

START_TEST(test_huge_1g)
{
	long saved = read_long(NR_1G);
	size_t gig = 1ul << 30;
	char *h;

	if (saved < 0 || (read_long("/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages") < 1 &&
			  (write_long(NR_1G, saved + 1) ||
			   read_long("/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages") < 1))) {
		check_skip("no free 1 GiB huge page on this machine (needs root and 1 GiB free)");
		if (saved >= 0)
			write_long(NR_1G, saved);
		return;
	}
	h = mmap(NULL, gig, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (30 << MAP_HUGE_SHIFT), -1, 0);
	if (h == MAP_FAILED) {
		check_skip("MAP_HUGE_1GB failed: %s", strerror(errno));
		write_long(NR_1G, saved);
		return;
	}
	h[0] = 1;
	ck_assert_uint_eq(sv_mapping_page_size((uintptr_t)h + 12345, NULL), gig);
	ck_assert_int_eq(ibv_dontfork_range(h + 12345, 100), 0);
	ck_assert_int_eq(dc_at(h + gig - 1), 1);
	ck_assert_int_eq(ibv_dofork_range(h + 12345, 100), 0);
	ck_assert_int_eq(dc_at(h), 0);
	munmap(h, gig);
	write_long(NR_1G, saved);
}
END_TEST

static Suite *make_fork_suite(void)
{
	Suite *s = suite_create("fork");
	TCase *tc;

	tc = tcase_create("oracles");
	tcase_add_checked_fixture(tc, fork_safe_setup, NULL);
	tcase_add_test(tc, test_dc_exact_pages);
	tcase_add_test(tc, test_overlap_released_at_last);
	tcase_add_test(tc, test_noop_and_errors);
	tcase_add_test(tc, test_dofork_partly_unmapped);
	suite_add_tcase(s, tc);

	tc = tcase_create("copy-on-fork");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cof_late_init);
	tcase_add_test(tc, test_cof_whole_pages_env);
	suite_add_tcase(s, tc);
	tc = tcase_create("copy-on-fork, fork safety on");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, cof_setup, NULL);
	tcase_add_test(tc, test_cof_subpage_child_keeps_page);
	tcase_add_test(tc, test_cof_union_and_release_order);
	tcase_add_test(tc, test_cof_child_map_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("init");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_late_init_retroactive);
	tcase_add_test(tc, test_late_init_rollback);
	tcase_add_test(tc, test_init_enosys);
	tcase_add_test(tc, test_copy_on_fork_unneeded);
	tcase_add_test(tc, test_is_fork_initialized_stable);
	tcase_add_test(tc, test_env_vars);
	tcase_add_test(tc, test_env_set_in_main);
	suite_add_tcase(s, tc);

	tc = tcase_create("threads");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_threads_and_fork, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("hugetlb");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, huge_setup, huge_teardown);
	tcase_add_test(tc, test_huge_page_size_lookup);
	tcase_add_test(tc, test_huge_without_env);
	tcase_add_test(tc, test_huge_with_env_spanning);
	tcase_add_test(tc, test_huge_1g);
	suite_add_tcase(s, tc);

	tc = tcase_create("hugetlb, copy-on-fork");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, huge_cof_setup, huge_teardown);
	tcase_add_test(tc, test_huge_cof);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc > 1 && !strcmp(argv[1], "--env-probe"))
		return env_probe(argc, argv);
	self_exe = realpath("/proc/self/exe", NULL);
	pg = (size_t)sysconf(_SC_PAGESIZE);
	ret = check_run(make_fork_suite());
	free(self_exe);
	return ret;
}
