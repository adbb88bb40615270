/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/fuzz/fuzz_verbs.c -- a hostile kernel module, fuzzed: every
 * command response (the core part and the driver's udata), every mapped
 * queue (rxe's headers and indices, siw's CQE/SQE valid flags) and what
 * the kernel writes into those queues later, for the rxe and siw
 * providers, through the verbs an application calls.
 *
 * The kernel's part is played through the command layer's seams
 * (sv_cmd_write_fn, sv_cmd_ioctl_fn) and mmap wrapped at link time
 * (-Wl,--wrap=mmap): the uverbs fd is /dev/null, and a mapping of it is
 * anonymous memory filled from the input. The kernel's own invariants
 * stay true: file descriptors it returns are real (async fd, completion
 * channels). What the input decides: the first byte picks the provider;
 * then each command takes a control byte (fail it with an errno, or
 * answer) and its response bytes; each mapping its contents; between
 * verbs the "kernel" writes input bytes at input-chosen offsets of the
 * live mappings. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core.h"
#include "fuzz.h"

static struct fuzz_in in;
static int fake_fd = -1;

#ifdef FUZZ_RECORD
/* Record mode (tests/fuzz/record-verbs, inside the VM): the same
 * application against the real kernel, writing what the kernel answered
 * in this harness's input format: a seed corpus entry of real data. */
#include <stdio.h>
#include <sys/ioctl.h>
static FILE *rec;
static void rec_bytes(const void *p, size_t n)
{
	fwrite(p, 1, n, rec);
}
/* The harness's own choices: all defaults (0) except the provider. */
static uint8_t decide(void)
{
	uint8_t v = 0;

	rec_bytes(&v, 1);
	return v;
}
#else
static uint8_t decide(void)
{
	return fuzz_u8(&in);
}
#endif

/* ---- the fake kernel -------------------------------------------------------- */

#define MAX_MAPS 32
static struct {
	uint8_t *p;
	size_t len;
} maps[MAX_MAPS];

void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
int __wrap_munmap(void *addr, size_t len);

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	uint8_t *p;

	if (fd < 0 || fd != fake_fd)
		return __real_mmap(addr, len, prot, flags, fd, off);
#ifdef FUZZ_RECORD
	p = __real_mmap(addr, len, prot, flags, fd, off);
	{
		uint8_t ctl = p == MAP_FAILED ? 0xff : 0;

		rec_bytes(&ctl, 1);
		if (p != MAP_FAILED)
			rec_bytes(p, len < 4096 ? len : 4096);
	}
	return p;
#endif
	if (fuzz_u8(&in) == 0xff || len > (1u << 22)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	p = __real_mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return p;
	fuzz_take(&in, p, len < 4096 ? len : 4096);
	for (int i = 0; i < MAX_MAPS; i++)
		if (!maps[i].p) {
			maps[i].p = p;
			maps[i].len = len;
			break;
		}
	return p;
}

int __wrap_munmap(void *addr, size_t len)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (maps[i].p == addr)
			maps[i].p = NULL;
	return __real_munmap(addr, len);
}

/* The kernel works on its queues: a few writes into live mappings. */
static void kernel_tick(void)
{
	int n = decide() & 7;

	for (int k = 0; k < n; k++) {
		int i = fuzz_u8(&in) % MAX_MAPS;
		uint16_t off = fuzz_u16(&in);
		uint32_t v;

		fuzz_take(&in, &v, sizeof(v));
		if (maps[i].p && maps[i].len >= 4)
			memcpy(maps[i].p + (off % (maps[i].len - 3)), &v, sizeof(v));
	}
}

