/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/integration/fault_walk.c -- every command, madvise and queue mmap
 * on the path of the common verbs fails once, in turn, on the real
 * devices ($RXE_DEV, $SIW_DEV) inside the test VM. Built only with
 * configure --enable-fault-injection (tests/integration/fault_inject.c).
 *
 * The path: open the device, alloc PD, register an MR (fork safety on),
 * create CQ, SRQ, QP, modify the QP (rxe: to RTS; siw, which connects
 * only through rdma_cm: to INIT), create an AH and alloc an MW (rxe),
 * then destroy everything in reverse and close. For each kind of call
 * (command, madvise, file mmap) and N = 1, 2, ... until the path no
 * longer reaches an Nth call, the Nth call fails; after each step:
 *   - the verb in progress reported the error (NULL or non-zero); a
 *     destroy that failed is retried and must then succeed;
 *   - open file descriptors and heap bytes are back to the baseline;
 *   - the range map equals the kernel: the pages it holds are exactly
 *     the pages /proc/self/smaps shows "dc" (outside the uverbs
 *     mappings), and it holds nothing once everything is deregistered;
 *   - the device is still usable: the whole path runs again, clean.
 * One exception, by design: a failed MADV_DOFORK inside ibv_dereg_mr is
 * not reported (the MR is gone in the kernel; an error would invite a
 * second dereg); the map keeps the range, still equal to the kernel, and
 * ibv_dofork_range() releases it.
 * Exit 0 when every step was clean, 1 otherwise, 77 outside the VM. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <softverbs/softverbs.h>

#include "fault_inject.h"
#include "fork.h"
#include "range_map.h"

/* ASan's count when linked with it, malloc's otherwise. */
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

static size_t heap_bytes(void)
{
	if (__sanitizer_get_current_allocated_bytes)
		return __sanitizer_get_current_allocated_bytes();
	return mallinfo2().uordblks;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static size_t page;
static int failures;

__attribute__((format(printf, 1, 2))) static void bad(const char *fmt, ...)
{
	va_list ap;

	failures++;
	printf("  FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- the range map against smaps --------------------------------------------- */

struct vma {
	uintptr_t start, end;
	int dc;     /* VmFlags has "dc" (MADV_DONTFORK) */
	int uverbs; /* a mapping of /dev/infiniband/uverbsN: the kernel's */
};

/* The mappings of this process, from /proc/self/smaps. */
static size_t read_vmas(struct vma *v, size_t max)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[1024];
	size_t n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t s, t;
		size_t hex = strspn(line, "0123456789abcdef");

		/* a mapping's first line: "start-end perms ..." */
		if (hex && line[hex] == '-' &&
		    sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &s, &t) == 2) {
			if (n == max)
				break;
			v[n].start = s;
			v[n].end = t;
			v[n].dc = 0;
			v[n].uverbs = strstr(line, "/dev/infiniband/") != NULL;
			n++;
		} else if (n && !strncmp(line, "VmFlags:", 8)) {
			v[n - 1].dc = strstr(line, " dc") != NULL;
		}
	}
	fclose(f);
	return n;
}

/* 1 when the pages the range map covers entirely (its ranges are bytes;
 * on a copy-on-fork kernel a page registered only in part is left to the
 * kernel, otherwise ranges are whole pages) are exactly the "dc" pages
 * outside the uverbs mappings; prints the first difference. */
static int map_equals_kernel(void)
{
	static struct vma v[4096];
	struct range_map *m = sv_fork_map();
	struct range_map_entry e[256];
	size_t n = range_map_snapshot(m, e, 256);
	size_t nv = read_vmas(v, 4096);

	if (n > 256 || !nv)
		return 0;
	for (size_t k = 0; k < nv; k++) {
		if (!v[k].dc || v[k].uverbs)
			continue;
		for (uintptr_t p = v[k].start / page; p < v[k].end / page; p++)
			if (!range_map_covers(m, p * page, (p + 1) * page)) {
				printf("  page %#" PRIxPTR " is dc but the range map does not cover it\n",
				       p * page);
				return 0;
			}
	}
	for (size_t i = 0; i < n; i++)
		for (uintptr_t p = e[i].first / page; p * page < e[i].end; p++) {
			int dc = 0, whole = range_map_covers(m, p * page, (p + 1) * page);

			for (size_t k = 0; k < nv && !dc; k++)
				dc = v[k].dc && p * page >= v[k].start && p * page < v[k].end;
			if (dc != whole) {
				printf("  page %#" PRIxPTR " is %sdc but the range map covers it %s\n",
				       p * page, dc ? "" : "not ", whole ? "entirely" : "in part");
				return 0;
			}
		}
	return 1;
}

/* ---- the path ---------------------------------------------------------------- */

struct objs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mw *mw;
};

static char *buf; /* 4 pages, the MR */
static int is_rxe;
static int gid_index = 1;

