/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fork-torture: RDMA traffic into registered memory while the process
 * forks, over and over, in every way programs fork:
 *
 *   exit     fork(); the child looks at memory and exits
 *   exec     fork() + execlp("true")
 *   system   system(CMD)
 *   spawn    posix_spawnp("true")
 *   thread   a second thread forks (child looks, exits) while other
 *            threads keep posting and polling on their own QPs
 *
 * Each round posts an RDMA WRITE, a SEND and an RDMA READ on an RC QP
 * connected to another QP of the same device (loopback), forks while they
 * are in flight, then checks every byte the device wrote. A fork-safety
 * bug shows as data the parent does not see (the device wrote into a page
 * the child got) or as a child that sees what it should not.
 *
 * What the child should see (the program works out, page by page, what
 * the library promises, from the MRs live at the fork):
 *   fork safety on   pages (huge pages) wholly covered by registered
 *                    memory are not in the child at all (it gets SIGSEGV
 *                    touching them). A page only partly registered:
 *                    softverbs on a kernel that copies DMA-pinned pages at
 *                    fork (copy-on-fork) leaves it to that copy, so the
 *                    child reads all of it, the registered bytes as they
 *                    were at fork and every unregistered byte; rdma-core,
 *                    or softverbs with SOFTVERBS_FORK_WHOLE_PAGES or on a
 *                    kernel without copy-on-fork, hides the whole page.
 *                    Data on other pages is there.
 *   fork safety off  everything, as it was at fork() (the kernel copies
 *                    DMA-pinned pages into the child, or shares them).
 *
 * Across machines (--listen / --remote HOST): the traffic comes from a
 * peer on another host instead of a loopback QP. The forking side runs
 * `fork-torture --listen`; the peer runs `fork-torture --remote HOST`,
 * which connects an RC QP to it (the addresses over TCP) and, each round,
 * RDMA WRITEs new bytes into the forking side's DST and RDMA READs its RD,
 * which the forking parent refills before every round -- after the forks
 * of the rounds before, so a page the fork left to the child would show.
 * The forking side forks while the peer's operations are in flight and
 * checks that every byte written reached the parent; the peer checks that
 * every READ returned the parent's current bytes. The ways, fork safety
 * modes and shapes are those of the loopback runs (one traffic thread).
 *
 * Memory shapes (--shape): plain (page-aligned MR), overlap (two MRs
 * sharing pages, one re-registered every round, starting and ending
 * inside pages that hold unregistered data, each page between them whole
 * only in their union), subpage (MRs of a few bytes inside pages that also
 * hold unregistered data, and one MR of two whole pages and two parts),
 * huge (MRs inside a hugetlbfs 2 MiB page; needs
 * /proc/sys/vm/nr_hugepages), big (one 1 GiB MR, see --big).
 *
 * Usage: fork-torture [options]
 *   -w, --way WAY        exit|exec|system|spawn|thread|all (all)
 *   -f, --fork-safe M    off|on|late (off; on = ibv_fork_init() first;
 *                        late = rounds with it off, then ibv_fork_init()
 *                        on the live MRs, then rounds with it on).
 *                        RDMAV_FORK_SAFE=1 in the environment means on.
 *   -S, --shape SHAPE    plain|overlap|subpage|huge|big (plain)
 *   -s, --size BYTES     bytes per operation (65536; subpage: 1000)
 *   -r, --rounds N       rounds per way (20)
 *   -t, --seconds S      at most S seconds per way (no limit)
 *   -T, --threads N      traffic threads for the thread way (2)
 *   -b, --big MIB        size of the big MR (1024)
 *   -c, --cmd CMD        command for the system way ("true")
 *   -d, --device NAME    device (env RXE_DEV, else the first one)
 *   -g, --gid INDEX      GID index (env RXE_GID, else 1)
 *   -L, --listen         fork here; the traffic comes from a --remote peer
 *   -R, --remote HOST    be the traffic peer of `fork-torture --listen` on
 *                        HOST (waits up to 60 s for it to listen)
 *   -p, --port PORT      TCP port of the address exchange (18600)
 * Exit: 0 nothing corrupted and every child saw what it should; 1 some
 * data corrupted or a child saw the wrong thing; 2 bad usage or setup
 * failure; 77 cannot run here (no device, no huge pages).
 *
 * Build: part of softverbs' `make`; run it as root or with a large
 * `ulimit -l`, e.g. LD_LIBRARY_PATH=lib/.libs examples/.libs/fork-torture */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define PAGE 4096ul
#define HUGE_PAGE (2ul << 20)
#define GUARD 256 /* unregistered bytes around each subpage MR */
#define OVERLAP_OFF 1000 /* overlap shape: unregistered bytes before the MRs */
#define MAX_THREADS 8

enum way { W_EXIT, W_EXEC, W_SYSTEM, W_SPAWN, W_THREAD, NWAYS };
static const char *const way_names[NWAYS] = { "exit", "exec", "system", "spawn", "thread" };
static const char *const way_words[NWAYS] = {
	"fork() + exit", "fork() + exec", "system()", "posix_spawn()",
	"fork() from a second thread during traffic",
};

enum shape { SH_PLAIN, SH_OVERLAP, SH_SUBPAGE, SH_HUGE, SH_BIG, NSHAPES };
static const char *const shape_names[NSHAPES] = { "plain", "overlap", "subpage", "huge", "big" };

/* The four slots of an area: the device writes DST (RDMA WRITE), RECV
 * (SEND) and RD (RDMA READ); CANARY is registered and never written, so a
 * child can compare it. */
enum slot { DST, CANARY, RECV, RD, NSLOTS };

static struct {
	enum shape shape;
	size_t size;
	unsigned int rounds, seconds, threads;
	size_t big;
	const char *cmd, *dev, *safe, *remote, *port;
	int gid, listen;
} opt = { .rounds = 20, .threads = 2, .big = 1ul << 30, .cmd = "true", .safe = "off",
	  .port = "18600" };

static int fork_safe; /* what the children must see: 1 = registered pages hidden */

/* ---- data patterns ------------------------------------------------------- */

static uint8_t pat(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761u ^ (uint32_t)i * 40503u ^ (uint32_t)(i >> 11) * 97u;

	return (uint8_t)(x ^ x >> 13 ^ x >> 24);
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

/* Index of the first byte that is not the pattern, or -1. */
static long bad_byte(const uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pat(seed, i))
			return (long)i;
	return -1;
}

#define SEED_CANARY 0xc0ffeeu
#define SEED_GUARD 0x6a6a6au
#define SEED_OUTSIDE 0x050505u

