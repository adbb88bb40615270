/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* siw queue pairs (RC only): the send and receive queues are arrays of
 * struct siw_sqe / struct siw_rqe mapped from the kernel. Posting fills the
 * next element and sets its VALID flag last. Receives need no system call:
 * siw looks at the receive queue when a message arrives. Sends need a
 * doorbell (an empty POST_SEND) only when siw's transmitter is idle: it
 * takes the next valid SQE by itself after finishing one. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "siw.h"

_Static_assert(sizeof(struct siw_sge) == sizeof(struct ibv_sge),
	       "siw_sge and ibv_sge describe the same 16 bytes");

/* ---- rings ------------------------------------------------------------------ */

int siw_wq_map(struct siw_wq *wq, int cmd_fd, uint64_t key, uint32_t num,
	       size_t elem_size, uint32_t max_sge)
{
	void *map;

	if (key == SIW_INVAL_UOBJ_KEY || !num || (num & (num - 1))) {
		sv_err("siw gave no mappable queue (key %#llx, %u elements)",
		       (unsigned long long)key, num);
		return EPROTO;
	}
	wq->map_len = (size_t)num * elem_size;
	map = mmap(NULL, wq->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cmd_fd, (off_t)key);
	if (map == MAP_FAILED) {
		int ret = errno;

		sv_err("mapping a queue of %u elements failed: %s", num,
		       strerror(errno));
		return ret;
	}
	wq->ring = map;
	wq->num = num;
	wq->put = 0;
	wq->max_sge = max_sge < SIW_MAX_SGE ? max_sge : SIW_MAX_SGE;
	sv_lock_init(&wq->lock);
	return 0;
}

void siw_wq_unmap(struct siw_wq *wq)
{
	if (!wq->ring)
		return;
	munmap(wq->ring, wq->map_len);
	wq->ring = NULL;
}

static struct siw_sqe *sq_elem(struct siw_wq *wq, uint32_t n)
{
	return (struct siw_sqe *)wq->ring + (n & (wq->num - 1));
}

static struct siw_rqe *rq_elem(struct siw_wq *wq, uint32_t n)
{
	return (struct siw_rqe *)wq->ring + (n & (wq->num - 1));
}

static int elem_busy(const uint16_t *flags)
{
	return __atomic_load_n(flags, __ATOMIC_ACQUIRE) & SIW_WQE_VALID;
}

/* The bytes a receive's SGEs describe. */
static uint64_t __attribute__((noinline))
recv_bytes(const struct ibv_recv_wr *wr)
{
	uint64_t len = 0;

	for (int i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	return len;
}

/* Inline in siw_post_recv, a call for SRQs (siw_wq_post_recv). */
static inline __attribute__((always_inline)) int
wq_post_recv(struct siw_wq *wq, struct ibv_recv_wr *wr,
	     struct ibv_recv_wr **bad_wr)
{
	int ret = 0;

	sv_lock(&wq->lock);
	for (; wr; wr = wr->next) {
		struct siw_rqe *rqe = rq_elem(wq, wq->put);
		uint64_t len; /* for the probe */

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			sv_err("a receive with %d SGEs, the queue takes %u",
			       wr->num_sge, wq->max_sge);
			ret = EINVAL;
			break;
		}
		if (elem_busy(&rqe->flags)) {
			sv_err("receive queue full (%u elements)", wq->num);
			ret = ENOMEM;
			break;
		}
		rqe->id = wr->wr_id;
		rqe->num_sge = (uint8_t)wr->num_sge;
		rqe->opcode = 0;
		rqe->unused = 0;
		if (wr->num_sge == 1) { /* the common case: no call */
			len = wr->sg_list->length;
			memcpy(rqe->sge, wr->sg_list, sizeof(struct siw_sge));
		} else {
			if (wr->num_sge)
				memcpy(rqe->sge, wr->sg_list,
				       (size_t)wr->num_sge *
					       sizeof(struct siw_sge));
			len = recv_bytes(wr);
		}
		__atomic_store_n(&rqe->flags, SIW_WQE_VALID, __ATOMIC_RELEASE);
		wq->put++;
		SV_PROBE(softverbs, post_recv, wq->probe_dev, wq->probe_qpn,
			 rqe->id, len);
	}
	sv_unlock(&wq->lock);
	if (ret) {
		*bad_wr = wr;
		return SV_PROBE_ERR("ibv_post_recv", ret);
	}
	return 0;
}

