/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* NETLINK_RDMA requests to the kernel's RDMA_NL_NLDEV client: device
 * discovery and system-wide settings, without libnl. */
#ifndef SV_NETLINK_H
#define SV_NETLINK_H

#include <stdint.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

/* Called once per reply message: 0 to go on, a negative errno to stop
 * (sv_nl_nldev then returns it). */
typedef int (*sv_nl_cb)(const struct nlmsghdr *nlh, void *arg);

/* Send one RDMA_NL_NLDEV command and feed each reply to cb.
 * dump: NLM_F_DUMP (all objects); dev_index: RDMA_NLDEV_ATTR_DEV_INDEX,
 * UINT32_MAX for none; chardev_type: RDMA_NLDEV_ATTR_CHARDEV_TYPE, NULL
 * for none. Returns 0, or a negative errno (socket, send, the kernel's
 * NLMSG_ERROR, a malformed reply, or cb's). */
int sv_nl_nldev(int cmd, int dump, uint32_t dev_index, const char *chardev_type,
		sv_nl_cb cb, void *arg);

/* Index the attributes of an NLDEV reply: tb[type] for type <= max, NULL
 * where absent. Attributes that do not fit in the message are ignored. */
void sv_nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb, int max);

/* The same for messages with a family header of hdr_len bytes before
 * their attributes (rtnetlink: struct ndmsg, rtmsg, ifinfomsg). */
void sv_nl_parse_at(const struct nlmsghdr *nlh, size_t hdr_len,
		    const struct nlattr **tb, int max);

/* Send one NETLINK_ROUTE request (req: len bytes, nlmsghdr first; its
 * sequence number is set here) and feed each reply to cb. 0 or a negative
 * errno, as sv_nl_nldev. */
int sv_nl_route(void *req, size_t len, sv_nl_cb cb, void *arg);

/* Accessors: 0 / NULL when the attribute is missing or too short. */
uint8_t sv_nla_u8(const struct nlattr *a);
uint32_t sv_nla_u32(const struct nlattr *a);
uint64_t sv_nla_u64(const struct nlattr *a);
/* NULL unless the payload is a NUL-terminated string. */
const char *sv_nla_str(const struct nlattr *a);

/* RDMA_NLDEV_CMD_SYS_GET, attribute RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK:
 * 1 when the kernel copies DMA-pinned pages at fork, 0 when it does not
 * report that, a negative errno when it could not be asked. Not cached. */
int sv_nl_copy_on_fork(void);

#endif
