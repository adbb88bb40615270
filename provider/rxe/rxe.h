/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Soft-RoCE (rdma_rxe) provider: shared declarations. */
#ifndef RXE_H
#define RXE_H

#include <rdma/rdma_user_rxe.h>

#include "provider.h"

#include <stdatomic.h>

/* Bits of QUERY_DEVICE_EX's device_cap_flags_ex that Debian 12's 6.1 uAPI
 * headers lack (enum ib_uverbs_device_cap_flags in the kernel's
 * include/uapi/rdma/ib_user_verbs.h from 6.2 on). rxe sets all three from
 * 6.2 on (rxe_param.h: IB_DEVICE_FLUSH_GLOBAL, _PERSISTENT, ATOMIC_WRITE). */
#define RXE_CAP_FLUSH_GLOBAL (1ULL << 38)
#define RXE_CAP_FLUSH_PERSISTENT (1ULL << 39)
#define RXE_CAP_ATOMIC_WRITE (1ULL << 40)
/* Ours, in the same word: the kernel's rxe takes ODP registrations
 * (odp_caps.general_caps has IBV_ODP_SUPPORT: 7.x built with
 * CONFIG_INFINIBAND_ON_DEMAND_PAGING, rxe.c) */
#define RXE_CAP_ODP (1ULL << 63)

/* One open rxe device. */
struct rxe_context {
	struct sv_context sv; /* first: the core allocates and converts */
	/* what the running kernel's rxe can do (RXE_CAP_*), asked once by
	 * rxe_caps(); 0 until then */
	_Atomic uint64_t caps;
};

static inline struct rxe_context *to_rxe_context(struct ibv_context *ibctx)
{
	return container_of(sv_to_context(ibctx), struct rxe_context, sv);
}

/* The RXE_CAP_* bits of the running kernel's rxe device into *caps, from
 * one QUERY_DEVICE_EX at the first call: 0, or the command's errno
 * (logged; nothing cached, the next call asks again). */
int rxe_caps(struct ibv_context *ctx, uint64_t *caps);

#endif
