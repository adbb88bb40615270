/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Errors that name their cause, the core's verbs (lib/explain.h): after
 * create_cq, create_qp, create_srq, modify_qp or reg_mr failed with
 * EINVAL, ENOMEM or EOPNOTSUPP (ours or the kernel's), look at what was
 * asked against what the device says it has, and say the first thing
 * that does not fit in one warning line, lower-case verb first. When
 * nothing is found, the line says the errno and what was asked. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/siw-abi.h>

#include "core.h"
#include "explain.h"
#include "probe.h"

/* The kernel's rxe takes at most RXE_MAX_INLINE_DATA inline bytes
 * (rxe_param.h: the room of RXE_MAX_SGE = 32 SGEs of 16 bytes); siw
 * SIW_MAX_INLINE (siw-abi.h). rdma-core's providers: not known. */
#define RXE_KERNEL_MAX_INLINE (32u * 16u)

static const char *err_name(int err)
{
	switch (err) {
	case EINVAL:
		return "EINVAL";
	case ENOMEM:
		return "ENOMEM";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EAGAIN:
		return "EAGAIN";
	default:
		return "?";
	}
}

static int explained(int err)
{
	return sv_log_level >= SV_LOG_WARN &&
	       (err == EINVAL || err == ENOMEM || err == EOPNOTSUPP);
}

#define say(verb, ...) sv_log_write(SV_LOG_WARN, verb, __VA_ARGS__)

int sv_explain_args(const char *verb, const char *what)
{
	if (sv_log_level >= SV_LOG_WARN)
		say(verb, "EINVAL: NULL or foreign %s (not made by this library)", what);
	return EINVAL;
}

/* ---- the device's attributes, queried once per context ------------------- */

/* NULL when the device cannot be asked. */
static const struct ibv_device_attr_ex *dev_attr(struct ibv_context *ctx)
{
	struct verbs_ex_private *priv = sv_priv(ctx);
	struct ibv_device_attr_ex *a, *none = NULL;
	int saved_errno = errno; /* the verb's, which its caller returns */

	a = __atomic_load_n(&priv->explain_attr, __ATOMIC_ACQUIRE);
	if (a)
		return a;
	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = saved_errno;
		return NULL;
	}
	if (priv->ops.query_device_ex(ctx, NULL, a, sizeof(*a))) {
		free(a);
		errno = saved_errno;
		return NULL;
	}
	errno = saved_errno;
	/* two threads failing at once: one copy stays */
	if (!__atomic_compare_exchange_n(&priv->explain_attr, &none, a, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		free(a);
		return none;
	}
	return a;
}

void sv_explain_forget(struct ibv_context *ctx)
{
	struct verbs_ex_private *priv = sv_priv(ctx);

	free(priv->explain_attr);
	priv->explain_attr = NULL;
}

/* The inline bytes the device's QPs take, or 0 when not known. */
static uint32_t max_inline_of(struct ibv_context *ctx)
{
	if (sv_priv(ctx)->max_inline_data)
		return sv_priv(ctx)->max_inline_data;
	switch (sv_priv(ctx)->driver_id) {
	case RDMA_DRIVER_RXE:
		return RXE_KERNEL_MAX_INLINE;
	case RDMA_DRIVER_SIW:
		return (uint32_t)SIW_MAX_INLINE;
	default:
		return 0;
	}
}

/* ---- create_cq, create_srq ------------------------------------------------ */

void sv_explain_create_cq(struct ibv_context *ctx, uint32_t cqe, int err)
{
	const struct ibv_device_attr_ex *a;

	if (!explained(err))
		return;
	a = dev_attr(ctx);
	if (a && cqe > (uint32_t)a->orig_attr.max_cqe) {
		say("create_cq", "cqe %u > device max_cqe %d", cqe, a->orig_attr.max_cqe);
		return;
	}
	say("create_cq", "%s for cqe %u (device max_cqe %d, max_cq %d)", err_name(err), cqe,
	    a ? a->orig_attr.max_cqe : -1, a ? a->orig_attr.max_cq : -1);
}

void sv_explain_create_srq(struct ibv_context *ctx, const struct ibv_srq_attr *attr, int err)
{
	const struct ibv_device_attr_ex *a;

	if (!explained(err))
		return;
	a = dev_attr(ctx);
	if (a && attr->max_wr > (uint32_t)a->orig_attr.max_srq_wr) {
		say("create_srq", "max_wr %u > device max_srq_wr %d", attr->max_wr,
		    a->orig_attr.max_srq_wr);
		return;
	}
	if (a && attr->max_sge > (uint32_t)a->orig_attr.max_srq_sge) {
		say("create_srq", "max_sge %u > device max_srq_sge %d", attr->max_sge,
		    a->orig_attr.max_srq_sge);
		return;
	}
	if (a && err == EINVAL && a->orig_attr.max_srq == 0) {
		say("create_srq", "the device has no SRQs (max_srq 0)");
		return;
	}
	say("create_srq", "%s for max_wr %u, max_sge %u, srq_limit %u", err_name(err),
	    attr->max_wr, attr->max_sge, attr->srq_limit);
}

/* ---- create_qp ------------------------------------------------------------- */

void sv_explain_create_qp(struct ibv_context *ctx, const struct ibv_qp_init_attr_ex *attr,
			  int err)
{
	const struct ibv_qp_cap *c = &attr->cap;
	const struct ibv_device_attr_ex *a;
	uint32_t max_inline;

	if (!explained(err))
		return;
	a = dev_attr(ctx);
	if (a) {
		const struct ibv_device_attr *d = &a->orig_attr;

		if (c->max_send_wr > (uint32_t)d->max_qp_wr) {
			say("create_qp", "max_send_wr %u > device max_qp_wr %d", c->max_send_wr,
			    d->max_qp_wr);
			return;
		}
		if (!attr->srq && c->max_recv_wr > (uint32_t)d->max_qp_wr) {
			say("create_qp", "max_recv_wr %u > device max_qp_wr %d", c->max_recv_wr,
			    d->max_qp_wr);
			return;
		}
		if (c->max_send_sge > (uint32_t)d->max_sge) {
			say("create_qp", "max_send_sge %u > device max_sge %d", c->max_send_sge,
			    d->max_sge);
			return;
		}
		if (!attr->srq && c->max_recv_sge > (uint32_t)d->max_sge) {
			say("create_qp", "max_recv_sge %u > device max_sge %d", c->max_recv_sge,
			    d->max_sge);
			return;
		}
	}
	max_inline = max_inline_of(ctx);
	if (max_inline && c->max_inline_data > max_inline) {
		say("create_qp", "max_inline_data %u > device limit %u", c->max_inline_data,
		    max_inline);
		return;
	}
	if (!attr->send_cq || (!attr->recv_cq && attr->qp_type != IBV_QPT_XRC_SEND)) {
		say("create_qp", "%s: a %s QP needs send_cq and recv_cq", err_name(err),
		    sv_qp_type_name(attr->qp_type));
		return;
	}
	say("create_qp", "%s for a %s QP: max_send_wr %u, max_recv_wr %u, max_send_sge %u, max_recv_sge %u, max_inline_data %u, comp_mask %#x%s",
	    err_name(err), sv_qp_type_name(attr->qp_type), c->max_send_wr, c->max_recv_wr,
	    c->max_send_sge, c->max_recv_sge, c->max_inline_data, attr->comp_mask,
	    err == EOPNOTSUPP ? " (not supported by this device's provider)" : "");
}

/* ---- modify_qp ------------------------------------------------------------- */

/* What each transition needs and allows (IBTA vol. 1, 11.2.5.2,
 * "QP State Transition Properties"; the kernel's ib_modify_qp_is_ok
 * applies the same table), for UD, UC and RC. */
enum { T_UD, T_UC, T_RC, T_N };
struct transition {
	unsigned char from, to;
	int req[T_N], opt[T_N];
};

#define M(x) IBV_QP_##x
static const struct transition transitions[] = {
	{ IBV_QPS_RESET, IBV_QPS_INIT,
	  { M(PKEY_INDEX) | M(PORT) | M(QKEY), M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
	    M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS) },
	  { 0, 0, 0 } },
	{ IBV_QPS_INIT, IBV_QPS_INIT,
	  { 0, 0, 0 },
	  { M(PKEY_INDEX) | M(PORT) | M(QKEY), M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
	    M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS) } },
	{ IBV_QPS_INIT, IBV_QPS_RTR,
	  { 0, M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN),
	    M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) | M(MAX_DEST_RD_ATOMIC) |
		    M(MIN_RNR_TIMER) },
	  { M(PKEY_INDEX) | M(QKEY), M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX),
	    M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX) } },
	{ IBV_QPS_RTR, IBV_QPS_RTS,
	  { M(SQ_PSN), M(SQ_PSN),
	    M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) | M(SQ_PSN) | M(MAX_QP_RD_ATOMIC) },
	  { M(CUR_STATE) | M(QKEY),
	    M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(PATH_MIG_STATE),
	    M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |
		    M(PATH_MIG_STATE) } },
	{ IBV_QPS_RTS, IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { M(CUR_STATE) | M(QKEY),
	    M(CUR_STATE) | M(ACCESS_FLAGS) | M(ALT_PATH) | M(PATH_MIG_STATE),
	    M(CUR_STATE) | M(ACCESS_FLAGS) | M(ALT_PATH) | M(PATH_MIG_STATE) |
		    M(MIN_RNR_TIMER) } },
	{ IBV_QPS_RTS, IBV_QPS_SQD,
	  { 0, 0, 0 },
	  { M(EN_SQD_ASYNC_NOTIFY), M(EN_SQD_ASYNC_NOTIFY), M(EN_SQD_ASYNC_NOTIFY) } },
	{ IBV_QPS_SQD, IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { M(CUR_STATE) | M(QKEY),
	    M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(PATH_MIG_STATE),
	    M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |
		    M(PATH_MIG_STATE) } },
	{ IBV_QPS_SQD, IBV_QPS_SQD,
	  { 0, 0, 0 },
	  { M(PKEY_INDEX) | M(QKEY),
	    M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX) | M(PATH_MIG_STATE),
	    M(PORT) | M(AV) | M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
		    M(MAX_QP_RD_ATOMIC) | M(MAX_DEST_RD_ATOMIC) | M(ALT_PATH) |
		    M(ACCESS_FLAGS) | M(PKEY_INDEX) | M(MIN_RNR_TIMER) |
		    M(PATH_MIG_STATE) } },
	{ IBV_QPS_SQE, IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { M(CUR_STATE) | M(QKEY), M(CUR_STATE) | M(ACCESS_FLAGS), 0 } },
};

