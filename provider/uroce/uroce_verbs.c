/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's answers: device, port and GID queries from the interface under
 * the device (uroce_netdev.c), PDs kept in the process, MRs
 * (uroce_mr.c), CQs (uroce_cq.c, ibv_create_cq_ex's too), QPs
 * (uroce_qp.c, the ibv_wr_* API uroce_qp_ex.c, the requester
 * uroce_req.c, the responder uroce_resp.c, over uroce_net.c's socket),
 * SRQs (uroce_srq.c) and AHs (uroce_ah.c). Every other verb is the
 * core's EOPNOTSUPP default until the engine has it.
 *
 * The device attributes are rxe's (kernel 6.1, measured: kmod-notes/
 * rxe-siw.md), so that a program sized for rxe is sized for uroce; the
 * engine is to enforce them as rxe does. Ours by choice: vendor_id
 * 0xffffff (no IEEE OUI, as rxe), vendor_part_id 0x7572 ("ur", where
 * rxe says 0), fw_ver the softverbs release, one completion vector. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uroce.h"

/* rxe's limits (rxe_param.h; the values a 6.1 kernel reports) */
#define UROCE_MAX_QP 1048560
#define UROCE_MAX_QP_WR 1048576
#define UROCE_MAX_SGE 32
#define UROCE_MAX_CQ 1048576
#define UROCE_MAX_PD 1048576
#define UROCE_MAX_RD_ATOM 128
#define UROCE_MAX_RES_RD_ATOM 0x3f000
#define UROCE_MAX_SRQ 917503
#define UROCE_MAX_AH 32767
#define UROCE_MAX_PKEYS 64
#define UROCE_MAX_MCAST_GRP 8192
#define UROCE_MAX_MCAST_QP_ATTACH 56
#define UROCE_MAX_TOTAL_MCAST_QP_ATTACH 0x70000
#define UROCE_LOCAL_CA_ACK_DELAY 15
#define UROCE_PAGE_SIZE_CAP 0xfffff000ULL
/* BAD_PKEY_CNTR, BAD_QKEY_CNTR, AUTO_PATH_MIG, CHANGE_PHY_PORT,
 * UD_AV_PORT_ENFORCE, PORT_ACTIVE_EVENT, SYS_IMAGE_GUID, RC_RNR_NAK_GEN,
 * SRQ_RESIZE, MEM_WINDOW, MEM_MGT_EXTENSIONS, MEM_WINDOW_TYPE_2B */
#define UROCE_DEVICE_CAP_FLAGS 0x01223c76u
/* device_cap_flags_ex past the 32 bits above (the kernel's
 * IB_UVERBS_DEVICE_*, which Debian 12's headers lack): rxe from 6.2
 * reports FLUSH_GLOBAL (38), FLUSH_PERSISTENT (39) and ATOMIC_WRITE (40).
 * uroce reports 38 and 40: its FLUSH makes stores globally visible (a
 * fence), and it cannot make a process's memory persistent, so no 39. */
#define UROCE_CAP_FLUSH_GLOBAL (1ULL << 38)
#define UROCE_CAP_ATOMIC_WRITE (1ULL << 40)
#define UROCE_DEVICE_CAP_FLAGS_EX                                              \
	(UROCE_DEVICE_CAP_FLAGS | UROCE_CAP_FLUSH_GLOBAL | UROCE_CAP_ATOMIC_WRITE)
#define UROCE_VENDOR_ID 0xffffff
#define UROCE_VENDOR_PART_ID 0x7572
/* port 1: rxe's */
#define UROCE_GID_TBL_LEN 1024
#define UROCE_PKEY_TBL_LEN 1
#define UROCE_MAX_MSG_SZ 0x800000
#define UROCE_PORT_CAP_FLAGS IBV_PORT_CM_SUP
#define UROCE_SPEED_SDR 1
#define UROCE_WIDTH_1X 1

/* ---- attributes ---------------------------------------------------------- */

void uroce_fill_device_attr(const struct uroce_netdev *nd,
			    struct ibv_device_attr_ex *attr)
{
	struct ibv_device_attr *a = &attr->orig_attr;
	__be64 guid = htobe64(uroce_guid_of_mac(nd->mac));

	memset(attr, 0, sizeof(*attr));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%s", PACKAGE_VERSION);
	a->node_guid = guid;
	a->sys_image_guid = guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = UROCE_PAGE_SIZE_CAP;
	a->vendor_id = UROCE_VENDOR_ID;
	a->vendor_part_id = UROCE_VENDOR_PART_ID;
	a->hw_ver = 0;
	a->max_qp = UROCE_MAX_QP;
	a->max_qp_wr = UROCE_MAX_QP_WR;
	a->device_cap_flags = UROCE_DEVICE_CAP_FLAGS;
	a->max_sge = UROCE_MAX_SGE;
	a->max_sge_rd = UROCE_MAX_SGE;
	a->max_cq = UROCE_MAX_CQ;
	a->max_cqe = UROCE_MAX_CQE;
	a->max_mr = UROCE_MAX_MR;
	a->max_pd = UROCE_MAX_PD;
	a->max_qp_rd_atom = UROCE_MAX_RD_ATOM;
	a->max_res_rd_atom = UROCE_MAX_RES_RD_ATOM;
	a->max_qp_init_rd_atom = UROCE_MAX_RD_ATOM;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_mw = UROCE_MAX_MW;
	a->max_mcast_grp = UROCE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = UROCE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = UROCE_MAX_TOTAL_MCAST_QP_ATTACH;
	a->max_ah = UROCE_MAX_AH;
	a->max_srq = UROCE_MAX_SRQ;
	a->max_srq_wr = UROCE_MAX_SRQ_WR;
	a->max_srq_sge = UROCE_MAX_SRQ_SGE;
	a->max_pkeys = UROCE_MAX_PKEYS;
	a->local_ca_ack_delay = UROCE_LOCAL_CA_ACK_DELAY;
	a->phys_port_cnt = 1;
	attr->device_cap_flags_ex = UROCE_DEVICE_CAP_FLAGS_EX;
	attr->phys_port_cnt_ex = 1;
}

void uroce_fill_port_attr(const struct uroce_netdev *nd,
			  struct ibv_port_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->state = uroce_port_state(nd->flags);
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = uroce_active_mtu(nd->mtu);
	attr->gid_tbl_len = UROCE_GID_TBL_LEN;
	attr->port_cap_flags = UROCE_PORT_CAP_FLAGS;
	attr->max_msg_sz = UROCE_MAX_MSG_SZ;
	attr->pkey_tbl_len = UROCE_PKEY_TBL_LEN;
	attr->max_vl_num = 1;
	attr->active_width = UROCE_WIDTH_1X;
	attr->active_speed = UROCE_SPEED_SDR;
	attr->phys_state = uroce_phys_state(nd->flags);
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
}

/* The interface under the context's device now: 0 or a positive errno
 * (logged: the interface went away). */
static int netdev_of(struct ibv_context *ibctx, struct uroce_netdev *nd)
{
	struct uroce_context *ctx = to_uroce_context(ibctx);
	int ret = uroce_netdev_query(ctx->netdev, nd);

	if (ret)
		sv_err("%s: network interface %s: %s", ibctx->device->name,
		       ctx->netdev, strerror(ret));
	return ret;
}

static int uroce_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ibv_device_attr_ex full;
	struct uroce_netdev nd;
	int ret;

	(void)input;
	ret = netdev_of(ibctx, &nd);
	if (ret)
		return ret;
	uroce_fill_device_attr(&nd, &full);
	memcpy(attr, &full, attr_size < sizeof(full) ? attr_size : sizeof(full));
	return 0;
}

