/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* features_probe -- what the running kernel's rxe can do, as an
 * application sees it through whichever libibverbs.so.1 it loaded (linked
 * against the system's; tests/integration/test_rxe_features.sh runs it on
 * rdma-core and on softverbs in the same boot and compares):
 *
 *   features_probe caps DEV           ibv_query_device_ex: ATOMIC WRITE,
 *                                     FLUSH, ODP capabilities
 *   features_probe atomic-write-ex DEV  ibv_wr_atomic_write on a loopback
 *                                     RC pair (IBV_QP_EX_WITH_ATOMIC_WRITE)
 *   features_probe atomic-write-post DEV  IBV_WR_ATOMIC_WRITE through
 *                                     ibv_post_send, 8 bytes in one SGE
 *   features_probe odp DEV            IBV_ACCESS_ON_DEMAND MRs: SEND/RECV,
 *                                     RDMA WRITE, READ, FETCH_ADD into them
 *   features_probe advise DEV         ibv_advise_mr on an ODP MR: prefetch,
 *                                     prefetch-write, the flush flag
 *   features_probe flush DEV          MRs with IBV_ACCESS_FLUSH_GLOBAL /
 *                                     _PERSISTENT; ibv_wr_flush on a
 *                                     loopback RC pair after an RDMA WRITE
 *                                     (range and whole-MR levels), and to
 *                                     an MR without the access flag
 *
 * One line per fact; lines starting "info:" are not compared. Exit 0 when
 * the probe ran (a refusal is a fact, printed), 1 when it could not
 * (no device, a setup step failed), 2 on usage. GID index: $RXE_GID. */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <infiniband/verbs.h>

/* device_cap_flags_ex bits that Debian 12's verbs.h (rdma-core 44) and
 * 6.1 uAPI headers do not name: rdma-core 45's IBV_DEVICE_FLUSH_GLOBAL,
 * IBV_DEVICE_FLUSH_PERSISTENT, IBV_DEVICE_ATOMIC_WRITE (= the kernel's
 * IB_UVERBS_DEVICE_* bits 38, 39, 40, include/uapi/rdma/ib_user_verbs.h) */
#define CAP_FLUSH_GLOBAL (1ULL << 38)
#define CAP_FLUSH_PERSISTENT (1ULL << 39)
#define CAP_ATOMIC_WRITE (1ULL << 40)

/* FLUSH as rdma-core 45's verbs.h names it (Debian 12's has none of it):
 * IBV_QP_EX_WITH_FLUSH, IBV_ACCESS_FLUSH_GLOBAL/_PERSISTENT,
 * IBV_FLUSH_GLOBAL/_PERSISTENT, IBV_FLUSH_RANGE/_MR, IBV_WC_FLUSH, and
 * ibv_qp_ex's wr_flush slot (offset 352, after wr_atomic_write) */
#define QP_EX_WITH_FLUSH (1ULL << 11)
#define ACCESS_FLUSH_GLOBAL (1 << 8)
#define ACCESS_FLUSH_PERSISTENT (1 << 9)
#define FLUSH_GLOBAL 1
#define FLUSH_PERSISTENT 2
#define FLUSH_RANGE 0
#define FLUSH_MR 1
#define WR_FLUSH_OFF 352
typedef void (*wr_flush_fn)(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
			    size_t len, uint8_t type, uint8_t level);

static const uint64_t pattern = 0x1122334455667788ULL;

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOSYS: return "ENOSYS";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	default: return "other";
	}
}

static void die(const char *what)
{
	fprintf(stderr, "features_probe: %s: %s\n", what, strerror(errno));
	exit(1);
}

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int gid_index;
	union ibv_gid gid;
	uint64_t caps;
	uint32_t odp_general, odp_rc;
};

static void open_dev(struct env *e, const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device_attr_ex attr;

	memset(e, 0, sizeof(*e));
	if (!list)
		die("ibv_get_device_list");
	for (int i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			e->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!e->ctx)
		die(name);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	if (!e->pd || !e->cq)
		die("alloc_pd/create_cq");
	e->gid_index = getenv("RXE_GID") ? atoi(getenv("RXE_GID")) : 1;
	if (ibv_query_gid(e->ctx, 1, e->gid_index, &e->gid))
		die("ibv_query_gid");
	memset(&attr, 0, sizeof(attr));
	if (ibv_query_device_ex(e->ctx, NULL, &attr))
		die("ibv_query_device_ex");
	e->caps = attr.device_cap_flags_ex;
	e->odp_general = (uint32_t)attr.odp_caps.general_caps;
	e->odp_rc = attr.odp_caps.per_transport_caps.rc_odp_caps;
}

