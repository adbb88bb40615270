/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The provider ABI's generations (lib/pabi/generations.c), and how the
 * library learns which one a provider library belongs to
 * (lib/pabi/provenance.c, lib/pabi/elf.c): a provider of rdma-core 44
 * and one of 56 both register through verbs_register_driver_34 but
 * expect different layouts, and one driven with the other's would have
 * its QPs written in the wrong place. White-box: links the core.
 *
 * The layouts are pinned from rdma-core's sources (driver.h and verbs.h
 * at v44.0, v45.0, v49.0, v53.0, v54.0, v56.1); the provenance cases run
 * on fake installation trees in /tmp holding stand-in provider libraries
 * (tests/unit/pabi_fake_provider.c) and on the system's own providers. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "pabi/pabi.h"

#include "../check_main.h"

#define NODE "IBVERBS_PRIVATE_34"

/* ---- the table ---------------------------------------------------------- */

START_TEST(every_release_44_to_56_has_one_generation)
{
	const struct pabi_gen *prev = NULL;

	ck_assert_ptr_null(pabi_gen_of_release(43));
	ck_assert_ptr_null(pabi_gen_of_release(57));
	ck_assert_ptr_null(pabi_gen_of_release(0));
	for (unsigned int r = 44; r <= 56; r++) {
		const struct pabi_gen *g = pabi_gen_of_release(r);

		ck_assert_ptr_nonnull(g);
		ck_assert_uint_le(g->first, r);
		ck_assert_uint_ge(g->last, r);
		ck_assert_str_eq(g->node, NODE);
		/* runs follow each other without a gap */
		if (prev && prev != g)
			ck_assert_uint_eq(prev->last + 1, g->first);
		prev = g;
	}
	ck_assert_uint_eq(pabi_first_release(), 44);
	ck_assert_uint_eq(pabi_last_release(), 56);
	ck_assert_ptr_eq(pabi_gen_at(0), pabi_gen_of_release(44));
	ck_assert_ptr_null(pabi_gen_at(pabi_gen_count()));
}
END_TEST

/* The offsets in rdma-core's headers: verbs_qp = ibv_qp_ex (352 bytes in
 * v44, 360 from v45: wr_flush), u32 comp_mask, pointer xrcd;
 * ibv_port_attr 52 bytes, 56 from v49 (active_speed_ex). */
START_TEST(layouts_are_those_of_rdma_core)
{
	static const struct {
		unsigned int release;
		uint16_t comp_mask, xrcd, port_attr;
		bool dmabuf_driver;
	} want[] = {
		{ 44, 352, 360, 52, false },
		{ 45, 360, 368, 52, false },
		{ 48, 360, 368, 52, false },
		{ 49, 360, 368, 56, false },
		{ 53, 360, 368, 56, false },
		{ 54, 360, 368, 56, true },
		{ 56, 360, 368, 56, true },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct pabi_gen *g = pabi_gen_of_release(want[i].release);

		ck_assert_msg(g->layout.qp_comp_mask == want[i].comp_mask &&
				      g->layout.qp_xrcd == want[i].xrcd &&
				      g->layout.port_attr_size == want[i].port_attr &&
				      g->reg_dmabuf_mr_driver == want[i].dmabuf_driver,
			      "rdma-core %u: comp_mask %u xrcd %u port_attr %u dmabuf %d",
			      want[i].release, g->layout.qp_comp_mask,
			      g->layout.qp_xrcd, g->layout.port_attr_size,
			      g->reg_dmabuf_mr_driver);
	}
}
END_TEST

/* The built-in providers' QPs are rdma-core 45 and later's, whichever
 * verbs.h this was built with (44's ibv_qp_ex ends before the wr_flush
 * slot: the QP keeps the slot, so that programs built against 45 and
 * later headers find ibv_wr_flush); their ports are always the newest. */
START_TEST(native_layout_is_this_build)
{
	const struct pabi_gen *g45 = pabi_gen_of_release(45);

	ck_assert_uint_eq(sv_native_layout.qp_comp_mask,
			  offsetof(struct sv_qp, comp_mask));
	ck_assert_uint_eq(sv_native_layout.qp_comp_mask, g45->layout.qp_comp_mask);
	ck_assert_uint_eq(sv_native_layout.qp_xrcd, g45->layout.qp_xrcd);
	ck_assert_uint_eq(offsetof(struct sv_qp, ex45.wr_flush), SV_QP_EX_WR_FLUSH_OFF);
	ck_assert_uint_eq(sv_native_layout.qp_xrcd, offsetof(struct sv_qp, xrcd));
	ck_assert_uint_eq(sv_native_layout.port_attr_size, 56);
	ck_assert(sizeof(struct ibv_qp_ex) == 352 || sizeof(struct ibv_qp_ex) == 360);
}
END_TEST

