/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's network end: per context, one UDP socket on port 4791 of each
 * address of its interface, IPv4 and IPv6 (the addresses its GID table
 * lists, in that order), and the progress thread that receives on them.
 *
 * Several processes on one host. Every RoCE v2 peer sends to UDP port
 * 4791, so all the uroce contexts of a host that use one address share
 * that port: each binds it with SO_REUSEPORT, which puts their sockets in
 * one group, and the kernel picks the socket of each datagram. Which one
 * is this design's choice: an unprivileged classic BPF program
 * (SO_ATTACH_REUSEPORT_CBPF; run by the kernel with the data past the UDP
 * header, its result an index into the group's array of sockets) loads
 * byte 5 of the BTH, the top byte of the destination QPN, and returns it.
 * Each context learns its socket's index once it joined (the kernel gives
 * no way to ask): it sends itself probes, one per candidate index k,
 * whose BTH names k, and the smallest k that comes back is its own
 * (indices past the group's end fall back to the kernel's hash, but they
 * are all larger than any socket's index). Its QPNs then carry that
 * index (its slot, below) in bits 23-16 (uroce_qp.c), so every packet
 * for one of its QPs reaches its socket, whichever process sends it,
 * kernel rxe peers included.
 * Every process attaches the same program: the group keeps the last one.
 *
 * Sockets move. When a socket leaves the group (a context closes, a
 * process exits), the kernel moves the group's last socket into its
 * place (reuseport_detach_sock), so a context's index may stop being the
 * number its QPNs carry, and a context that joins later may find its
 * index carried by another's QPNs. So the number in the QPNs (the slot)
 * is a name of its own: each context also binds a unix datagram socket
 * named after its slot, in a folder only the user can reach
 * ($XDG_RUNTIME_DIR/softverbs-uroce, else /tmp/softverbs-uroce-<euid>;
 * names carry the network namespace and the address), and takes its
 * index as its slot when that name is free, else the first free one. A
 * datagram whose slot is not the receiving context's is forwarded once
 * to that name, with its source address; one for a slot nobody holds is
 * dropped as an unknown QPN. A socket receives from the moment it
 * joins, before its context knows its slot: what reaches it then for a
 * QP is held and handled once the slot is known. So packets reach their
 * QP whatever moved; most go straight to it, and those of a moved
 * context take one more hop until it closes. 256 slots per address and
 * namespace.
 *
 * Every address. A QP sends from the address of its AV's sgid_index
 * (IPv4-mapped: IPv4, else IPv6) to its dgid's, so each address the
 * interface has when the context's first QP is created gets a socket of
 * its own, in that address's group, with the same program: an AF_INET
 * one for IPv4, an AF_INET6 one (IPV6_V6ONLY) for IPv6, a link-local
 * address with the interface's index as its scope. They are opened one
 * after the other, the first address first (IPv4 when the interface has
 * one: IPv4 works as it did), so that contexts starting alike join every
 * group in one order and hold one index in all. Only the first socket
 * probes: its index chooses the slot, and the context claims that
 * slot's name on every address (a slot taken on any of them is not
 * chosen), so one number in its QPNs names it in every group. Where its
 * index in another address's group differs (contexts started or left
 * in another order), the packets for it reach another context there
 * and are forwarded, on that address, as above. The first address's
 * socket must open, or the QP's creation fails; another's may not (a
 * tentative IPv6 address, the port held there): it is noted, and an AV
 * that names it fails as the first would have (EADDRINUSE naming the
 * holder). An address added later has no socket until the device is
 * opened again.
 *
 * Another user. The kernel puts sockets of different owners into
 * different groups only by refusing them: bind fails with EADDRINUSE
 * when the port is held by a socket of another uid (or by the kernel's
 * rxe, whose tunnel socket holds 4791 in its network namespace). uroce
 * says who holds it, from /proc/net/udp, and fails; no datagram of one
 * user ever reaches another's socket.
 *
 * On the wire (kmod-notes/uroce-wire.md): DF set (IP_PMTUDISC_DO), so
 * that the kernel sends IPv4 ID 0 on this unconnected socket
 * (ip_select_ident_segs), which is what the receiver assumes when it
 * checks the ICRC (a UDP socket cannot see the sender's ID); UDP checksum
 * 0 (SO_NO_CHECK), as rxe sends; source port 4791, the socket's (rxe's
 * receiver ignores the source port). Over IPv6: UDP checksum 0 too
 * (UDP_NO_CHECK6_TX), as rxe sends it, and accepted (UDP_NO_CHECK6_RX,
 * as rxe's tunnel socket, whose zero checksums the kernel would drop
 * otherwise, RFC 8200); no fragments (IPV6_PMTUDISC_DO). IPv6 has no
 * ID, and the ICRC masks the traffic class, flow label and hop limit:
 * the receiver knows every field it covers (the source from recvmsg,
 * the destination the socket's bound address, the length).
 *
 * The progress thread. Created with the context's first QP, with every
 * signal blocked (it takes no signal of the program's), joined at
 * ibv_close_device. A forked child has no such thread (fork copies the
 * calling thread alone); closing an inherited context there closes the
 * child's descriptors only (the pid recorded at creation tells).
 * ibv_create_qp returns only once the new thread has made its
 * allocations (the C library's and a sanitizer's thread setup, its
 * receive buffer): a program that forks right after it must not find the
 * thread inside malloc, for an allocator whose locks fork does not take
 * (ASan's in GCC 12) leaves the child one locked for ever, and the
 * child's own progress thread then hangs at its start. It
 * parses each datagram (uroce_parse), checks its ICRC, finds the QP and
 * hands the packet to the requester (ACKs) or the responder (requests)
 * under the context's qp_lock and the QP's lock. While the context has
 * RC QPs it also wakes every UROCE_TIMER_TICK_NS for their retransmit
 * and RNR timers (uroce_req.c). An ibv_poll_cq that
 * finds its CQ empty receives too (uroce_net_progress): a program that
 * busy-polls makes progress in its own thread, without waiting for the
 * progress thread to be scheduled. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <poll.h>
#include <pwd.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/udp.h>
#include <time.h>
#include <unistd.h>

#include "uroce.h"

#ifndef SO_ATTACH_REUSEPORT_CBPF
#define SO_ATTACH_REUSEPORT_CBPF 51
#endif

/* the probes: a BTH whose opcode no RoCE peer sends and whose QPN names
 * the index k, then the magic, the context's nonce and k */
#define PROBE_OPCODE 0xff
#define PROBE_MAGIC "uroce-probe"
#define PROBE_MAGIC_BYTES 12
#define PROBE_BYTES (UROCE_BTH_BYTES + PROBE_MAGIC_BYTES + 8 + 1)
#define PROBE_BATCH 32
#define PROBE_QUIET_MS 20
#define MAX_SLOTS 256
/* room for the largest packet: headers, one 4096-byte MTU, ICRC */
#define RX_BYTES (UROCE_MAX_HDR_BYTES + UROCE_MAX_PAYLOAD + UROCE_ICRC_BYTES + 64)
/* datagrams for QPs kept while probing, at most */
#define HELD_MAX 256
/* datagrams an empty ibv_poll_cq handles itself */
#define POLL_BUDGET 16
/* datagrams the progress thread handles per hold of qp_lock (poll(2)
 * reports the rest) */
#define THREAD_BUDGET 64

/* the interface's addresses a context opens a socket on, at most */
#define MAX_EPS 16

/* One address of the interface: the context's socket in that address's
 * SO_REUSEPORT group on port 4791, and its forwarding socket, named
 * after the context's slot on that address. Immutable once started. */
struct endpoint {
	union uroce_sockaddr addr;     /* bound (or to be) */
	int fd;                        /* -1: not open, err says why */
	int err;
	int fwd_fd;                    /* -1: no name (yet) */
	struct sockaddr_un fwd_name;
};

struct uroce_net {
	/* ep[0], the first address (an IPv4 one when the interface has
	 * one), must open; its index names the slot; immutable */
	struct endpoint ep[MAX_EPS];
	unsigned int nep;
	uint32_t slot;                 /* immutable once started */
	uint8_t nonce[8];              /* immutable */
	int stop_rd, stop_wr;          /* the thread's stop pipe; immutable */
	pthread_t thread;
	sem_t ready;                   /* posted once the thread allocated */
	pid_t pid;                     /* the process running the thread */
	/* forwarding: the folder of the names; immutable */
	char fwd_dir[80];
	unsigned long long ns_ino;     /* the network namespace's inode */
	/* datagrams for QPs that reached ep[0]'s socket while it probed, in
	 * order; handed on once the slot is known, then empty; only
	 * uroce_net_start's */
	struct held *held, **held_tail;
	unsigned int nheld;
	/* issue 39: faults on what it sends, a capture of what it sends
	 * and receives (uroce_fault.c, uroce_pcap.c); NULL when not asked
	 * for; immutable once started */
	struct uroce_fault *fault;
	struct uroce_pcap *pcap;
	struct uroce_context *ctx;     /* immutable: the counters' */
};

struct held {
	struct held *next;
	union uroce_sockaddr src;
	size_t len;
	uint8_t data[];
};

/* what a forwarded datagram carries in front of it (the address it
 * reached is the one the receiving name is of) */
struct fwd_hdr {
	union uroce_sockaddr src;
};

uint32_t uroce_net_slot(const struct uroce_context *ctx)
{
	return ctx->net->slot;
}

uint64_t uroce_net_drops(struct uroce_context *ctx, enum uroce_drop why)
{
	uint64_t n;

	pthread_mutex_lock(&ctx->qp_lock);
	n = why > UROCE_DROP_OK && why < UROCE_DROP_COUNT ?
		uroce_ctr_get(ctx, uroce_ctr_of_drop(why)) : 0;
	pthread_mutex_unlock(&ctx->qp_lock);
	return n;
}

/* ---- the address and the port ------------------------------------------------ */

/* The interface's addresses, in its GID table's order, as endpoints
 * not yet open. */
static int list_addrs(struct uroce_context *ctx, struct uroce_net *net)
{
	union uroce_sockaddr addrs[MAX_EPS];
	struct uroce_netdev nd;
	ssize_t n;
	int ret = uroce_netdev_query(ctx->netdev, &nd);

	if (ret)
		return ret;
	n = uroce_netdev_addrs(&nd, addrs, MAX_EPS);
	if (n < 0)
		return (int)-n;
	if (n == 0) {
		sv_err("uroce: %s has no IP address", ctx->netdev);
		return EADDRNOTAVAIL;
	}
	for (ssize_t i = 0; i < n; i++) {
		net->ep[i].addr = addrs[i];
		net->ep[i].fd = -1;
		net->ep[i].fwd_fd = -1;
	}
	net->nep = (unsigned int)n;
	return 0;
}

static struct endpoint *ep_of(struct uroce_net *net,
			      const union uroce_sockaddr *addr)
{
	for (unsigned int i = 0; i < net->nep; i++)
		if (uroce_sa_same_ip(&net->ep[i].addr, addr))
			return &net->ep[i];
	return NULL;
}

/* An address as /proc/net/udp and udp6 print it: the 32-bit words of
 * the address in the kernel's byte order, %08X each */
static void proc_addr(const union uroce_sockaddr *a, char *buf, size_t cap)
{
	uint32_t w[4];

	if (a->sa.sa_family != AF_INET6) {
		snprintf(buf, cap, "%08X", (unsigned int)a->sin.sin_addr.s_addr);
		return;
	}
	memcpy(w, &a->sin6.sin6_addr, sizeof(w));
	snprintf(buf, cap, "%08X%08X%08X%08X", (unsigned int)w[0],
		 (unsigned int)w[1], (unsigned int)w[2], (unsigned int)w[3]);
}

/* Who holds UDP 4791 on a, from /proc/net/udp (udp6), into buf. */
static void port_holder(const union uroce_sockaddr *a, char *buf, size_t cap)
{
	bool v6 = a->sa.sa_family == AF_INET6;
	FILE *f = fopen(v6 ? "/proc/net/udp6" : "/proc/net/udp", "re");
	char line[512], mine[40];

	proc_addr(a, mine, sizeof(mine));
	snprintf(buf, cap, "another user's socket or the kernel's rxe");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char addr[40];
		unsigned int port, uid;
		unsigned long inode;
		struct passwd *pw;

		if (sscanf(line, " %*d: %39[0-9A-Fa-f]:%x %*x:%*x %*x %*x:%*x %*x:%*x %*x %u %*d %lu",
			   addr, &port, &uid, &inode) != 4 || port != UROCE_UDP_PORT)
			continue;
		/* the wildcard address, or this one */
		if (strspn(addr, "0") != strlen(addr) && strcasecmp(addr, mine))
			continue;
		if (!inode) {
			snprintf(buf, cap, "the kernel (an rxe device in this network namespace?)");
			break;
		}
		if (uid == getuid())
			continue;
		pw = getpwuid(uid);
		snprintf(buf, cap, "user %s (uid %u)", pw ? pw->pw_name : "?", uid);
		break;
	}
	fclose(f);
}

/* Why the socket on a could not be bound, logged */
static void bind_error(const union uroce_sockaddr *a, int err)
{
	char who[128], ip[UROCE_SA_STRLEN];

	uroce_sa_str(a, ip);
	if (err == EADDRINUSE) {
		port_holder(a, who, sizeof(who));
		sv_err("uroce: UDP port %d on %s is held by %s: uroce shares it only among one user's processes",
		       UROCE_UDP_PORT, ip, who);
	} else {
		sv_err("uroce: bind UDP %s port %d: %s", ip, UROCE_UDP_PORT,
		       strerror(err));
	}
}

static int attach_filter(int fd)
{
	struct sock_filter code[] = {
		/* A = BTH byte 5, the destination QPN's top byte */
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 5),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_fprog prog;

	/* its padding too: the kernel copies the whole struct (valgrind) */
	memset(&prog, 0, sizeof(prog));
	prog.len = 2;
	prog.filter = code;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
		       sizeof(prog)))
		return errno;
	return 0;
}