static const struct {
	int bit;
	const char *name;
} mask_names[] = {
	{ M(STATE), "IBV_QP_STATE" },
	{ M(CUR_STATE), "IBV_QP_CUR_STATE" },
	{ M(EN_SQD_ASYNC_NOTIFY), "IBV_QP_EN_SQD_ASYNC_NOTIFY" },
	{ M(ACCESS_FLAGS), "IBV_QP_ACCESS_FLAGS" },
	{ M(PKEY_INDEX), "IBV_QP_PKEY_INDEX" },
	{ M(PORT), "IBV_QP_PORT" },
	{ M(QKEY), "IBV_QP_QKEY" },
	{ M(AV), "IBV_QP_AV" },
	{ M(PATH_MTU), "IBV_QP_PATH_MTU" },
	{ M(TIMEOUT), "IBV_QP_TIMEOUT" },
	{ M(RETRY_CNT), "IBV_QP_RETRY_CNT" },
	{ M(RNR_RETRY), "IBV_QP_RNR_RETRY" },
	{ M(RQ_PSN), "IBV_QP_RQ_PSN" },
	{ M(MAX_QP_RD_ATOMIC), "IBV_QP_MAX_QP_RD_ATOMIC" },
	{ M(ALT_PATH), "IBV_QP_ALT_PATH" },
	{ M(MIN_RNR_TIMER), "IBV_QP_MIN_RNR_TIMER" },
	{ M(SQ_PSN), "IBV_QP_SQ_PSN" },
	{ M(MAX_DEST_RD_ATOMIC), "IBV_QP_MAX_DEST_RD_ATOMIC" },
	{ M(PATH_MIG_STATE), "IBV_QP_PATH_MIG_STATE" },
	{ M(CAP), "IBV_QP_CAP" },
	{ M(DEST_QPN), "IBV_QP_DEST_QPN" },
	{ M(RATE_LIMIT), "IBV_QP_RATE_LIMIT" },
};
#undef M

