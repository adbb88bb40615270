/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The verbs of IBVERBS_1.15-1.18 (rdma-core 59-65) on real rxe and siw
 * devices, through whichever provider drives them (softverbs' own, or
 * with SOFTVERBS_PROVIDERS=rdma-core the installed rdma-core's librxe
 * and libsiw on softverbs' core). What a user would notice:
 *
 *  - ibv_reg_mr_ex registers memory by address, with an iova, and with
 *    fork safety on its pages are MADV_DONTFORK ("dc" in smaps) exactly
 *    as ibv_reg_mr's are, until ibv_dereg_mr; with it off a late
 *    ibv_fork_init() protects them; an RDMA WRITE to the iova lands at
 *    the address (rxe);
 *  - a dma-buf registration and one with a DMA handle go to the provider
 *    and fail with EOPNOTSUPP on these devices, leaving no page
 *    DONTFORK; bad attributes fail with EINVAL before anything happens;
 *  - ibv_alloc_buf gives page-aligned memory of its own pages, which
 *    ibv_reg_buf_mr registers (DONTFORK on the registered pages only)
 *    and which RDMA reaches (rxe); ibv_export_buf_dmabuf_fd says ENODATA
 *    for it;
 *  - ibv_query_port_speed answers what the kernel reports: EOPNOTSUPP,
 *    rxe and siw report no effective speed (6.1 has no such method, 7.2
 *    no driver op), as rdma-core's librxe/libsiw answer;
 *  - DMA handles, completion counters and device-memory dma-bufs are
 *    EOPNOTSUPP, whoever's provider.
 *
 * Devices: $RXE_DEV and, when set, $SIW_DEV. Exit 77 without $RXE_DEV. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs_ext.h" /* what an older system verbs.h does not declare */
#include "rxe_util.h"
#include "../check_main.h"

static const char *devs[2];
static int ndevs;
static const char *dev_name;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static size_t page;

/* ---- smaps ----------------------------------------------------------------- */

/* Does the mapping holding addr show VmFlags `flag`? */
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

static int dontfork(const void *addr)
{
	return vma_has_flag(addr, "dc");
}

/* How many mappings of the process are DONTFORK. */
static int dontfork_mappings(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmFlags:", 8) && strstr(line, " dc"))
			n++;
	fclose(f);
	return n;
}

static void *map_pages(size_t n)
{
	void *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 0x5a, n * page);
	return p;
}

/* ---- fixtures: each test runs in its own child, fork safety off -------------- */

static void setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

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

static void pick_device(int i)
{
	dev_name = devs[i];
}

static struct ibv_mr_init_attr addr_attr(void *addr, size_t len)
{
	struct ibv_mr_init_attr a;

	memset(&a, 0, sizeof(a));
	a.comp_mask = IBV_REG_MR_MASK_ADDR;
	a.addr = addr;
	a.length = len;
	a.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ;
	return a;
}

/* ---- ibv_reg_mr_ex ---------------------------------------------------------- */

START_TEST(reg_mr_ex_by_address_is_fork_safe_like_reg_mr)
{
	char *p = map_pages(4);
	struct ibv_mr_init_attr a = addr_attr(p + page, 2 * page);
	struct ibv_mr *mr, *old;

	pick_device(_i);
	setup();
	ck_assert_int_eq(ibv_fork_init(), 0);
	mr = ibv_reg_mr_ex(pd, &a);
	ck_assert_msg(mr, "ibv_reg_mr_ex on %s: %s", dev_name, strerror(errno));
	ck_assert_ptr_eq(mr->addr, p + page);
	ck_assert_uint_eq(mr->length, 2 * page);
	ck_assert_ptr_eq(mr->pd, pd);
	ck_assert_ptr_eq(mr->context, ctx);
	/* the registered pages, and only those */
	ck_assert(dontfork(p + page) && dontfork(p + 2 * page));
	ck_assert(!dontfork(p) && !dontfork(p + 3 * page));
	/* the same pages as ibv_reg_mr protects them */
	old = ibv_reg_mr(pd, p + page, 2 * page, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(old);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(dontfork(p + page)); /* still held by the other MR */
	ck_assert_int_eq(ibv_dereg_mr(old), 0);
	ck_assert(!dontfork(p + page) && !dontfork(p + 2 * page));
	munmap(p, 4 * page);
	teardown();
}
END_TEST

START_TEST(reg_mr_ex_late_fork_init_protects_it)
{
	char *p = map_pages(2);
	struct ibv_mr_init_attr a = addr_attr(p, 2 * page);
	struct ibv_mr *mr;

	pick_device(_i);
	setup();
	a.comp_mask |= IBV_REG_MR_MASK_IOVA;
	a.iova = 0x40000000;
	mr = ibv_reg_mr_ex(pd, &a);
	ck_assert_msg(mr, "ibv_reg_mr_ex (iova) on %s: %s", dev_name,
		      strerror(errno));
	ck_assert_ptr_eq(mr->addr, p);
	ck_assert(!dontfork(p)); /* fork safety off: a note only */
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert(dontfork(p) && dontfork(p + page));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!dontfork(p));
	munmap(p, 2 * page);
	teardown();
}
END_TEST