int siw_wq_post_recv(struct siw_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	return wq_post_recv(wq, wr, bad_wr);
}

/* ---- create, query, modify, destroy ---------------------------------------- */

struct ibv_qp *siw_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = sv_qp_init_attr_ex(pd, attr);
	struct siw_uresp_create_qp resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	int cmd_fd = pd->context->cmd_fd;
	struct siw_qp *qp;
	int ret;

	if (attr->qp_type != IBV_QPT_RC) {
		sv_err("siw (iWARP) has RC QPs only, not type %d",
		       (int)attr->qp_type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->send_cq || (!attr->recv_cq && !attr->srq)) {
		sv_err("a QP needs a send CQ and a receive CQ");
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_qp(pd->context, &qp->core, &ex, &udata);
	if (ret) {
		sv_err("CREATE_QP (%u/%u WRs, %u/%u SGEs, %u inline) failed: %s",
		       attr->cap.max_send_wr, attr->cap.max_recv_wr,
		       attr->cap.max_send_sge, attr->cap.max_recv_sge,
		       attr->cap.max_inline_data, strerror(ret));
		goto err_free;
	}
	ret = siw_wq_map(&qp->sq, cmd_fd, resp.sq_key, resp.num_sqe,
			 sizeof(struct siw_sqe), ex.cap.max_send_sge);
	if (ret)
		goto err_destroy;
	/* on an SRQ (or with max_recv_wr 0) siw has no receive queue of the
	 * QP's own */
	if (!attr->srq && resp.num_rqe) {
		ret = siw_wq_map(&qp->rq, cmd_fd, resp.rq_key, resp.num_rqe,
				 sizeof(struct siw_rqe), ex.cap.max_recv_sge);
		if (ret)
			goto err_unmap_sq;
	}
	qp->sq_sig_all = attr->sq_sig_all;
	qp->sig_flags = attr->sq_sig_all ? SIW_WQE_SIGNALLED : 0;
	sv_cmd_doorbell_init(&qp->db, &qp->core.qp);
	sv_probe_qp_init(&qp->probe, pd->context);
	qp->rq.probe_dev = qp->probe.dev;
	qp->rq.probe_qpn = qp->core.qp.qp_num;
	SV_PROBE(softverbs, create_qp, qp->probe.dev, qp->core.qp.qp_num,
		 (int)attr->qp_type);
	attr->cap = ex.cap;
	return &qp->core.qp;

err_unmap_sq:
	siw_wq_unmap(&qp->sq);
err_destroy:
	sv_cmd_destroy_qp(&qp->core.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

int siw_destroy_qp(struct ibv_qp *ibqp)
{
	struct siw_qp *qp = to_siw_qp(ibqp);
	int ret;

	ret = sv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	SV_PROBE(softverbs, destroy_qp, qp->probe.dev, ibqp->qp_num);
	siw_wq_unmap(&qp->rq);
	siw_wq_unmap(&qp->sq);
	free(qp);
	return 0;
}

/* ---- posting ----------------------------------------------------------------- */

/* siw's opcode for a public one; UINT8_MAX: iWARP or siw cannot do it. */
static uint8_t sq_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
		return SIW_OP_WRITE;
	case IBV_WR_SEND:
		return SIW_OP_SEND;
	case IBV_WR_SEND_WITH_INV:
		return SIW_OP_SEND_REMOTE_INV;
	case IBV_WR_RDMA_READ:
		return SIW_OP_READ;
	case IBV_WR_LOCAL_INV:
		return SIW_OP_INVAL_STAG;
	default:
		return UINT8_MAX;
	}
}

static int check_send_wr(const struct siw_qp *qp, const struct ibv_send_wr *wr,
			 uint8_t *opcode)
{
	uint32_t qpn = qp->core.qp.qp_num;
	uint64_t len = 0;

	*opcode = sq_opcode(wr->opcode);
	if (*opcode == UINT8_MAX) {
		switch (wr->opcode) {
		case IBV_WR_RDMA_WRITE_WITH_IMM:
		case IBV_WR_SEND_WITH_IMM:
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
		case IBV_WR_BIND_MW:
		case IBV_WR_TSO:
			sv_err("QP %#x: opcode %d (immediate data, atomics, MW binding, TSO) is not available on siw",
			       qpn, (int)wr->opcode);
			return EOPNOTSUPP;
		default:
			sv_err("QP %#x: unknown opcode %d", qpn, (int)wr->opcode);
			return EINVAL;
		}
	}
	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list)) {
		sv_err("QP %#x: num_sge %d with sg_list %p", qpn, wr->num_sge,
		       (void *)wr->sg_list);
		return EINVAL;
	}
	for (int i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;

	if (wr->send_flags & IBV_SEND_INLINE) {
		if (*opcode != SIW_OP_SEND && *opcode != SIW_OP_WRITE) {
			sv_err("QP %#x: IBV_SEND_INLINE with opcode %d", qpn,
			       (int)wr->opcode);
			return EINVAL;
		}
		if (len > SIW_MAX_INLINE) {
			sv_err("QP %#x: %llu inline bytes, siw takes %zu", qpn,
			       (unsigned long long)len, SIW_MAX_INLINE);
			return EINVAL;
		}
		return 0; /* the data is copied: any number of SGEs */
	}
	if ((uint32_t)wr->num_sge > qp->sq.max_sge) {
		sv_err("QP %#x: %d SGEs, the send queue takes %u", qpn,
		       wr->num_sge, qp->sq.max_sge);
		return EINVAL;
	}
	if (len > UINT32_MAX) {
		sv_err("QP %#x: a WR of %llu bytes is longer than 2^32-1", qpn,
		       (unsigned long long)len);
		return EINVAL;
	}
	if (*opcode == SIW_OP_READ) {
		/* iWARP: an RDMA READ lands in one local buffer */
		if (wr->num_sge > 1) {
			sv_err("QP %#x: an RDMA READ takes one SGE on iWARP, not %d",
			       qpn, wr->num_sge);
			return EINVAL;
		}
		if (wr->send_flags & IBV_SEND_FENCE) {
			sv_err("QP %#x: siw cannot fence an RDMA READ", qpn);
			return EINVAL;
		}
	}
	return 0;
}

