/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Device discovery on fake sysfs trees (SYSFS_PATH) with fake character
 * devices: what ibv_get_device_list shows for good, missing, garbage,
 * truncated and oversized entries, and the device registry (the same
 * struct ibv_device across listings, removed and re-created devices).
 * Needs CAP_MKNOD for the character devices: exits 77 without it. The
 * host must have no RDMA netlink (discovery asks it first, as rdma-core
 * does): exits 77 when it lists devices. */
#include "config.h"

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core.h"
#include "pabi/pabi.h"

#include "../check_main.h"

static char root[256];    /* the fake tree, fresh per test */
static char sysdir[300];  /* root/sys: SYSFS_PATH */
static char devdir[300];  /* root/dev: the character devices */

static void write_file(const char *rel, const char *text)
{
	char path[1024], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	/* mkdir -p of the parent */
	for (slash = path + strlen(root) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* 1 when the char device could be made (needs CAP_MKNOD). */
static int make_chardev(const char *name, unsigned int maj, unsigned int min)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", devdir, name);
	mkdir(devdir, 0755);
	return mknod(path, S_IFCHR | 0600, makedev(maj, min)) == 0;
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/sv-discovery-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(sysdir, sizeof(sysdir), "%s/sys", root);
	snprintf(devdir, sizeof(devdir), "%s/dev", root);
	setenv("SYSFS_PATH", sysdir, 1);
	sv_sysfs_reset();
	sv_set_dev_dir(devdir);
	/* rdma-core's provider libraries stay out of these tests */
	sv_rdmacore_set_dirs(root, root);
}

static void teardown(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", root);
	unsetenv("SYSFS_PATH");
	sv_sysfs_reset();
	sv_set_dev_dir(NULL);
	sv_rdmacore_set_dirs(NULL, NULL);
}

/* A well-formed rxe device as rdma_rxe shows it. */
static void add_device(const char *uverbs, const char *ibdev,
		       const char *abi, unsigned int minor)
{
	char rel[512], buf[512];

	snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/ibdev", uverbs);
	snprintf(buf, sizeof(buf), "%s\n", ibdev);
	write_file(rel, buf);
	snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/abi_version",
		 uverbs);
	write_file(rel, abi);
	snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/dev", uverbs);
	snprintf(buf, sizeof(buf), "231:%u\n", minor);
	write_file(rel, buf);
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/node_type", ibdev);
	write_file(rel, "1: CA\n");
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/node_guid", ibdev);
	write_file(rel, "0200:00ff:fe00:0000\n");
}

static void uverbs_class(const char *abi)
{
	write_file("sys/class/infiniband_verbs/abi_version", abi);
}

static int count_devices(void)
{
	struct ibv_device **list;
	int n = -1;

	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	for (int i = 0; i < n; i++)
		ck_assert_ptr_nonnull(list[i]);
	ck_assert_ptr_null(list[n]);
	ibv_free_device_list(list);
	return n;
}

/* main() made sure mknod works here */
#define NEED_MKNOD(name, maj, min)                                            \
	ck_assert_msg(make_chardev(name, maj, min), "mknod %s: %s", name,    \
		      strerror(errno))

START_TEST(no_uverbs_class_is_enosys)
{
	int n = 5;

	errno = 0;
	ck_assert_ptr_null(ibv_get_device_list(&n));
	ck_assert_int_eq(errno, ENOSYS);
	ck_assert_int_eq(n, 0);
}
END_TEST

START_TEST(unknown_class_abi_is_enosys)
{
	uverbs_class("5\n");
	errno = 0;
	ck_assert_ptr_null(ibv_get_device_list(NULL));
	ck_assert_int_eq(errno, ENOSYS);
}
END_TEST

START_TEST(no_devices_is_an_empty_list)
{
	uverbs_class("6\n");
	ck_assert_int_eq(count_devices(), 0);
}
END_TEST

