/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/integration/compat_probe.c -- one behaviour of libibverbs that
 * an application can see, printed as text so that test_compat.sh can run
 * the same binary on rdma-core and on softverbs (LD_LIBRARY_PATH) in the
 * same VM boot and compare. It links the system libibverbs and uses only
 * the public API.
 *
 *   compat_probe CASE DEVICE
 *
 * Cases (each in a fresh process):
 *   env-rdmav   setenv("RDMAV_FORK_SAFE", "1") in main() before the first
 *               verbs call, then list, open, register: is the MR DONTFORK?
 *   env-ibv     the same with IBV_FORK_SAFE
 *   dofork-off  ibv_dofork_range() on a range never registered: the
 *               result, and whether the page's VmFlags changed
 *   dofork-on   the same after ibv_fork_init()
 *   poll-neg    ibv_poll_cq(cq, -1, wc) and (cq, 0, wc)
 *   zero-mr     ibv_reg_mr(pd, buf, 0, LOCAL_WRITE), then its dereg
 *
 * Lines starting with "info:" describe but are not compared. Exit 0 when
 * the case ran (whatever the answers), 2 on bad usage or a failed setup
 * step (named on stderr). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* Declared only in rdma-core's driver header. */
int ibv_dofork_range(void *base, size_t size);

static size_t page;

static void die(const char *what)
{
	fprintf(stderr, "compat_probe: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* 1 if the mapping holding addr is MADV_DONTFORK ("dc"), else 0. */
static int dc_at(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[1024];
	int in = 0, dc = 0;

	if (!f)
		die("/proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		uintptr_t s, e;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= s && (uintptr_t)addr < e;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			dc = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	return dc;
}

static struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	if (!list)
		die("ibv_get_device_list");
	for (int i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die(name);
	return ctx;
}

static char *map_pages(size_t n)
{
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 1, n * page);
	return p;
}

static int env_case(const char *var, const char *dev)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;

	setenv(var, "1", 1);
	ctx = open_named(dev);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	buf = map_pages(4);
	mr = ibv_reg_mr(pd, buf + page, 2 * page, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	printf("%s set in main: registered pages DONTFORK %d, neighbours %d %d\n", var,
	       dc_at(buf + page), dc_at(buf), dc_at(buf + 3 * page));
	printf("dereg %d\n", ibv_dereg_mr(mr));
	printf("after dereg: DONTFORK %d\n", dc_at(buf + page));
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}

static int dofork_case(const char *dev, int fork_safe)
{
	struct ibv_context *ctx;
	char *buf;
	int ret;

	/* rdma-core refuses ibv_fork_init() after any dofork/dontfork */
	if (fork_safe && ibv_fork_init())
		die("ibv_fork_init");
	ctx = open_named(dev);
	buf = map_pages(3);
	errno = 0;
	ret = ibv_dofork_range(buf + page, page);
	printf("fork safety %s: dofork of an unregistered range: %d (errno %d), DONTFORK %d\n",
	       fork_safe ? "on" : "off", ret, ret ? errno : 0, dc_at(buf + page));
	if (fork_safe) {
		/* rdma-core 44 counts the page -1 after that, so the next
		 * registration of it never becomes DONTFORK: shown, not
		 * compared. */
		struct ibv_pd *pd = ibv_alloc_pd(ctx);
		struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf + page, page, 0) : NULL;

		printf("info: a registration of that page afterwards: DONTFORK %d\n",
		       mr ? dc_at(buf + page) : -1);
		if (mr)
			ibv_dereg_mr(mr);
		if (pd)
			ibv_dealloc_pd(pd);
	}
	ibv_close_device(ctx);
	return 0;
}

static int poll_case(const char *dev)
{
	struct ibv_context *ctx = open_named(dev);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_wc wc[4];

	if (!cq)
		die("ibv_create_cq");
	printf("poll_cq(-1) on an empty CQ: %d\n", ibv_poll_cq(cq, -1, wc));
	printf("poll_cq(0) on an empty CQ: %d\n", ibv_poll_cq(cq, 0, wc));
	printf("destroy_cq %d\n", ibv_destroy_cq(cq));
	ibv_close_device(ctx);
	return 0;
}

static int zero_mr_case(const char *dev)
{
	struct ibv_context *ctx = open_named(dev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;
	char *buf = map_pages(2);

	if (!pd)
		die("ibv_alloc_pd");
	errno = 0;
	mr = ibv_reg_mr(pd, buf + 64, 0, IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		printf("reg_mr of 0 bytes: NULL, errno %d\n", errno);
	} else {
		printf("reg_mr of 0 bytes: an MR of length %zu, addr at the buffer %d\n",
		       mr->length, mr->addr == buf + 64);
		printf("info: lkey %#x\n", mr->lkey);
		printf("DONTFORK %d\n", dc_at(buf));
		printf("dereg %d\n", ibv_dereg_mr(mr));
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc == 3 ? argv[1] : "";

	page = (size_t)sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(c, "env-rdmav"))
		return env_case("RDMAV_FORK_SAFE", argv[2]);
	if (!strcmp(c, "env-ibv"))
		return env_case("IBV_FORK_SAFE", argv[2]);
	if (!strcmp(c, "dofork-off"))
		return dofork_case(argv[2], 0);
	if (!strcmp(c, "dofork-on"))
		return dofork_case(argv[2], 1);
	if (!strcmp(c, "poll-neg"))
		return poll_case(argv[2]);
	if (!strcmp(c, "zero-mr"))
		return zero_mr_case(argv[2]);
	fprintf(stderr, "usage: compat_probe env-rdmav|env-ibv|dofork-off|dofork-on|poll-neg|zero-mr DEVICE\n");
	return 2;
}
