/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Device, port and GID commands: GET_CONTEXT, QUERY_DEVICE (+ex),
 * QUERY_PORT (ioctl, then write), QUERY_GID_ENTRY / QUERY_GID_TABLE
 * (ioctl, then sysfs). */
#include "config.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

int sv_cmd_get_context(struct ibv_context *ibctx, struct sv_udata *udata)
{
	struct ib_uverbs_get_context req = { 0 };
	struct ib_uverbs_get_context_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(ibctx, IB_USER_VERBS_CMD_GET_CONTEXT, &req,
			   sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	ibctx->async_fd = (int)resp.async_fd;
	ibctx->num_comp_vectors = (int)resp.num_comp_vectors;
	return sv_cmd_query_context(ibctx);
}

int sv_cmd_query_context_linked(struct ibv_context *ctx, uint32_t *vectors,
				const struct sv_ioctl_link *link)
{
	SV_IOCTL_DECLARE_LINKED(cmd, UVERBS_OBJECT_DEVICE,
				UVERBS_METHOD_QUERY_CONTEXT, 2, link);
	uint64_t core_support = 0;
	int ret;

	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, vectors,
		     sizeof(*vectors));
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
		     &core_support, sizeof(core_support));
	ret = sv_ioctl_exec(ctx, cmd);
	if (ret)
		return ret;
	sv_priv(ctx)->core_support = core_support;
	return 0;
}

int sv_cmd_query_context(struct ibv_context *ctx)
{
	uint32_t vectors = 0;
	int ret;

	/* Only the ioctl tells what the core supports (optional MR access
	 * bits); kernels without it support nothing optional. GET_CONTEXT
	 * has told the vector count already. */
	ret = sv_cmd_query_context_linked(ctx, &vectors, NULL);
	return sv_ioctl_unsupported(ret) ? 0 : ret;
}

int sv_cmd_query_port_speed_linked(struct ibv_context *ctx, uint32_t port_num,
				   uint64_t *speed,
				   const struct sv_ioctl_link *link)
{
	SV_IOCTL_DECLARE_LINKED(cmd, UVERBS_OBJECT_DEVICE,
				UVERBS_METHOD_QUERY_PORT_SPEED, 2, link);

	sv_ioctl_in_u64(cmd, UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, port_num);
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_PORT_SPEED_RESP, speed,
		     sizeof(*speed));
	return sv_ioctl_exec(ctx, cmd);
}

int sv_cmd_query_port_speed(struct ibv_context *ctx, uint32_t port_num,
			    uint64_t *speed)
{
	uint64_t v = 0;
	int ret;

	ret = sv_cmd_query_port_speed_linked(ctx, port_num, &v, NULL);
	if (sv_ioctl_unsupported(ret)) {
		/* no method (a kernel before it) or no driver op (rxe, siw) */
		sv_dbg("%s port %u: the kernel reports no effective speed (%s)",
		       ctx->device->name, port_num, strerror(ret));
		return EOPNOTSUPP;
	}
	if (ret)
		return ret;
	*speed = v;
	return 0;
}

#define END_OF(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

static void copy_base_attr(struct ibv_device_attr *a,
			   const struct ib_uverbs_query_device_resp *r)
{
	a->node_guid = r->node_guid;
	a->sys_image_guid = r->sys_image_guid;
	a->max_mr_size = r->max_mr_size;
	a->page_size_cap = r->page_size_cap;
	a->vendor_id = r->vendor_id;
	a->vendor_part_id = r->vendor_part_id;
	a->hw_ver = r->hw_ver;
	a->max_qp = (int)r->max_qp;
	a->max_qp_wr = (int)r->max_qp_wr;
	a->device_cap_flags = (unsigned int)r->device_cap_flags;
	a->max_sge = (int)r->max_sge;
	a->max_sge_rd = (int)r->max_sge_rd;
	a->max_cq = (int)r->max_cq;
	a->max_cqe = (int)r->max_cqe;
	a->max_mr = (int)r->max_mr;
	a->max_pd = (int)r->max_pd;
	a->max_qp_rd_atom = (int)r->max_qp_rd_atom;
	a->max_ee_rd_atom = (int)r->max_ee_rd_atom;
	a->max_res_rd_atom = (int)r->max_res_rd_atom;
	a->max_qp_init_rd_atom = (int)r->max_qp_init_rd_atom;
	a->max_ee_init_rd_atom = (int)r->max_ee_init_rd_atom;
	a->atomic_cap = (enum ibv_atomic_cap)r->atomic_cap;
	a->max_ee = (int)r->max_ee;
	a->max_rdd = (int)r->max_rdd;
	a->max_mw = (int)r->max_mw;
	a->max_raw_ipv6_qp = (int)r->max_raw_ipv6_qp;
	a->max_raw_ethy_qp = (int)r->max_raw_ethy_qp;
	a->max_mcast_grp = (int)r->max_mcast_grp;
	a->max_mcast_qp_attach = (int)r->max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = (int)r->max_total_mcast_qp_attach;
	a->max_ah = (int)r->max_ah;
	a->max_fmr = (int)r->max_fmr;
	a->max_map_per_fmr = (int)r->max_map_per_fmr;
	a->max_srq = (int)r->max_srq;
	a->max_srq_wr = (int)r->max_srq_wr;
	a->max_srq_sge = (int)r->max_srq_sge;
	a->max_pkeys = r->max_pkeys;
	a->local_ca_ack_delay = r->local_ca_ack_delay;
	a->phys_port_cnt = r->phys_port_cnt;
}