/* ---- reporting ----------------------------------------------------------- */

static atomic_uint problems;

static void problem(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&problems, 1) >= 20)
		return; /* counted, not printed */
	va_start(ap, fmt);
	fputs("  PROBLEM: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
}

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fork-torture: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

/* ---- memory: one area per QP pair, laid out by shape --------------------- */

#define MAX_GUARDS 3

struct area {
	uint8_t *map;
	size_t map_len;
	int huge;
	uint8_t *slot[NSLOTS];
	struct ibv_mr *mr[NSLOTS + 1]; /* shape-dependent: 1, 2 or 5 MRs */
	int nmr;
	int slot_mr[NSLOTS];       /* which MR covers each slot */
	/* unregistered bytes sharing a page with an MR */
	uint8_t *guard[MAX_GUARDS];
	size_t guard_len[MAX_GUARDS];
	int nguard;
	uint8_t *wide;             /* subpage: the MR over two whole pages */
	uint8_t *outside;          /* unregistered data on a page of its own */
};

static struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len,
				       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ);

	if (!mr)
		die(2, "ibv_reg_mr(%zu bytes): %s%s", len, strerror(errno),
		    errno == ENOMEM ? " (raise `ulimit -l`)" : "");
	return mr;
}

static void area_create(struct area *a, struct ibv_pd *pd, enum shape shape)
{
	size_t len = opt.size, stride = (len + PAGE - 1) / PAGE * PAGE;
	size_t off[NSLOTS];
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;

	memset(a, 0, sizeof(*a));
	switch (shape) {
	case SH_SUBPAGE:
		stride = (len + 2 * GUARD + PAGE - 1) / PAGE * PAGE;
		for (int i = 0; i < NSLOTS; i++)
			off[i] = i * stride + GUARD;
		/* then 4 pages, the wide MR over [GUARD, 4 * PAGE - GUARD) of them */
		a->map_len = NSLOTS * stride + 5 * PAGE;
		a->wide = (uint8_t *)0 + NSLOTS * stride;
		a->outside = (uint8_t *)0 + NSLOTS * stride + 4 * PAGE; /* offsets for now */
		break;
	case SH_OVERLAP:
		for (int i = 0; i < NSLOTS; i++)
			off[i] = OVERLAP_OFF + i * stride;
		a->map_len = NSLOTS * stride + 2 * PAGE;
		a->outside = (uint8_t *)0 + NSLOTS * stride + PAGE;
		break;
	case SH_HUGE:
		/* Not page aligned either, with unregistered bytes around. */
		stride = (len + 2 * GUARD + PAGE - 1) / PAGE * PAGE;
		if (2 * PAGE + NSLOTS * stride > HUGE_PAGE)
			die(2, "--size %zu does not fit 4 times in a 2 MiB page", len);
		for (int i = 0; i < NSLOTS; i++)
			off[i] = 2 * PAGE + i * stride + GUARD;
		a->map_len = 2 * HUGE_PAGE;
		a->outside = (uint8_t *)0 + HUGE_PAGE;
		a->huge = 1;
		flags |= MAP_HUGETLB;
		break;
	case SH_BIG:
		if (opt.big < NSLOTS * stride * 2)
			die(2, "--big is too small for --size");
		for (int i = 0; i < NSLOTS; i++)
			off[i] = (opt.big / NSLOTS * i + opt.big / 8) / PAGE * PAGE;
		a->map_len = opt.big + PAGE;
		a->outside = (uint8_t *)0 + opt.big;
		break;
	default:
		for (int i = 0; i < NSLOTS; i++)
			off[i] = i * stride;
		a->map_len = NSLOTS * stride + PAGE;
		a->outside = (uint8_t *)0 + NSLOTS * stride;
		break;
	}
	a->map = mmap(NULL, a->map_len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (a->map == MAP_FAILED) {
		if (a->huge)
			die(77, "no 2 MiB huge pages (%s): echo 16 > /proc/sys/vm/nr_hugepages",
			    strerror(errno));
		die(2, "mmap(%zu bytes): %s", a->map_len, strerror(errno));
	}
	/* Everything not a slot holds a known pattern: guards and the outside
	 * page must survive the traffic untouched. For the big shape only the
	 * outside page is checked; the rest is just touched. */
	if (shape == SH_BIG)
		memset(a->map, 0x33, a->map_len);
	else
		fill(a->map, a->map_len, SEED_GUARD);
	a->outside = a->map + (a->outside - (uint8_t *)0);
	if (a->wide)
		a->wide = a->map + (a->wide - (uint8_t *)0);
	fill(a->outside, PAGE, SEED_OUTSIDE);
	for (int i = 0; i < NSLOTS; i++)
		a->slot[i] = a->map + off[i];
	fill(a->slot[CANARY], len, SEED_CANARY);

	switch (shape) {
	case SH_PLAIN:
	case SH_BIG:
		a->mr[0] = reg(pd, a->map, shape == SH_BIG ? opt.big : NSLOTS * stride);
		a->nmr = 1;
		break;
	case SH_OVERLAP:
		/* MR 0 covers DST CANARY RECV, MR 1 covers CANARY RECV RD; both
		 * start and end OVERLAP_OFF bytes into a page. */
		a->mr[0] = reg(pd, a->slot[DST], 3 * stride);
		a->mr[1] = reg(pd, a->slot[CANARY], 3 * stride);
		a->nmr = 2;
		a->slot_mr[RD] = 1;
		a->slot_mr[CANARY] = 1;
		a->guard[0] = a->map; /* before DST, on its first page */
		a->guard_len[0] = OVERLAP_OFF;
		a->guard[1] = a->slot[RD] + stride; /* after RD, on its last page */
		a->guard_len[1] = PAGE - OVERLAP_OFF;
		a->nguard = 2;
		break;
	default: /* subpage, huge: one MR per slot, not page aligned */
		for (int i = 0; i < NSLOTS; i++) {
			a->mr[i] = reg(pd, a->slot[i], len);
			a->slot_mr[i] = i;
		}
		a->nmr = NSLOTS;
		break;
	}
	if (shape == SH_SUBPAGE) {
		a->guard[0] = a->slot[CANARY] - GUARD; /* same page as the canary */
		a->guard_len[0] = GUARD;
		/* the wide MR: parts of its first and last page, two whole */
		a->mr[a->nmr++] = reg(pd, a->wide + GUARD, 4 * PAGE - 2 * GUARD);
		a->guard[1] = a->wide;
		a->guard_len[1] = GUARD;
		a->guard[2] = a->wide + 4 * PAGE - GUARD;
		a->guard_len[2] = GUARD;
		a->nguard = 3;
	} else if (shape == SH_HUGE) {
		a->guard[0] = a->map; /* same huge page as the MRs */
		a->guard_len[0] = PAGE;
		a->nguard = 1;
	}
}

static void area_destroy(struct area *a)
{
	for (int i = 0; i < a->nmr; i++)
		if (ibv_dereg_mr(a->mr[i]))
			problem("ibv_dereg_mr failed");
	munmap(a->map, a->map_len);
}

/* Overlap shape: deregister one of the two overlapping MRs and register
 * it again. Their shared pages (CANARY, RECV) must stay protected all
 * along, and the pages of the new MR be protected again. */
static void area_rereg(struct area *a, struct ibv_pd *pd, unsigned int round)
{
	int i = round & 1;

	if (ibv_dereg_mr(a->mr[i]))
		die(2, "ibv_dereg_mr: %s", strerror(errno));
	a->mr[i] = reg(pd, i ? a->slot[CANARY] : a->slot[DST],
		       3 * ((opt.size + PAGE - 1) / PAGE * PAGE));
	a->slot_mr[RECV] = i; /* RECV alternates between the two */
}

/* Bytes around the slots (everything a WRITE/SEND/READ must not touch). */
static void area_check_untouched(struct area *a, int pair, unsigned int round)
{
	long b = bad_byte(a->slot[CANARY], opt.size, SEED_CANARY);

	if (b >= 0)
		problem("pair %d round %u: the registered canary (never written) changed at byte %ld",
			pair, round, b);
	if (bad_byte(a->outside, PAGE, SEED_OUTSIDE) >= 0)
		problem("pair %d round %u: unregistered data on another page changed", pair, round);
	for (int g = 0; g < a->nguard; g++) {
		size_t o = (size_t)(a->guard[g] - a->map);

		for (size_t k = 0; k < a->guard_len[g]; k++)
			if (a->guard[g][k] != pat(SEED_GUARD, o + k)) {
				problem("pair %d round %u: unregistered bytes sharing a page with an MR changed (guard %d, byte %zu)",
					pair, round, g, k);
				break;
			}
	}
	if (opt.shape == SH_SUBPAGE || opt.shape == SH_HUGE) {
		for (int i = 0; i < NSLOTS; i++) {
			size_t before = a->slot[i] - a->map;
			uint8_t *after = a->slot[i] + opt.size;

			for (size_t k = 0; k < GUARD; k++)
				if (a->slot[i][-1 - (long)k] != pat(SEED_GUARD, before - 1 - k) ||
				    after[k] != pat(SEED_GUARD, (size_t)(after - a->map) + k)) {
					problem("pair %d round %u: unregistered bytes next to MR %d changed",
						pair, round, i);
					break;
				}
		}
	}
}

/* ---- the device: one RC QP pair per traffic thread ----------------------- */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static enum ibv_mtu active_mtu;

struct pair {
	int id;
	int sock;             /* --listen: the control connection to the peer, */
	FILE *in;             /* and its reading end (NULL: loopback) */
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2]; /* qp[0] sends WRITE, SEND, READ to qp[1] */
	uint8_t *src;         /* registered source of WRITE and SEND */
	struct ibv_mr *src_mr;
	struct area area;
	uint32_t seed;
	uint32_t rd_seed;     /* --listen: what RD holds for the peer's READ */
	unsigned long ops;    /* operations verified */
};

