/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A stand-in for an rdma-core provider library, for test_generations:
 * what matters is what it imports from libibverbs.so.1 (IBVERBS_PRIVATE_34
 * symbols, bound by version). Built twice: as a provider of rdma-core 44
 * would be (the old symbols only) and, with -DPABI_FAKE_53, as one of
 * rdma-core 53 or later (it calls ibv_cmd_create_cq_ex2). Never run. */
#include "config.h"

#include <infiniband/verbs.h>

#include "pabi/abi.h"

void *pabi_fake_entry(int which);
void *pabi_fake_entry(int which)
{
	switch (which) {
	case 0:
		return (void *)verbs_register_driver_34;
	case 1:
		return (void *)ibv_cmd_get_context;
#ifdef PABI_FAKE_53
	case 2:
		return (void *)ibv_cmd_create_cq_ex2;
#endif
	default:
		return (void *)ibv_get_device_list;
	}
}
