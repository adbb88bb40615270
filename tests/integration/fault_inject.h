/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/integration/fault_inject.h -- fail the nth call of the command
 * layer, madvise or a file mmap (see fault_inject.c). Test builds only. */
#ifndef SV_FAULT_INJECT_H
#define SV_FAULT_INJECT_H

#include <stddef.h>

enum fi_kind { FI_CMD, FI_MADVISE, FI_MMAP, FI_NKINDS };

/* Put the command-layer wrappers on sv_cmd_write_fn / sv_cmd_ioctl_fn. */
void fi_install(void);
/* Fail the nth call of kind from now (once); n = 0 disarms all. */
void fi_arm(enum fi_kind kind, unsigned long n);
/* 1 once the armed call has failed; *where: fi_where at that moment. */
int fi_fired(const char **where);
/* What the caller is doing (a verb's name), for fi_fired. */
extern const char *fi_where;
/* An anonymous mapping that no fault touches. */
void *fi_real_mmap(size_t len);

#endif
