/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/fuzz/fuzz_netlink.c -- what NETLINK_RDMA answers, fuzzed: the
 * reply stream of RDMA_NLDEV_CMD_GET dumps, GET_CHARDEV and SYS_GET as
 * lib/netlink.c receives and lib/device.c parses them.
 *
 * The socket calls are wrapped at link time (-Wl,--wrap=socket,...):
 * each recv() returns the next chunk of the input. A chunk is one
 * control byte (bit 0: leave sequence numbers as they are; otherwise
 * every message in the chunk is stamped with the request's, as the
 * kernel does), a 16-bit length and that many bytes. Each input runs a
 * full discovery (netlink dump, then one GET_CHARDEV per device) and a
 * copy-on-fork query. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core.h"
#include "fuzz.h"
#include "netlink.h"

static struct fuzz_in in;
static uint32_t last_seq;

int __wrap_socket(int domain, int type, int protocol);
int __wrap_bind(int fd, const struct sockaddr *addr, socklen_t len);
ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags);
ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags);

#ifdef FUZZ_RECORD
/* Record mode (tests/fuzz/record-netlink, inside the VM): the real
 * kernel answers, and every recv() is written out as one chunk of this
 * harness's input: a seed corpus entry of real data. */
int __real_socket(int domain, int type, int protocol);
int __real_bind(int fd, const struct sockaddr *addr, socklen_t len);
ssize_t __real_send(int fd, const void *buf, size_t len, int flags);
ssize_t __real_recv(int fd, void *buf, size_t len, int flags);
static FILE *rec;

int __wrap_socket(int domain, int type, int protocol)
{
	return __real_socket(domain, type, protocol);
}

int __wrap_bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return __real_bind(fd, addr, len);
}

ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags)
{
	return __real_send(fd, buf, len, flags);
}

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t n = __real_recv(fd, buf, len, flags);

	if (n > 0) {
		uint8_t ctl = 0;
		uint16_t n16 = (uint16_t)n;

		fwrite(&ctl, 1, 1, rec);
		fwrite(&n16, 2, 1, rec);
		fwrite(buf, 1, (size_t)n, rec);
	}
	return n;
}

int main(int argc, char **argv)
{
	struct ibv_device **list = NULL;
	int n;

	if (argc != 2 || !(rec = fopen(argv[1], "w"))) {
		fprintf(stderr, "usage: record-netlink OUTPUT\n");
		return 2;
	}
	n = sv_device_list(&list);
	fprintf(stderr, "record-netlink: %d devices; copy-on-fork %d\n", n, sv_nl_copy_on_fork());
	if (n >= 0)
		ibv_free_device_list(list);
	(void)in;
	(void)last_seq;
	return fclose(rec) ? 1 : 0;
}
#else
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
	const struct nlmsghdr *nlh = buf;

	(void)fd;
	(void)flags;
	if (len >= sizeof(*nlh))
		last_seq = nlh->nlmsg_seq;
	return (ssize_t)len;
}

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags)
{
	uint8_t ctl;
	size_t n;

	(void)fd;
	(void)flags;
	if (!in.left)
		return 0;
	ctl = fuzz_u8(&in);
	n = fuzz_u16(&in);
	if (n > in.left)
		n = in.left;
	if (n > len)
		n = len;
	fuzz_take(&in, buf, n);
	if (!(ctl & 1)) {
		/* stamp the sequence number the way the kernel would */
		int left = (int)n; /* signed: NLMSG_NEXT may step past the end */

		for (struct nlmsghdr *h = buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
			h->nlmsg_seq = last_seq;
	}
	return (ssize_t)n;
}

/* A fake sysfs root that has the uverbs class (discovery asks it first)
 * and a character device directory: names the input invents resolve to
 * nothing, uverbs0..3 to character devices 231:192.. when we may mknod
 * (the numbers the kernel gives; the input decides whether they match). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char root[] = "/tmp/sv-fuzz-netlink-XXXXXX";
	char path[512];
	FILE *f;

	(void)argc;
	(void)argv;
	if (!mkdtemp(root))
		abort();
	snprintf(path, sizeof(path), "%s/class", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/class/infiniband_verbs", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/class/infiniband_verbs/abi_version", root);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs("6\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/dev", root);
	mkdir(path, 0755);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/dev/uverbs%d", root, i);
		if (mknod(path, S_IFCHR | 0600, makedev(231, 192 + i)))
			break;
	}
	/* the root is read from SYSFS_PATH once; netlink is used only while
	 * SYSFS_PATH is unset */
	setenv("SYSFS_PATH", root, 1);
	sv_sysfs_root();
	unsetenv("SYSFS_PATH");
	snprintf(path, sizeof(path), "%s/dev", root);
	sv_set_dev_dir(strdup(path));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibv_device **list = NULL;
	int n;

	in.p = data;
	in.left = size;
	/* the device registry lives on between inputs, as between the
	 * listings of a long-running program while the kernel changes */
	n = sv_device_list(&list);
	if (n >= 0) {
		for (int i = 0; i < n; i++) {
			/* what applications read of each device */
			volatile size_t sink = strlen(ibv_get_device_name(list[i])) +
					       strlen(list[i]->dev_name) + strlen(list[i]->ibdev_path);
			(void)sink;
			(void)ibv_get_device_guid(list[i]);
		}
		ibv_free_device_list(list);
	}
	(void)sv_nl_copy_on_fork();
	return 0;
}
#endif