/* More remote access for the QPs connect_qp sets up (the flush case:
 * the responder's QP needs IBV_ACCESS_FLUSH_GLOBAL too). */
static int extra_qp_access;

/* An RC QP, moved to RTS connected to remote_qpn on the same port (the
 * loopback: two QPs of one device). */
static void connect_qp(struct env *e, struct ibv_qp *qp, uint32_t remote_qpn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC | extra_qp_access;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = e->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)e->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
					  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RTS");
}

/* A QP: with send_ops_flags when ops != 0 (ibv_create_qp_ex), else plain.
 * NULL with errno when refused. */
static struct ibv_qp *make_qp(struct env *e, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 1;
	ia.pd = e->pd;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	if (ops) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = ops;
	}
	return ibv_create_qp_ex(e->ctx, &ia);
}

/* One completion within 5 s; its status and opcode, or -1 when none. */
static int poll_one(struct env *e, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(e->cq, 1, wc);

		if (n < 0)
			die("ibv_poll_cq");
		if (n)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return -1;
	}
}

static void print_wc(const char *what, struct env *e)
{
	struct ibv_wc wc;

	if (poll_one(e, &wc)) {
		printf("%s: no completion\n", what);
		return;
	}
	printf("%s: wc %s opcode %d\n", what, ibv_wc_status_str(wc.status),
	       (int)wc.opcode);
}

/* Two buffers of 64 bytes, MRs with access; the target word in the
 * middle of the second. */
/* each in a page of its own (mmap), as registered memory usually is */
struct bufs {
	uint64_t *src, *dst; /* 8 words each */
	struct ibv_mr *smr, *dmr;
};

static int reg_bufs(struct env *e, struct bufs *b, int access)
{
	b->src = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->dst = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->src == MAP_FAILED || b->dst == MAP_FAILED)
		die("mmap");
	memset(b->src, 0xaa, 64);
	memset(b->dst, 0x55, 64);
	b->smr = ibv_reg_mr(e->pd, b->src, 64, access);
	if (!b->smr)
		return errno;
	b->dmr = ibv_reg_mr(e->pd, b->dst, 64, access);
	if (!b->dmr) {
		int err = errno;

		ibv_dereg_mr(b->smr);
		return err;
	}
	return 0;
}

static void print_dst(const struct bufs *b, const char *what)
{
	int others = 1;

	for (int i = 0; i < 8; i++)
		if (i != 4 && b->dst[i] != 0x5555555555555555ULL)
			others = 0;
	if (b->dst[4] == pattern)
		printf("%s: remote word holds the 8 bytes\n", what);
	else if (b->dst[4] == (uint64_t)(uintptr_t)&b->src[0])
		printf("%s: remote word holds the SGE's address\n", what);
	else if (b->dst[4] == 0x5555555555555555ULL)
		printf("%s: remote word unchanged\n", what);
	else
		printf("%s: remote word %016" PRIx64 "\n", what, b->dst[4]);
	printf("%s: neighbours %s\n", what, others ? "untouched" : "CHANGED");
}

static int do_caps(struct env *e)
{
	printf("atomic_write: %s\n", e->caps & CAP_ATOMIC_WRITE ? "yes" : "no");
	printf("flush_global: %s\n", e->caps & CAP_FLUSH_GLOBAL ? "yes" : "no");
	printf("flush_persistent: %s\n",
	       e->caps & CAP_FLUSH_PERSISTENT ? "yes" : "no");
	printf("odp: %s\n", e->odp_general & IBV_ODP_SUPPORT ? "yes" : "no");
	printf("odp_rc_caps: %#x\n", e->odp_rc);
	return 0;
}