/* Copy the extended fields the kernel sent (response_length says how
 * many) and the caller has room for (attr_size). */
static void copy_ex_attr(struct ibv_device_attr_ex *a, size_t attr_size,
			 const struct ib_uverbs_ex_query_device_resp *r)
{
#define HAVE(ours, theirs)                                                    \
	(attr_size >= END_OF(struct ibv_device_attr_ex, ours) &&              \
	 r->response_length >=                                                \
		 END_OF(struct ib_uverbs_ex_query_device_resp, theirs))

	if (HAVE(odp_caps, odp_caps)) {
		a->odp_caps.general_caps = r->odp_caps.general_caps;
		a->odp_caps.per_transport_caps.rc_odp_caps =
			r->odp_caps.per_transport_caps.rc_odp_caps;
		a->odp_caps.per_transport_caps.uc_odp_caps =
			r->odp_caps.per_transport_caps.uc_odp_caps;
		a->odp_caps.per_transport_caps.ud_odp_caps =
			r->odp_caps.per_transport_caps.ud_odp_caps;
	}
	if (HAVE(completion_timestamp_mask, timestamp_mask))
		a->completion_timestamp_mask = r->timestamp_mask;
	if (HAVE(hca_core_clock, hca_core_clock))
		a->hca_core_clock = r->hca_core_clock;
	if (HAVE(device_cap_flags_ex, device_cap_flags_ex))
		a->device_cap_flags_ex = r->device_cap_flags_ex;
	if (HAVE(rss_caps, rss_caps)) {
		a->rss_caps.supported_qpts = r->rss_caps.supported_qpts;
		a->rss_caps.max_rwq_indirection_tables =
			r->rss_caps.max_rwq_indirection_tables;
		a->rss_caps.max_rwq_indirection_table_size =
			r->rss_caps.max_rwq_indirection_table_size;
	}
	if (HAVE(max_wq_type_rq, max_wq_type_rq))
		a->max_wq_type_rq = r->max_wq_type_rq;
	if (HAVE(raw_packet_caps, raw_packet_caps))
		a->raw_packet_caps = r->raw_packet_caps;
	if (HAVE(tm_caps, tm_caps)) {
		a->tm_caps.max_rndv_hdr_size = r->tm_caps.max_rndv_hdr_size;
		a->tm_caps.max_num_tags = r->tm_caps.max_num_tags;
		a->tm_caps.flags = r->tm_caps.flags;
		a->tm_caps.max_ops = r->tm_caps.max_ops;
		a->tm_caps.max_sge = r->tm_caps.max_sge;
	}
	if (HAVE(cq_mod_caps, cq_moderation_caps)) {
		a->cq_mod_caps.max_cq_count =
			r->cq_moderation_caps.max_cq_moderation_count;
		a->cq_mod_caps.max_cq_period =
			r->cq_moderation_caps.max_cq_moderation_period;
	}
	if (HAVE(max_dm_size, max_dm_size))
		a->max_dm_size = r->max_dm_size;
	if (HAVE(xrc_odp_caps, xrc_odp_caps))
		a->xrc_odp_caps = r->xrc_odp_caps;
#undef HAVE
	if (attr_size >= END_OF(struct ibv_device_attr_ex, phys_port_cnt_ex))
		a->phys_port_cnt_ex = a->orig_attr.phys_port_cnt;
}