static void open_device(void)
{
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	if (!list || n == 0)
		die(77, "no RDMA device (load rdma_rxe and `rdma link add rxe0 type rxe netdev lo`)");
	for (int i = 0; i < n && !ctx; i++)
		if (!opt.dev || !strcmp(ibv_get_device_name(list[i]), opt.dev))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die(77, "cannot open device %s", opt.dev ? opt.dev : "(first)");
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_query_gid(ctx, 1, opt.gid, &gid))
		die(2, "ibv_alloc_pd / ibv_query_gid(index %d) failed", opt.gid);
	/* loopback as always at 1024; across a link what the port has */
	active_mtu = IBV_MTU_1024;
	if (opt.listen || opt.remote) {
		struct ibv_port_attr pa;

		if (ibv_query_port(ctx, 1, &pa))
			die(2, "ibv_query_port failed");
		active_mtu = pa.active_mtu;
	}
}

static void qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *what)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		die(2, "modify QP to %s: %s", what, strerror(ret));
}

static void connect_qp(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		  "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = active_mtu;
	a.dest_qp_num = dest;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = (uint8_t)opt.gid;
	a.ah_attr.grh.hop_limit = 1;
	qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}

/* ---- across machines: the control connection and the peer ---------------- */

/* Which libibverbs serves us: softverbs exports softverbs_fork_stats. */
static const char *lib_name(void)
{
	return dlsym(RTLD_DEFAULT, "softverbs_fork_stats") ? "softverbs" : "rdma-core (or other)";
}

/* One line to the other side; the connection is the test's lifeline. */
static void ctl_send(int fd, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(fd, fmt, ap);
	va_end(ap);
	if (n < 0)
		die(1, "the peer's control connection: %s", strerror(errno));
}

static void ctl_recv(FILE *in, char *line, int len, const char *what)
{
	if (!fgets(line, len, in))
		die(1, "the peer closed the control connection (waiting for %s)", what);
}

static int ctl_open(void)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int fd = -1, one = 1, ret;
	time_t end = time(NULL) + 60;

	if (opt.listen)
		hints.ai_flags = AI_PASSIVE;
	ret = getaddrinfo(opt.remote, opt.port, &hints, &ai);
	if (ret)
		die(2, "address %s port %s: %s", opt.remote ? opt.remote : "(any)", opt.port,
		    gai_strerror(ret));
	if (opt.listen) {
		int lfd = socket(ai->ai_family, SOCK_STREAM, 0);

		if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 1))
			die(2, "listening on port %s: %s", opt.port, strerror(errno));
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die(2, "accept: %s", strerror(errno));
		close(lfd);
	} else {
		/* the forking side may not listen yet: retry for a minute */
		for (;;) {
			fd = socket(ai->ai_family, SOCK_STREAM, 0);
			if (fd < 0)
				die(2, "socket: %s", strerror(errno));
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				break;
			close(fd);
			if (time(NULL) > end)
				die(2, "connecting to %s port %s: %s", opt.remote, opt.port,
				    strerror(errno));
			sleep(1);
		}
	}
	freeaddrinfo(ai);
	return fd;
}