static int uroce_query_port(struct ibv_context *ibctx, uint8_t port_num,
			    struct ibv_port_attr *attr)
{
	struct uroce_netdev nd;
	int ret;

	if (port_num != 1) {
		sv_err("%s has one port, not %u", ibctx->device->name, port_num);
		return EINVAL;
	}
	ret = netdev_of(ibctx, &nd);
	if (ret)
		return ret;
	uroce_fill_port_attr(&nd, attr);
	return 0;
}

int uroce_query_gid(struct ibv_context *ibctx, uint32_t port_num,
		    uint32_t index, struct ibv_gid_entry *entry)
{
	union ibv_gid *gids;
	struct uroce_netdev nd;
	ssize_t n;
	int ret;

	if (port_num != 1 || index >= UROCE_GID_TBL_LEN)
		return EINVAL;
	ret = netdev_of(ibctx, &nd);
	if (ret)
		return ret;
	gids = calloc(index + 1, sizeof(*gids));
	if (!gids)
		return ENOMEM;
	n = uroce_gid_table(&nd, gids, index + 1);
	if (n < 0) {
		free(gids);
		return (int)-n;
	}
	if ((size_t)n <= index) {
		free(gids);
		return ENODATA;
	}
	memset(entry, 0, sizeof(*entry));
	entry->gid = gids[index];
	entry->gid_index = index;
	entry->port_num = port_num;
	entry->gid_type = IBV_GID_TYPE_ROCE_V2;
	entry->ndev_ifindex = nd.ifindex;
	free(gids);
	return 0;
}

/* rxe's one P_Key: the default, full membership */
int uroce_query_pkey(struct ibv_context *ibctx, uint8_t port_num, int index,
		     __be16 *pkey)
{
	(void)ibctx;
	if (port_num != 1)
		return EINVAL;
	if (index < 0 || index >= UROCE_PKEY_TBL_LEN)
		return ENOENT;
	*pkey = htobe16(0xffff);
	return 0;
}

/* ---- PDs ----------------------------------------------------------------- */