START_TEST(one_device_fields)
{
	struct ibv_device **list;
	char want[1024];
	int n;

	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	NEED_MKNOD("uverbs0", 231, 192);
	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(ibv_get_device_name(list[0]), "rxe0");
	ck_assert_str_eq(list[0]->name, "rxe0");
	ck_assert_str_eq(list[0]->dev_name, "uverbs0");
	snprintf(want, sizeof(want), "%s/class/infiniband_verbs/uverbs0", sysdir);
	ck_assert_str_eq(list[0]->dev_path, want);
	snprintf(want, sizeof(want), "%s/class/infiniband/rxe0", sysdir);
	ck_assert_str_eq(list[0]->ibdev_path, want);
	ck_assert_int_eq(list[0]->node_type, IBV_NODE_CA);
	ck_assert_int_eq(list[0]->transport_type, IBV_TRANSPORT_IB);
	ck_assert(ibv_get_device_guid(list[0]) == htobe64(0x020000fffe000000ULL));
	/* sysfs does not know the kernel's device index */
	ck_assert_int_eq(ibv_get_device_index(list[0]), -1);
	ck_assert_str_eq(ibv_get_sysfs_path(), sysdir);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(abi_out_of_range_is_skipped)
{
	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "3\n", 192);
	add_device("uverbs1", "rxe1", "0\n", 193);
	NEED_MKNOD("uverbs0", 231, 192);
	NEED_MKNOD("uverbs1", 231, 193);
	ck_assert_int_eq(count_devices(), 0);
}
END_TEST

START_TEST(missing_char_device_is_skipped)
{
	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	add_device("uverbs1", "rxe1", "2\n", 193);
	NEED_MKNOD("uverbs1", 231, 193);
	ck_assert_int_eq(count_devices(), 1);
}
END_TEST

START_TEST(wrong_char_device_is_skipped)
{
	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	NEED_MKNOD("uverbs0", 231, 200); /* not what sysfs says */
	ck_assert_int_eq(count_devices(), 0);
}
END_TEST

START_TEST(regular_file_is_not_a_char_device)
{
	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	write_file("dev/uverbs0", "");
	ck_assert_int_eq(count_devices(), 0);
}
END_TEST

START_TEST(garbage_and_truncated_files_are_skipped)
{
	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	NEED_MKNOD("uverbs0", 231, 192);
	/* each of these devices has one bad file */
	add_device("uverbs1", "rxe1", "two\n", 193);
	add_device("uverbs2", "rxe2", "2\n", 194);
	write_file("sys/class/infiniband_verbs/uverbs2/dev", "231:");
	add_device("uverbs3", "rxe3", "2\n", 195);
	write_file("sys/class/infiniband_verbs/uverbs3/ibdev", "");
	add_device("uverbs4", "rxe4", "", 196);
	add_device("uverbs5", "rxe5", "2\n", 197);
	write_file("sys/class/infiniband_verbs/uverbs5/dev", "\x01\xff garbage");
	add_device("uverbs6", "rxe6", "99999999999999999999999\n", 198);
	NEED_MKNOD("uverbs1", 231, 193);
	NEED_MKNOD("uverbs2", 231, 194);
	NEED_MKNOD("uverbs3", 231, 195);
	NEED_MKNOD("uverbs4", 231, 196);
	NEED_MKNOD("uverbs5", 231, 197);
	NEED_MKNOD("uverbs6", 231, 198);
	ck_assert_int_eq(count_devices(), 1);
}
END_TEST

