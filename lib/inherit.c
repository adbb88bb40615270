/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Objects a child inherits through fork().
 *
 * A child gets a copy of every context, PD, MR, CQ, QP and SRQ of its
 * parent: user memory that names the parent's kernel objects through a
 * uverbs file the two now share, and queues that the kernel shares with
 * the parent (rxe and siw map them MAP_SHARED from that file, so the
 * child sees the parent's live rings). A verb on one of them from the
 * child would post work requests into the parent's queues, take the
 * parent's completions and events, or destroy the parent's objects. In
 * the child every such verb fails instead, with EPERM and one log line;
 * closing an inherited context or freeing an inherited device list is
 * allowed (it frees the child's copies and closes the child's file
 * descriptors: the parent's objects stay intact). A child that wants
 * RDMA opens the device again.
 *
 * Nothing of this is on the parent's hot path. Each context records the
 * process generation it was opened in; the atfork child handler bumps the
 * generation and, in the child, points every context opened before at a
 * table of refusing ops (the inline verbs post_send, poll_cq, ... jump
 * through those tables, so they need no check of their own) and the
 * per-object ibv_wr_* and cq_ex polling functions of extended QPs and
 * CQs at refusing ones. The few core paths that use an inherited file
 * descriptor themselves (event channels, GID and P_Key queries) compare
 * generations.
 *
 * Not covered: objects a provider makes behind the core's back (an
 * rdma-core provider's direct verbs, ibv_wq receive functions). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Guarded by lock: the contexts of this process and its ancestors that
 * are still open, linked through their verbs_ex_private. */
static struct verbs_ex_private *live;
/* Bumped in each child (its own copy); contexts remember theirs. */
static atomic_uint generation;

/* Guarded by lock: the extended QPs and CQs, whose function pointers the
 * child must replace (open addressing keyed by the object, linear
 * probing, at most half full, deletion by backward shift). */
struct ex_obj {
	void *obj; /* NULL: free slot */
	struct ibv_context *ctx;
	int kind;  /* SV_INHERIT_QP_EX, SV_INHERIT_CQ_EX */
};
static struct {
	struct ex_obj *slot;
	size_t mask, count;
} objs;

/* ---- refusing -------------------------------------------------------------- */

/* The one log line of a refused verb; EPERM. */
static int refuse(const char *verb)
{
	if (SV_LOG_ERROR <= sv_log_level)
		sv_log_write(SV_LOG_ERROR, verb,
			     "the object was inherited through fork() from the parent process, whose kernel objects it names: refused (EPERM); open the device again in this process");
	return EPERM;
}

int sv_inherited(struct ibv_context *ctx)
{
	return sv_priv(ctx)->generation != atomic_load_explicit(&generation, memory_order_relaxed);
}

int sv_inherit_check(struct ibv_context *ctx, const char *verb)
{
	return sv_inherited(ctx) ? refuse(verb) : 0;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define REF_INT(name, ...)                                                     \
	static int ref_##name(__VA_ARGS__)                                     \
	{                                                                      \
		return refuse("ibv_" #name);                                   \
	}
#define REF_PTR(name, ret_type, ...)                                           \
	static ret_type *ref_##name(__VA_ARGS__)                               \
	{                                                                      \
		errno = refuse("ibv_" #name);                                  \
		return NULL;                                                   \
	}
#define REF_VOID(name, ...)                                                    \
	static void ref_##name(__VA_ARGS__)                                    \
	{                                                                      \
	}

REF_INT(query_device_ex, struct ibv_context *c, const struct ibv_query_device_ex_input *i,
	struct ibv_device_attr_ex *a, size_t s)
REF_INT(query_port, struct ibv_context *c, uint8_t p, struct ibv_port_attr *a)
REF_INT(query_rt_values, struct ibv_context *c, struct ibv_values_ex *v)
REF_VOID(async_event, struct ibv_context *c, struct ibv_async_event *e)
REF_PTR(alloc_pd, struct ibv_pd, struct ibv_context *c)
REF_INT(dealloc_pd, struct ibv_pd *pd)
REF_PTR(alloc_td, struct ibv_td, struct ibv_context *c, struct ibv_td_init_attr *a)
REF_INT(dealloc_td, struct ibv_td *td)
REF_PTR(alloc_parent_domain, struct ibv_pd, struct ibv_context *c,
	struct ibv_parent_domain_init_attr *a)
REF_PTR(reg_mr, struct ibv_mr, struct ibv_pd *pd, void *a, size_t l, uint64_t v, int f)
REF_INT(rereg_mr, struct ibv_mr *mr, int f, struct ibv_pd *pd, void *a, size_t l, int x)
REF_INT(dereg_mr, struct ibv_mr *mr)
REF_PTR(reg_dmabuf_mr, struct ibv_mr, struct ibv_pd *pd, uint64_t o, size_t l, uint64_t v,
	int fd, int f)
REF_PTR(alloc_null_mr, struct ibv_mr, struct ibv_pd *pd)
REF_INT(advise_mr, struct ibv_pd *pd, enum ibv_advise_mr_advice a, uint32_t f,
	struct ibv_sge *s, uint32_t n)
REF_PTR(alloc_mw, struct ibv_mw, struct ibv_pd *pd, enum ibv_mw_type t)
REF_INT(bind_mw, struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *b)
REF_INT(dealloc_mw, struct ibv_mw *mw)
REF_PTR(create_cq, struct ibv_cq, struct ibv_context *c, int n, struct ibv_comp_channel *ch,
	int v)
REF_PTR(create_cq_ex, struct ibv_cq_ex, struct ibv_context *c, struct ibv_cq_init_attr_ex *a)
static int ref_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return -refuse("ibv_poll_cq");
}
REF_INT(req_notify_cq, struct ibv_cq *cq, int s)
REF_VOID(cq_event, struct ibv_cq *cq)
REF_INT(resize_cq, struct ibv_cq *cq, int n)
REF_INT(modify_cq, struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
REF_INT(destroy_cq, struct ibv_cq *cq)
REF_PTR(create_srq, struct ibv_srq, struct ibv_pd *pd, struct ibv_srq_init_attr *a)
REF_PTR(create_srq_ex, struct ibv_srq, struct ibv_context *c, struct ibv_srq_init_attr_ex *a)
REF_INT(modify_srq, struct ibv_srq *s, struct ibv_srq_attr *a, int m)
REF_INT(query_srq, struct ibv_srq *s, struct ibv_srq_attr *a)
REF_INT(destroy_srq, struct ibv_srq *s)
static int ref_post_srq_recv(struct ibv_srq *s, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	if (bad)
		*bad = wr;
	return refuse("ibv_post_srq_recv");
}
static int ref_post_srq_ops(struct ibv_srq *s, struct ibv_ops_wr *op, struct ibv_ops_wr **bad)
{
	if (bad)
		*bad = op;
	return refuse("ibv_post_srq_ops");
}
REF_INT(get_srq_num, struct ibv_srq *s, uint32_t *n)
REF_PTR(create_qp, struct ibv_qp, struct ibv_pd *pd, struct ibv_qp_init_attr *a)
REF_PTR(create_qp_ex, struct ibv_qp, struct ibv_context *c, struct ibv_qp_init_attr_ex *a)
REF_PTR(open_qp, struct ibv_qp, struct ibv_context *c, struct ibv_qp_open_attr *a)
REF_INT(query_qp, struct ibv_qp *qp, struct ibv_qp_attr *a, int m, struct ibv_qp_init_attr *i)
REF_INT(modify_qp, struct ibv_qp *qp, struct ibv_qp_attr *a, int m)
REF_INT(modify_qp_rate_limit, struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *a)
REF_INT(destroy_qp, struct ibv_qp *qp)
REF_INT(query_ece, struct ibv_qp *qp, struct ibv_ece *e)
REF_INT(set_ece, struct ibv_qp *qp, struct ibv_ece *e)
static int ref_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t f)
{
	refuse("ibv_query_qp_data_in_order");
	return 0; /* "not in order": all this verb can say */
}
static int ref_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	if (bad)
		*bad = wr;
	return refuse("ibv_post_send");
}
static int ref_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	if (bad)
		*bad = wr;
	return refuse("ibv_post_recv");
}
REF_PTR(create_ah, struct ibv_ah, struct ibv_pd *pd, struct ibv_ah_attr *a)
REF_INT(destroy_ah, struct ibv_ah *ah)
REF_INT(attach_mcast, struct ibv_qp *qp, const union ibv_gid *g, uint16_t l)
REF_INT(detach_mcast, struct ibv_qp *qp, const union ibv_gid *g, uint16_t l)
REF_PTR(open_xrcd, struct ibv_xrcd, struct ibv_context *c, struct ibv_xrcd_init_attr *a)
REF_INT(close_xrcd, struct ibv_xrcd *x)
REF_PTR(create_wq, struct ibv_wq, struct ibv_context *c, struct ibv_wq_init_attr *a)
REF_INT(modify_wq, struct ibv_wq *wq, struct ibv_wq_attr *a)
REF_INT(destroy_wq, struct ibv_wq *wq)
REF_PTR(create_rwq_ind_table, struct ibv_rwq_ind_table, struct ibv_context *c,
	struct ibv_rwq_ind_table_init_attr *a)
REF_INT(destroy_rwq_ind_table, struct ibv_rwq_ind_table *t)
REF_PTR(create_flow, struct ibv_flow, struct ibv_qp *qp, struct ibv_flow_attr *a)
REF_INT(destroy_flow, struct ibv_flow *f)
REF_PTR(create_counters, struct ibv_counters, struct ibv_context *c,
	struct ibv_counters_init_attr *a)
REF_INT(destroy_counters, struct ibv_counters *c)
REF_INT(attach_counters_point_flow, struct ibv_counters *c, struct ibv_counter_attach_attr *a,
	struct ibv_flow *f)
REF_INT(read_counters, struct ibv_counters *c, uint64_t *v, uint32_t n, uint32_t f)
REF_PTR(alloc_dm, struct ibv_dm, struct ibv_context *c, struct ibv_alloc_dm_attr *a)
REF_INT(free_dm, struct ibv_dm *dm)
REF_PTR(reg_dm_mr, struct ibv_mr, struct ibv_pd *pd, struct ibv_dm *dm, uint64_t o, size_t l,
	unsigned int a)
REF_PTR(create_flow_action_esp, struct ibv_flow_action, struct ibv_context *c,
	struct ibv_flow_action_esp_attr *a)
REF_INT(modify_flow_action_esp, struct ibv_flow_action *f, struct ibv_flow_action_esp_attr *a)
REF_INT(destroy_flow_action, struct ibv_flow_action *f)
REF_PTR(import_pd, struct ibv_pd, struct ibv_context *c, uint32_t h)
REF_VOID(unimport_pd, struct ibv_pd *pd)
REF_PTR(import_mr, struct ibv_mr, struct ibv_pd *pd, uint32_t h)
REF_VOID(unimport_mr, struct ibv_mr *mr)
REF_PTR(import_dm, struct ibv_dm, struct ibv_context *c, uint32_t h)
REF_VOID(unimport_dm, struct ibv_dm *dm)
/* rdma-core 59-65 */
REF_INT(query_port_speed, struct ibv_context *c, uint32_t p, uint64_t *s)
REF_PTR(reg_mr_ex, struct ibv_mr, struct ibv_pd *pd, struct ibv_mr_init_attr *a)
REF_PTR(alloc_dmah, struct ibv_dmah, struct ibv_context *c, struct ibv_dmah_init_attr *a)
REF_INT(dealloc_dmah, struct ibv_dmah *d)
REF_PTR(alloc_buf, void, struct ibv_pd *pd, size_t s, struct ibv_buf **b)
static void ref_free_buf(struct ibv_buf *b)
{
	refuse("ibv_free_buf"); /* void: the log line is all it can say */
}
static int ref_dm_export_dmabuf_fd(struct ibv_dm *dm)
{
	errno = refuse("ibv_dm_export_dmabuf_fd");
	return -1;
}
REF_INT(query_comp_cntr_caps, struct ibv_context *c, struct ibv_comp_cntr_caps *caps, size_t n)
REF_PTR(create_comp_cntr, struct ibv_comp_cntr, struct ibv_context *c,
	struct ibv_comp_cntr_init_attr *a)
REF_INT(destroy_comp_cntr, struct ibv_comp_cntr *cc)
REF_INT(set_comp_cntr, struct ibv_comp_cntr *cc, uint64_t v)
REF_INT(set_err_comp_cntr, struct ibv_comp_cntr *cc, uint64_t v)
REF_INT(inc_comp_cntr, struct ibv_comp_cntr *cc, uint64_t v)
REF_INT(inc_err_comp_cntr, struct ibv_comp_cntr *cc, uint64_t v)
REF_INT(read_comp_cntr, struct ibv_comp_cntr *cc, uint64_t *v)
REF_INT(read_err_comp_cntr, struct ibv_comp_cntr *cc, uint64_t *v)
REF_INT(qp_attach_comp_cntr, struct ibv_qp *qp, struct ibv_comp_cntr *cc,
	struct ibv_qp_attach_comp_cntr_attr *a)

/* ibv_qp_ex: the builders do nothing, ibv_wr_complete refuses. */
REF_VOID(wr_atomic_cmp_swp, struct ibv_qp_ex *q, uint32_t r, uint64_t a, uint64_t c, uint64_t s)
REF_VOID(wr_atomic_fetch_add, struct ibv_qp_ex *q, uint32_t r, uint64_t a, uint64_t v)
REF_VOID(wr_bind_mw, struct ibv_qp_ex *q, struct ibv_mw *mw, uint32_t r,
	 const struct ibv_mw_bind_info *b)
REF_VOID(wr_local_inv, struct ibv_qp_ex *q, uint32_t r)
REF_VOID(wr_rdma_read, struct ibv_qp_ex *q, uint32_t r, uint64_t a)
REF_VOID(wr_rdma_write, struct ibv_qp_ex *q, uint32_t r, uint64_t a)
REF_VOID(wr_rdma_write_imm, struct ibv_qp_ex *q, uint32_t r, uint64_t a, __be32 i)
REF_VOID(wr_send, struct ibv_qp_ex *q)
REF_VOID(wr_send_imm, struct ibv_qp_ex *q, __be32 i)
REF_VOID(wr_send_inv, struct ibv_qp_ex *q, uint32_t r)
REF_VOID(wr_send_tso, struct ibv_qp_ex *q, void *h, uint16_t s, uint16_t m)
REF_VOID(wr_set_ud_addr, struct ibv_qp_ex *q, struct ibv_ah *ah, uint32_t n, uint32_t k)
REF_VOID(wr_set_xrc_srqn, struct ibv_qp_ex *q, uint32_t n)
REF_VOID(wr_set_inline_data, struct ibv_qp_ex *q, void *a, size_t l)
REF_VOID(wr_set_inline_data_list, struct ibv_qp_ex *q, size_t n, const struct ibv_data_buf *b)
REF_VOID(wr_set_sge, struct ibv_qp_ex *q, uint32_t k, uint64_t a, uint32_t l)
REF_VOID(wr_set_sge_list, struct ibv_qp_ex *q, size_t n, const struct ibv_sge *s)
REF_VOID(wr_start, struct ibv_qp_ex *q)
REF_INT(wr_complete, struct ibv_qp_ex *q)
REF_VOID(wr_abort, struct ibv_qp_ex *q)
REF_VOID(wr_atomic_write, struct ibv_qp_ex *q, uint32_t r, uint64_t a, const void *w)
REF_VOID(wr_flush, struct ibv_qp_ex *q, uint32_t r, uint64_t a, size_t l, uint8_t t, uint8_t v)

/* ibv_cq_ex: polling refuses (the read_* helpers are only valid after a
 * successful start_poll). */
static int ref_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *a)
{
	return refuse("ibv_start_poll");
}
REF_INT(next_poll, struct ibv_cq_ex *cq)
REF_VOID(end_poll, struct ibv_cq_ex *cq)
#pragma GCC diagnostic pop

#define REF(name) .name = ref_##name
static const struct sv_context_ops refusing_ops = {
	REF(query_device_ex), REF(query_port), REF(query_rt_values), REF(async_event),
	REF(alloc_pd), REF(dealloc_pd), REF(alloc_td), REF(dealloc_td), REF(alloc_parent_domain),
	REF(reg_mr), REF(rereg_mr), REF(dereg_mr), REF(reg_dmabuf_mr), REF(alloc_null_mr),
	REF(advise_mr), REF(alloc_mw), REF(bind_mw), REF(dealloc_mw), REF(create_cq),
	REF(create_cq_ex), REF(poll_cq), REF(req_notify_cq), REF(cq_event), REF(resize_cq),
	REF(modify_cq), REF(destroy_cq), REF(create_srq), REF(create_srq_ex), REF(modify_srq),
	REF(query_srq), REF(destroy_srq), REF(post_srq_recv), REF(post_srq_ops), REF(get_srq_num),
	REF(create_qp), REF(create_qp_ex), REF(open_qp), REF(query_qp), REF(modify_qp),
	REF(modify_qp_rate_limit), REF(destroy_qp), REF(query_ece), REF(set_ece),
	REF(query_qp_data_in_order), REF(post_send), REF(post_recv), REF(create_ah),
	REF(destroy_ah), REF(attach_mcast), REF(detach_mcast), REF(open_xrcd), REF(close_xrcd),
	REF(create_wq), REF(modify_wq), REF(destroy_wq), REF(create_rwq_ind_table),
	REF(destroy_rwq_ind_table), REF(create_flow), REF(destroy_flow), REF(create_counters),
	REF(destroy_counters), REF(attach_counters_point_flow), REF(read_counters), REF(alloc_dm),
	REF(free_dm), REF(reg_dm_mr), REF(create_flow_action_esp), REF(modify_flow_action_esp),
	REF(destroy_flow_action), REF(import_pd), REF(unimport_pd), REF(import_mr),
	REF(unimport_mr), REF(import_dm), REF(unimport_dm), REF(query_port_speed),
	REF(reg_mr_ex), REF(alloc_dmah), REF(dealloc_dmah), REF(alloc_buf), REF(free_buf),
	REF(dm_export_dmabuf_fd), REF(query_comp_cntr_caps), REF(create_comp_cntr),
	REF(destroy_comp_cntr), REF(set_comp_cntr), REF(set_err_comp_cntr), REF(inc_comp_cntr),
	REF(inc_err_comp_cntr), REF(read_comp_cntr), REF(read_err_comp_cntr),
	REF(qp_attach_comp_cntr),
};

const struct sv_context_ops *sv_inherit_refusing_ops(void)
{
	return &refusing_ops;
}

/* Replace a function pointer that is set. */
#define SWAP(o, f)                                                             \
	do {                                                                   \
		if ((o)->f)                                                    \
			(o)->f = ref_##f;                                      \
	} while (0)

static void refuse_qp_ex(struct ibv_qp_ex *q)
{
	SWAP(q, wr_atomic_cmp_swp);
	SWAP(q, wr_atomic_fetch_add);
	SWAP(q, wr_bind_mw);
	SWAP(q, wr_local_inv);
	SWAP(q, wr_rdma_read);
	SWAP(q, wr_rdma_write);
	SWAP(q, wr_rdma_write_imm);
	SWAP(q, wr_send);
	SWAP(q, wr_send_imm);
	SWAP(q, wr_send_inv);
	SWAP(q, wr_send_tso);
	SWAP(q, wr_set_ud_addr);
	SWAP(q, wr_set_xrc_srqn);
	SWAP(q, wr_set_inline_data);
	SWAP(q, wr_set_inline_data_list);
	SWAP(q, wr_set_sge);
	SWAP(q, wr_set_sge_list);
	SWAP(q, wr_start);
	SWAP(q, wr_complete);
	SWAP(q, wr_abort);
	SWAP(q, wr_atomic_write);
	/* rdma-core 45's wr_flush, where the QP's layout has the slot (the
	 * built-in providers' QPs, those of rdma-core 45 and later's
	 * providers: comp_mask after it) */
	if (sv_priv(q->qp_base.context)->layout->qp_comp_mask >=
	    SV_QP_EX_WR_FLUSH_OFF + sizeof(sv_wr_flush_fn)) {
		sv_wr_flush_fn f;

		memcpy(&f, (char *)q + SV_QP_EX_WR_FLUSH_OFF, sizeof(f));
		if (f) {
			f = ref_wr_flush;
			memcpy((char *)q + SV_QP_EX_WR_FLUSH_OFF, &f, sizeof(f));
		}
	}
}

static void refuse_cq_ex(struct ibv_cq_ex *cq)
{
	SWAP(cq, start_poll);
	SWAP(cq, next_poll);
	SWAP(cq, end_poll);
}

/* ---- extended objects ------------------------------------------------------ */

static size_t obj_hash(const void *obj)
{
	return (size_t)(((uint64_t)(uintptr_t)obj >> 4) * 0x9e3779b97f4a7c15ull >> 32);
}

/* lock held */
static struct ex_obj *obj_find(const void *obj)
{
	if (!objs.slot)
		return NULL;
	for (size_t i = obj_hash(obj) & objs.mask; objs.slot[i].obj; i = (i + 1) & objs.mask)
		if (objs.slot[i].obj == obj)
			return &objs.slot[i];
	return NULL;
}

/* Empty slot e, pulling later entries of its probe run back (backward
 * shift, as in fork.c's notes); lock held. */
static void obj_remove(struct ex_obj *e)
{
	size_t i = (size_t)(e - objs.slot), j;

	for (j = (i + 1) & objs.mask; objs.slot[j].obj; j = (j + 1) & objs.mask) {
		size_t home = obj_hash(objs.slot[j].obj) & objs.mask;

		if (((j - home) & objs.mask) >= ((j - i) & objs.mask)) {
			objs.slot[i] = objs.slot[j];
			i = j;
		}
	}
	objs.slot[i].obj = NULL;
	objs.count--;
}

/* Room for one more; lock held. 0 or ENOMEM. Doubling is rare: the
 * allocation under this lock (which is not the range map's) is fine. */
static int obj_reserve(void)
{
	struct ex_obj *old = objs.slot, *fresh;
	size_t old_cap = old ? objs.mask + 1 : 0, cap = old_cap ? 2 * old_cap : 64;

	if (old && (objs.count + 1) * 2 <= old_cap)
		return 0;
	fresh = calloc(cap, sizeof(*fresh));
	if (!fresh)
		return ENOMEM;
	objs.slot = fresh;
	objs.mask = cap - 1;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j;

		if (!old[i].obj)
			continue;
		for (j = obj_hash(old[i].obj) & objs.mask; fresh[j].obj; j = (j + 1) & objs.mask)
			;
		fresh[j] = old[i];
	}
	free(old);
	return 0;
}