/* What one run saw. */
struct run {
	const char *failed_at;  /* the verb that reported an error */
	int destroy_retried;    /* a destroy failed and was retried */
	int dereg_unreported;   /* ibv_dereg_mr returned 0 under a fault */
	int retry_failed;
};

static int to_state(struct ibv_qp *qp, enum ibv_qp_state st, union ibv_gid *gid)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;

	memset(&a, 0, sizeof(a));
	a.qp_state = st;
	if (st == IBV_QPS_INIT) {
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (st == IBV_QPS_RTR) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.dgid = *gid;
		a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	} else {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

#define STEP(name, cond)                                                       \
	do {                                                                   \
		fi_where = name;                                               \
		if (!(cond)) {                                                 \
			r->failed_at = name;                                   \
			goto teardown;                                         \
		}                                                              \
	} while (0)

/* A destroy: 0 from the verb, or a failure retried once (which must
 * succeed: nothing half-done). */
#define DESTROY(name, call)                                                    \
	do {                                                                   \
		fi_where = name;                                               \
		if (call) {                                                    \
			if (!r->failed_at)                                     \
				r->failed_at = name;                           \
			r->destroy_retried = 1;                                \
			fi_where = name " (retry)";                            \
			if (call)                                              \
				r->retry_failed = 1;                           \
		}                                                              \
	} while (0)

static void run_path(struct ibv_device *dev, struct run *r)
{
	struct objs o;
	union ibv_gid gid;
	struct ibv_qp_init_attr qa;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct softverbs_fork_stats before, after;

	memset(&o, 0, sizeof(o));
	memset(r, 0, sizeof(*r));
	STEP("ibv_open_device", (o.ctx = ibv_open_device(dev)));
	STEP("ibv_query_gid", !ibv_query_gid(o.ctx, 1, is_rxe ? gid_index : 0, &gid));
	STEP("ibv_alloc_pd", (o.pd = ibv_alloc_pd(o.ctx)));
	STEP("ibv_reg_mr", (o.mr = ibv_reg_mr(o.pd, buf, 4 * page,
					      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
						      (is_rxe ? IBV_ACCESS_MW_BIND : 0))));
	STEP("ibv_create_cq", (o.cq = ibv_create_cq(o.ctx, 32, NULL, NULL, 0)));
	STEP("ibv_create_srq", (o.srq = ibv_create_srq(o.pd, &sa)));
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = o.cq;
	qa.recv_cq = o.cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 16;
	qa.cap.max_recv_wr = 16;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	STEP("ibv_create_qp", (o.qp = ibv_create_qp(o.pd, &qa)));
	STEP("ibv_modify_qp INIT", !to_state(o.qp, IBV_QPS_INIT, &gid));
	if (is_rxe) {
		struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };

		STEP("ibv_modify_qp RTR", !to_state(o.qp, IBV_QPS_RTR, &gid));
		STEP("ibv_modify_qp RTS", !to_state(o.qp, IBV_QPS_RTS, &gid));
		aa.grh.dgid = gid;
		aa.grh.sgid_index = (uint8_t)gid_index;
		aa.grh.hop_limit = 1;
		STEP("ibv_create_ah", (o.ah = ibv_create_ah(o.pd, &aa)));
		STEP("ibv_alloc_mw", (o.mw = ibv_alloc_mw(o.pd, IBV_MW_TYPE_1)));
	}
teardown:
	if (o.mw)
		DESTROY("ibv_dealloc_mw", ibv_dealloc_mw(o.mw));
	if (o.ah)
		DESTROY("ibv_destroy_ah", ibv_destroy_ah(o.ah));
	if (o.qp)
		DESTROY("ibv_destroy_qp", ibv_destroy_qp(o.qp));
	if (o.srq)
		DESTROY("ibv_destroy_srq", ibv_destroy_srq(o.srq));
	if (o.cq)
		DESTROY("ibv_destroy_cq", ibv_destroy_cq(o.cq));
	if (o.mr) {
		softverbs_fork_stats(&before, sizeof(before));
		DESTROY("ibv_dereg_mr", ibv_dereg_mr(o.mr));
		softverbs_fork_stats(&after, sizeof(after));
		if (after.live_ranges == before.live_ranges)
			r->dereg_unreported = 1;
	}
	if (o.pd)
		DESTROY("ibv_dealloc_pd", ibv_dealloc_pd(o.pd));
	if (o.ctx)
		DESTROY("ibv_close_device", ibv_close_device(o.ctx));
	fi_where = "";
}

/* ---- the walk ------------------------------------------------------------------ */

static const char *const kind_names[FI_NKINDS] = { "command", "madvise", "mmap" };

