/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/integration/mpi_check.c -- what an MPI user sees of the verbs
 * library under Open MPI's UCX path: a ping-pong that moves checked data
 * between two ranks, and an MPI_Allreduce whose sum is checked. Built with
 * mpicc (tests/vm/check-pair), run by tests/integration/pair_mpi.sh on
 * the two VMs of tests/vm/pair, one rank each.
 *
 *   mpi_check [-n ROUNDS]
 *
 * Rank 0 sends ROUNDS (default 100) messages of 8 bytes, then of 64 KiB,
 * to rank 1, which sends each one back. Every message carries its round
 * number at both ends and a pattern between them; rank 1 checks what it
 * received, rank 0 checks that what came back is what it sent. The clock
 * runs on rank 0 around its send and receive only. Then an MPI_Allreduce
 * (MPI_SUM) of one value and of 8192 values, whose sums each rank knows.
 * Each rank prints the verbs libraries mapped into it (from
 * /proc/self/maps, after the traffic), so that the caller can tell which
 * libibverbs served it.
 *
 * Lines for a script (rank 0 prints all but "maps"):
 *   mpi_check: rank R pid P on HOST maps PATH
 *   mpi_check: pingpong BYTES B rounds N latency_us X bandwidth_MBps Y
 *   mpi_check: allreduce COUNT values rounds N sum ok latency_us X
 *   mpi_check: OK
 * latency_us is half a round trip; MB is 10^6 bytes. Exit 0 when all data
 * was right; 1 (through MPI_Abort) at the first wrong byte or sum, named
 * on stderr; 2 on bad usage or a world that is not two ranks. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define BIG_BYTES (64 * 1024)
#define REDUCE_COUNT 8192
#define WARMUP_ROUNDS 3

static int rank;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mpi_check: rank %d: WRONG DATA: ", rank);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static void check_rc(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "mpi_check: rank %d: %s failed (%d)\n", rank, what, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
		exit(1);
	}
}

/* The body of a message: a byte pattern that differs per position and
 * per size; the round number goes into the first and last 8 bytes. */
static void fill(unsigned char *buf, size_t len_bytes)
{
	for (size_t i = 0; i < len_bytes; i++)
		buf[i] = (unsigned char)(i * 131 + len_bytes + 7);
}

static void stamp(unsigned char *buf, size_t len_bytes, uint64_t round)
{
	memcpy(buf, &round, sizeof(round));
	memcpy(buf + len_bytes - sizeof(round), &round, sizeof(round));
}

/* Message `got` is `want` (the pattern stamped with `round`): the offset
 * of the first wrong byte, or -1. */
static long first_wrong(const unsigned char *got, const unsigned char *want,
			size_t len_bytes)
{
	if (memcmp(got, want, len_bytes) == 0)
		return -1;
	for (size_t i = 0; i < len_bytes; i++)
		if (got[i] != want[i])
			return (long)i;
	return -1;
}

/* One size: rank 0 sends, rank 1 echoes; both check every message. */
static void pingpong(size_t len_bytes, int rounds)
{
	unsigned char *sbuf = malloc(len_bytes), *rbuf = malloc(len_bytes);
	double usec = 0;
	long bad;

	if (!sbuf || !rbuf)
		fail("malloc of %zu bytes", len_bytes);
	fill(sbuf, len_bytes);
	for (int r = -WARMUP_ROUNDS; r < rounds; r++) {
		uint64_t round = (uint64_t)(r + WARMUP_ROUNDS) + 1;

		stamp(sbuf, len_bytes, round);
		memset(rbuf, 0xa5, len_bytes);
		if (rank == 0) {
			double t0 = MPI_Wtime();

			check_rc(MPI_Send(sbuf, (int)len_bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD),
				 "MPI_Send");
			check_rc(MPI_Recv(rbuf, (int)len_bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD,
					  MPI_STATUS_IGNORE), "MPI_Recv");
			if (r >= 0)
				usec += (MPI_Wtime() - t0) * 1e6;
		} else {
			check_rc(MPI_Recv(rbuf, (int)len_bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
					  MPI_STATUS_IGNORE), "MPI_Recv");
			check_rc(MPI_Send(rbuf, (int)len_bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD),
				 "MPI_Send");
		}
		bad = first_wrong(rbuf, sbuf, len_bytes);
		if (bad >= 0)
			fail("%zu-byte message of round %" PRIu64 ": byte %ld is 0x%02x, not 0x%02x",
			     len_bytes, round, bad, rbuf[bad], sbuf[bad]);
	}
	if (rank == 0) {
		double lat = usec / (2.0 * rounds);

		printf("mpi_check: pingpong %zu B rounds %d latency_us %.2f bandwidth_MBps %.2f\n",
		       len_bytes, rounds, lat, (double)len_bytes / lat);
	}
	free(sbuf);
	free(rbuf);
}

