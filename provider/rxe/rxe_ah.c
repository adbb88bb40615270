/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rxe address handles. Since Linux 5.10 rdma_rxe keeps the address vector
 * itself and answers CREATE_AH with an index (struct rxe_create_ah_resp);
 * UD WQEs name the destination by that index. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe_dp.h"

struct ibv_ah *rxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rxe_create_ah_resp resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct rxe_ah *ah;
	int ret;

	if (!attr->is_global) {
		/* RoCE has no LIDs: the GRH is the address */
		sv_err("an rxe address handle needs is_global and a GRH");
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_ah(pd, &ah->ah, attr, &udata);
	if (ret) {
		sv_err("CREATE_AH (port %u, sgid index %u) failed: %s",
		       attr->port_num, attr->grh.sgid_index, strerror(ret));
		goto err_free;
	}
	/* Index 0 is never handed out; a kernel that leaves it there is one
	 * that wants the whole address vector in every WQE (before 5.10),
	 * which this provider does not speak. */
	if (!resp.ah_num) {
		sv_err("the kernel's rdma_rxe returned no AH index (Linux < 5.10?)");
		ret = EOPNOTSUPP;
		goto err_destroy;
	}
	ah->ah_num = resp.ah_num;
	return &ah->ah;

err_destroy:
	sv_cmd_destroy_ah(&ah->ah);
err_free:
	free(ah);
	errno = ret;
	return NULL;
}

int rxe_destroy_ah(struct ibv_ah *ibah)
{
	int ret = sv_cmd_destroy_ah(ibah);

	if (ret)
		return ret;
	free(to_rxe_ah(ibah));
	return 0;
}