static int do_atomic_write(struct env *e, int ex)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ;
	struct ibv_qp *a, *b;
	struct bufs bf;
	int ret;

	a = make_qp(e, ex ? IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_ATOMIC_WRITE : 0);
	if (!a) {
		printf("create_qp: %s\n", err_name(errno));
		return 0;
	}
	printf("create_qp: ok\n");
	b = make_qp(e, 0);
	if (!b)
		die("create_qp (peer)");
	connect_qp(e, a, b->qp_num);
	connect_qp(e, b, a->qp_num);
	if ((ret = reg_bufs(e, &bf, access)))
		die("reg_mr");
	bf.src[0] = pattern;
	if (ex) {
		struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(a);

		if (!qx)
			die("ibv_qp_to_qp_ex");
		ibv_wr_start(qx);
		qx->wr_id = 1;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(qx, bf.dmr->rkey,
				    (uint64_t)(uintptr_t)&bf.dst[4], &bf.src[0]);
		ret = ibv_wr_complete(qx);
		printf("wr_complete: %s\n", err_name(ret));
	} else {
		struct ibv_sge sge = { .addr = (uintptr_t)&bf.src[0],
				       .length = 8, .lkey = bf.smr->lkey };
		struct ibv_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.opcode = IBV_WR_ATOMIC_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)&bf.dst[4];
		wr.wr.rdma.rkey = bf.dmr->rkey;
		ret = ibv_post_send(a, &wr, &bad);
		printf("post_send: %s\n", err_name(ret));
	}
	if (!ret) {
		print_wc("atomic_write", e);
		print_dst(&bf, "atomic_write");
	}
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dereg_mr(bf.smr);
	ibv_dereg_mr(bf.dmr);
	return 0;
}

/* ibv_wr_flush as a program built against rdma-core 45 or later calls
 * it (an inline call through the slot) */
static void wr_flush(struct ibv_qp_ex *qx, uint32_t rkey, uint64_t addr, size_t len,
		     uint8_t type, uint8_t level)
{
	wr_flush_fn f;

	memcpy(&f, (char *)qx + WR_FLUSH_OFF, sizeof(f));
	f(qx, rkey, addr, len, type, level);
}

/* A page and an MR over its first 64 bytes with access, or NULL (errno). */
static struct ibv_mr *reg_page(struct env *e, int access)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr;

	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 0x55, 64);
	mr = ibv_reg_mr(e->pd, p, 64, access);
	if (!mr) {
		int err = errno;

		munmap(p, 4096);
		errno = err;
	}
	return mr;
}

static void unreg_page(struct ibv_mr *mr)
{
	void *p = mr->addr;

	if (ibv_dereg_mr(mr))
		die("ibv_dereg_mr");
	munmap(p, 4096);
}

/* Status of the next completion (its opcode when it succeeded). */
static void print_wc_status(const char *what, struct env *e)
{
	struct ibv_wc wc;

	if (poll_one(e, &wc)) {
		printf("%s: no completion\n", what);
		return;
	}
	if (wc.status == IBV_WC_SUCCESS)
		printf("%s: wc success opcode %d\n", what, (int)wc.opcode);
	else
		printf("%s: wc %s\n", what, ibv_wc_status_str(wc.status));
}

