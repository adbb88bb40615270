/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The public verbs: validate, dispatch through the context's ops, keep
 * the core's bookkeeping. PD and MR registration live in lib/mr.c,
 * events in lib/events.c, the verbs IBVERBS_1.15-1.18 added in
 * lib/verbs_1_15.c. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "probe.h"

static inline struct sv_context_ops *ops_of(struct ibv_context *ctx)
{
	return &sv_priv(ctx)->ops;
}

/* A context this library opened (the only kind it can dispatch). */
static int valid_ctx(struct ibv_context *ctx)
{
	return ctx && ctx->abi_compat == __VERBS_ABI_IS_EXTENDED;
}

/* ---- device and port queries -------------------------------------------- */

SV_EXPORT int ibv_query_device(struct ibv_context *context,
			       struct ibv_device_attr *device_attr)
{
	if (!valid_ctx(context) || !device_attr)
		return EINVAL;
	/* orig_attr is the first member of ibv_device_attr_ex: the op fills
	 * only sizeof(*device_attr) bytes */
	return ops_of(context)->query_device_ex(
		context, NULL,
		container_of(device_attr, struct ibv_device_attr_ex, orig_attr),
		sizeof(*device_attr));
}

int sv_query_port(struct ibv_context *ctx, uint8_t port_num,
		  struct ibv_port_attr *attr, size_t attr_len)
{
	union sv_port_attr full;
	int ret;

	if (!valid_ctx(ctx) || !attr)
		return EINVAL;
	/* Programs pass the struct of their verbs.h (rdma-core 44's is 52
	 * bytes, 49's 56, pre-2017 ones less): the provider fills the
	 * newest (or what its own generation knows of it, the rest stays
	 * zero), the caller gets what it has room for. */
	memset(&full, 0, sizeof(full));
	ret = ops_of(ctx)->query_port(ctx, port_num, &full.attr);
	if (ret)
		return ret;
	if (attr_len > sizeof(full)) {
		memset(attr, 0, attr_len);
		attr_len = sizeof(full);
	}
	memcpy(attr, &full, attr_len);
	return 0;
}

#undef ibv_query_port
/* The exported symbol is what pre-2017 binaries call, with the older,
 * shorter struct; newer ones reach sv_query_port through the
 * verbs_context slot with their own size. */
SV_EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port_num,
			     struct _compat_ibv_port_attr *port_attr)
{
	return sv_query_port(context, port_num,
			     (struct ibv_port_attr *)port_attr,
			     SV_COMPAT_PORT_ATTR_SIZE);
}

SV_EXPORT int _ibv_query_gid_ex(struct ibv_context *context,
				uint32_t port_num, uint32_t gid_index,
				struct ibv_gid_entry *entry, uint32_t flags,
				size_t entry_size)
{
	struct ibv_gid_entry e;
	int ret;

	if (!valid_ctx(context) || !entry || flags ||
	    entry_size < sizeof(*entry))
		return EINVAL;
	ret = sv_inherit_check(context, "ibv_query_gid_ex");
	if (ret)
		return ret;
	ret = sv_query_gid_entry(context, port_num, gid_index, &e);
	if (ret)
		return ret;
	memcpy(entry, &e, sizeof(e));
	return 0;
}

