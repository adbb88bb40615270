/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Faults on demand (issue 39): SOFTVERBS_UROCE_FAULTS makes a context's
 * outgoing packets meet a bad network, so that the retransmission,
 * duplicate and ICRC paths of both ends (a kernel rxe peer's too) run
 * without root and without tc netem.
 *
 * What happens to each packet is drawn when uroce_net_send hands it
 * over, after its ICRC was filled: lost (not sent), corrupted (one bit
 * past the BTH flipped, so that the receiver's ICRC check fails, not its
 * parser), duplicated (sent twice), reordered (held back until the
 * context's next packet has gone, or REORDER_WAIT_NS at most), and with
 * delay=US every packet waits US microseconds in a queue (order kept).
 * The generator is splitmix64 seeded from seed and the context's number
 * in the process; every packet takes five draws whatever comes of them,
 * so the n-th packet's fate is a function of seed and n. Which packet is
 * the n-th depends on timing (retransmissions, ACKs), so a run repeats
 * the same fates, not necessarily the same packets.
 *
 * The delayed and held packets go out from the progress thread
 * (uroce_net.c), woken by a timerfd armed for the earliest of them. A
 * forked child that sends on an inherited context has no progress
 * thread: what it delays or holds back leaves with its next packet or
 * not at all (uroce_net_stop drops it there). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "uroce.h"

#define ENV_NAME "SOFTVERBS_UROCE_FAULTS"
#define ONE (1ull << 32)               /* probability 1 as a threshold */
#define DELAY_MAX_US 10000000u         /* 10 s */
#define REORDER_WAIT_NS 5000000ull     /* 5 ms: a held packet's longest wait */

/* ---- the value ------------------------------------------------------------------ */

/* A probability: 0, 1, or a decimal fraction between ("0.01", ".5",
 * "1.0"); no exponent, no locale (strtod reads "0,01" in some). */
static bool parse_prob(const char *s, size_t len, uint64_t *thr)
{
	unsigned __int128 num = 0, den = 1;
	size_t i = 0;
	bool digits = false;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (num > 1)
			return false;
		num = num * 10 + (unsigned)(s[i] - '0');
		digits = true;
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (den >= 1000000000000000000ull)
				continue;           /* digits past 1e-18 do not count */
			num = num * 10 + (unsigned)(s[i] - '0');
			den *= 10;
			digits = true;
		}
	}
	if (!digits || i != len || num > den)
		return false;
	*thr = (uint64_t)((num * ONE + den / 2) / den);
	return true;
}