/* "IBV_QP_A, IBV_QP_B" into out. */
static const char *mask_list(char *out, size_t cap, int mask)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < SV_ARRAY_SIZE(mask_names); i++) {
		int len;

		if (!(mask & mask_names[i].bit))
			continue;
		len = snprintf(out + n, cap - n, "%s%s", n ? ", " : "", mask_names[i].name);
		if (len < 0 || (size_t)len >= cap - n)
			break;
		n += (size_t)len;
	}
	return out;
}

static int mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128 << m : 0;
}

/* The table's row for cur -> next, or NULL. */
static const struct transition *find_transition(int cur, int next)
{
	for (size_t i = 0; i < SV_ARRAY_SIZE(transitions); i++)
		if (transitions[i].from == cur && transitions[i].to == next)
			return &transitions[i];
	return NULL;
}

/* The table's column for a QP type, or -1 (XRC, raw packet). */
static int type_column(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_UD:
		return T_UD;
	case IBV_QPT_UC:
		return T_UC;
	case IBV_QPT_RC:
		return T_RC;
	default:
		return -1;
	}
}

int sv_qp_transition_masks(enum ibv_qp_type type, int cur, int next, int *req,
			   int *opt)
{
	const struct transition *t = find_transition(cur, next);
	int ti = type_column(type);

	if (!t || ti < 0)
		return -1;
	*req = t->req[ti];
	*opt = t->opt[ti];
	return 0;
}