SV_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
				       struct ibv_gid_entry *entries,
				       size_t max_entries, uint32_t flags,
				       size_t entry_size)
{
	struct ibv_gid_entry *tmp;
	ssize_t n;

	if (!valid_ctx(context) || (!entries && max_entries) || flags ||
	    entry_size < sizeof(struct ibv_gid_entry))
		return -EINVAL;
	if (sv_inherit_check(context, "ibv_query_gid_table"))
		return -EPERM;
	tmp = calloc(max_entries ? max_entries : 1, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	n = sv_query_gid_table(context, tmp, max_entries);
	/* entries are laid out with the caller's stride */
	for (ssize_t i = 0; i < n; i++)
		memcpy((char *)entries + (size_t)i * entry_size, &tmp[i],
		       sizeof(tmp[i]));
	free(tmp);
	return n;
}

/* Historical contract of ibv_query_gid: 0, or -1 with errno; an empty
 * table entry reads as the zero GID. */
SV_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num,
			    int index, union ibv_gid *gid)
{
	struct ibv_gid_entry e;
	int ret;

	if (!valid_ctx(context) || !gid || index < 0) {
		errno = EINVAL;
		return -1;
	}
	ret = sv_inherit_check(context, "ibv_query_gid");
	if (!ret)
		ret = sv_query_gid_entry(context, port_num, (uint32_t)index, &e);
	if (ret == ENODATA) {
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	memcpy(gid, &e.gid, sizeof(*gid));
	return 0;
}

/* 0 or -1 with errno; the P_Key is read from sysfs like rdma-core does
 * (the uverbs ABI has no P_Key query), or asked of the driver of a
 * device no kernel knows. */
SV_EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num,
			     int index, __be16 *pkey)
{
	struct sv_sysfs_dev *s;
	char file[64], buf[16];
	unsigned int v;
	char tail;
	int n;

	if (!valid_ctx(context) || !pkey || index < 0) {
		errno = EINVAL;
		return -1;
	}
	if (sv_inherit_check(context, "ibv_query_pkey")) {
		errno = EPERM;
		return -1;
	}
	s = sv_device_sysfs(context->device);
	if (s && s->hooks->query_pkey) {
		n = s->hooks->query_pkey(context, port_num, index, pkey);
		if (n) {
			errno = n;
			return -1;
		}
		return 0;
	}
	snprintf(file, sizeof(file), "ports/%u/pkeys/%d", port_num, index);
	n = sv_read_sysfs(context->device->ibdev_path, file, buf, sizeof(buf));
	if (n < 0) {
		errno = -n;
		return -1;
	}
	if (sscanf(buf, "%x%c", &v, &tail) != 1 || v > 0xffff) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htobe16((uint16_t)v);
	return 0;
}

SV_EXPORT int ibv_get_pkey_index(struct ibv_context *context,
				 uint8_t port_num, __be16 pkey)
{
	__be16 v;

	for (int i = 0; !ibv_query_pkey(context, port_num, i, &v); i++)
		if (v == pkey)
			return i;
	return -1;
}

/* ---- protection domains ------------------------------------------------- */

SV_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd;

	if (!valid_ctx(context)) {
		errno = SV_PROBE_ERR("ibv_alloc_pd", EINVAL);
		return NULL;
	}
	pd = ops_of(context)->alloc_pd(context);
	if (pd)
		pd->context = context;
	return pd ? pd : sv_probe_null("ibv_alloc_pd");
}

SV_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (!pd || !valid_ctx(pd->context))
		return SV_PROBE_ERR("ibv_dealloc_pd", EINVAL);
	return sv_probe_ret("ibv_dealloc_pd", ops_of(pd->context)->dealloc_pd(pd));
}

/* ---- completion queues -------------------------------------------------- */

static void channel_ref(struct ibv_comp_channel *ch, int delta)
{
	if (!ch)
		return;
	pthread_mutex_lock(&ch->context->mutex);
	ch->refcnt += delta;
	pthread_mutex_unlock(&ch->context->mutex);
}

static int check_channel(struct ibv_context *ctx,
			 struct ibv_comp_channel *ch, int comp_vector)
{
	if (comp_vector < 0 || comp_vector >= ctx->num_comp_vectors) {
		sv_err("comp_vector %d outside 0..%d", comp_vector,
		       ctx->num_comp_vectors - 1);
		return EINVAL;
	}
	if (ch && ch->context != ctx) {
		sv_err("completion channel belongs to another context");
		return EINVAL;
	}
	return 0;
}