int sv_inherit_object_add(struct ibv_context *ctx, void *obj, int kind)
{
	int ret;

	pthread_mutex_lock(&lock);
	ret = obj_reserve();
	if (!ret) {
		size_t i;

		for (i = obj_hash(obj) & objs.mask; objs.slot[i].obj; i = (i + 1) & objs.mask)
			;
		objs.slot[i] = (struct ex_obj){ obj, ctx, kind };
		objs.count++;
	}
	pthread_mutex_unlock(&lock);
	if (ret)
		sv_err("no memory to record an extended %s for fork", kind == SV_INHERIT_QP_EX ? "QP" : "CQ");
	return ret;
}

void sv_inherit_object_del(void *obj)
{
	struct ex_obj *e;

	pthread_mutex_lock(&lock);
	e = obj_find(obj);
	if (e)
		obj_remove(e);
	pthread_mutex_unlock(&lock);
}

/* ---- contexts ---------------------------------------------------------------- */

void sv_inherit_context_add(struct verbs_context *vctx)
{
	struct verbs_ex_private *p = vctx->priv;

	p->vctx = vctx;
	p->generation = atomic_load(&generation);
	pthread_mutex_lock(&lock);
	p->live_prev = NULL;
	p->live_next = live;
	if (live)
		live->live_prev = p;
	live = p;
	pthread_mutex_unlock(&lock);
}