START_TEST(garbage_node_files_do_not_hide_the_device)
{
	struct ibv_device **list;
	int n;

	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2", 192); /* no trailing newline */
	write_file("sys/class/infiniband/rxe0/node_type", "banana");
	write_file("sys/class/infiniband/rxe0/node_guid", "02:00");
	NEED_MKNOD("uverbs0", 231, 192);
	list = ibv_get_device_list(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(list[0]->node_type, IBV_NODE_UNKNOWN);
	ck_assert_int_eq(list[0]->transport_type, IBV_TRANSPORT_UNKNOWN);
	ck_assert(ibv_get_device_guid(list[0]) == 0);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(very_long_names_are_skipped)
{
	char longname[200], rel[512];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memcpy(longname, "rxe", 3);
	uverbs_class("6\n");
	/* an IB device name longer than IBV_SYSFS_NAME_MAX */
	add_device("uverbs0", longname, "2\n", 192);
	NEED_MKNOD("uverbs0", 231, 192);
	/* a uverbs entry name longer than IBV_SYSFS_NAME_MAX */
	snprintf(rel, sizeof(rel), "uverbs%s", longname);
	add_device(rel, "rxe1", "2\n", 193);
	ck_assert_int_eq(count_devices(), 0);
}
END_TEST

START_TEST(iwarp_node_type)
{
	struct ibv_device **list;
	int n;

	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	write_file("sys/class/infiniband/rxe0/node_type", "4: RNIC\n");
	NEED_MKNOD("uverbs0", 231, 192);
	list = ibv_get_device_list(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(list[0]->node_type, IBV_NODE_RNIC);
	ck_assert_int_eq(list[0]->transport_type, IBV_TRANSPORT_IWARP);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(read_sysfs_file_contract)
{
	char dir[512], buf[8];

	write_file("f/short", "abc\n");
	write_file("f/exact", "1234567");
	write_file("f/long", "123456789\n");
	snprintf(dir, sizeof(dir), "%s/f", root);
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "short", buf, sizeof(buf)), 3);
	ck_assert_str_eq(buf, "abc");
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "exact", buf, sizeof(buf)), 7);
	ck_assert_str_eq(buf, "1234567");
	errno = 0;
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "long", buf, sizeof(buf)), -1);
	ck_assert_int_ne(errno, 0);
	errno = 0;
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "absent", buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* ---- the registry ---------------------------------------------------------- */

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp((*list)->name, name))
			return *list;
	return NULL;
}

/* librdmacm compares device lists by pointer: a device still present is
 * the same object in every listing. */
START_TEST(listings_share_device_objects)
{
	struct ibv_device **a, **b;

	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	add_device("uverbs1", "rxe1", "2\n", 193);
	NEED_MKNOD("uverbs0", 231, 192);
	NEED_MKNOD("uverbs1", 231, 193);
	a = ibv_get_device_list(NULL);
	b = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(find(a, "rxe0"));
	ck_assert_ptr_eq(find(a, "rxe0"), find(b, "rxe0"));
	ck_assert_ptr_eq(find(a, "rxe1"), find(b, "rxe1"));
	ck_assert_ptr_ne(find(a, "rxe0"), find(a, "rxe1"));
	ibv_free_device_list(a);
	/* freeing one list leaves the other's objects alone */
	ck_assert_str_eq(find(b, "rxe1")->dev_name, "uverbs1");
	ibv_free_device_list(b);
}
END_TEST

static void remove_device(const char *uverbs, const char *ibdev)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s/class/infiniband_verbs/%s' '%s/class/infiniband/%s' '%s/%s'",
		 sysdir, uverbs, sysdir, ibdev, devdir, uverbs);
	ck_assert_int_eq(system(cmd), 0);
}

/* A device that went away drops out of later lists; the object an older
 * list holds stays usable until that list is freed. */
START_TEST(removed_device_drops_out_but_old_pointer_lives)
{
	struct ibv_device **old, **now, *gone;

	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	add_device("uverbs1", "rxe1", "2\n", 193);
	NEED_MKNOD("uverbs0", 231, 192);
	NEED_MKNOD("uverbs1", 231, 193);
	old = ibv_get_device_list(NULL);
	gone = find(old, "rxe1");
	ck_assert_ptr_nonnull(gone);
	remove_device("uverbs1", "rxe1");
	now = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(now, "rxe1"));
	ck_assert_ptr_eq(find(now, "rxe0"), find(old, "rxe0"));
	/* still a device of ours: readable, its GUID known */
	ck_assert_str_eq(ibv_get_device_name(gone), "rxe1");
	ck_assert(ibv_get_device_guid(gone) == htobe64(0x020000fffe000000ULL));
	ibv_free_device_list(now);
	ibv_free_device_list(old);
}
END_TEST

/* A device re-created under the same names is a new device: sysfs
 * discovery tells them apart by the creation time of its folder. */
