/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core.h"
#include "netlink.h"

/* The kernel builds netlink dump messages of at most 32 KiB, so a recv
 * buffer of that size never truncates one. */
#define NL_BUF_BYTES 32768

static int nl_open(int protocol)
{
	struct sockaddr_nl local = { .nl_family = AF_NETLINK };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static size_t nla_put(char *buf, size_t off, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + off);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(buf + off + NLA_HDRLEN, data, len);
	return off + NLA_ALIGN(a->nla_len);
}

/* Read replies until the request is answered: NLMSG_DONE ends a dump,
 * NLMSG_ERROR (0 = the ACK we asked for) ends a plain request. */
static int nl_receive(int fd, uint32_t seq, char *buf, sv_nl_cb cb, void *arg)
{
	int cb_err = 0;

	for (;;) {
		ssize_t n = recv(fd, buf, NL_BUF_BYTES, 0);
		struct nlmsghdr *nlh;
		/* signed, as NLMSG_NEXT expects: after a last message whose
		 * length is not a multiple of 4 it steps below zero, which an
		 * unsigned count would turn into a huge one (found by
		 * tests/fuzz/fuzz_netlink) */
		int left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		left = (int)n; /* n <= NL_BUF_BYTES */
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left)) {
			if (nlh->nlmsg_seq != seq)
				continue;	/* a stale answer to an earlier request */
			if (nlh->nlmsg_type == NLMSG_DONE)
				return cb_err;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				return e->error ? e->error : cb_err;
			}
			if (!cb_err)
				cb_err = cb(nlh, arg);
		}
		if (n == 0)
			return -EPROTO;
	}
}

int sv_nl_nldev(int cmd, int dump, uint32_t dev_index, const char *chardev_type,
		sv_nl_cb cb, void *arg)
{
	static uint32_t seq_counter;
	char req[NLMSG_SPACE(0) + 2 * NLA_ALIGN(NLA_HDRLEN + 64)] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)req;
	size_t off = NLMSG_HDRLEN;
	uint32_t seq = __atomic_add_fetch(&seq_counter, 1, __ATOMIC_RELAXED);
	char *buf;
	int fd, ret;

	if (chardev_type && strlen(chardev_type) >= 64)
		return -EINVAL;
	memset(req, 0, sizeof(req));
	if (dev_index != UINT32_MAX)
		off = nla_put(req, off, RDMA_NLDEV_ATTR_DEV_INDEX, &dev_index, sizeof(dev_index));
	if (chardev_type)
		off = nla_put(req, off, RDMA_NLDEV_ATTR_CHARDEV_TYPE, chardev_type,
			      strlen(chardev_type) + 1);
	nlh->nlmsg_len = (uint32_t)off;
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
	nlh->nlmsg_seq = seq;

	fd = nl_open(NETLINK_RDMA);
	if (fd < 0) {
		sv_dbg("NETLINK_RDMA socket: %s", strerror(-fd));
		return fd;
	}
	buf = malloc(NL_BUF_BYTES);
	if (!buf)
		ret = -ENOMEM;
	else if (send(fd, req, off, 0) != (ssize_t)off)
		ret = -errno;
	else
		ret = nl_receive(fd, seq, buf, cb, arg);
	free(buf);
	close(fd);
	if (ret < 0)
		sv_dbg("NLDEV command %d: %s", cmd, strerror(-ret));
	return ret;
}

int sv_nl_route(void *req, size_t len, sv_nl_cb cb, void *arg)
{
	static uint32_t seq_counter;
	struct nlmsghdr *nlh = req;
	char *buf;
	int fd, ret;

	nlh->nlmsg_seq = __atomic_add_fetch(&seq_counter, 1, __ATOMIC_RELAXED);
	fd = nl_open(NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	buf = malloc(NL_BUF_BYTES);
	if (!buf)
		ret = -ENOMEM;
	else if (send(fd, req, len, 0) != (ssize_t)len)
		ret = -errno;
	else
		ret = nl_receive(fd, nlh->nlmsg_seq, buf, cb, arg);
	free(buf);
	close(fd);
	return ret;
}

void sv_nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb, int max)
{
	sv_nl_parse_at(nlh, 0, tb, max);
}

void sv_nl_parse_at(const struct nlmsghdr *nlh, size_t hdr_len,
		    const struct nlattr **tb, int max)
{
	const char *p = (const char *)NLMSG_DATA(nlh) + NLMSG_ALIGN(hdr_len);
	size_t left = nlh->nlmsg_len >= NLMSG_HDRLEN + NLMSG_ALIGN(hdr_len) ?
			      nlh->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(hdr_len) : 0;

	memset(tb, 0, sizeof(*tb) * ((size_t)max + 1));
	while (left >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t step;
		int type = a->nla_type & NLA_TYPE_MASK;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
			break;
		if (type <= max)
			tb[type] = a;
		step = NLA_ALIGN(a->nla_len);
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
}

static const void *nla_payload(const struct nlattr *a, size_t need)
{
	if (!a || a->nla_len < NLA_HDRLEN + need)
		return NULL;
	return (const char *)a + NLA_HDRLEN;
}

uint8_t sv_nla_u8(const struct nlattr *a)
{
	const uint8_t *v = nla_payload(a, sizeof(*v));

	return v ? *v : 0;
}

uint32_t sv_nla_u32(const struct nlattr *a)
{
	const void *v = nla_payload(a, sizeof(uint32_t));
	uint32_t x = 0;

	if (v)
		memcpy(&x, v, sizeof(x));
	return x;
}

uint64_t sv_nla_u64(const struct nlattr *a)
{
	const void *v = nla_payload(a, sizeof(uint64_t));
	uint64_t x = 0;

	if (v)
		memcpy(&x, v, sizeof(x));
	return x;
}

const char *sv_nla_str(const struct nlattr *a)
{
	const char *s = nla_payload(a, 1);
	size_t len;

	if (!s)
		return NULL;
	len = a->nla_len - NLA_HDRLEN;
	return memchr(s, '\0', len) ? s : NULL;
}

static int copy_on_fork_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	int *cof = arg;

	sv_nl_parse(nlh, tb, RDMA_NLDEV_ATTR_MAX - 1);
	if (tb[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK])
		*cof = sv_nla_u8(tb[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK]) ? 1 : 0;
	return 0;
}

int sv_nl_copy_on_fork(void)
{
	int cof = 0;
	int ret = sv_nl_nldev(RDMA_NLDEV_CMD_SYS_GET, 0, UINT32_MAX, NULL, copy_on_fork_cb, &cof);

	return ret < 0 ? ret : cof;
}
