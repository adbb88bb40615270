/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The core on a real rxe device: open/close cycles, PD and MR lifecycles,
 * a 1 GiB MR, read-only mappings, invalid arguments, and what a failed
 * registration leaves behind (nothing: range map and smaps as before). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <softverbs/softverbs.h>

#include "../check_main.h"

static const char *dev_name;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static long page;

static struct ibv_device *find_device(struct ibv_device **list)
{
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			return list[i];
	return NULL;
}

static struct ibv_context *open_dev(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = find_device(list);
	struct ibv_context *c;

	ck_assert_msg(dev, "device %s not listed", dev_name);
	c = ibv_open_device(dev);
	ibv_free_device_list(list);
	return c;
}

static void setup(void)
{
	page = sysconf(_SC_PAGESIZE);
	ctx = open_dev();
	ck_assert_ptr_nonnull(ctx);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
}

static void teardown(void)
{
	if (pd)
		ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	if (ctx)
		ck_assert_int_eq(ibv_close_device(ctx), 0);
	pd = NULL;
	ctx = NULL;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static struct softverbs_fork_stats stats(void)
{
	struct softverbs_fork_stats s;

	ck_assert_int_eq(softverbs_fork_stats(&s, sizeof(s)), 0);
	return s;
}

/* The VmFlags of the smaps entry holding addr contain flag ("dc"). */
static int vma_has_flag(void *addr, const char *flag)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long lo, hi, a = (unsigned long)addr;
	char line[512];
	int in = 0, found = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			char want[8];

			snprintf(want, sizeof(want), " %s", flag);
			found = strstr(line, want) != NULL;
			break;
		}
	}
	fclose(f);
	return found;
}

/* ---- contexts --------------------------------------------------------------- */

START_TEST(open_close_1000_cycles_no_growth)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = find_device(list);
	size_t heap_before;
	int fds_before;

	ck_assert_ptr_nonnull(dev);
	/* one warm-up cycle: lazily allocated library state */
	ck_assert_int_eq(ibv_close_device(ibv_open_device(dev)), 0);
	fds_before = count_fds();
	heap_before = mallinfo2().uordblks;
	for (int i = 0; i < 1000; i++) {
		struct ibv_context *c = ibv_open_device(dev);

		ck_assert_msg(c, "open %d: %s", i, strerror(errno));
		ck_assert_int_eq(ibv_close_device(c), 0);
	}
	ck_assert_int_eq(count_fds(), fds_before);
	ck_assert_uint_eq(mallinfo2().uordblks, heap_before);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(context_layout_seen_by_applications)
{
	struct verbs_context *v = verbs_get_ctx(ctx);
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;

	ck_assert_ptr_nonnull(v);
	/* verbs_get_ctx_op() finds an op when sz covers it: the library's
	 * context is the newest rdma-core's (it serves programs of every
	 * release), at least what this program's verbs.h knows */
	ck_assert_uint_ge(v->sz, sizeof(*v));
	ck_assert_ptr_eq(ctx->abi_compat, __VERBS_ABI_IS_EXTENDED);
	/* uroce has no kernel device, so no command file (doc/providers.md) */
	if (strncmp(dev_name, "uroce", 5))
		ck_assert_int_ge(ctx->cmd_fd, 0);
	else
		ck_assert_int_eq(ctx->cmd_fd, -1);
	ck_assert_int_ge(ctx->async_fd, 0);
	ck_assert_int_ge(ctx->num_comp_vectors, 1);
	ck_assert_ptr_nonnull(ctx->ops.poll_cq);
	ck_assert_ptr_nonnull(ctx->ops.post_send);
	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &attr), 0);
	ck_assert_int_ge(attr.orig_attr.phys_port_cnt, 1);
	/* rxe's; uroce gives softverbs' release (tests/unit/test_uroce.c) */
	if (strncmp(dev_name, "uroce", 5))
		ck_assert_str_eq(attr.orig_attr.fw_ver, "0.0.0");
	ck_assert_int_eq(ibv_query_port(ctx, 1, &port), 0);
	ck_assert_int_eq(port.link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_int_ne(ibv_query_port(ctx, 9, &port), 0);
}
END_TEST

