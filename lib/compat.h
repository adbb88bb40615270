/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The historical kernel-structure converters (rdma-core's
 * <infiniband/marshall.h>, which Debian's libibverbs-dev does not ship).
 * librdmacm calls them to turn what the rdma_ucm device returns into
 * verbs structures. */
#ifndef SV_COMPAT_H
#define SV_COMPAT_H

#include <infiniband/sa.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>

void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src);

#endif
