/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/check_skip.h -- honest skips for Check programs.
 *
 * Check has no skip: a test that returns early passes. A test that cannot
 * run here calls check_skip("what is missing"); the count lives in a
 * shared page, so it survives Check's forked test children, and
 * check_skip_status() turns the runner's result into the program's exit
 * status: 1 when a test failed, else 77 (automake's SKIP) when a test was
 * skipped, else 0. CI runs with zero skips, so a skip there is seen. */
#ifndef SV_TESTS_CHECK_SKIP_H
#define SV_TESTS_CHECK_SKIP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static int *check_skips;

/* Call in main() before srunner_run_all. */
static inline void check_skip_init(void)
{
	void *p = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("check_skip_init: mmap");
		exit(99);
	}
	check_skips = p;
}

/* The current test cannot run here: say why; the caller returns. */
__attribute__((format(printf, 1, 2))) static inline void check_skip(const char *fmt, ...)
{
	va_list ap;

	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	__atomic_add_fetch(check_skips, 1, __ATOMIC_SEQ_CST);
}

/* The program's exit status, from srunner_ntests_failed(). */
static inline int check_skip_status(int failed)
{
	int skipped = __atomic_load_n(check_skips, __ATOMIC_SEQ_CST);

	if (failed)
		return EXIT_FAILURE;
	if (skipped) {
		printf("SKIP: %d test(s) could not run here (see the SKIP lines above)\n", skipped);
		return 77;
	}
	return EXIT_SUCCESS;
}

#endif
