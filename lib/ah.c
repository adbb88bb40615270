/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Address handles built from a received completion (ibv_init_ah_from_wc,
 * ibv_create_ah_from_wc): the reply path of UD and of RoCE responders. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "core.h"

/* The source GID the reply must use: the table entry equal to the GID the
 * request was sent to. Index or -errno. */
static int find_sgid_index(struct ibv_context *ctx, uint8_t port_num,
			   const union ibv_gid *gid, int want_v2)
{
	struct ibv_port_attr pattr;
	int ret;

	ret = sv_query_port(ctx, port_num, &pattr, sizeof(pattr));
	if (ret)
		return -ret;
	for (int i = 0; i < pattr.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (sv_query_gid_entry(ctx, port_num, (uint32_t)i, &e))
			continue;
		if (memcmp(e.gid.raw, gid->raw, 16))
			continue;
		if (want_v2 && e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		return i;
	}
	return -ENOENT;
}

SV_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context,
				  uint8_t port_num, struct ibv_wc *wc,
				  struct ibv_grh *grh,
				  struct ibv_ah_attr *ah_attr)
{
	union ibv_gid sgid;
	int v2 = 0, idx;

	if (!context || !wc || !ah_attr || ((wc->wc_flags & IBV_WC_GRH) && !grh)) {
		errno = EINVAL;
		return -1;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;

	ah_attr->is_global = 1;
	ah_attr->grh.hop_limit = 0xff;
	if ((((const uint8_t *)grh)[0] >> 4) == 6) {
		uint32_t vtf = be32toh(grh->version_tclass_flow);

		ah_attr->grh.dgid = grh->sgid;
		ah_attr->grh.flow_label = vtf & 0xfffff;
		ah_attr->grh.traffic_class = (uint8_t)(vtf >> 20);
		sgid = grh->dgid;
	} else {
		/* RoCE v2 over IPv4: the 40-byte area holds the IPv4 header
		 * in its last 20 bytes; the GIDs are IPv4-mapped */
		const uint8_t *ip = (const uint8_t *)grh + 20;

		if ((ip[0] >> 4) != 4) {
			errno = EINVAL;
			return -1;
		}
		memset(&ah_attr->grh.dgid, 0, sizeof(ah_attr->grh.dgid));
		ah_attr->grh.dgid.raw[10] = ah_attr->grh.dgid.raw[11] = 0xff;
		memcpy(&ah_attr->grh.dgid.raw[12], ip + 12, 4);
		ah_attr->grh.traffic_class = ip[1];
		memset(&sgid, 0, sizeof(sgid));
		sgid.raw[10] = sgid.raw[11] = 0xff;
		memcpy(&sgid.raw[12], ip + 16, 4);
		v2 = 1;
	}
	idx = find_sgid_index(context, port_num, &sgid, v2);
	if (idx < 0) {
		errno = -idx;
		return -1;
	}
	ah_attr->grh.sgid_index = (uint8_t)idx;
	return 0;
}

SV_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
					       struct ibv_wc *wc,
					       struct ibv_grh *grh,
					       uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}