START_TEST(gid_queries)
{
	struct ibv_gid_entry entries[64];
	union ibv_gid gid;
	ssize_t n;

	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &gid), 0);
	/* link-local fe80:: on every rxe netdev */
	ck_assert_uint_eq(gid.raw[0], 0xfe);
	n = ibv_query_gid_table(ctx, entries, 64, 0);
	ck_assert_int_ge(n, 1);
	ck_assert_int_eq(entries[0].port_num, 1);
	ck_assert_int_eq(entries[0].gid_type, IBV_GID_TYPE_ROCE_V2);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &entries[1], 0), 0);
	ck_assert_mem_eq(entries[1].gid.raw, gid.raw, 16);
	/* an empty slot reads as the zero GID through the old call */
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 1000, &gid), 0);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 1000, &entries[1], 0), ENODATA);
}
END_TEST

/* ---- PD and MR ------------------------------------------------------------------ */

START_TEST(pd_lifecycle)
{
	struct ibv_pd *p[16];

	for (int i = 0; i < 16; i++) {
		p[i] = ibv_alloc_pd(ctx);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_ptr_eq(p[i]->context, ctx);
	}
	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(ibv_dealloc_pd(p[i]), 0);
	ck_assert_int_eq(ibv_dealloc_pd(NULL), EINVAL);
}
END_TEST

START_TEST(mr_lifecycle)
{
	char *buf = aligned_alloc((size_t)page, 4 * (size_t)page);
	struct softverbs_fork_stats s0 = stats();
	struct ibv_mr *mr, *mr2;
	int ret;

	ck_assert_ptr_nonnull(buf);
	mr = ibv_reg_mr(pd, buf, 4 * (size_t)page,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_eq(mr->addr, buf);
	ck_assert_uint_eq(mr->length, 4 * (size_t)page);
	ck_assert_ptr_eq(mr->pd, pd);
	ck_assert_uint_eq(stats().live_ranges, s0.live_ranges + 1);
	/* the same pages twice, through the iova entry points */
	mr2 = ibv_reg_mr_iova2(pd, buf, (size_t)page, 0x10000,
			       IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr2);
	ck_assert_int_eq(ibv_dereg_mr(mr2), 0);
	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE);
	/* rdma_rxe of Linux 6.1 has no rereg: the MR must stay usable */
	ck_assert_msg(ret == 0 || (ret == IBV_REREG_MR_ERR_CMD &&
				   errno == EOPNOTSUPP),
		      "rereg: %d, %s", ret, strerror(errno));
	ck_assert_uint_eq(stats().live_ranges, s0.live_ranges + 1);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_uint_eq(stats().live_ranges, s0.live_ranges);
	ck_assert_int_eq(ibv_dereg_mr(NULL), EINVAL);
	free(buf);
}
END_TEST

START_TEST(one_gib_mr)
{
	const size_t len = 1ul << 30;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr;

	ck_assert_ptr_ne(buf, MAP_FAILED);
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_msg(mr, "1 GiB: %s", strerror(errno));
	ck_assert_uint_eq(mr->length, len);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	munmap(buf, len);
}
END_TEST

START_TEST(read_only_mapping)
{
	char *ro = mmap(NULL, (size_t)page, PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct softverbs_fork_stats s0 = stats();
	struct ibv_mr *mr;

	ck_assert_ptr_ne(ro, MAP_FAILED);
	mr = ibv_reg_mr(pd, ro, (size_t)page, IBV_ACCESS_REMOTE_READ);
	ck_assert_msg(mr, "read-only, no write access: %s", strerror(errno));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, ro, (size_t)page,
				      IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_uint_eq(stats().live_ranges, s0.live_ranges);
	munmap(ro, (size_t)page);
}
END_TEST

START_TEST(invalid_arguments)
{
	char *buf = aligned_alloc((size_t)page, (size_t)page);
	char *gone = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct softverbs_fork_stats s0 = stats();

	ck_assert_ptr_ne(gone, MAP_FAILED);
	munmap(gone, (size_t)page);

	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(NULL, buf, (size_t)page, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, buf, (size_t)page, 1 << 12));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, buf, (size_t)page,
				      IBV_ACCESS_REMOTE_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, buf, (size_t)page,
				      IBV_ACCESS_REMOTE_ATOMIC));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, gone, (size_t)page,
				      IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_uint_eq(stats().live_ranges, s0.live_ranges);
	ck_assert_uint_eq(stats().protected_pages, s0.protected_pages);
	free(buf);
}
END_TEST