START_TEST(symbols_know_their_release)
{
	unsigned int last = 0;

	ck_assert_uint_eq(pabi_symbol_since(NODE, "ibv_cmd_create_cq_ex2", &last), 53);
	ck_assert_uint_eq(last, 56);
	ck_assert_uint_eq(pabi_symbol_since(NODE, "ibv_wr_opcode_str", NULL), 49);
	ck_assert_uint_eq(pabi_symbol_since(NODE, "ibv_cmd_reg_mr", NULL), 44);
	ck_assert_uint_eq(pabi_symbol_since("IBVERBS_PRIVATE_57", "x", NULL), 0);
}
END_TEST

START_TEST(release_of_file_names)
{
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1.14.56.1"), 56);
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1.14.44.0"), 44);
	ck_assert_uint_eq(pabi_release_of_name("libmlx5.so.1.25.56.1"), 56);
	ck_assert_uint_eq(pabi_release_of_name("libefa.so.1.3.44.0"), 44);
	/* softverbs' own library, and names that say nothing */
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1.14.44"), 0);
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1"), 0);
	ck_assert_uint_eq(pabi_release_of_name("librxe-rdmav34.so"), 0);
	ck_assert_uint_eq(pabi_release_of_name("libx.so.1.2.3.4.5"), 0);
	ck_assert_uint_eq(pabi_release_of_name("libx.so.1.2.x.4"), 0);
	ck_assert_uint_eq(pabi_release_of_name("libx.so.1..3.4"), 0);
	ck_assert_uint_eq(pabi_release_of_name("x.so.1.2.3.4"), 0);
	ck_assert_uint_eq(pabi_release_of_name("libx.so.1.2.3.4."), 0);
}
END_TEST

/* ---- imports ------------------------------------------------------------ */

static char fake44[PATH_MAX], fake53[PATH_MAX];

static void find_fakes(void)
{
	const char *top = getenv("top_builddir");

	snprintf(fake44, sizeof(fake44), "%s/tests/unit/.libs/libpabifake44.so",
		 top && *top ? top : ".");
	snprintf(fake53, sizeof(fake53), "%s/tests/unit/.libs/libpabifake53.so",
		 top && *top ? top : ".");
	ck_assert_msg(!access(fake44, R_OK) && !access(fake53, R_OK),
		      "the stand-in providers %s and %s are not built (make check)",
		      fake44, fake53);
}

struct seen {
	int ex2, get_context, reg, other;
};

static void note(const char *symbol, void *arg)
{
	struct seen *s = arg;

	if (!strcmp(symbol, "ibv_cmd_create_cq_ex2"))
		s->ex2++;
	else if (!strcmp(symbol, "ibv_cmd_get_context"))
		s->get_context++;
	else if (!strcmp(symbol, "verbs_register_driver_34"))
		s->reg++;
	else if (!strcmp(symbol, "ibv_get_device_list"))
		s->other++;
}

START_TEST(imports_are_read_by_version)
{
	struct seen s44 = { 0 }, s53 = { 0 }, pub = { 0 };

	find_fakes();
	ck_assert_int_eq(pabi_elf_imports(fake44, NODE, note, &s44), 0);
	ck_assert_int_eq(s44.reg, 1);
	ck_assert_int_eq(s44.get_context, 1);
	ck_assert_int_eq(s44.ex2, 0);
	/* a public symbol is of another node */
	ck_assert_int_eq(s44.other, 0);
	ck_assert_int_eq(pabi_elf_imports(fake53, NODE, note, &s53), 0);
	ck_assert_int_eq(s53.ex2, 1);
	ck_assert_int_eq(pabi_elf_imports(fake53, "IBVERBS_1.1", note, &pub), 0);
	ck_assert_int_eq(pub.other, 1);
	ck_assert_int_eq(pub.ex2 + pub.reg + pub.get_context, 0);
}
END_TEST

