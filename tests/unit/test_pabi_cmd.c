/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 44's provider command ABI (IBVERBS_PRIVATE_34) against
 * recorded bytes: execute_ioctl over struct ibv_command_buffer chains
 * (linearizing, UHW_IN inlining, copying answers back to the provider's
 * own attributes) and every ibv_cmd_* of lib/pabi/cmd*.c — the command
 * each sends (headers, core payload, driver trailers, attributes) and
 * where the kernel's answer lands (the verbs_* objects, the provider's
 * response buffers). Hooks on sv_cmd_write_fn / sv_cmd_ioctl_fn play the
 * kernel. No soft provider uses these at runtime, so this is their
 * evidence. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>

#include "core.h"
#include "pabi/pabi.h"

#include "../check_main.h"

#define FAKE_FD 78

/* ---- the fake kernel: write() ------------------------------------------------ */

static const char *cur = "";    /* the table case being run */

/* integers and pointers: the message names the case and the field */
#define EQ(got, want) \
	ck_assert_msg((unsigned long long)(got) == (unsigned long long)(want), \
		      "%s: %s is 0x%llx, not 0x%llx", cur, #got, \
		      (unsigned long long)(got), (unsigned long long)(want))
#define PEQ(got, want) \
	ck_assert_msg((const void *)(got) == (const void *)(want), \
		      "%s: %s is %p, not %p", cur, #got, (const void *)(got), \
		      (const void *)(want))
#define ATTR_EQ(id, field, got, want) \
	ck_assert_msg((uint64_t)(got) == (uint64_t)(want), \
		      "%s: attribute 0x%x: %s is 0x%llx, not 0x%llx", cur, \
		      (unsigned int)(id), field, (unsigned long long)(got), \
		      (unsigned long long)(want))

static uint8_t wcmd[8192];      /* the last write */
static size_t wlen;
static int nwrites;
static int write_errno;         /* fail the write (after answering) */
static uint8_t wreply[1024];    /* copied to the response address */
static size_t wreply_len;

static uint16_t u16_at(const uint8_t *p, size_t off)
{
	uint16_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
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

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint64_t resp = 0;
	size_t out;

	ck_assert_int_eq(fd, FAKE_FD);
	ck_assert_uint_le(len, sizeof(wcmd));
	memcpy(wcmd, buf, len);
	wlen = len;
	nwrites++;
	/* the response: its address in the extended header, or the first
	 * u64 of a legacy command that has one */
	if (u32_at(b, 0) & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		resp = u64_at(b, 8);
		out = (size_t)u16_at(b, 6) * 8 + (size_t)u16_at(b, 18) * 8;
	} else {
		out = (size_t)u16_at(b, 6) * 4;
		if (out)
			resp = u64_at(b, 8);
	}
	/* like the kernel, answer even when failing (POST_* report the
	 * bad work request that way) */
	if (out && resp)
		memcpy((void *)(uintptr_t)resp, wreply,
		       wreply_len < out ? wreply_len : out);
	if (write_errno) {
		errno = write_errno;
		return -1;
	}
	return (ssize_t)len;
}

static void set_wreply(const void *data, size_t len)
{
	ck_assert_uint_le(len, sizeof(wreply));
	memcpy(wreply, data, len);
	wreply_len = len;
}

/* legacy header: command, in_words, out_words (in 4-byte words) */
static void assert_hdr(uint32_t command, unsigned int in_words,
		       unsigned int out_words)
{
	EQ(u32_at(wcmd, 0) /* command */, command);
	EQ(u16_at(wcmd, 4) /* in_words */, in_words);
	EQ(u16_at(wcmd, 6) /* out_words */, out_words);
	EQ(wlen, in_words * 4);
}

/* extended header: core words and provider words (8-byte words), and
 * whether a response address is given */
static void assert_ex_hdr(uint32_t command, unsigned int in_words,
			  unsigned int out_words, unsigned int drv_in,
			  unsigned int drv_out)
{
	EQ(u32_at(wcmd, 0) /* command */,
	   IB_USER_VERBS_CMD_FLAG_EXTENDED | command);
	EQ(u16_at(wcmd, 4) /* in_words */, in_words);
	EQ(u16_at(wcmd, 6) /* out_words */, out_words);
	EQ(u16_at(wcmd, 16) /* provider_in_words */, drv_in);
	EQ(u16_at(wcmd, 18) /* provider_out_words */, drv_out);
	EQ(u32_at(wcmd, 20) /* cmd_hdr_reserved */, 0);
	EQ(u64_at(wcmd, 8) /* response */ != 0, out_words + drv_out != 0);
	EQ(wlen, 24 + (in_words + drv_in) * 8);
}

/* ---- the fake kernel: ioctl() ---------------------------------------------------- */

#define MAX_REC 32
static struct {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[MAX_REC];
} rec;                          /* the command as the kernel saw it */
static uint8_t rec_ptr[MAX_REC][64]; /* bytes behind pointer attributes */
static int nioctls;
static int ioctl_errno;

/* what the kernel answers: an object handle (bytes NULL) or bytes
 * written to the attribute's buffer */
struct answer {
	uint16_t attr_id;
	uint64_t obj;
	const void *bytes;
	size_t len;
	int object;     /* only in a command of this object (-1: any) */
};
static struct answer answers[8];
static int nanswers;

static void answer_obj(uint16_t attr_id, uint64_t handle)
{
	answers[nanswers++] = (struct answer){ attr_id, handle, NULL, 0, -1 };
}

static void answer_bytes(uint16_t attr_id, const void *bytes, size_t len)
{
	answers[nanswers++] = (struct answer){ attr_id, 0, bytes, len, -1 };
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	struct ib_uverbs_ioctl_hdr *hdr = arg;
	unsigned int i;
	int j;

	ck_assert_int_eq(fd, FAKE_FD);
	ck_assert_uint_eq(request, RDMA_VERBS_IOCTL);
	ck_assert_uint_le(hdr->num_attrs, MAX_REC);
	ck_assert_uint_eq(hdr->length,
			  sizeof(*hdr) + hdr->num_attrs * sizeof(hdr->attrs[0]));
	nioctls++;
	memcpy(&rec, hdr, hdr->length);
	for (i = 0; i < hdr->num_attrs; i++) {
		const struct ib_uverbs_attr *a = &hdr->attrs[i];

		if (a->len > 8)
			memcpy(rec_ptr[i], (const void *)(uintptr_t)a->data,
			       a->len < 64 ? a->len : 64);
	}
	if (ioctl_errno) {
		errno = ioctl_errno;
		return -1;
	}
	for (j = 0; j < nanswers; j++) {
		for (i = 0; i < hdr->num_attrs; i++) {
			struct ib_uverbs_attr *a = &hdr->attrs[i];

			if (a->attr_id != answers[j].attr_id ||
			    (answers[j].object >= 0 &&
			     answers[j].object != hdr->object_id))
				continue;
			if (answers[j].bytes) {
				ck_assert_uint_le(answers[j].len, a->len);
				memcpy((void *)(uintptr_t)a->data,
				       answers[j].bytes, answers[j].len);
				a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
			} else {
				a->data = answers[j].obj;
			}
		}
	}
	return 0;
}

/* the recorded attribute with this id (the test fails without it) */
static const struct ib_uverbs_attr *rec_attr(uint16_t attr_id, int *idx)
{
	unsigned int i;

	for (i = 0; i < rec.hdr.num_attrs; i++)
		if (rec.attrs[i].attr_id == attr_id) {
			if (idx)
				*idx = (int)i;
			return &rec.attrs[i];
		}
	ck_abort_msg("%s: attribute 0x%x not sent", cur, attr_id);
	return NULL;
}

static void assert_rec(uint16_t object_id, uint16_t method_id,
		       unsigned int num_attrs)
{
	EQ(nioctls, 1);
	EQ(rec.hdr.object_id, object_id);
	EQ(rec.hdr.method_id, method_id);
	EQ(rec.hdr.num_attrs, num_attrs);
	EQ(rec.hdr.driver_id, RDMA_DRIVER_MLX5);
	EQ(rec.hdr.reserved1, 0);
	EQ(rec.hdr.reserved2, 0);
}

/* an inline input of len bytes holding val (a u32's upper half zero) */
static void assert_in(uint16_t attr_id, unsigned int len, uint64_t val)
{
	const struct ib_uverbs_attr *a = rec_attr(attr_id, NULL);

	ATTR_EQ(attr_id, "len", a->len, len);
	ATTR_EQ(attr_id, "data", a->data, val);
	ATTR_EQ(attr_id, "flags", a->flags, UVERBS_ATTR_F_MANDATORY);
}

/* an object handle going in (IDR: len 0) */
static void assert_in_obj(uint16_t attr_id, uint32_t handle)
{
	const struct ib_uverbs_attr *a = rec_attr(attr_id, NULL);

	ATTR_EQ(attr_id, "len", a->len, 0);
	ATTR_EQ(attr_id, "data", a->data, handle);
}

/* an output buffer: its address and size */
static void assert_out(uint16_t attr_id, const void *buf, size_t len)
{
	const struct ib_uverbs_attr *a = rec_attr(attr_id, NULL);

	ATTR_EQ(attr_id, "len", a->len, len);
	ATTR_EQ(attr_id, "data", a->data, (uintptr_t)buf);
	ATTR_EQ(attr_id, "flags", a->flags, UVERBS_ATTR_F_MANDATORY);
}

/* ---- a context, as an rdma-core provider's would be ----------------------------- */

/* struct verbs_qp as rdma-core 44 and 45-56 lay it out (driver.h at
 * v44.0 and v45.0: an ibv_qp_ex of 352 or 360 bytes, then comp_mask, then
 * the xrcd pointer). */