static uint32_t u32_at(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* Teardown: destroy commands succeed (a failed destroy keeps the
 * object, which the harness would then leak). */
static int tearing_down;

/* Control byte: 0xc0.. fail the command with errno 1..64. */
static int fail_now(void)
{
	uint8_t c;

	if (tearing_down)
		return 0;
	c = fuzz_u8(&in);
	if (c >= 0xc0) {
		errno = c - 0xc0 + 1;
		return 1;
	}
	return 0;
}

#ifdef FUZZ_RECORD
static void rec_ctl(int failed)
{
	uint8_t c = failed ? (uint8_t)(0xc0 + ((errno - 1) & 63)) : 0;

	rec_bytes(&c, 1);
}

static ssize_t rec_write(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	ssize_t n = write(fd, buf, len);
	uint64_t resp = 0;
	size_t out = 0;

	if (tearing_down)
		return n;
	rec_ctl(n < 0);
	if (n < 0)
		return n;
	if (b[3] & 0x80) { /* IB_USER_VERBS_CMD_FLAG_EXTENDED, high byte */
		memcpy(&resp, b + 8, 8);
		out = (size_t)(b[6] | b[7] << 8) * 8 + (size_t)(b[18] | b[19] << 8) * 8;
	} else if (len >= 16) {
		memcpy(&resp, b + 8, 8);
		out = (size_t)(b[6] | b[7] << 8) * 4;
	}
	if (out && resp)
		rec_bytes((void *)(uintptr_t)resp, out);
	return n;
}

static int rec_ioctl(int fd, unsigned long request, void *arg)
{
	struct ib_uverbs_ioctl_hdr *c = arg;
	int ret = ioctl(fd, request, arg);

	if (tearing_down)
		return ret;
	rec_ctl(ret != 0);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < c->num_attrs; i++)
		if (c->attrs[i].len > 8 && c->attrs[i].data)
			rec_bytes((void *)(uintptr_t)c->attrs[i].data, c->attrs[i].len);
	return 0;
}
#endif

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint32_t cmd = u32_at(b, 0) & 0xff;
	uint64_t resp = 0;
	size_t out = 0;

	if (fd != fake_fd || len < 8)
		abort();
	if (fail_now())
		return -1;
	if (u32_at(b, 0) & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		resp = u64_at(b, 8);
		out = (size_t)(u32_at(b, 4) >> 16) * 8 + (size_t)(u32_at(b, 18) & 0xffff) * 8;
	} else if (len >= 16) {
		resp = u64_at(b, 8);
		out = (size_t)(u32_at(b, 4) >> 16) * 4;
	}
	if (out && resp) {
		uint8_t *r = (uint8_t *)(uintptr_t)resp;

		/* A destroy response reports how many events the kernel
		 * delivered; the library waits until the application has
		 * acknowledged that many (ibv_destroy_cq(3), as rdma-core
		 * does). No event is ever delivered here, so a kernel that
		 * reported one would hang any library: keep it 0. */
		if (tearing_down || cmd == IB_USER_VERBS_CMD_DESTROY_CQ ||
		    cmd == IB_USER_VERBS_CMD_DESTROY_QP || cmd == IB_USER_VERBS_CMD_DESTROY_SRQ)
			memset(r, 0, out); /* "success" without data */
		else
			fuzz_take(&in, r, out);
		/* fds the kernel returns are real and new */
		if (cmd == IB_USER_VERBS_CMD_GET_CONTEXT && out >= 4) {
			int32_t afd = open("/dev/null", O_RDWR | O_CLOEXEC);

			memcpy(r, &afd, sizeof(afd)); /* async_fd: first */
		} else if (cmd == IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL && out >= 4) {
			int32_t cfd = open("/dev/null", O_RDWR | O_CLOEXEC);

			memcpy(r, &cfd, sizeof(cfd));
		}
	}
	return (ssize_t)len;
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	struct ib_uverbs_ioctl_hdr *c = arg;

	(void)request;
	if (fd != fake_fd)
		abort();
	if (fail_now())
		return -1;
	/* Fill each output buffer: the core marks them by pointer; a
	 * pointer into the harness's own address space is all it can be. */
	for (unsigned int i = 0; i < c->num_attrs; i++) {
		struct ib_uverbs_attr *a = &c->attrs[i];

		if (a->len > 8 && a->data)
			fuzz_take(&in, (void *)(uintptr_t)a->data, a->len);
	}
	return 0;
}

/* ---- an application ------------------------------------------------------------ */

/* The two devices, found by the core's own sysfs discovery over a fake
 * tree (SYSFS_PATH): rxe0 (uverbs ABI 2) and siw0 (ABI 1), whose
 * character devices are made with /dev/null's numbers (1:3), so opening
 * them gives an fd that the fake kernel answers for. Needs root (mknod). */
