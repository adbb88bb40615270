/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Helpers of the rxe data-path integration tests (tests/integration/
 * test_rxe_*.c): open $RXE_DEV, build pairs of QPs connected to each other
 * on the one device (loopback), register buffers, wait for completions.
 * Every helper asserts (Check) instead of returning errors. */
#ifndef RXE_UTIL_H
#define RXE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* Generous bound on waiting for one completion or event: a guard against
 * hanging, not a timing requirement. */
#define RX_WAIT_SECONDS 60

struct rx_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t port;
	int gid_index;
	union ibv_gid gid;
};

/* How rx_pair_create connects the two QPs. Zero means the default. */
struct rx_pair_opts {
	uint32_t max_send_wr;     /* 64 */
	uint32_t max_recv_wr;     /* 64 */
	uint32_t max_sge;         /* 4 (send and receive) */
	uint32_t max_inline;      /* 64 */
	int cqe;                  /* 256 */
	uint8_t rnr_retry;        /* RC: 7 (infinite) unless rnr_set */
	int rnr_set;
	uint8_t min_rnr_timer;    /* RC responder: 1 */
	uint8_t timeout;          /* RC: 14 */
	uint8_t retry_cnt;        /* RC: 7 */
	struct ibv_srq *srq;      /* side 1 receives from this SRQ */
	int no_connect;           /* leave both QPs in RESET */
	uint32_t dest_qpn_override; /* side 0 sends to this QPN (dead peer) */
	uint64_t send_ops;        /* create QPs with these send_ops_flags
				   * (ibv_create_qp_ex) */
	uint64_t cq_ex_flags;     /* create CQs with ibv_create_cq_ex */
};

/* Two QPs of one type; side 0 and side 1 each have their own CQs. For UD,
 * ah[i] addresses the other side. */
struct rx_pair {
	enum ibv_qp_type type;
	struct ibv_cq *scq[2], *rcq[2];
	struct ibv_cq_ex *scqx[2], *rcqx[2]; /* with cq_ex_flags */
	struct ibv_qp *qp[2];
	struct ibv_ah *ah[2];
	struct ibv_qp_init_attr init[2]; /* caps as granted */
};

#define RX_UD_QKEY 0x11111111u
#define RX_GRH 40 /* bytes a UD receive gets before the payload */

/* Open $RXE_DEV and allocate a PD (asserts). */
void rx_dev_open(struct rx_dev *d);
void rx_dev_close(struct rx_dev *d);

void rx_pair_create(struct rx_dev *d, struct rx_pair *p,
		    enum ibv_qp_type type, const struct rx_pair_opts *opts);
void rx_pair_destroy(struct rx_pair *p);
/* Move QP side to state (INIT/RTR/RTS/ERR/RESET), the way the pair
 * connects them; asserts success. */
void rx_qp_to(struct rx_dev *d, struct rx_pair *p, int side,
	      enum ibv_qp_state state, const struct rx_pair_opts *opts);

/* A buffer of len bytes (page aligned, zeroed) registered with access. */
struct rx_buf {
	uint8_t *addr;
	size_t len;
	struct ibv_mr *mr;
};
void rx_buf_alloc(struct rx_dev *d, struct rx_buf *b, size_t len, int access);
void rx_buf_free(struct rx_buf *b);
/* Fill with a pattern that depends on seed and offset. */
void rx_fill(void *p, size_t len, unsigned int seed);
/* Index of the first byte that differs, or -1. */
long rx_diff(const void *a, const void *b, size_t len);

/* Post one receive / send, asserting the post succeeded. */
void rx_post_recv(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sge,
		  int num_sge);
void rx_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr);

/* Wait for exactly one completion on cq (asserts one arrives). */
void rx_wait_wc(struct ibv_cq *cq, struct ibv_wc *wc);
/* No completion is waiting on cq right now. */
int rx_cq_empty(struct ibv_cq *cq);
/* Wait for the next async event (asserts one arrives), acked by the
 * caller. */
void rx_wait_async(struct ibv_context *ctx, struct ibv_async_event *ev);

/* 0 when the test can run: $RXE_DEV exists and the library in use is
 * softverbs; else prints why and returns 77 (skip) or 1 (wrong
 * library). */
int rx_precheck(void);

#endif
