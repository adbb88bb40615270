/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 44's kernel-side data path (IBVERBS_PRIVATE_34): POLL_CQ,
 * POST_SEND, POST_RECV and POST_SRQ_RECV as write commands, for providers
 * whose kernel driver keeps the queues (ipathverbs-style); the work
 * requests are marshalled into the kernel's layouts here. The soft
 * providers only use an empty POST_SEND as a doorbell (lib/cmd_qp.c). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "pabi.h"

_Static_assert(sizeof(struct ibv_sge) == sizeof(struct ib_uverbs_sge) &&
		       offsetof(struct ibv_sge, lkey) ==
			       offsetof(struct ib_uverbs_sge, lkey),
	       "scatter entries go to the kernel as they are");

/* ---- polling ---------------------------------------------------------------- */

/* As many completions as one write can bring back (out_words is 16 bits
 * of 4-byte words); asking for more simply returns at most this many. */
#define POLL_MAX                                                            \
	((UINT16_MAX * 4u - sizeof(struct ib_uverbs_poll_cq_resp)) /        \
	 sizeof(struct ib_uverbs_wc))

/* The number of completions, or -1 with errno (poll_cq's contract). */
SV_EXPORT int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	struct ib_uverbs_poll_cq req;
	struct ib_uverbs_poll_cq_resp *resp;
	size_t resp_len;
	uint32_t i, n;
	int ret;

	if (ne < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((unsigned int)ne > POLL_MAX)
		ne = (int)POLL_MAX;
	resp_len = sizeof(*resp) + (size_t)ne * sizeof(resp->wc[0]);
	resp = calloc(1, resp_len);
	if (!resp)
		return -1;
	memset(&req, 0, sizeof(req));
	req.cq_handle = cq->handle;
	req.ne = (uint32_t)ne;
	ret = sv_cmd_write(cq->context, IB_USER_VERBS_CMD_POLL_CQ, &req,
			   sizeof(req), resp, resp_len, NULL);
	if (ret) {
		free(resp);
		errno = ret;
		return -1;
	}
	n = resp->count < (uint32_t)ne ? resp->count : (uint32_t)ne;
	for (i = 0; i < n; i++) {
		const struct ib_uverbs_wc *k = &resp->wc[i];

		wc[i].wr_id = k->wr_id;
		wc[i].status = (enum ibv_wc_status)k->status;
		wc[i].opcode = (enum ibv_wc_opcode)k->opcode;
		wc[i].vendor_err = k->vendor_err;
		wc[i].byte_len = k->byte_len;
		wc[i].imm_data = k->ex.imm_data;
		wc[i].qp_num = k->qp_num;
		wc[i].src_qp = k->src_qp;
		wc[i].wc_flags = k->wc_flags;
		wc[i].pkey_index = k->pkey_index;
		wc[i].slid = k->slid;
		wc[i].sl = k->sl;
		wc[i].dlid_path_bits = k->dlid_path_bits;
	}
	free(resp);
	return (int)n;
}
PABI_EXPORT_34(ibv_cmd_poll_cq);

/* ---- posting ------------------------------------------------------------------ */

/* The kernel names the first work request it rejected by its 1-based
 * position in the list (0: none, or it failed before looking). */
static void *nth_wr(void *first, uint32_t pos, size_t next_off,
		    uint32_t count)
{
	void *wr = first;

	if (!pos || pos > count)
		return first;
	while (--pos)
		wr = *(void **)((char *)wr + next_off);
	return wr;
}

/* Count a receive list: NULL, or the request with a negative scatter
 * count. */
static struct ibv_recv_wr *count_recv(struct ibv_recv_wr *wr, uint32_t *wrs,
				      uint32_t *sges)
{
	for (*wrs = 0, *sges = 0; wr; wr = wr->next) {
		if (wr->num_sge < 0)
			return wr;
		(*wrs)++;
		*sges += (uint32_t)wr->num_sge;
	}
	return NULL;
}

/* The receive requests in the kernel's layout: wrs, then every sge. */
static void put_recv(const struct ibv_recv_wr *wr,
		     struct ib_uverbs_recv_wr *k, uint32_t wrs)
{
	struct ibv_sge *s = (struct ibv_sge *)(k + wrs);

	for (; wr; wr = wr->next, k++) {
		k->wr_id = wr->wr_id;
		k->num_sge = (uint32_t)wr->num_sge;
		if (wr->num_sge) {
			memcpy(s, wr->sg_list,
			       (size_t)wr->num_sge * sizeof(*s));
			s += wr->num_sge;
		}
	}
}

