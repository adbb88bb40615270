/* What only the core sees. Providers include provider.h, never this. */
#ifndef SV_CORE_H
#define SV_CORE_H

#include <stddef.h>

#include "log.h"

#define SV_EXPORT __attribute__((visibility("default")))

/* ---- library load (lib/init.c) ---------------------------------------- */
void sv_init_once(void);

/* ---- fork safety (lib/fork.c), used by MR registration ---------------- */
/* Record [base, base+len) as registered. When fork safety is on, its
 * pages become MADV_DONTFORK before this returns. 0 or -errno; on error
 * nothing changed. */
int sv_fork_range_add(void *base, size_t len);
/* Undo one sv_fork_range_add of the same range: the last holder of a page
 * makes it MADV_DOFORK again. 0 or -errno; on error nothing changed. */
int sv_fork_range_del(void *base, size_t len);

#endif
