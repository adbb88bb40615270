/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* siw shared receive queues: one mapped array of struct siw_rqe, filled
 * exactly like a QP's receive queue. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "siw.h"

struct ibv_srq *siw_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct siw_uresp_create_srq resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct siw_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_srq(pd, &srq->core.srq, attr, &udata);
	if (ret) {
		sv_err("CREATE_SRQ (%u WRs, %u SGEs) failed: %s",
		       attr->attr.max_wr, attr->attr.max_sge, strerror(ret));
		goto err_free;
	}
	ret = siw_wq_map(&srq->rq, pd->context->cmd_fd, resp.srq_key,
			 resp.num_rqe, sizeof(struct siw_rqe),
			 attr->attr.max_sge);
	if (ret)
		goto err_destroy;
	srq->rq.probe_dev = pd->context->device->name; /* qpn 0: an SRQ's */
	return &srq->core.srq;

err_destroy:
	sv_cmd_destroy_srq(&srq->core.srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

int siw_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		   int attr_mask)
{
	/* siw cannot resize its array; it arms the limit only */
	if (attr_mask & IBV_SRQ_MAX_WR) {
		sv_err("siw cannot resize an SRQ");
		return EOPNOTSUPP;
	}
	return sv_cmd_modify_srq(srq, attr, attr_mask, NULL);
}

int siw_destroy_srq(struct ibv_srq *ibsrq)
{
	struct siw_srq *srq = to_siw_srq(ibsrq);
	int ret;

	ret = sv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	siw_wq_unmap(&srq->rq);
	free(srq);
	return 0;
}

int siw_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	return siw_wq_post_recv(&to_siw_srq(ibsrq)->rq, wr, bad_wr);
}