static bool parse_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' ||
		    v > (UINT64_MAX - (unsigned)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

int uroce_fault_parse(const char *value, struct uroce_fault_conf *conf)
{
	static const char *const names[] = { "loss", "dup", "reorder", "corrupt",
					     "delay", "seed" };
	unsigned int seen = 0;
	const char *p = value;

	memset(conf, 0, sizeof(*conf));
	conf->seed = 1;
	for (;;) {
		size_t len = strcspn(p, ","), nlen;
		const char *eq = memchr(p, '=', len), *v;
		unsigned int k;
		uint64_t *thr = NULL, n = 0;
		bool ok;

		if (!eq) {
			sv_complain("%s: item \"%.*s\" is not NAME=VALUE (names: loss, dup, reorder, corrupt, delay, seed); the variable is ignored",
				    ENV_NAME, (int)len, p);
			return EINVAL;
		}
		nlen = (size_t)(eq - p);
		v = eq + 1;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strlen(names[k]) == nlen && !memcmp(p, names[k], nlen))
				break;
		if (k == sizeof(names) / sizeof(names[0])) {
			sv_complain("%s: item \"%.*s\": no fault \"%.*s\" (names: loss, dup, reorder, corrupt, delay, seed); the variable is ignored",
				    ENV_NAME, (int)len, p, (int)nlen, p);
			return EINVAL;
		}
		if (seen & (1u << k)) {
			sv_complain("%s: item \"%.*s\": %s given twice; the variable is ignored",
				    ENV_NAME, (int)len, p, names[k]);
			return EINVAL;
		}
		seen |= 1u << k;
		switch (k) {
		case 0: thr = &conf->loss; break;
		case 1: thr = &conf->dup; break;
		case 2: thr = &conf->reorder; break;
		case 3: thr = &conf->corrupt; break;
		}
		if (thr) {
			ok = parse_prob(v, len - nlen - 1, thr);
		} else if (k == 4) {
			ok = parse_uint(v, len - nlen - 1, DELAY_MAX_US, &n);
			conf->delay_us = (uint32_t)n;
		} else {
			ok = parse_uint(v, len - nlen - 1, UINT64_MAX, &conf->seed);
		}
		if (!ok) {
			sv_complain("%s: item \"%.*s\": %s wants %s; the variable is ignored",
				    ENV_NAME, (int)len, p, names[k],
				    thr ? "a probability from 0 to 1 (a decimal fraction: 0.01)" :
				    k == 4 ? "microseconds, 0 to 10000000" :
					     "a decimal number below 2^64");
			return EINVAL;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* ---- the generator ------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void uroce_fault_rng_seed(struct uroce_fault_rng *rng, uint64_t seed,
			  uint32_t ctx_no)
{
	uint64_t s = seed ^ ((uint64_t)ctx_no << 32 | ctx_no);

	rng->s = splitmix64(&s);
}

static bool draw(struct uroce_fault_rng *rng, uint64_t thr)
{
	return (splitmix64(&rng->s) >> 32) < thr;
}

unsigned int uroce_fault_decide(const struct uroce_fault_conf *conf,
				struct uroce_fault_rng *rng, uint32_t *bit)
{
	unsigned int m = 0;

	if (draw(rng, conf->loss))
		m |= UROCE_FAULT_LOSS;
	if (draw(rng, conf->corrupt))
		m |= UROCE_FAULT_CORRUPT;
	if (draw(rng, conf->dup))
		m |= UROCE_FAULT_DUP;
	if (draw(rng, conf->reorder))
		m |= UROCE_FAULT_REORDER;
	*bit = (uint32_t)(splitmix64(&rng->s) >> 32);
	if (m & UROCE_FAULT_LOSS)
		m = UROCE_FAULT_LOSS;     /* a lost packet meets nothing else */
	return m;
}

/* ---- a context's faults -------------------------------------------------------- */

struct held_pkt {
	struct held_pkt *next;
	uint64_t due_ns;               /* CLOCK_MONOTONIC */
	bool reorder;                  /* to be held back once out of the delay */
	struct uroce_route route;
	size_t len;
	uint8_t data[];
};

enum { N_PKTS, N_LOST, N_CORRUPT, N_DUP, N_REORDER, N_DELAY, N_STATS };

struct uroce_fault {
	struct uroce_context *ctx;     /* immutable */
	uroce_wire_fn wire;            /* immutable */
	struct uroce_fault_conf conf;  /* immutable */
	int timer_fd;                  /* immutable */
	pthread_mutex_t lock;          /* innermost: taken under the QPs' */
	/* the rest: lock */
	struct uroce_fault_rng rng;
	struct held_pkt *queue, **queue_tail; /* delayed, in due order */
	struct held_pkt *held;         /* the packet held back (reorder) */
	uint64_t stats[N_STATS];
};

static _Atomic uint32_t contexts_faulted;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct uroce_fault *uroce_fault_open(struct uroce_context *ctx,
				     uroce_wire_fn wire)
{
	const char *v = sv_env_path(ENV_NAME);
	struct uroce_fault_conf conf;
	struct uroce_fault *f;
	uint32_t no;

	if (!v || !*v || uroce_fault_parse(v, &conf))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto err;
	f->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (f->timer_fd < 0) {
		free(f);
		goto err;
	}
	pthread_mutex_init(&f->lock, NULL);
	f->ctx = ctx;
	f->wire = wire;
	f->conf = conf;
	f->queue_tail = &f->queue;
	no = atomic_fetch_add(&contexts_faulted, 1);
	uroce_fault_rng_seed(&f->rng, conf.seed, no);
	sv_info("uroce: %s: %s=%s (the process's faulted context %u)",
		ctx->netdev, ENV_NAME, v, no);
	return f;

err:
	sv_err("uroce: %s: %s; no faults", ENV_NAME, strerror(errno));
	return NULL;
}

/* Arm the timer for the earliest held packet, or disarm it (lock held). */
static void arm(struct uroce_fault *f)
{
	struct itimerspec its = { 0 };
	uint64_t due = UINT64_MAX;

	if (f->queue)
		due = f->queue->due_ns;
	if (f->held && f->held->due_ns < due)
		due = f->held->due_ns;
	if (due != UINT64_MAX) {
		if (!due)
			due = 1;
		its.it_value.tv_sec = (time_t)(due / 1000000000u);
		its.it_value.tv_nsec = (long)(due % 1000000000u);
	}
	timerfd_settime(f->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static struct held_pkt *hold_copy(const struct uroce_route *route,
				  const uint8_t *pkt, size_t len)
{
	struct held_pkt *h = malloc(sizeof(*h) + len);

	if (!h)
		return NULL;
	h->next = NULL;
	h->reorder = false;
	h->route = *route;
	h->len = len;
	memcpy(h->data, pkt, len);
	return h;
}

/* Out of the delay: to the wire, unless it is to be held back; a packet
 * held back goes right after the next one (lock held). */
static int release(struct uroce_fault *f, const struct uroce_route *route,
		   const uint8_t *pkt, size_t len, bool reorder, uint64_t now)
{
	struct held_pkt *h;
	int ret;

	if (reorder && !f->held) {
		h = hold_copy(route, pkt, len);
		if (h) {
			h->due_ns = now + REORDER_WAIT_NS;
			f->held = h;
			f->stats[N_REORDER]++;
			return 0;
		}
	}
	ret = f->wire(f->ctx, route, pkt, len);
	h = f->held;
	if (h) {
		f->held = NULL;
		f->wire(f->ctx, &h->route, h->data, h->len);
		free(h);
	}
	return ret;
}

/* Into the delay queue, or on when there is no delay (lock held). */
static int stage(struct uroce_fault *f, const struct uroce_route *route,
		 const uint8_t *pkt, size_t len, bool reorder, uint64_t now)
{
	struct held_pkt *h;

	if (!f->conf.delay_us)
		return release(f, route, pkt, len, reorder, now);
	h = hold_copy(route, pkt, len);
	if (!h)
		return release(f, route, pkt, len, reorder, now);
	h->due_ns = now + (uint64_t)f->conf.delay_us * 1000u;
	h->reorder = reorder;
	*f->queue_tail = h;
	f->queue_tail = &h->next;
	f->stats[N_DELAY]++;
	return 0;
}

int uroce_fault_send(struct uroce_fault *f, const struct uroce_route *route,
		     const uint8_t *pkt, size_t len)
{
	uint8_t *bad = NULL;
	uint64_t now = now_ns();
	unsigned int m;
	uint32_t bit;
	int ret;

	pthread_mutex_lock(&f->lock);
	f->stats[N_PKTS]++;
	m = uroce_fault_decide(&f->conf, &f->rng, &bit);
	if (m & UROCE_FAULT_LOSS) {
		f->stats[N_LOST]++;
		pthread_mutex_unlock(&f->lock);
		return 0;
	}
	/* past the BTH: the receiver's parser takes the packet, its ICRC
	 * check refuses it */
	if ((m & UROCE_FAULT_CORRUPT) && len > UROCE_BTH_BYTES &&
	    (bad = malloc(len))) {
		uint32_t nbits = (uint32_t)(len - UROCE_BTH_BYTES) * 8;
		uint32_t b = UROCE_BTH_BYTES * 8 + bit % nbits;

		memcpy(bad, pkt, len);
		bad[b / 8] ^= (uint8_t)(1u << (b % 8));
		pkt = bad;
		/* copies on the wire: a duplicate of it is bad too */
		f->stats[N_CORRUPT] += m & UROCE_FAULT_DUP ? 2 : 1;
	}
	ret = stage(f, route, pkt, len, m & UROCE_FAULT_REORDER, now);
	if (m & UROCE_FAULT_DUP) {
		f->stats[N_DUP]++;
		stage(f, route, pkt, len, false, now);
	}
	arm(f);
	pthread_mutex_unlock(&f->lock);
	free(bad);
	return ret;
}

int uroce_fault_timer_fd(const struct uroce_fault *f)
{
	return f ? f->timer_fd : -1;
}

/* Send what is due at now, everything when all (lock held). */
static void flush_locked(struct uroce_fault *f, uint64_t now, bool all)
{
	while (f->queue && (all || f->queue->due_ns <= now)) {
		struct held_pkt *h = f->queue;

		f->queue = h->next;
		if (!f->queue)
			f->queue_tail = &f->queue;
		release(f, &h->route, h->data, h->len, h->reorder && !all, now);
		free(h);
	}
	if (f->held && (all || f->held->due_ns <= now)) {
		struct held_pkt *h = f->held;

		f->held = NULL;
		f->wire(f->ctx, &h->route, h->data, h->len);
		free(h);
	}
}

void uroce_fault_flush(struct uroce_fault *f)
{
	uint64_t expirations;

	if (read(f->timer_fd, &expirations, sizeof(expirations)) < 0 &&
	    errno != EAGAIN)
		sv_err("uroce: fault timer: %s", strerror(errno));
	pthread_mutex_lock(&f->lock);
	flush_locked(f, now_ns(), false);
	arm(f);
	pthread_mutex_unlock(&f->lock);
}

void uroce_fault_summary(const struct uroce_fault *f, char *buf, size_t cap)
{
	snprintf(buf, cap,
		 "%" PRIu64 " packets: %" PRIu64 " lost, %" PRIu64 " corrupted copies sent, %" PRIu64
		 " duplicated, %" PRIu64 " reordered, %" PRIu64 " delayed",
		 f->stats[N_PKTS], f->stats[N_LOST], f->stats[N_CORRUPT],
		 f->stats[N_DUP], f->stats[N_REORDER], f->stats[N_DELAY]);
}

static void free_list(struct held_pkt *h)
{
	while (h) {
		struct held_pkt *next = h->next;

		free(h);
		h = next;
	}
}

void uroce_fault_drain(struct uroce_fault *f, bool send_held)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	if (send_held)
		flush_locked(f, 0, true);
	free_list(f->queue);
	f->queue = NULL;
	f->queue_tail = &f->queue;
	free_list(f->held);
	f->held = NULL;
	pthread_mutex_unlock(&f->lock);
}

void uroce_fault_free(struct uroce_fault *f)
{
	if (!f)
		return;
	pthread_mutex_destroy(&f->lock);
	close(f->timer_fd);
	free(f);
}