static void gid_hex(const union ibv_gid *g, char out[33])
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", g->raw[i]);
}

static void hex_gid(const char *hex, union ibv_gid *g)
{
	for (int i = 0; i < 16; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			die(1, "the peer sent a bad GID");
		g->raw[i] = (uint8_t)b;
	}
}

/* The QP's address for the other side: "HELLO qpn gid [size]". */
static void ctl_hello(int fd, uint32_t qpn, size_t size)
{
	char hex[33];

	gid_hex(&gid, hex);
	ctl_send(fd, "HELLO %u %s %zu\n", qpn, hex, size);
}

static void ctl_hello_recv(FILE *in, uint32_t *qpn, union ibv_gid *g, size_t *size)
{
	char line[256], hex[33];

	ctl_recv(in, line, sizeof(line), "the peer's address");
	if (sscanf(line, "HELLO %u %32s %zu", qpn, hex, size) != 3 || strlen(hex) != 32)
		die(1, "the peer said \"%s\", not its address", line);
	hex_gid(hex, g);
}

/* An RC QP with a CQ of its own for sends and receives, *cq. */
static struct ibv_qp *rc_qp(struct ibv_cq **cq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;

	*cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!*cq)
		die(2, "ibv_create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = *cq;
	qp = ibv_create_qp(pd, &ia);
	if (!qp)
		die(2, "ibv_create_qp: %s", strerror(errno));
	return qp;
}

/* --listen: one QP (qp[0]) connected to the peer, the area it works on. */
static void pair_create_listen(struct pair *p, enum shape shape)
{
	union ibv_gid peer_gid;
	uint32_t peer_qpn;
	size_t unused;

	memset(p, 0, sizeof(*p));
	p->qp[0] = rc_qp(&p->cq[0]);
	area_create(&p->area, pd, shape);
	printf("waiting for the traffic peer (fork-torture --remote) on port %s\n", opt.port);
	fflush(stdout);
	p->sock = ctl_open();
	ctl_hello(p->sock, p->qp[0]->qp_num, opt.size);
	p->in = fdopen(dup(p->sock), "r");
	if (!p->in)
		die(2, "fdopen: %s", strerror(errno));
	ctl_hello_recv(p->in, &peer_qpn, &peer_gid, &unused);
	connect_qp(p->qp[0], peer_qpn, &peer_gid);
}

static void pair_create(struct pair *p, int id, enum shape shape)
{
	memset(p, 0, sizeof(*p));
	p->id = id;
	for (int i = 0; i < 2; i++)
		p->qp[i] = rc_qp(&p->cq[i]);
	connect_qp(p->qp[0], p->qp[1]->qp_num, &gid); /* loopback: our own address */
	connect_qp(p->qp[1], p->qp[0]->qp_num, &gid);
	p->src = aligned_alloc(PAGE, (opt.size + PAGE - 1) / PAGE * PAGE);
	if (!p->src)
		die(2, "out of memory");
	p->src_mr = reg(pd, p->src, opt.size);
	area_create(&p->area, pd, shape);
	p->seed = (uint32_t)id << 24;
}

static void pair_destroy(struct pair *p)
{
	if (p->in) { /* the peer stops and reports */
		ctl_send(p->sock, "END\n");
		fclose(p->in);
		close(p->sock);
	}
	area_destroy(&p->area);
	if (p->src_mr)
		ibv_dereg_mr(p->src_mr);
	free(p->src);
	for (int i = 0; i < 2; i++) {
		if (p->qp[i])
			ibv_destroy_qp(p->qp[i]);
		if (p->cq[i])
			ibv_destroy_cq(p->cq[i]);
	}
}

/* --listen: the peer WRITEs DST and READs RD, in flight when this returns. */
static void round_post_remote(struct pair *p)
{
	struct area *a = &p->area;

	p->seed++;
	p->rd_seed = p->seed ^ 0x5a0000u;
	fill(a->slot[RD], opt.size, p->rd_seed); /* the parent's current bytes */
	ctl_send(p->sock, "ROUND %u %llx %u %u %llx %u\n", p->seed,
		 (unsigned long long)(uintptr_t)a->slot[DST], a->mr[a->slot_mr[DST]]->rkey,
		 p->rd_seed, (unsigned long long)(uintptr_t)a->slot[RD],
		 a->mr[a->slot_mr[RD]]->rkey);
}

/* Start a round: new data in src, then WRITE src -> DST, SEND src -> RECV
 * and READ DST -> RD, all in flight when this returns. */
