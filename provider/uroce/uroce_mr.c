/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's memory regions: one table for the process, looked up by key
 * for every access the engine makes (uroce_mr_check).
 *
 * Keys. A registration takes a slot of the table (2^20 of them) and the
 * slot's next generation (2^12 per slot); its key is
 *
 *	key = P(slot << 12 | generation)
 *
 * where P is a secret permutation of the 32-bit values: a four-round
 * Feistel network whose round function is SipHash-2-4 under a 128-bit
 * key drawn from getrandom(2) at the first registration. So a key
 * looks random to whoever sees others (rxe's have 8 random bits, the
 * rest is the pool index), and a lookup inverts P to find the slot in
 * O(1). A deregistration moves the slot to its next generation; a slot
 * whose 4,096 generations are spent is never used again. A key is thus
 * never issued twice while the process lives: a deregistered MR's key
 * never validates again. 2^32 registrations in all; then ENOSPC. Key 0
 * is never issued (rkey 0 means "no remote access", as rxe's), nor a key
 * whose top 24 bits are a live memory window's tag (uroce_mw.c): a key
 * names one object.
 *
 * What rxe does and uroce does alike (kernel 6.1 rxe_mr.c, rxe_verbs.c):
 * lkey == rkey, and rkey 0 for an MR that grants no remote access; a
 * lookup wants the key, the PD, every requested access flag, and the
 * range [va, va + len) inside [iova, iova + length). Re-registration
 * changes the PD and the access flags only (rxe refuses a new
 * translation: EOPNOTSUPP), and keeps the keys. No on-demand paging and
 * no zero-based MR (rxe refuses both: EOPNOTSUPP). An MR with memory
 * windows bound (uroce_mw.c) is not deregistered: EINVAL, as rxe. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "uroce.h"

#define SLOT_BITS 20
#define GEN_BITS 12
#define MAX_SLOTS (1u << SLOT_BITS)
#define GEN_LIMIT (1u << GEN_BITS)

/* the access flags a registration may ask for (rxe's, and the hint
 * HUGETLB); the core has refused unknown bits already. FLUSH_GLOBAL as
 * rxe from 6.2; not FLUSH_PERSISTENT (see check_access) */
#define UROCE_ACCESS_SUPPORTED                                                \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                   \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                  \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_HUGETLB | SV_ACCESS_FLUSH_GLOBAL)
#define UROCE_ACCESS_REMOTE                                                   \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                   \
	 IBV_ACCESS_REMOTE_ATOMIC)

/* ---- the key permutation ------------------------------------------------- */

static pthread_once_t secret_once = PTHREAD_ONCE_INIT;
static uint64_t secret[2];  /* set once */
static int secret_err;      /* set once: getrandom's errno, or 0 */

static void secret_init(void)
{
	uint8_t *p = (uint8_t *)secret;
	size_t got = 0;

	while (got < sizeof(secret)) {
		ssize_t n = getrandom(p + got, sizeof(secret) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			secret_err = errno;
			sv_err("uroce: getrandom for the MR keys: %s",
			       strerror(errno));
			return;
		}
		got += (size_t)n;
	}
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                               \
	do {                                                                   \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);     \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                         \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                         \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);     \
	} while (0)