/* Whatever the file holds, it is read without a crash. */
START_TEST(imports_of_bad_files_fail_cleanly)
{
	char dir[] = "/tmp/sv-gen-XXXXXX", path[PATH_MAX], buf[4096];
	struct seen s = { 0 };
	ssize_t n;
	int in, out;

	find_fakes();
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(pabi_elf_imports("/nonexistent/lib.so", NODE, note, &s),
			 -ENOENT);
	snprintf(path, sizeof(path), "%s/text", dir);
	out = open(path, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(out, 0);
	ck_assert_int_eq(write(out, "not an ELF file at all, but long enough\n", 40), 40);
	close(out);
	ck_assert_int_eq(pabi_elf_imports(path, NODE, note, &s), -ENOEXEC);
	/* the first bytes of a real one: its section table is cut off */
	in = open(fake53, O_RDONLY);
	ck_assert_int_ge(in, 0);
	n = read(in, buf, sizeof(buf));
	close(in);
	ck_assert_int_gt(n, 64);
	for (size_t cut = 64; cut <= (size_t)n; cut += 509) {
		out = open(path, O_WRONLY | O_TRUNC);
		ck_assert_int_ge(out, 0);
		ck_assert_int_eq(write(out, buf, cut), (ssize_t)cut);
		close(out);
		ck_assert_int_eq(pabi_elf_imports(path, NODE, note, &s), -ENOEXEC);
	}
	ck_assert_int_eq(s.ex2 + s.reg + s.get_context, 0);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(buf), 0);
}
END_TEST

/* ---- provenance on fake installation trees ------------------------------ */

static char tree[64];

static void tree_setup(void)
{
	snprintf(tree, sizeof(tree), "/tmp/sv-gen-tree-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tree));
	find_fakes();
}

static void tree_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tree);
}

/* tree/rel: the folders of rel, then a copy of src there. */
static void put(const char *src, const char *rel)
{
	char path[1024], cmd[4 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'",
		 path, src, path);
	ck_assert_int_eq(system(cmd), 0);
}

/* tree/rel -> target (a symlink, folders made) */
static void link_to(const char *target, const char *rel)
{
	char path[1024], cmd[4 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && ln -s '%s' '%s'",
		 path, target, path);
	ck_assert_int_eq(system(cmd), 0);
}

/* an rdma-core libibverbs of that file name in tree/dir (the content
 * does not matter: only its name is read) */
static void put_libibverbs(const char *dir, const char *file)
{
	char rel[512], target[256];

	snprintf(rel, sizeof(rel), "%s/%s", dir, file);
	put("/dev/null", rel);
	snprintf(rel, sizeof(rel), "%s/libibverbs.so.1", dir);
	snprintf(target, sizeof(target), "%s", file);
	link_to(target, rel);
}

static const struct pabi_gen *gen_of(const char *rel, char *why, size_t len)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	return pabi_gen_of_library(path, NODE, why, len);
}

/* Debian's layout: lib/libibverbs/lib<name>-rdmav34.so beside
 * lib/libibverbs.so.1 -> libibverbs.so.1.14.<release>.<patch>. */
START_TEST(provider_folder_takes_its_libibverbs_release)
{
	char why[512];

	put_libibverbs("d12/lib", "libibverbs.so.1.14.44.0");
	put(fake44, "d12/lib/libibverbs/librxe-rdmav34.so");
	ck_assert_ptr_eq(gen_of("d12/lib/libibverbs/librxe-rdmav34.so", why,
				sizeof(why)), pabi_gen_of_release(44));
	ck_assert_ptr_nonnull(strstr(why, "rdma-core 44"));
	ck_assert_ptr_nonnull(strstr(why, "libibverbs.so.1.14.44.0"));

	put_libibverbs("d13/lib", "libibverbs.so.1.14.56.1");
	put(fake44, "d13/lib/libibverbs/librxe-rdmav34.so");
	put(fake53, "d13/lib/libibverbs/libmlx5-rdmav34.so");
	ck_assert_ptr_eq(gen_of("d13/lib/libibverbs/librxe-rdmav34.so", why,
				sizeof(why)), pabi_gen_of_release(56));
	ck_assert_ptr_eq(gen_of("d13/lib/libibverbs/libmlx5-rdmav34.so", why,
				sizeof(why)), pabi_gen_of_release(56));
}
END_TEST

/* A direct-verbs library (libmlx5.so.1.25.56.1, its -rdmav34.so a
 * symlink to it) says its release itself. */
