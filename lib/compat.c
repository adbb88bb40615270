/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Kernel-structure converters kept for librdmacm (see compat.h).
 * Field by field: the kernel structures order and size their fields
 * differently from the verbs ones (u32 for enums, qp_cap in the middle),
 * and fields the kernel structure lacks (ibv_qp_attr.rate_limit) are left
 * as the caller had them, as rdma-core does. */
#include "config.h"

#include <string.h>

#include "compat.h"
#include "core.h"

SV_EXPORT void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
					  struct ib_uverbs_ah_attr *src)
{
	sv_ah_attr_from_kern(dst, src);
}

/* qp_state is not copied: librdmacm sets it in dst as the state it asks
 * the kernel to prepare attributes for (rdma_init_qp_attr), and rdma-core
 * leaves it as the caller had it. */
SV_EXPORT void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
					  struct ib_uverbs_qp_attr *src)
{
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;

	dst->cap.max_send_wr = src->max_send_wr;
	dst->cap.max_recv_wr = src->max_recv_wr;
	dst->cap.max_send_sge = src->max_send_sge;
	dst->cap.max_recv_sge = src->max_recv_sge;
	dst->cap.max_inline_data = src->max_inline_data;

	ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
	ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);

	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}

/* The path record keeps its byte order: dlid, slid, flow_label and pkey
 * are big-endian on both sides. */
SV_EXPORT void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
					   struct ib_user_path_rec *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid.raw));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid.raw));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->reversible = src->reversible;
	dst->mtu = src->mtu;
	dst->pkey = src->pkey;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->numb_path = src->numb_path;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}

SV_EXPORT void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
					 struct ibv_sa_path_rec *src)
{
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->reversible = src->reversible;
	dst->mtu = src->mtu;
	dst->pkey = src->pkey;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->numb_path = src->numb_path;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}