/* SipHash-2-4 (Aumasson, Bernstein) of one 8-byte word under secret */
static uint64_t siphash_word(uint64_t m)
{
	uint64_t v0 = secret[0] ^ 0x736f6d6570736575ULL;
	uint64_t v1 = secret[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = secret[0] ^ 0x6c7967656e657261ULL;
	uint64_t v3 = secret[1] ^ 0x7465646279746573ULL;
	uint64_t b = 8ULL << 56;

	v3 ^= m;
	SIPROUND;
	SIPROUND;
	v0 ^= m;
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

static uint16_t feistel_round(unsigned int round, uint16_t half)
{
	return (uint16_t)siphash_word((uint64_t)round << 16 | half);
}

/* four rounds: Luby-Rackoff's strong pseudorandom permutation */
uint32_t uroce_key_permute(uint32_t x)
{
	uint16_t l = (uint16_t)(x >> 16), r = (uint16_t)x;

	pthread_once(&secret_once, secret_init);
	for (unsigned int i = 0; i < 4; i++) {
		uint16_t t = r;

		r = l ^ feistel_round(i, r);
		l = t;
	}
	return (uint32_t)l << 16 | r;
}

uint32_t uroce_key_unpermute(uint32_t key)
{
	uint16_t l = (uint16_t)(key >> 16), r = (uint16_t)key;

	pthread_once(&secret_once, secret_init);
	for (unsigned int i = 4; i-- > 0;) {
		uint16_t t = l;

		l = r ^ feistel_round(i, l);
		r = t;
	}
	return (uint32_t)l << 16 | r;
}

/* The windows' tags (uroce_mw.c): four rounds on 12-bit halves, under
 * the same secret, the round function told apart from the MR keys' by
 * bit 40 of its input */
static uint16_t tag_round(unsigned int round, uint16_t half)
{
	return (uint16_t)(siphash_word(1ull << 40 | (uint64_t)round << 16 | half) &
			  0xfff);
}

uint32_t uroce_mw_tag_permute(uint32_t x)
{
	uint16_t l = (uint16_t)(x >> 12 & 0xfff), r = (uint16_t)(x & 0xfff);

	pthread_once(&secret_once, secret_init);
	for (unsigned int i = 0; i < 4; i++) {
		uint16_t t = r;

		r = l ^ tag_round(i, r);
		l = t;
	}
	return (uint32_t)l << 12 | r;
}

uint32_t uroce_mw_tag_unpermute(uint32_t tag)
{
	uint16_t l = (uint16_t)(tag >> 12 & 0xfff), r = (uint16_t)(tag & 0xfff);

	pthread_once(&secret_once, secret_init);
	for (unsigned int i = 4; i-- > 0;) {
		uint16_t t = l;

		l = r ^ tag_round(i, l);
		r = t;
	}
	return (uint32_t)l << 12 | r;
}

int uroce_key_secret_ready(void)
{
	pthread_once(&secret_once, secret_init);
	return secret_err;
}

/* ---- the table ------------------------------------------------------------ */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t unused;   /* an MR's refs went to 0 */
	/* lock: */
	struct uroce_mr **mr;    /* slot -> its live MR, or NULL */
	uint16_t *gen;           /* slot -> the generation of its live or next key */
	uint32_t *free;          /* slots to use again (a stack) */
	uint32_t nfree;
	uint32_t nslots;         /* slots ever used */
	uint32_t cap;            /* entries of mr[], gen[], free[] */
	uint32_t live;           /* registered MRs */
} table = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.unused = PTHREAD_COND_INITIALIZER,
};

/* Room for one more slot: 0 or ENOMEM/ENOSPC. Table lock held. */
static int table_grow(void)
{
	uint32_t cap;
	void *p;

	if (table.nslots < table.cap)
		return 0;
	if (table.cap == MAX_SLOTS)
		return ENOSPC;
	cap = table.cap ? table.cap * 2 : 256;
	p = realloc(table.mr, cap * sizeof(*table.mr));
	if (!p)
		return ENOMEM;
	table.mr = p;
	p = realloc(table.gen, cap * sizeof(*table.gen));
	if (!p)
		return ENOMEM;
	table.gen = p;
	p = realloc(table.free, cap * sizeof(*table.free));
	if (!p)
		return ENOMEM;
	table.free = p;
	table.cap = cap;
	return 0;
}

/* A slot and a key for mr: 0, or ENOMEM/ENOSPC. Table lock held. */
static int table_insert(struct uroce_mr *mr, uint32_t *key)
{
	for (;;) {
		uint32_t slot, k;
		int ret;

		if (table.nfree) {
			slot = table.free[--table.nfree];
		} else {
			ret = table_grow();
			if (ret)
				return ret;
			slot = table.nslots++;
			table.gen[slot] = 0;
		}
		k = uroce_key_permute(slot << GEN_BITS | table.gen[slot]);
		/* the one value P sends to 0, or a key that begins with a
		 * live window's tag (uroce_mw.c): spend the generation */
		if (!k || uroce_mw_tag_live(k >> 8)) {
			if (++table.gen[slot] < GEN_LIMIT)
				table.free[table.nfree++] = slot;
			continue;
		}
		table.mr[slot] = mr;
		mr->slot = slot;
		*key = k;
		return 0;
	}
}

