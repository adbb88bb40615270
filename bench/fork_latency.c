/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* bench/fork_latency: what registered memory costs at fork(), for
 * bench/fork-latency.sh. Linked against the system's -libverbs, so the
 * same binary runs on rdma-core, or on softverbs with
 * LD_LIBRARY_PATH=<softverbs>/lib/.libs. Fork safety comes from the
 * environment (RDMAV_FORK_SAFE=1 or unset) for both libraries.
 *
 *   fork_latency fork MIB COUNT
 *       register one MIB MiB buffer, then COUNT times: fork(), the child
 *       reads its resident size from /proc/self/statm and exits, the
 *       parent waits. Prints one line:
 *       lib=... mib=... fork_us=<median> forkwait_us=<median> child_rss_kib=<median>
 *   fork_latency vmas N
 *       register N separate one-page buffers (every other page of one
 *       mapping, as separate allocations end up) and print the number of
 *       mappings (/proc/self/maps lines) before and after:
 *       lib=... mrs=N maps_before=... maps_after=...
 *   fork_latency probe MIB COUNT
 *       the subpage probe: ibv_fork_init(), a 1 KiB MR in the second half
 *       of a page whose first half holds a string, one MIB MiB MR more
 *       (0: none), then COUNT times: fork(), the child reads the string:
 *       lib=... mib=... child=ok|SIGSEGV|wrong fork_us=<median> ...
 *   fork_latency small N COUNT
 *       the same with N such pages (N 1 KiB MRs, each page's first half
 *       holding a string): the child reads all N strings:
 *       lib=... mrs=N child=ok|SIGSEGV|wrong fork_us=<median> ...
 *   fork_latency thp
 *       the probe in a transparent huge page: a 2 MiB-aligned region
 *       (MADV_HUGEPAGE), a string at its start and end, 1 KiB registered
 *       in its middle; fork() once, the child reads both strings:
 *       lib=... thp_kib=<AnonHugePages of the region> child=...
 *   fork_latency hugetlb
 *       the probe in a hugetlbfs 2 MiB page (MAP_PRIVATE): a string at
 *       its start, 1 KiB registered in its middle; fork() once:
 *       lib=... child=... or lib=... fork=<errno name>
 *
 * Fork safety: from the environment for fork and vmas, ibv_fork_init()
 * for the probes.
 * Device: env RXE_DEV or the first. Exit 0, or 1 with a message. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096ul