#ifdef FUZZ_RECORD
static int record_which;
#else
static struct ibv_device *devs[2];
static struct ibv_device **dev_list; /* held for the whole run */
#endif

static void put_file(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = path + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "fuzz_verbs: cannot write %s\n", path);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const names[2][3] = { { "uverbs0", "rxe0", "2\n" },
						  { "uverbs1", "siw0", "1\n" } };
	static char root[] = "/tmp/sv-fuzz-verbs-XXXXXX";
	char rel[256], path[512];
	struct ibv_device **list;

	(void)argc;
	(void)argv;
#ifndef FUZZ_RECORD
	if (!mkdtemp(root))
		abort();
	put_file(root, "sys/class/infiniband_verbs/abi_version", "6\n");
	for (int i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/ibdev", names[i][0]);
		put_file(root, rel, names[i][1]);
		snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/abi_version", names[i][0]);
		put_file(root, rel, names[i][2]);
		snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/dev", names[i][0]);
		put_file(root, rel, "1:3\n");
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/node_type", names[i][1]);
		put_file(root, rel, "1: CA\n");
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/node_guid", names[i][1]);
		put_file(root, rel, "0200:00ff:fe00:0000\n");
		snprintf(path, sizeof(path), "%s/dev", root);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/dev/%s", root, names[i][0]);
		if (mknod(path, S_IFCHR | 0600, makedev(1, 3))) {
			fprintf(stderr, "fuzz_verbs: mknod %s: %s (needs root)\n", path, strerror(errno));
			abort();
		}
	}
	snprintf(path, sizeof(path), "%s/sys", root);
	setenv("SYSFS_PATH", path, 1);
	sv_sysfs_reset();
	snprintf(path, sizeof(path), "%s/dev", root);
	sv_set_dev_dir(strdup(path));
	dev_list = list = ibv_get_device_list(NULL);
	for (int i = 0; list && list[i]; i++)
		for (int k = 0; k < 2; k++)
			if (!strcmp(ibv_get_device_name(list[i]), names[k][1]))
				devs[k] = list[i];
	if (!devs[0] || !devs[1]) {
		fprintf(stderr, "fuzz_verbs: the fake devices were not listed\n");
		abort();
	}
	/* the list stays: the devices with it */
#else
	(void)put_file;
	(void)root;
	(void)rel;
	(void)path;
	(void)list;
	(void)names;
#endif
#ifdef FUZZ_RECORD
	sv_cmd_write_fn = rec_write;
	sv_cmd_ioctl_fn = rec_ioctl;
	(void)fake_write;
	(void)fake_ioctl;
#else
	sv_cmd_write_fn = fake_write;
	sv_cmd_ioctl_fn = fake_ioctl;
#endif
	return 0;
}

static void drain(struct ibv_cq *cq)
{
	struct ibv_wc wc[4];

	for (int i = 0; i < 4; i++) {
		kernel_tick();
		if (ibv_poll_cq(cq, 4, wc) <= 0)
			break;
	}
}

static void data_path(struct ibv_qp *qp, struct ibv_mr *mr, char *buf)
{
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr ? mr->lkey : 0 };
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 }, *rbad;
	int n = (decide() ^ 4) & 15; /* 0: four */

	for (int i = 0; i < n; i++) {
		uint8_t k = decide();

		kernel_tick();
		memset(&swr, 0, sizeof(swr));
		swr.wr_id = i;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		swr.opcode = (enum ibv_wr_opcode)(k % 12);
		swr.send_flags = (k >> 4) & 0xf;
		sge.length = decide();
		if (k & 1)
			(void)ibv_post_recv(qp, &rwr, &rbad);
		else
			(void)ibv_post_send(qp, &swr, &sbad);
	}
}

static void modify(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	for (int s = IBV_QPS_INIT; s <= IBV_QPS_RTS; s++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = (enum ibv_qp_state)s;
		a.port_num = 1;
		a.path_mtu = IBV_MTU_1024;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.hop_limit = 1;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | (s == IBV_QPS_INIT ? IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS : s == IBV_QPS_RTR ? IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)))
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[8192] __attribute__((aligned(4096)));
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *cq = NULL, *cq2 = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_comp_channel *ch = NULL;
	struct ibv_qp_init_attr qa;
	int which;

	in.p = data;
	in.left = size;
	memset(maps, 0, sizeof(maps));