static int set_opt(int fd, int level, int name, int value)
{
	return setsockopt(fd, level, name, &value, sizeof(value)) ? errno : 0;
}

/* What rxe sends, and what it must be able to send to us: DF (IPv4) or
 * no fragments (IPv6), UDP checksum 0 (IPv6 too: rxe's tunnel socket
 * takes zero checksums, UDP_NO_CHECK6_RX, and sends them) */
static int socket_opts(int fd, int family)
{
	int ret = set_opt(fd, SOL_SOCKET, SO_REUSEPORT, 1);

	if (family == AF_INET) {
		if (!ret)
			ret = set_opt(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
		if (!ret)
			ret = set_opt(fd, SOL_SOCKET, SO_NO_CHECK, 1);
		return ret;
	}
	if (!ret)
		ret = set_opt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	if (!ret)
		ret = set_opt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO);
	if (!ret)
		ret = set_opt(fd, IPPROTO_UDP, UDP_NO_CHECK6_TX, 1);
	if (!ret)
		ret = set_opt(fd, IPPROTO_UDP, UDP_NO_CHECK6_RX, 1);
	return ret;
}

/* The endpoint's socket: 0, or a positive errno (ep->err), logged when
 * loud (the first address), else noted (info): the others' errors are
 * the AVs' that name them (uroce_net_check_src). */