/* The transitions' table for what a QP in `from` may go to. */
static const char *next_states(char *out, size_t cap, int from)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < SV_ARRAY_SIZE(transitions); i++)
		if (transitions[i].from == from)
			n += (size_t)snprintf(out + n, cap - n, "%s, ",
					      sv_qp_state_name(transitions[i].to));
	snprintf(out + n, cap - n, "RESET or ERR");
	return out;
}

/* The attr_mask against the transition table: 1 when it said something. */
static int explain_mask(const char *verb, const char *to, struct ibv_qp *qp, int cur, int next,
			int mask)
{
	const struct transition *t = NULL;
	char list[512];
	int ti, missing, extra;

	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
		extra = mask & ~(IBV_QP_STATE);
		if (extra) {
			say(verb, "attr_mask has %s; a move to %s takes only IBV_QP_STATE",
			    mask_list(list, sizeof(list), extra), to);
			return 1;
		}
		return 0;
	}
	t = find_transition(cur, next);
	if (!t) {
		say(verb, "a QP in %s cannot go to %s (it goes to %s)",
		    sv_qp_state_name(cur), to, next_states(list, sizeof(list), cur));
		return 1;
	}
	ti = type_column(qp->qp_type);
	if (ti < 0)
		return 0; /* XRC, raw packet: not in our table */
	missing = t->req[ti] & ~mask;
	if (missing) {
		say(verb, "attr_mask lacks %s (required for %s from %s)",
		    mask_list(list, sizeof(list), missing), sv_qp_type_name(qp->qp_type),
		    sv_qp_state_name(cur));
		return 1;
	}
	extra = mask & ~(t->req[ti] | t->opt[ti] | IBV_QP_STATE);
	if (extra) {
		say(verb, "attr_mask has %s, which %s from %s does not take",
		    mask_list(list, sizeof(list), extra), sv_qp_type_name(qp->qp_type),
		    sv_qp_state_name(cur));
		return 1;
	}
	return 0;
}

