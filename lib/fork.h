/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fork safety inside the core: setup at library load and the seams the
 * unit tests use. MR registration uses sv_fork_range_add/del (core.h). */
#ifndef SV_FORK_H
#define SV_FORK_H

#include <stddef.h>

#include "range_map.h"

/* Exported (IBVERBS_1.1) like rdma-core's, which declares them only in
 * its private driver header: verbs.h does not. 0, or -1 with errno. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* Tests only. */
struct range_map *sv_fork_map(void);
/* Replace madvise (NULL restores it), for the map and ibv_fork_init's probe. */
void sv_fork_set_advise(range_map_advise_fn advise);
/* Pretend the kernel did (1) or did not (0) report copy-on-fork. */
void sv_fork_set_copy_on_fork(int cof);

#endif