int sv_cmd_query_device_ex(struct ibv_context *ctx,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size,
			   struct ib_uverbs_ex_query_device_resp *reply)
{
	struct ib_uverbs_ex_query_device_resp resp;
	struct sv_sysfs_dev *s;
	int ret;

	if (!ctx || !attr || (input && input->comp_mask) ||
	    attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	memset(attr, 0, attr_size);
	memset(&resp, 0, sizeof(resp));

	if (attr_size > sizeof(attr->orig_attr)) {
		struct ib_uverbs_ex_query_device req = { 0 };

		ret = sv_cmd_write_ex(ctx, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
				      &req, sizeof(req), &resp, sizeof(resp),
				      NULL);
		if (!ret && resp.response_length <
				    END_OF(struct ib_uverbs_ex_query_device_resp,
					   response_length)) {
			sv_err("QUERY_DEVICE_EX: short response (%u bytes)",
			       resp.response_length);
			return EPROTO;
		}
		if (ret && ret != EOPNOTSUPP && ret != ENOSYS)
			return ret;
		if (ret)
			attr_size = sizeof(attr->orig_attr);
	}
	if (attr_size == sizeof(attr->orig_attr)) {
		struct ib_uverbs_query_device req = { 0 };

		ret = sv_cmd_write(ctx, IB_USER_VERBS_CMD_QUERY_DEVICE, &req,
				   sizeof(req), &resp.base, sizeof(resp.base),
				   NULL);
		if (ret)
			return ret;
		resp.response_length = sizeof(resp.base);
	}
	copy_base_attr(&attr->orig_attr, &resp.base);
	copy_ex_attr(attr, attr_size, &resp);
	/* netlink counts the ports of devices with more than 255 */
	s = sv_device_sysfs(ctx->device);
	if (s && s->sd.num_ports &&
	    attr_size >= END_OF(struct ibv_device_attr_ex, phys_port_cnt_ex))
		attr->phys_port_cnt_ex = s->sd.num_ports;
	if (reply)
		*reply = resp;
	return 0;
}

static void copy_port_attr(struct ibv_port_attr *a,
			   const struct ib_uverbs_query_port_resp *r)
{
	a->state = (enum ibv_port_state)r->state;
	a->max_mtu = (enum ibv_mtu)r->max_mtu;
	a->active_mtu = (enum ibv_mtu)r->active_mtu;
	a->gid_tbl_len = (int)r->gid_tbl_len;
	a->port_cap_flags = r->port_cap_flags;
	a->max_msg_sz = r->max_msg_sz;
	a->bad_pkey_cntr = r->bad_pkey_cntr;
	a->qkey_viol_cntr = r->qkey_viol_cntr;
	a->pkey_tbl_len = r->pkey_tbl_len;
	a->lid = r->lid;
	a->sm_lid = r->sm_lid;
	a->lmc = r->lmc;
	a->max_vl_num = r->max_vl_num;
	a->sm_sl = r->sm_sl;
	a->subnet_timeout = r->subnet_timeout;
	a->init_type_reply = r->init_type_reply;
	a->active_width = r->active_width;
	a->active_speed = r->active_speed;
	a->phys_state = r->phys_state;
	a->link_layer = r->link_layer;
	a->flags = r->flags;
}

/* The ioctl's answer as kernels since 6.8 give it (active_speed_ex
 * where 6.1's uAPI header still has reserved bytes; 6.1 answers zero). */
struct sv_query_port_resp_ex {
	struct ib_uverbs_query_port_resp legacy_resp;
	uint16_t port_cap_flags2;
	uint8_t reserved[2];
	uint32_t active_speed_ex;
};
_Static_assert(sizeof(struct sv_query_port_resp_ex) ==
		       sizeof(struct ib_uverbs_query_port_resp_ex),
	       "the kernel's QUERY_PORT answer");

int sv_cmd_query_port(struct ibv_context *ctx, uint8_t port_num,
		      struct ibv_port_attr *attr, size_t attr_size)
{
	SV_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2);
	struct sv_query_port_resp_ex resp_ex = { 0 };
	union sv_port_attr a;
	int ret;