/* The port's attributes, asked of the provider through the context's
 * ops table, in the newest struct's room (as ibv_query_port asks). 0 or
 * a positive errno. */
static int port_attr(struct ibv_context *ctx, uint8_t port,
		     union sv_port_attr *pa)
{
	memset(pa, 0, sizeof(*pa));
	return sv_priv(ctx)->ops.query_port(ctx, port, &pa->attr);
}

/* The address vector: its port, and on RoCE its GRH. 1 when it said
 * something. */
static int explain_av(const char *verb, struct ibv_context *ctx, const struct ibv_ah_attr *ah,
		      const struct ibv_device_attr_ex *a)
{
	union sv_port_attr pa;
	struct ibv_gid_entry gid;
	uint8_t port = ah->port_num;

	if (a && (port < 1 || port > a->orig_attr.phys_port_cnt)) {
		say(verb, "ah_attr.port_num %u is not a port of the device (1..%u)",
		    port, a->orig_attr.phys_port_cnt);
		return 1;
	}
	if (port_attr(ctx, port, &pa))
		return 0;
	if (pa.attr.link_layer == IBV_LINK_LAYER_ETHERNET && !ah->is_global) {
		say(verb, "RoCE port needs a GRH: ah_attr.is_global=1 and sgid_index");
		return 1;
	}
	if (!ah->is_global)
		return 0;
	if (ah->grh.sgid_index >= pa.attr.gid_tbl_len) {
		say(verb, "ah_attr.grh.sgid_index %u >= port %u gid table length %d",
		    ah->grh.sgid_index, port, pa.attr.gid_tbl_len);
		return 1;
	}
	if (sv_query_gid_entry(ctx, port, ah->grh.sgid_index, &gid) == ENODATA) {
		say(verb, "ah_attr.grh.sgid_index %u: port %u has no GID there (ibv_devinfo -v lists the table)",
		    ah->grh.sgid_index, port);
		return 1;
	}
	return 0;
}

