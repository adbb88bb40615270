/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The page size backing a mapping (hugetlbfs: 2 MiB or 1 GiB; anything
 * else, transparent huge pages included: the base page), found without
 * parsing all of /proc/self/smaps. */
#ifndef SV_PAGESIZE_H
#define SV_PAGESIZE_H

#include <stddef.h>
#include <stdint.h>

/* Page size in bytes of the mapping containing addr; *vma_end (if not
 * NULL) gets the end of that mapping. 0 when addr is not mapped or the
 * kernel cannot tell. */
size_t sv_mapping_page_size(uintptr_t addr, uintptr_t *vma_end);

/* Tests: 1 = skip the PROCMAP_QUERY ioctl and use the /proc/self/maps
 * fallback. Returns the previous setting. */
int sv_pagesize_force_fallback(int on);

/* pthread_atfork hooks: the cached /proc/self/maps descriptor describes
 * the parent's address space, so the child must reopen it. */
void sv_pagesize_fork_prepare(void);
void sv_pagesize_fork_parent(void);
void sv_pagesize_fork_child(void);

#endif