static int open_socket(struct endpoint *ep, bool loud)
{
	char ip[UROCE_SA_STRLEN];
	int fd = socket(ep->addr.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0) {
		ret = errno;
		goto err_log;
	}
	ret = socket_opts(fd, ep->addr.sa.sa_family);
	if (ret) {
		sv_err("uroce: UDP socket options: %s", strerror(ret));
		goto err;
	}
	/* the kernel caps it at net.core.rmem_max: best effort */
	(void)set_opt(fd, SOL_SOCKET, SO_RCVBUF, 4 << 20);
	if (bind(fd, &ep->addr.sa, uroce_sa_len(&ep->addr))) {
		ret = errno;
		goto err_log;
	}
	ret = attach_filter(fd);
	if (ret) {
		sv_err("uroce: SO_ATTACH_REUSEPORT_CBPF: %s", strerror(ret));
		goto err;
	}
	ep->fd = fd;
	return 0;

err_log:
	if (loud)
		bind_error(&ep->addr, ret);
	else
		sv_info("uroce: no socket on %s: %s; its GIDs carry no traffic",
			uroce_sa_str(&ep->addr, ip), strerror(ret));
err:
	if (fd >= 0)
		close(fd);
	ep->err = ret;
	return ret;
}

int uroce_net_check_src(struct uroce_context *ctx,
			const union uroce_sockaddr *src)
{
	struct endpoint *ep = ep_of(ctx->net, src);
	char ip[UROCE_SA_STRLEN];

	if (!ep) {
		sv_err("uroce: no socket of this context is bound to %s: it has one on each address %s had at its first QP",
		       uroce_sa_str(src, ip), ctx->netdev);
		return EINVAL;
	}
	if (ep->fd >= 0)
		return 0;
	bind_error(&ep->addr, ep->err);
	return ep->err;
}