	if (!ctx || !attr || attr_size < SV_PORT_ATTR_SPEED_EX_OFF)
		return EINVAL;
	memset(&a, 0, sizeof(a));
	/* The ioctl form also reports port_cap_flags2 and active_speed_ex. */
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_QUERY_PORT_PORT_NUM, port_num);
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_PORT_RESP, &resp_ex,
		     sizeof(resp_ex));
	ret = sv_ioctl_exec(ctx, cmd);
	if (!ret) {
		copy_port_attr(&a.attr, &resp_ex.legacy_resp);
		a.attr.port_cap_flags2 = resp_ex.port_cap_flags2;
		sv_port_attr_set_speed_ex(&a, resp_ex.active_speed_ex);
	} else if (sv_ioctl_unsupported(ret)) {
		struct ib_uverbs_query_port req = { .port_num = port_num };
		struct ib_uverbs_query_port_resp resp = { 0 };

		ret = sv_cmd_write(ctx, IB_USER_VERBS_CMD_QUERY_PORT, &req,
				   sizeof(req), &resp, sizeof(resp), NULL);
		if (ret)
			return ret;
		copy_port_attr(&a.attr, &resp);
	} else {
		return ret;
	}
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

/* ---- GIDs --------------------------------------------------------------- */

static int gid_entry_ioctl(struct ibv_context *ctx, uint32_t port_num,
			   uint32_t index, struct ibv_gid_entry *entry)
{
	SV_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_GID_ENTRY, 4);
	struct ib_uverbs_gid_entry kentry = { 0 };
	int ret;

	sv_ioctl_in_u64(cmd, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, port_num);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, index);
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0);
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, &kentry,
		     sizeof(kentry));
	ret = sv_ioctl_exec(ctx, cmd);
	if (ret)
		return ret;
	memcpy(entry->gid.raw, kentry.gid, sizeof(entry->gid.raw));
	entry->gid_index = kentry.gid_index;
	entry->port_num = kentry.port_num;
	entry->gid_type = kentry.gid_type;
	entry->ndev_ifindex = kentry.netdev_ifindex;
	return 0;
}

/* Kernels without the ioctl: the same facts from sysfs. */
static int gid_entry_sysfs(struct ibv_context *ctx, uint32_t port_num,
			   uint32_t index, struct ibv_gid_entry *entry)
{
	const char *ibdev_path = ctx->device->ibdev_path;
	char file[64], buf[64];
	int n;

	memset(entry, 0, sizeof(*entry));
	entry->gid_index = index;
	entry->port_num = port_num;
	snprintf(file, sizeof(file), "ports/%u/gids/%u", port_num, index);
	if (sv_read_sysfs(ibdev_path, file, buf, sizeof(buf)) < 0)
		return EINVAL;
	for (int i = 0; i < 8; i++) {
		unsigned int v;

		if (sscanf(buf + i * 5, "%4x", &v) != 1)
			return EINVAL;
		entry->gid.raw[2 * i] = (uint8_t)(v >> 8);
		entry->gid.raw[2 * i + 1] = (uint8_t)v;
	}
	snprintf(file, sizeof(file), "ports/%u/gid_attrs/types/%u", port_num,
		 index);
	n = sv_read_sysfs(ibdev_path, file, buf, sizeof(buf));
	if (n > 0 && !strcmp(buf, "RoCE v2")) {
		entry->gid_type = IBV_GID_TYPE_ROCE_V2;
	} else {
		struct ibv_port_attr pattr;

		if (sv_cmd_query_port(ctx, (uint8_t)port_num, &pattr, sizeof(pattr)))
			return EINVAL;
		entry->gid_type = pattr.link_layer == IBV_LINK_LAYER_ETHERNET ?
			IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_IB;
	}
	snprintf(file, sizeof(file), "ports/%u/gid_attrs/ndevs/%u", port_num,
		 index);
	if (sv_read_sysfs(ibdev_path, file, buf, sizeof(buf)) > 0)
		entry->ndev_ifindex = if_nametoindex(buf);
	for (int i = 0; i < 16; i++)
		if (entry->gid.raw[i])
			return 0;
	return ENODATA;
}

/* A device whose GID table its driver keeps (struct sv_device_hooks),
 * or NULL: the kernel's. */
static int (*gid_hook(struct ibv_context *ctx))(struct ibv_context *,
						 uint32_t, uint32_t,
						 struct ibv_gid_entry *)
{
	struct sv_sysfs_dev *s = sv_device_sysfs(ctx->device);

	return s ? s->hooks->query_gid : NULL;
}