static void fail(const char *what)
{
	fprintf(stderr, "fork_latency: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		fail("/proc/self/maps");
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static struct ibv_pd *open_pd(void)
{
	const char *want = getenv("RXE_DEV");
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct ibv_pd *pd;
	int n;

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n && !ctx; i++)
		if (!want || !strcmp(ibv_get_device_name(list[i]), want))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		fail("no RDMA device to open");
	ibv_free_device_list(list);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		fail("ibv_alloc_pd");
	return pd;
}

static const char *lib_name(void)
{
	return dlsym(RTLD_DEFAULT, "softverbs_fork_stats") ? "softverbs" : "rdma-core";
}

static int bench_fork(struct ibv_pd *pd, size_t mib, int count)
{
	size_t len = mib << 20;
	double *t_fork = calloc((size_t)count, sizeof(double));
	double *t_all = calloc((size_t)count, sizeof(double));
	double *rss = calloc((size_t)count, sizeof(double));
	uint8_t *buf;

	if (!t_fork || !t_all || !rss)
		fail("calloc");
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		fail("mmap");
	memset(buf, 0x5a, len);
	if (!ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
		fail("ibv_reg_mr (ulimit -l?)");
	for (int i = 0; i < count; i++) {
		long pages[2] = { 0, 0 };
		int fds[2], status;
		double t0, t1;
		pid_t pid;

		if (pipe(fds))
			fail("pipe");
		t0 = now_us();
		pid = fork();
		if (pid < 0)
			fail("fork");
		if (pid == 0) {
			FILE *f = fopen("/proc/self/statm", "r");

			if (!f || fscanf(f, "%ld %ld", &pages[0], &pages[1]) != 2)
				_exit(1);
			if (write(fds[1], &pages[1], sizeof(long)) != sizeof(long))
				_exit(1);
			_exit(0);
		}
		t1 = now_us();
		if (read(fds[0], &pages[1], sizeof(long)) != sizeof(long))
			pages[1] = -1;
		waitpid(pid, &status, 0);
		t_all[i] = now_us() - t0;
		t_fork[i] = t1 - t0;
		rss[i] = (double)pages[1] * (double)(sysconf(_SC_PAGESIZE) / 1024);
		close(fds[0]);
		close(fds[1]);
	}
	printf("lib=%s mib=%zu fork_us=%.0f forkwait_us=%.0f child_rss_kib=%.0f\n", lib_name(),
	       mib, median(t_fork, count), median(t_all, count), median(rss, count));
	free(t_fork);
	free(t_all);
	free(rss);
	return 0;
}

static int bench_vmas(struct ibv_pd *pd, int n)
{
	uint8_t *area = mmap(NULL, 2 * PAGE * (size_t)n, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int before;

	if (area == MAP_FAILED)
		fail("mmap");
	memset(area, 1, 2 * PAGE * (size_t)n);
	before = count_maps();
	for (int i = 0; i < n; i++)
		if (!ibv_reg_mr(pd, area + 2 * PAGE * (size_t)i, PAGE, IBV_ACCESS_LOCAL_WRITE))
			fail("ibv_reg_mr");
	printf("lib=%s mrs=%d maps_before=%d maps_after=%d\n", lib_name(), n, before,
	       count_maps());
	return 0;
}

/* ---- the subpage probe ---------------------------------------------------- */

#define PROBE_TEXT "unregistered bytes sharing a page with an MR"

static sigjmp_buf segv_env;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(segv_env, 1);
}

/* In the child: 0 every string is there, 1 one differs, 2 SIGSEGV. */
static int child_reads(uint8_t *pages, int n)
{
	struct sigaction sa = { .sa_handler = on_segv };

	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(segv_env, 1))
		return 2;
	for (int i = 0; i < n; i++)
		if (memcmp(pages + 2 * PAGE * (size_t)i, PROBE_TEXT, sizeof(PROBE_TEXT)))
			return 1;
	return 0;
}

/* n pages (every other one of a mapping), each with the string in its
 * first half and a 1 KiB MR in its second; mib MiB more registered. */
static int bench_probe(struct ibv_pd *pd, int n, size_t mib, int count, const char *what)
{
	static const char *const verdict[] = { "ok", "wrong", "SIGSEGV", "died" };
	double *t_fork = calloc((size_t)count, sizeof(double));
	double *t_all = calloc((size_t)count, sizeof(double));
	uint8_t *pages, *big = NULL;
	int worst = 0, ret = ibv_fork_init();

	if (ret) {
		errno = ret;
		fail("ibv_fork_init");
	}
	pages = mmap(NULL, 2 * PAGE * (size_t)n, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!t_fork || !t_all || pages == MAP_FAILED)
		fail("memory");
	for (int i = 0; i < n; i++) {
		uint8_t *p = pages + 2 * PAGE * (size_t)i;

		memset(p, 0, 2 * PAGE);
		strcpy((char *)p, PROBE_TEXT);
		if (!ibv_reg_mr(pd, p + PAGE / 2, 1024, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
			fail("ibv_reg_mr (ulimit -l?)");
	}
	if (mib) {
		big = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (big == MAP_FAILED)
			fail("mmap");
		memset(big, 0x5a, mib << 20);
		if (!ibv_reg_mr(pd, big, mib << 20, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
			fail("ibv_reg_mr (ulimit -l?)");
	}
	for (int i = 0; i < count; i++) {
		int status;
		double t0, t1;
		pid_t pid;

		t0 = now_us();
		pid = fork();
		if (pid < 0)
			fail("fork");
		if (pid == 0)
			_exit(child_reads(pages, n));
		t1 = now_us();
		waitpid(pid, &status, 0);
		t_all[i] = now_us() - t0;
		t_fork[i] = t1 - t0;
		status = WIFEXITED(status) && WEXITSTATUS(status) < 3 ? WEXITSTATUS(status) : 3;
		if (status > worst)
			worst = status;
	}
	printf("lib=%s %s child=%s fork_us=%.0f forkwait_us=%.0f\n", lib_name(), what,
	       verdict[worst], median(t_fork, count), median(t_all, count));
	free(t_fork);
	free(t_all);
	return 0;
}

/* AnonHugePages (KiB) of the mapping holding addr. */
static long thp_kib(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	long kib = -1;
	int in = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)addr >= s && (uintptr_t)addr < e;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	}
	fclose(f);
	return kib;
}

/* One fork of a huge-page probe: the child checks n strings at offs. */
static int huge_probe(struct ibv_pd *pd, uint8_t *h, const size_t *offs, int n, const char *what)
{
	static const char *const verdict[] = { "ok", "wrong", "SIGSEGV", "died" };
	int ret = ibv_fork_init(), status;
	pid_t pid;

	if (ret) {
		errno = ret;
		fail("ibv_fork_init");
	}
	for (int i = 0; i < n; i++)
		strcpy((char *)h + offs[i], PROBE_TEXT);
	if (!ibv_reg_mr(pd, h + (1ul << 20), 1024, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
		fail("ibv_reg_mr (ulimit -l?)");
	pid = fork();
	if (pid < 0) {
		printf("lib=%s %s fork=%s\n", lib_name(), what,
		       errno == ENOMEM ? "ENOMEM" : strerror(errno));
		return 0;
	}
	if (pid == 0) {
		for (int i = 0; i < n; i++)
			if ((status = child_reads(h + offs[i], 1)))
				_exit(status);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	status = WIFEXITED(status) && WEXITSTATUS(status) < 3 ? WEXITSTATUS(status) : 3;
	printf("lib=%s %s child=%s\n", lib_name(), what, verdict[status]);
	return 0;
}

static int bench_thp(struct ibv_pd *pd)
{
	size_t huge = 2ul << 20, offs[2] = { 0, huge - 64 };
	uint8_t *m = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *h;
	char what[64];

	if (m == MAP_FAILED)
		fail("mmap");
	h = (uint8_t *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
	if (madvise(h, huge, MADV_HUGEPAGE))
		fail("madvise(MADV_HUGEPAGE)");
	memset(h, 0, huge);
	snprintf(what, sizeof(what), "thp_kib=%ld", thp_kib(h));
	return huge_probe(pd, h, offs, 2, what);
}

static int bench_hugetlb(struct ibv_pd *pd)
{
	size_t huge = 2ul << 20, offs[1] = { 0 };
	uint8_t *h = mmap(NULL, huge, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (h == MAP_FAILED)
		fail("mmap(MAP_HUGETLB): no free 2 MiB huge page?");
	memset(h, 0, huge);
	return huge_probe(pd, h, offs, 1, "hugetlb=2048");
}

int main(int argc, char **argv)
{
	struct ibv_pd *pd;

	if (argc == 4 && !strcmp(argv[1], "fork")) {
		pd = open_pd();
		return bench_fork(pd, strtoul(argv[2], NULL, 0), atoi(argv[3]));
	}
	if (argc == 3 && !strcmp(argv[1], "vmas")) {
		pd = open_pd();
		return bench_vmas(pd, atoi(argv[2]));
	}
	if (argc == 4 && !strcmp(argv[1], "probe")) {
		char what[32];

		snprintf(what, sizeof(what), "mib=%s", argv[2]);
		pd = open_pd();
		return bench_probe(pd, 1, strtoul(argv[2], NULL, 0), atoi(argv[3]), what);
	}
	if (argc == 4 && !strcmp(argv[1], "small")) {
		char what[32];

		snprintf(what, sizeof(what), "mrs=%s", argv[2]);
		pd = open_pd();
		return bench_probe(pd, atoi(argv[2]), 0, atoi(argv[3]), what);
	}
	if (argc == 2 && !strcmp(argv[1], "thp"))
		return bench_thp(open_pd());
	if (argc == 2 && !strcmp(argv[1], "hugetlb"))
		return bench_hugetlb(open_pd());
	fprintf(stderr, "usage: fork_latency fork MIB COUNT | vmas N | probe MIB COUNT | small N COUNT | thp | hugetlb\n");
	return 2;
}
