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
/* ref_<name> for every op of lib/ops_list.h, by what it answers. */
#define REFUSE_FN(name, since, dflt, kind, ret, params)                        \
	REFUSE_##kind(name, ret, params)
#define REFUSE_INT(name, ret, params)                                          \
	static ret ref_##name params                                           \
	{                                                                      \
		return refuse("ibv_" #name);                                   \
	}
#define REFUSE_PTR(name, ret, params)                                          \
	static ret ref_##name params                                           \
	{                                                                      \
		errno = refuse("ibv_" #name);                                  \
		return NULL;                                                   \
	}
/* void: the log line is all it can say */
#define REFUSE_VOID(name, ret, params)                                         \
	static ret ref_##name params                                           \
	{                                                                      \
		refuse("ibv_" #name);                                          \
	}
#define REFUSE_QUIET(name, ret, params)                                        \
	static ret ref_##name params                                           \
	{                                                                      \
	}
#define REFUSE_NEG(name, ret, params)                                          \
	static ret ref_##name params                                           \
	{                                                                      \
		return -refuse("ibv_" #name);                                  \
	}
#define REFUSE_FD(name, ret, params)                                           \
	static ret ref_##name params                                           \
	{                                                                      \
		errno = refuse("ibv_" #name);                                  \
		return -1;                                                     \
	}
/* 0, "not in order": all such a verb can say */
#define REFUSE_FLAGS(name, ret, params)                                        \
	static ret ref_##name params                                           \
	{                                                                      \
		refuse("ibv_" #name);                                          \
		return 0;                                                      \
	}
#define REFUSE_POST(name, ret, params)                                         \
	static ret ref_##name params                                           \
	{                                                                      \
		if (bad_wr)                                                    \
			*bad_wr = wr;                                          \
		return refuse("ibv_" #name);                                   \
	}
SV_CONTEXT_OPS(REFUSE_FN)

/* The extended objects' own functions, which no list names. */
#define REF_INT(name, ...)                                                     \
	static int ref_##name(__VA_ARGS__)                                     \
	{                                                                      \
		return refuse("ibv_" #name);                                   \
	}
#define REF_VOID(name, ...)                                                    \
	static void ref_##name(__VA_ARGS__)                                    \
	{                                                                      \
	}

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

#define REFUSE_SLOT(name, ...) .name = ref_##name,
static const struct sv_context_ops refusing_ops = {
	SV_CONTEXT_OPS(REFUSE_SLOT)
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