static void round_post_loopback(struct pair *p)
{
	struct area *a = &p->area;
	uint32_t len = (uint32_t)opt.size;
	struct ibv_sge s_src = { (uintptr_t)p->src, len, p->src_mr->lkey };
	struct ibv_sge s_recv = { (uintptr_t)a->slot[RECV], len, a->mr[a->slot_mr[RECV]]->lkey };
	struct ibv_sge s_rd = { (uintptr_t)a->slot[RD], len, a->mr[a->slot_mr[RD]]->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &s_recv, .num_sge = 1 }, *rbad;
	struct ibv_send_wr w[3], *sbad;
	int ret;

	p->seed++;
	fill(p->src, opt.size, p->seed);
	memset(w, 0, sizeof(w));
	w[0].opcode = IBV_WR_RDMA_WRITE;
	w[0].sg_list = &s_src;
	w[0].wr.rdma.remote_addr = (uintptr_t)a->slot[DST];
	w[0].wr.rdma.rkey = a->mr[a->slot_mr[DST]]->rkey;
	w[1].opcode = IBV_WR_SEND;
	w[1].sg_list = &s_src;
	w[2].opcode = IBV_WR_RDMA_READ;
	w[2].sg_list = &s_rd;
	w[2].wr.rdma = w[0].wr.rdma; /* reads back what the WRITE put there */
	for (int i = 0; i < 3; i++) {
		w[i].wr_id = (uint64_t)i;
		w[i].num_sge = 1;
		w[i].send_flags = IBV_SEND_SIGNALED;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	ret = ibv_post_recv(p->qp[1], &rwr, &rbad);
	if (!ret)
		ret = ibv_post_send(p->qp[0], w, &sbad);
	if (ret)
		die(2, "posting work requests: %s", strerror(ret));
}

static void round_post(struct pair *p)
{
	if (p->in)
		round_post_remote(p);
	else
		round_post_loopback(p);
}

static void poll_n(struct pair *p, int side, int n, unsigned int round)
{
	static const char *const op[] = { "RDMA WRITE", "SEND", "RDMA READ" };
	time_t end = time(NULL) + 60; /* a hang guard, not a timing */
	struct ibv_wc wc;

	while (n > 0) {
		int got = ibv_poll_cq(p->cq[side], 1, &wc);

		if (got < 0)
			die(2, "ibv_poll_cq failed");
		if (got == 0) {
			if (time(NULL) > end)
				die(1, "pair %d round %u: no completion in 60 s", p->id, round);
			continue;
		}
		n--;
		if (wc.status != IBV_WC_SUCCESS)
			die(1, "pair %d round %u: %s completed with \"%s\"", p->id, round,
			    side ? "RECV" : op[wc.wr_id % 3], ibv_wc_status_str(wc.status));
	}
}

/* Finish a round: wait for the 4 completions and check what the device
 * wrote is what the parent sees. */
static void round_complete(struct pair *p, unsigned int round)
{
	static const char *const what[NSLOTS] = {
		[DST] = "RDMA WRITE target", [RECV] = "SEND receive buffer",
		[RD] = "RDMA READ destination",
	};
	static const enum slot written[] = { DST, RECV, RD };

	if (p->in) {
		char line[256];
		long b;
		int st;

		ctl_recv(p->in, line, sizeof(line), "the end of a round");
		if (sscanf(line, "DONE %d %ld", &st, &b) != 2)
			die(1, "round %u: the peer said \"%s\"", round, line);
		if (st == 1)
			problem("round %u: the peer's RDMA READ of RD returned bytes the parent does not hold (first at byte %ld)",
				round, b);
		else if (st)
			die(1, "round %u: the peer's operations failed: %s", round, line);
		b = bad_byte(p->area.slot[DST], opt.size, p->seed);
		if (b >= 0)
			problem("round %u: CORRUPTED: the peer's RDMA WRITE did not reach the parent at byte %ld (expected %#x, found %#x)",
				round, b, pat(p->seed, (size_t)b), p->area.slot[DST][b]);
		p->ops += (st == 0) + (b < 0);
		area_check_untouched(&p->area, p->id, round);
		return;
	}
	poll_n(p, 0, 3, round);
	poll_n(p, 1, 1, round);
	for (int i = 0; i < 3; i++) {
		long b = bad_byte(p->area.slot[written[i]], opt.size, p->seed);

		if (b >= 0)
			problem("pair %d round %u: CORRUPTED %s at byte %ld (expected %#x, found %#x)",
				p->id, round, what[written[i]], b, pat(p->seed, (size_t)b),
				p->area.slot[written[i]][b]);
		else
			p->ops++;
	}
	area_check_untouched(&p->area, p->id, round);
}

/* ---- children: what they see --------------------------------------------- */

/* The pairs (their MRs make up what is registered at a fork). */
static struct pair *all_pairs;
static int n_pairs;

/* Pages registered only in part are the kernel's to copy into children
 * (softverbs, copy-on-fork kernel): else fork safety hides whole pages. */
static int exact_pages;

/* What the child looks at: a few bytes on one page each. */
enum point_kind {
	PT_VOLATILE,   /* registered, the device writes it: readability only */
	PT_STABLE,     /* content known: pattern seed from offset pat_off */
};

struct point {
	const uint8_t *addr;
	size_t len;      /* within addr's page */
	int kind;
	uint32_t seed;
	size_t pat_off;
	const char *what;
	int present;     /* what the library promises */
};

#define MAX_POINTS 24

struct look {
	struct point pt[MAX_POINTS];
	int n;
	int touch;       /* a point expected absent, touched for real; -1 none */
};

/* [a, b) intersects / lies within the MRs live now. */
static int mr_union_has(uintptr_t a, uintptr_t b, int whole)
{
	/* walk [a, b), jumping over MRs that cover the cursor */
	uintptr_t cur = a;
	int any = 0, moved = 1;

	while (cur < b && moved) {
		moved = 0;
		for (int i = 0; i < n_pairs; i++) {
			struct pair *p = &all_pairs[i];

			for (int k = -1; k < p->area.nmr; k++) {
				struct ibv_mr *mr = k < 0 ? p->src_mr : p->area.mr[k];
				uintptr_t s, e;

				if (!mr)
					continue;
				s = (uintptr_t)mr->addr;
				e = s + mr->length;
				if (s < b && e > a)
					any = 1;
				if (s <= cur && cur < e) {
					cur = e;
					moved = 1;
				}
			}
		}
	}
	return whole ? cur >= b : any;
}

/* Is the page holding addr in the child? */
static int page_present(const struct area *a, const uint8_t *addr)
{
	uintptr_t g = a->huge && addr >= a->map && addr < a->map + a->map_len ? HUGE_PAGE : PAGE;
	uintptr_t ps = (uintptr_t)addr & ~(g - 1);

	if (!fork_safe)
		return 1;
	return !mr_union_has(ps, ps + g, exact_pages);
}

static void add_point(struct look *l, const struct area *a, const uint8_t *addr, size_t len,
		      int kind, uint32_t seed, const char *what)
{
	struct point *p = &l->pt[l->n++];
	size_t room = PAGE - ((uintptr_t)addr & (PAGE - 1));

	p->addr = addr;
	p->len = len < room ? len : room;
	p->kind = kind;
	p->seed = seed;
	p->pat_off = seed == SEED_GUARD ? (size_t)(addr - a->map) : 0;
	p->what = what;
	p->present = page_present(a, addr);
	if (!p->present && l->touch < 0)
		l->touch = l->n - 1;
}

/* Before the fork: what the child will look at, and should see. */
static void look_plan(struct look *l, const struct area *a, const struct pair *pr)
{
	static const char *const slot_what[NSLOTS] = {
		[DST] = "the RDMA WRITE target", [CANARY] = "the registered canary",
		[RECV] = "the SEND receive buffer", [RD] = "the RDMA READ destination",
	};

	l->n = 0;
	l->touch = -1;
	for (int i = 0; i < NSLOTS; i++)
		add_point(l, a, a->slot[i], i == CANARY ? opt.size : 1,
			  i == CANARY ? PT_STABLE : PT_VOLATILE, SEED_CANARY, slot_what[i]);
	for (int g = 0; g < a->nguard; g++)
		add_point(l, a, a->guard[g], a->guard_len[g], PT_STABLE, SEED_GUARD,
			  "unregistered bytes on a page holding an MR");
	if (a->wide) {
		add_point(l, a, a->wide + PAGE, PAGE, PT_STABLE, SEED_GUARD,
			  "a page wholly inside an MR");
		add_point(l, a, a->wide + 2 * GUARD, 16, PT_STABLE, SEED_GUARD,
			  "registered bytes on a page partly registered");
	}
	add_point(l, a, a->outside, PAGE, PT_STABLE, SEED_OUTSIDE,
		  "unregistered data on a page of its own");
	if (pr && pr->src)
		add_point(l, a, pr->src, 1, PT_VOLATILE, 0, "the registered send source");
}

/* What a child found, sent to the parent through a pipe. */
struct seen {
	uint8_t readable[MAX_POINTS];
	uint8_t ok[MAX_POINTS];      /* PT_STABLE: readable and as expected */
};

static sigjmp_buf probe_env;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(probe_env, 1);
}