static void fill_sqe(struct siw_sqe *sqe, const struct ibv_send_wr *wr,
		     uint8_t opcode, int sig_all)
{
	uint16_t flags = SIW_WQE_VALID;

	sqe->id = wr->wr_id;
	sqe->opcode = opcode;
	sqe->rkey = 0;
	sqe->raddr = 0;
	switch (opcode) {
	case SIW_OP_WRITE:
	case SIW_OP_READ:
		sqe->raddr = wr->wr.rdma.remote_addr;
		sqe->rkey = wr->wr.rdma.rkey;
		break;
	case SIW_OP_SEND_REMOTE_INV:
	case SIW_OP_INVAL_STAG:
		sqe->rkey = wr->invalidate_rkey;
		break;
	default:
		break;
	}
	if (opcode == SIW_OP_INVAL_STAG) {
		sqe->num_sge = 0;
	} else if (wr->send_flags & IBV_SEND_INLINE) {
		/* the data follows sge[0], whose length says how much */
		char *data = (char *)&sqe->sge[1];
		uint32_t bytes = 0;

		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(data + bytes,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			bytes += wr->sg_list[i].length;
		}
		sqe->sge[0].laddr = 0;
		sqe->sge[0].lkey = 0;
		sqe->sge[0].length = bytes;
		sqe->num_sge = 1;
		flags |= SIW_WQE_INLINE;
	} else {
		sqe->num_sge = (uint8_t)wr->num_sge;
		if (wr->num_sge)
			memcpy(sqe->sge, wr->sg_list,
			       (size_t)wr->num_sge * sizeof(struct siw_sge));
	}
	if ((wr->send_flags & IBV_SEND_SIGNALED) || sig_all)
		flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		flags |= SIW_WQE_READ_FENCE;
	/* VALID last: from here on the element is siw's */
	__atomic_store_n(&sqe->flags, flags, __ATOMIC_RELEASE);
}

