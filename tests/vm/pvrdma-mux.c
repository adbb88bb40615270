/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pvrdma-mux: a stand-in for QEMU's contrib/rdmacm-mux, which Debian does not
 * ship. QEMU's -device pvrdma needs a mad-chardev; on every GID the guest
 * adds or removes, it writes one request to it and blocks its vCPU (holding
 * the big lock) until it has read back a whole response of the same size.
 * This program answers every request with "OK" and drops MADs (so no
 * rdma_cm through pvrdma; verbs with an out-of-band exchange do not need it).
 *
 * The message (RdmaCmMuxMsg in QEMU's contrib/rdmacm-mux/rdmacm-mux.h) is
 * 360 bytes on x86_64 with rdma-core 44's headers: the 16-byte GID union is
 * 8-byte aligned, so the trailing padding makes it 360, not 352. A short
 * response leaves the inner guest frozen for good. Only two fields matter
 * here: msg_type at offset 0 (0 request, 1 response) and err_code at
 * offset 24 (0 OK); op_code at offset 4 (0 GID register, 1 unregister,
 * 2 MAD) and the GID at offset 8 are logged.
 *
 * Usage: pvrdma-mux SOCKET   (unix stream socket; QEMU connects as client,
 *                             -chardev socket,path=SOCKET). Runs until killed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MUX_MSG_BYTES 360
#define MUX_OFF_TYPE 0
#define MUX_OFF_OP 4
#define MUX_OFF_GID 8
#define MUX_OFF_ERR 24
#define MUX_RESP 1

static int read_full(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n == 0)
			return got ? -EPROTO : 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return 1;
}

static int write_full(int fd, const unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void serve(int c)
{
	unsigned char msg[MUX_MSG_BYTES];
	uint32_t v;
	int rc;

	while ((rc = read_full(c, msg, sizeof(msg))) == 1) {
		uint32_t op;

		memcpy(&op, msg + MUX_OFF_OP, sizeof(op));
		fprintf(stderr, "pvrdma-mux: op %u gid ", op);
		for (int i = 0; i < 16; i++)
			fprintf(stderr, "%02x%s", msg[MUX_OFF_GID + i], i % 2 && i < 15 ? ":" : "");
		fputc('\n', stderr);
		v = MUX_RESP;
		memcpy(msg + MUX_OFF_TYPE, &v, sizeof(v));
		v = 0;
		memcpy(msg + MUX_OFF_ERR, &v, sizeof(v));
		if (write_full(c, msg, sizeof(msg)) < 0) {
			perror("pvrdma-mux: write");
			return;
		}
	}
	if (rc < 0)
		fprintf(stderr, "pvrdma-mux: read: %s\n", strerror(-rc));
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: pvrdma-mux SOCKET\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 4)) {
		perror("pvrdma-mux: socket");
		return 1;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c < 0) {
			if (errno == EINTR)
				continue;
			perror("pvrdma-mux: accept");
			return 1;
		}
		fprintf(stderr, "pvrdma-mux: QEMU connected\n");
		serve(c);
		close(c);
		fprintf(stderr, "pvrdma-mux: QEMU disconnected\n");
	}
}
