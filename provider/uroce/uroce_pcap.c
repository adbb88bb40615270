/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Captures on demand (issue 39): SOFTVERBS_UROCE_PCAP=FILE writes every
 * packet a context sends (after its faults: a lost one is not there, a
 * duplicate is there twice) and every packet it receives for its QPs
 * (as received: one whose ICRC fails is there too) to a pcap file.
 *
 * A UDP socket sees neither IP nor UDP header, so each record gets
 * synthesized ones in front of the BTH: IPv4 (DF, TTL 64, ID 0 — the
 * ID rxe sent is not known to the receiver) or IPv6 (hop limit 64,
 * traffic class and flow label 0), UDP with checksum 0 (as rxe sends
 * over both), the link type LINKTYPE_RAW (whose packets may be of
 * either version). Wireshark's InfiniBand
 * dissector takes UDP port 4791 as RoCE v2.
 *
 * Not captured: the probes a starting context sends itself to learn
 * its place in the port's SO_REUSEPORT group (BTH opcode 0xff, no RoCE
 * packet), and datagrams the context only forwards to the context whose
 * QPs they are for (that one captures them).
 *
 * One file per context: the name's %p is the pid, %h the host name, %%
 * a %, as SOFTVERBS_LOG_FILE's; the process's second capture and later
 * ones add .1, .2, ... to it. Created (truncated) with O_NOFOLLOW and
 * mode 0600; an error is logged and the context runs without capture. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "env.h"
#include "uroce.h"

#define ENV_NAME "SOFTVERBS_UROCE_PCAP"
#define LINKTYPE_RAW 101
#define SNAPLEN 65535
#define IP_HDR_BYTES 20
#define IP6_HDR_BYTES 40
#define UDP_HDR_BYTES 8

struct uroce_pcap {
	pthread_mutex_t lock;
	int fd;                        /* -1 once a write failed; lock */
	uint64_t written;              /* records; lock */
	char path[256];                /* immutable */
};

static _Atomic unsigned int captures;

/* pcap's headers are in the writer's byte order */
struct pcap_file_hdr {
	uint32_t magic;
	uint16_t version_major, version_minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec, ts_usec, incl_len, orig_len;
};

static bool write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

struct uroce_pcap *uroce_pcap_open(const char *netdev)
{
	const char *v = sv_env_path(ENV_NAME);
	struct pcap_file_hdr fh = {
		.magic = 0xa1b2c3d4, .version_major = 2, .version_minor = 4,
		.snaplen = SNAPLEN, .linktype = LINKTYPE_RAW,
	};
	struct uroce_pcap *pc;
	unsigned int no;
	size_t n;