START_TEST(recreated_device_is_a_new_object)
{
	struct ibv_device **old, **now;
	char path[1024];
	struct timespec t[2] = { { 1000, 0 }, { 1000, 0 } };

	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	NEED_MKNOD("uverbs0", 231, 192);
	snprintf(path, sizeof(path), "%s/class/infiniband/rxe0", sysdir);
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	old = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(old, "rxe0"));
	remove_device("uverbs0", "rxe0");
	add_device("uverbs0", "rxe0", "2\n", 192);
	NEED_MKNOD("uverbs0", 231, 192);
	t[0].tv_sec = t[1].tv_sec = 2000;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	now = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(now, "rxe0"));
	ck_assert_ptr_ne(find(now, "rxe0"), find(old, "rxe0"));
	ibv_free_device_list(old);
	ibv_free_device_list(now);
}
END_TEST

/* Lists from several threads at once: every list well formed, every
 * device one object. */
static void *list_many(void *arg)
{
	struct ibv_device *first = NULL;

	(void)arg;
	for (int i = 0; i < 200; i++) {
		struct ibv_device **l = ibv_get_device_list(NULL);

		if (!l || !l[0] || l[1] || (first && l[0] != first))
			return (void *)1;
		first = l[0];
		ibv_free_device_list(l);
	}
	return NULL;
}

START_TEST(threads_list_at_once)
{
	pthread_t t[4];
	void *bad;

	uverbs_class("6\n");
	add_device("uverbs0", "rxe0", "2\n", 192);
	NEED_MKNOD("uverbs0", 231, 192);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, list_many, NULL), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], &bad), 0);
		ck_assert_ptr_null(bad);
	}
}
END_TEST

START_TEST(null_arguments)
{
	errno = 0;
	ck_assert_ptr_null(ibv_get_device_name(NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_get_device_index(NULL), -1);
	ibv_free_device_list(NULL);
	errno = 0;
	ck_assert_ptr_null(ibv_open_device(NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_device(NULL), EINVAL);
}
END_TEST

static Suite *make_discovery_suite(void)
{
	Suite *s = suite_create("discovery");
	TCase *tc = tcase_create("fake sysfs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_uverbs_class_is_enosys);
	tcase_add_test(tc, unknown_class_abi_is_enosys);
	tcase_add_test(tc, no_devices_is_an_empty_list);
	tcase_add_test(tc, one_device_fields);
	tcase_add_test(tc, abi_out_of_range_is_skipped);
	tcase_add_test(tc, missing_char_device_is_skipped);
	tcase_add_test(tc, wrong_char_device_is_skipped);
	tcase_add_test(tc, regular_file_is_not_a_char_device);
	tcase_add_test(tc, garbage_and_truncated_files_are_skipped);
	tcase_add_test(tc, garbage_node_files_do_not_hide_the_device);
	tcase_add_test(tc, very_long_names_are_skipped);
	tcase_add_test(tc, iwarp_node_type);
	tcase_add_test(tc, read_sysfs_file_contract);
	tcase_add_test(tc, null_arguments);
	tcase_add_test(tc, listings_share_device_objects);
	tcase_add_test(tc, removed_device_drops_out_but_old_pointer_lives);
	tcase_add_test(tc, recreated_device_is_a_new_object);
	tcase_add_test(tc, threads_list_at_once);
	suite_add_tcase(s, tc);
	return s;
}

/* Can this process make character devices, and is the host free of
 * RDMA netlink devices? Otherwise the tests cannot mean anything. */
static int can_run(void)
{
	char dir[] = "/tmp/sv-mknod-XXXXXX", path[64];
	struct ibv_device **l;
	int ok;

	if (!mkdtemp(dir))
		return 0;
	snprintf(path, sizeof(path), "%s/c", dir);
	ok = mknod(path, S_IFCHR | 0600, makedev(1, 3)) == 0;
	unlink(path);
	rmdir(dir);
	if (!ok) {
		printf("SKIP: test_discovery needs CAP_MKNOD (run as root)\n");
		return 0;
	}
	sv_rdmacore_set_dirs("/nonexistent", "/nonexistent");
	l = ibv_get_device_list(NULL);
	ok = !l || !l[0];
	ibv_free_device_list(l);
	sv_rdmacore_set_dirs(NULL, NULL);
	if (!ok)
		printf("SKIP: this host has RDMA devices; the fake trees would mix with them\n");
	return ok;
}

int main(void)
{

	if (!can_run())
		return 77;
	return check_run(make_discovery_suite());
}