#ifdef FUZZ_RECORD
	which = record_which;
	{
		uint8_t v = (uint8_t)which;

		rec_bytes(&v, 1);
	}
#else
	which = decide() & 1;
#endif
	fake_fd = -1;
	/* the fd ibv_open_device will get: the lowest free one */
	fake_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	close(fake_fd);
#ifdef FUZZ_RECORD
	{
		/* the real device */
		const char *name = getenv(which ? "SIW_DEV" : "RXE_DEV");
		struct ibv_device **list = ibv_get_device_list(NULL);

		ctx = NULL;
		fake_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		close(fake_fd);
		for (int i = 0; list && list[i]; i++)
			if (name && !strcmp(ibv_get_device_name(list[i]), name))
				ctx = ibv_open_device(list[i]);
		ibv_free_device_list(list);
	}
#else
	ctx = ibv_open_device(devs[which]);
#endif
	if (!ctx)
		return 0;
	fake_fd = ctx->cmd_fd;
	(void)ibv_query_device(ctx, &da);
	(void)ibv_query_port(ctx, 1, &pa);
	(void)ibv_query_gid(ctx, 1, decide() & 3, &gid);
	ch = ibv_create_comp_channel(ctx);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		goto out;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	cq = ibv_create_cq(ctx, 1 + (decide() & 63), NULL, ch, 0);
	if (!cq)
		goto out;
	drain(cq);
	(void)ibv_req_notify_cq(cq, decide() & 1);
	if (!(decide() & 1))
		(void)ibv_resize_cq(cq, 1 + (decide() & 127));
	drain(cq);
	cq2 = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	{
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1 + (decide() & 31),
							  .max_sge = 1 } };

		if (!(decide() & 1))
			srq = ibv_create_srq(pd, &sa);
		if (srq) {
			struct ibv_sge sge = { (uintptr_t)buf, 64, mr ? mr->lkey : 0 };
			struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

			for (int i = (decide() ^ 3) & 7; i > 0; i--) {
				kernel_tick();
				(void)ibv_post_srq_recv(srq, &wr, &bad);
			}
		}
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq2 ? cq2 : cq;
	qa.srq = srq;
	qa.qp_type = decide() & 1 ? IBV_QPT_UD : IBV_QPT_RC;
	qa.cap.max_send_wr = 1 + (decide() & 31);
	qa.cap.max_recv_wr = 1 + (decide() & 31);
	qa.cap.max_send_sge = 1 + (decide() & 3);
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = decide();
	qp = ibv_create_qp(pd, &qa);
	if (qp) {
		modify(qp);
		data_path(qp, mr, buf);
		drain(cq);
		if (cq2)
			drain(cq2);
	}
	{
		struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };

		aa.grh.dgid = gid;
		ah = ibv_create_ah(pd, &aa);
	}
out:
	tearing_down = 1;
	if (ah)
		ibv_destroy_ah(ah);
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
	if (cq2)
		ibv_destroy_cq(cq2);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ch)
		ibv_destroy_comp_channel(ch);
	ibv_close_device(ctx);
	tearing_down = 0;
	return 0;
}

#ifdef FUZZ_RECORD
/* record-verbs rxe|siw OUTPUT: one seed, from the real kernel. */
int main(int argc, char **argv)
{
	static const uint8_t none[1];

	if (argc != 3 || (strcmp(argv[1], "rxe") && strcmp(argv[1], "siw"))) {
		fprintf(stderr, "usage: record-verbs rxe|siw OUTPUT\n");
		return 2;
	}
	record_which = !strcmp(argv[1], "siw");
	rec = fopen(argv[2], "w");
	if (!rec)
		return 1;
	LLVMFuzzerInitialize(&argc, &argv);
	LLVMFuzzerTestOneInput(none, 0);
	return fclose(rec) ? 1 : 0;
}
#endif