SV_EXPORT int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr)
{
	struct ib_uverbs_post_send_resp resp = { 0 };
	struct ib_uverbs_post_send *req;
	struct ib_uverbs_send_wr *k;
	struct ibv_send_wr *i;
	struct ibv_sge *s;
	uint32_t wrs = 0, sges = 0;
	size_t req_len;
	int ret;

	for (i = wr; i; i = i->next) {
		/* a UD send names its address handle by the kernel's handle */
		if (i->num_sge < 0 ||
		    (ibqp->qp_type == IBV_QPT_UD && !i->wr.ud.ah)) {
			ret = EINVAL;
			if (bad_wr)
				*bad_wr = i;
			return ret;
		}
		wrs++;
		sges += (uint32_t)i->num_sge;
	}
	req_len = sizeof(*req) + wrs * sizeof(*k) + sges * sizeof(*s);
	req = calloc(1, req_len);
	if (!req) {
		ret = ENOMEM;
		goto out;
	}
	req->qp_handle = ibqp->handle;
	req->wr_count = wrs;
	req->sge_count = sges;
	req->wqe_size = sizeof(*k);

	k = req->send_wr;
	s = (struct ibv_sge *)(k + wrs);
	for (i = wr; i; i = i->next, k++) {
		k->wr_id = i->wr_id;
		k->num_sge = (uint32_t)i->num_sge;
		k->opcode = (uint32_t)i->opcode;
		k->send_flags = i->send_flags;
		/* imm_data and invalidate_rkey share the word in both */
		k->ex.imm_data = i->imm_data;
		if (ibqp->qp_type == IBV_QPT_UD) {
			k->wr.ud.ah = i->wr.ud.ah->handle;
			k->wr.ud.remote_qpn = i->wr.ud.remote_qpn;
			k->wr.ud.remote_qkey = i->wr.ud.remote_qkey;
		} else {
			switch (i->opcode) {
			case IBV_WR_RDMA_WRITE:
			case IBV_WR_RDMA_WRITE_WITH_IMM:
			case IBV_WR_RDMA_READ:
				k->wr.rdma.remote_addr = i->wr.rdma.remote_addr;
				k->wr.rdma.rkey = i->wr.rdma.rkey;
				break;
			case IBV_WR_ATOMIC_CMP_AND_SWP:
			case IBV_WR_ATOMIC_FETCH_AND_ADD:
				k->wr.atomic.remote_addr =
					i->wr.atomic.remote_addr;
				k->wr.atomic.compare_add =
					i->wr.atomic.compare_add;
				k->wr.atomic.swap = i->wr.atomic.swap;
				k->wr.atomic.rkey = i->wr.atomic.rkey;
				break;
			default:
				break;
			}
		}
		if (i->num_sge) {
			memcpy(s, i->sg_list, (size_t)i->num_sge * sizeof(*s));
			s += i->num_sge;
		}
	}
	ret = sv_cmd_write(ibqp->context, IB_USER_VERBS_CMD_POST_SEND, req,
			   req_len, &resp, sizeof(resp), NULL);
	free(req);
out:
	if (bad_wr && (ret || resp.bad_wr))
		*bad_wr = nth_wr(wr, resp.bad_wr,
				 offsetof(struct ibv_send_wr, next), wrs);
	return ret;
}
PABI_EXPORT_34(ibv_cmd_post_send);

/* POST_RECV and POST_SRQ_RECV: the same request after a different
 * handle. */
static int post_recv_cmd(struct ibv_context *ctx, uint32_t command,
			 uint32_t handle, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct ib_uverbs_post_recv_resp resp = { 0 };
	struct ib_uverbs_post_recv *req;
	struct ibv_recv_wr *bad;
	uint32_t wrs, sges;
	size_t req_len;
	int ret;

	_Static_assert(sizeof(struct ib_uverbs_post_recv) ==
				       sizeof(struct ib_uverbs_post_srq_recv) &&
			       offsetof(struct ib_uverbs_post_srq_recv,
					srq_handle) ==
				       offsetof(struct ib_uverbs_post_recv,
						qp_handle),
		       "POST_SRQ_RECV is POST_RECV with an SRQ handle");
	bad = count_recv(wr, &wrs, &sges);
	if (bad) {
		if (bad_wr)
			*bad_wr = bad;
		return EINVAL;
	}
	req_len = sizeof(*req) + wrs * sizeof(req->recv_wr[0]) +
		  sges * sizeof(struct ibv_sge);
	req = calloc(1, req_len);
	if (!req) {
		ret = ENOMEM;
		goto out;
	}
	req->qp_handle = handle;
	req->wr_count = wrs;
	req->sge_count = sges;
	req->wqe_size = sizeof(req->recv_wr[0]);
	put_recv(wr, req->recv_wr, wrs);
	ret = sv_cmd_write(ctx, command, req, req_len, &resp, sizeof(resp),
			   NULL);
	free(req);
out:
	if (bad_wr && (ret || resp.bad_wr))
		*bad_wr = nth_wr(wr, resp.bad_wr,
				 offsetof(struct ibv_recv_wr, next), wrs);
	return ret;
}

SV_EXPORT int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	return post_recv_cmd(ibqp->context, IB_USER_VERBS_CMD_POST_RECV,
			     ibqp->handle, wr, bad_wr);
}
PABI_EXPORT_34(ibv_cmd_post_recv);

SV_EXPORT int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
				    struct ibv_recv_wr **bad_wr)
{
	return post_recv_cmd(srq->context, IB_USER_VERBS_CMD_POST_SRQ_RECV,
			     srq->handle, wr, bad_wr);
}
PABI_EXPORT_34(ibv_cmd_post_srq_recv);
