/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* siw completion queues: the kernel writes struct siw_cqe entries into a
 * mapped array and marks each one VALID; polling copies valid entries out
 * and hands the slot back by clearing its flags. Arming writes the control
 * word mapped right after the array: siw reads it whenever it adds a
 * completion, so req_notify_cq needs no system call. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "siw.h"

struct ibv_cq *siw_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct siw_uresp_create_cq resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct siw_cq *cq;
	void *map;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->core,
			       &udata);
	if (ret) {
		sv_err("CREATE_CQ with %d entries failed: %s", cqe,
		       strerror(ret));
		goto err_free;
	}
	if (resp.cq_key == SIW_INVAL_UOBJ_KEY || !resp.num_cqe) {
		sv_err("siw gave no mappable CQ (key %#llx, %u entries)",
		       (unsigned long long)resp.cq_key, resp.num_cqe);
		ret = EPROTO;
		goto err_destroy;
	}
	cq->num_cqe = resp.num_cqe;
	cq->map_len = (size_t)resp.num_cqe * sizeof(struct siw_cqe) +
		      sizeof(struct siw_cq_ctrl);
	map = mmap(NULL, cq->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ctx->cmd_fd, (off_t)resp.cq_key);
	if (map == MAP_FAILED) {
		ret = errno;
		sv_err("mapping the CQ (%zu bytes) failed: %s", cq->map_len,
		       strerror(errno));
		goto err_destroy;
	}
	cq->queue = map;
	cq->ctrl = (struct siw_cq_ctrl *)&cq->queue[cq->num_cqe];
	cq->probe_dev = ctx->device->name;
	sv_lock_init(&cq->lock);
	return &cq->core.cq;

err_destroy:
	sv_cmd_destroy_cq(&cq->core.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

/* The public opcode of each siw one a CQE can carry, RECV for the rest:
 * an entry for every byte a CQE's opcode can be, so that the lookup needs
 * no range check (the named ones override the range's default). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const uint8_t wc_opcodes[256] = {
	[0 ... 255] = IBV_WC_RECV,
	[SIW_OP_WRITE] = IBV_WC_RDMA_WRITE,
	[SIW_OP_READ] = IBV_WC_RDMA_READ,
	[SIW_OP_READ_LOCAL_INV] = IBV_WC_RDMA_READ,
	[SIW_OP_SEND] = IBV_WC_SEND,
	[SIW_OP_SEND_WITH_IMM] = IBV_WC_SEND,
	[SIW_OP_SEND_REMOTE_INV] = IBV_WC_SEND,
	[SIW_OP_FETCH_AND_ADD] = IBV_WC_RECV,
	[SIW_OP_COMP_AND_SWAP] = IBV_WC_RECV,
	[SIW_OP_RECEIVE] = IBV_WC_RECV,
	[SIW_OP_READ_RESPONSE] = IBV_WC_RECV,
	[SIW_OP_INVAL_STAG] = IBV_WC_LOCAL_INV,
	[SIW_OP_REG_MR] = IBV_WC_RECV,
};
#pragma GCC diagnostic pop
_Static_assert(IBV_WC_RECV < 256 && IBV_WC_LOCAL_INV < 256,
	       "wc_opcodes holds the public opcodes in bytes");

static enum ibv_wc_opcode wc_opcode(uint8_t siw_op)
{
	return (enum ibv_wc_opcode)wc_opcodes[siw_op];
}

static enum ibv_wc_status __attribute__((noinline)) wc_status(uint16_t siw_status)
{
	static const enum ibv_wc_status map[SIW_NUM_WC_STATUS] = {
		[SIW_WC_SUCCESS] = IBV_WC_SUCCESS,
		[SIW_WC_LOC_LEN_ERR] = IBV_WC_LOC_LEN_ERR,
		[SIW_WC_LOC_PROT_ERR] = IBV_WC_LOC_PROT_ERR,
		[SIW_WC_LOC_QP_OP_ERR] = IBV_WC_LOC_QP_OP_ERR,
		[SIW_WC_WR_FLUSH_ERR] = IBV_WC_WR_FLUSH_ERR,
		[SIW_WC_BAD_RESP_ERR] = IBV_WC_BAD_RESP_ERR,
		[SIW_WC_LOC_ACCESS_ERR] = IBV_WC_LOC_ACCESS_ERR,
		[SIW_WC_REM_ACCESS_ERR] = IBV_WC_REM_ACCESS_ERR,
		[SIW_WC_REM_INV_REQ_ERR] = IBV_WC_REM_INV_REQ_ERR,
		[SIW_WC_GENERAL_ERR] = IBV_WC_GENERAL_ERR,
	};

	return siw_status < SIW_NUM_WC_STATUS ? map[siw_status]
					      : IBV_WC_GENERAL_ERR;
}

static inline void copy_wc(struct ibv_wc *wc, const struct siw_cqe *cqe,
			   uint8_t flags)
{
	const uint16_t st = cqe->status;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->id;
	/* siw's own status is the vendor error of a failed completion */
	if (__builtin_expect(st != SIW_WC_SUCCESS, 0)) {
		wc->status = wc_status(st);
		wc->vendor_err = st;
	}
	wc->opcode = wc_opcode(cqe->opcode);
	wc->byte_len = cqe->bytes;
	wc->qp_num = (uint32_t)cqe->qp_id;
	if (flags & SIW_WQE_REM_INVAL) {
		wc->wc_flags = IBV_WC_WITH_INV;
		wc->invalidated_rkey = cqe->inval_stag;
	}
}

