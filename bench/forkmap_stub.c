/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* LD_PRELOADed into both libraries' runs of bench/forkmap: madvise does
 * nothing, so only the range maps themselves are compared. */
#include <stddef.h>

int madvise(void *addr, size_t len, int advice);

int madvise(void *addr, size_t len, int advice)
{
	(void)addr;
	(void)len;
	(void)advice;
	return 0;
}
