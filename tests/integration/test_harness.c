/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tests/integration/test_harness.c -- checks that the test VM
 * (tests/vm/run) provides what the integration tests rely on:
 *
 *   - $RXE_DEV (rxe0) in /sys/class/infiniband, with a uverbs char device
 *     that opens read-write;
 *   - rdma-core's own ibv_devices (the system library, LD_LIBRARY_PATH
 *     unset) lists it;
 *   - RLIMIT_MEMLOCK is unlimited;
 *   - $SIW_DEV (siw0, tests/vm/run --siw) exists and is listed too.
 *
 * Outside the VM (no /sys/class/infiniband or RXE_DEV unset) it exits 77
 * (automake's SKIP), and so it does when the VM has no siw device.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check_main.h"

static int dir_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Reads the first line of a small sysfs file into buf (newline stripped). */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

/* Finds /dev/infiniband/uverbsN of an IB device; 0 on success. */
static int uverbs_of(const char *ibdev, char *path, size_t len)
{
	glob_t g;
	size_t i;
	int ret = -1;

	if (glob("/sys/class/infiniband_verbs/uverbs*", 0, NULL, &g) != 0)
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		char file[512], name[64];

		snprintf(file, sizeof(file), "%s/ibdev", g.gl_pathv[i]);
		if (read_line(file, name, sizeof(name)) == 0 &&
		    strcmp(name, ibdev) == 0) {
			snprintf(path, len, "/dev/infiniband/%s",
				 strrchr(g.gl_pathv[i], '/') + 1);
			ret = 0;
			break;
		}
	}
	globfree(&g);
	return ret;
}

static void check_ibdev_exists(const char *dev)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
	ck_assert_msg(dir_exists(path), "%s does not exist", path);
}

START_TEST(test_rxe_in_sysfs)
{
	check_ibdev_exists(getenv("RXE_DEV"));
}
END_TEST

START_TEST(test_uverbs_opens)
{
	const char *dev = getenv("RXE_DEV");
	char path[256];
	int fd;

	/* The first uverbs device, as the brief of this harness says ... */
	fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "open /dev/infiniband/uverbs0: %s",
		      strerror(errno));
	close(fd);

	/* ... and the one that belongs to $RXE_DEV. */
	ck_assert_msg(uverbs_of(dev, path, sizeof(path)) == 0,
		      "no uverbs device for %s", dev);
	fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	close(fd);
}
END_TEST

/* Runs rdma-core's ibv_devices with the system library; 1 if it lists dev. */
static int ibv_devices_lists(const char *dev)
{
	char line[512];
	int found = 0;
	FILE *p;

	p = popen("unset LD_LIBRARY_PATH LD_PRELOAD; exec ibv_devices 2>&1", "r");
	ck_assert_msg(p != NULL, "popen ibv_devices: %s", strerror(errno));
	while (fgets(line, sizeof(line), p)) {
		char name[128];

		fputs(line, stdout);
		if (sscanf(line, " %127s", name) == 1 && strcmp(name, dev) == 0)
			found = 1;
	}
	ck_assert_msg(pclose(p) == 0, "ibv_devices failed");
	return found;
}

START_TEST(test_ibv_devices_lists_rxe)
{
	const char *dev = getenv("RXE_DEV");

	ck_assert_msg(ibv_devices_lists(dev), "ibv_devices does not list %s",
		      dev);
}
END_TEST

START_TEST(test_memlock_unlimited)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	ck_assert_msg(rl.rlim_cur == RLIM_INFINITY,
		      "RLIMIT_MEMLOCK soft limit is %llu, not unlimited",
		      (unsigned long long)rl.rlim_cur);
	ck_assert_msg(rl.rlim_max == RLIM_INFINITY,
		      "RLIMIT_MEMLOCK hard limit is %llu, not unlimited",
		      (unsigned long long)rl.rlim_max);
}
END_TEST

START_TEST(test_siw)
{
	const char *dev = getenv("SIW_DEV");
	char path[256];

	if (!dev || !*dev) {
		check_skip("SIW_DEV is unset: the VM was started without --siw");
		return;
	}
	check_ibdev_exists(dev);
	ck_assert_msg(uverbs_of(dev, path, sizeof(path)) == 0,
		      "no uverbs device for %s", dev);
	ck_assert_msg(ibv_devices_lists(dev), "ibv_devices does not list %s",
		      dev);
}
END_TEST

static Suite *make_harness_suite(void)
{
	Suite *s = suite_create("harness");
	TCase *tc = tcase_create("vm");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rxe_in_sysfs);
	tcase_add_test(tc, test_uverbs_opens);
	tcase_add_test(tc, test_ibv_devices_lists_rxe);
	tcase_add_test(tc, test_memlock_unlimited);
	tcase_add_test(tc, test_siw);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *dev = getenv("RXE_DEV");

	if (!dev || !*dev || !dir_exists("/sys/class/infiniband")) {
		printf("SKIP: not inside the test VM (RXE_DEV unset or no "
		       "/sys/class/infiniband); run it through tests/vm/run\n");
		return 77;
	}
	return check_run(make_harness_suite());
}