/* The attributes are the caller's: not changed (rdma-core's promise). */
START_TEST(reg_mr_ex_leaves_the_attributes_alone)
{
	char *p = map_pages(1);
	struct ibv_mr_init_attr a = addr_attr(p, page), copy;
	struct ibv_mr *mr;

	pick_device(_i);
	setup();
	a.fd = 12345; /* not named by the mask: never read */
	copy = a;
	mr = ibv_reg_mr_ex(pd, &a);
	ck_assert_ptr_nonnull(mr);
	ck_assert(!memcmp(&a, &copy, sizeof(a)));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	munmap(p, page);
	teardown();
}
END_TEST

START_TEST(reg_mr_ex_dmabuf_and_dmah_go_to_the_provider)
{
	char *p = map_pages(2);
	struct ibv_mr_init_attr a;
	struct ibv_dmah fake = { .context = NULL };
	struct ibv_dmah_init_attr dattr = { .comp_mask = 0 };
	int before, fd;

	pick_device(_i);
	setup();
	ck_assert_int_eq(ibv_fork_init(), 0);
	before = dontfork_mappings();
	/* a dma-buf: no user range, so nothing to protect; rxe and siw
	 * register none (the kernel's or rdma-core's EOPNOTSUPP) */
	fd = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)(2 * page)), 0);
	memset(&a, 0, sizeof(a));
	a.comp_mask = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET |
		      IBV_REG_MR_MASK_IOVA;
	a.fd = fd;
	a.fd_offset = 0;
	a.iova = 0x1000;
	a.length = page;
	a.access = IBV_ACCESS_LOCAL_WRITE;
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_ex(pd, &a));
	ck_assert_msg(errno == EOPNOTSUPP || errno == EINVAL || errno == EBADF,
		      "dma-buf registration on %s: %s", dev_name, strerror(errno));
	ck_assert_int_eq(dontfork_mappings(), before);
	close(fd);

	/* no DMA handle on these devices... */
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_dmah(ctx, &dattr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* ...and a registration with one is the provider's to refuse: the
	 * pages it protected first are released again */
	fake.context = ctx;
	a = addr_attr(p, 2 * page);
	a.comp_mask |= IBV_REG_MR_MASK_DMAH;
	a.dmah = &fake;
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_ex(pd, &a));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert(!dontfork(p) && !dontfork(p + page));
	ck_assert_int_eq(dontfork_mappings(), before);
	munmap(p, 2 * page);
	teardown();
}
END_TEST

START_TEST(reg_mr_ex_bad_attributes_change_nothing)
{
	char *p = map_pages(1);
	struct ibv_mr_init_attr a;
	int before;

	pick_device(_i);
	setup();
	ck_assert_int_eq(ibv_fork_init(), 0);
	before = dontfork_mappings();
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_ex(pd, NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_reg_mr_ex(NULL, NULL));
	ck_assert_int_eq(errno, EINVAL);
	/* neither memory nor a dma-buf */
	a = addr_attr(p, page);
	a.comp_mask = IBV_REG_MR_MASK_IOVA;
	ck_assert_ptr_null(ibv_reg_mr_ex(pd, &a));
	ck_assert_int_eq(errno, EINVAL);
	/* a dma-buf without its iova, memory with an fd offset */
	memset(&a, 0, sizeof(a));
	a.comp_mask = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET;
	a.fd = 0;
	a.length = page;
	ck_assert_ptr_null(ibv_reg_mr_ex(pd, &a));
	ck_assert_int_eq(errno, EINVAL);
	a = addr_attr(p, page);
	a.comp_mask |= IBV_REG_MR_MASK_FD_OFFSET;
	ck_assert_ptr_null(ibv_reg_mr_ex(pd, &a));
	ck_assert_int_eq(errno, EINVAL);
	/* access rules as ibv_reg_mr's */
	a = addr_attr(p, page);
	a.access = IBV_ACCESS_REMOTE_WRITE;
	ck_assert_ptr_null(ibv_reg_mr_ex(pd, &a));
	ck_assert_int_eq(errno, EINVAL);
	/* what a later rdma-core may add */
	a = addr_attr(p, page);
	a.comp_mask |= 1ULL << 40;
	ck_assert_ptr_null(ibv_reg_mr_ex(pd, &a));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(dontfork_mappings(), before);
	ck_assert(!dontfork(p));
	munmap(p, page);
	teardown();
}
END_TEST

