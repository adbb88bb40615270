/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A stand-in for an rdma-core provider library, for test_generations:
 * what matters is what it imports from libibverbs.so.1 (provider-ABI
 * symbols, bound by version). Built once per node, PABI_FAKE_NODE =
 * 34, 57, 59, 64 or 65: its imports are bound to IBVERBS_PRIVATE_<node>
 * as an rdma-core of that node would bind them (the .symver references
 * below), and with -DPABI_FAKE_NEWER it also calls the function its node
 * gained later (rdma-core 53's ibv_cmd_create_cq_ex2 under _34, 62's
 * ibv_cmd_query_port_speed under _59). Never run. */
#include "config.h"

#include <infiniband/verbs.h>

#include "pabi/abi.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define NODE_NAME "IBVERBS_PRIVATE_" STR(PABI_FAKE_NODE)
#define REGISTER_(n) verbs_register_driver_##n
#define REGISTER(n) REGISTER_(n)
#define IMPORT(sym) __asm__(".symver " #sym ", " #sym "@" NODE_NAME)

IMPORT(ibv_cmd_get_context);
#if PABI_FAKE_NODE == 34 && defined(PABI_FAKE_NEWER)
IMPORT(ibv_cmd_create_cq_ex2);
#elif PABI_FAKE_NODE == 59 && defined(PABI_FAKE_NEWER)
IMPORT(ibv_cmd_query_port_speed);
#endif

void *pabi_fake_entry(int which);
void *pabi_fake_entry(int which)
{
	switch (which) {
	case 0:
		return (void *)REGISTER(PABI_FAKE_NODE);
	case 1:
		return (void *)ibv_cmd_get_context;
#if PABI_FAKE_NODE == 34 && defined(PABI_FAKE_NEWER)
	case 2:
		return (void *)ibv_cmd_create_cq_ex2;
#elif PABI_FAKE_NODE == 59 && defined(PABI_FAKE_NEWER)
	case 2:
		return (void *)ibv_cmd_query_port_speed;
#endif
	default:
		return (void *)ibv_get_device_list;
	}
}