/* A zero-length registration goes to the kernel, which decides: Linux
 * 6.1 accepts it, as rdma-core shows (tests/integration/test_compat.sh).
 * Nothing is recorded for it, nothing becomes DONTFORK, and it
 * deregisters. */
START_TEST(zero_length_mr)
{
	char *buf = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct softverbs_fork_stats s0;
	struct ibv_mr *mr;

	ck_assert_ptr_ne(buf, MAP_FAILED);
	ck_assert_int_eq(ibv_fork_init(), 0);
	s0 = stats();
	mr = ibv_reg_mr(pd, buf + 100, 0, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_msg(mr, "zero-length MR: %s", strerror(errno));
	ck_assert_uint_eq(mr->length, 0);
	ck_assert_ptr_eq(mr->addr, buf + 100);
	ck_assert_uint_eq(stats().live_ranges, s0.live_ranges);
	ck_assert_uint_eq(stats().tracked_pages, s0.tracked_pages);
	ck_assert(!vma_has_flag(buf, "dc"));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_uint_eq(stats().live_ranges, s0.live_ranges);
	ck_assert_uint_eq(stats().madvise_calls, s0.madvise_calls);
	munmap(buf, 2 * (size_t)page);
}
END_TEST

/* With fork safety on, a registration the kernel refuses must not leave
 * its pages MADV_DONTFORK. */
START_TEST(rejected_reg_mr_leaves_no_dontfork)
{
	char *ro = mmap(NULL, 2 * (size_t)page, PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct softverbs_fork_stats s0;
	struct ibv_mr *mr;

	ck_assert_int_eq(ibv_fork_init(), 0);
	s0 = stats();
	ck_assert_ptr_ne(ro, MAP_FAILED);
	ck_assert(!vma_has_flag(ro, "dc"));
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, ro, 2 * (size_t)page,
				      IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EFAULT);
	ck_assert(!vma_has_flag(ro, "dc"));
	ck_assert_uint_eq(stats().live_ranges, s0.live_ranges);
	ck_assert_uint_eq(stats().protected_pages, s0.protected_pages);
	/* and an accepted one sets it (unless the kernel copies pinned
	 * pages at fork, when nothing needs protecting), until dereg */
	mr = ibv_reg_mr(pd, ro, 2 * (size_t)page, 0);
	ck_assert_ptr_nonnull(mr);
	if (stats().protected_pages > s0.protected_pages)
		ck_assert(vma_has_flag(ro, "dc"));
	else
		ck_assert_int_eq(stats().copy_on_fork, 1);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!vma_has_flag(ro, "dc"));
	munmap(ro, 2 * (size_t)page);
}
END_TEST

/* ---- events ----------------------------------------------------------------------- */

START_TEST(comp_channel_lifecycle)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);

	ck_assert_ptr_nonnull(ch);
	ck_assert_int_ge(ch->fd, 0);
	ck_assert_ptr_eq(ch->context, ctx);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(NULL), EINVAL);
}
END_TEST

static Suite *make_core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("rxe");

	tcase_set_timeout(tc, 240);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, open_close_1000_cycles_no_growth);
	tcase_add_test(tc, context_layout_seen_by_applications);
	tcase_add_test(tc, gid_queries);
	tcase_add_test(tc, pd_lifecycle);
	tcase_add_test(tc, mr_lifecycle);
	tcase_add_test(tc, one_gib_mr);
	tcase_add_test(tc, read_only_mapping);
	tcase_add_test(tc, invalid_arguments);
	tcase_add_test(tc, rejected_reg_mr_leaves_no_dontfork);
	tcase_add_test(tc, zero_length_mr);
	tcase_add_test(tc, comp_channel_lifecycle);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	char path[256];

	dev_name = getenv("RXE_DEV");
	if (!dev_name || !*dev_name)
		dev_name = "rxe0";
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev_name);
	/* uroce<N> (SOFTVERBS_UROCE) has no kernel device: the host tier */
	if (strncmp(dev_name, "uroce", 5) && access(path, F_OK)) {
		printf("SKIP: no RDMA device %s (run inside the test VM)\n",
		       dev_name);
		return 77;
	}
	return check_run(make_core_suite());
}