/* The live MR of key, or NULL. Table lock held. */
static struct uroce_mr *table_find(uint32_t key)
{
	uint32_t x, slot;

	if (!key)
		return NULL;
	x = uroce_key_unpermute(key);
	slot = x >> GEN_BITS;
	if (slot >= table.nslots || !table.mr[slot] ||
	    table.gen[slot] != (x & (GEN_LIMIT - 1)))
		return NULL;
	return table.mr[slot];
}

/* Take mr out: its key stops validating now; returns once no lookup
 * holds it. Table lock held. */
static void table_remove(struct uroce_mr *mr)
{
	uint32_t slot = mr->slot;

	table.mr[slot] = NULL;
	while (mr->refs)
		pthread_cond_wait(&table.unused, &table.lock);
	if (++table.gen[slot] < GEN_LIMIT)
		table.free[table.nfree++] = slot;
	table.live--;
}

void uroce_mr_lock(void)
{
	pthread_mutex_lock(&table.lock);
}

void uroce_mr_unlock(void)
{
	pthread_mutex_unlock(&table.lock);
}

struct uroce_mr *uroce_mr_find_locked(uint32_t key)
{
	return table_find(key);
}

/* ---- the verbs ------------------------------------------------------------ */

/* 0 or a positive errno, logged */
static int check_access(int access)
{
	/* rxe takes it on persistent memory only (EINVAL elsewhere); a
	 * process cannot make its stores persistent, so uroce does not
	 * claim IB_DEVICE_FLUSH_PERSISTENT, and the kernel's
	 * ib_check_mr_access answers EOPNOTSUPP for a device without it */
	if (access & SV_ACCESS_FLUSH_PERSISTENT) {
		sv_err("uroce: IBV_ACCESS_FLUSH_PERSISTENT: a uroce device cannot make memory persistent (it does not claim FLUSH_PERSISTENT); IBV_ACCESS_FLUSH_GLOBAL is supported");
		return EOPNOTSUPP;
	}
	if (access & ~UROCE_ACCESS_SUPPORTED) {
		sv_err("uroce: access flags 0x%x not supported (no on-demand paging, no zero-based MR)",
		       access & ~UROCE_ACCESS_SUPPORTED);
		return EOPNOTSUPP;
	}
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE)) {
		sv_err("uroce: REMOTE_WRITE/REMOTE_ATOMIC need LOCAL_WRITE");
		return EINVAL;
	}
	return 0;
}

static uint32_t rkey_of(uint32_t key, int access)
{
	return (access & UROCE_ACCESS_REMOTE) ? key : 0;
}

struct ibv_mr *uroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access)
{
	struct uroce_mr *mr;
	uint32_t key;
	int ret;

	ret = check_access(access);
	if (ret)
		goto err;
	ret = uroce_mem_check(addr, length, access & UROCE_ACCESS_WRITABLE);
	if (ret) {
		sv_err("uroce: MR of %zu bytes at %p: not mapped%s (as rxe's pinning, EFAULT)",
		       length, addr, access & UROCE_ACCESS_WRITABLE ? " writable" : "");
		goto err;
	}
	if (hca_va + length < hca_va) {
		sv_err("uroce: MR of %zu bytes at iova %#llx wraps around",
		       length, (unsigned long long)hca_va);
		ret = EINVAL;
		goto err;
	}
	pthread_once(&secret_once, secret_init);
	if (secret_err) {
		ret = secret_err;
		goto err;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		ret = ENOMEM;
		goto err;
	}
	mr->pd = pd;
	mr->addr = addr;
	mr->iova = hca_va;
	mr->length = length;
	mr->access = access;

