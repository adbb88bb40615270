/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Soft-RoCE (rdma_rxe) provider: shared declarations. */
#ifndef RXE_H
#define RXE_H

#include <rdma/rdma_user_rxe.h>

#include "provider.h"

/* One open rxe device. */
struct rxe_context {
	struct sv_context sv; /* first: the core allocates and converts */
};

static inline struct rxe_context *to_rxe_context(struct ibv_context *ibctx)
{
	return container_of(sv_to_context(ibctx), struct rxe_context, sv);
}

#endif