void sv_inherit_context_del(struct verbs_context *vctx)
{
	struct verbs_ex_private *p = vctx->priv;

	if (!p || p->vctx != vctx)
		return; /* never added */
	pthread_mutex_lock(&lock);
	/* its extended objects (the program need not destroy them first) */
	for (size_t i = 0; objs.slot && i <= objs.mask; i++)
		if (objs.slot[i].obj && objs.slot[i].ctx == &vctx->context) {
			obj_remove(&objs.slot[i]);
			i--; /* the shift may have pulled another entry into slot i */
		}
	if (p->live_prev)
		p->live_prev->live_next = p->live_next;
	else if (live == p)
		live = p->live_next;
	if (p->live_next)
		p->live_next->live_prev = p->live_prev;
	p->live_prev = p->live_next = NULL;
	p->vctx = NULL;
	pthread_mutex_unlock(&lock);
}

/* ---- fork ------------------------------------------------------------------ */

void sv_inherit_fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

void sv_inherit_fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

/* In the child, single-threaded, lock held since prepare. */
void sv_inherit_fork_child(void)
{
	atomic_fetch_add(&generation, 1);
	for (struct verbs_ex_private *p = live; p; p = p->live_next) {
		p->ops = refusing_ops;
		sv_context_install_ops(p->vctx);
	}
	for (size_t i = 0; objs.slot && i <= objs.mask; i++) {
		struct ex_obj *e = &objs.slot[i];

		if (!e->obj)
			continue;
		if (e->kind == SV_INHERIT_QP_EX)
			refuse_qp_ex(e->obj);
		else
			refuse_cq_ex(e->obj);
	}
	pthread_mutex_unlock(&lock);
}