struct qp44 {
	union {
		struct ibv_qp qp;
		unsigned char qp_ex[352];
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};
struct qp56 {
	union {
		struct ibv_qp qp;
		unsigned char qp_ex[360];
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};
_Static_assert(offsetof(struct qp44, comp_mask) == 352 &&
		       offsetof(struct qp44, xrcd) == 360 &&
		       sizeof(struct qp44) == 368,
	       "rdma-core 44's verbs_qp");
_Static_assert(offsetof(struct qp56, comp_mask) == 360 &&
		       offsetof(struct qp56, xrcd) == 368 &&
		       sizeof(struct qp56) == 376,
	       "rdma-core 45-56's verbs_qp");

static struct sv_context the_ctx;
static struct sv_context *ctx = &the_ctx;
#define IBCTX the_ctx.vctx.context      /* *ibctx, for the tables */
static struct ibv_context *ibctx;
static struct verbs_device vdev;

/* The context's provider is of rdma-core `release`. */
static void use_release(unsigned int release)
{
	const struct pabi_gen *g = pabi_gen_of_release(release);

	ck_assert_ptr_nonnull(g);
	ctx->core.layout = &g->layout;
}

static void setup(void)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->core.ops = sv_default_ops;
	ctx->core.driver_id = RDMA_DRIVER_MLX5;
	use_release(44);
	ctx->vctx.sz = sizeof(ctx->vctx);
	ctx->vctx.priv = &ctx->core;
	ibctx = &ctx->vctx.context;
	memset(&vdev, 0, sizeof(vdev));
	ibctx->device = &vdev.device;
	ibctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ibctx->cmd_fd = FAKE_FD;
	ibctx->async_fd = -1;
	ibctx->num_comp_vectors = 1;
	pthread_mutex_init(&ibctx->mutex, NULL);
	sv_cmd_write_fn = fake_write;
	sv_cmd_ioctl_fn = fake_ioctl;
	nwrites = write_errno = nioctls = ioctl_errno = nanswers = 0;
	wreply_len = 0;
	memset(wcmd, 0, sizeof(wcmd));
	memset(&rec, 0, sizeof(rec));
	verbs_allow_disassociate_destroy = false;
	cur = "";
}

/* A provider's request: the headers and the core command (n bytes),
 * then 8 bytes of its own; its response: the core's, then its 8. */
#define PV_CMD(n) { uint8_t hdr_and_core[n]; uint64_t drv; }
#define PV_RESP(core_type) { core_type core; uint64_t drv; }

/* a provider's create_cq_ex request and response */
struct pv_create_cq_ex PV_CMD(24 + 32);
struct pv_create_cq_ex_resp PV_RESP(struct ib_uverbs_ex_create_cq_resp);

/* ---- what the tables check in the provider's objects ------------------------------
 * One value after a call (a list ends at width 0): an integer of its
 * width (X), a pointer (XP), the context (XCTX) or bytes (XMEM, XMEMN);
 * a failure names the case and the field. */
struct xcheck {
	const void *at;
	uint8_t width;
	uint64_t val;
	const void *ptr;
	const char *field;
};
enum { X_PTR = 0xf0, X_CTX, X_MEM };    /* X_CTX: the context */
#define X(f, v) { &(f), sizeof(f), (v), NULL, #f }
#define XP(f, p) { &(f), X_PTR, 0, (const void *)(p), #f }
#define XCTX(f) { &(f), X_CTX, 0, NULL, #f }
#define XMEMN(f, p, n) { &(f), X_MEM, (n), (p), #f }    /* n bytes from f */
#define XMEM(f, str) XMEMN(f, str, sizeof(str) - 1)

static uint64_t value_at(const void *at, unsigned int width)
{
	const uint8_t *p = at;

	switch (width) {
	case 1:
		return *p;
	case 2:
		return u16_at(p, 0);
	case 4:
		return u32_at(p, 0);
	default:
		return u64_at(p, 0);
	}
}

static void assert_x(const struct xcheck *x)
{
	const void *got, *want;
	uint64_t mask;

	for (; x->width; x++) {
		if (x->width < X_PTR) {
			mask = x->width == 8 ? ~0ULL : (1ULL << (8 * x->width)) - 1;
			ck_assert_msg(value_at(x->at, x->width) == (x->val & mask),
				      "%s: %s is 0x%llx, not 0x%llx", cur,
				      x->field,
				      (unsigned long long)value_at(x->at, x->width),
				      (unsigned long long)(x->val & mask));
			continue;
		}
		if (x->width == X_MEM) {
			ck_assert_msg(memcmp(x->at, x->ptr, x->val) == 0,
				      "%s: %s: other bytes", cur, x->field);
			continue;
		}
		memcpy(&got, x->at, sizeof(got));
		want = x->width == X_CTX ? (const void *)ibctx : x->ptr;
		ck_assert_msg(got == want, "%s: %s is %p, not %p", cur, x->field,
			      got, want);
	}
}

/* ---- a provider's side of the command buffer (rdma-core's inline
 * cmd_ioctl.h, as compiled into libmlx5 and the others) ----------------------- */

/* buffers with room for up to 16 attributes */
struct pv_cmdb {
	struct ibv_command_buffer b;
	struct ib_uverbs_attr room[16];
};
_Static_assert(offsetof(struct pv_cmdb, room) ==
		       offsetof(struct ibv_command_buffer, hdr.attrs),
	       "attributes follow the buffer");

static struct ibv_command_buffer *pv_init(struct pv_cmdb *c, uint16_t object,
					  uint16_t method, unsigned int nattrs,
					  struct ibv_command_buffer *link)
{
	memset(c, 0, sizeof(*c));
	c->b.next = link;
	c->b.hdr.object_id = object;
	c->b.hdr.method_id = method;
	c->b.uhw_in_idx = c->b.uhw_out_idx = SV_UHW_NO_INDEX;
	c->b.next_attr = c->b.hdr.attrs;
	c->b.last_attr = c->b.hdr.attrs + nattrs;
	return &c->b;
}

static struct ib_uverbs_attr *pv_next(struct ibv_command_buffer *b,
				      uint16_t id)
{
	struct ib_uverbs_attr *a;

	ck_assert(b->next_attr < b->last_attr);
	a = b->next_attr++;
	memset(a, 0, sizeof(*a));
	a->attr_id = id;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

static struct ib_uverbs_attr *pv_in_u32(struct ibv_command_buffer *b,
					uint16_t id, uint32_t v)
{
	struct ib_uverbs_attr *a = pv_next(b, id);

	a->len = sizeof(v);
	memcpy(&a->data, &v, sizeof(v));
	return a;
}

static struct ib_uverbs_attr *pv_ptr(struct ibv_command_buffer *b,
				     uint16_t id, const void *p, size_t len)
{
	struct ib_uverbs_attr *a = pv_next(b, id);

	a->len = (uint16_t)len;
	a->data = (uintptr_t)p;
	return a;
}

/* rdma-core's _write_set_uhw: driver data kept as pointers (UHW_IN too,
 * until execute_ioctl), their indexes noted */
static void pv_set_uhw(struct ibv_command_buffer *b, const void *in,
		       size_t in_len, void *out, size_t out_len)
{
	if (in_len)
		b->uhw_in_idx = (uint8_t)(pv_ptr(b, UVERBS_ATTR_UHW_IN, in,
						 in_len) - b->hdr.attrs);
	if (out_len)
		b->uhw_out_idx = (uint8_t)(pv_ptr(b, UVERBS_ATTR_UHW_OUT, out,
						  out_len) - b->hdr.attrs);
}

/* driver attributes live in the driver's id space, which UHW_IN/OUT
 * share (they never meet in one method); keep clear of those two */
#define DRV_NS(n) ((uint16_t)((1U << UVERBS_ID_NS_SHIFT) | (n)))
#define DRV_ATTR(n) DRV_NS(0x10 + (n))

/* ---- execute_ioctl ---------------------------------------------------------------- */

START_TEST(final_num_attrs_counts_every_link)
{
	struct pv_cmdb l1, l2;
	struct ibv_command_buffer *b1, *b2;

	b2 = pv_init(&l2, 1, 2, 16, NULL);
	pv_in_u32(b2, DRV_ATTR(1), 1);
	pv_in_u32(b2, DRV_ATTR(2), 2);
	pv_in_u32(b2, DRV_ATTR(3), 3);
	b1 = pv_init(&l1, 1, 2, 16, b2);
	pv_in_u32(b1, DRV_ATTR(4), 4);
	pv_in_u32(b1, DRV_ATTR(5), 5);
	ck_assert_uint_eq(__ioctl_final_num_attrs(4, NULL), 4);
	ck_assert_uint_eq(__ioctl_final_num_attrs(4, b2), 7);
	ck_assert_uint_eq(__ioctl_final_num_attrs(4, b1), 9);
}
END_TEST

/* The shape of every provider command with a compat buffer: our buffer
 * (own attributes) -> the compat buffer (UHW_IN/UHW_OUT) -> the
 * provider's buffer (driver attributes, an output object). */
struct chain {
	struct pv_cmdb cmd, compat, drv;
	struct ibv_command_buffer *b;
	uint32_t out_val;
	uint8_t uhw_out[16];
	uint32_t drv_out;
	struct ib_uverbs_attr *uhw_in_attr, *drv_obj, *drv_ptr;
};

static void build_chain(struct chain *c, const void *uhw_in, size_t uhw_len)
{
	struct ibv_command_buffer *drv, *compat;

	drv = pv_init(&c->drv, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 4,
		      NULL);
	c->drv_obj = pv_next(drv, DRV_ATTR(1));  /* an output object */
	c->drv_ptr = pv_ptr(drv, DRV_ATTR(2), &c->drv_out, sizeof(c->drv_out));
	compat = pv_init(&c->compat, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
			 2, drv);
	pv_set_uhw(compat, uhw_in, uhw_len, c->uhw_out, sizeof(c->uhw_out));
	c->uhw_in_attr = &c->compat.b.hdr.attrs[c->compat.b.uhw_in_idx];
	/* ours: two attributes plus the four linked ones */
	c->b = pv_init(&c->cmd, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
		       __ioctl_final_num_attrs(2, compat), compat);
	pv_in_u32(c->b, 1, 0x11);
	pv_ptr(c->b, 2, &c->out_val, sizeof(c->out_val));
}

START_TEST(chain_is_linearized_and_answers_copied_back)
{
	const uint64_t drv_in = 0x8877665544332211ULL;
	const uint8_t uhw_answer[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	const uint32_t out_answer = 0xfeed, drv_answer = 0xbeef;
	const uint16_t order[6] = { 1, 2, UVERBS_ATTR_UHW_IN, UVERBS_ATTR_UHW_OUT,
				    DRV_ATTR(1), DRV_ATTR(2) };
	struct chain c;
	int i;

	build_chain(&c, &drv_in, sizeof(drv_in));
	/* garbage the kernel must not see */
	c.b->hdr.reserved1 = 0xdead;
	c.b->hdr.reserved2 = 0xbeef;
	c.b->hdr.driver_id = 99;
	answer_obj(DRV_ATTR(1), 0x77);
	answer_bytes(2, &out_answer, sizeof(out_answer));
	answer_bytes(UVERBS_ATTR_UHW_OUT, uhw_answer, sizeof(uhw_answer));
	answer_bytes(DRV_ATTR(2), &drv_answer, sizeof(drv_answer));

	ck_assert_int_eq(execute_ioctl(ibctx, c.b), 0);
	assert_rec(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 6);
	ck_assert_uint_eq(rec.hdr.length, 24 + 6 * 16);
	/* ours first, then each link in chain order */
	for (i = 0; i < 6; i++) {
		ck_assert_uint_eq(rec.attrs[i].attr_id, order[i]);
		ck_assert_uint_eq(rec.attrs[i].flags, UVERBS_ATTR_F_MANDATORY);
	}
	/* the 8-byte UHW_IN went inline, the UHW_OUT stays an address */
	ck_assert_uint_eq(rec.attrs[2].len, 8);
	ck_assert(rec.attrs[2].data == drv_in);
	ck_assert_uint_eq(rec.attrs[3].len, 16);
	ck_assert(rec.attrs[3].data == (uintptr_t)c.uhw_out);

	/* answers where the provider looks: its own attribute structs */
	ck_assert(c.drv_obj->data == 0x77);
	ck_assert_uint_eq(c.drv_ptr->flags,
			  UVERBS_ATTR_F_MANDATORY | UVERBS_ATTR_F_VALID_OUTPUT);
	ck_assert_uint_eq(c.drv_out, drv_answer);
	ck_assert_uint_eq(c.out_val, out_answer);
	ck_assert_mem_eq(c.uhw_out, uhw_answer, sizeof(uhw_answer));
	ck_assert_uint_eq(c.compat.b.hdr.attrs[1].flags,
			  UVERBS_ATTR_F_MANDATORY | UVERBS_ATTR_F_VALID_OUTPUT);
	/* the provider's UHW_IN still describes its buffer */
	ck_assert(c.uhw_in_attr->data == (uintptr_t)&drv_in);
	/* our buffer: its own attributes where they were */
	ck_assert_ptr_eq(c.b->next_attr, c.b->hdr.attrs + 2);
	ck_assert_uint_eq(c.b->uhw_in_idx, SV_UHW_NO_INDEX);
}
END_TEST

START_TEST(uhw_in_longer_than_8_stays_a_pointer)
{
	const uint8_t drv_in[12] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0xa, 0xb };
	struct chain c;
	int idx;

	build_chain(&c, drv_in, sizeof(drv_in));
	ck_assert_int_eq(execute_ioctl(ibctx, c.b), 0);
	ck_assert_uint_eq(rec_attr(UVERBS_ATTR_UHW_IN, &idx)->len, 12);
	ck_assert(rec.attrs[idx].data == (uintptr_t)drv_in);
	ck_assert_mem_eq(rec_ptr[idx], drv_in, sizeof(drv_in));
}
END_TEST

START_TEST(uhw_in_of_own_buffer_inlined_zero_padded)
{
	const uint32_t drv_in = 0xa1b2c3d4;
	struct pv_cmdb cmd;
	struct ibv_command_buffer *b;
	struct ib_uverbs_attr *uhw;

	/* an earlier garbage word behind the pointer must not leak */
	b = pv_init(&cmd, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 3,
		    NULL);
	pv_in_u32(b, UVERBS_ATTR_WRITE_CMD, 3);
	pv_set_uhw(b, &drv_in, sizeof(drv_in), NULL, 0);
	uhw = &b->hdr.attrs[b->uhw_in_idx];
	ck_assert_int_eq(execute_ioctl(ibctx, b), 0);
	ck_assert_uint_eq(rec.hdr.num_attrs, 2);
	ck_assert_uint_eq(rec.attrs[1].attr_id, UVERBS_ATTR_UHW_IN);
	ck_assert_uint_eq(rec.attrs[1].len, 4);
	ck_assert(rec.attrs[1].data == 0xa1b2c3d4ULL);
	ck_assert(uhw->data == (uintptr_t)&drv_in);
	/* the same buffer sent again sends the same bytes */
	ck_assert_int_eq(execute_ioctl(ibctx, b), 0);
	ck_assert(rec.attrs[1].data == 0xa1b2c3d4ULL);
	ck_assert_int_eq(nioctls, 2);
}
END_TEST

START_TEST(chain_sent_twice_sends_the_same)
{
	const uint64_t drv_in = 0x0102030405060708ULL;
	struct chain c;
	uint8_t first[sizeof(rec)];

	build_chain(&c, &drv_in, sizeof(drv_in));
	ck_assert_int_eq(execute_ioctl(ibctx, c.b), 0);
	memcpy(first, &rec, sizeof(rec));
	ck_assert_int_eq(execute_ioctl(ibctx, c.b), 0);
	ck_assert_mem_eq(first, &rec, 24 + 6 * 16);
}
END_TEST

START_TEST(buffer_error_is_einval)
{
	struct chain c;
	const uint64_t drv_in = 1;

	build_chain(&c, &drv_in, sizeof(drv_in));
	c.b->buffer_error = 1;
	errno = 0;
	ck_assert_int_eq(execute_ioctl(ibctx, c.b), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	/* a provider's own buffer that could not marshal fails it too */
	c.b->buffer_error = 0;
	c.drv.b.buffer_error = 1;
	ck_assert_int_eq(execute_ioctl(ibctx, c.b), EINVAL);
	ck_assert_int_eq(nioctls, 0);
}
END_TEST

START_TEST(no_room_for_links_is_einval)
{
	struct pv_cmdb cmd, drv;
	struct ibv_command_buffer *b, *d;

	d = pv_init(&drv, 1, 1, 4, NULL);
	pv_in_u32(d, DRV_ATTR(1), 1);
	pv_in_u32(d, DRV_ATTR(2), 2);
	/* sized for its own attribute only */
	b = pv_init(&cmd, 1, 1, 2, d);
	pv_in_u32(b, 1, 1);
	ck_assert_int_eq(execute_ioctl(ibctx, b), EINVAL);
	ck_assert_int_eq(nioctls, 0);
}
END_TEST

START_TEST(bad_uhw_index_is_einval)
{
	struct pv_cmdb cmd;
	struct ibv_command_buffer *b;

	b = pv_init(&cmd, 1, 1, 2, NULL);
	pv_in_u32(b, 1, 1);
	b->uhw_in_idx = 0; /* not a UHW_IN */
	ck_assert_int_eq(execute_ioctl(ibctx, b), EINVAL);
	b->uhw_in_idx = 1; /* past the filled attributes */
	ck_assert_int_eq(execute_ioctl(ibctx, b), EINVAL);
	ck_assert_int_eq(nioctls, 0);
}
END_TEST

static int fail_silently(int fd, unsigned long request, void *arg)
{
	(void)fd; (void)request; (void)arg;
	errno = 0;
	return -1;
}

START_TEST(kernel_error_is_positive_and_leaves_links)
{
	const uint64_t drv_in = 0x55;
	struct chain c;

	build_chain(&c, &drv_in, sizeof(drv_in));
	answer_obj(DRV_ATTR(1), 0x77);
	ioctl_errno = EPROTONOSUPPORT;
	errno = 0;
	ck_assert_int_eq(execute_ioctl(ibctx, c.b), EPROTONOSUPPORT);
	ck_assert_int_eq(errno, EPROTONOSUPPORT);
	ck_assert(c.drv_obj->data == 0);
	/* a write fallback could still use the provider's pointer */
	ck_assert(c.uhw_in_attr->data == (uintptr_t)&drv_in);
	/* an ioctl that fails without saying why still fails */
	sv_cmd_ioctl_fn = fail_silently;
	ck_assert_int_eq(execute_ioctl(ibctx, c.b), EIO);
	ck_assert(c.drv_obj->data == 0);
}
END_TEST

/* ---- ioctl commands, as a table --------------------------------------------------
 * Each case: the provider's rdma-core, what the kernel answers (or its
 * error), the provider's call (send, which sets up what it needs), what
 * it returns, the command the fake kernel received (object, method,
 * attribute count, then checks of single attributes) and what lands in
 * the provider's objects (x, then check for the rest). One test runs
 * them all (ioctl_command). */

enum { NOT_SENT = 0, ANY_SENT = 99 };   /* nattrs: no ioctl; not checked */

enum { AC_END, AC_U64, AC_U32, AC_OBJ, AC_OUT, AC_AT, AC_LEN, AC_DATA,
       AC_PTR, AC_ELEM, AC_MEM, AC_FLAGS };

/* one check of a recorded attribute: val is the value, the length or
 * the position; p the address it must carry or the bytes behind it.
 * A_U64/U32/OBJ/OUT are assert_in and the others; A_U64P a u64
 * holding an address; A_AT(i, id): the i-th attribute sent; A_ELEM the
 * enum element; A_MEM the bytes behind a pointer. */
struct acheck {
	uint8_t kind;
	uint16_t id;
	uint64_t val;
	const void *p;
};
#define A_U64(id, v) { AC_U64, UVERBS_ATTR_##id, (v), NULL }
#define A_U64P(id, p) { AC_U64, UVERBS_ATTR_##id, 0, (p) }
#define A_U32(id, v) { AC_U32, UVERBS_ATTR_##id, (v), NULL }
#define A_OBJ(id, h) { AC_OBJ, UVERBS_ATTR_##id, (h), NULL }
#define A_OUT(id, p, n) { AC_OUT, UVERBS_ATTR_##id, (n), (p) }
#define A_AT(i, id) { AC_AT, UVERBS_ATTR_##id, (i), NULL }
#define A_LEN(id, n) { AC_LEN, UVERBS_ATTR_##id, (n), NULL }
#define A_DATA(id, v) { AC_DATA, UVERBS_ATTR_##id, (v), NULL }
#define A_PTR(id, p) { AC_PTR, UVERBS_ATTR_##id, 0, (p) }
#define A_ELEM(id, v) { AC_ELEM, UVERBS_ATTR_##id, (v), NULL }
#define A_MEM(id, p, n) { AC_MEM, UVERBS_ATTR_##id, (n), (p) }
#define A_FLAGS(id, v) { AC_FLAGS, UVERBS_ATTR_##id, (v), NULL }

/* the macros name attributes without UVERBS_ATTR_; driver attributes
 * as DRV(n) and DRV_NS(n) */
#define UVERBS_ATTR_DRV(n) DRV_ATTR(n)
#define UVERBS_ATTR_DRV_NS(n) DRV_NS(n)

/* the kernel's answers (a list ends at an entry with neither) */
#define ANS_OBJ_OF(o, id, h) \
	{ .attr_id = UVERBS_ATTR_##id, .obj = (h), .object = (o) }
#define ANS_U32_OF(o, id, v) { .attr_id = UVERBS_ATTR_##id, \
	.bytes = (const uint32_t[]){ v }, .len = 4, .object = (o) }
#define ANS_U64_OF(o, id, v) { .attr_id = UVERBS_ATTR_##id, \
	.bytes = (const uint64_t[]){ v }, .len = 8, .object = (o) }
#define ANS_OBJ(id, h) ANS_OBJ_OF(-1, id, h)
#define ANS_U32(id, v) ANS_U32_OF(-1, id, v)
#define ANS_U64(id, v) ANS_U64_OF(-1, id, v)

struct ioctl_case {
	const char *name;
	unsigned int release;   /* the provider's rdma-core (0: 44) */
	int ioctl_errno;        /* the kernel fails the command */
	struct answer answers[4];
	int (*send)(void);
	int arg;                /* io.arg, for send */
	int ret, err;           /* send's result; errno after it (0: any) */
	uint16_t object, method;
	unsigned int nattrs;    /* NOT_SENT, ANY_SENT or the count */
	struct acheck attrs[16];
	struct xcheck x[12];
	void (*check)(void);
};

static void assert_attr(const struct acheck *c)
{
	const struct ib_uverbs_attr *a;
	int idx;

	switch (c->kind) {
	case AC_U64:
		assert_in(c->id, 8, c->p ? (uintptr_t)c->p : c->val);
		return;
	case AC_U32:
		assert_in(c->id, 4, (uint32_t)c->val);
		return;
	case AC_OBJ:
		assert_in_obj(c->id, (uint32_t)c->val);
		return;
	case AC_OUT:
		assert_out(c->id, c->p, c->val);
		return;
	case AC_AT:
		ck_assert_msg(rec.attrs[c->val].attr_id == c->id,
			      "%s: attribute %u is 0x%x, not 0x%x", cur,
			      (unsigned int)c->val, rec.attrs[c->val].attr_id,
			      c->id);
		return;
	}
	a = rec_attr(c->id, &idx);
	if (c->kind == AC_LEN)
		ATTR_EQ(c->id, "len", a->len, c->val);
	else if (c->kind == AC_DATA || c->kind == AC_PTR)
		ATTR_EQ(c->id, "data", a->data, c->p ? (uintptr_t)c->p : c->val);
	else if (c->kind == AC_ELEM)
		ATTR_EQ(c->id, "elem_id", a->attr_data.enum_data.elem_id, c->val);
	else if (c->kind == AC_FLAGS)
		ATTR_EQ(c->id, "flags", a->flags, c->val);
	else
		ck_assert_msg(memcmp(rec_ptr[idx], c->p, c->val) == 0,
			      "%s: attribute 0x%x: not the %u bytes given", cur,
			      c->id, (unsigned int)c->val);
}

/* The provider's objects and arguments. Objects a case uses exist
 * (their handles below, the context set); a case that creates one
 * starts it from zero. */
static struct {
	int arg;
	uint16_t object;                        /* the case's */
	struct ibv_pd pd;                       /* 9 */
	struct verbs_mr vmr;
	struct verbs_dm dm;                     /* 0x66 */
	struct verbs_counters cn;               /* 0x44 */
	struct verbs_flow_action fa;            /* 0x99 */
	struct verbs_dmah dmah;                 /* 0x19 */
	struct ibv_comp_cntr cc;                /* 0x2a */
	struct ibv_qp qp;                       /* 4 */
	struct ibv_comp_cntr_caps caps;
	struct verbs_cq cq;
	struct ibv_cq_init_attr_ex cqa;
	struct pv_create_cq_ex cqcmd;
	struct pv_create_cq_ex_resp cqresp;
	struct ibv_comp_channel ch;
	struct ibv_mr_init_attr mra;
	struct pv_cmdb drv;
	struct ibv_sge sg[2], many[4096];
	struct ib_uverbs_flow_action_esp esp;
	struct ib_uverbs_flow_action_esp_encap encap;
	uint8_t keymat[20];
	uint64_t u64[3];                        /* what comes back */
	uint8_t ring[4096];
	union {
		uint8_t b[64];
		struct ibv_port_attr a;
	} port;
	char buf[64];
	int fds[3];
	struct PV_CMD(8 + 8) gcmd;
	struct PV_RESP(struct ib_uverbs_get_context_resp) gresp;
} io;

static void io_prepare(const struct ioctl_case *c)
{
	memset(&io, 0, sizeof(io));
	io.arg = c->arg;
	io.object = c->object;
	io.pd = (struct ibv_pd){ .context = ibctx, .handle = 9 };
	io.dm.dm.context = io.cn.counters.context = io.fa.action.context = ibctx;
	io.dmah.dmah.context = io.cc.context = io.qp.context = ibctx;
	io.dm.handle = io.dm.dm.handle = 0x66;
	io.cn.handle = 0x44;
	io.fa.handle = 0x99;
	io.dmah.handle = 0x19;
	io.cc.handle = 0x2a;
	io.qp.handle = 4;
}

/* -- the calls -- */

#define CORE_SUPPORT IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS

/* arg: with a driver link */
static int query_context_send(void)
{
	struct ibv_command_buffer *d = NULL;

	if (io.arg) {
		d = pv_init(&io.drv, UVERBS_OBJECT_DEVICE,
			    UVERBS_METHOD_QUERY_CONTEXT, 2, NULL);
		pv_in_u32(d, DRV_ATTR(1), 0xc0ffee);
	}
	return ibv_cmd_query_context(ibctx, d);
}

static int query_mr_send(void)
{
	memset(&io.vmr, 0xff, sizeof(io.vmr));
	return ibv_cmd_query_mr(&io.pd, &io.vmr, 0x42);
}

/* arg: more sges than an attribute can carry (64 KiB) */
static int advise_mr_send(void)
{
	io.sg[0] = (struct ibv_sge){ 0x1000, 64, 7 };
	io.sg[1] = (struct ibv_sge){ 0x3000, 128, 8 };
	if (io.arg)
		return ibv_cmd_advise_mr(&io.pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
					 0, io.many, 4096);
	return ibv_cmd_advise_mr(&io.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				 IBV_ADVISE_MR_FLAG_FLUSH, io.sg, 2);
}

#define DMABUF_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ)

/* arg: 0 a dma-buf MR; 1 a bad fd; 2 from a 44-53 provider, which
 * passes seven arguments: whatever lies where the eighth would be is
 * never touched; 3 from a 54-56 provider, whose own attributes go with
 * the command; 4 its empty chain: the plain command */
static int reg_dmabuf_mr_send(void)
{
	struct ibv_command_buffer *d = pv_init(&io.drv, UVERBS_OBJECT_MR,
					       UVERBS_METHOD_REG_DMABUF_MR, 1,
					       NULL);

	switch (io.arg) {
	case 0:
		return ibv_cmd_reg_dmabuf_mr(&io.pd, 0x2000, 0x10000, 0x7000,
					     41, DMABUF_ACCESS, &io.vmr, NULL);
	case 1:
		return ibv_cmd_reg_dmabuf_mr(&io.pd, 0, 4096, 0, -1, 0, &io.vmr,
					     NULL);
	case 2:
		return ibv_cmd_reg_dmabuf_mr(&io.pd, 0, 4096, 0, 5, 0, &io.vmr,
					     (struct ibv_command_buffer *)0x1);
	case 3:
		pv_in_u32(d, DRV_NS(3), 0x5a);
		return ibv_cmd_reg_dmabuf_mr(&io.pd, 0x2000, 4096, 0x7000, 5,
					     IBV_ACCESS_LOCAL_WRITE, &io.vmr, d);
	}
	return ibv_cmd_reg_dmabuf_mr(&io.pd, 0, 4096, 0, 5, 0, &io.vmr, d);
}

/* arg: the init attribute's comp_mask. Memory (ADDR): its address is
 * the iova when none is given. A dma-buf: fd 39 at 4096, iova 0x10000,
 * DMA handle 0x19. */
static int reg_mr_ex_send(void)
{
	io.mra = (struct ibv_mr_init_attr){
		.length = sizeof(io.buf), .access = IBV_ACCESS_LOCAL_WRITE,
		.comp_mask = (uint32_t)io.arg, .addr = io.buf,
	};
	if (io.arg & IBV_REG_MR_MASK_FD)
		io.mra = (struct ibv_mr_init_attr){
			.length = 8192, .comp_mask = (uint32_t)io.arg,
			.fd = 39, .fd_offset = 4096, .iova = 0x10000,
			.dmah = &io.dmah.dmah,
		};
	else if (io.arg & IBV_REG_MR_MASK_IOVA)
		io.mra.iova = 0x4000;
	return ibv_cmd_reg_mr_ex(&io.pd, &io.vmr, &io.mra);
}

static void reg_mr_ex_write_check(void)
{
	assert_hdr(IB_USER_VERBS_CMD_REG_MR, 12, 3);
	EQ(u64_at(wcmd, 32), 0x4000); /* hca_va */
}

static int alloc_dm_send(void)
{
	struct ibv_alloc_dm_attr attr = { .length = 8192, .log_align_req = 6 };
	struct ibv_command_buffer *d = pv_init(&io.drv, UVERBS_OBJECT_DM,
					       UVERBS_METHOD_DM_ALLOC, 2, NULL);

	memset(&io.dm, 0, sizeof(io.dm));
	pv_ptr(d, DRV_ATTR(1), &io.u64[0], 8);
	answer_bytes(DRV_ATTR(1), "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	return ibv_cmd_alloc_dm(ibctx, &attr, &io.dm, d);
}

/* arg: the access flags; DM MRs are zero-based or nothing */
static int reg_dm_mr_send(void)
{
	memset(&io.vmr, 0xff, sizeof(io.vmr));
	return ibv_cmd_reg_dm_mr(&io.pd, &io.dm,
				 io.arg & IBV_ACCESS_ZERO_BASED ? 512 : 0, 4096,
				 io.arg, &io.vmr, NULL);
}

/* arg: the init attribute's comp_mask (none is known) */
static int create_counters_send(void)
{
	struct ibv_counters_init_attr init = { .comp_mask = (uint32_t)io.arg };
	struct ibv_command_buffer *d = pv_init(&io.drv, UVERBS_OBJECT_COUNTERS,
					       UVERBS_METHOD_COUNTERS_CREATE,
					       1, NULL);

	memset(&io.cn, 0, sizeof(io.cn));
	pv_in_u32(d, DRV_ATTR(1), 5);
	return ibv_cmd_create_counters(ibctx, &init, &io.cn, io.arg ? NULL : d);
}

static const uint64_t counter_values[3] = { 10, 20, 30 };

static int read_counters_send(void)
{
	answer_bytes(UVERBS_ATTR_READ_COUNTERS_BUFF, counter_values,
		     sizeof(counter_values));
	return ibv_cmd_read_counters(&io.cn, io.u64, 3,
				     IBV_READ_COUNTERS_ATTR_PREFER_CACHED, NULL);
}

static int create_flow_action_esp_send(void)
{
	static const uint32_t replay = 64;
	struct ibv_flow_action_esp_attr attr = {
		.esp_attr = &io.esp,
		.keymat_proto = IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM,
		.keymat_ptr = io.keymat, .keymat_len = sizeof(io.keymat),
		.replay_proto = IBV_FLOW_ACTION_ESP_REPLAY_BMP,
		.replay_ptr = (void *)&replay, .replay_len = sizeof(replay),
		.esp_encap = &io.encap,
		.comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN, .esn = 0x77,
	};
	struct ibv_command_buffer *d = pv_init(&io.drv, UVERBS_OBJECT_FLOW_ACTION,
					       UVERBS_METHOD_FLOW_ACTION_ESP_CREATE,
					       1, NULL);

	memset(&io.fa, 0, sizeof(io.fa));
	io.esp.spi = 0x100;
	io.esp.seq = 1;
	memset(io.keymat, 0x5a, sizeof(io.keymat));
	pv_in_u32(d, DRV_ATTR(1), 0xf1a9);
	return ibv_cmd_create_flow_action_esp(ibctx, &attr, &io.fa, d);
}

/* modify: the handle, then only what is set */
static int modify_flow_action_esp_send(void)
{
	struct ibv_flow_action_esp_attr attr = { .esp_attr = &io.esp };

	return ibv_cmd_modify_flow_action_esp(&io.fa, &attr, NULL);
}

/* ibv_cmd_query_port fills the provider's struct: 52 bytes for 44-48,
 * 56 (active_speed_ex) from 49 */
static int query_port_send(void)
{
	static const struct ib_uverbs_query_port_resp legacy = {
		.state = IBV_PORT_ACTIVE,
	};
	static uint8_t resp_ex[48];
	const uint32_t speed = 0x80;

	memcpy(resp_ex, &legacy, sizeof(legacy));
	memcpy(resp_ex + 44, &speed, sizeof(speed));
	answer_bytes(UVERBS_ATTR_QUERY_PORT_RESP, resp_ex, sizeof(resp_ex));
	memset(io.port.b, 0xab, sizeof(io.port.b));
	return ibv_cmd_query_port(ibctx, 1, &io.port.a, NULL, 0);
}

/* arg: the built-in default, which asks the same; a driver without it
 * (rxe, siw) or a kernel without the method is EOPNOTSUPP */
static int query_port_speed_send(void)
{
	if (io.arg)
		return sv_cmd_query_port_speed(ibctx, 1, &io.u64[0]);
	return ibv_cmd_query_port_speed(ibctx, 1, &io.u64[0]);
}

static int export_dmabuf_fd_send(void)
{
	return ibv_cmd_export_dmabuf_fd(ibctx, 5);
}

/* v57: fds for the kernel go with the ioctl GET_CONTEXT (the write
 * command cannot carry them), then a second method makes the async
 * event fd. arg: 0 no fds (the write, as before 57), 1 fds, 2 an array
 * that is not there, 3 the 34 form (the same write). */
static int get_context_send(void)
{
	static const struct ib_uverbs_get_context_resp r = {
		.async_fd = 5, .num_comp_vectors = 2,
	};
	struct ibv_fd_arr arr = { .arr = io.arg == 1 ? io.fds : NULL,
				  .count = 3 };

	io.gcmd.drv = 0xabc;
	set_wreply(&r, sizeof(r));
	if (io.arg == 3)
		return pabi_cmd_get_context_34(&ctx->vctx, &io.gcmd,
					       sizeof(io.gcmd), &io.gresp,
					       sizeof(io.gresp));
	return ibv_cmd_get_context(&ctx->vctx, &io.gcmd, sizeof(io.gcmd),
				   io.arg ? &arr : NULL, &io.gresp,
				   sizeof(io.gresp));
}

/* the GET_CONTEXT ioctl itself (the first of the two): the fd array as
 * a pointer attribute, the driver data as UHW */
static int get_context_ioctl_send(void)
{
	struct ibv_fd_arr arr = { .arr = io.fds, .count = 3 };
	struct sv_udata u = {
		.req = &io.u64[0], .req_len = 8, .resp = &io.u64[1],
		.resp_len = 8,
	};

	io.u64[0] = 0x55;
	return pabi_get_context_ioctl(ibctx, &u, &arr);
}

/* rdma-core 53's create_cq_ex2 (libmlx5's): without attributes of the
 * provider's own, the extended write; with them (arg; 2: and an unknown
 * comp_mask), the ioctl, the provider's data in UHW_IN / UHW_OUT */
static int create_cq_ex2_send(void)
{
	static const struct ib_uverbs_ex_create_cq_resp r = {
		.base = { .cq_handle = 0x21, .cqe = 255 },
		.response_length = sizeof(r),
	};
	struct ibv_command_buffer *d = pv_init(&io.drv, UVERBS_OBJECT_CQ,
					       UVERBS_METHOD_CQ_CREATE, 2, NULL);

	io.cqcmd.drv = 0x1122334455667788ULL;
	io.cqa = (struct ibv_cq_init_attr_ex){
		.cqe = 200, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	set_wreply(&r, sizeof(r));
	if (io.arg) {
		pv_in_u32(d, DRV_NS(2), 3);     /* mlx5's UAR index */
		io.ch.fd = 33;
		io.cqa.channel = &io.ch;
		io.cqa.comp_vector = 1;
		io.cqa.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		io.cqa.comp_mask = io.arg == 2 ? 1u << 7 : 0;
		ibctx->async_fd = 44;
	}
	return pabi_cmd_create_cq_ex2_34(ibctx, &io.cqa, &io.cq, &io.cqcmd,
					 sizeof(io.cqcmd), &io.cqresp,
					 sizeof(io.cqresp), 0, d);
}

static void create_cq_ex2_write_check(void)
{
	assert_ex_hdr(IB_USER_VERBS_EX_CMD_CREATE_CQ, 4, 2, 1, 1);
}

static void cq_mutex_check(void)
{
	EQ(pthread_mutex_trylock(&io.cq.cq.mutex), 0);
	pthread_mutex_unlock(&io.cq.cq.mutex);
}

/* v59: the provider's own CQ buffer needs the ioctl (arg: 1 by address,
 * 2 a dma-buf with create_cq_ex2, 3 the flag without it); the older
 * form (4) has no prov_attr, and a flag without it is refused */
static int create_cq_ex_send(void)
{
	static const struct ib_uverbs_ex_create_cq_resp r = {
		.base = { .cq_handle = 0x41, .cqe = 63 },
		.response_length = sizeof(r),
	};
	struct verbs_create_cq_prov_attr va = {
		.buffer = { .length = sizeof(io.ring), .ptr = io.ring },
	};
	struct verbs_create_cq_prov_attr dmabuf = {
		.buffer = { .length = 8192,
			    .dmabuf = { .offset = 4096, .fd = 77 } },
	};

	io.cqcmd.drv = 0x99;
	io.cqa.cqe = 60;
	set_wreply(&r, sizeof(r));
	if (io.arg == 2)
		return ibv_cmd_create_cq_ex2(ibctx, &io.cqa, &dmabuf, &io.cq,
					     &io.cqcmd, sizeof(io.cqcmd),
					     &io.cqresp, sizeof(io.cqresp),
					     CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF,
					     NULL);
	if (io.arg == 4)
		return pabi_cmd_create_cq_ex_34(ibctx, &io.cqa, &io.cq,
						&io.cqcmd, sizeof(io.cqcmd),
						&io.cqresp, sizeof(io.cqresp),
						CREATE_CQ_CMD_FLAGS_WITH_MEM_VA);
	return ibv_cmd_create_cq_ex(ibctx, &io.cqa, io.arg == 1 ? &va : NULL,
				    &io.cq, &io.cqcmd, sizeof(io.cqcmd),
				    &io.cqresp, sizeof(io.cqresp),
				    io.arg ? CREATE_CQ_CMD_FLAGS_WITH_MEM_VA : 0);
}

/* v64: provider attributes on create_qp_ex2 (the QP_CREATE ioctl) are
 * refused, not dropped */
static int create_qp_ex2_send(void)
{
	struct ibv_qp_init_attr_ex attr = { .comp_mask = IBV_QP_INIT_ATTR_PD };
	struct ibv_command_buffer *d = pv_init(&io.drv, UVERBS_OBJECT_QP,
					       UVERBS_METHOD_QP_CREATE, 2, NULL);
	struct qp56 q;

	pv_in_u32(d, DRV_ATTR(1), 1);
	memset(&q, 0, sizeof(q));
	return ibv_cmd_create_qp_ex2(ibctx, (struct verbs_qp *)&q, &attr, NULL,
				     0, NULL, 0, d);
}

/* arg: the init attribute's comp_mask */
static int alloc_dmah_send(void)
{
	struct ibv_dmah_init_attr attr = {
		.comp_mask = (uint32_t)io.arg, .cpu_id = 3, .ph = 2,
		.tph_mem_type = IBV_TPH_MEM_TYPE_PM,
	};

	memset(&io.dmah, 0, sizeof(io.dmah));
	return ibv_cmd_alloc_dmah(ibctx, &io.dmah, &attr);
}

/* arg: the size of the provider's struct */
static int query_comp_cntr_caps_send(void)
{
	return ibv_cmd_query_comp_cntr_caps(ibctx, &io.caps, (size_t)io.arg);
}

static int create_comp_cntr_send(void)
{
	memset(&io.cc, 0, sizeof(io.cc));
	return ibv_cmd_create_comp_cntr(ibctx, &io.cc, NULL);
}

/* arg: 0 inc_err by 3, 1 set to 9, 2 read_err, 3 attach to a QP */
static int comp_cntr_send(void)
{
	struct ibv_qp_attach_comp_cntr_attr at = { .op_mask = 0x5 };

	switch (io.arg) {
	case 0:
		return ibv_cmd_inc_err_comp_cntr(&io.cc, 3);
	case 1:
		return ibv_cmd_set_comp_cntr(&io.cc, 9);
	case 2:
		return ibv_cmd_read_err_comp_cntr(&io.cc, &io.u64[0]);
	}
	return ibv_cmd_qp_attach_comp_cntr(&io.qp, &io.cc, &at);
}

/* the destroy of the case's object */
static int destroy_send(void)
{
	switch (io.object) {
	case UVERBS_OBJECT_DM:
		return ibv_cmd_free_dm(&io.dm);
	case UVERBS_OBJECT_COUNTERS:
		return ibv_cmd_destroy_counters(&io.cn);
	case UVERBS_OBJECT_FLOW_ACTION:
		return ibv_cmd_destroy_flow_action(&io.fa);
	case UVERBS_OBJECT_DMAH:
		return ibv_cmd_free_dmah(&io.dmah);
	}
	return ibv_cmd_destroy_comp_cntr(&io.cc);
}

/* -- the table -- */

#define CNTR_OPS (IBV_QP_ATTACH_COMP_CNTR_OP_SEND | IBV_QP_ATTACH_COMP_CNTR_OP_RECV)
#define OM(obj, meth) .object = UVERBS_OBJECT_##obj, .method = UVERBS_METHOD_##meth
#define MR_FD (IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET)
#define MR_ZB (IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE)
#define DMAH_ALL (IBV_DMAH_INIT_ATTR_MASK_CPU_ID | IBV_DMAH_INIT_ATTR_MASK_PH | \
		  IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE)
#define MR_ANSWERS(obj, h, lkey, rkey) \
	{ ANS_OBJ(obj##_HANDLE, h), ANS_U32(obj##_RESP_LKEY, lkey), \
	  ANS_U32(obj##_RESP_RKEY, rkey) }

static const struct ioctl_case ioctl_cases[] = {
	{ "query_context with a driver link", .arg = 1,
	  .answers = { ANS_U32(QUERY_CONTEXT_NUM_COMP_VECTORS, 7),
		       ANS_U64(QUERY_CONTEXT_CORE_SUPPORT, CORE_SUPPORT) },
	  .send = query_context_send, OM(DEVICE, QUERY_CONTEXT), .nattrs = 3,
	  .attrs = { A_OUT(QUERY_CONTEXT_NUM_COMP_VECTORS, &IBCTX.num_comp_vectors, 4),
		     A_AT(1, QUERY_CONTEXT_CORE_SUPPORT), A_LEN(QUERY_CONTEXT_CORE_SUPPORT, 8),
		     A_AT(2, DRV(1)), A_DATA(DRV(1), 0xc0ffee) },
	  .x = { X(IBCTX.num_comp_vectors, 7), X(vdev.core_support, CORE_SUPPORT),
		 X(the_ctx.core.core_support, CORE_SUPPORT) } },
	/* a kernel without the method: its answer, nothing changed */
	{ "query_context on an old kernel", .ioctl_errno = ENOTTY,
	  .answers = { ANS_U64(QUERY_CONTEXT_CORE_SUPPORT, CORE_SUPPORT) },
	  .send = query_context_send, .ret = ENOTTY, OM(DEVICE, QUERY_CONTEXT), .nattrs = 2,
	  .x = { X(vdev.core_support, 0) } },
	{ "query_mr imports",
	  .answers = { ANS_U32(QUERY_MR_RESP_LKEY, 0x1234), ANS_U32(QUERY_MR_RESP_RKEY, 0x5678),
		       ANS_U64(QUERY_MR_RESP_LENGTH, 1 << 20) },
	  .send = query_mr_send, OM(MR, QUERY_MR), .nattrs = 4,
	  .attrs = { A_OBJ(QUERY_MR_HANDLE, 0x42),
		     A_OUT(QUERY_MR_RESP_LKEY, &io.vmr.ibv_mr.lkey, 4),
		     A_OUT(QUERY_MR_RESP_RKEY, &io.vmr.ibv_mr.rkey, 4),
		     A_OUT(QUERY_MR_RESP_LENGTH, &io.vmr.ibv_mr.length, 8) },
	  .x = { X(io.vmr.ibv_mr.lkey, 0x1234), X(io.vmr.ibv_mr.rkey, 0x5678),
		 X(io.vmr.ibv_mr.length, 1 << 20), X(io.vmr.ibv_mr.handle, 0x42),
		 XCTX(io.vmr.ibv_mr.context), XP(io.vmr.ibv_mr.pd, &io.pd),
		 XP(io.vmr.ibv_mr.addr, NULL), X(io.vmr.mr_type, IBV_MR_TYPE_IMPORTED_MR) } },
	{ "advise_mr sends the sge list", .send = advise_mr_send, OM(MR, ADVISE_MR),
	  .nattrs = 4,
	  .attrs = { A_OBJ(ADVISE_MR_PD_HANDLE, 9),
		     A_U64(ADVISE_MR_ADVICE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE),
		     A_U32(ADVISE_MR_FLAGS, IBV_ADVISE_MR_FLAG_FLUSH),
		     A_LEN(ADVISE_MR_SGE_LIST, 32), A_PTR(ADVISE_MR_SGE_LIST, io.sg),
		     A_MEM(ADVISE_MR_SGE_LIST, io.sg, 32) } },
	{ "advise_mr with more than 64 KiB of sges", .send = advise_mr_send, .arg = 1,
	  .ret = EINVAL },
	/* the MR's type keeps ibv_dereg_mr away from the fork-safety map */
	{ "reg_dmabuf_mr fills a dma-buf MR",
	  .answers = MR_ANSWERS(REG_DMABUF_MR, 0x31, 0x111, 0x222), .send = reg_dmabuf_mr_send,
	  OM(MR, REG_DMABUF_MR), .nattrs = 9,
	  .attrs = { A_AT(0, REG_DMABUF_MR_HANDLE), A_OBJ(REG_DMABUF_MR_PD_HANDLE, 9),
		     A_U64(REG_DMABUF_MR_OFFSET, 0x2000), A_U64(REG_DMABUF_MR_LENGTH, 0x10000),
		     A_U64(REG_DMABUF_MR_IOVA, 0x7000), A_U32(REG_DMABUF_MR_FD, 41),
		     A_U32(REG_DMABUF_MR_ACCESS_FLAGS, DMABUF_ACCESS),
		     A_LEN(REG_DMABUF_MR_RESP_LKEY, 4) },
	  .x = { X(io.vmr.ibv_mr.handle, 0x31), X(io.vmr.ibv_mr.lkey, 0x111),
		 X(io.vmr.ibv_mr.rkey, 0x222), XCTX(io.vmr.ibv_mr.context),
		 XP(io.vmr.ibv_mr.pd, &io.pd), XP(io.vmr.ibv_mr.addr, 0x2000),
		 X(io.vmr.ibv_mr.length, 0x10000), X(io.vmr.mr_type, IBV_MR_TYPE_DMABUF_MR),
		 X(io.vmr.access, DMABUF_ACCESS) } },
	/* the kernel's answer reaches the provider */
	{ "reg_dmabuf_mr of a bad fd", .ioctl_errno = EBADF, .send = reg_dmabuf_mr_send,
	  .arg = 1, .ret = EBADF, .err = EBADF, OM(MR, REG_DMABUF_MR), .nattrs = 9,
	  .x = { X(io.vmr.mr_type, 0) } },
	{ "reg_dmabuf_mr of a 53 provider", .release = 53,
	  .answers = { ANS_OBJ(REG_DMABUF_MR_HANDLE, 0x31) }, .send = reg_dmabuf_mr_send,
	  .arg = 2, OM(MR, REG_DMABUF_MR), .nattrs = 9,
	  .x = { X(io.vmr.ibv_mr.handle, 0x31) } },
	{ "reg_dmabuf_mr of a 56 provider", .release = 56, .arg = 3,
	  .answers = MR_ANSWERS(REG_DMABUF_MR, 0x32, 0x111, 0x222), .send = reg_dmabuf_mr_send,
	  OM(MR, REG_DMABUF_MR), .nattrs = 10,
	  .attrs = { A_U32(DRV_NS(3), 0x5a), A_U64(REG_DMABUF_MR_OFFSET, 0x2000) },
	  .x = { X(io.vmr.ibv_mr.handle, 0x32), X(io.vmr.ibv_mr.lkey, 0x111),
		 X(io.vmr.ibv_mr.rkey, 0x222), X(io.vmr.mr_type, IBV_MR_TYPE_DMABUF_MR) } },
	{ "reg_dmabuf_mr of a 56 provider, empty chain", .release = 56,
	  .send = reg_dmabuf_mr_send, .arg = 4, OM(MR, REG_DMABUF_MR), .nattrs = 9 },
	{ "reg_mr_ex by address", .release = 62, .arg = IBV_REG_MR_MASK_ADDR,
	  .answers = MR_ANSWERS(REG_MR, 0x71, 0x51, 0x52), .send = reg_mr_ex_send,
	  OM(MR, REG_MR), .nattrs = 8,
	  .attrs = { A_OBJ(REG_MR_PD_HANDLE, 9), A_U64(REG_MR_LENGTH, sizeof(io.buf)),
		     A_U32(REG_MR_ACCESS_FLAGS, IBV_ACCESS_LOCAL_WRITE),
		     A_U64P(REG_MR_ADDR, io.buf), A_U64P(REG_MR_IOVA, io.buf) },
	  .x = { X(io.vmr.ibv_mr.handle, 0x71), X(io.vmr.ibv_mr.lkey, 0x51),
		 X(io.vmr.ibv_mr.rkey, 0x52), X(io.vmr.mr_type, IBV_MR_TYPE_MR) } },
	{ "reg_mr_ex of a dma-buf with a DMA handle", .release = 62,
	  .arg = MR_FD | IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_DMAH, .send = reg_mr_ex_send,
	  OM(MR, REG_MR), .nattrs = 10,
	  .attrs = { A_DATA(REG_MR_FD, 39), A_U64(REG_MR_FD_OFFSET, 4096),
		     A_U64(REG_MR_IOVA, 0x10000), A_OBJ(REG_MR_DMA_HANDLE, 0x19) },
	  .x = { X(io.vmr.mr_type, IBV_MR_TYPE_DMABUF_MR) } },
	/* what neither kind is */
	{ "reg_mr_ex of a dma-buf without an iova", .release = 62,
	  .arg = MR_FD | IBV_REG_MR_MASK_DMAH, .send = reg_mr_ex_send, .ret = EINVAL },
	{ "reg_mr_ex with an address and an fd offset", .release = 62,
	  .arg = IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD_OFFSET, .send = reg_mr_ex_send,
	  .ret = EINVAL },
	/* a kernel without the method: memory by the write command, a
	 * dma-buf not at all */
	{ "reg_mr_ex on an old kernel: the write", .release = 62,
	  .ioctl_errno = EPROTONOSUPPORT, .send = reg_mr_ex_send,
	  .arg = IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA, .nattrs = ANY_SENT,
	  .x = { X(nwrites, 1), X(io.vmr.mr_type, IBV_MR_TYPE_MR) },
	  .check = reg_mr_ex_write_check },
	{ "reg_mr_ex of a dma-buf on an old kernel", .release = 62,
	  .ioctl_errno = EPROTONOSUPPORT, .send = reg_mr_ex_send,
	  .arg = MR_FD | IBV_REG_MR_MASK_IOVA, .ret = EPROTONOSUPPORT, .nattrs = ANY_SENT },
	{ "alloc_dm with a driver link", .answers = { ANS_OBJ(ALLOC_DM_HANDLE, 0x66) },
	  .send = alloc_dm_send, OM(DM, DM_ALLOC), .nattrs = 4,
	  .attrs = { A_U64(ALLOC_DM_LENGTH, 8192), A_U32(ALLOC_DM_ALIGNMENT, 6),
		     A_AT(3, DRV(1)) },
	  .x = { X(io.u64[0], 0x0807060504030201ULL), X(io.dm.handle, 0x66),
		 X(io.dm.dm.handle, 0x66), X(io.dm.dm.comp_mask, IBV_DM_MASK_HANDLE),
		 XCTX(io.dm.dm.context) } },
	{ "reg_dm_mr not zero-based", .send = reg_dm_mr_send, .arg = IBV_ACCESS_LOCAL_WRITE,
	  .ret = EINVAL },
	{ "reg_dm_mr", .answers = MR_ANSWERS(REG_DM_MR, 0x67, 0xa, 0xb), .send = reg_dm_mr_send,
	  .arg = MR_ZB, OM(MR, DM_MR_REG), .nattrs = 8,
	  .attrs = { A_OBJ(REG_DM_MR_PD_HANDLE, 9), A_OBJ(REG_DM_MR_DM_HANDLE, 0x66),
		     A_U64(REG_DM_MR_OFFSET, 512), A_U64(REG_DM_MR_LENGTH, 4096),
		     A_U32(REG_DM_MR_ACCESS_FLAGS, MR_ZB) },
	  .x = { X(io.vmr.ibv_mr.handle, 0x67), X(io.vmr.ibv_mr.lkey, 0xa),
		 X(io.vmr.ibv_mr.rkey, 0xb), X(io.vmr.ibv_mr.length, 4096),
		 XP(io.vmr.ibv_mr.addr, NULL), XP(io.vmr.ibv_mr.pd, &io.pd),
		 XCTX(io.vmr.ibv_mr.context), X(io.vmr.mr_type, IBV_MR_TYPE_MR) } },
	{ "free_dm", .send = destroy_send, OM(DM, DM_FREE), .nattrs = 1,
	  .attrs = { A_OBJ(FREE_DM_HANDLE, 0x66) } },
	{ "create_counters with a comp_mask", .send = create_counters_send, .arg = 1,
	  .ret = EOPNOTSUPP },
	{ "create_counters with a driver link",
	  .answers = { ANS_OBJ(CREATE_COUNTERS_HANDLE, 0x44) }, .send = create_counters_send,
	  OM(COUNTERS, COUNTERS_CREATE), .nattrs = 2, .attrs = { A_AT(1, DRV(1)) },
	  .x = { X(io.cn.handle, 0x44), XCTX(io.cn.counters.context) } },
	{ "read_counters", .send = read_counters_send, OM(COUNTERS, COUNTERS_READ), .nattrs = 3,
	  .attrs = { A_OBJ(READ_COUNTERS_HANDLE, 0x44), A_OUT(READ_COUNTERS_BUFF, io.u64, 24),
		     A_U32(READ_COUNTERS_FLAGS, IBV_READ_COUNTERS_ATTR_PREFER_CACHED) },
	  .x = { XMEMN(io.u64, counter_values, sizeof(counter_values)) } },
	{ "destroy_counters", .send = destroy_send, OM(COUNTERS, COUNTERS_DESTROY), .nattrs = 1,
	  .attrs = { A_OBJ(DESTROY_COUNTERS_HANDLE, 0x44) } },
	/* the 4-byte replay window inline */
	{ "create_flow_action_esp", .answers = { ANS_OBJ(CREATE_FLOW_ACTION_ESP_HANDLE, 0x99) },
	  .send = create_flow_action_esp_send, OM(FLOW_ACTION, FLOW_ACTION_ESP_CREATE),
	  .nattrs = 7,
	  .attrs = { A_AT(0, CREATE_FLOW_ACTION_ESP_HANDLE), A_U32(FLOW_ACTION_ESP_ESN, 0x77),
		     A_LEN(FLOW_ACTION_ESP_KEYMAT, sizeof(io.keymat)),
		     A_ELEM(FLOW_ACTION_ESP_KEYMAT, IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM),
		     A_MEM(FLOW_ACTION_ESP_KEYMAT, io.keymat, sizeof(io.keymat)),
		     A_LEN(FLOW_ACTION_ESP_REPLAY, 4), A_DATA(FLOW_ACTION_ESP_REPLAY, 64),
		     A_ELEM(FLOW_ACTION_ESP_REPLAY, IBV_FLOW_ACTION_ESP_REPLAY_BMP),
		     A_LEN(FLOW_ACTION_ESP_ENCAP, sizeof(io.encap)),
		     A_PTR(FLOW_ACTION_ESP_ENCAP, &io.encap),
		     A_LEN(FLOW_ACTION_ESP_ATTRS, sizeof(io.esp)),
		     A_MEM(FLOW_ACTION_ESP_ATTRS, &io.esp, sizeof(io.esp)), A_AT(6, DRV(1)) },
	  .x = { X(io.fa.handle, 0x99), X(io.fa.type, IBV_FLOW_ACTION_ESP),
		 XCTX(io.fa.action.context) } },
	{ "modify_flow_action_esp", .send = modify_flow_action_esp_send,
	  OM(FLOW_ACTION, FLOW_ACTION_ESP_MODIFY), .nattrs = 2,
	  .attrs = { A_OBJ(MODIFY_FLOW_ACTION_ESP_HANDLE, 0x99),
		     A_AT(1, FLOW_ACTION_ESP_ATTRS) } },
	{ "destroy_flow_action", .send = destroy_send, OM(FLOW_ACTION, FLOW_ACTION_DESTROY),
	  .nattrs = 1, .attrs = { A_OBJ(DESTROY_FLOW_ACTION_HANDLE, 0x99) } },
	{ "query_port of a 56 provider", .release = 56, .send = query_port_send,
	  .nattrs = ANY_SENT,
	  .x = { X(io.port.a.state, IBV_PORT_ACTIVE),
		 XMEMN(io.port.b[52], (const uint32_t[]){ 0x80 }, 4),
		 X(io.port.b[56], 0xab) } },
	{ "query_port of a 48 provider", .release = 48, .send = query_port_send,
	  .nattrs = ANY_SENT,
	  .x = { X(io.port.a.state, IBV_PORT_ACTIVE), X(io.port.b[52], 0xab) } },
	{ "query_port_speed", .release = 62,
	  .answers = { ANS_U64(QUERY_PORT_SPEED_RESP, 4000) }, .send = query_port_speed_send,
	  OM(DEVICE, QUERY_PORT_SPEED), .nattrs = 2,
	  .attrs = { A_U64(QUERY_PORT_SPEED_PORT_NUM, 1) }, .x = { X(io.u64[0], 4000) } },
	{ "query_port_speed's default on an old kernel", .release = 62,
	  .ioctl_errno = EPROTONOSUPPORT, .send = query_port_speed_send, .arg = 1,
	  .ret = EOPNOTSUPP, OM(DEVICE, QUERY_PORT_SPEED), .nattrs = 2 },
	{ "export_dmabuf_fd", .release = 62, .answers = { ANS_OBJ(ALLOC_DMABUF_HANDLE, 23) },
	  .send = export_dmabuf_fd_send, .ret = 23, OM(DMABUF, DMABUF_ALLOC), .nattrs = 2,
	  .attrs = { A_U64(ALLOC_DMABUF_PGOFF, 5) } },
	{ "export_dmabuf_fd unsupported", .release = 62, .ioctl_errno = EOPNOTSUPP,
	  .send = export_dmabuf_fd_send, .ret = -1, .err = EOPNOTSUPP, OM(DMABUF, DMABUF_ALLOC),
	  .nattrs = 2 },
	{ "get_context without fds: the write", .release = 57, .send = get_context_send,
	  .nattrs = ANY_SENT, .x = { X(nwrites, 1), X(IBCTX.async_fd, 5) } },
	{ "get_context_34: the write", .release = 57, .send = get_context_send, .arg = 3,
	  .nattrs = ANY_SENT, .x = { X(nwrites, 1), X(IBCTX.async_fd, 5) } },
	/* the last ioctl made the async fd; the provider's copy of the core
	 * reply is filled too */
	{ "get_context with fds: two ioctls", .release = 57, .send = get_context_send, .arg = 1,
	  .answers = { ANS_U32_OF(UVERBS_OBJECT_DEVICE, GET_CONTEXT_NUM_COMP_VECTORS, 4),
		       ANS_U64_OF(UVERBS_OBJECT_DEVICE, GET_CONTEXT_CORE_SUPPORT, 1),
		       ANS_OBJ_OF(UVERBS_OBJECT_ASYNC_EVENT, ASYNC_EVENT_ALLOC_FD_HANDLE, 61) },
	  .nattrs = ANY_SENT,
	  .x = { X(nwrites, 0), X(nioctls, 2), X(rec.hdr.object_id, UVERBS_OBJECT_ASYNC_EVENT),
		 X(rec.hdr.method_id, UVERBS_METHOD_ASYNC_EVENT_ALLOC), X(IBCTX.async_fd, 61),
		 X(IBCTX.num_comp_vectors, 4), X(the_ctx.core.core_support, 1),
		 X(io.gresp.core.async_fd, 61), X(io.gresp.core.num_comp_vectors, 4) } },
	{ "get_context with missing fds", .release = 57, .send = get_context_send, .arg = 2,
	  .ret = EINVAL },
	/* 12 bytes: by address (8 or fewer would be inline) */
	{ "the GET_CONTEXT ioctl", .release = 65, .ioctl_errno = EOPNOTSUPP,
	  .send = get_context_ioctl_send, .ret = EOPNOTSUPP, OM(DEVICE, GET_CONTEXT),
	  .nattrs = 5,
	  .attrs = { A_LEN(GET_CONTEXT_FD_ARR, 3 * sizeof(int)),
		     A_PTR(GET_CONTEXT_FD_ARR, io.fds), A_DATA(UHW_IN, 0x55),
		     A_OUT(UHW_OUT, &io.u64[1], 8) } },
	{ "create_cq_ex2 without driver attributes: the write", .release = 56,
	  .send = create_cq_ex2_send,
	  .x = { X(nwrites, 1), X(io.cq.cq.handle, 0x21), X(io.cq.cq.cqe, 255),
		 XCTX(io.cq.cq.context) },
	  .check = create_cq_ex2_write_check },
	/* the provider's 8 bytes inline, its reply room by address */
	{ "create_cq_ex2 with a driver attribute: the ioctl", .release = 56, .arg = 1,
	  .answers = { ANS_OBJ(CREATE_CQ_HANDLE, 0x22), ANS_U32(CREATE_CQ_RESP_CQE, 511),
		       ANS_U64(UHW_OUT, 0xfeed) },
	  .send = create_cq_ex2_send, OM(CQ, CQ_CREATE), .nattrs = 11,
	  .attrs = { A_U32(CREATE_CQ_CQE, 200), A_U64P(CREATE_CQ_USER_HANDLE, &io.cq.cq),
		     A_U32(CREATE_CQ_COMP_VECTOR, 1),
		     A_U32(CREATE_CQ_FLAGS, IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION),
		     A_U32(DRV_NS(2), 3), A_DATA(CREATE_CQ_COMP_CHANNEL, 33),
		     A_DATA(CREATE_CQ_EVENT_FD, 44), A_FLAGS(CREATE_CQ_EVENT_FD, 0),
		     A_LEN(UHW_IN, 8), A_DATA(UHW_IN, 0x1122334455667788ULL),
		     A_OUT(UHW_OUT, &io.cqresp.drv, 8) },
	  .x = { X(nwrites, 0), X(io.cqresp.drv, 0xfeed), X(io.cq.cq.handle, 0x22),
		 X(io.cq.cq.cqe, 511), XP(io.cq.cq.channel, &io.ch) },
	  .check = cq_mutex_check },
	{ "create_cq_ex2: the kernel's error", .release = 56, .ioctl_errno = EINVAL,
	  .send = create_cq_ex2_send, .arg = 1, .ret = EINVAL, OM(CQ, CQ_CREATE), .nattrs = 11,
	  .x = { X(io.cq.cq.handle, 0) } },
	/* attributes the kernel cannot take */
	{ "create_cq_ex2 with an unknown comp_mask", .release = 56, .send = create_cq_ex2_send,
	  .arg = 2, .ret = EOPNOTSUPP },
	{ "create_cq_ex with the provider's buffer", .release = 59,
	  .answers = { ANS_OBJ(CREATE_CQ_HANDLE, 0x42), ANS_U32(CREATE_CQ_RESP_CQE, 63) },
	  .send = create_cq_ex_send, .arg = 1, OM(CQ, CQ_CREATE), .nattrs = 10,
	  .attrs = { A_U64P(CREATE_CQ_BUFFER_VA, io.ring),
		     A_U64(CREATE_CQ_BUFFER_LENGTH, sizeof(io.ring)) },
	  .x = { X(nwrites, 0), X(io.cq.cq.handle, 0x42) } },
	{ "create_cq_ex2 with a dma-buf", .release = 59,
	  .answers = { ANS_OBJ(CREATE_CQ_HANDLE, 0x42), ANS_U32(CREATE_CQ_RESP_CQE, 63) },
	  .send = create_cq_ex_send, .arg = 2, OM(CQ, CQ_CREATE), .nattrs = 11,
	  .attrs = { A_DATA(CREATE_CQ_BUFFER_FD, 77), A_U64(CREATE_CQ_BUFFER_OFFSET, 4096),
		     A_U64(CREATE_CQ_BUFFER_LENGTH, 8192) } },
	{ "create_cq_ex with a buffer flag, no buffer", .release = 59,
	  .send = create_cq_ex_send, .arg = 3, .ret = EINVAL },
	{ "create_cq_ex without a buffer: the write", .release = 59, .send = create_cq_ex_send,
	  .x = { X(nwrites, 1), X(io.cq.cq.handle, 0x41) } },
	/* a 34-58 provider has no such flags: an unknown bit is not read
	 * as one */
	{ "create_cq_ex_34 with an unknown flag: the write", .release = 59,
	  .send = create_cq_ex_send, .arg = 4, .x = { X(nwrites, 1) } },
	{ "create_qp_ex2 with driver attributes", .release = 64, .send = create_qp_ex2_send,
	  .ret = EOPNOTSUPP, .x = { X(nwrites, 0) } },
	{ "alloc_dmah", .release = 59, .arg = DMAH_ALL,
	  .answers = { ANS_OBJ(ALLOC_DMAH_HANDLE, 0x19) }, .send = alloc_dmah_send,
	  OM(DMAH, DMAH_ALLOC), .nattrs = 4,
	  .attrs = { A_U32(ALLOC_DMAH_CPU_ID, 3), A_LEN(ALLOC_DMAH_PH, 1),
		     A_DATA(ALLOC_DMAH_PH, 2),
		     A_ELEM(ALLOC_DMAH_TPH_MEM_TYPE, IBV_TPH_MEM_TYPE_PM) },
	  .x = { X(io.dmah.handle, 0x19), XCTX(io.dmah.dmah.context) } },
	/* only what the mask names */
	{ "alloc_dmah of a CPU only", .release = 59, .arg = IBV_DMAH_INIT_ATTR_MASK_CPU_ID,
	  .answers = { ANS_OBJ(ALLOC_DMAH_HANDLE, 0x19) }, .send = alloc_dmah_send,
	  OM(DMAH, DMAH_ALLOC), .nattrs = 2 },
	{ "free_dmah", .release = 59, .send = destroy_send, OM(DMAH, DMAH_FREE), .nattrs = 1,
	  .attrs = { A_OBJ(FREE_DMA_HANDLE, 0x19) } },
	{ "query_comp_cntr_caps", .release = 65, .arg = sizeof(struct ibv_comp_cntr_caps),
	  .answers = { ANS_U32(QUERY_COMP_CNTR_CAPS_MAX_COUNTERS, 8),
		       ANS_U64(QUERY_COMP_CNTR_CAPS_MAX_VALUE, 1ULL << 40),
		       ANS_U32(QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS, 0x3) },
	  .send = query_comp_cntr_caps_send, OM(DEVICE, QUERY_COMP_CNTR_CAPS), .nattrs = 3,
	  .x = { X(io.caps.max_counters, 8), X(io.caps.max_value, 1ULL << 40),
		 X(io.caps.supported_qp_attach_ops, CNTR_OPS) } },
	{ "query_comp_cntr_caps into a short struct", .release = 65, .arg = 8,
	  .send = query_comp_cntr_caps_send, .ret = EINVAL },
	{ "create_comp_cntr", .release = 65,
	  .answers = { ANS_OBJ(CREATE_COMP_CNTR_HANDLE, 0x2a) }, .send = create_comp_cntr_send,
	  OM(COMP_CNTR, COMP_CNTR_CREATE), .nattrs = 1,
	  .x = { X(io.cc.handle, 0x2a), XCTX(io.cc.context) } },
	{ "inc_err_comp_cntr", .release = 65, .send = comp_cntr_send, .arg = 0,
	  OM(COMP_CNTR, COMP_CNTR_MODIFY), .nattrs = 4,
	  .attrs = { A_OBJ(MODIFY_COMP_CNTR_HANDLE, 0x2a),
		     A_U64(MODIFY_COMP_CNTR_ENTRY, IB_UVERBS_COMP_CNTR_ENTRY_ERR),
		     A_U64(MODIFY_COMP_CNTR_OP, IB_UVERBS_COMP_CNTR_MODIFY_OP_INC),
		     A_U64(MODIFY_COMP_CNTR_VALUE, 3) } },
	{ "set_comp_cntr", .release = 65, .send = comp_cntr_send, .arg = 1,
	  OM(COMP_CNTR, COMP_CNTR_MODIFY), .nattrs = 4,
	  .attrs = { A_U64(MODIFY_COMP_CNTR_ENTRY, IB_UVERBS_COMP_CNTR_ENTRY_COMP),
		     A_U64(MODIFY_COMP_CNTR_OP, IB_UVERBS_COMP_CNTR_MODIFY_OP_SET) } },
	{ "read_err_comp_cntr", .release = 65, .send = comp_cntr_send, .arg = 2,
	  .answers = { ANS_U64(READ_COMP_CNTR_RESP_VALUE, 77) }, OM(COMP_CNTR, COMP_CNTR_READ),
	  .nattrs = 3, .attrs = { A_U64(READ_COMP_CNTR_ENTRY, IB_UVERBS_COMP_CNTR_ENTRY_ERR) },
	  .x = { X(io.u64[0], 77) } },
	{ "qp_attach_comp_cntr", .release = 65, .send = comp_cntr_send, .arg = 3,
	  OM(QP, QP_ATTACH_COMP_CNTR), .nattrs = 3,
	  .attrs = { A_OBJ(QP_ATTACH_COMP_CNTR_HANDLE, 4),
		     A_OBJ(QP_ATTACH_COMP_CNTR_CNTR_HANDLE, 0x2a),
		     A_U32(QP_ATTACH_COMP_CNTR_OP_MASK, 0x5) } },
	{ "destroy_comp_cntr", .release = 65, .send = destroy_send,
	  OM(COMP_CNTR, COMP_CNTR_DESTROY), .nattrs = 1 },
	/* a kernel without counters (every kernel of 2026) */
	{ "create_comp_cntr on an old kernel", .release = 65, .ioctl_errno = EPROTONOSUPPORT,
	  .send = create_comp_cntr_send, .ret = EPROTONOSUPPORT,
	  OM(COMP_CNTR, COMP_CNTR_CREATE), .nattrs = 1 },
};

START_TEST(ioctl_command)
{
	const struct ioctl_case *c = &ioctl_cases[_i];
	const struct acheck *a;
	int ret, err;

	cur = c->name;
	io_prepare(c);
	if (c->release)
		use_release(c->release);
	ioctl_errno = c->ioctl_errno;
	while (c->answers[nanswers].bytes || c->answers[nanswers].obj) {
		answers[nanswers] = c->answers[nanswers];
		nanswers++;
	}
	errno = 0;
	ret = c->send();
	err = errno;
	ck_assert_msg(ret == c->ret, "%s: returned %d, not %d", cur, ret,
		      c->ret);
	if (c->err)
		ck_assert_msg(err == c->err, "%s: errno %d, not %d", cur, err,
			      c->err);
	if (c->nattrs == NOT_SENT)
		ck_assert_msg(nioctls == 0, "%s: %d ioctls sent", cur, nioctls);
	else if (c->nattrs != ANY_SENT)
		assert_rec(c->object, c->method, c->nattrs);
	for (a = c->attrs; a->kind; a++)
		assert_attr(a);
	assert_x(c->x);
	if (c->check)
		c->check();
}
END_TEST

START_TEST(destroy_of_a_dead_device)
{
	struct verbs_dm dm = { .dm = { .context = ibctx } };
	struct verbs_counters c = { .counters = { .context = ibctx } };
	struct verbs_flow_action fa = { .action = { .context = ibctx } };

	ioctl_errno = EIO;
	ck_assert_int_eq(ibv_cmd_free_dm(&dm), EIO);
	ck_assert_int_eq(ibv_cmd_destroy_counters(&c), EIO);
	ck_assert_int_eq(ibv_cmd_destroy_flow_action(&fa), EIO);
	/* RDMAV_ALLOW_DISASSOC_DESTROY: the objects are gone anyway */
	verbs_allow_disassociate_destroy = true;
	ck_assert_int_eq(ibv_cmd_free_dm(&dm), 0);
	ck_assert_int_eq(ibv_cmd_destroy_counters(&c), 0);
	ck_assert_int_eq(ibv_cmd_destroy_flow_action(&fa), 0);
	/* only EIO means that */
	ioctl_errno = EBUSY;
	ck_assert_int_eq(ibv_cmd_free_dm(&dm), EBUSY);
}
END_TEST

/* ---- write commands, as a table ------------------------------------------------------------
 * Each case: a provider's call (send, which builds its input), what it
 * returns, the command the fake kernel received (its header, then each
 * field at its offset in the request) and what lands in the provider's
 * objects (x, then check for the rest). One test runs them all
 * (write_command_layout); what a command refuses, and what an older
 * provider's struct gets, follow as tests of their own. */

/* one field of the recorded command: a value, or an address (ptr) */
struct wfield {
	uint16_t off;
	uint8_t width;          /* bytes: 1, 2, 4 or 8; 0 ends the list */
	uint64_t val;
	const void *ptr;
};
#define F8(off, val) { (off), 1, (val), NULL }
#define F16(off, val) { (off), 2, (val), NULL }
#define F32(off, val) { (off), 4, (val), NULL }
#define F64(off, val) { (off), 8, (val), NULL }
#define FPTR(off, p) { (off), 8, 0, (p) }

enum hdr_kind { HDR_NONE, HDR_LEGACY, HDR_EX };

/* the header a case checks: legacy (4-byte words), extended (8-byte
 * words, core then the provider's), or none */
#define LEGACY(cmd, in, out) HDR_LEGACY, IB_USER_VERBS_CMD_##cmd, in, out, 0, 0
#define EX(cmd, in, out, drv_in, drv_out) \
	HDR_EX, IB_USER_VERBS_EX_CMD_##cmd, in, out, drv_in, drv_out
#define NO_HDR HDR_NONE, 0, 0, 0, 0, 0

struct write_case {
	const char *name;
	int (*send)(void);
	int ret;
	enum hdr_kind hdr;      /* which header to check (HDR_NONE: none) */
	uint32_t command;
	/* header words: legacy 4-byte in/out; extended 8-byte core in/out,
	 * then the provider's in/out */
	unsigned int in, out, drv_in, drv_out;
	struct wfield fields[32];
	struct xcheck x[20];
	void (*check)(void);
};

/* -- XRC domains -- */

static struct xrcd_case {
	struct PV_CMD(8 + 16) cmd;
	struct {
		uint32_t xrcd_handle;
		uint32_t drv;
	} resp;
	struct ibv_xrcd_init_attr attr;
	struct verbs_xrcd xrcd;
} ox;

static void open_xrcd_prepare(void)
{
	static const uint32_t r[2] = { 0x21, 0xabcd };

	ox = (struct xrcd_case){
		.cmd.drv = 0x1122334455667788ULL,
		.attr = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
				       IBV_XRCD_INIT_ATTR_OFLAGS,
			  .fd = 12, .oflags = O_CREAT },
	};
	set_wreply(r, sizeof(r));
}

static int open_xrcd_call(size_t xrcd_sz, size_t cmd_sz, size_t resp_sz)
{
	return ibv_cmd_open_xrcd(ibctx, &ox.xrcd, xrcd_sz, &ox.attr, &ox.cmd,
				 cmd_sz, &ox.resp, resp_sz);
}

static int open_xrcd_send(void)
{
	open_xrcd_prepare();
	return open_xrcd_call(sizeof(ox.xrcd), sizeof(ox.cmd), sizeof(ox.resp));
}

static void response_given_check(void)
{
	EQ(u64_at(wcmd, 8) != 0, 1);
}

static struct verbs_xrcd cx;

static void close_xrcd_prepare(void)
{
	cx = (struct verbs_xrcd){ .xrcd = { .context = ibctx }, .handle = 0x21 };
}

static int close_xrcd_send(void)
{
	close_xrcd_prepare();
	return ibv_cmd_close_xrcd(&cx);
}

/* -- MRs and CQs -- */

static struct rereg_case {
	struct PV_CMD(8 + 48) cmd;
	struct {
		uint32_t lkey, rkey;
		uint64_t drv;
	} resp;
	struct ibv_context other;
	struct ibv_pd pd2;
	struct verbs_mr vmr;
	char buf[256];
} rr;

static void rereg_mr_prepare(void)
{
	static const uint32_t r[4] = { 0x500, 0x600, 0x77, 0x88 };

	rr = (struct rereg_case){
		.cmd.drv = 0xd0d0,
		.pd2 = { .context = &rr.other, .handle = 4 },
		.vmr.ibv_mr = { .context = ibctx, .handle = 0x13 },
	};
	set_wreply(r, sizeof(r));
}

static int rereg_mr_send(void)
{
	rereg_mr_prepare();
	return ibv_cmd_rereg_mr(&rr.vmr, IBV_REREG_MR_CHANGE_TRANSLATION |
					       IBV_REREG_MR_CHANGE_PD,
				rr.buf, sizeof(rr.buf), 0x9000,
				IBV_ACCESS_LOCAL_WRITE, &rr.pd2, &rr.cmd,
				sizeof(rr.cmd), &rr.resp, sizeof(rr.resp));
}

static struct modify_cq_case {
	struct PV_CMD(24 + 16) cmd;
	struct ibv_modify_cq_attr attr;
	struct ibv_cq cq;
} mc;

static void modify_cq_prepare(void)
{
	mc = (struct modify_cq_case){
		.cmd.drv = 0xcafe,
		.attr = { .attr_mask = IBV_CQ_ATTR_MODERATE,
			  .moderate = { .cq_count = 16, .cq_period = 100 } },
		.cq = { .context = ibctx, .handle = 8 },
	};
}

static int modify_cq_send(void)
{
	modify_cq_prepare();
	return ibv_cmd_modify_cq(&mc.cq, &mc.attr, &mc.cmd, sizeof(mc.cmd));
}

/* -- QPs -- */

/* a provider's create_qp request and response with 8 bytes each */
struct pv_create_qp PV_CMD(8 + 56);
struct pv_create_qp_resp PV_RESP(struct ib_uverbs_create_qp_resp);

static struct create_qp_case {
	struct pv_create_qp cmd;
	struct pv_create_qp_resp resp;
	struct ibv_pd pd;
	struct ibv_cq scq, rcq;
	struct ibv_srq srq;
	struct verbs_xrcd xrcd;
	struct ibv_qp_init_attr_ex attr;
	struct qp44 qp;
	int x;
} qrc;

/* into qp: qrc.qp, or a verbs_qp of another generation */
static int create_qp_ex_call(void *qp)
{
	return ibv_cmd_create_qp_ex(ibctx, qp, &qrc.attr, &qrc.cmd,
				    sizeof(qrc.cmd), &qrc.resp, sizeof(qrc.resp));
}

static int create_qp_ex_rc_send(void)
{
	const struct ib_uverbs_create_qp_resp r = {
		.qp_handle = 0x30, .qpn = 0x1234, .max_send_wr = 128,
		.max_recv_wr = 256, .max_send_sge = 4, .max_recv_sge = 5,
		.max_inline_data = 64,
	};
	uint8_t reply[40];

	qrc = (struct create_qp_case){
		.cmd.drv = 0xaaaabbbbccccddddULL,
		.pd = { .context = ibctx, .handle = 2 },
		.scq.handle = 6, .rcq.handle = 7, .srq.handle = 9,
	};
	qrc.attr = (struct ibv_qp_init_attr_ex){
		.qp_context = &qrc.x, .send_cq = &qrc.scq,
		.recv_cq = &qrc.rcq, .srq = &qrc.srq,
		.cap = { .max_send_wr = 100, .max_recv_wr = 200,
			 .max_send_sge = 3, .max_recv_sge = 4,
			 .max_inline_data = 32 },
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = &qrc.pd,
	};
	memcpy(reply, &r, sizeof(r));
	memcpy(reply + 32, "DRIVERRR", 8);
	set_wreply(reply, sizeof(reply));
	memset(&qrc.qp, 0xff, sizeof(qrc.qp));
	return create_qp_ex_call(&qrc.qp);
}

static void create_qp_ex_rc_check(void)
{
	EQ(pthread_mutex_trylock(&qrc.qp.qp.mutex), 0);
	pthread_mutex_unlock(&qrc.qp.qp.mutex);
}

/* pd 2, send CQ 6, domain 0x44 */
static void create_qp_ex_prepare(enum ibv_qp_type type)
{
	static const struct ib_uverbs_create_qp_resp r = {
		.qp_handle = 0x31, .qpn = 0x99,
	};

	qrc = (struct create_qp_case){
		.cmd.drv = 1, .pd = { .context = ibctx, .handle = 2 },
		.scq.handle = 6, .xrcd.handle = 0x44,
		.attr.qp_type = type,
	};
	set_wreply(&r, sizeof(r));
}

/* RC: both CQs 6 */
static void create_qp_ex_rc_prepare(void)
{
	create_qp_ex_prepare(IBV_QPT_RC);
	qrc.attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	qrc.attr.pd = &qrc.pd;
	qrc.attr.send_cq = qrc.attr.recv_cq = &qrc.scq;
}

/* receive side: the domain's handle where the PD's goes */
static int create_qp_ex_xrc_recv_send(void)
{
	create_qp_ex_prepare(IBV_QPT_XRC_RECV);
	qrc.attr.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	qrc.attr.xrcd = &qrc.xrcd.xrcd;
	return create_qp_ex_call(&qrc.qp);
}

/* send side: no receive queue, whatever the caller asked */
static int create_qp_ex_xrc_send_send(void)
{
	create_qp_ex_prepare(IBV_QPT_XRC_SEND);
	qrc.attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	qrc.attr.pd = &qrc.pd;
	qrc.attr.send_cq = &qrc.scq;
	qrc.attr.cap.max_recv_wr = 10;
	qrc.attr.cap.max_recv_sge = 2;
	qrc.qp.comp_mask = VERBS_QP_XRCD; /* what a receive side left */
	return create_qp_ex_call(&qrc.qp);
}

static struct open_qp_case {
	struct PV_CMD(8 + 32) cmd;
	struct ib_uverbs_create_qp_resp resp;
	struct verbs_xrcd xrcd;
	struct ibv_qp_open_attr attr;
	struct qp44 qp;
	int x;
} oq;

static void open_qp_prepare(void)
{
	static const struct ib_uverbs_create_qp_resp r = { .qp_handle = 0x70 };

	oq = (struct open_qp_case){ .cmd.drv = 0x5151, .xrcd.handle = 0x45 };
	oq.attr = (struct ibv_qp_open_attr){
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
			     IBV_QP_OPEN_ATTR_TYPE | IBV_QP_OPEN_ATTR_CONTEXT,
		.xrcd = &oq.xrcd.xrcd, .qp_num = 0xabc,
		.qp_type = IBV_QPT_XRC_RECV, .qp_context = &oq.x,
	};
	set_wreply(&r, sizeof(r));
	memset(&oq.qp, 0xff, sizeof(oq.qp));
}

/* into qp: oq.qp, or a verbs_qp of another generation */
static int open_qp_call(void *qp, size_t qp_sz)
{
	return ibv_cmd_open_qp(ibctx, qp, qp_sz, &oq.attr, &oq.cmd,
			       sizeof(oq.cmd), &oq.resp, sizeof(oq.resp));
}

static int open_qp_send(void)
{
	open_qp_prepare();
	return open_qp_call(&oq.qp, sizeof(oq.qp));
}

static void open_qp_check(void)
{
	EQ(pthread_mutex_trylock(&oq.qp.qp.mutex), 0);
	pthread_mutex_unlock(&oq.qp.qp.mutex);
}

#define MODIFY_QP_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_RATE_LIMIT)

static struct modify_qp_case {
	struct PV_CMD(24 + 120) cmd;
	struct PV_RESP(struct ib_uverbs_ex_modify_qp_resp) resp;
	struct ibv_qp qp;
	struct ibv_qp_attr attr;
} mq;

static void modify_qp_ex_prepare(void)
{
	static const uint32_t r[4] = { 0, 8, 0x12, 0x34 };

	mq = (struct modify_qp_case){
		.cmd.drv = 0x7e7e, .qp = { .context = ibctx, .handle = 0x0e },
		.attr = {
			.qp_state = IBV_QPS_RTR,
			.ah_attr = { .dlid = 0x33, .is_global = 1, .port_num = 1,
				     .grh = { .dgid.raw[0] = 0xfe,
					      .sgid_index = 2 } },
			.qkey = 0x1111,         /* not in the mask: not sent */
			.port_num = 3,          /* idem */
			.rate_limit = 1000,
		},
	};
	set_wreply(r, sizeof(r));
}

static int modify_qp_ex_send(void)
{
	modify_qp_ex_prepare();
	return ibv_cmd_modify_qp_ex(&mq.qp, &mq.attr, MODIFY_QP_MASK, &mq.cmd,
				    sizeof(mq.cmd), &mq.resp, sizeof(mq.resp));
}

/* -- WQs and indirection tables -- */

static struct create_wq_case {
	struct PV_CMD(24 + 40) cmd;
	struct PV_RESP(struct ib_uverbs_ex_create_wq_resp) resp;
	struct ibv_pd pd;
	struct ibv_cq cq;
	struct ibv_wq_init_attr attr;
	struct ibv_wq wq;
} cw;

static void create_wq_prepare(void)
{
	const struct ib_uverbs_ex_create_wq_resp r = {
		.response_length = 24, .wq_handle = 0x19, .max_wr = 512,
		.max_sge = 2, .wqn = 0x400,
	};
	uint8_t reply[32];

	cw = (struct create_wq_case){
		.cmd.drv = 0x3c3c, .pd.handle = 2, .cq.handle = 6,
		.attr = { .wq_type = IBV_WQT_RQ, .max_wr = 500, .max_sge = 1,
			  .pd = &cw.pd, .cq = &cw.cq,
			  .comp_mask = IBV_WQ_INIT_ATTR_FLAGS,
			  .create_flags = IBV_WQ_FLAGS_CVLAN_STRIPPING },
	};
	memcpy(reply, &r, sizeof(r));
	memcpy(reply + 24, "WQDRIVER", 8);
	set_wreply(reply, sizeof(reply));
}

static int create_wq_call(void)
{
	return ibv_cmd_create_wq(ibctx, &cw.attr, &cw.wq, &cw.cmd,
				 sizeof(cw.cmd), &cw.resp, sizeof(cw.resp));
}

static int create_wq_send(void)
{
	create_wq_prepare();
	return create_wq_call();
}

#define MODIFY_WQ_MASK (IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE | \
			IBV_WQ_ATTR_FLAGS)

static struct modify_wq_case {
	uint8_t cmd[24 + 24];
	struct ibv_wq_attr attr;
	struct ibv_wq wq;
} mw;

static void modify_wq_prepare(void)
{
	mw = (struct modify_wq_case){
		.wq = { .context = ibctx, .handle = 0x19,
			.state = IBV_WQS_RESET },
		.attr = { .attr_mask = MODIFY_WQ_MASK, .wq_state = IBV_WQS_RDY,
			  .curr_wq_state = IBV_WQS_RESET,
			  .flags = IBV_WQ_FLAGS_SCATTER_FCS,
			  .flags_mask = IBV_WQ_FLAGS_SCATTER_FCS },
	};
}

static int modify_wq_send(void)
{
	modify_wq_prepare();
	return ibv_cmd_modify_wq(&mw.wq, &mw.attr, mw.cmd, sizeof(mw.cmd));
}

/* destroy returns once every reported event was acknowledged */
static void destroy_wq_prepare(void)
{
	static const uint32_t r[4] = { 0, 16, 3, 0 }; /* three events */

	modify_wq_prepare();
	pthread_mutex_init(&mw.wq.mutex, NULL);
	pthread_cond_init(&mw.wq.cond, NULL);
	mw.wq.events_completed = 3;
	set_wreply(r, sizeof(r));
}

static int destroy_wq_send(void)
{
	destroy_wq_prepare();
	return ibv_cmd_destroy_wq(&mw.wq);
}

static struct rwq_case {
	struct ibv_wq wq[3];
	struct ibv_wq *tbl[4];
	struct ibv_rwq_ind_table_init_attr attr;
	struct PV_RESP(struct ib_uverbs_ex_create_rwq_ind_table_resp) resp;
	struct ibv_rwq_ind_table t;
} rw;

/* log_size: the table's; answer_len: the response_length answered */
static void rwq_ind_table_prepare(uint32_t log_size, uint32_t answer_len)
{
	const struct ib_uverbs_ex_create_rwq_ind_table_resp r = {
		.response_length = answer_len, .ind_tbl_handle = 0x5,
		.ind_tbl_num = 0x9,
	};
	uint8_t reply[24];

	rw = (struct rwq_case){
		.wq = { { .handle = 0x100 }, { .handle = 0x101 } },
		.tbl = { &rw.wq[0], &rw.wq[1], &rw.wq[2] },
		.attr = { .log_ind_tbl_size = log_size, .ind_tbl = rw.tbl },
	};
	memcpy(reply, &r, sizeof(r));
	memcpy(reply + 16, "RSSTABLE", 8);
	set_wreply(reply, sizeof(reply));
}

static int rwq_ind_table_call(void)
{
	return ibv_cmd_create_rwq_ind_table(ibctx, &rw.attr, &rw.t, &rw.resp,
					    sizeof(rw.resp));
}

/* comp_mask, log size, two handles: 16 bytes */
static int rwq_ind_table_send(void)
{
	rwq_ind_table_prepare(1, 16);
	return rwq_ind_table_call();
}

/* one entry: 12 bytes, padded to 16 */
static int rwq_ind_table_one_send(void)
{
	rwq_ind_table_prepare(0, 16);
	memset(wcmd, 0xee, sizeof(wcmd));
	return rwq_ind_table_call();
}

static int destroy_rwq_ind_table_send(void)
{
	rwq_ind_table_prepare(1, 16);
	rw.t.context = ibctx;
	rw.t.ind_tbl_handle = 0x5;
	return ibv_cmd_destroy_rwq_ind_table(&rw.t);
}

/* -- flows -- */

#define FLOW_SPECS (40 + 32 + 16 + 16 + 16)

static struct flow_case {
	uint64_t store[32];
	struct verbs_counters counters;
	struct ibv_qp qp;
	struct ibv_flow flow;
	uint64_t ucmd;
} cf;

/* An application's flow: the attributes, then the entries packed. */
static int create_flow_send(void)
{
	struct {
		struct ibv_flow_attr fa;
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_ipv4_ext ip;
		struct ibv_flow_spec_tcp_udp tcp;
		struct ibv_flow_spec_action_tag tag;
		struct ibv_flow_spec_counter_action count;
	} s;
	static const uint32_t r[2] = { 0, 0x3f };
	uint8_t *buf = (uint8_t *)cf.store;
	size_t k = 0;

	cf = (struct flow_case){
		.qp = { .context = ibctx, .handle = 0x2a },
		.ucmd = 0x0bad0bad, .counters.handle = 0x4c,
	};
	memset(&s, 0, sizeof(s));       /* the padding too */
	s.fa.type = IBV_FLOW_ATTR_NORMAL;
	s.fa.priority = 3;
	s.fa.num_of_specs = 5;
	s.fa.port = 1;
	s.fa.flags = IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
	s.eth.type = IBV_FLOW_SPEC_ETH;
	s.eth.size = sizeof(s.eth);
	memcpy(s.eth.val.dst_mac, "\x02\x00\x00\x00\x00\x01", 6);
	memset(s.eth.mask.dst_mac, 0xff, 6);
	s.eth.val.ether_type = 0x0008;
	s.eth.mask.ether_type = 0xffff;
	s.ip.type = IBV_FLOW_SPEC_IPV4_EXT | IBV_FLOW_SPEC_INNER;
	s.ip.size = sizeof(s.ip);
	s.ip.val.dst_ip = 0x0100000a;
	s.ip.mask.dst_ip = 0xffffffff;
	s.ip.val.proto = 6;
	s.ip.mask.proto = 0xff;
	s.tcp.type = IBV_FLOW_SPEC_TCP;
	s.tcp.size = sizeof(s.tcp);
	s.tcp.val.dst_port = 0x5000;
	s.tcp.mask.dst_port = 0xffff;
	s.tag.type = IBV_FLOW_SPEC_ACTION_TAG;
	s.tag.size = sizeof(s.tag);
	s.tag.tag_id = 0x7a;
	s.count.type = IBV_FLOW_SPEC_ACTION_COUNT;
	s.count.size = sizeof(s.count);
	s.count.counters = &cf.counters.counters;
#define PUT(spec) (memcpy(buf + k, &(spec), sizeof(spec)), k += sizeof(spec))
	PUT(s.fa), PUT(s.eth), PUT(s.ip), PUT(s.tcp), PUT(s.tag), PUT(s.count);
#undef PUT
	((struct ibv_flow_attr *)buf)->size = (uint16_t)k;
	set_wreply(r, sizeof(r));
	return ibv_cmd_create_flow(&cf.qp, &cf.flow, (struct ibv_flow_attr *)buf,
				   &cf.ucmd, sizeof(cf.ucmd));
}

static int destroy_flow_send(void)
{
	cf = (struct flow_case){ .flow = { .context = ibctx, .handle = 0x3f } };
	return ibv_cmd_destroy_flow(&cf.flow);
}

static struct {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_ipv6 ip6;
} f6;
static struct ibv_qp flow_qp;
static struct ibv_flow flow6;

static void flow_ipv6_prepare(void)
{
	flow_qp = (struct ibv_qp){ .context = ibctx, .handle = 1 };
	memset(&f6, 0, sizeof(f6));
	f6.attr.num_of_specs = 1;
	f6.ip6.type = IBV_FLOW_SPEC_IPV6;
	f6.ip6.size = sizeof(f6.ip6);
	f6.ip6.mask.hop_limit = 0xff;
}

/* 88 bytes: hop_limit is the last byte the kernel knows */
static int create_flow_ipv6_send(void)
{
	flow_ipv6_prepare();
	return ibv_cmd_create_flow(&flow_qp, &flow6, &f6.attr, NULL, 0);
}

/* -- the kernel-side data path -- */

static struct poll_cq_case {
	struct {
		uint32_t count, reserved;
		struct ib_uverbs_wc wc[2];
	} r;
	struct ibv_cq cq;
	struct ibv_wc wc[2];
} pc;

static void poll_cq_prepare(void)
{
	pc = (struct poll_cq_case){
		.cq = { .context = ibctx, .handle = 0x0c },
		.r = { .count = 1, .wc[0] = {
			.wr_id = 0x1234567890ULL, .status = IBV_WC_REM_ACCESS_ERR,
			.opcode = IBV_WC_RECV, .vendor_err = 0x99,
			.byte_len = 1500, .ex.imm_data = 0xabcdef01,
			.qp_num = 0x11, .src_qp = 0x22,
			.wc_flags = IBV_WC_WITH_IMM, .pkey_index = 3,
			.slid = 0x44, .sl = 5, .dlid_path_bits = 6 } },
	};
	set_wreply(&pc.r, sizeof(pc.r));
}

/* room for two: 8 + 2 * 48 bytes */
static int poll_cq_send(void)
{
	poll_cq_prepare();
	return ibv_cmd_poll_cq(&pc.cq, 2, pc.wc);
}

static struct post_send_case {
	struct ibv_sge s1[2], s2;
	struct ibv_send_wr w1, w2;
	struct ibv_qp qp;
	struct ibv_send_wr *bad;
} ps;

static const uint32_t no_bad, second_bad = 2;

static void post_send_rc_prepare(void)
{
	ps = (struct post_send_case){
		.s1 = { { 0x1000, 10, 0x11 }, { 0x2000, 20, 0x22 } },
		.s2 = { 0x3000, 30, 0x33 },
		.qp = { .context = ibctx, .handle = 0x0d, .qp_type = IBV_QPT_RC },
	};
	ps.w2 = (struct ibv_send_wr){
		.wr_id = 2, .sg_list = &ps.s2, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = 0xbbbb0000, .compare_add = 5,
			       .swap = 6, .rkey = 0x78 },
	};
	ps.w1 = (struct ibv_send_wr){
		.wr_id = 1, .next = &ps.w2, .sg_list = ps.s1, .num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .imm_data = 0x01020304,
		.wr.rdma = { .remote_addr = 0xaaaa0000, .rkey = 0x77 },
	};
	set_wreply(&no_bad, sizeof(no_bad));
}

static int post_send_rc_send(void)
{
	post_send_rc_prepare();
	return ibv_cmd_post_send(&ps.qp, &ps.w1, &ps.bad);
}

static struct post_send_ud_case {
	struct ibv_ah ah;
	struct ibv_sge sg;
	struct ibv_send_wr w;
	struct ibv_qp qp;
	struct ibv_send_wr *bad;
} pu;

static void post_send_ud_prepare(void)
{
	pu = (struct post_send_ud_case){
		.ah.handle = 0x5e, .sg = { 0x1000, 64, 1 },
		.qp = { .context = ibctx, .handle = 0x0d, .qp_type = IBV_QPT_UD },
	};
	pu.w = (struct ibv_send_wr){
		.wr_id = 9, .sg_list = &pu.sg, .num_sge = 1,
		.opcode = IBV_WR_SEND,
		.wr.ud = { .ah = &pu.ah, .remote_qpn = 0x123,
			   .remote_qkey = 0x11111111 },
	};
}

static int post_send_ud_send(void)
{
	post_send_ud_prepare();
	return ibv_cmd_post_send(&pu.qp, &pu.w, &pu.bad);
}

static struct post_recv_case {
	struct ibv_sge s1, s2[2];
	struct ibv_recv_wr w1, w2;
	struct ibv_qp qp;
	struct ibv_srq srq;
	struct ibv_recv_wr *bad;
} pr;

static void post_recv_prepare(void)
{
	pr = (struct post_recv_case){
		.s1 = { 0x1000, 10, 0x11 },
		.s2 = { { 0x2000, 20, 0x22 }, { 0x3000, 30, 0x33 } },
		.qp = { .context = ibctx, .handle = 0x0d },
		.srq = { .context = ibctx, .handle = 0x0f },
	};
	pr.w2 = (struct ibv_recv_wr){ .wr_id = 2, .sg_list = pr.s2, .num_sge = 2 };
	pr.w1 = (struct ibv_recv_wr){
		.wr_id = 1, .next = &pr.w2, .sg_list = &pr.s1, .num_sge = 1,
	};
}

static int post_recv_send(void)
{
	post_recv_prepare();
	return ibv_cmd_post_recv(&pr.qp, &pr.w1, &pr.bad);
}

static int post_srq_recv_send(void)
{
	post_recv_prepare();
	return ibv_cmd_post_srq_recv(&pr.srq, &pr.w1, &pr.bad);
}

/* -- the table -- */

static const struct write_case write_cases[] = {
	{ "open_xrcd with driver data", open_xrcd_send, 0, LEGACY(OPEN_XRCD, 8, 2),
	  .fields = { F32(16, 12) /* fd */, F32(20, O_CREAT),
		      F64(24, 0x1122334455667788ULL) /* driver trailer */ },
	  .x = { X(ox.resp.xrcd_handle, 0x21), X(ox.resp.drv, 0xabcd),
		 XCTX(ox.xrcd.xrcd.context), X(ox.xrcd.comp_mask, VERBS_XRCD_HANDLE),
		 X(ox.xrcd.handle, 0x21) },
	  .check = response_given_check },
	{ "close_xrcd", close_xrcd_send, 0, LEGACY(CLOSE_XRCD, 3, 0),
	  .fields = { F32(8, 0x21) } },
	{ "rereg_mr", rereg_mr_send, 0, LEGACY(REREG_MR, 16, 4),
	  .fields = { F32(16, 0x13) /* mr_handle */,
		      F32(20, IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_PD),
		      FPTR(24, rr.buf), F64(32, 256), F64(40, 0x9000) /* hca_va as given */,
		      F32(48, 4) /* pd_handle */, F32(52, IBV_ACCESS_LOCAL_WRITE),
		      F64(56, 0xd0d0) },
	  .x = { X(rr.vmr.ibv_mr.lkey, 0x500), X(rr.vmr.ibv_mr.rkey, 0x600),
		 X(rr.resp.lkey, 0x500), X(rr.resp.drv, 0x0000008800000077ULL),
		 XP(rr.vmr.ibv_mr.context, &rr.other) } },
	{ "modify_cq", modify_cq_send, 0, EX(MODIFY_CQ, 2, 0, 1, 0),
	  .fields = { F32(24, 8) /* cq_handle */, F32(28, IBV_CQ_ATTR_MODERATE), F16(32, 16),
		      F16(34, 100), F32(36, 0), F64(40, 0xcafe) } },
	/* the provider's response: core, then its part; the QP as
	 * rdma-core's core fills it; what the kernel granted */
	{ "create_qp_ex RC", create_qp_ex_rc_send, 0, LEGACY(CREATE_QP, 18, 10),
	  .fields = { FPTR(16, &qrc.qp.qp) /* user_handle */, F32(24, 2) /* pd */,
		      F32(28, 6) /* send cq */, F32(32, 7) /* recv cq */, F32(36, 9) /* srq */,
		      F32(40, 100), F32(44, 200), F32(48, 3), F32(52, 4), F32(56, 32),
		      F8(60, 1) /* sq_sig_all */, F8(61, IBV_QPT_RC), F8(62, 1) /* is_srq */,
		      F8(63, 0), F64(64, 0xaaaabbbbccccddddULL) },
	  .x = { X(qrc.resp.core.qp_handle, 0x30), XMEM(qrc.resp.drv, "DRIVERRR"),
		 XCTX(qrc.qp.qp.context), X(qrc.qp.qp.handle, 0x30),
		 X(qrc.qp.qp.qp_num, 0x1234), XP(qrc.qp.qp.qp_context, &qrc.x),
		 XP(qrc.qp.qp.pd, &qrc.pd), XP(qrc.qp.qp.send_cq, &qrc.scq),
		 XP(qrc.qp.qp.recv_cq, &qrc.rcq), XP(qrc.qp.qp.srq, &qrc.srq),
		 X(qrc.qp.qp.qp_type, IBV_QPT_RC), X(qrc.qp.qp.state, IBV_QPS_RESET),
		 X(qrc.qp.qp.events_completed, 0), X(qrc.qp.comp_mask, 0),
		 X(qrc.attr.cap.max_send_wr, 128), X(qrc.attr.cap.max_recv_wr, 256),
		 X(qrc.attr.cap.max_send_sge, 4), X(qrc.attr.cap.max_recv_sge, 5),
		 X(qrc.attr.cap.max_inline_data, 64) },
	  .check = create_qp_ex_rc_check },
	{ "create_qp_ex XRC receive", create_qp_ex_xrc_recv_send, 0, NO_HDR,
	  .fields = { F32(24, 0x44), F32(28, 0), F32(32, 0), F8(61, IBV_QPT_XRC_RECV) },
	  .x = { X(qrc.qp.comp_mask, VERBS_QP_XRCD), XP(qrc.qp.xrcd, &qrc.xrcd) } },
	{ "create_qp_ex XRC send", create_qp_ex_xrc_send_send, 0, NO_HDR,
	  .fields = { F32(28, 6), F32(32, 0), F32(44, 0), F32(52, 0) },
	  .x = { X(qrc.qp.comp_mask, 0) } },
	{ "open_qp", open_qp_send, 0, LEGACY(OPEN_QP, 12, 8),
	  .fields = { FPTR(16, &oq.qp), F32(24, 0x45), F32(28, 0xabc), F8(32, IBV_QPT_XRC_RECV),
		      F64(40, 0x5151) },
	  .x = { X(oq.resp.qp_handle, 0x70), X(oq.qp.qp.handle, 0x70),
		 X(oq.qp.qp.qp_num, 0xabc), XCTX(oq.qp.qp.context),
		 XP(oq.qp.qp.qp_context, &oq.x), XP(oq.qp.qp.pd, NULL),
		 XP(oq.qp.qp.send_cq, NULL), XP(oq.qp.qp.recv_cq, NULL), XP(oq.qp.qp.srq, NULL),
		 X(oq.qp.qp.state, IBV_QPS_UNKNOWN), X(oq.qp.qp.events_completed, 0),
		 X(oq.qp.comp_mask, VERBS_QP_XRCD), XP(oq.qp.xrcd, &oq.xrcd) },
	  .check = open_qp_check },
	{ "modify_qp_ex", modify_qp_ex_send, 0, EX(MODIFY_QP, 15, 1, 1, 1),
	  .fields = { F8(24, 0xfe) /* dest.dgid */, F16(24 + 20, 0x33) /* dest.dlid */,
		      F8(24 + 24, 2) /* sgid_index */, F8(24 + 30, 1) /* is_global */,
		      F8(24 + 31, 1) /* port_num */, F32(24 + 64, 0x0e) /* qp_handle */,
		      F32(24 + 68, MODIFY_QP_MASK), F32(24 + 72, 0) /* qkey: unmasked */,
		      F8(24 + 96, IBV_QPS_RTR), F8(24 + 104, 0) /* port: unmasked */,
		      F32(24 + 112, 1000) /* rate_limit */, F64(144, 0x7e7e) },
	  .x = { X(mq.resp.core.response_length, 8), X(mq.resp.drv, 0x0000003400000012ULL) } },
	{ "create_wq", create_wq_send, 0, EX(CREATE_WQ, 5, 3, 1, 1),
	  .fields = { F32(24, 0) /* comp_mask */, F32(28, IBV_WQT_RQ),
		      FPTR(32, &cw.wq) /* user_handle */, F32(40, 2), F32(44, 6), F32(48, 500),
		      F32(52, 1), F32(56, IBV_WQ_FLAGS_CVLAN_STRIPPING), F64(64, 0x3c3c) },
	  .x = { XMEM(cw.resp.drv, "WQDRIVER"), X(cw.resp.core.wq_handle, 0x19),
		 X(cw.wq.handle, 0x19), X(cw.wq.wq_num, 0x400), XCTX(cw.wq.context),
		 XP(cw.wq.pd, &cw.pd), XP(cw.wq.cq, &cw.cq), X(cw.wq.wq_type, IBV_WQT_RQ),
		 X(cw.attr.max_wr, 512), X(cw.attr.max_sge, 2) } },
	{ "modify_wq", modify_wq_send, 0, EX(MODIFY_WQ, 3, 0, 0, 0),
	  .fields = { F32(24, MODIFY_WQ_MASK), F32(28, 0x19), F32(32, IBV_WQS_RDY),
		      F32(36, IBV_WQS_RESET), F32(40, IBV_WQ_FLAGS_SCATTER_FCS),
		      F32(44, IBV_WQ_FLAGS_SCATTER_FCS) },
	  .x = { X(mw.wq.state, IBV_WQS_RDY) } },
	{ "destroy_wq", destroy_wq_send, 0, EX(DESTROY_WQ, 1, 2, 0, 0),
	  .fields = { F32(28, 0x19) } },
	{ "create_rwq_ind_table, two entries", rwq_ind_table_send, 0,
	  EX(CREATE_RWQ_IND_TBL, 2, 2, 0, 1),
	  .fields = { F32(24, 0), F32(28, 1), F32(32, 0x100), F32(36, 0x101) },
	  .x = { X(rw.t.ind_tbl_handle, 0x5), X(rw.t.ind_tbl_num, 0x9), XCTX(rw.t.context),
		 X(rw.resp.core.ind_tbl_handle, 0x5), XMEM(rw.resp.drv, "RSSTABLE") } },
	{ "create_rwq_ind_table, one entry", rwq_ind_table_one_send, 0,
	  EX(CREATE_RWQ_IND_TBL, 2, 2, 0, 1), .fields = { F32(32, 0x100), F32(36, 0) } },
	{ "destroy_rwq_ind_table", destroy_rwq_ind_table_send, 0,
	  EX(DESTROY_RWQ_IND_TBL, 1, 0, 0, 0), .fields = { F32(28, 0x5) } },
	/* each entry translated: eth 40 bytes (value then mask); IPv4 ext
	 * as the kernel's IPv4, inner kept, 32; TCP 16; the tag 12 bytes
	 * in verbs.h, 16 for the kernel; counters by their kernel handle */
	{ "create_flow", create_flow_send, 0, EX(CREATE_FLOW, (24 + FLOW_SPECS) / 8, 1, 1, 0),
	  .fields = { F32(24, 0) /* comp_mask */, F32(28, 0x2a) /* qp_handle */,
		      F32(32, IBV_FLOW_ATTR_NORMAL), F16(36, FLOW_SPECS) /* entries only */,
		      F16(38, 3) /* priority */, F8(40, 5) /* num_of_specs */,
		      F8(43, 1) /* port */, F32(44, IBV_FLOW_ATTR_FLAGS_DONT_TRAP),
		      F32(48, IBV_FLOW_SPEC_ETH), F16(48 + 4, 40), F16(48 + 8 + 12, 0x0008),
		      F8(48 + 24, 0xff) /* mask.dst_mac */,
		      F32(88, IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER), F16(88 + 4, 32),
		      F32(88 + 12, 0x0100000a), F8(88 + 16, 6), F32(88 + 20 + 4, 0xffffffff),
		      F8(88 + 20 + 8, 0xff), F32(120, IBV_FLOW_SPEC_TCP), F16(120 + 4, 16),
		      F16(120 + 8, 0x5000), F16(120 + 12, 0xffff),
		      F32(136, IBV_FLOW_SPEC_ACTION_TAG), F16(136 + 4, 16), F32(136 + 8, 0x7a),
		      F32(152, IBV_FLOW_SPEC_ACTION_COUNT), F32(152 + 8, 0x4c),
		      F64(168, 0x0bad0bad) /* driver trailer */ },
	  .x = { XMEM(wcmd[48 + 8], "\x02\x00\x00\x00\x00\x01"), X(cf.flow.handle, 0x3f),
		 XCTX(cf.flow.context) } },
	{ "destroy_flow", destroy_flow_send, 0, EX(DESTROY_FLOW, 1, 0, 0, 0),
	  .fields = { F32(28, 0x3f) } },
	{ "create_flow IPv6", create_flow_ipv6_send, 0, NO_HDR,
	  .fields = { F16(48 + 4, 88), F8(48 + 8 + 40 + 38, 0xff) } },
	{ "poll_cq", poll_cq_send, 1, LEGACY(POLL_CQ, 6, 26),
	  .fields = { F32(16, 0x0c), F32(20, 2) },
	  .x = { X(pc.wc[0].wr_id, 0x1234567890ULL), X(pc.wc[0].status, IBV_WC_REM_ACCESS_ERR),
		 X(pc.wc[0].opcode, IBV_WC_RECV), X(pc.wc[0].vendor_err, 0x99),
		 X(pc.wc[0].byte_len, 1500), X(pc.wc[0].imm_data, 0xabcdef01),
		 X(pc.wc[0].qp_num, 0x11), X(pc.wc[0].src_qp, 0x22),
		 X(pc.wc[0].wc_flags, IBV_WC_WITH_IMM), X(pc.wc[0].pkey_index, 3),
		 X(pc.wc[0].slid, 0x44), X(pc.wc[0].sl, 5), X(pc.wc[0].dlid_path_bits, 6),
		 X(pc.wc[1].wr_id, 0) /* untouched */ } },
	/* w: the header (24), then 56-byte work requests at 8 + 24, then
	 * every sge (24 + 2 * 56 bytes on), in order */
	{ "post_send RC", post_send_rc_send, 0,
	  LEGACY(POST_SEND, (8 + 24 + 2 * 56 + 3 * 16) / 4, 1),
	  .fields = { F32(16, 0x0d) /* qp_handle */, F32(20, 2) /* wr_count */,
		      F32(24, 3) /* sge_count */, F32(28, 56) /* wqe_size */, F64(32, 1),
		      F32(32 + 8, 2), F32(32 + 12, IBV_WR_RDMA_WRITE_WITH_IMM),
		      F32(32 + 20, 0x01020304), F64(32 + 24, 0xaaaa0000), F32(32 + 32, 0x77),
		      F64(32 + 56, 2), F32(32 + 56 + 16, IBV_SEND_SIGNALED),
		      F64(32 + 56 + 24, 0xbbbb0000), F64(32 + 56 + 32, 5), F64(32 + 56 + 40, 6),
		      F32(32 + 56 + 48, 0x78) },
	  .x = { XP(ps.bad, NULL), XMEMN(wcmd[8 + 136], ps.s1, sizeof(ps.s1)),
		 XMEMN(wcmd[8 + 136 + 32], &ps.s2, sizeof(ps.s2)) } },
	{ "post_send UD", post_send_ud_send, 0, NO_HDR,
	  .fields = { F32(32 + 24, 0x5e), F32(32 + 28, 0x123), F32(32 + 32, 0x11111111) } },
	{ "post_recv", post_recv_send, 0, LEGACY(POST_RECV, (8 + 24 + 2 * 16 + 3 * 16) / 4, 1),
	  .fields = { F32(16, 0x0d), F32(20, 2), F32(24, 3), F32(28, 16), F64(32, 1),
		      F32(40, 1), F64(48, 2), F32(56, 2) },
	  .x = { XMEMN(wcmd[64], &pr.s1, 16), XMEMN(wcmd[80], pr.s2, 32) } },
	{ "post_srq_recv", post_srq_recv_send, 0,
	  LEGACY(POST_SRQ_RECV, (8 + 24 + 2 * 16 + 3 * 16) / 4, 1), .fields = { F32(16, 0x0f) },
	  .x = { XMEMN(wcmd[80], pr.s2, 32) } },
};

START_TEST(write_command_layout)
{
	const struct write_case *c = &write_cases[_i];
	const struct wfield *f;
	int ret;

	cur = c->name;
	ret = c->send();
	ck_assert_msg(ret == c->ret, "%s: returned %d, not %d", cur, ret,
		      c->ret);
	if (c->hdr == HDR_LEGACY)
		assert_hdr(c->command, c->in, c->out);
	else if (c->hdr == HDR_EX)
		assert_ex_hdr(c->command, c->in, c->out, c->drv_in, c->drv_out);
	for (f = c->fields; f->width; f++) {
		uint64_t want = f->ptr ? (uintptr_t)f->ptr : f->val;

		ck_assert_msg(value_at(wcmd + f->off, f->width) == want,
			      "%s: the %u bytes at %u are 0x%llx, not 0x%llx",
			      cur, f->width, f->off,
			      (unsigned long long)value_at(wcmd + f->off,
							   f->width),
			      (unsigned long long)want);
	}
	assert_x(c->x);
	if (c->check)
		c->check();
}
END_TEST

/* ---- write commands: what they refuse, and older providers' structs ---------------- */

START_TEST(open_xrcd_old_struct_and_bad_input)
{
	open_xrcd_prepare();
	/* an old provider's struct without the handle */
	ck_assert_int_eq(open_xrcd_call(offsetof(struct verbs_xrcd, handle),
					sizeof(ox.cmd), sizeof(ox.resp)), 0);
	ck_assert_uint_eq(ox.xrcd.comp_mask, 0);
	ck_assert_uint_eq(ox.xrcd.handle, 0);

	/* bad input, nothing sent */
	nwrites = 0;
	ox.attr.comp_mask = IBV_XRCD_INIT_ATTR_RESERVED;
	ck_assert_int_eq(open_xrcd_call(sizeof(ox.xrcd), sizeof(ox.cmd),
					sizeof(ox.resp)), EOPNOTSUPP);
	ox.attr.comp_mask = IBV_XRCD_INIT_ATTR_FD;
	ck_assert_int_eq(open_xrcd_call(sizeof(ox.xrcd), sizeof(ox.cmd),
					sizeof(ox.resp)), EINVAL);
	/* provider buffers without room for the core parts */
	ox.attr.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	ck_assert_int_eq(open_xrcd_call(sizeof(ox.xrcd), 8 + 8,
					sizeof(ox.resp)), EINVAL);
	ck_assert_int_eq(open_xrcd_call(sizeof(ox.xrcd), sizeof(ox.cmd), 2),
			 EINVAL);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(close_xrcd_of_a_dead_device)
{
	close_xrcd_prepare();
	write_errno = EIO;
	ck_assert_int_eq(ibv_cmd_close_xrcd(&cx), EIO);
	verbs_allow_disassociate_destroy = true;
	ck_assert_int_eq(ibv_cmd_close_xrcd(&cx), 0);
}
END_TEST

START_TEST(rereg_mr_without_change_pd)
{
	rereg_mr_prepare();
	/* without CHANGE_PD the PD is not looked at */
	ck_assert_int_eq(ibv_cmd_rereg_mr(&rr.vmr, IBV_REREG_MR_CHANGE_ACCESS,
					  NULL, 0, 0, IBV_ACCESS_REMOTE_READ,
					  NULL, &rr.cmd, sizeof(rr.cmd),
					  &rr.resp, sizeof(rr.resp)), 0);
	ck_assert_uint_eq(u32_at(wcmd, 48), 0);
	ck_assert_ptr_eq(rr.vmr.ibv_mr.context, ibctx);
	nwrites = 0;
	ck_assert_int_eq(ibv_cmd_rereg_mr(&rr.vmr, IBV_REREG_MR_CHANGE_PD, NULL,
					  0, 0, 0, NULL, &rr.cmd,
					  sizeof(rr.cmd), &rr.resp,
					  sizeof(rr.resp)), EINVAL);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(modify_cq_bad_input)
{
	modify_cq_prepare();
	/* driver data of an extended command comes in 8-byte words */
	ck_assert_int_eq(ibv_cmd_modify_cq(&mc.cq, &mc.attr, &mc.cmd,
					   sizeof(mc.cmd) - 4), EINVAL);
	mc.attr.attr_mask = IBV_CQ_ATTR_RESERVED;
	ck_assert_int_eq(ibv_cmd_modify_cq(&mc.cq, &mc.attr, &mc.cmd,
					   sizeof(mc.cmd)), EINVAL);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(create_qp_ex_bad_input)
{
	create_qp_ex_rc_prepare();
	/* create flags are create_qp_ex2's */
	qrc.attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	errno = 0;
	ck_assert_int_eq(create_qp_ex_call(&qrc.qp), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	/* no PD in the mask */
	qrc.attr.comp_mask = 0;
	ck_assert_int_eq(create_qp_ex_call(&qrc.qp), EINVAL);
	/* no send CQ */
	qrc.attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	qrc.attr.send_cq = NULL;
	ck_assert_int_eq(create_qp_ex_call(&qrc.qp), EINVAL);
	/* XRC receive without a domain, and an unknown type */
	qrc.attr.send_cq = &qrc.scq;
	qrc.attr.qp_type = IBV_QPT_XRC_RECV;
	ck_assert_int_eq(create_qp_ex_call(&qrc.qp), EINVAL);
	qrc.attr.qp_type = (enum ibv_qp_type)77;
	ck_assert_int_eq(create_qp_ex_call(&qrc.qp), EINVAL);
	ck_assert_int_eq(nwrites, 0);
	/* the kernel's error */
	qrc.attr.qp_type = IBV_QPT_UD;
	write_errno = ENOMEM;
	ck_assert_int_eq(create_qp_ex_call(&qrc.qp), ENOMEM);
}
END_TEST

START_TEST(open_qp_old_struct_and_bad_input)
{
	open_qp_prepare();
	/* an old provider's verbs_qp ends before xrcd */
	ck_assert_int_eq(open_qp_call(&oq.qp, offsetof(struct qp44, xrcd)), 0);
	ck_assert_uint_eq(oq.qp.comp_mask, 0);

	nwrites = 0;
	oq.attr.comp_mask = IBV_QP_OPEN_ATTR_RESERVED;
	ck_assert_int_eq(open_qp_call(&oq.qp, sizeof(oq.qp)), EOPNOTSUPP);
	oq.attr.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE;
	ck_assert_int_eq(open_qp_call(&oq.qp, sizeof(oq.qp)), EINVAL);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(modify_qp_ex_too_short)
{
	modify_qp_ex_prepare();
	/* a command too short to hold a rate limit */
	ck_assert_int_eq(ibv_cmd_modify_qp_ex(&mq.qp, &mq.attr, MODIFY_QP_MASK,
					      &mq.cmd, 24 + 112, &mq.resp,
					      sizeof(mq.resp)), EINVAL);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(create_wq_flags_and_bad_input)
{
	create_wq_prepare();
	/* create flags count only with their comp_mask bit */
	cw.attr.comp_mask = 0;
	ck_assert_int_eq(create_wq_call(), 0);
	ck_assert_uint_eq(u32_at(wcmd, 56), 0);

	nwrites = 0;
	cw.attr.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
	cw.attr.create_flags = IBV_WQ_FLAGS_RESERVED;
	ck_assert_int_eq(create_wq_call(), EOPNOTSUPP);
	cw.attr.comp_mask = IBV_WQ_INIT_ATTR_RESERVED;
	ck_assert_int_eq(create_wq_call(), EINVAL);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(modify_wq_bad_input)
{
	modify_wq_prepare();
	mw.attr.attr_mask = IBV_WQ_ATTR_RESERVED;
	ck_assert_int_eq(ibv_cmd_modify_wq(&mw.wq, &mw.attr, mw.cmd,
					   sizeof(mw.cmd)), EINVAL);
	mw.attr.attr_mask = IBV_WQ_ATTR_FLAGS;
	mw.attr.flags_mask = IBV_WQ_FLAGS_RESERVED;
	ck_assert_int_eq(ibv_cmd_modify_wq(&mw.wq, &mw.attr, mw.cmd,
					   sizeof(mw.cmd)), EOPNOTSUPP);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

/* a dead device reports no events: nothing to wait for */
START_TEST(destroy_wq_of_a_dead_device)
{
	destroy_wq_prepare();
	mw.wq.events_completed = 1;
	write_errno = EIO;
	verbs_allow_disassociate_destroy = true;
	ck_assert_int_eq(ibv_cmd_destroy_wq(&mw.wq), 0);
	verbs_allow_disassociate_destroy = false;
	ck_assert_int_eq(ibv_cmd_destroy_wq(&mw.wq), EIO);
}
END_TEST

START_TEST(rwq_ind_table_short_answer_and_bad_input)
{
	/* a kernel answer too short to hold the table's handle */
	rwq_ind_table_prepare(0, 8);
	ck_assert_int_eq(rwq_ind_table_call(), EINVAL);

	/* bad input */
	nwrites = 0;
	rw.attr.log_ind_tbl_size = 2; /* four entries, the fourth NULL */
	ck_assert_int_eq(rwq_ind_table_call(), EINVAL);
	rw.attr.log_ind_tbl_size = 0;
	rw.attr.comp_mask = IBV_CREATE_IND_TABLE_RESERVED;
	ck_assert_int_eq(rwq_ind_table_call(), EINVAL);
	rw.attr.comp_mask = 0;
	rw.attr.log_ind_tbl_size = 31;
	ck_assert_int_eq(rwq_ind_table_call(), EINVAL);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(create_flow_bad_specs)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_ipv4_ext ip;
	} f4;

	flow_ipv6_prepare();
	/* a mask on a byte the kernel does not know (the filter's padding) */
	((uint8_t *)&f6.ip6.mask)[39] = 1;
	errno = 0;
	ck_assert_int_eq(ibv_cmd_create_flow(&flow_qp, &flow6, &f6.attr, NULL,
					     0), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* an IPv4 filter shorter than the kernel's minimum */
	memset(&f4, 0, sizeof(f4));
	f4.attr.num_of_specs = 1;
	f4.ip.type = IBV_FLOW_SPEC_IPV4_EXT;
	f4.ip.size = 8 + 2 * 8;
	ck_assert_int_eq(ibv_cmd_create_flow(&flow_qp, &flow6, &f4.attr, NULL,
					     0), EINVAL);
	/* unknown entries, and GRE has no inner variant */
	f4.ip.type = (enum ibv_flow_spec_type)0x77;
	ck_assert_int_eq(ibv_cmd_create_flow(&flow_qp, &flow6, &f4.attr, NULL,
					     0), EINVAL);
	f4.ip.type = (enum ibv_flow_spec_type)(IBV_FLOW_SPEC_GRE |
					       IBV_FLOW_SPEC_INNER);
	ck_assert_int_eq(ibv_cmd_create_flow(&flow_qp, &flow6, &f4.attr, NULL,
					     0), EINVAL);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(poll_cq_errors)
{
	poll_cq_prepare();
	write_errno = EINVAL;
	errno = 0;
	ck_assert_int_eq(ibv_cmd_poll_cq(&pc.cq, 2, pc.wc), -1);
	ck_assert_int_eq(errno, EINVAL);
	nwrites = 0;
	ck_assert_int_eq(ibv_cmd_poll_cq(&pc.cq, -1, pc.wc), -1);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(post_send_names_the_bad_request)
{
	post_send_rc_prepare();
	/* the kernel names the second request */
	set_wreply(&second_bad, sizeof(second_bad));
	write_errno = EINVAL;
	ck_assert_int_eq(ibv_cmd_post_send(&ps.qp, &ps.w1, &ps.bad), EINVAL);
	ck_assert_ptr_eq(ps.bad, &ps.w2);
	/* or fails before looking: the first */
	set_wreply(&no_bad, sizeof(no_bad));
	ps.bad = NULL;
	write_errno = ENOMEM;
	ck_assert_int_eq(ibv_cmd_post_send(&ps.qp, &ps.w1, &ps.bad), ENOMEM);
	ck_assert_ptr_eq(ps.bad, &ps.w1);
}
END_TEST

/* a UD send without an address handle */
START_TEST(post_send_ud_without_ah)
{
	post_send_ud_prepare();
	pu.w.wr.ud.ah = NULL;
	ck_assert_int_eq(ibv_cmd_post_send(&pu.qp, &pu.w, &pu.bad), EINVAL);
	ck_assert_ptr_eq(pu.bad, &pu.w);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

START_TEST(post_recv_names_the_bad_request)
{
	post_recv_prepare();
	set_wreply(&second_bad, sizeof(second_bad));
	write_errno = ENOMEM;
	ck_assert_int_eq(ibv_cmd_post_srq_recv(&pr.srq, &pr.w1, &pr.bad),
			 ENOMEM);
	ck_assert_ptr_eq(pr.bad, &pr.w2);
	/* a negative scatter count is the caller's error */
	nwrites = 0;
	pr.w2.num_sge = -1;
	pr.bad = NULL;
	ck_assert_int_eq(ibv_cmd_post_recv(&pr.qp, &pr.w1, &pr.bad), EINVAL);
	ck_assert_ptr_eq(pr.bad, &pr.w2);
	ck_assert_int_eq(nwrites, 0);
}
END_TEST

/* ---- one library, every generation's layout ----------------------------------
 * The same command for a provider of rdma-core 44 and one of 56: the core
 * writes its QP members where each provider's verbs_qp has them, fills
 * what each one's ibv_port_attr holds, and reads the eighth argument of
 * ibv_cmd_reg_dmabuf_mr only from a provider that passes one. */

/* bytes 352..359 of a 56 provider's verbs_qp (its wr_flush) untouched */
static void assert_qp56_tail_untouched(const struct qp56 *q)
{
	for (size_t i = 352; i < 360; i++)
		ck_assert_uint_eq(q->qp_ex[i], 0xff);
}

START_TEST(create_qp_ex_writes_where_each_generation_has_comp_mask)
{
	struct qp56 q56;

	create_qp_ex_rc_prepare();
	/* 56: comp_mask at 360 */
	use_release(56);
	memset(&q56, 0xff, sizeof(q56));
	ck_assert_int_eq(create_qp_ex_call(&q56), 0);
	ck_assert_uint_eq(q56.comp_mask, 0);
	assert_qp56_tail_untouched(&q56);
	/* the provider says it has the ex API: the library sees it */
	q56.comp_mask = VERBS_QP_EX;
	ck_assert_ptr_eq(ibv_qp_to_qp_ex(&q56.qp), (struct ibv_qp_ex *)&q56);

	/* 44: comp_mask at 352 */
	use_release(44);
	memset(&qrc.qp, 0xff, sizeof(qrc.qp));
	ck_assert_int_eq(create_qp_ex_call(&qrc.qp), 0);
	ck_assert_uint_eq(qrc.qp.comp_mask, 0);
	ck_assert_ptr_null(ibv_qp_to_qp_ex(&qrc.qp.qp));
	qrc.qp.comp_mask = VERBS_QP_EX;
	ck_assert_ptr_eq(ibv_qp_to_qp_ex(&qrc.qp.qp), (struct ibv_qp_ex *)&qrc.qp);
	/* read with 56's layout, the same bytes say nothing of the kind */
	use_release(56);
	qrc.qp.xrcd = NULL;
	ck_assert_ptr_null(ibv_qp_to_qp_ex(&qrc.qp.qp));
}
END_TEST

START_TEST(create_qp_ex2_and_open_qp_by_generation)
{
	struct PV_CMD(24 + 64) cmd2 = { .drv = 7 };
	struct PV_RESP(struct ib_uverbs_ex_create_qp_resp) resp2;
	struct ib_uverbs_ex_create_qp_resp r2 = {
		.base = { .qp_handle = 0x51, .qpn = 0x77 },
		.response_length = sizeof(r2),
	};
	struct qp56 q56;

	create_qp_ex_rc_prepare();
	use_release(56);
	set_wreply(&r2, sizeof(r2));
	memset(&q56, 0xff, sizeof(q56));
	ck_assert_int_eq(pabi_cmd_create_qp_ex2_34(ibctx, (struct verbs_qp *)&q56,
					       &qrc.attr, &cmd2, sizeof(cmd2),
					       &resp2, sizeof(resp2)), 0);
	ck_assert_uint_eq(q56.qp.handle, 0x51);
	ck_assert_uint_eq(q56.comp_mask, 0);
	assert_qp56_tail_untouched(&q56);

	use_release(44);
	memset(&qrc.qp, 0xff, sizeof(qrc.qp));
	ck_assert_int_eq(pabi_cmd_create_qp_ex2_34(ibctx, (struct verbs_qp *)&qrc.qp,
					       &qrc.attr, &cmd2, sizeof(cmd2),
					       &resp2, sizeof(resp2)), 0);
	ck_assert_uint_eq(qrc.qp.comp_mask, 0);

	/* open_qp: the xrcd where the provider's verbs_qp has it */
	open_qp_prepare();
	oq.attr.comp_mask &= ~(uint32_t)IBV_QP_OPEN_ATTR_CONTEXT;
	use_release(56);
	memset(&q56, 0xff, sizeof(q56));
	ck_assert_int_eq(open_qp_call(&q56, sizeof(q56)), 0);
	ck_assert_uint_eq(q56.comp_mask, VERBS_QP_XRCD);
	ck_assert_ptr_eq(q56.xrcd, &oq.xrcd);
	assert_qp56_tail_untouched(&q56);
}
END_TEST

/* ---- rdma-core 57-65 ---------------------------------------------------------- */

START_TEST(wr_opcode_names)
{
	ck_assert_str_eq(ibv_wr_opcode_str(IBV_WR_RDMA_WRITE), "rdma-write");
	ck_assert_str_eq(ibv_wr_opcode_str(IBV_WR_SEND_WITH_IMM), "send-with-imm");
	ck_assert_str_eq(ibv_wr_opcode_str(IBV_WR_ATOMIC_FETCH_AND_ADD),
			 "atomic-fetch-and-add");
	ck_assert_str_eq(ibv_wr_opcode_str((enum ibv_wr_opcode)14), "flush");
	ck_assert_str_eq(ibv_wr_opcode_str(IBV_WR_ATOMIC_WRITE), "atomic-write");
	ck_assert_str_eq(ibv_wr_opcode_str((enum ibv_wr_opcode)12), "unknown");
	ck_assert_str_eq(ibv_wr_opcode_str((enum ibv_wr_opcode)16), "unknown");
	ck_assert_str_eq(ibv_wr_opcode_str((enum ibv_wr_opcode)-1), "unknown");
}
END_TEST

static Suite *make_pabi_cmd_suite(void)
{
	Suite *s = suite_create("pabi_cmd");
	TCase *ioctl_tc = tcase_create("execute_ioctl");
	TCase *ioctl_cmds = tcase_create("ioctl commands");
	TCase *write_cmds = tcase_create("write commands");
	TCase *post = tcase_create("kernel data path");
	TCase *gens = tcase_create("generations");

	tcase_add_checked_fixture(ioctl_tc, setup, NULL);
	tcase_add_test(ioctl_tc, final_num_attrs_counts_every_link);
	tcase_add_test(ioctl_tc, chain_is_linearized_and_answers_copied_back);
	tcase_add_test(ioctl_tc, uhw_in_longer_than_8_stays_a_pointer);
	tcase_add_test(ioctl_tc, uhw_in_of_own_buffer_inlined_zero_padded);
	tcase_add_test(ioctl_tc, chain_sent_twice_sends_the_same);
	tcase_add_test(ioctl_tc, buffer_error_is_einval);
	tcase_add_test(ioctl_tc, no_room_for_links_is_einval);
	tcase_add_test(ioctl_tc, bad_uhw_index_is_einval);
	tcase_add_test(ioctl_tc, kernel_error_is_positive_and_leaves_links);
	suite_add_tcase(s, ioctl_tc);

	tcase_add_checked_fixture(ioctl_cmds, setup, NULL);
	tcase_add_loop_test(ioctl_cmds, ioctl_command, 0,
			    (int)(sizeof(ioctl_cases) / sizeof(ioctl_cases[0])));
	tcase_add_test(ioctl_cmds, destroy_of_a_dead_device);
	suite_add_tcase(s, ioctl_cmds);

	tcase_add_checked_fixture(write_cmds, setup, NULL);
	tcase_add_loop_test(write_cmds, write_command_layout, 0,
			    (int)(sizeof(write_cases) / sizeof(write_cases[0])));
	tcase_add_test(write_cmds, open_xrcd_old_struct_and_bad_input);
	tcase_add_test(write_cmds, close_xrcd_of_a_dead_device);
	tcase_add_test(write_cmds, rereg_mr_without_change_pd);
	tcase_add_test(write_cmds, modify_cq_bad_input);
	tcase_add_test(write_cmds, create_qp_ex_bad_input);
	tcase_add_test(write_cmds, open_qp_old_struct_and_bad_input);
	tcase_add_test(write_cmds, modify_qp_ex_too_short);
	tcase_add_test(write_cmds, create_wq_flags_and_bad_input);
	tcase_add_test(write_cmds, modify_wq_bad_input);
	tcase_add_test(write_cmds, destroy_wq_of_a_dead_device);
	tcase_add_test(write_cmds, rwq_ind_table_short_answer_and_bad_input);
	tcase_add_test(write_cmds, create_flow_bad_specs);
	suite_add_tcase(s, write_cmds);

	tcase_add_checked_fixture(gens, setup, NULL);
	tcase_add_test(gens, create_qp_ex_writes_where_each_generation_has_comp_mask);
	tcase_add_test(gens, create_qp_ex2_and_open_qp_by_generation);
	tcase_add_test(gens, wr_opcode_names);
	suite_add_tcase(s, gens);

	tcase_add_checked_fixture(post, setup, NULL);
	tcase_add_test(post, poll_cq_errors);
	tcase_add_test(post, post_send_names_the_bad_request);
	tcase_add_test(post, post_send_ud_without_ah);
	tcase_add_test(post, post_recv_names_the_bad_request);
	suite_add_tcase(s, post);
	return s;
}

int main(void)
{
	return check_run(make_pabi_cmd_suite());
}