SV_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
				       void *cq_context,
				       struct ibv_comp_channel *channel,
				       int comp_vector)
{
	struct ibv_cq *cq;
	int ret;

	if (!valid_ctx(context) || cqe <= 0) {
		if (context && cqe <= 0)
			sv_err("cqe must be positive, not %d", cqe);
		else
			sv_explain_args("create_cq", "context");
		errno = SV_PROBE_ERR("ibv_create_cq", EINVAL);
		return NULL;
	}
	ret = check_channel(context, channel, comp_vector);
	if (ret) {
		errno = SV_PROBE_ERR("ibv_create_cq", ret);
		return NULL;
	}
	cq = ops_of(context)->create_cq(context, cqe, channel, comp_vector);
	if (!cq) {
		sv_explain_create_cq(context, (uint32_t)cqe, errno);
		return sv_probe_null("ibv_create_cq");
	}
	cq->cq_context = cq_context;
	channel_ref(channel, 1);
	return cq;
}

struct ibv_cq_ex *sv_vctx_create_cq_ex(struct ibv_context *ctx,
				       struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cq;
	int ret;

	if (!valid_ctx(ctx) || !attr) {
		sv_explain_args("create_cq", "context or attr");
		errno = SV_PROBE_ERR("ibv_create_cq_ex", EINVAL);
		return NULL;
	}
	if (attr->cqe == 0 || attr->cqe > INT32_MAX) {
		sv_explain_create_cq(ctx, attr->cqe, EINVAL);
		errno = SV_PROBE_ERR("ibv_create_cq_ex", EINVAL);
		return NULL;
	}
	ret = check_channel(ctx, attr->channel, (int)attr->comp_vector);
	if (ret) {
		errno = SV_PROBE_ERR("ibv_create_cq_ex", ret);
		return NULL;
	}
	cq = ops_of(ctx)->create_cq_ex(ctx, attr);
	if (!cq) {
		sv_explain_create_cq(ctx, attr->cqe, errno);
		return sv_probe_null("ibv_create_cq_ex");
	}
	/* its polling functions live in the object: a forked child's must
	 * refuse (lib/inherit.c) */
	ret = sv_inherit_object_add(ctx, cq, SV_INHERIT_CQ_EX);
	if (ret) {
		ops_of(ctx)->destroy_cq(ibv_cq_ex_to_cq(cq));
		errno = SV_PROBE_ERR("ibv_create_cq_ex", ret);
		return NULL;
	}
	cq->cq_context = attr->cq_context;
	channel_ref(attr->channel, 1);
	return cq;
}

SV_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	if (!cq || !valid_ctx(cq->context) || cqe <= 0)
		return SV_PROBE_ERR("ibv_resize_cq", EINVAL);
	return sv_probe_ret("ibv_resize_cq", ops_of(cq->context)->resize_cq(cq, cqe));
}

SV_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ibv_comp_channel *channel;
	int ret;

	if (!cq || !valid_ctx(cq->context))
		return SV_PROBE_ERR("ibv_destroy_cq", EINVAL);
	channel = cq->channel;
	ret = ops_of(cq->context)->destroy_cq(cq);
	if (!ret) {
		channel_ref(channel, -1);
		sv_inherit_object_del(cq);
	}
	return sv_probe_ret("ibv_destroy_cq", ret);
}

/* ---- shared receive queues ---------------------------------------------- */

SV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					 struct ibv_srq_init_attr *attr)
{
	struct ibv_srq *srq;

	if (!pd || !valid_ctx(pd->context) || !attr) {
		sv_explain_args("create_srq", "pd or attr");
		errno = SV_PROBE_ERR("ibv_create_srq", EINVAL);
		return NULL;
	}
	srq = ops_of(pd->context)->create_srq(pd, attr);
	if (!srq) {
		sv_explain_create_srq(pd->context, &attr->attr, errno);
		return sv_probe_null("ibv_create_srq");
	}
	srq->context = pd->context;
	srq->srq_context = attr->srq_context;
	srq->pd = pd;
	return srq;
}

struct ibv_srq *sv_vctx_create_srq_ex(struct ibv_context *ctx,
				      struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;

	if (!valid_ctx(ctx) || !attr) {
		sv_explain_args("create_srq", "context or attr");
		errno = SV_PROBE_ERR("ibv_create_srq_ex", EINVAL);
		return NULL;
	}
	srq = ops_of(ctx)->create_srq_ex(ctx, attr);
	if (!srq) {
		sv_explain_create_srq(ctx, &attr->attr, errno);
		return sv_probe_null("ibv_create_srq_ex");
	}
	srq->context = ctx;
	srq->srq_context = attr->srq_context;
	return srq;
}