	if (!v || !*v)
		return NULL;
	pc = calloc(1, sizeof(*pc));
	if (!pc) {
		sv_err("uroce: %s: %s", ENV_NAME, strerror(ENOMEM));
		return NULL;
	}
	n = sv_log_expand_path(pc->path, sizeof(pc->path), v);
	no = atomic_fetch_add(&captures, 1);
	if (n && no &&
	    (size_t)snprintf(pc->path + n, sizeof(pc->path) - n, ".%u", no) >=
		    sizeof(pc->path) - n)
		n = 0;
	if (!n) {
		sv_err("uroce: %s=%s: the name is too long; no capture", ENV_NAME, v);
		goto err_free;
	}
	pc->fd = open(pc->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	if (pc->fd < 0) {
		sv_err("uroce: %s: %s: %s; no capture", ENV_NAME, pc->path,
		       strerror(errno));
		goto err_free;
	}
	if (!write_all(pc->fd, &fh, sizeof(fh))) {
		sv_err("uroce: %s: %s: %s; no capture", ENV_NAME, pc->path,
		       strerror(errno ? errno : EIO));
		goto err_close;
	}
	pthread_mutex_init(&pc->lock, NULL);
	sv_info("uroce: %s: capturing its packets to %s", netdev, pc->path);
	return pc;

err_close:
	close(pc->fd);
err_free:
	free(pc);
	return NULL;
}

static uint16_t ip_checksum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The IP and UDP headers in front of a packet: an IPv4 header as the
 * socket sends it (DF, ID 0, TTL 64, with its checksum), or an IPv6 one
 * (hop limit 64, traffic class and flow label 0), and a UDP header with
 * checksum 0, as sent. Their length. */
static size_t ipudp_hdr(uint8_t *hdr, const union uroce_sockaddr *src,
			const union uroce_sockaddr *dst, size_t len)
{
	size_t udp_len = UDP_HDR_BYTES + len;
	uint8_t *udp;
	uint16_t csum;

	if (src->sa.sa_family == AF_INET6) {
		hdr[0] = 0x60;                  /* IPv6 */
		hdr[4] = (uint8_t)(udp_len >> 8);
		hdr[5] = (uint8_t)udp_len;
		hdr[6] = IPPROTO_UDP;
		hdr[7] = 64;                    /* hop limit */
		memcpy(hdr + 8, &src->sin6.sin6_addr, 16);
		memcpy(hdr + 24, &dst->sin6.sin6_addr, 16);
		udp = hdr + IP6_HDR_BYTES;
	} else {
		size_t total = IP_HDR_BYTES + udp_len;

		hdr[0] = 0x45;                  /* IPv4, 20 bytes */
		hdr[2] = (uint8_t)(total >> 8);
		hdr[3] = (uint8_t)total;
		hdr[6] = 0x40;                  /* DF */
		hdr[8] = 64;                    /* TTL */
		hdr[9] = IPPROTO_UDP;
		memcpy(hdr + 12, &src->sin.sin_addr, 4);
		memcpy(hdr + 16, &dst->sin.sin_addr, 4);
		csum = ip_checksum(hdr, IP_HDR_BYTES);
		hdr[10] = (uint8_t)(csum >> 8);
		hdr[11] = (uint8_t)csum;
		udp = hdr + IP_HDR_BYTES;
	}
	/* the ports sit at one place in both families */
	memcpy(udp, &src->sin.sin_port, 2);
	memcpy(udp + 2, &dst->sin.sin_port, 2);
	udp[4] = (uint8_t)(udp_len >> 8);
	udp[5] = (uint8_t)udp_len;
	return (size_t)(udp + UDP_HDR_BYTES - hdr);
}

void uroce_pcap_write(struct uroce_pcap *pc, const union uroce_sockaddr *src,
		      const union uroce_sockaddr *dst, const uint8_t *pkt,
		      size_t len)
{
	uint8_t hdr[IP6_HDR_BYTES + UDP_HDR_BYTES] = { 0 };
	size_t hlen, total, incl;
	struct pcap_rec_hdr rh;
	struct timeval tv;
	struct iovec iov[3];
	ssize_t n;

	if (!pc)
		return;
	hlen = ipudp_hdr(hdr, src, dst, len);
	total = hlen + len;
	incl = total > SNAPLEN ? SNAPLEN : total;
	gettimeofday(&tv, NULL);
	rh.ts_sec = (uint32_t)tv.tv_sec;
	rh.ts_usec = (uint32_t)tv.tv_usec;
	rh.incl_len = (uint32_t)incl;
	rh.orig_len = (uint32_t)total;
	iov[0] = (struct iovec){ &rh, sizeof(rh) };
	iov[1] = (struct iovec){ hdr, hlen };
	iov[2] = (struct iovec){ (void *)pkt, incl - hlen };

	pthread_mutex_lock(&pc->lock);
	if (pc->fd < 0)
		goto out;
	/* one writev per record: a short one only on a full disk */
	do
		n = writev(pc->fd, iov, 3);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)(sizeof(rh) + incl)) {
		sv_err("uroce: %s: %s: %s; capture stopped", ENV_NAME, pc->path,
		       n < 0 ? strerror(errno) : "short write");
		close(pc->fd);
		pc->fd = -1;
		goto out;
	}
	pc->written++;
out:
	pthread_mutex_unlock(&pc->lock);
}

void uroce_pcap_close(struct uroce_pcap *pc)
{
	if (!pc)
		return;
	sv_info("uroce: %s: %llu packets captured", pc->path,
		(unsigned long long)pc->written);
	if (pc->fd >= 0)
		close(pc->fd);
	pthread_mutex_destroy(&pc->lock);
	free(pc);
}
