/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The provider ABI on a real device, in either provider mode: run in the
 * native pass (softverbs' rxe/siw providers) and in the rdma-core pass
 * (SOFTVERBS_PROVIDERS=rdma-core: rdma-core's librxe / libsiw on
 * softverbs' core). What must hold in both:
 *
 *  - the process maps softverbs' libibverbs, and rdma-core's provider of
 *    the device exactly when the mode says so (/proc/self/maps);
 *  - an MR registered through the provider is MADV_DONTFORK ("dc" in
 *    smaps) with fork safety on, and not after ibv_dereg_mr; a late
 *    ibv_fork_init() protects it; softverbs_fork_stats() counts it;
 *  - an on-demand-paging registration never enters the fork map, whatever
 *    the kernel answers; a dma-buf registration goes to the provider;
 *  - the verbs the soft devices do not have (ECE, importing objects)
 *    answer EOPNOTSUPP through the provider's table, not a crash.
 *
 * Device: $PABI_DEV, else $RXE_DEV. Exit 77 when there is none. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
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
static size_t page;

static int rdma_core_mode(void)
{
	const char *m = getenv("SOFTVERBS_PROVIDERS");

	return m && !strcmp(m, "rdma-core");
}

static const char *provider_lib(void)
{
	/* lib<name>-rdmav<N>.so: N is the installed rdma-core's node */
	return !strncmp(dev_name, "siw", 3) ? "/libsiw-rdmav" : "/librxe-rdmav";
}

/* A line of /proc/self/maps that ends in `tail`, copied into buf. */
static int mapped(const char *tail, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = 0;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strstr(line, tail)) {
			found = 1;
			if (buf)
				/* the path: from the first '/' (it may hold blanks) */
				snprintf(buf, len, "%s", strchr(line, '/'));
		}
	}
	fclose(f);
	return found;
}

/* Does the mapping holding addr show VmFlags `flag` in smaps? */
static int vma_has_flag(const void *addr, const char *flag)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long lo, hi, a = (unsigned long)addr;
	char line[512], want[8];
	int in = 0, found = 0;

	ck_assert_ptr_nonnull(f);
	snprintf(want, sizeof(want), " %s", flag);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			found = strstr(line, want) != NULL;
			break;
		}
	}
	fclose(f);
	return found;
}

static struct softverbs_fork_stats stats(void)
{
	struct softverbs_fork_stats s;

	ck_assert_int_eq(softverbs_fork_stats(&s, sizeof(s)), 0);
	return s;
}

static void *map_pages(size_t n)
{
	void *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 0x5a, n * page);
	return p;
}

/* Each test runs in its own child (Check's fork mode), so fork safety
 * starts off in each. */
static void setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	page = (size_t)sysconf(_SC_PAGESIZE);
	ck_assert_ptr_nonnull(list);
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i]->name, dev_name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ck_assert_msg(ctx, "cannot open %s: %s", dev_name, strerror(errno));
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

START_TEST(the_libraries_the_mode_promises)
{
	const char *dir = getenv("SOFTVERBS_LIBDIR");
	char path[1024];

	ck_assert_msg(mapped("/libibverbs.so.1", path, sizeof(path)) ||
			      mapped("/libibverbs.so.1.", path, sizeof(path)),
		      "no libibverbs mapped");
	if (dir) {
		char real[PATH_MAX];

		ck_assert_ptr_nonnull(realpath(dir, real));
		ck_assert_msg(!strncmp(path, real, strlen(real)),
			      "libibverbs is %s, not softverbs' in %s", path,
			      real);
	}
	if (rdma_core_mode())
		ck_assert_msg(mapped(provider_lib(), NULL, 0),
			      "rdma-core's %s*.so is not mapped", provider_lib() + 1);
	else
		ck_assert_msg(!mapped(provider_lib(), NULL, 0),
			      "%s*.so is mapped in the native mode", provider_lib() + 1);
}
END_TEST

/* librdmacm compares device lists by pointer */
START_TEST(listings_share_device_objects)
{
	struct ibv_device **a = ibv_get_device_list(NULL);
	struct ibv_device **b = ibv_get_device_list(NULL);
	int found = 0;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	for (int i = 0; a[i]; i++) {
		ck_assert_ptr_eq(a[i], b[i]);
		found |= a[i] == ctx->device;
	}
	/* the open context's device is the listed object */
	ck_assert(found);
	ibv_free_device_list(a);
	ibv_free_device_list(b);
}
END_TEST