static int do_flush(struct env *e)
{
	const int base = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_mr *gmr, *pmr, *plain, *smr;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	uint64_t *src;
	int ret;

	/* the registrations are the kernel's answer, on either library */
	gmr = reg_page(e, base | ACCESS_FLUSH_GLOBAL);
	printf("reg_mr flush_global: %s\n", gmr ? "ok" : err_name(errno));
	pmr = reg_page(e, base | ACCESS_FLUSH_PERSISTENT);
	printf("reg_mr flush_persistent (not persistent memory): %s\n", pmr ? "ok" : err_name(errno));
	if (pmr)
		unreg_page(pmr);
	a = make_qp(e, IBV_QP_EX_WITH_RDMA_WRITE | QP_EX_WITH_FLUSH);
	if (!a) {
		printf("create_qp: %s\n", err_name(errno));
		if (gmr)
			unreg_page(gmr);
		return 0;
	}
	printf("create_qp: ok\n");
	if (!gmr)
		die("reg_mr with IBV_ACCESS_FLUSH_GLOBAL failed where the QP takes FLUSH");
	b = make_qp(e, 0);
	plain = reg_page(e, base);
	smr = reg_page(e, base);
	if (!b || !plain || !smr)
		die("create_qp/reg_mr");
	/* (the responder checks its QP's access flags for FLUSH too) */
	extra_qp_access = ACCESS_FLUSH_GLOBAL;
	connect_qp(e, a, b->qp_num);
	connect_qp(e, b, a->qp_num);
	qx = ibv_qp_to_qp_ex(a);
	if (!qx)
		die("ibv_qp_to_qp_ex");
	src = smr->addr;
	for (int i = 0; i < 8; i++)
		src[i] = pattern + (uint64_t)i;

	/* RDMA WRITE, then FLUSH of its range, then of the whole MR */
	ibv_wr_start(qx);
	qx->wr_flags = IBV_SEND_SIGNALED;
	qx->wr_id = 1;
	ibv_wr_rdma_write(qx, gmr->rkey, (uintptr_t)gmr->addr);
	ibv_wr_set_sge(qx, smr->lkey, (uintptr_t)src, 64);
	qx->wr_id = 2;
	wr_flush(qx, gmr->rkey, (uintptr_t)gmr->addr, 64, FLUSH_GLOBAL, FLUSH_RANGE);
	qx->wr_id = 3;
	wr_flush(qx, gmr->rkey, (uintptr_t)gmr->addr, 0, FLUSH_GLOBAL, FLUSH_MR);
	ret = ibv_wr_complete(qx);
	printf("wr_complete: %s\n", err_name(ret));
	if (!ret) {
		print_wc_status("flush: the RDMA WRITE", e);
		print_wc_status("flush: FLUSH global, range", e);
		print_wc_status("flush: FLUSH global, whole MR", e);
		printf("flush: the written bytes %s\n",
		       memcmp(gmr->addr, src, 64) ? "ARE NOT in place" : "are in place");
	}

	/* a FLUSH without a placement type is refused before the kernel */
	ibv_wr_start(qx);
	wr_flush(qx, gmr->rkey, (uintptr_t)gmr->addr, 64, 0, FLUSH_RANGE);
	printf("flush type 0: wr_complete %s\n", err_name(ibv_wr_complete(qx)));

	/* to an MR registered without IBV_ACCESS_FLUSH_GLOBAL (last: the
	 * QP goes to the error state) */
	ibv_wr_start(qx);
	qx->wr_id = 4;
	wr_flush(qx, plain->rkey, (uintptr_t)plain->addr, 64, FLUSH_GLOBAL, FLUSH_RANGE);
	ret = ibv_wr_complete(qx);
	printf("flush without the access flag: wr_complete %s\n", err_name(ret));
	if (!ret)
		print_wc_status("flush without the access flag", e);

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	unreg_page(gmr);
	unreg_page(plain);
	unreg_page(smr);
	return 0;
}

/* One WR from qp a: 8 bytes of src to dst[4] (or back, or an atomic). */
static void odp_op(struct env *e, struct ibv_qp *a, struct ibv_qp *b,
		   struct bufs *bf, enum ibv_wr_opcode op, const char *name,
		   unsigned int off_words)
{
	struct ibv_sge sge = { .addr = (uintptr_t)&bf->src[0], .length = 8,
			       .lkey = bf->smr->lkey };
	/* copies at the start of the page (Debian 7.2.13's rxe loses the
	 * in-page offset of ODP copies, see do_odp), atomics at word 4 */
	const int w = op == IBV_WR_ATOMIC_FETCH_AND_ADD ? 4 : (int)off_words;
	struct ibv_sge rsge = { .addr = (uintptr_t)&bf->dst[w], .length = 8,
				.lkey = bf->dmr->lkey };
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_recv_wr rwr, *rbad = NULL;
	struct ibv_wc wc;
	int ret, n = 1;

	memset(bf->dst, 0x55, 64);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	bf->src[0] = pattern;
	switch (op) {
	case IBV_WR_SEND:
		memset(&rwr, 0, sizeof(rwr));
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		if (ibv_post_recv(b, &rwr, &rbad))
			die("post_recv");
		n = 2;
		break;
	case IBV_WR_RDMA_READ:
		/* read dst[4] (holding the pattern) into src[0] */
		bf->dst[w] = pattern;
		bf->src[0] = 0;
		/* fall through */
	case IBV_WR_RDMA_WRITE:
		wr.wr.rdma.remote_addr = (uintptr_t)&bf->dst[w];
		wr.wr.rdma.rkey = bf->dmr->rkey;
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		bf->dst[4] = 40;
		bf->src[0] = 0;
		wr.wr.atomic.remote_addr = (uintptr_t)&bf->dst[4];
		wr.wr.atomic.rkey = bf->dmr->rkey;
		wr.wr.atomic.compare_add = 2;
		break;
	default:
		break;
	}
	ret = ibv_post_send(a, &wr, &bad);
	if (ret) {
		printf("odp %s: post %s\n", name, err_name(ret));
		return;
	}
	for (int i = 0; i < n; i++) {
		if (poll_one(e, &wc)) {
			printf("odp %s: no completion\n", name);
			return;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("odp %s: wc %s\n", name, ibv_wc_status_str(wc.status));
			return;
		}
	}
	if (off_words && op == IBV_WR_RDMA_WRITE) {
		/* a fact of the kernel, the same on every library */
		printf("odp %s: the 8 bytes land at byte %s\n", name,
		       bf->dst[off_words] == pattern ? "32 (as addressed)" :
		       bf->dst[0] == pattern ? "0 (the page's start)" : "neither 0 nor 32");
		return;
	}
	switch (op) {
	case IBV_WR_RDMA_READ:
		printf("odp %s: %s\n", name, bf->src[0] == pattern ? "data ok" : "WRONG DATA");
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		printf("odp %s: %s\n", name,
		       bf->src[0] == 40 && bf->dst[4] == 42 ? "data ok" : "WRONG DATA");
		break;
	default:
		printf("odp %s: %s\n", name, bf->dst[w] == pattern ? "data ok" : "WRONG DATA");
	}
}