	pthread_mutex_lock(&table.lock);
	if (table.live >= UROCE_MAX_MR) {
		sv_err("uroce: %u MRs already (the device's max_mr)", table.live);
		ret = ENOMEM;
	} else {
		ret = table_insert(mr, &key);
		if (ret == ENOSPC)
			sv_err("uroce: every MR key of the process is spent (2^32 registrations)");
	}
	if (ret) {
		pthread_mutex_unlock(&table.lock);
		free(mr);
		goto err;
	}
	table.live++;
	/* what the application sees, before the key can be found */
	mr->core.mr.context = pd->context;
	mr->core.mr.pd = pd;
	mr->core.mr.addr = addr;
	mr->core.mr.length = length;
	mr->core.mr.handle = mr->slot;
	mr->core.mr.lkey = key;
	mr->core.mr.rkey = rkey_of(key, access);
	mr->core.mr_type = SV_MR_TYPE_MR;
	mr->core.access = access;
	pthread_mutex_unlock(&table.lock);
	return &mr->core.mr;

err:
	errno = ret;
	return NULL;
}

int uroce_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access)
{
	struct uroce_mr *mr = to_uroce_mr(ibmr);
	int ret;

	(void)addr;
	(void)length;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		sv_err("uroce: re-registration of a new address range is not supported (as rxe)");
		return EOPNOTSUPP;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		ret = check_access(access);
		if (ret)
			return ret;
		ret = uroce_mem_check(mr->addr, mr->length,
				      access & UROCE_ACCESS_WRITABLE);
		if (ret) {
			sv_err("uroce: MR of %zu bytes at %p: not mapped%s (as rxe's pinning, EFAULT)",
			       mr->length, (void *)mr->addr,
			       access & UROCE_ACCESS_WRITABLE ? " writable" : "");
			return ret;
		}
	}
	pthread_mutex_lock(&table.lock);
	/* no access in flight sees half of the change */
	while (mr->refs)
		pthread_cond_wait(&table.unused, &table.lock);
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		mr->access = access;
		ibmr->rkey = rkey_of(ibmr->lkey, access);
	}
	pthread_mutex_unlock(&table.lock);
	return 0;
}

int uroce_dereg_mr(struct ibv_mr *ibmr)
{
	struct uroce_mr *mr = to_uroce_mr(ibmr);

	pthread_mutex_lock(&table.lock);
	/* rxe_dereg_mr: not while windows are bound to it (IBA 10.6.7.2.6) */
	if (mr->nmw) {
		pthread_mutex_unlock(&table.lock);
		sv_err("uroce: MR %#x has %u memory windows bound: not deregistered",
		       ibmr->lkey, mr->nmw);
		return EINVAL;
	}
	table_remove(mr);
	pthread_mutex_unlock(&table.lock);
	free(mr);
	return 0;
}

struct uroce_mr *uroce_mr_check(struct ibv_pd *pd, uint32_t key, uint64_t va,
				size_t len, int access,
				enum uroce_mr_fault *fault)
{
	struct uroce_mr *mr;
	enum uroce_mr_fault f;

	pthread_mutex_lock(&table.lock);
	mr = table_find(key);
	if (!mr)
		f = UROCE_MR_BAD_KEY;
	else if (mr->pd != pd)
		f = UROCE_MR_BAD_PD;
	else if ((mr->access & access) != access)
		f = UROCE_MR_BAD_ACCESS;
	else if (va < mr->iova || len > mr->length ||
		 va - mr->iova > mr->length - len)
		f = UROCE_MR_BAD_RANGE;
	else
		f = UROCE_MR_OK;
	if (f == UROCE_MR_OK)
		mr->refs++;
	else
		mr = NULL;
	pthread_mutex_unlock(&table.lock);
	*fault = f;
	return mr;
}

void uroce_mr_put(struct uroce_mr *mr)
{
	pthread_mutex_lock(&table.lock);
	if (!--mr->refs)
		pthread_cond_broadcast(&table.unused);
	pthread_mutex_unlock(&table.lock);
}

void uroce_mr_release_context(struct ibv_context *ibctx)
{
	pthread_mutex_lock(&table.lock);
	for (uint32_t slot = 0; slot < table.nslots; slot++) {
		struct uroce_mr *mr = table.mr[slot];

		if (!mr || mr->core.mr.context != ibctx)
			continue;
		table_remove(mr);
		free(mr);
	}
	pthread_mutex_unlock(&table.lock);
}