static int walk(struct ibv_device *dev)
{
	const char *name = ibv_get_device_name(dev);
	size_t heap0;
	int fds0, steps[FI_NKINDS] = { 0 };
	struct run r;

	/* warm up (lazy state of the library and libc), then the baseline */
	fi_arm(FI_CMD, 0);
	run_path(dev, &r);
	if (r.failed_at) {
		printf("%s: the clean path fails at %s: %s\n", name, r.failed_at, strerror(errno));
		return 1;
	}
	run_path(dev, &r);
	/* stdio's buffer is allocated at the first line: before the baseline */
	printf("%s: the clean path runs; walking the faults\n", name);
	heap0 = heap_bytes();
	fds0 = count_fds();
	for (int k = 0; k < FI_NKINDS; k++) {
		for (unsigned long n = 1; n < 1000; n++) {
			const char *where = NULL;
			struct softverbs_fork_stats st;

			fi_arm((enum fi_kind)k, n);
			run_path(dev, &r);
			if (!fi_fired(&where))
				break; /* the path has fewer such calls */
			fi_arm(FI_CMD, 0);
			steps[k]++;
			printf("%s: %s %lu fails in %s: ", name, kind_names[k], n, where);
			if (r.failed_at)
				printf("%s reported it%s\n", r.failed_at,
				       r.destroy_retried ? ", the retry succeeded" : "");
			else if (!strcmp(where, "ibv_dereg_mr") && k == FI_MADVISE && r.dereg_unreported)
				printf("not reported (MADV_DOFORK after the MR was gone, by design)\n");
			else
				printf("NOT REPORTED\n");
			if (!r.failed_at && !(k == FI_MADVISE && r.dereg_unreported))
				bad("%s %s %lu: the fault in %s was not reported", name, kind_names[k], n,
				    where);
			if (r.retry_failed)
				bad("%s %s %lu: %s failed again on retry", name, kind_names[k], n, where);
			if (!map_equals_kernel())
				bad("%s %s %lu: the range map differs from smaps", name, kind_names[k], n);
			if (r.dereg_unreported && ibv_dofork_range(buf, 4 * page))
				bad("%s: releasing the range left by the failed DOFORK failed", name);
			softverbs_fork_stats(&st, sizeof(st));
			if (st.live_ranges)
				bad("%s %s %lu: %" PRIu64 " ranges left in the map", name, kind_names[k], n,
				    st.live_ranges);
			if (count_fds() != fds0)
				bad("%s %s %lu: %d fds, baseline %d", name, kind_names[k], n, count_fds(),
				    fds0);
			if (heap_bytes() != heap0)
				bad("%s %s %lu: heap %zu bytes, baseline %zu", name, kind_names[k], n,
				    heap_bytes(), heap0);
			/* still usable */
			run_path(dev, &r);
			if (r.failed_at)
				bad("%s %s %lu: afterwards the clean path fails at %s", name,
				    kind_names[k], n, r.failed_at);
			if (count_fds() != fds0 || heap_bytes() != heap0 || !map_equals_kernel())
				bad("%s %s %lu: the clean run after it leaked", name, kind_names[k], n);
		}
	}
	printf("%s: %d command, %d madvise, %d mmap faults walked\n", name, steps[FI_CMD],
	       steps[FI_MADVISE], steps[FI_MMAP]);
	if (!steps[FI_CMD] || !steps[FI_MADVISE] || !steps[FI_MMAP])
		bad("%s: some kind of call never happened on the path", name);
	return 0;
}

int main(void)
{
	const char *names[2] = { getenv("RXE_DEV"), getenv("SIW_DEV") };
	struct ibv_device **list;
	int walked = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Without ASan the heap is malloc's count, in which chunks cached in
	 * the thread cache look in use: run again without that cache. */
	if (!__sanitizer_get_current_allocated_bytes && !getenv("SV_FAULT_WALK_NOTCACHE")) {
		setenv("SV_FAULT_WALK_NOTCACHE", "1", 1);
		setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
		execv("/proc/self/exe", (char *[]){ "fault_walk", NULL });
		perror("fault_walk: re-exec");
		return 1;
	}
	if (!names[0] || !names[1]) {
		printf("SKIP: needs RXE_DEV and SIW_DEV: run inside tests/vm/run --siw\n");
		return 77;
	}
	if (getenv("RXE_GID"))
		gid_index = atoi(getenv("RXE_GID"));
	page = (size_t)sysconf(_SC_PAGESIZE);
	sv_fork_set_copy_on_fork(0);
	if (ibv_fork_init()) {
		printf("FAIL: ibv_fork_init\n");
		return 1;
	}
	buf = fi_real_mmap(4 * page);
	if (buf == MAP_FAILED)
		return 1;
	memset(buf, 0, 4 * page);
	fi_install();
	list = ibv_get_device_list(NULL);
	for (int d = 0; d < 2; d++)
		for (int i = 0; list && list[i]; i++)
			if (!strcmp(ibv_get_device_name(list[i]), names[d])) {
				is_rxe = d == 0;
				failures += walk(list[i]);
				walked++;
			}
	ibv_free_device_list(list);
	if (walked != 2)
		bad("found %d of the devices %s and %s", walked, names[0], names[1]);
	printf("fault_walk: %s\n", failures ? "FAILED" : "every step clean");
	return failures ? 1 : 0;
}