int siw_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct siw_cq *cq = to_siw_cq(ibcq);
	struct siw_cqe *queue;
	uint32_t get, mask;
	int n = 0;

	/* A negative count polls nothing, as rxe (and rdma-core's siw) do. */
	if (num_entries <= 0)
		return 0;
	if (!wc)
		return -SV_PROBE_ERR("ibv_poll_cq", EINVAL);
	sv_lock(&cq->lock);
	/* locals: the stores into wc[] could alias cq as far as the
	 * compiler knows */
	queue = cq->queue;
	mask = cq->num_cqe - 1;
	get = cq->get;
	while (n < num_entries) {
		struct siw_cqe *cqe = &queue[get & mask];
		uint8_t flags = __atomic_load_n(&cqe->flags, __ATOMIC_ACQUIRE);

		if (!(flags & SIW_WQE_VALID))
			break;
		copy_wc(wc, cqe, flags);
		/* the probe reads the entry back from memory: wc hidden from
		 * the compiler, which would otherwise keep each field it
		 * stored in a register of its own (callee-saved ones, pushed
		 * and popped on every poll, the empty ones too) */
		__asm__("" : "+r"(wc));
		SV_PROBE(softverbs, poll_cq, cq->probe_dev, ibcq->handle,
			 wc->qp_num, wc->wr_id, wc->status, wc->opcode,
			 wc->byte_len);
		wc++;
		n++;
		/* the slot is the kernel's again once its flags are clear */
		__atomic_store_n(&cqe->flags, 0, __ATOMIC_RELEASE);
		get++;
	}
	cq->get = get;
	sv_unlock(&cq->lock);
	return n;
}

int siw_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct siw_cq *cq = to_siw_cq(ibcq);
	uint32_t flags = SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION;

	/* siw 6.1 never marks a receive completion solicited (it tests the
	 * word with SIGNALLED only), so arming for solicited completions
	 * alone would never fire for the receives it is meant for. Arm for
	 * the next completion instead: an event too many is harmless (the
	 * application polls and re-arms), a missing one hangs it. */
	(void)solicited_only;
	/* Sequentially consistent: siw reads the word after writing a CQE,
	 * and the application polls after arming; neither may miss the
	 * other's store. siw clears it when it raises the event. */
	__atomic_store_n(&cq->ctrl->flags, flags, __ATOMIC_SEQ_CST);
	return 0;
}

int siw_destroy_cq(struct ibv_cq *ibcq)
{
	struct siw_cq *cq = to_siw_cq(ibcq);
	int ret;

	ret = sv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	munmap(cq->queue, cq->map_len);
	free(cq);
	return 0;
}
