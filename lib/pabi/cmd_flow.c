/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 44's flow steering helpers (IBVERBS_PRIVATE_34): CREATE_FLOW
 * and DESTROY_FLOW, extended write commands. The application describes a
 * flow with struct ibv_flow_spec entries (verbs.h); the kernel takes its
 * own struct ib_uverbs_flow_spec_* layouts (ib_user_verbs.h), so each
 * entry is translated here, as rdma-core's core does. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "pabi.h"

/* The first IPv4 spec: addresses only. rdma-core keeps sending this
 * shorter layout for IBV_FLOW_SPEC_IPV4; the kernel takes a filter
 * shorter than its own and treats the rest as unmasked. */
struct kern_spec_ipv4 {
	uint32_t type;
	uint16_t size;
	uint16_t reserved;
	struct ibv_flow_ipv4_filter val;
	struct ibv_flow_ipv4_filter mask;
};

/* Room for any one translated entry. */
union kern_spec {
	struct ib_uverbs_flow_spec_hdr hdr;
	struct ib_uverbs_flow_spec_eth eth;
	struct kern_spec_ipv4 ipv4;
	struct ib_uverbs_flow_spec_ipv4 ipv4_ext;
	struct ib_uverbs_flow_spec_ipv6 ipv6;
	struct ib_uverbs_flow_spec_esp esp;
	struct ib_uverbs_flow_spec_tcp_udp tcp_udp;
	struct ib_uverbs_flow_spec_gre gre;
	struct ib_uverbs_flow_spec_tunnel tunnel;
	struct ib_uverbs_flow_spec_mpls mpls;
	struct ib_uverbs_flow_spec_action_tag tag;
	struct ib_uverbs_flow_spec_action_drop drop;
	struct ib_uverbs_flow_spec_action_handle handle;
	struct ib_uverbs_flow_spec_action_count count;
};

/* Where verbs.h and the kernel agree on a filter's size, entries are
 * copied as they are. */
_Static_assert(sizeof(struct ibv_flow_eth_filter) ==
		       sizeof(struct ib_uverbs_flow_eth_filter) &&
	       sizeof(struct ibv_flow_tcp_udp_filter) ==
		       sizeof(struct ib_uverbs_flow_tcp_udp_filter) &&
	       sizeof(struct ibv_flow_esp_filter) ==
		       sizeof(struct ib_uverbs_flow_spec_esp_filter) &&
	       sizeof(struct ibv_flow_gre_filter) ==
		       sizeof(struct ib_uverbs_flow_gre_filter) &&
	       sizeof(struct ibv_flow_mpls_filter) ==
		       sizeof(struct ib_uverbs_flow_mpls_filter),
	       "filters of fixed size match the kernel's");

/* A fixed-size match: header, then value and mask of flen bytes each. */
static void put_match(union kern_spec *k, uint32_t type, uint16_t ksize,
		      const void *val, const void *mask, size_t flen)
{
	uint8_t *f = (uint8_t *)&k->hdr + sizeof(k->hdr);

	k->hdr.type = type;
	k->hdr.size = ksize;
	memcpy(f, val, flen);
	memcpy(f + flen, mask, flen);
}

/* A match whose filter grew over time (IPv4 ext, IPv6, VXLAN): the
 * application's entry says by its size how long its filter is; value and
 * mask follow each other at that length. The kernel must know at least
 * `min_len` bytes; whatever the application has beyond what the kernel
 * takes (`kern_len`) must not be masked. */
static int put_grown_match(union kern_spec *k, uint32_t type, uint16_t ksize,
			   const struct ibv_flow_spec *ib, const void *ib_val,
			   size_t min_len, size_t kern_len)
{
	uint8_t *f = (uint8_t *)&k->hdr + sizeof(k->hdr);
	const uint8_t *val = ib_val, *mask;
	size_t ib_len, i;

	if (ib->hdr.size < sizeof(ib->hdr))
		return EINVAL;
	ib_len = (ib->hdr.size - sizeof(ib->hdr)) / 2;
	if (ib_len < min_len)
		return EINVAL;
	mask = val + ib_len;
	for (i = kern_len; i < ib_len; i++)
		if (mask[i])
			return EOPNOTSUPP;
	if (ib_len < kern_len)
		kern_len = ib_len;
	k->hdr.type = type;
	k->hdr.size = ksize;
	/* the kernel's filter stays at its full size, zero-padded */
	memcpy(f, val, kern_len);
	memcpy(f + (ksize - sizeof(k->hdr)) / 2, mask, kern_len);
	return 0;
}

