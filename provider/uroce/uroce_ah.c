/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's address vectors: the AV of a connected QP (modify_qp to RTR)
 * and address handles for UD. On RoCE v2 an AV is a GRH: the peer's GID,
 * here an IPv4-mapped address (IPv6 peers are to come), and the index of
 * the local GID to send from, which must be the address the context's
 * socket is bound to (uroce_net.c binds one address). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uroce.h"

static bool gid_is_v4(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

static int check_sgid(struct uroce_context *ctx, const struct ibv_ah_attr *av)
{
	struct ibv_gid_entry e;
	in_addr_t bound;
	int ret = uroce_query_gid(&ctx->sv.vctx.context, 1,
				  av->grh.sgid_index, &e);

	if (ret) {
		sv_err("uroce: AV sgid_index %u: no such GID", av->grh.sgid_index);
		return EINVAL;
	}
	if (!gid_is_v4(&e.gid)) {
		sv_err("uroce: AV sgid_index %u is not an IPv4 GID; uroce sends from IPv4 only yet",
		       av->grh.sgid_index);
		return EINVAL;
	}
	pthread_mutex_lock(&ctx->qp_lock);
	bound = ctx->net ? uroce_net_addr(ctx) : 0;
	pthread_mutex_unlock(&ctx->qp_lock);
	if (bound && memcmp(&bound, e.gid.raw + 12, 4)) {
		char want[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &bound, want, sizeof(want));
		sv_err("uroce: AV sgid_index %u is not %s, the address uroce's socket is bound to",
		       av->grh.sgid_index, want);
		return EINVAL;
	}
	return 0;
}

int uroce_av_resolve(struct uroce_context *ctx, const struct ibv_ah_attr *av,
		     struct sockaddr_in *dst)
{
	if (av->port_num != 1) {
		sv_err("uroce: AV port_num %u: the device has port 1", av->port_num);
		return EINVAL;
	}
	if (!av->is_global) {
		sv_err("uroce: a RoCE AV needs a GRH (is_global = 1)");
		return EINVAL;
	}
	if (!gid_is_v4(&av->grh.dgid)) {
		sv_err("uroce: AV dgid is not IPv4-mapped; IPv6 peers are not supported yet");
		return EINVAL;
	}
	memset(dst, 0, sizeof(*dst));
	dst->sin_family = AF_INET;
	dst->sin_port = htons(UROCE_UDP_PORT);
	memcpy(&dst->sin_addr, av->grh.dgid.raw + 12, 4);
	return check_sgid(ctx, av);
}

struct ibv_ah *uroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct uroce_ah *ah;
	struct sockaddr_in dst;
	int ret = uroce_av_resolve(to_uroce_context(pd->context), attr, &dst);

	if (ret) {
		errno = ret;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	ah->ibah.handle = (uint32_t)(uintptr_t)ah;
	ah->dst = dst;
	ah->dgid = attr->grh.dgid;
	return &ah->ibah;
}

int uroce_destroy_ah(struct ibv_ah *ibah)
{
	free(to_uroce_ah(ibah));
	return 0;
}