/* ---- forwarding between the user's contexts --------------------------------- */

/* dir exists, is ours and only ours: 0 or a positive errno */
static int dir_ready(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return errno;
	if (lstat(dir, &st))
		return errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077))
		return EPERM;
	return 0;
}

static int fwd_setup_dir(struct uroce_net *net)
{
	struct stat ns;
	int ret = EINVAL;

	if (stat("/proc/self/ns/net", &ns))
		return errno;
	net->ns_ino = (unsigned long long)ns.st_ino;
	for (int fallback = 0; fallback < 2; fallback++) {
		if (!uroce_runtime_dir(net->fwd_dir, sizeof(net->fwd_dir),
				       fallback))
			continue;
		ret = dir_ready(net->fwd_dir);
		if (!ret)
			return 0;
	}
	sv_err("uroce: no private folder for the forwarding sockets (%s: %s)",
	       net->fwd_dir, strerror(ret));
	return ret;
}

/* FNV-1a, 64 bits: an IPv6 address and its scope in a name short enough
 * for sun_path */
static unsigned long long fnv1a(const uint8_t *p, size_t len)
{
	unsigned long long h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/* The name of the context whose QPNs carry slot, in this namespace, on
 * ep's address. */
static void fwd_name(const struct uroce_net *net, const struct endpoint *ep,
		     uint32_t slot, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (ep->addr.sa.sa_family == AF_INET6) {
		uint8_t key[20];

		memcpy(key, &ep->addr.sin6.sin6_addr, 16);
		memcpy(key + 16, &ep->addr.sin6.sin6_scope_id, 4);
		snprintf(sun->sun_path, sizeof(sun->sun_path), "%s/%llx-6-%016llx-%u",
			 net->fwd_dir, net->ns_ino, fnv1a(key, sizeof(key)), slot);
		return;
	}
	snprintf(sun->sun_path, sizeof(sun->sun_path), "%s/%llx-%08x-%u",
		 net->fwd_dir, net->ns_ino,
		 (unsigned int)ntohl(ep->addr.sin.sin_addr.s_addr), slot);
}

/* A name left by a context that died holds no socket: connecting to it
 * is refused. */
static bool name_stale(const struct sockaddr_un *sun)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool stale;

	if (fd < 0)
		return false;
	stale = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) &&
		errno == ECONNREFUSED;
	close(fd);
	return stale;
}

static bool fwd_bind(struct uroce_net *net, struct endpoint *ep, uint32_t slot)
{
	struct sockaddr_un sun;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return false;
	fwd_name(net, ep, slot, &sun);
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
			ep->fwd_name = sun;
			ep->fwd_fd = fd;
			return true;
		}
		if (errno != EADDRINUSE || !name_stale(&sun))
			break;
		unlink(sun.sun_path);
	}
	close(fd);
	return false;
}

/* Give the name back (the process that bound it) and close it */
static void fwd_release(struct endpoint *ep, bool unlink_name)
{
	if (ep->fwd_fd < 0)
		return;
	if (unlink_name)
		unlink(ep->fwd_name.sun_path);
	close(ep->fwd_fd);
	ep->fwd_fd = -1;
}

/* The slot's name on every address the context has a socket on, or
 * none of them */
static bool claim(struct uroce_net *net, uint32_t slot)
{
	for (unsigned int i = 0; i < net->nep; i++) {
		if (net->ep[i].fd < 0 || fwd_bind(net, &net->ep[i], slot))
			continue;
		while (i--)
			fwd_release(&net->ep[i], true);
		return false;
	}
	net->slot = slot;
	return true;
}

/* The slot of the context's QPNs: its first socket's index when no
 * other context's QPNs carry that number on any of its addresses (one
 * that moved there keeps its own), else the first free one. */
static int fwd_claim(struct uroce_net *net, uint32_t index)
{
	int ret = fwd_setup_dir(net);

	if (ret)
		return ret;
	if (claim(net, index))
		return 0;
	for (uint32_t slot = 0; slot < MAX_SLOTS; slot++) {
		if (slot != index && claim(net, slot)) {
			sv_info("uroce: socket index %u is another context's QPN slot; QPNs of slot %u, their packets forwarded",
				index, slot);
			return 0;
		}
	}
	sv_err("uroce: every one of the %d QPN slots is taken on one of the interface's addresses",
	       MAX_SLOTS);
	return EADDRINUSE;
}

/* A datagram that reached ep for another context's QPs: to its socket
 * on that address (dropped as an unknown QPN when there is none). */
static void fwd_send(struct uroce_net *net, const struct endpoint *ep,
		     const uint8_t *buf, size_t len,
		     const union uroce_sockaddr *src, uint32_t slot)
{
	struct fwd_hdr hdr = { .src = *src };
	struct sockaddr_un to;
	struct iovec iov[2] = { { &hdr, sizeof(hdr) },
				{ (void *)buf, len } };
	struct msghdr msg = { .msg_name = &to, .msg_namelen = sizeof(to),
			      .msg_iov = iov, .msg_iovlen = 2 };

	fwd_name(net, ep, slot, &to);
	if (sendmsg(ep->fwd_fd, &msg, MSG_DONTWAIT) < 0)
		uroce_count(net->ctx, UROCE_CTR_UNKNOWN_QPN);
	else
		uroce_count(net->ctx, UROCE_CTR_FORWARDED);
}