/* Take back the SQEs [from, to) siw has not picked up: the doorbell failed
 * (the QP is not connected), so the post must leave nothing behind. */
/* The bytes a WR's SGEs (or inline buffers) describe. */
static uint64_t wr_bytes(const struct ibv_send_wr *wr)
{
	uint64_t len = 0;

	for (int i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	return len;
}

static void sq_retract(struct siw_qp *qp, uint32_t from, uint32_t to)
{
	for (uint32_t n = from; n != to; n++) {
		struct siw_sqe *sqe = sq_elem(&qp->sq, n);
		uint16_t flags = __atomic_load_n(&sqe->flags, __ATOMIC_ACQUIRE);

		if (flags & SIW_WQE_VALID)
			__atomic_compare_exchange_n(&sqe->flags, &flags, 0, 0,
						    __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE);
	}
	qp->sq.put = from;
}

static int __attribute__((noinline))
post_list(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
	  struct ibv_send_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(ibqp);
	struct ibv_send_wr *first = wr;
	uint32_t start;
	int ret = 0;

	sv_lock(&qp->sq.lock);
	start = qp->sq.put;
	for (; wr; wr = wr->next) {
		struct siw_sqe *sqe = sq_elem(&qp->sq, qp->sq.put);
		uint8_t opcode;

		ret = check_send_wr(qp, wr, &opcode);
		if (ret)
			break;
		if (elem_busy(&sqe->flags)) {
			sv_explain_send_full(ibqp, qp->sq.num);
			ret = ENOMEM;
			break;
		}
		fill_sqe(sqe, wr, opcode, qp->sq_sig_all);
		qp->sq.put++;
		SV_PROBE(rdma_core_siw, post_send, qp->probe.dev, ibqp->qp_num,
			 qp->probe.opname[wr->opcode], wr_bytes(wr));
	}
	if (qp->sq.put != start) {
		uint32_t posted = qp->sq.put - start;
		int idle = 1;

		/* The element before our first is still VALID: siw has not
		 * taken it yet, and it walks on to ours when it does. Our
		 * VALID stores must be ordered before this load. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (posted < qp->sq.num)
			idle = !elem_busy(&sq_elem(&qp->sq, start - 1)->flags);
		if (idle) {
			int db = sv_cmd_doorbell_ring(&qp->db);

			if (db) {
				sv_err("QP %#x: send doorbell failed: %s (not connected?)",
				       ibqp->qp_num, strerror(db));
				sq_retract(qp, start, qp->sq.put);
				wr = first;
				ret = db;
			}
		}
	}
	sv_unlock(&qp->sq.lock);
	if (ret) {
		*bad_wr = wr;
		return SV_PROBE_ERR("ibv_post_send", ret);
	}
	return 0;
}

_Static_assert(IBV_SEND_SIGNALED << 1 == SIW_WQE_SIGNALLED &&
		       IBV_SEND_SOLICITED << 1 == SIW_WQE_SOLICITED &&
		       IBV_SEND_FENCE << 4 == SIW_WQE_READ_FENCE,
	       "sqe_flags shifts the send flags into siw's");

/* siw's flags word of a WQE without inline data: VALID and what the
 * send flags ask for. */
static inline uint16_t sqe_flags(const struct siw_qp *qp, unsigned int sf)
{
	return (uint16_t)(SIW_WQE_VALID |
			  ((sf & (IBV_SEND_SIGNALED | IBV_SEND_SOLICITED)) << 1) |
			  ((sf & IBV_SEND_FENCE) << 4) | qp->sig_flags);
}

/* The common case: one WR, one SGE, RDMA WRITE or SEND, written from
 * the WR's fields with no opcode switch and no call but the doorbell's;
 * anything else (and a full queue) goes to post_list, which says what is
 * wrong. The rules are post_list's. */
int siw_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(ibqp);
	const struct ibv_sge *sg;
	struct siw_sqe *sqe, *prev;
	unsigned int sf;
	uint32_t put, mask;
	enum ibv_wr_opcode wop;
	uint8_t opcode;
	int ret = 0;

	if (__builtin_expect(!wr || wr->next || wr->num_sge != 1 ||
				     !wr->sg_list || !qp->sq.max_sge,
			     0))
		return post_list(ibqp, wr, bad_wr);
	wop = wr->opcode; /* kept for the probe: no load there */
	if (wop == IBV_WR_RDMA_WRITE)
		opcode = SIW_OP_WRITE;
	else if (wop == IBV_WR_SEND)
		opcode = SIW_OP_SEND;
	else
		return post_list(ibqp, wr, bad_wr);
	sf = wr->send_flags;
	if (__builtin_expect(!!(sf & IBV_SEND_INLINE), 0))
		return post_list(ibqp, wr, bad_wr);
	sg = wr->sg_list;

	sv_lock(&qp->sq.lock);
	put = qp->sq.put;
	mask = qp->sq.num - 1;
	sqe = (struct siw_sqe *)qp->sq.ring + (put & mask);
	if (__builtin_expect(elem_busy(&sqe->flags), 0)) {
		sv_unlock(&qp->sq.lock);
		return post_list(ibqp, wr, bad_wr); /* says so: ENOMEM */
	}
	sqe->id = wr->wr_id;
	sqe->opcode = opcode;
	sqe->num_sge = 1;
	if (opcode == SIW_OP_WRITE) {
		sqe->raddr = wr->wr.rdma.remote_addr;
		sqe->rkey = wr->wr.rdma.rkey;
	} else {
		sqe->raddr = 0;
		sqe->rkey = 0;
	}
	memcpy(sqe->sge, sg, sizeof(struct siw_sge));
	/* VALID last: from here on the element is siw's */
	__atomic_store_n(&sqe->flags, sqe_flags(qp, sf), __ATOMIC_RELEASE);
	qp->sq.put = put + 1;
	SV_PROBE(rdma_core_siw, post_send, qp->probe.dev, ibqp->qp_num,
		 qp->probe.opname[wop], sg->length);
	/* as in post_list: ring only when siw's transmitter is idle, that
	 * is when the element before this one is not siw's (the ring's
	 * last when this is its first; none in a ring of one) */
	prev = put & mask ? sqe - 1 : sqe + mask;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!mask || !elem_busy(&prev->flags)) {
		ret = sv_cmd_doorbell_ring(&qp->db);
		if (__builtin_expect(ret != 0, 0)) {
			sv_err("QP %#x: send doorbell failed: %s (not connected?)",
			       ibqp->qp_num, strerror(ret));
			sq_retract(qp, put, put + 1);
			*bad_wr = wr;
			ret = SV_PROBE_ERR("ibv_post_send", ret);
		}
	}
	sv_unlock(&qp->sq.lock);
	return ret;
}

int siw_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(ibqp);

	if (!qp->rq.ring) {
		sv_err("QP %#x has no receive queue (it uses an SRQ, or max_recv_wr was 0)",
		       ibqp->qp_num);
		*bad_wr = wr;
		return SV_PROBE_ERR("ibv_post_recv", EINVAL);
	}
	return wq_post_recv(&qp->rq, wr, bad_wr);
}