int sv_query_gid_entry(struct ibv_context *ctx, uint32_t port_num,
		       uint32_t index, struct ibv_gid_entry *entry)
{
	int ret;

	if (gid_hook(ctx))
		return gid_hook(ctx)(ctx, port_num, index, entry);
	ret = gid_entry_ioctl(ctx, port_num, index, entry);

	if (sv_ioctl_unsupported(ret))
		ret = gid_entry_sysfs(ctx, port_num, index, entry);
	return ret;
}

/* The table of a device whose driver keeps it: every port's entries up
 * to its gid_tbl_len, through the context's own queries. */
static ssize_t gid_table_of_driver(struct ibv_context *ctx,
				   struct ibv_gid_entry *entries,
				   size_t max_entries)
{
	struct verbs_ex_private *priv = sv_priv(ctx);
	struct ibv_device_attr_ex dattr;
	size_t n = 0;
	int ret;

	memset(&dattr, 0, sizeof(dattr));
	ret = priv->ops.query_device_ex(ctx, NULL, &dattr,
					sizeof(dattr.orig_attr));
	if (ret)
		return -ret;
	for (uint32_t port = 1; port <= dattr.orig_attr.phys_port_cnt; port++) {
		union sv_port_attr pattr;

		memset(&pattr, 0, sizeof(pattr));
		ret = priv->ops.query_port(ctx, (uint8_t)port, &pattr.attr);
		if (ret)
			return -ret;
		for (int i = 0; i < pattr.attr.gid_tbl_len; i++) {
			struct ibv_gid_entry e;

			ret = gid_hook(ctx)(ctx, port, (uint32_t)i, &e);
			if (ret == ENODATA)
				break; /* the driver's entries are packed */
			if (ret)
				return -ret;
			if (n == max_entries)
				return -EINVAL;
			entries[n++] = e;
		}
	}
	return (ssize_t)n;
}

/* The whole table: 0..max entries, or -errno. */
ssize_t sv_query_gid_table(struct ibv_context *ctx,
			   struct ibv_gid_entry *entries, size_t max_entries)
{
	SV_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_GID_TABLE, 4);
	struct ib_uverbs_gid_entry *kent;
	uint64_t num = 0;
	int ret;

	if (gid_hook(ctx))
		return gid_table_of_driver(ctx, entries, max_entries);
	if (max_entries > UINT16_MAX / sizeof(*kent))
		max_entries = UINT16_MAX / sizeof(*kent);
	kent = calloc(max_entries ? max_entries : 1, sizeof(*kent));
	if (!kent)
		return -ENOMEM;
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
			sizeof(*kent));
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0);
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, kent,
		     max_entries * sizeof(*kent));
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num,
		     sizeof(num));
	ret = sv_ioctl_exec(ctx, cmd);
	if (!ret) {
		if (num > max_entries)
			num = max_entries;
		for (size_t i = 0; i < num; i++) {
			memcpy(entries[i].gid.raw, kent[i].gid, 16);
			entries[i].gid_index = kent[i].gid_index;
			entries[i].port_num = kent[i].port_num;
			entries[i].gid_type = kent[i].gid_type;
			entries[i].ndev_ifindex = kent[i].netdev_ifindex;
		}
		free(kent);
		return (ssize_t)num;
	}
	free(kent);
	if (!sv_ioctl_unsupported(ret))
		return -ret;

	/* sysfs: walk every port's table, keep the valid entries */
	{
		struct ibv_device_attr dattr;
		struct ibv_device_attr_ex ex;
		size_t n = 0;

		ret = sv_cmd_query_device_ex(ctx, NULL, &ex, sizeof(ex.orig_attr),
					     NULL);
		if (ret)
			return -ret;
		dattr = ex.orig_attr;
		for (uint32_t port = 1; port <= dattr.phys_port_cnt; port++) {
			struct ibv_port_attr pattr;

			ret = sv_cmd_query_port(ctx, (uint8_t)port, &pattr, sizeof(pattr));
			if (ret)
				return -ret;
			for (int i = 0; i < pattr.gid_tbl_len; i++) {
				struct ibv_gid_entry e;

				ret = gid_entry_sysfs(ctx, port, (uint32_t)i, &e);
				if (ret == ENODATA)
					continue;
				if (ret)
					return -ret;
				if (n == max_entries)
					return -EINVAL;
				entries[n++] = e;
			}
		}
		return (ssize_t)n;
	}
}