#define END_OF(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* Translate one entry into k: 0, EINVAL (unknown or malformed), or
 * EOPNOTSUPP (masks bits this kernel interface cannot express). */
static int spec_to_kern(const struct ibv_flow_spec *ib, union kern_spec *k)
{
	uint32_t type = (uint32_t)ib->hdr.type;
	uint32_t inner = type & IBV_FLOW_SPEC_INNER;

	switch (type) {
	case IBV_FLOW_SPEC_ETH:
	case IBV_FLOW_SPEC_ETH | IBV_FLOW_SPEC_INNER:
		put_match(k, type, sizeof(k->eth), &ib->eth.val, &ib->eth.mask,
			  sizeof(ib->eth.val));
		return 0;
	case IBV_FLOW_SPEC_IPV4:
	case IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER:
		put_match(k, type, sizeof(k->ipv4), &ib->ipv4.val,
			  &ib->ipv4.mask, sizeof(ib->ipv4.val));
		return 0;
	case IBV_FLOW_SPEC_IPV4_EXT:
	case IBV_FLOW_SPEC_IPV4_EXT | IBV_FLOW_SPEC_INNER:
		/* the kernel's IPv4 spec is the extended one */
		return put_grown_match(
			k, IBV_FLOW_SPEC_IPV4 | inner, sizeof(k->ipv4_ext), ib,
			&ib->ipv4_ext.val,
			END_OF(struct ib_uverbs_flow_ipv4_filter, flags),
			END_OF(struct ib_uverbs_flow_ipv4_filter, flags));
	case IBV_FLOW_SPEC_IPV6:
	case IBV_FLOW_SPEC_IPV6 | IBV_FLOW_SPEC_INNER:
		return put_grown_match(
			k, type, sizeof(k->ipv6), ib, &ib->ipv6.val,
			END_OF(struct ib_uverbs_flow_ipv6_filter, hop_limit),
			END_OF(struct ib_uverbs_flow_ipv6_filter, hop_limit));
	case IBV_FLOW_SPEC_ESP:
	case IBV_FLOW_SPEC_ESP | IBV_FLOW_SPEC_INNER:
		put_match(k, type, sizeof(k->esp), &ib->esp.val, &ib->esp.mask,
			  sizeof(ib->esp.val));
		return 0;
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
	case IBV_FLOW_SPEC_TCP | IBV_FLOW_SPEC_INNER:
	case IBV_FLOW_SPEC_UDP | IBV_FLOW_SPEC_INNER:
		put_match(k, type, sizeof(k->tcp_udp), &ib->tcp_udp.val,
			  &ib->tcp_udp.mask, sizeof(ib->tcp_udp.val));
		return 0;
	case IBV_FLOW_SPEC_GRE:
		put_match(k, type, sizeof(k->gre), &ib->gre.val, &ib->gre.mask,
			  sizeof(ib->gre.val));
		return 0;
	case IBV_FLOW_SPEC_MPLS:
	case IBV_FLOW_SPEC_MPLS | IBV_FLOW_SPEC_INNER:
		put_match(k, type, sizeof(k->mpls), &ib->mpls.val,
			  &ib->mpls.mask, sizeof(ib->mpls.val));
		return 0;
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		return put_grown_match(
			k, type, sizeof(k->tunnel), ib, &ib->tunnel.val,
			END_OF(struct ib_uverbs_flow_tunnel_filter, tunnel_id),
			END_OF(struct ib_uverbs_flow_tunnel_filter, tunnel_id));
	case IBV_FLOW_SPEC_ACTION_TAG:
		k->tag.type = type;
		k->tag.size = sizeof(k->tag);
		k->tag.tag_id = ib->flow_tag.tag_id;
		return 0;
	case IBV_FLOW_SPEC_ACTION_DROP:
		k->drop.type = type;
		k->drop.size = sizeof(k->drop);
		return 0;
	case IBV_FLOW_SPEC_ACTION_HANDLE:
		/* the action object was made by a provider as a
		 * verbs_flow_action: its kernel handle is there */
		if (!ib->handle.action)
			return EINVAL;
		k->handle.type = type;
		k->handle.size = sizeof(k->handle);
		k->handle.handle = container_of(ib->handle.action,
						const struct verbs_flow_action,
						action)->handle;
		return 0;
	case IBV_FLOW_SPEC_ACTION_COUNT:
		if (!ib->flow_count.counters)
			return EINVAL;
		k->count.type = type;
		k->count.size = sizeof(k->count);
		k->count.handle = container_of(ib->flow_count.counters,
					       struct verbs_counters,
					       counters)->handle;
		return 0;
	default:
		return EINVAL;
	}
}