START_TEST(mr_is_dontfork_while_registered)
{
	char *buf = map_pages(16);
	struct ibv_mr *mr;

	ck_assert_int_eq(ibv_fork_init(), 0);
	mr = ibv_reg_mr(pd, buf, 16 * page, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert(vma_has_flag(buf, "dc"));
	ck_assert(vma_has_flag(buf + 15 * page, "dc"));
	ck_assert_uint_ge(stats().live_ranges, 1);
	ck_assert_uint_ge(stats().protected_pages, 16);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!vma_has_flag(buf, "dc"));
	ck_assert_uint_eq(stats().protected_pages, 0);
	munmap(buf, 16 * page);
}
END_TEST

START_TEST(late_fork_init_protects_live_mrs)
{
	char *buf = map_pages(8);
	struct ibv_mr *mr;

	mr = ibv_reg_mr(pd, buf, 8 * page,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert(!vma_has_flag(buf, "dc"));
	ck_assert_uint_eq(stats().tracked_pages, 8);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert(vma_has_flag(buf, "dc"));
	ck_assert_uint_eq(stats().protected_pages, 8);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!vma_has_flag(buf, "dc"));
	munmap(buf, 8 * page);
}
END_TEST

/* An ODP registration pins nothing: no MADV_DONTFORK, no map entry,
 * whether the kernel accepts it (HCAs with ODP) or not (rxe on 6.1). */
START_TEST(odp_registration_stays_out_of_the_fork_map)
{
	char *buf = map_pages(4);
	struct softverbs_fork_stats before;
	struct ibv_mr *mr;

	ck_assert_int_eq(ibv_fork_init(), 0);
	before = stats();
	mr = ibv_reg_mr(pd, buf, 4 * page,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	ck_assert(!vma_has_flag(buf, "dc"));
	ck_assert_uint_eq(stats().tracked_pages, before.tracked_pages);
	ck_assert_uint_eq(stats().live_ranges, before.live_ranges);
	if (mr) {
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
		ck_assert_uint_eq(stats().tracked_pages, before.tracked_pages);
	} else {
		ck_assert_int_ne(errno, 0);
	}
	munmap(buf, 4 * page);
}
END_TEST

/* The soft devices cannot register a dma-buf: the answer comes from the
 * provider (rdma-core's librxe has no such op) or the kernel (softverbs'
 * providers send the command), and nothing enters the fork map. */
START_TEST(dmabuf_registration_is_the_providers_to_refuse)
{
	struct softverbs_fork_stats before;
	int fd = memfd_create("not-a-dmabuf", 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)page), 0);
	before = stats();
	errno = 0;
	ck_assert_ptr_null(ibv_reg_dmabuf_mr(pd, 0, page, 0, fd,
					     IBV_ACCESS_LOCAL_WRITE));
	ck_assert_msg(errno == EOPNOTSUPP || errno == EINVAL || errno == EBADF,
		      "errno %d", errno);
	ck_assert_uint_eq(stats().tracked_pages, before.tracked_pages);
	close(fd);
}
END_TEST

START_TEST(missing_verbs_answer_eopnotsupp)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_ece ece;
	struct ibv_qp *qp;

	ck_assert_ptr_nonnull(cq);
	qp = ibv_create_qp(pd, &attr);
	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(ibv_query_ece(qp, &ece), EOPNOTSUPP);
	ck_assert_int_eq(ibv_set_ece(qp, &ece), EOPNOTSUPP);
	ck_assert_int_eq(ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_WRITE, 0), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(ctx, pd->handle));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

static Suite *make_pabi_suite(void)
{
	Suite *s = suite_create("pabi");
	TCase *tc = tcase_create(rdma_core_mode() ? "rdma-core providers" :
						   "native providers");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_libraries_the_mode_promises);
	tcase_add_test(tc, listings_share_device_objects);
	tcase_add_test(tc, mr_is_dontfork_while_registered);
	tcase_add_test(tc, late_fork_init_protects_live_mrs);
	tcase_add_test(tc, odp_registration_stays_out_of_the_fork_map);
	tcase_add_test(tc, dmabuf_registration_is_the_providers_to_refuse);
	tcase_add_test(tc, missing_verbs_answer_eopnotsupp);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{

	dev_name = getenv("PABI_DEV");
	if (!dev_name || !*dev_name)
		dev_name = getenv("RXE_DEV");
	if (!dev_name || !*dev_name) {
		printf("SKIP: no device (RXE_DEV / PABI_DEV): run inside tests/vm/run\n");
		return 77;
	}
	printf("test_pabi on %s, %s\n", dev_name,
	       rdma_core_mode() ? "rdma-core's providers" : "softverbs' providers");
	return check_run(make_pabi_suite());
}