SV_EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			     int attr_mask)
{
	if (!srq || !valid_ctx(srq->context) || !attr ||
	    (attr_mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)))
		return SV_PROBE_ERR("ibv_modify_srq", EINVAL);
	return sv_probe_ret("ibv_modify_srq", ops_of(srq->context)->modify_srq(srq, attr, attr_mask));
}

SV_EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	if (!srq || !valid_ctx(srq->context) || !attr)
		return EINVAL;
	return ops_of(srq->context)->query_srq(srq, attr);
}

SV_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	if (!srq || !valid_ctx(srq->context))
		return SV_PROBE_ERR("ibv_destroy_srq", EINVAL);
	return sv_probe_ret("ibv_destroy_srq", ops_of(srq->context)->destroy_srq(srq));
}

/* ---- queue pairs -------------------------------------------------------- */

/* ibv_create_qp's failure, in the terms of create_qp_ex (cold: its
 * conversion stays off the success path). */
static SV_COLD void explain_create_qp(struct ibv_pd *pd, const struct ibv_qp_init_attr *attr,
				      int err)
{
	struct ibv_qp_init_attr_ex ex = sv_qp_init_attr_ex(pd, attr);

	sv_explain_create_qp(pd->context, &ex, err);
	errno = err;
}

SV_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
				       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp *qp;

	if (!pd || !valid_ctx(pd->context) || !attr) {
		sv_explain_args("create_qp", "pd or attr");
		errno = SV_PROBE_ERR("ibv_create_qp", EINVAL);
		return NULL;
	}
	qp = ops_of(pd->context)->create_qp(pd, attr);
	if (!qp) {
		explain_create_qp(pd, attr, errno);
		return sv_probe_null("ibv_create_qp");
	}
	qp->qp_context = attr->qp_context;
	return qp;
}

struct ibv_qp *sv_vctx_create_qp_ex(struct ibv_context *ctx,
				    struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *qp;

	if (!valid_ctx(ctx) || !attr) {
		sv_explain_args("create_qp", "context or attr");
		errno = SV_PROBE_ERR("ibv_create_qp_ex", EINVAL);
		return NULL;
	}
	qp = ops_of(ctx)->create_qp_ex(ctx, attr);
	if (!qp) {
		sv_explain_create_qp(ctx, attr, errno);
		return sv_probe_null("ibv_create_qp_ex");
	}
	/* its ibv_wr_* functions live in the object: a forked child's must
	 * refuse (lib/inherit.c); the comp_mask at the provider's offset */
	if (sv_qp_comp_mask(sv_priv(ctx)->layout, qp) & SV_QP_EX) {
		int ret = sv_inherit_object_add(ctx, qp, SV_INHERIT_QP_EX);

		if (ret) {
			ops_of(ctx)->destroy_qp(qp);
			errno = SV_PROBE_ERR("ibv_create_qp_ex", ret);
			return NULL;
		}
	}
	qp->qp_context = attr->qp_context;
	return qp;
}

struct ibv_qp *sv_vctx_open_qp(struct ibv_context *ctx,
			       struct ibv_qp_open_attr *attr)
{
	if (!valid_ctx(ctx) || !attr) {
		errno = EINVAL;
		return NULL;
	}
	return ops_of(ctx)->open_qp(ctx, attr);
}

SV_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	int ret;

	if (!qp || !valid_ctx(qp->context) || !attr || !init_attr)
		return SV_PROBE_ERR("ibv_query_qp", EINVAL);
	ret = ops_of(qp->context)->query_qp(qp, attr, attr_mask, init_attr);
	if (!ret && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return sv_probe_ret("ibv_query_qp", ret);
}

