/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One cell of the fork-map benchmark: dlopen one libibverbs.so.1
 * (rdma-core's or softverbs'), hold N live one-page ranges, and time
 * register/deregister pairs (ibv_dontfork_range + ibv_dofork_range) of
 * one more page among them from T threads. Prints ns per pair.
 *
 * usage: forkmap LIB N_RANGES N_THREADS [huge]
 * "huge" sets RDMAV_HUGEPAGES_SAFE after the N ranges exist (rdma-core
 * would otherwise take hours to set up 30,000 ranges: it reads smaps on
 * every call). bench/forkmap.sh runs the table. */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef int (*range_fn)(void *, size_t);

static range_fn dontfork, dofork;
static char *region;
static size_t pg, nranges;
static pthread_barrier_t start_line;
static double budget_s = 0.4;

struct worker {
	unsigned int seed;
	unsigned long pairs;
	double seconds;
	int failed;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	double t0, t;

	pthread_barrier_wait(&start_line);
	t0 = now();
	do {
		for (int i = 0; i < 16; i++) {
			/* An odd page: between two live ranges. */
			char *p = region + (2 * ((size_t)rand_r(&w->seed) % nranges) + 1) * pg;

			if (dontfork(p, pg) || dofork(p, pg))
				w->failed = 1;
			w->pairs++;
			if (w->pairs < 64 && now() - t0 > budget_s)
				break;
		}
		t = now();
	} while (t - t0 < budget_s && w->pairs < 2000000);
	w->seconds = t - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	int (*fork_init)(void);
	struct worker w[64];
	pthread_t th[64];
	size_t nthreads;
	double ns = 0;
	void *lib;

	if (argc < 4) {
		fprintf(stderr, "usage: %s LIB N_RANGES N_THREADS [huge]\n", argv[0]);
		return 2;
	}
	nranges = strtoul(argv[2], NULL, 0);
	nthreads = strtoul(argv[3], NULL, 0);
	if (!nranges || !nthreads || nthreads > 64)
		return 2;
	if (getenv("FORKMAP_SECONDS"))
		budget_s = atof(getenv("FORKMAP_SECONDS"));
	unsetenv("RDMAV_HUGEPAGES_SAFE");

	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	fork_init = (int (*)(void))dlsym(lib, "ibv_fork_init");
	dontfork = (range_fn)dlsym(lib, "ibv_dontfork_range");
	dofork = (range_fn)dlsym(lib, "ibv_dofork_range");
	if (!fork_init || !dontfork || !dofork) {
		fprintf(stderr, "%s: missing fork symbols\n", argv[1]);
		return 1;
	}
	if (fork_init()) {
		fprintf(stderr, "ibv_fork_init failed\n");
		return 1;
	}

	pg = (size_t)sysconf(_SC_PAGESIZE);
	region = mmap(NULL, (2 * nranges + 1) * pg, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t i = 0; i < nranges; i++)
		if (dontfork(region + 2 * i * pg, pg)) {
			perror("ibv_dontfork_range (setup)");
			return 1;
		}
	if (argc > 4 && !strcmp(argv[4], "huge")) {
		setenv("RDMAV_HUGEPAGES_SAFE", "1", 1);
		fork_init(); /* both read the variable again here */
	}

	pthread_barrier_init(&start_line, NULL, (unsigned int)nthreads);
	for (size_t i = 0; i < nthreads; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].seed = (unsigned int)(i + 1) * 7919u;
		pthread_create(&th[i], NULL, run, &w[i]);
	}
	for (size_t i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		if (w[i].failed) {
			fprintf(stderr, "a register/deregister pair failed\n");
			return 1;
		}
		/* Wall time per pair as one thread sees it, averaged. */
		ns += w[i].seconds * 1e9 / (double)w[i].pairs / (double)nthreads;
	}
	printf("%.0f\n", ns);
	return 0;
}