/* ---- finding the socket's index: probes ------------------------------------ */

static void probe_build(const struct uroce_net *net, uint8_t *p, uint32_t k)
{
	memset(p, 0, PROBE_BYTES);
	p[0] = PROBE_OPCODE;
	p[5] = (uint8_t)k;
	memcpy(p + UROCE_BTH_BYTES, PROBE_MAGIC, PROBE_MAGIC_BYTES);
	memcpy(p + UROCE_BTH_BYTES + PROBE_MAGIC_BYTES, net->nonce, 8);
	p[PROBE_BYTES - 1] = (uint8_t)k;
}

static bool is_probe(const uint8_t *p, size_t len)
{
	return len == PROBE_BYTES && p[0] == PROBE_OPCODE &&
	       !memcmp(p + UROCE_BTH_BYTES, PROBE_MAGIC, PROBE_MAGIC_BYTES);
}

/* A datagram for a QP that reached the socket before its context could
 * forward it (the socket's index may be one that other contexts' QPNs
 * name, or the kernel's hash may pick it): kept, to be handed on once
 * the slot is known. */
static void hold(struct uroce_net *net, const uint8_t *buf, size_t len,
		 const union uroce_sockaddr *src)
{
	struct held *h;

	if (net->nheld >= HELD_MAX || !(h = malloc(sizeof(*h) + len))) {
		uroce_count(net->ctx, UROCE_CTR_UNKNOWN_QPN);
		return;
	}
	h->next = NULL;
	h->src = *src;
	h->len = len;
	memcpy(h->data, buf, len);
	*net->held_tail = h;
	net->held_tail = &h->next;
	net->nheld++;
}

/* Our probes that arrive within PROBE_QUIET_MS of each other: the
 * smallest k, or MAX_SLOTS for none. Others' probes are dropped, every
 * other datagram held. */
static uint32_t probe_collect(struct uroce_net *net)
{
	uint32_t best = MAX_SLOTS;
	uint8_t buf[RX_BYTES];
	struct pollfd pfd = { .fd = net->ep[0].fd, .events = POLLIN };

	while (poll(&pfd, 1, PROBE_QUIET_MS) > 0) {
		union uroce_sockaddr src;
		socklen_t srclen = sizeof(src);
		ssize_t n = recvfrom(net->ep[0].fd, buf, sizeof(buf), MSG_DONTWAIT,
				     &src.sa, &srclen);

		if (n < 0)
			continue;
		if (!is_probe(buf, (size_t)n)) {
			hold(net, buf, (size_t)n, &src);
			continue;
		}
		if (memcmp(buf + UROCE_BTH_BYTES + PROBE_MAGIC_BYTES, net->nonce, 8))
			continue;
		if (buf[PROBE_BYTES - 1] < best)
			best = buf[PROBE_BYTES - 1];
	}
	return best;
}

static int probe_slot(struct uroce_net *net)
{
	uint8_t p[PROBE_BYTES];

	for (uint32_t base = 0; base < MAX_SLOTS; base += PROBE_BATCH) {
		uint32_t got;

		for (uint32_t k = base; k < base + PROBE_BATCH; k++) {
			probe_build(net, p, k);
			if (sendto(net->ep[0].fd, p, sizeof(p), 0,
				   &net->ep[0].addr.sa,
				   uroce_sa_len(&net->ep[0].addr)) < 0) {
				sv_err("uroce: probe: %s", strerror(errno));
				return errno;
			}
		}
		got = probe_collect(net);
		if (got < MAX_SLOTS) {
			sv_dbg("uroce: the socket's index in its group: %u", got);
			return fwd_claim(net, got);
		}
	}
	sv_err("uroce: found no place of the socket in the UDP %d group (more than %d contexts on one address?)",
	       UROCE_UDP_PORT, MAX_SLOTS);
	return EADDRINUSE;
}

/* ---- sending ------------------------------------------------------------------ */

static void ipudp_of(struct uroce_ipudp *n, const union uroce_sockaddr *src,
		      const union uroce_sockaddr *dst)
{
	memset(n, 0, sizeof(*n));
	if (src->sa.sa_family == AF_INET6) {
		/* no ID, no fragments; the rest is masked */
		n->ipv6 = true;
		memcpy(n->saddr, &src->sin6.sin6_addr, 16);
		memcpy(n->daddr, &dst->sin6.sin6_addr, 16);
		n->sport = ntohs(src->sin6.sin6_port);
		n->dport = ntohs(dst->sin6.sin6_port);
		return;
	}
	memcpy(n->saddr, &src->sin.sin_addr, 4);
	memcpy(n->daddr, &dst->sin.sin_addr, 4);
	n->ip4_id = 0;           /* DF on an unconnected socket */
	n->ip4_frag_off = 0x4000; /* DF */
	n->sport = ntohs(src->sin.sin_port);
	n->dport = ntohs(dst->sin.sin_port);
}

/* The endpoint to send from src: NULL (logged) when there is none. */
static struct endpoint *send_ep(struct uroce_net *net,
				const union uroce_sockaddr *src)
{
	struct endpoint *ep = ep_of(net, src);
	char ip[UROCE_SA_STRLEN];

	if (!ep || ep->fd < 0) {
		sv_err("uroce: no socket to send from %s", uroce_sa_str(src, ip));
		return NULL;
	}
	return ep;
}