SV_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int attr_mask)
{
	int ret;

	if (!qp || !valid_ctx(qp->context) || !attr)
		return SV_PROBE_ERR("ibv_modify_qp", sv_explain_args("modify_qp", "qp or attr"));
	ret = ops_of(qp->context)->modify_qp(qp, attr, attr_mask);
	if (ret) /* a tail call: no frame for it on the way that succeeds */
		return sv_explain_modify_qp(qp, attr, attr_mask, ret);
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

SV_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	int ex, ret;

	if (!qp || !valid_ctx(qp->context))
		return SV_PROBE_ERR("ibv_destroy_qp", EINVAL);
	ex = sv_qp_comp_mask(sv_priv(qp->context)->layout, qp) & SV_QP_EX;
	ret = ops_of(qp->context)->destroy_qp(qp);
	if (!ret && ex)
		sv_inherit_object_del(qp);
	return sv_probe_ret("ibv_destroy_qp", ret);
}

SV_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct sv_qp *sqp;

	if (!qp) {
		errno = EINVAL;
		return NULL;
	}
	/* the ibv_qp_ex starts at the QP in every layout; the provider's
	 * comp_mask says whether it has one (rdma-core 45 moved it) */
	if (!valid_ctx(qp->context) ||
	    !(sv_qp_comp_mask(sv_priv(qp->context)->layout, qp) & SV_QP_EX)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	sqp = sv_to_qp(qp);
	return &sqp->qp_ex;
}

SV_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	if (!qp || !valid_ctx(qp->context) || !ece)
		return EINVAL;
	return ops_of(qp->context)->query_ece(qp, ece);
}

SV_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	if (!qp || !valid_ctx(qp->context) || !ece)
		return EINVAL;
	return ops_of(qp->context)->set_ece(qp, ece);
}

/* flags 0: 1 when the provider promises whole messages in order, else
 * 0 (the default, as rdma-core). IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS
 * (rdma-core 49): the provider's capability bits, whole messages
 * implying 128-byte aligned blocks. Unknown flags: 0. */
#ifndef IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS
#define IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS (1u << 0)
#define IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG (1 << 0)
#define IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES (1 << 1)
#endif
SV_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp,
					 enum ibv_wr_opcode op, uint32_t flags)
{
	int caps;

	if (!qp || !valid_ctx(qp->context))
		return 0;
	/* rdma-core 60 added DEVICE_ONLY: the device's answer whatever the
	 * CPU (rdma-core answers 0 on CPUs other than x86 without it) */
	if (flags & ~(uint32_t)(IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS |
				IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY))
		return 0;
#if !defined(__i386__) && !defined(__x86_64__)
	if (!(flags & IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY))
		return 0;
#endif
	caps = ops_of(qp->context)->query_qp_data_in_order(qp, op, flags);
	if (caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG)
		caps |= IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
	if (flags & IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS)
		return caps;
	return !!(caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG);
}

/* ---- address handles and multicast -------------------------------------- */

SV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
				       struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah;

	if (!pd || !valid_ctx(pd->context) || !attr) {
		errno = SV_PROBE_ERR("ibv_create_ah", EINVAL);
		return NULL;
	}
	ah = ops_of(pd->context)->create_ah(pd, attr);
	if (ah) {
		ah->context = pd->context;
		ah->pd = pd;
	}
	return ah ? ah : sv_probe_null("ibv_create_ah");
}

SV_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	if (!ah || !valid_ctx(ah->context))
		return SV_PROBE_ERR("ibv_destroy_ah", EINVAL);
	return sv_probe_ret("ibv_destroy_ah", ops_of(ah->context)->destroy_ah(ah));
}

SV_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	if (!qp || !valid_ctx(qp->context) || !gid)
		return SV_PROBE_ERR("ibv_attach_mcast", EINVAL);
	return sv_probe_ret("ibv_attach_mcast", ops_of(qp->context)->attach_mcast(qp, gid, lid));
}

SV_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	if (!qp || !valid_ctx(qp->context) || !gid)
		return SV_PROBE_ERR("ibv_detach_mcast", EINVAL);
	return sv_probe_ret("ibv_detach_mcast", ops_of(qp->context)->detach_mcast(qp, gid, lid));
}