static struct ibv_pd *uroce_alloc_pd(struct ibv_context *ibctx)
{
	struct uroce_context *ctx = to_uroce_context(ibctx);
	struct uroce_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	pd->ibpd.context = ibctx;
	pthread_mutex_lock(&ctx->pd_lock);
	pd->ibpd.handle = ctx->next_pd_handle++;
	pd->next = ctx->pds.next;
	pd->prev = &ctx->pds;
	ctx->pds.next->prev = pd;
	ctx->pds.next = pd;
	pthread_mutex_unlock(&ctx->pd_lock);
	return &pd->ibpd;
}

static int uroce_dealloc_pd(struct ibv_pd *ibpd)
{
	struct uroce_context *ctx = to_uroce_context(ibpd->context);
	struct uroce_pd *pd = container_of(ibpd, struct uroce_pd, ibpd);

	pthread_mutex_lock(&ctx->pd_lock);
	pd->prev->next = pd->next;
	pd->next->prev = pd->prev;
	pthread_mutex_unlock(&ctx->pd_lock);
	free(pd);
	return 0;
}

/* ---- the context ----------------------------------------------------------- */

int uroce_context_init(struct uroce_context *ctx, const char *netdev)
{
	struct ibv_context *ibctx = &ctx->sv.vctx.context;
	int fds[2];

	memcpy(ctx->netdev, netdev, strlen(netdev) + 1);
	/* the async event fd: a pipe whose write end the engine will post
	 * struct ib_uverbs_async_event_desc to, as the kernel does */
	if (pipe2(fds, O_CLOEXEC))
		return errno;
	/* the engine never blocks on it: an event that finds it full is
	 * lost (and logged) */
	if (fcntl(fds[1], F_SETFL, O_NONBLOCK)) {
		int err = errno;

		close(fds[0]);
		close(fds[1]);
		return err;
	}
	ibctx->async_fd = fds[0];
	ctx->async_wr_fd = fds[1];
	ctx->sv.core.max_inline_data = UROCE_MAX_INLINE;
	ibctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->pd_lock, NULL);
	pthread_mutex_init(&ctx->qp_lock, NULL);
	ctx->pds.next = ctx->pds.prev = &ctx->pds;
	ctx->next_pd_handle = 1;
	return 0;
}

void uroce_context_release(struct uroce_context *ctx)
{
	struct uroce_pd *pd;

	/* the progress thread first: then nothing touches the QPs */
	uroce_net_stop(ctx);
	/* what the application did not free goes with the context, as the
	 * kernel frees a closed context's objects */
	uroce_mw_release_context(&ctx->sv.vctx.context);
	uroce_qp_release_context(ctx);
	uroce_srq_release_context(ctx);
	uroce_mr_release_context(&ctx->sv.vctx.context);
	uroce_cq_release_context(&ctx->sv.vctx.context);
	pd = ctx->pds.next;
	while (pd != &ctx->pds) {
		struct uroce_pd *next = pd->next;

		free(pd);
		pd = next;
	}
	pthread_mutex_destroy(&ctx->pd_lock);
	pthread_mutex_destroy(&ctx->qp_lock);
	close(ctx->async_wr_fd);
}

static const struct sv_context_ops uroce_ctx_ops = {
	.query_device_ex = uroce_query_device_ex,
	.query_port = uroce_query_port,
	.alloc_pd = uroce_alloc_pd,
	.dealloc_pd = uroce_dealloc_pd,
	.reg_mr = uroce_reg_mr,
	.rereg_mr = uroce_rereg_mr,
	.dereg_mr = uroce_dereg_mr,
	.alloc_mw = uroce_alloc_mw,
	.dealloc_mw = uroce_dealloc_mw,
	.bind_mw = uroce_bind_mw,
	.create_cq = uroce_create_cq,
	.create_cq_ex = uroce_create_cq_ex,
	.poll_cq = uroce_poll_cq,
	.req_notify_cq = uroce_req_notify_cq,
	.resize_cq = uroce_resize_cq,
	.destroy_cq = uroce_destroy_cq,
	.async_event = uroce_async_event,
	.create_qp = uroce_create_qp,
	.create_qp_ex = uroce_create_qp_ex,
	.modify_qp = uroce_modify_qp,
	.query_qp = uroce_query_qp,
	.destroy_qp = uroce_destroy_qp,
	.post_send = uroce_post_send,
	.post_recv = uroce_post_recv,
	.create_srq = uroce_create_srq,
	.create_srq_ex = uroce_create_srq_ex,
	.modify_srq = uroce_modify_srq,
	.query_srq = uroce_query_srq,
	.destroy_srq = uroce_destroy_srq,
	.post_srq_recv = uroce_post_srq_recv,
	.create_ah = uroce_create_ah,
	.destroy_ah = uroce_destroy_ah,
};

/* Not in the built-in list (lib/providers.c): no kernel device matches
 * it; the uroce driver opens its devices with it. */
const struct sv_provider uroce_provider = {
	.name = "uroce",
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.context_size = sizeof(struct uroce_context),
	.ops = &uroce_ctx_ops,
};