/* One packet onto the socket as it is, and into the capture. */
static int wire_send(struct uroce_context *ctx, const struct uroce_route *route,
		     const uint8_t *pkt, size_t len)
{
	struct uroce_net *net = ctx->net;
	struct endpoint *ep = send_ep(net, &route->src);
	const union uroce_sockaddr *dst = &route->dst;
	ssize_t sent;

	if (!ep)
		return EADDRNOTAVAIL;
	do
		sent = sendto(ep->fd, pkt, len, 0, &dst->sa, uroce_sa_len(dst));
	while (sent < 0 && errno == EINTR);
	if (sent < 0) {
		int err = errno;
		char ip[UROCE_SA_STRLEN];

		sv_err("uroce: send to %s: %s", uroce_sa_str(dst, ip),
		       strerror(err));
		uroce_count(ctx, UROCE_CTR_SEND_ERR);
		return err;
	}
	uroce_count(ctx, UROCE_CTR_SENT_PKTS);
	uroce_pcap_write(net->pcap, &ep->addr, dst, pkt, len);
	return 0;
}

int uroce_net_send(struct uroce_context *ctx, const struct uroce_route *route,
		   uint8_t *pkt, size_t len)
{
	struct uroce_net *net = ctx->net;
	struct endpoint *ep = send_ep(net, &route->src);
	struct uroce_ipudp n;

	if (!ep)
		return EADDRNOTAVAIL;
	ipudp_of(&n, &ep->addr, &route->dst);
	uroce_icrc_fill(&n, pkt, len);
	if (net->fault)
		return uroce_fault_send(net->fault, route, pkt, len);
	return wire_send(ctx, route, pkt, len);
}

/* ---- the progress thread ----------------------------------------------------------- */

static void count_drop(struct uroce_net *net, enum uroce_drop why)
{
	uroce_count(net->ctx, uroce_ctr_of_drop(why));
}

enum uroce_drop uroce_net_deliver(struct uroce_context *ctx, const uint8_t *buf,
				  size_t len, const union uroce_sockaddr *src,
				  const union uroce_sockaddr *dst)
{
	struct uroce_ipudp n;
	struct uroce_pkt pkt;
	struct uroce_qp *qp;
	enum uroce_drop why;

	why = uroce_parse(buf, len, &pkt);
	if (why == UROCE_DROP_OK) {
		uint16_t ip4_id;

		/* the sender's IPv4 ID is not shown to a UDP socket: 0 from
		 * an unconnected socket with DF (uroce), another from rxe
		 * (__ip_select_ident), recovered from the ICRC itself; IPv6
		 * has none, and every field it does not mask is known */
		ipudp_of(&n, src, dst);
		why = n.ipv6 ? uroce_icrc_check(&n, buf, len) :
			       uroce_icrc_check_ip4(&n, buf, len, &ip4_id);
	}
	if (why != UROCE_DROP_OK)
		return why;
	qp = uroce_qp_find(ctx, pkt.bth.dest_qpn);
	if (!qp)
		return UROCE_DROP_COUNT;
	why = uroce_check_qpt(&pkt, qp->core.qp.qp_type == IBV_QPT_RC ? UROCE_QPT_RC :
				    qp->core.qp.qp_type == IBV_QPT_UC ? UROCE_QPT_UC :
									 UROCE_QPT_UD);
	if (why != UROCE_DROP_OK)
		return why;
	pthread_mutex_lock(&qp->lock);
	if (pkt.flags & UROCE_OPF_ACK)
		uroce_req_ack(qp, &pkt);
	else
		uroce_resp_request(qp, &pkt, src, dst);
	pthread_mutex_unlock(&qp->lock);
	return UROCE_DROP_OK;
}

/* One datagram from src to ep's address, received or forwarded:
 * qp_lock held. */
static void handle(struct uroce_context *ctx, const struct endpoint *ep,
		   const uint8_t *buf, size_t len,
		   const union uroce_sockaddr *src, bool forwarded)
{
	struct uroce_net *net = ctx->net;
	enum uroce_drop why;

	if (is_probe(buf, len))
		return;
	/* another context's QPN (its socket moved in the group, or ours
	 * holds its index, or its index differs in this address's
	 * group): to that context, once */
	if (len >= UROCE_BTH_BYTES && buf[5] != net->slot) {
		if (forwarded)
			uroce_count(ctx, UROCE_CTR_UNKNOWN_QPN);
		else
			fwd_send(net, ep, buf, len, src, buf[5]);
		return;
	}
	uroce_count(ctx, UROCE_CTR_RCVD_DATAGRAMS);
	uroce_pcap_write(net->pcap, src, &ep->addr, buf, len);
	why = uroce_net_deliver(ctx, buf, len, src, &ep->addr);
	if (why == UROCE_DROP_OK)
		uroce_count(ctx, UROCE_CTR_RCVD_PKTS);
	else if (why == UROCE_DROP_COUNT)
		uroce_count(ctx, UROCE_CTR_UNKNOWN_QPN);
	else
		count_drop(net, why);
}

/* The datagrams waiting on ep's socket, at most budget of them
 * (qp_lock held: taking a datagram and handling it are one step, so
 * that two receiving threads never reorder a QP's packets): false when
 * the socket failed. */