static int explain_modify_qp(struct ibv_qp *qp, const struct ibv_qp_attr *attr, int mask,
			     int err)
{
	struct ibv_context *ctx = qp->context;
	const struct ibv_device_attr_ex *a;
	int cur, next;
	const char *to;
	char verb[32];
	union sv_port_attr pa;

	if (!explained(err))
		return err;
	cur = (mask & IBV_QP_CUR_STATE) ? (int)attr->cur_qp_state : (int)qp->state;
	next = (mask & IBV_QP_STATE) ? (int)attr->qp_state : cur;
	to = sv_qp_state_name(next);
	/* "modify_qp to RTR: ...": the transition is the subject */
	snprintf(verb, sizeof(verb), "modify_qp to %s", to);
	if (err == EINVAL && explain_mask(verb, to, qp, cur, next, mask))
		return err;
	a = dev_attr(ctx);
	if ((mask & IBV_QP_PORT) && a &&
	    (attr->port_num < 1 || attr->port_num > a->orig_attr.phys_port_cnt)) {
		say(verb, "port_num %u is not a port of the device (1..%u)",
		    attr->port_num, a->orig_attr.phys_port_cnt);
		return err;
	}
	if ((mask & IBV_QP_PKEY_INDEX) && a && attr->pkey_index >= a->orig_attr.max_pkeys) {
		say(verb, "pkey_index %u >= device max_pkeys %u",
		    attr->pkey_index, a->orig_attr.max_pkeys);
		return err;
	}
	if ((mask & IBV_QP_AV) && explain_av(verb, ctx, &attr->ah_attr, a))
		return err;
	if ((mask & IBV_QP_PATH_MTU)) {
		uint8_t port = (mask & IBV_QP_AV) ? attr->ah_attr.port_num : 1;

		if (!mtu_bytes(attr->path_mtu)) {
			say(verb, "path_mtu %d is no enum ibv_mtu (IBV_MTU_256..IBV_MTU_4096)", (int)attr->path_mtu);
			return err;
		}
		if (!port_attr(ctx, port, &pa) && attr->path_mtu > pa.attr.active_mtu) {
			say(verb, "path_mtu %d > port %u active_mtu %d",
			    mtu_bytes(attr->path_mtu), port, mtu_bytes(pa.attr.active_mtu));
			return err;
		}
	}
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a &&
	    attr->max_rd_atomic > a->orig_attr.max_qp_init_rd_atom) {
		say(verb, "max_rd_atomic %u > device max_qp_init_rd_atom %d",
		    attr->max_rd_atomic, a->orig_attr.max_qp_init_rd_atom);
		return err;
	}
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a &&
	    attr->max_dest_rd_atomic > a->orig_attr.max_qp_rd_atom) {
		say(verb, "max_dest_rd_atomic %u > device max_qp_rd_atom %d",
		    attr->max_dest_rd_atomic, a->orig_attr.max_qp_rd_atom);
		return err;
	}
	if ((mask & IBV_QP_TIMEOUT) && attr->timeout > 31) {
		say(verb, "timeout %u > 31", attr->timeout);
		return err;
	}
	if ((mask & IBV_QP_RETRY_CNT) && attr->retry_cnt > 7) {
		say(verb, "retry_cnt %u > 7", attr->retry_cnt);
		return err;
	}
	if ((mask & IBV_QP_RNR_RETRY) && attr->rnr_retry > 7) {
		say(verb, "rnr_retry %u > 7", attr->rnr_retry);
		return err;
	}
	if ((mask & IBV_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31) {
		say(verb, "min_rnr_timer %u > 31", attr->min_rnr_timer);
		return err;
	}
	if ((mask & IBV_QP_DEST_QPN) && attr->dest_qp_num > 0xffffff) {
		say(verb, "dest_qp_num %#x is wider than 24 bits",
		    attr->dest_qp_num);
		return err;
	}
	say(verb, "%s from %s with attr_mask %#x on QP %u", err_name(err),
	    sv_qp_state_name(cur), (unsigned int)mask, qp->qp_num);
	return err;
}

int sv_explain_modify_qp(struct ibv_qp *qp, const struct ibv_qp_attr *attr, int mask, int err)
{
	explain_modify_qp(qp, attr, mask, err);
	return SV_PROBE_ERR("ibv_modify_qp", err);
}

/* ---- reg_mr ------------------------------------------------------------------ */

/* "8 MiB", "64 KiB", "100 bytes". */
static const char *size_str(char *out, size_t cap, uint64_t bytes)
{
	if (bytes && !(bytes % (1u << 20)))
		snprintf(out, cap, "%" PRIu64 " MiB", bytes >> 20);
	else if (bytes && !(bytes % 1024))
		snprintf(out, cap, "%" PRIu64 " KiB", bytes >> 10);
	else
		snprintf(out, cap, "%" PRIu64 " bytes", bytes);
	return out;
}

/* CAP_IPC_LOCK in the effective set: the kernel then ignores the limit. */
static int has_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return 0;
	return !!(d[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32)));
}

/* A "Name:   N kB" line of /proc/self/status, in bytes; -1 if absent. */
static long long status_kb(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	long long v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			v = strtoll(line + len + 1, NULL, 10) * 1024;
			break;
		}
	fclose(f);
	return v;
}