/* MPI_SUM of `count` int64 values, value i of rank r being
 * (r + 1) * 1000003 + i * (r + 7): each rank knows the sum. */
static void allreduce(int count, int rounds, int size)
{
	int64_t *in = malloc(sizeof(*in) * (size_t)count);
	int64_t *out = malloc(sizeof(*out) * (size_t)count);
	double usec = 0;

	if (!in || !out)
		fail("malloc of %d values", count);
	for (int r = 0; r < rounds; r++) {
		double t0;

		for (int i = 0; i < count; i++) {
			in[i] = (int64_t)(rank + 1) * 1000003 + (int64_t)i * (rank + 7) + r;
			out[i] = -1;
		}
		t0 = MPI_Wtime();
		check_rc(MPI_Allreduce(in, out, count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
			 "MPI_Allreduce");
		usec += (MPI_Wtime() - t0) * 1e6;
		for (int i = 0; i < count; i++) {
			int64_t want = 0;

			for (int p = 0; p < size; p++)
				want += (int64_t)(p + 1) * 1000003 + (int64_t)i * (p + 7) + r;
			if (out[i] != want)
				fail("allreduce of %d values, round %d: value %d is %" PRId64
				     ", not %" PRId64, count, r, i, out[i], want);
		}
	}
	if (rank == 0)
		printf("mpi_check: allreduce %d values rounds %d sum ok latency_us %.2f\n",
		       count, rounds, usec / rounds);
	free(in);
	free(out);
}

/* The verbs libraries mapped into this process, one line each. */
static void print_maps(void)
{
	char line[PATH_MAX + 256], host[256] = "?";
	FILE *f = fopen("/proc/self/maps", "re");
	int n = 0;

	gethostname(host, sizeof(host) - 1);
	if (!f) {
		printf("mpi_check: rank %d pid %d on %s maps unreadable\n", rank, (int)getpid(), host);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		unsigned long offset;

		/* one line per file: its segment at file offset 0 */
		if (!path || sscanf(line, "%*s %*s %lx", &offset) != 1 || offset != 0 ||
		    !(strstr(path, "/libibverbs.so") || strstr(path, "-rdmav")))
			continue;
		path[strcspn(path, "\n")] = '\0';
		printf("mpi_check: rank %d pid %d on %s maps %s\n", rank, (int)getpid(), host, path);
		n++;
	}
	if (!n)
		printf("mpi_check: rank %d pid %d on %s maps no verbs library\n", rank,
		       (int)getpid(), host);
	fclose(f);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int size, rounds = 100, opt;

	check_rc(MPI_Init(&argc, &argv), "MPI_Init");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt == 'n' && atoi(optarg) > 0) {
			rounds = atoi(optarg);
		} else {
			if (rank == 0)
				fprintf(stderr, "usage: mpi_check [-n ROUNDS]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "mpi_check: needs 2 ranks, not %d\n", size);
		MPI_Finalize();
		return 2;
	}

	pingpong(8, rounds);
	pingpong(BIG_BYTES, rounds);
	allreduce(1, 10, size);
	allreduce(REDUCE_COUNT, 10, size);
	fflush(stdout);
	/* rank 0's lines first, then rank 1's: both through mpirun's output */
	for (int r = 0; r < size; r++) {
		MPI_Barrier(MPI_COMM_WORLD);
		if (r == rank)
			print_maps();
	}
	MPI_Barrier(MPI_COMM_WORLD);
	check_rc(MPI_Finalize(), "MPI_Finalize");
	if (rank == 0)
		printf("mpi_check: OK\n");
	return 0;
}
