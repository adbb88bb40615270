/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the fuzz targets (tests/fuzz) found, replayed as unit tests: each
 * test failed before its fix.
 *
 * The netlink socket calls are wrapped at link time (-Wl,--wrap=...) so
 * that a test plays the kernel's replies byte by byte. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core.h"
#include "netlink.h"

#include "../check_main.h"

/* ---- a scripted NETLINK_RDMA ---------------------------------------------- */

int __wrap_socket(int domain, int type, int protocol);
int __wrap_bind(int fd, const struct sockaddr *addr, socklen_t len);
ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags);
ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags);

static uint32_t req_seq;
static int nrecv;
/* Each reply: the bytes recv() returns (len), and what the buffer holds
 * after them (stale bytes of an earlier, longer read). */
static struct reply {
	uint8_t bytes[256];
	size_t len, stale_len;
} replies[4];

int __wrap_socket(int domain, int type, int protocol)
{
	(void)domain;
	(void)type;
	(void)protocol;
	return open("/dev/null", O_RDWR | O_CLOEXEC);
}

int __wrap_bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	(void)fd;
	(void)addr;
	(void)len;
	return 0;
}

ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags)
{
	(void)fd;
	(void)flags;
	req_seq = ((const struct nlmsghdr *)buf)->nlmsg_seq;
	return (ssize_t)len;
}

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags)
{
	struct reply *r = &replies[nrecv++];

	(void)fd;
	(void)flags;
	ck_assert_uint_le(r->len + r->stale_len, len);
	memcpy(buf, r->bytes, r->len + r->stale_len);
	return (ssize_t)r->len;
}

/* Append a message of nlmsg_len len (payload zeroed) at *off. */
static void put_msg(struct reply *r, size_t *off, uint16_t type, uint32_t len, int32_t error)
{
	struct nlmsghdr h = { .nlmsg_len = len, .nlmsg_type = type, .nlmsg_seq = req_seq };

	memset(r->bytes + *off, 0, NLMSG_ALIGN(len));
	memcpy(r->bytes + *off, &h, sizeof(h));
	if (type == NLMSG_ERROR)
		memcpy(r->bytes + *off + sizeof(h), &error, sizeof(error));
	*off += NLMSG_ALIGN(len);
}

static int msgs;

static int count_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	(void)arg;
	sv_nl_parse(nlh, tb, RDMA_NLDEV_ATTR_MAX - 1);
	msgs++;
	return 0;
}

/* A last message whose length is not a multiple of 4: the count of bytes
 * left went below zero, as size_t a huge number, and the loop went on
 * into whatever the buffer held after the reply -- here a stale error,
 * which made a good dump fail (fuzz_netlink). */
START_TEST(netlink_unaligned_last_message)
{
	const uint16_t type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
	size_t off = 0;
	int ret;

	nrecv = 0;
	msgs = 0;
	req_seq = 1; /* sv_nl_nldev numbers from 1 in a fresh process */
	put_msg(&replies[0], &off, type, NLMSG_HDRLEN + 8, 0);
	put_msg(&replies[0], &off, type, NLMSG_HDRLEN + 1, 0); /* 17 bytes */
	replies[0].len = NLMSG_HDRLEN + 8 + NLMSG_HDRLEN + 1;
	/* stale, after the 3 bytes of padding the reply did not send */
	put_msg(&replies[0], &off, NLMSG_ERROR, NLMSG_LENGTH(sizeof(struct nlmsgerr)), -EPERM);
	replies[0].stale_len = off - replies[0].len;
	off = 0;
	put_msg(&replies[1], &off, NLMSG_DONE, NLMSG_HDRLEN, 0);
	replies[1].len = off;
	ret = sv_nl_nldev(RDMA_NLDEV_CMD_GET, 1, UINT32_MAX, NULL, count_cb, NULL);
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(msgs, 2);
	ck_assert_int_eq(nrecv, 2);
}
END_TEST

/* ---- SOFTVERBS_LOG ------------------------------------------------------ */

/* A number beyond int: atoi's undefined behaviour gave a negative level
 * (fuzz_env). Any number above debug means debug. */
START_TEST(log_level_numbers)
{
	static const struct {
		const char *v;
		int level;
	} cases[] = {
		{ "999999999999", SV_LOG_DEBUG }, { "99999999999999999999999", SV_LOG_DEBUG },
		{ "4294967297", SV_LOG_DEBUG },   { "0", SV_LOG_OFF },
		{ "2", SV_LOG_WARN },             { "debug", SV_LOG_DEBUG },
		{ "off", SV_LOG_OFF },            { "", SV_LOG_OFF },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("SOFTVERBS_LOG", cases[i].v, 1);
		sv_log_init();
		ck_assert_msg(sv_log_level == cases[i].level, "SOFTVERBS_LOG=%s: level %d, expected %d",
			      cases[i].v, sv_log_level, cases[i].level);
	}
	unsetenv("SOFTVERBS_LOG");
	sv_log_init();
}
END_TEST

static Suite *make_parsers_suite(void)
{
	Suite *s = suite_create("parsers");
	TCase *tc = tcase_create("fuzz-findings");

	tcase_add_test(tc, netlink_unaligned_last_message);
	tcase_add_test(tc, log_level_numbers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(make_parsers_suite());
}