void sv_explain_reg_mr(struct ibv_pd *pd, void *addr, size_t length, unsigned int access,
		       int err)
{
	const int on_demand = !!(access & IBV_ACCESS_ON_DEMAND);
	const struct ibv_device_attr_ex *a;
	char s1[32], s2[32], s3[32];

	if (!explained(err))
		return;
	a = dev_attr(pd->context);
	if (err == ENOMEM && !on_demand) {
		struct rlimit rl;
		long long pinned = status_kb("VmPin");
		long pg = sysconf(_SC_PAGESIZE);
		uint64_t first = (uintptr_t)addr & ~(uintptr_t)(pg - 1);
		uint64_t need = ((uintptr_t)addr + length + (uint64_t)pg - 1 - first) &
				~(uint64_t)(pg - 1);

		/* The kernel pins the pages against RLIMIT_MEMLOCK
		 * (ib_umem_get: mm->pinned_vm, VmPin) unless the process
		 * has CAP_IPC_LOCK. */
		if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    !has_ipc_lock() && pinned >= 0 && (uint64_t)pinned + need > rl.rlim_cur) {
			say("reg_mr", "ENOMEM: RLIMIT_MEMLOCK is %s, %s pinned already, this MR needs %s more (ulimit -l)",
			    size_str(s1, sizeof(s1), rl.rlim_cur),
			    size_str(s2, sizeof(s2), (uint64_t)pinned),
			    size_str(s3, sizeof(s3), need));
			return;
		}
	}
	if (a && length > a->orig_attr.max_mr_size) {
		say("reg_mr", "length %zu > device max_mr_size %" PRIu64, length,
		    (uint64_t)a->orig_attr.max_mr_size);
		return;
	}
	if (a && on_demand && !(a->odp_caps.general_caps & IBV_ODP_SUPPORT)) {
		say("reg_mr", "%s: IBV_ACCESS_ON_DEMAND, but the device has no on-demand paging (odp_caps.general_caps %#" PRIx64 ")",
		    err_name(err), (uint64_t)a->odp_caps.general_caps);
		return;
	}
	say("reg_mr", "%s for %zu bytes at %p", err_name(err), length, addr);
}

/* Lines of /proc/self/maps: the process's mappings. */
static long count_maps(void)
{
	char buf[8192];
	long n = 0;
	size_t r;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -1;
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	fclose(f);
	return n;
}

void sv_explain_reg_mr_fork(void *addr, size_t length, int err)
{
	char line[64];
	long maps, max = -1;
	FILE *f;

	/* the one line for every errno of this path */
	if (sv_log_level < SV_LOG_ERROR)
		return;
	/* madvise(2) says EAGAIN where splitting a mapping failed, e.g.
	 * at vm.max_map_count (mm/madvise.c turns the split's ENOMEM
	 * into EAGAIN), and ENOMEM where part of the range is not mapped */
	if (err == EAGAIN) {
		f = fopen("/proc/sys/vm/max_map_count", "re");
		if (f) {
			if (fgets(line, sizeof(line), f))
				max = strtol(line, NULL, 10);
			fclose(f);
		}
		maps = count_maps();
		/* MADV_DONTFORK of a range inside a mapping splits it in
		 * three: two more mappings than before */
		if (max > 0 && maps >= 0 && maps + 2 > max) {
			say("reg_mr", "EAGAIN: vm.max_map_count (%ld) reached: fork safety's MADV_DONTFORK splits mappings; sysctl -w vm.max_map_count=%ld",
			    max, max * 2);
			return;
		}
	}
	if (err == ENOMEM) {
		say("reg_mr", "ENOMEM: MADV_DONTFORK of %zu bytes at %p: part of the range is not mapped",
		    length, addr);
		return;
	}
	sv_log_write(SV_LOG_ERROR, "reg_mr", "MADV_DONTFORK of %zu bytes at %p failed (fork safety): %s",
		     length, addr, strerror(err));
}
