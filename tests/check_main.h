/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/check_main.h -- the one runner of every Check program (unit and
 * integration): runs the suite (fork mode, CK_RUN_SUITE / CK_RUN_CASE
 * honoured), and turns the result into the program's exit status with
 * the honest skips of check_skip.h: 1 when a test failed, 77 when a test
 * could not run here, else 0. */
#ifndef SV_TESTS_CHECK_MAIN_H
#define SV_TESTS_CHECK_MAIN_H

#include <check.h>

#include "check_skip.h"

static inline int check_run(Suite *suite)
{
	SRunner *sr;
	int failed;

	check_skip_init();
	sr = srunner_create(suite);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return check_skip_status(failed);
}

#endif
