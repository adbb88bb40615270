/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An rdma-core provider's ops table (struct verbs_context_ops, what it
 * hands to verbs_set_ops) into the core's (struct sv_context_ops). The
 * tables hold the same verbs in a different order, and the provider's is
 * laid out as its release lays it out: rdma-core inserts every new op in
 * its alphabetical place (59: alloc_dmah, dealloc_dmah, reg_mr_ex; 62:
 * dm_export_dmabuf_fd, query_port_speed; 64: alloc_buf, free_buf; 65: ten
 * completion-counter ops), so slot i of a 62 provider's table is not slot
 * i of a 44 provider's. lib/pabi/abi.h's PABI_CONTEXT_OPS lists every op
 * with the release that added it; a release's table is the list's ops of
 * that release or older, in order. */
#include "config.h"

#include <string.h>

#include "pabi.h"

typedef void (*pabi_slot_fn)(void);

size_t pabi_ops_slots(unsigned int release)
{
	size_t n = 0;

#define COUNT(name, since, ...) n += (since) <= release;
	PABI_CONTEXT_OPS(COUNT, COUNT)
#undef COUNT
	return n;
}

int pabi_ops_slot(unsigned int release, const char *name)
{
	int i = 0;

#define FIND(op, since, ...)                                                  \
	if ((since) <= release) {                                             \
		if (!strcmp(#op, name))                                       \
			return i;                                             \
		i++;                                                          \
	}
	PABI_CONTEXT_OPS(FIND, FIND)
#undef FIND
	return -1;
}

/* Every slot of the provider's table by name into ours; only non-NULL
 * slots are taken. The MR ops take a struct verbs_mr *, which points at
 * its ibv_mr, as ours take the ibv_mr. free_context is not a verb: it
 * goes to the core state. */
void pabi_ops_take(struct sv_context_ops *dst,
		   void (**free_context)(struct ibv_context *),
		   const struct verbs_context_ops *src, unsigned int release)
{
	const char *table = (const char *)src;
	pabi_slot_fn slot;
	size_t i = 0;

#define NEXT(since)                                                           \
	((since) <= release &&                                                \
	 (memcpy(&slot, table + i++ * sizeof(slot), sizeof(slot)), slot))
#define TAKE(name, since, ...)                                                \
	if (NEXT(since))                                                      \
		dst->name = (__typeof__(dst->name))slot;
#define TAKE_FREE(name, since, ...)                                           \
	if (NEXT(since))                                                      \
		*free_context = (void (*)(struct ibv_context *))slot;
	PABI_CONTEXT_OPS(TAKE, TAKE_FREE)
#undef TAKE_FREE
#undef TAKE
#undef NEXT
}