/* ---- ibv_alloc_buf / ibv_reg_buf_mr ------------------------------------------ */

START_TEST(alloc_buf_and_reg_buf_mr)
{
	const size_t size = 3 * page + 100;
	struct ibv_buf *buf = NULL, *other_buf = NULL;
	struct ibv_pd *other;
	struct ibv_mr *mr;
	char *p;

	pick_device(_i);
	setup();
	ck_assert_int_eq(ibv_fork_init(), 0);
	p = ibv_alloc_buf(pd, size, &buf);
	ck_assert_msg(p, "ibv_alloc_buf on %s: %s", dev_name, strerror(errno));
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq((uintptr_t)p % page, 0);
	memset(p, 0x33, size);
	/* nothing registered yet: nothing protected */
	ck_assert(!dontfork(p));
	/* the second and third page */
	mr = ibv_reg_buf_mr(pd, buf, p + page, 2 * page,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_msg(mr, "ibv_reg_buf_mr on %s: %s", dev_name, strerror(errno));
	ck_assert_ptr_eq(mr->addr, p + page);
	ck_assert_uint_eq(mr->length, 2 * page);
	ck_assert(!dontfork(p) && dontfork(p + page) && dontfork(p + 2 * page));
	ck_assert(!dontfork(p + 3 * page));
	/* a plain buffer has no dma-buf */
	errno = 0;
	ck_assert_int_eq(ibv_export_buf_dmabuf_fd(buf), -1);
	ck_assert_int_eq(errno, ENODATA);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!dontfork(p + page));

	/* outside the buffer, or through another PD */
	errno = 0;
	ck_assert_ptr_null(ibv_reg_buf_mr(pd, buf, p + page, size,
					  IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_reg_buf_mr(pd, buf, p - page, page,
					  IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	other = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(other);
	ck_assert_ptr_null(ibv_reg_buf_mr(other, buf, p, page,
					  IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_reg_buf_mr(pd, NULL, p, page,
					  IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert(!dontfork(p) && !dontfork(p + page));
	ibv_free_buf(buf);
	ck_assert_int_eq(ibv_dealloc_pd(other), 0);

	/* bad requests */
	ck_assert_ptr_null(ibv_alloc_buf(pd, 0, &other_buf));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_alloc_buf(NULL, page, &other_buf));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_alloc_buf(pd, page, NULL));
	ck_assert_int_eq(errno, EINVAL);
	teardown();
}
END_TEST

/* RDMA reaches an MR of ibv_reg_mr_ex at its iova and one of
 * ibv_reg_buf_mr in its buffer (rxe: loopback QPs on one device). */
START_TEST(rdma_write_to_reg_mr_ex_iova_and_buf_mr)
{
	const uint64_t iova = 0x7700000000ULL;
	struct ibv_mr_init_attr a;
	struct ibv_mr *ex_mr, *buf_mr;
	struct ibv_send_wr wr, *bad;
	struct ibv_buf *buf;
	struct ibv_sge sge;
	struct rx_buf src;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;
	char *dst, *bdst;

	if (!getenv("RXE_DEV"))
		return;
	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, NULL);
	rx_buf_alloc(&d, &src, 2 * 4096, IBV_ACCESS_LOCAL_WRITE);
	rx_fill(src.addr, src.len, 7);
	dst = map_pages(2);
	memset(dst, 0, 2 * page);
	memset(&a, 0, sizeof(a));
	a.comp_mask = IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA;
	a.addr = dst;
	a.iova = iova;
	a.length = 2 * page;
	a.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	ex_mr = ibv_reg_mr_ex(d.pd, &a);
	ck_assert_ptr_nonnull(ex_mr);

	/* 4096 bytes to iova + 100: the bytes land at dst + 100 */
	sge = (struct ibv_sge){ (uintptr_t)src.addr, 4096, src.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = iova + 100;
	wr.wr.rdma.rkey = ex_mr->rkey;
	ck_assert_int_eq(ibv_post_send(p.qp[0], &wr, &bad), 0);
	rx_wait_wc(p.scq[0], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rx_diff(dst + 100, src.addr, 4096), -1);

	bdst = ibv_alloc_buf(d.pd, 2 * page, &buf);
	ck_assert_ptr_nonnull(bdst);
	memset(bdst, 0, 2 * page);
	buf_mr = ibv_reg_buf_mr(d.pd, buf, bdst, 2 * page,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(buf_mr);
	sge.addr = (uintptr_t)src.addr + 4096;
	wr.wr_id = 2;
	wr.wr.rdma.remote_addr = (uintptr_t)bdst + page;
	wr.wr.rdma.rkey = buf_mr->rkey;
	ck_assert_int_eq(ibv_post_send(p.qp[0], &wr, &bad), 0);
	rx_wait_wc(p.scq[0], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rx_diff(bdst + page, src.addr + 4096, 4096), -1);

	ck_assert_int_eq(ibv_dereg_mr(buf_mr), 0);
	ibv_free_buf(buf);
	ck_assert_int_eq(ibv_dereg_mr(ex_mr), 0);
	munmap(dst, 2 * page);
	rx_buf_free(&src);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* ---- the rest of 1.16 and 1.18 -------------------------------------------------- */

START_TEST(query_port_speed_is_what_the_kernel_reports)
{
	uint64_t speed = 0xdead;

	pick_device(_i);
	setup();
	/* rxe and siw report none (no method on 6.1, no driver op on 7.2) */
	ck_assert_int_eq(ibv_query_port_speed(ctx, 1, &speed), EOPNOTSUPP);
	ck_assert(speed == 0xdead);
	ck_assert_int_eq(ibv_query_port_speed(ctx, 0, &speed), EINVAL);
	ck_assert_int_eq(ibv_query_port_speed(ctx, 1, NULL), EINVAL);
	ck_assert_int_eq(ibv_query_port_speed(NULL, 1, &speed), EINVAL);
	teardown();
}
END_TEST

START_TEST(hardware_features_are_eopnotsupp)
{
	struct ibv_comp_cntr_init_attr cattr = { .comp_mask = 0 };
	struct ibv_comp_cntr_caps caps;
	struct ibv_dm fake_dm;

	pick_device(_i);
	setup();
	memset(&caps, 0xff, sizeof(caps));
	ck_assert_int_eq(_ibv_query_comp_cntr_caps(ctx, &caps, sizeof(caps)),
			 EOPNOTSUPP);
	/* zeroed whatever the answer */
	ck_assert_uint_eq(caps.max_counters, 0);
	errno = 0;
	ck_assert_ptr_null(ibv_create_comp_cntr(ctx, &cattr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_ptr_null(ibv_create_comp_cntr(ctx, NULL));
	ck_assert_int_eq(errno, EINVAL);
	/* no device memory on these devices: a dm of this context */
	memset(&fake_dm, 0, sizeof(fake_dm));
	fake_dm.context = ctx;
	errno = 0;
	ck_assert_int_eq(ibv_dm_export_dmabuf_fd(&fake_dm), -1);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ibv_dealloc_dmah(NULL), EINVAL);
	ck_assert_int_eq(ibv_destroy_comp_cntr(NULL), EINVAL);
	teardown();
}
END_TEST

static Suite *make_verbs_new_suite(void)
{
	Suite *s = suite_create("verbs_new");
	TCase *tc = tcase_create("reg_mr_ex");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, reg_mr_ex_by_address_is_fork_safe_like_reg_mr, 0,
			    ndevs);
	tcase_add_loop_test(tc, reg_mr_ex_late_fork_init_protects_it, 0, ndevs);
	tcase_add_loop_test(tc, reg_mr_ex_leaves_the_attributes_alone, 0, ndevs);
	tcase_add_loop_test(tc, reg_mr_ex_dmabuf_and_dmah_go_to_the_provider, 0,
			    ndevs);
	tcase_add_loop_test(tc, reg_mr_ex_bad_attributes_change_nothing, 0,
			    ndevs);
	suite_add_tcase(s, tc);

	tc = tcase_create("buffers");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, alloc_buf_and_reg_buf_mr, 0, ndevs);
	tcase_add_test(tc, rdma_write_to_reg_mr_ex_iova_and_buf_mr);
	suite_add_tcase(s, tc);

	tc = tcase_create("others");
	tcase_add_loop_test(tc, query_port_speed_is_what_the_kernel_reports, 0,
			    ndevs);
	tcase_add_loop_test(tc, hardware_features_are_eopnotsupp, 0, ndevs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *siw = getenv("SIW_DEV");
	int ret = rx_precheck();

	if (ret)
		return ret;
	page = (size_t)sysconf(_SC_PAGESIZE); /* before any test maps pages */
	devs[ndevs++] = getenv("RXE_DEV");
	if (siw && *siw)
		devs[ndevs++] = siw;
	return check_run(make_verbs_new_suite());
}