static int do_odp(struct env *e)
{
	const int access = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_qp *a, *b;
	struct bufs bf;
	int ret;

	ret = reg_bufs(e, &bf, access);
	printf("odp reg_mr: %s\n", ret ? err_name(ret) : "ok");
	if (ret)
		return 0;
	a = make_qp(e, 0);
	b = make_qp(e, 0);
	if (!a || !b)
		die("create_qp");
	connect_qp(e, a, b->qp_num);
	connect_qp(e, b, a->qp_num);
	odp_op(e, a, b, &bf, IBV_WR_SEND, "send/recv", 0);
	odp_op(e, a, b, &bf, IBV_WR_RDMA_WRITE, "rdma_write", 0);
	odp_op(e, a, b, &bf, IBV_WR_RDMA_READ, "rdma_read", 0);
	odp_op(e, a, b, &bf, IBV_WR_ATOMIC_FETCH_AND_ADD, "fetch_add", 0);
	/* Debian 7.2.13's rxe copies ODP data to and from the start of the
	 * page (rxe_odp.c __rxe_odp_mr_copy computes the in-page offset
	 * and does not add it): an RDMA WRITE 32 bytes into the page */
	odp_op(e, a, b, &bf, IBV_WR_RDMA_WRITE, "rdma_write+32", 4);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dereg_mr(bf.smr);
	ibv_dereg_mr(bf.dmr);
	return 0;
}

static int do_advise(struct env *e)
{
	const int access = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	static char buf[1 << 16];
	struct ibv_mr *mr;
	struct ibv_sge sge;

	mr = ibv_reg_mr(e->pd, buf, sizeof(buf), access);
	if (!mr) {
		/* the verb still answers: on a plain MR */
		printf("advise: odp reg_mr %s\n", err_name(errno));
		mr = ibv_reg_mr(e->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		if (!mr)
			die("reg_mr");
	}
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = sizeof(buf),
				.lkey = mr->lkey };
	printf("advise prefetch: %s\n",
	       err_name(ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1)));
	printf("advise prefetch_write: %s\n",
	       err_name(ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0, &sge, 1)));
	printf("advise prefetch+flush: %s\n",
	       err_name(ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
				      IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1)));
	/* libraries may refuse bad arguments before or after the kernel:
	 * shown, not compared */
	printf("info: advise with no SGE: %s\n",
	       err_name(ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 0)));
	ibv_dereg_mr(mr);
	return 0;
}

int main(int argc, char **argv)
{
	struct env e;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: features_probe caps|atomic-write-ex|atomic-write-post|odp|advise|flush DEV\n");
		return 2;
	}
	open_dev(&e, argv[2]);
	if (!strcmp(argv[1], "caps")) {
		ret = do_caps(&e);
	} else if (!strcmp(argv[1], "atomic-write-ex")) {
		ret = do_atomic_write(&e, 1);
	} else if (!strcmp(argv[1], "atomic-write-post")) {
		ret = do_atomic_write(&e, 0);
	} else if (!strcmp(argv[1], "odp")) {
		ret = do_odp(&e);
	} else if (!strcmp(argv[1], "advise")) {
		ret = do_advise(&e);
	} else if (!strcmp(argv[1], "flush")) {
		ret = do_flush(&e);
	} else {
		fprintf(stderr, "features_probe: unknown case %s\n", argv[1]);
		ret = 2;
	}
	/* everything released: the sanitized pass checks for leaks */
	if (ibv_destroy_cq(e.cq) || ibv_dealloc_pd(e.pd) || ibv_close_device(e.ctx))
		die("releasing the CQ, PD, device");
	return ret;
}