static int readable(const uint8_t *p)
{
	if (sigsetjmp(probe_env, 1))
		return 0;
	(void)*(const volatile uint8_t *)p;
	return 1;
}

/* Runs in the child: look, report, then touch a page fork safety hides
 * for real (which must kill it with SIGSEGV), if there is one. */
static void child_look(const struct look *l, int fd)
{
	struct sigaction sa = { .sa_handler = on_segv };
	struct seen s;

	memset(&s, 0, sizeof(s));
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < l->n; i++) {
		const struct point *p = &l->pt[i];

		s.readable[i] = (uint8_t)readable(p->addr);
		if (s.readable[i] && p->kind == PT_STABLE) {
			s.ok[i] = 1;
			for (size_t k = 0; k < p->len; k++)
				if (p->addr[k] != pat(p->seed, p->pat_off + k))
					s.ok[i] = 0;
		}
	}
	if (write(fd, &s, sizeof(s)) != (ssize_t)sizeof(s))
		_exit(3);
	close(fd);
	signal(SIGSEGV, SIG_DFL);
	if (l->touch >= 0)
		(void)*(const volatile uint8_t *)l->pt[l->touch].addr;
	_exit(0);
}

/* Parent: judge what the child saw against what the library promises. */
static void judge(const struct look *l, const struct seen *s, int status, enum way w,
		  unsigned int round)
{
	const char *name = way_names[w];

	for (int i = 0; i < l->n; i++) {
		const struct point *p = &l->pt[i];

		if (p->present && !s->readable[i])
			problem("%s round %u: the child could not read %s (%s)", name, round,
				p->what,
				!fork_safe ? "fork safety is off" :
				exact_pages ? "a page registered only in part is the kernel's to copy" :
					      "its page holds no registered byte");
		else if (!p->present && s->readable[i])
			problem("%s round %u: the child could read %s although fork safety hides its %s",
				name, round, p->what, opt.shape == SH_HUGE ? "huge page" : "page");
		else if (p->present && p->kind == PT_STABLE && !s->ok[i])
			problem("%s round %u: the child read %s, but not the bytes the parent had there at fork",
				name, round, p->what);
	}
	if (l->touch >= 0 && (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV))
		problem("%s round %u: the child touched a page fork safety hides and did not die with SIGSEGV (status %#x)",
			name, round, status);
	if (l->touch < 0 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		problem("%s round %u: the child failed (status %#x)", name, round, status);
}

static void fork_and_look(const struct area *a, const struct pair *pr, enum way w,
			  unsigned int round)
{
	struct look l;
	struct seen s;
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	look_plan(&l, a, pr);
	if (pipe(fds))
		die(2, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(2, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		child_look(&l, fds[1]);
	}
	close(fds[1]);
	n = read(fds[0], &s, sizeof(s));
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (n != (ssize_t)sizeof(s)) {
		problem("%s round %u: the child died before reporting (status %#x)",
			way_names[w], round, status);
		return;
	}
	judge(&l, &s, status, w, round);
}

static void run_command(enum way w, unsigned int round)
{
	char *argv[] = { "true", NULL };
	int status = 0;
	pid_t pid;

	switch (w) {
	case W_EXEC:
		pid = fork();
		if (pid < 0)
			die(2, "fork: %s", strerror(errno));
		if (pid == 0) {
			execlp("true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		break;
	case W_SYSTEM:
		status = system(opt.cmd);
		break;
	default:
		errno = posix_spawnp(&pid, "true", NULL, NULL, argv, environ);
		if (errno)
			die(2, "posix_spawnp: %s", strerror(errno));
		waitpid(pid, &status, 0);
		break;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		problem("%s round %u: the command failed (status %#x)", way_names[w], round, status);
}

/* ---- the ways ------------------------------------------------------------ */

static time_t deadline(void)
{
	return opt.seconds ? time(NULL) + opt.seconds : 0;
}

static int more(unsigned int round, time_t end)
{
	return round < opt.rounds && (!end || time(NULL) < end);
}

/* exit, exec, system, spawn: fork in the thread that posted, with the
 * round's work requests in flight. */
static unsigned int run_simple(struct pair *p, enum way w)
{
	time_t end = deadline();
	unsigned int r;

	for (r = 0; more(r, end); r++) {
		if (opt.shape == SH_OVERLAP)
			area_rereg(&p->area, pd, r);
		round_post(p);
		if (w == W_EXIT)
			fork_and_look(&p->area, p, w, r);
		else
			run_command(w, r);
		round_complete(p, r);
	}
	return r;
}

struct traffic {
	pthread_t tid;
	struct pair *p;
	atomic_int *stop;
	unsigned int rounds;
};

static void *traffic_thread(void *arg)
{
	struct traffic *t = arg;

	do {
		round_post(t->p);
		round_complete(t->p, t->rounds++);
	} while (!atomic_load(t->stop));
	return NULL;
}

struct forker {
	const struct area *a;
	const struct pair *p;
	unsigned int forks;
};

static void *forker_thread(void *arg)
{
	struct forker *f = arg;
	time_t end = deadline();

	for (f->forks = 0; more(f->forks, end); f->forks++)
		fork_and_look(f->a, f->p, W_THREAD, f->forks);
	return NULL;
}

static unsigned int run_threads(struct pair *pairs, int n)
{
	struct traffic t[MAX_THREADS];
	struct forker f = { .a = &pairs[0].area, .p = &pairs[0] };
	atomic_int stop = 0;
	pthread_t ftid;

	for (int i = 0; i < n; i++) {
		t[i] = (struct traffic){ .p = &pairs[i], .stop = &stop };
		if (pthread_create(&t[i].tid, NULL, traffic_thread, &t[i]))
			die(2, "pthread_create failed");
	}
	if (pthread_create(&ftid, NULL, forker_thread, &f))
		die(2, "pthread_create failed");
	pthread_join(ftid, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < n; i++)
		pthread_join(t[i].tid, NULL);
	return f.forks;
}

static void run_ways(struct pair *pairs, int npairs, int way)
{
	for (int w = 0; w < NWAYS; w++) {
		unsigned long ops = 0;
		unsigned int before = atomic_load(&problems), n;

		if (way >= 0 && w != way)
			continue;
		for (int i = 0; i < npairs; i++)
			ops -= pairs[i].ops;
		n = w == W_THREAD ? run_threads(pairs, npairs) : run_simple(&pairs[0], w);
		for (int i = 0; i < npairs; i++)
			ops += pairs[i].ops;
		printf("  %-44s %4u forks, %6lu operations verified: %s\n", way_words[w], n, ops,
		       atomic_load(&problems) == before ? "ok" : "PROBLEMS");
		fflush(stdout);
	}
}

static void say_fork_state(void)
{
	static const char *const st[] = { "IBV_FORK_DISABLED", "IBV_FORK_ENABLED",
					   "IBV_FORK_UNNEEDED" };
	enum ibv_fork_status s = ibv_is_fork_initialized();

	printf("fork safety %s: %s (ibv_is_fork_initialized() = %s)\n",
	       fork_safe ? "ON" : "OFF",
	       !fork_safe ? "children inherit registered pages and must see their data" :
	       exact_pages ? "pages wholly registered are MADV_DONTFORK, children must not see them; "
			     "pages registered in part are the kernel's to copy, children must see all of them" :
			     "registered pages are MADV_DONTFORK, children must not see them",
	       (unsigned int)s < 3 ? st[s] : "?");
}

/* --remote: the traffic peer. Each round: new bytes RDMA WRITTEN into the
 * forking side's DST, its RD RDMA READ and compared with what its parent
 * put there; "DONE 0 -1", "DONE 1 BYTE" (READ differs from BYTE on) or
 * "DONE 2 -1 STATUS" back. */
static int run_peer(void)
{
	unsigned long rounds = 0, bad = 0;
	union ibv_gid peer_gid;
	uint32_t peer_qpn;
	struct ibv_mr *src_mr, *rd_mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *src, *rd;
	char line[256];
	size_t stride;
	FILE *in;
	int fd;

	fd = ctl_open();
	in = fdopen(dup(fd), "r");
	if (!in)
		die(2, "fdopen: %s", strerror(errno));
	open_device();
	ctl_hello_recv(in, &peer_qpn, &peer_gid, &opt.size);
	if (!opt.size || opt.size > 1ul << 30)
		die(1, "the forking side asked for %zu bytes per operation", opt.size);
	stride = (opt.size + PAGE - 1) / PAGE * PAGE;
	src = aligned_alloc(PAGE, stride);
	rd = aligned_alloc(PAGE, stride);
	if (!src || !rd)
		die(2, "out of memory");
	src_mr = reg(pd, src, opt.size);
	rd_mr = reg(pd, rd, opt.size);
	qp = rc_qp(&cq);
	connect_qp(qp, peer_qpn, &peer_gid);
	ctl_hello(fd, qp->qp_num, opt.size);
	printf("fork-torture peer on %s, %s library: RDMA WRITE and READ of %zu bytes a round into the forking side's memory\n",
	       ibv_get_device_name(ctx->device), lib_name(), opt.size);
	fflush(stdout);

	for (;;) {
		struct ibv_sge s_src = { (uintptr_t)src, (uint32_t)opt.size, src_mr->lkey };
		struct ibv_sge s_rd = { (uintptr_t)rd, (uint32_t)opt.size, rd_mr->lkey };
		struct ibv_send_wr w[2], *sbad;
		unsigned long long dst_addr, rd_addr;
		unsigned int seed, dst_rkey, rd_seed, rd_rkey;
		enum ibv_wc_status status = IBV_WC_SUCCESS;
		time_t end;
		long b;
		int n;

		ctl_recv(in, line, sizeof(line), "a round");
		if (!strncmp(line, "END", 3))
			break;
		if (sscanf(line, "ROUND %u %llx %u %u %llx %u", &seed, &dst_addr, &dst_rkey, &rd_seed,
			   &rd_addr, &rd_rkey) != 6)
			die(1, "the forking side said \"%s\"", line);
		fill(src, opt.size, seed);
		memset(rd, 0, opt.size);
		memset(w, 0, sizeof(w));
		w[0].opcode = IBV_WR_RDMA_WRITE;
		w[0].sg_list = &s_src;
		w[0].wr.rdma.remote_addr = dst_addr;
		w[0].wr.rdma.rkey = dst_rkey;
		w[0].next = &w[1];
		w[1].opcode = IBV_WR_RDMA_READ;
		w[1].sg_list = &s_rd;
		w[1].wr.rdma.remote_addr = rd_addr;
		w[1].wr.rdma.rkey = rd_rkey;
		for (int i = 0; i < 2; i++) {
			w[i].wr_id = (uint64_t)i;
			w[i].num_sge = 1;
			w[i].send_flags = IBV_SEND_SIGNALED;
		}
		n = ibv_post_send(qp, w, &sbad);
		if (n)
			die(2, "ibv_post_send: %s", strerror(n));
		end = time(NULL) + 60; /* a hang guard, not a timing */
		for (n = 0; n < 2;) {
			struct ibv_wc wc;
			int got = ibv_poll_cq(cq, 1, &wc);

			if (got < 0)
				die(2, "ibv_poll_cq failed");
			if (got == 0 && time(NULL) > end)
				die(1, "round %lu: no completion in 60 s", rounds);
			if (got == 1) {
				n++;
				if (wc.status != IBV_WC_SUCCESS)
					status = wc.status;
			}
		}
		rounds++;
		if (status != IBV_WC_SUCCESS) {
			ctl_send(fd, "DONE 2 -1 %s\n", ibv_wc_status_str(status));
			die(1, "round %lu: %s", rounds, ibv_wc_status_str(status));
		}
		b = bad_byte(rd, opt.size, rd_seed);
		if (b >= 0) {
			bad++;
			problem("round %lu: RDMA READ returned bytes the forking parent did not hold (byte %ld: %#x, expected %#x)",
				rounds, b, rd[b], pat(rd_seed, (size_t)b));
		}
		ctl_send(fd, "DONE %d %ld\n", b >= 0, b);
	}
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(src_mr);
	ibv_dereg_mr(rd_mr);
	free(src);
	free(rd);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	fclose(in);
	close(fd);
	printf("%s: %lu rounds, %lu RDMA WRITEs done, %lu READs returned what the parent held%s (%s library)\n",
	       bad ? "FAILED" : "OK", rounds, rounds, rounds - bad,
	       bad ? "" : " (all)", lib_name());
	return bad ? 1 : 0;
}

static int env_on(const char *name)
{
	const char *v = getenv(name);

	return v && strcmp(v, "0") != 0;
}

static void usage(void)
{
	fputs("usage: fork-torture [-w exit|exec|system|spawn|thread|all] [-f off|on|late]\n"
	      "  [-S plain|overlap|subpage|huge|big] [-s BYTES] [-r ROUNDS] [-t SECONDS]\n"
	      "  [-T THREADS] [-b MIB] [-c CMD] [-d DEVICE] [-g GID_INDEX]\n"
	      "  [-L | -R HOST] [-p PORT]\n", stderr);
	exit(2);
}

static int lookup(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	usage();
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "way", 1, NULL, 'w' }, { "fork-safe", 1, NULL, 'f' }, { "shape", 1, NULL, 'S' },
		{ "size", 1, NULL, 's' }, { "rounds", 1, NULL, 'r' }, { "seconds", 1, NULL, 't' },
		{ "threads", 1, NULL, 'T' }, { "big", 1, NULL, 'b' }, { "cmd", 1, NULL, 'c' },
		{ "device", 1, NULL, 'd' }, { "gid", 1, NULL, 'g' }, { "listen", 0, NULL, 'L' },
		{ "remote", 1, NULL, 'R' }, { "port", 1, NULL, 'p' }, { NULL, 0, NULL, 0 },
	};
	struct pair pairs[MAX_THREADS];
	const char *g = getenv("RXE_GID");
	int way = -1, late, c, npairs;

	opt.dev = getenv("RXE_DEV");
	opt.gid = g ? atoi(g) : 1;
	while ((c = getopt_long(argc, argv, "w:f:S:s:r:t:T:b:c:d:g:LR:p:", longopts, NULL)) != -1) {
		switch (c) {
		case 'w': way = strcmp(optarg, "all") ? lookup(optarg, way_names, NWAYS) : -1; break;
		case 'f': opt.safe = optarg; break;
		case 'S': opt.shape = (enum shape)lookup(optarg, shape_names, NSHAPES); break;
		case 's': opt.size = strtoul(optarg, NULL, 0); break;
		case 'r': opt.rounds = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': opt.seconds = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'T': opt.threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'b': opt.big = strtoul(optarg, NULL, 0) << 20; break;
		case 'c': opt.cmd = optarg; break;
		case 'd': opt.dev = optarg; break;
		case 'g': opt.gid = atoi(optarg); break;
		case 'L': opt.listen = 1; break;
		case 'R': opt.remote = optarg; break;
		case 'p': opt.port = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || opt.threads < 1 || opt.threads > MAX_THREADS ||
	    (opt.listen && opt.remote))
		usage();
	if (opt.remote)
		return run_peer();
	if (opt.listen)
		opt.threads = 1; /* one QP to the peer, one traffic thread */
	if (strcmp(opt.safe, "off") && strcmp(opt.safe, "on") && strcmp(opt.safe, "late"))
		usage();
	if (!opt.size)
		opt.size = opt.shape == SH_SUBPAGE ? 1000 : 65536;
	if (opt.shape == SH_SUBPAGE && opt.size > PAGE - 2 * GUARD)
		die(2, "--shape subpage needs --size <= %lu", PAGE - 2 * GUARD);
	late = !strcmp(opt.safe, "late");
	if (env_on("RDMAV_FORK_SAFE") || env_on("IBV_FORK_SAFE")) {
		if (late)
			die(2, "--fork-safe late with RDMAV_FORK_SAFE set: it is on from the start");
		fork_safe = 1; /* the library did it at load */
	}
	if (!strcmp(opt.safe, "on")) {
		int ret = ibv_fork_init();

		if (ret)
			die(1, "ibv_fork_init(): %s", strerror(ret));
		fork_safe = 1;
	}

	open_device();
	/* softverbs on a copy-on-fork kernel leaves partly registered pages
	 * to the kernel (unless told otherwise); rdma-core hides them */
	exact_pages = dlsym(RTLD_DEFAULT, "softverbs_fork_stats") &&
		      ibv_is_fork_initialized() == IBV_FORK_UNNEEDED &&
		      !env_on("SOFTVERBS_FORK_WHOLE_PAGES");
	npairs = way < 0 || way == W_THREAD ? (int)opt.threads : 1;
	all_pairs = pairs;
	/* Only the first pair gets the big MR: a 1 GiB MR per thread would
	 * not fit in most test machines. */
	for (int i = 0; i < npairs; i++) {
		if (opt.listen)
			pair_create_listen(&pairs[i], opt.shape);
		else
			pair_create(&pairs[i], i, i && opt.shape == SH_BIG ? SH_PLAIN : opt.shape);
		n_pairs = i + 1;
	}
	printf("fork-torture on %s: shape %s, %zu bytes per operation, %s library%s%s\n",
	       ibv_get_device_name(ctx->device), shape_names[opt.shape], opt.size,
	       lib_name(), opt.shape == SH_BIG ? (opt.big == 1ul << 30 ? ", one 1 GiB MR" : ", one big MR") : "",
	       opt.listen ? ", RDMA WRITE and READ from a peer across the link" : "");
	say_fork_state();
	run_ways(pairs, npairs, way);

	if (late) {
		int ret = ibv_fork_init();

		if (ret) {
			int sv = dlsym(RTLD_DEFAULT, "softverbs_fork_stats") != NULL;

			problem("ibv_fork_init() with MRs already registered failed: %s%s",
				strerror(ret),
				ret != EINVAL ? "" :
				sv ? " (MRs in huge pages registered before it: set RDMAV_HUGEPAGES_SAFE=1 from the start, see ibv_fork_init(3))" :
				     " (rdma-core refuses a late call; softverbs protects the live MRs)");
		} else {
			fork_safe = 1;
			printf("ibv_fork_init() called with %d MRs registered\n",
			       npairs * (pairs[0].area.nmr + !opt.listen));
			say_fork_state();
			run_ways(pairs, npairs, way);
		}
	}

	for (int i = 0; i < npairs; i++)
		pair_destroy(&pairs[i]);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	if (atomic_load(&problems)) {
		printf("FAILED: %u problem(s), listed above\n",
		       atomic_load(&problems));
		return 1;
	}
	printf("OK: every byte the device wrote reached the parent, and every child saw exactly what fork safety %s promises\n",
	       fork_safe ? "on" : "off");
	return 0;
}