SV_EXPORT int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
				  struct ibv_flow_attr *flow_attr, void *ucmd,
				  size_t ucmd_size)
{
	struct ib_uverbs_create_flow_resp resp = { 0 };
	struct ib_uverbs_create_flow *req;
	struct sv_udata udata = { ucmd, ucmd ? ucmd_size : 0, NULL, 0, NULL };
	const uint8_t *ib_spec;
	uint8_t *kern_spec;
	size_t specs_len = 0;
	unsigned int i;
	int ret;

	req = calloc(1, sizeof(*req) +
			       flow_attr->num_of_specs * sizeof(union kern_spec));
	if (!req)
		return ENOMEM;
	req->qp_handle = qp->handle;
	req->flow_attr.type = (uint32_t)flow_attr->type;
	req->flow_attr.priority = flow_attr->priority;
	req->flow_attr.num_of_specs = flow_attr->num_of_specs;
	req->flow_attr.port = flow_attr->port;
	req->flow_attr.flags = flow_attr->flags;

	/* the entries follow the attributes, each as long as it says */
	ib_spec = (const uint8_t *)(flow_attr + 1);
	kern_spec = (uint8_t *)(req + 1);
	for (i = 0; i < flow_attr->num_of_specs; i++) {
		union kern_spec *k = (void *)kern_spec;
		struct ibv_flow_spec *ib;
		uint16_t size;

		/* entries are packed, so one may sit at any 4-byte offset:
		 * translate an aligned copy */
		memcpy(&size, ib_spec + offsetof(struct ibv_flow_spec, hdr.size),
		       sizeof(size));
		ib = calloc(1, size > sizeof(*ib) ? size : sizeof(*ib));
		if (!ib) {
			ret = ENOMEM;
			goto out_free;
		}
		memcpy(ib, ib_spec, size);
		ret = spec_to_kern(ib, k);
		if (ret)
			sv_dbg("create_flow: entry %u (type 0x%x, %u bytes): %s",
			       i, (unsigned int)ib->hdr.type, size,
			       strerror(ret));
		free(ib);
		if (ret)
			goto out_free;
		specs_len += k->hdr.size;
		kern_spec += k->hdr.size;
		ib_spec += size;
	}
	req->flow_attr.size = (uint16_t)specs_len;

	ret = sv_cmd_write_ex(qp->context, IB_USER_VERBS_EX_CMD_CREATE_FLOW, req,
			      sizeof(*req) + specs_len, &resp, sizeof(resp),
			      &udata);
	if (ret)
		goto out_free;
	flow_id->context = qp->context;
	flow_id->handle = resp.flow_handle;
out_free:
	free(req);
	if (ret)
		errno = ret;
	return ret;
}
PABI_EXPORT_34(ibv_cmd_create_flow);

SV_EXPORT int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)
{
	struct ib_uverbs_destroy_flow req = { .flow_handle = flow_id->handle };

	return sv_destroy_result(sv_cmd_write_ex(flow_id->context,
						 IB_USER_VERBS_EX_CMD_DESTROY_FLOW,
						 &req, sizeof(req), NULL, 0,
						 NULL));
}
PABI_EXPORT_34(ibv_cmd_destroy_flow);