START_TEST(direct_verbs_library_says_its_release)
{
	char why[512];

	put(fake53, "lib/libmlx5.so.1.25.56.1");
	link_to("../libmlx5.so.1.25.56.1", "lib/libibverbs/libmlx5-rdmav34.so");
	link_to("libmlx5.so.1.25.56.1", "lib/libmlx5.so.1");
	ck_assert_ptr_eq(gen_of("lib/libibverbs/libmlx5-rdmav34.so", why,
				sizeof(why)), pabi_gen_of_release(56));
	ck_assert_ptr_nonnull(strstr(why, "libmlx5.so.1.25.56.1"));
	/* as a program links it */
	ck_assert_ptr_eq(gen_of("lib/libmlx5.so.1", why, sizeof(why)),
			 pabi_gen_of_release(56));
	/* with the libibverbs of its build beside it: both agree */
	put_libibverbs("lib", "libibverbs.so.1.14.56.1");
	ck_assert_ptr_eq(gen_of("lib/libmlx5.so.1", why, sizeof(why)),
			 pabi_gen_of_release(56));
}
END_TEST

START_TEST(contradicting_evidence_is_refused)
{
	char why[512];

	/* a 56 library in a 44 installation */
	put_libibverbs("lib", "libibverbs.so.1.14.44.0");
	put(fake44, "lib/libmlx5.so.1.25.56.1");
	link_to("../libmlx5.so.1.25.56.1", "lib/libibverbs/libmlx5-rdmav34.so");
	ck_assert_ptr_null(gen_of("lib/libibverbs/libmlx5-rdmav34.so", why,
				  sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "says rdma-core 56"));
	ck_assert_ptr_nonnull(strstr(why, "rdma-core 44"));
	/* a provider that calls rdma-core 53's function in a 44 folder */
	put(fake53, "lib/libibverbs/libnew-rdmav34.so");
	ck_assert_ptr_null(gen_of("lib/libibverbs/libnew-rdmav34.so", why,
				  sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "ibv_cmd_create_cq_ex2"));
	ck_assert_ptr_nonnull(strstr(why, "rdma-core 53"));
}
END_TEST

START_TEST(missing_or_unknown_evidence_is_refused)
{
	char why[512];

	/* nothing beside it */
	put(fake44, "alone/libfoo-rdmav34.so");
	ck_assert_ptr_null(gen_of("alone/libfoo-rdmav34.so", why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "nothing tells"));
	/* even with rdma-core 53's function: 53-56 are two generations */
	put(fake53, "alone/libbar-rdmav34.so");
	ck_assert_ptr_null(gen_of("alone/libbar-rdmav34.so", why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "53-56"));
	/* a libibverbs whose name says nothing (softverbs' own is named so) */
	put_libibverbs("own/lib", "libibverbs.so.1.14.44");
	put(fake44, "own/lib/libibverbs/libfoo-rdmav34.so");
	ck_assert_ptr_null(gen_of("own/lib/libibverbs/libfoo-rdmav34.so", why,
				  sizeof(why)));
	/* releases this library does not drive */
	put_libibverbs("old/lib", "libibverbs.so.1.14.40.0");
	put(fake44, "old/lib/libibverbs/libfoo-rdmav34.so");
	ck_assert_ptr_null(gen_of("old/lib/libibverbs/libfoo-rdmav34.so", why,
				  sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "rdma-core 40"));
	put_libibverbs("new/lib", "libibverbs.so.1.18.65.0");
	put(fake44, "new/lib/libibverbs/libfoo-rdmav34.so");
	ck_assert_ptr_null(gen_of("new/lib/libibverbs/libfoo-rdmav34.so", why,
				  sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "rdma-core 65"));
	/* no file */
	ck_assert_ptr_null(gen_of("nonexistent/libfoo-rdmav34.so", why,
				  sizeof(why)));
	ck_assert_ptr_null(pabi_gen_of_library(NULL, NODE, why, sizeof(why)));
	/* a node this library does not drive */
	ck_assert_ptr_null(pabi_gen_of_library(fake44, "IBVERBS_PRIVATE_57",
					       why, sizeof(why)));
}
END_TEST

/* ---- the system's own providers ----------------------------------------- */

static glob_t system_libs;