static bool drain(struct uroce_context *ctx, const struct endpoint *ep,
		  uint8_t *buf, unsigned int budget)
{
	struct uroce_net *net = ctx->net;

	while (budget--) {
		union uroce_sockaddr src;
		struct iovec iov = { .iov_base = buf, .iov_len = RX_BYTES };
		struct msghdr msg = { .msg_name = &src,
				      .msg_namelen = sizeof(src),
				      .msg_iov = &iov,
				      .msg_iovlen = 1 };
		ssize_t n = recvmsg(ep->fd, &msg, MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if (msg.msg_flags & MSG_TRUNC) {
			count_drop(net, UROCE_DROP_TOO_LONG);
			continue;
		}
		handle(ctx, ep, buf, (size_t)n, &src, false);
	}
	return true;
}

/* The same for the datagrams other contexts forwarded to ep's name
 * (qp_lock held). */
static void drain_fwd(struct uroce_context *ctx, const struct endpoint *ep,
		      uint8_t *buf, unsigned int budget)
{
	while (budget--) {
		struct fwd_hdr hdr;
		struct iovec iov[2] = { { &hdr, sizeof(hdr) },
					{ buf, RX_BYTES } };
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
		ssize_t n = recvmsg(ep->fwd_fd, &msg, MSG_DONTWAIT);

		if (n < 0)
			return;
		if (n < (ssize_t)sizeof(hdr) || (msg.msg_flags & MSG_TRUNC) ||
		    hdr.src.sa.sa_family != ep->addr.sa.sa_family)
			continue;
		handle(ctx, ep, buf, (size_t)n - sizeof(hdr), &hdr.src, true);
	}
}

void uroce_net_progress(struct uroce_context *ctx)
{
	uint8_t buf[RX_BYTES];

	/* the progress thread is receiving: nothing to add */
	if (pthread_mutex_trylock(&ctx->qp_lock))
		return;
	for (unsigned int i = 0; ctx->net && i < ctx->net->nep; i++) {
		const struct endpoint *ep = &ctx->net->ep[i];

		if (ep->fd < 0)
			continue;
		drain(ctx, ep, buf, POLL_BUDGET);
		drain_fwd(ctx, ep, buf, POLL_BUDGET);
	}
	pthread_mutex_unlock(&ctx->qp_lock);
}

/* A timer tick since *last (CLOCK_MONOTONIC), which moves on. */
static bool tick_due(struct timespec *last)
{
	struct timespec now;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (uint64_t)(now.tv_sec - last->tv_sec) * 1000000000u +
	     (uint64_t)now.tv_nsec - (uint64_t)last->tv_nsec;
	if (ns < UROCE_TIMER_TICK_NS)
		return false;
	*last = now;
	return true;
}

static void *progress(void *arg)
{
	struct uroce_context *ctx = arg;
	struct uroce_net *net = ctx->net;
	uint8_t *buf = malloc(RX_BYTES);
	struct timespec last_tick = { 0 };

	sem_post(&net->ready);
	if (!buf) {
		sv_err("uroce: progress thread: out of memory");
		return NULL;
	}
	for (;;) {
		/* the stop pipe, the faults' timer (-1 without faults: poll
		 * skips it, as an endpoint without a socket), then each
		 * endpoint's socket and name */
		struct pollfd pfd[2 + 2 * MAX_EPS] = {
			{ .fd = net->stop_rd, .events = POLLIN },
			{ .fd = uroce_fault_timer_fd(net->fault), .events = POLLIN },
		};
		nfds_t nfds = 2;
		bool timers, ok = true;

		for (unsigned int i = 0; i < net->nep; i++) {
			pfd[nfds++] = (struct pollfd){ .fd = net->ep[i].fd, .events = POLLIN };
			pfd[nfds++] = (struct pollfd){ .fd = net->ep[i].fwd_fd, .events = POLLIN };
		}
		pthread_mutex_lock(&ctx->qp_lock);
		timers = ctx->rc_qps != NULL;
		pthread_mutex_unlock(&ctx->qp_lock);
		if (timers && tick_due(&last_tick)) {
			pthread_mutex_lock(&ctx->qp_lock);
			uroce_req_timers(ctx);
			pthread_mutex_unlock(&ctx->qp_lock);
		}
		if (poll(pfd, nfds, timers ? (int)(UROCE_TIMER_TICK_NS / 1000000) : -1) < 0) {
			if (errno == EINTR)
				continue;
			sv_err("uroce: progress thread: poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents)
			break;
		if (pfd[1].revents)
			uroce_fault_flush(net->fault);
		for (unsigned int i = 0; ok && i < net->nep; i++) {
			const struct endpoint *ep = &net->ep[i];

			if (!pfd[2 + 2 * i].revents && !pfd[3 + 2 * i].revents)
				continue;
			pthread_mutex_lock(&ctx->qp_lock);
			ok = drain(ctx, ep, buf, THREAD_BUDGET);
			drain_fwd(ctx, ep, buf, THREAD_BUDGET);
			pthread_mutex_unlock(&ctx->qp_lock);
		}
		if (!ok) {
			sv_err("uroce: progress thread: receive: %s",
			       strerror(errno));
			break;
		}
	}
	free(buf);
	return NULL;
}

static int start_thread(struct uroce_context *ctx)
{
	struct uroce_net *net = ctx->net;
	sigset_t all, old;
	int fds[2], ret;

	if (pipe2(fds, O_CLOEXEC))
		return errno;
	if (sem_init(&net->ready, 0, 0)) {
		ret = errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	net->stop_rd = fds[0];
	net->stop_wr = fds[1];
	/* the thread inherits the mask: it takes none of the program's
	 * signals */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&net->thread, NULL, progress, ctx);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		sem_destroy(&net->ready);
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	/* it never takes qp_lock (held here) before posting */
	while (sem_wait(&net->ready) && errno == EINTR)
		;
	sem_destroy(&net->ready);
	net->pid = getpid();
	return 0;
}

/* ---- start, stop -------------------------------------------------------------- */

static void free_held(struct uroce_net *net)
{
	while (net->held) {
		struct held *next = net->held->next;

		free(net->held);
		net->held = next;
	}
	net->held_tail = &net->held;
	net->nheld = 0;
}

/* Close the endpoints' sockets, and give their names back when this
 * process bound them */
static void close_eps(struct uroce_net *net, bool unlink_names)
{
	for (unsigned int i = 0; i < net->nep; i++) {
		fwd_release(&net->ep[i], unlink_names);
		if (net->ep[i].fd >= 0)
			close(net->ep[i].fd);
		net->ep[i].fd = -1;
	}
}

/* Every address's socket, one after the other (so that contexts that
 * start alike take alike places in every group, and their QPNs' slot
 * is their index in all): the first must open, the others may not. */
static int open_sockets(struct uroce_net *net)
{
	int ret = open_socket(&net->ep[0], true);

	for (unsigned int i = 1; !ret && i < net->nep; i++)
		(void)open_socket(&net->ep[i], false);
	return ret;
}

/* "a, b and c": the addresses with a socket, for the log */
static void eps_text(const struct uroce_net *net, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < net->nep && n < cap; i++) {
		char ip[UROCE_SA_STRLEN];

		if (net->ep[i].fd < 0)
			continue;
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "",
				      uroce_sa_str(&net->ep[i].addr, ip));
	}
}

int uroce_net_start(struct uroce_context *ctx)
{
	struct uroce_net *net;
	char addrs[256];
	int ret;

	if (ctx->net)
		return 0;
	net = calloc(1, sizeof(*net));
	if (!net)
		return ENOMEM;
	net->held_tail = &net->held;
	net->ctx = ctx;
	ret = list_addrs(ctx, net);
	if (ret)
		goto err_free;
	if (getrandom(net->nonce, sizeof(net->nonce), 0) != sizeof(net->nonce)) {
		ret = errno ? errno : EIO;
		goto err_free;
	}
	ret = open_sockets(net);
	if (ret)
		goto err_close;
	ret = probe_slot(net);
	if (ret)
		goto err_close;
	/* the folder probe_slot's forwarding made sure of */
	ret = uroce_counters_open(ctx, net->fwd_dir, net->ns_ino);
	if (ret)
		goto err_close;
	net->pcap = uroce_pcap_open(ctx->netdev);
	net->fault = uroce_fault_open(ctx, wire_send);
	ctx->net = net;
	ret = start_thread(ctx);
	if (ret) {
		ctx->net = NULL;
		sv_err("uroce: progress thread: %s", strerror(ret));
		uroce_fault_free(net->fault);
		uroce_pcap_close(net->pcap);
		uroce_counters_close(ctx);
		goto err_close;
	}
	eps_text(net, addrs, sizeof(addrs));
	sv_info("uroce: %s: UDP port %d on %s, place %u in its group", ctx->netdev,
		UROCE_UDP_PORT, addrs, net->slot);
	/* before anything the thread receives (it waits for qp_lock) */
	for (struct held *h = net->held; h; h = h->next)
		handle(ctx, &net->ep[0], h->data, h->len, &h->src, false);
	free_held(net);
	return 0;

err_close:
	close_eps(net, true);
err_free:
	free_held(net);
	free(net);
	return ret;
}

/* What the context's socket carried, at close (info): the numbers the
 * capture and fault tests check. */
static void log_summary(struct uroce_context *ctx)
{
	struct uroce_net *net = ctx->net;
	char faults[256] = "", drops[512] = "";
	size_t n = 0;

	if (sv_log_level < SV_LOG_INFO)
		return;
	if (net->fault)
		uroce_fault_summary(net->fault, faults, sizeof(faults));
	for (int why = 1; why < UROCE_DROP_COUNT; why++) {
		uint64_t c = uroce_ctr_get(ctx, uroce_ctr_of_drop((enum uroce_drop)why));

		if (c && n < sizeof(drops))
			n += (size_t)snprintf(drops + n, sizeof(drops) - n, "%s%llu %s",
					      n ? ", " : "; dropped: ",
					      (unsigned long long)c,
					      uroce_drop_name((enum uroce_drop)why));
	}
	sv_info("uroce: %s: %llu packets sent, %llu received%s", ctx->netdev,
		(unsigned long long)uroce_ctr_get(ctx, UROCE_CTR_SENT_PKTS),
		(unsigned long long)uroce_ctr_get(ctx, UROCE_CTR_RCVD_DATAGRAMS),
		drops);
	if (net->fault)
		sv_info("uroce: %s: faults: %s", ctx->netdev, faults);
}

void uroce_net_stop(struct uroce_context *ctx)
{
	struct uroce_net *net = ctx->net;

	if (!net)
		return;
	/* in a forked child there is no thread to stop */
	if (net->pid == getpid()) {
		if (write(net->stop_wr, "", 1) != 1)
			sv_err("uroce: stopping the progress thread: %s",
			       strerror(errno));
		pthread_join(net->thread, NULL);
	}
	/* what is still delayed or held goes out (not from a forked
	 * child: its parent sends them) */
	uroce_fault_drain(net->fault, net->pid == getpid());
	log_summary(ctx);
	uroce_counters_close(ctx);
	uroce_fault_free(net->fault);
	uroce_pcap_close(net->pcap);
	/* the names are the process's that bound them, not a forked
	 * child's */
	close_eps(net, net->pid == getpid());
	close(net->stop_rd);
	close(net->stop_wr);
	free(net);
	ctx->net = NULL;
}
