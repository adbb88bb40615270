/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* softverbs' own additions to the verbs API. Programs that include this
 * header and call these functions need softverbs' libibverbs.so.1. */
#ifndef SOFTVERBS_SOFTVERBS_H
#define SOFTVERBS_SOFTVERBS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* State of the fork-safety range map (see ibv_fork_init(3)). */
struct softverbs_fork_stats {
	int fork_safe;            /* 1 once ibv_fork_init() or the env took effect */
	int huge_pages_safe;      /* 1 with RDMAV_HUGEPAGES_SAFE */
	uint64_t live_ranges;     /* disjoint ranges in the map */
	uint64_t protected_pages; /* 4 KiB pages currently MADV_DONTFORK */
	uint64_t madvise_calls;   /* madvise() calls made so far */
	uint64_t madvise_failures;/* of which failed (each rolled back) */
	/* Since 0.1: */
	uint64_t tracked_pages;   /* pages registered, protected or not yet */
	int copy_on_fork;         /* 1: the kernel copies DMA pages at fork */
	uint64_t partial_pages;   /* pages registered only in part: on a
				   * copy-on-fork kernel not MADV_DONTFORK but
				   * copied into a child at fork */
};
/* Callers built against the first version pass this size. */
#define SOFTVERBS_FORK_STATS_V1_SIZE 40

/* Fills *stats (size: sizeof(*stats); a caller built against an older,
 * smaller struct gets the fields it knows). Returns 0, or EINVAL for a
 * NULL pointer or a size below SOFTVERBS_FORK_STATS_V1_SIZE. */
int softverbs_fork_stats(struct softverbs_fork_stats *stats, size_t size);

#ifdef __cplusplus
}
#endif
#endif