static void find_system_libs(void)
{
	glob("/usr/lib/x86_64-linux-gnu/libibverbs/*-rdmav34.so", 0, NULL,
	     &system_libs);
	glob("/usr/lib/x86_64-linux-gnu/lib{mlx5,mlx4,efa,mana,hns}.so.1",
	     GLOB_APPEND | GLOB_BRACE, NULL, &system_libs);
}

/* Every provider Debian ships is taken for the release of the system's
 * libibverbs (44 on Debian 12, 56 on Debian 13). */
START_TEST(system_providers_are_of_the_system_release)
{
	const char *path = system_libs.gl_pathv[_i];
	char real[PATH_MAX], why[512];
	const struct pabi_gen *g;
	unsigned int release;

	ck_assert_ptr_nonnull(realpath("/usr/lib/x86_64-linux-gnu/libibverbs.so.1",
				       real));
	release = pabi_release_of_name(strrchr(real, '/') + 1);
	ck_assert_msg(release, "%s names no release", real);
	g = pabi_gen_of_library(path, NODE, why, sizeof(why));
	ck_assert_msg(g == pabi_gen_of_release(release),
		      "%s: taken for %s (%s), the system is rdma-core %u", path,
		      g ? g->name : "nothing", why, release);
}
END_TEST

/* ---- the loader refuses what it cannot place ------------------------------ */

static int fake_allocs;

static struct verbs_device *fake_alloc_device(struct verbs_sysfs_dev *sd)
{
	(void)sd;
	fake_allocs++;
	return NULL;
}

static bool fake_match(struct verbs_sysfs_dev *sd)
{
	return !strcmp(sd->ibdev_name, "fakehca0");
}

/* Registered from this test program, which no rdma-core installation
 * surrounds: it matches its device, is refused with one warning naming
 * it, and is never asked to allocate the device. */
START_TEST(unknown_generation_is_refused_once)
{
	static const struct verbs_device_ops ops = {
		.name = "fakehca",
		.match_min_abi_version = 0,
		.match_max_abi_version = 100,
		.match_device = fake_match,
		.alloc_device = fake_alloc_device,
	};
	struct sv_sysfs_dev s;
	char errfile[] = "/tmp/sv-gen-err-XXXXXX", line[1024];
	int fd, saved, warnings = 0;
	FILE *f;

	memset(&s, 0, sizeof(s));
	strcpy(s.sd.ibdev_name, "fakehca0");
	strcpy(s.sd.sysfs_name, "uverbs9");
	s.sd.abi_ver = 1;
	verbs_register_driver_34(&ops);

	fd = mkstemp(errfile);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	ck_assert_ptr_null(sv_rdmacore_attach(&s));
	ck_assert_ptr_null(sv_rdmacore_attach(&s));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	ck_assert_int_eq(fake_allocs, 0);
	ck_assert_ptr_null(s.layout);

	f = fopen(errfile, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "fakehca0: rdma-core's fakehca provider") &&
		    strstr(line, "is refused: nothing tells"))
			warnings++;
	fclose(f);
	unlink(errfile);
	ck_assert_int_eq(warnings, 1);
}
END_TEST

static Suite *make_generations_suite(void)
{
	Suite *s = suite_create("generations");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, every_release_44_to_56_has_one_generation);
	tcase_add_test(tc, layouts_are_those_of_rdma_core);
	tcase_add_test(tc, native_layout_is_this_build);
	tcase_add_test(tc, symbols_know_their_release);
	tcase_add_test(tc, release_of_file_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("imports");
	tcase_add_test(tc, imports_are_read_by_version);
	tcase_add_test(tc, imports_of_bad_files_fail_cleanly);
	suite_add_tcase(s, tc);

	tc = tcase_create("provenance");
	tcase_add_checked_fixture(tc, tree_setup, tree_teardown);
	tcase_add_test(tc, provider_folder_takes_its_libibverbs_release);
	tcase_add_test(tc, direct_verbs_library_says_its_release);
	tcase_add_test(tc, contradicting_evidence_is_refused);
	tcase_add_test(tc, missing_or_unknown_evidence_is_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("system");
	if (system_libs.gl_pathc)
		tcase_add_loop_test(tc, system_providers_are_of_the_system_release,
				    0, (int)system_libs.gl_pathc);
	suite_add_tcase(s, tc);

	tc = tcase_create("loader");
	tcase_add_test(tc, unknown_generation_is_refused_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret;

	find_system_libs();
	ret = check_run(make_generations_suite());
	globfree(&system_libs);
	return ret;
}
