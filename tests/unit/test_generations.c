/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The provider ABI's generations (lib/pabi/generations.c), and how the
 * library learns which one a provider library belongs to
 * (lib/pabi/provenance.c, lib/pabi/elf.c): a provider of rdma-core 44
 * and one of 56 both register through verbs_register_driver_34 but
 * expect different layouts, and one driven with the other's would have
 * its QPs written in the wrong place; one of 59 and one of 62 both
 * register through verbs_register_driver_59 with ops tables of two
 * layouts. White-box: links the core.
 *
 * The layouts are pinned from rdma-core's sources (driver.h and verbs.h
 * at v44.0, v45.0, v49.0, v53.0, v54.0, v56.1, v57.0, v59.0, v61.0,
 * v62.0, v63.0, v64.0 and 65.0: no Debian release has 57-64, so these
 * numbers are the only check of those generations besides the probe
 * described in notes/issue26.md); the provenance cases run on fake
 * installation trees in /tmp holding stand-in provider libraries
 * (tests/unit/pabi_fake_provider.c, one per node) and on the system's
 * own providers. */
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

START_TEST(every_release_44_to_65_has_one_generation)
{
	static const struct {
		unsigned int first, last;
		const char *node;
	} nodes[] = {
		{ 44, 56, "IBVERBS_PRIVATE_34" }, { 57, 58, "IBVERBS_PRIVATE_57" },
		{ 59, 63, "IBVERBS_PRIVATE_59" }, { 64, 64, "IBVERBS_PRIVATE_64" },
		{ 65, 65, "IBVERBS_PRIVATE_65" },
	};
	const struct pabi_gen *prev = NULL;

	ck_assert_ptr_null(pabi_gen_of_release(43));
	ck_assert_ptr_null(pabi_gen_of_release(66));
	ck_assert_ptr_null(pabi_gen_of_release(0));
	for (unsigned int r = 44; r <= 65; r++) {
		const struct pabi_gen *g = pabi_gen_of_release(r);
		const char *node = NULL;

		ck_assert_ptr_nonnull(g);
		ck_assert_uint_le(g->first, r);
		ck_assert_uint_ge(g->last, r);
		for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
			if (r >= nodes[i].first && r <= nodes[i].last)
				node = nodes[i].node;
		ck_assert_str_eq(g->node, node);
		/* runs follow each other without a gap */
		if (prev && prev != g)
			ck_assert_uint_eq(prev->last + 1, g->first);
		prev = g;
	}
	ck_assert_uint_eq(pabi_first_release(), 44);
	ck_assert_uint_eq(pabi_last_release(), 65);
	ck_assert_ptr_eq(pabi_gen_at(0), pabi_gen_of_release(44));
	ck_assert_ptr_null(pabi_gen_at(pabi_gen_count()));
	/* a node's releases: the silent change of _59 at 62 is two runs */
	ck_assert_ptr_ne(pabi_gen_of_release(61), pabi_gen_of_release(62));
	ck_assert_ptr_eq(pabi_gen_of_release(59), pabi_gen_of_release(61));
	ck_assert_ptr_eq(pabi_gen_of_release(62), pabi_gen_of_release(63));
}
END_TEST

/* The offsets in rdma-core's headers: verbs_qp = ibv_qp_ex (352 bytes in
 * v44, 360 from v45: wr_flush), u32 comp_mask, pointer xrcd;
 * ibv_port_attr 52 bytes, 56 from v49 (active_speed_ex); struct
 * verbs_context 648 bytes to v58, 672 from v59 (alloc_dmah, dealloc_dmah,
 * reg_mr_ex in front of query_port), 680 from v62 (dm_export_dmabuf_fd),
 * 696 from v64 (alloc_buf, free_buf). */
START_TEST(layouts_are_those_of_rdma_core)
{
	static const struct {
		unsigned int release;
		uint16_t comp_mask, xrcd, port_attr, vctx;
		bool dmabuf_driver;
	} want[] = {
		{ 44, 352, 360, 52, 648, false },
		{ 45, 360, 368, 52, 648, false },
		{ 48, 360, 368, 52, 648, false },
		{ 49, 360, 368, 56, 648, false },
		{ 53, 360, 368, 56, 648, false },
		{ 54, 360, 368, 56, 648, true },
		{ 56, 360, 368, 56, 648, true },
		{ 57, 360, 368, 56, 648, true },
		{ 58, 360, 368, 56, 648, true },
		{ 59, 360, 368, 56, 672, true },
		{ 61, 360, 368, 56, 672, true },
		{ 62, 360, 368, 56, 680, true },
		{ 63, 360, 368, 56, 680, true },
		{ 64, 360, 368, 56, 696, true },
		{ 65, 360, 368, 56, 696, true },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct pabi_gen *g = pabi_gen_of_release(want[i].release);

		ck_assert_msg(g->layout.qp_comp_mask == want[i].comp_mask &&
				      g->layout.qp_xrcd == want[i].xrcd &&
				      g->layout.port_attr_size == want[i].port_attr &&
				      g->layout.vctx_size == want[i].vctx &&
				      g->reg_dmabuf_mr_driver == want[i].dmabuf_driver,
			      "rdma-core %u: comp_mask %u xrcd %u port_attr %u vctx %u dmabuf %d",
			      want[i].release, g->layout.qp_comp_mask,
			      g->layout.qp_xrcd, g->layout.port_attr_size,
			      g->layout.vctx_size, g->reg_dmabuf_mr_driver);
	}
}
END_TEST

/* struct verbs_context_ops of each release: its number of slots and where
 * some ops are (the slot's index in driver.h's struct at v44.0, v59.0,
 * v62.0, v64.0 and 65.0; 57-58 are 44's, 60-61 59's, 63 62's). A
 * provider's table is read through its generation's first release. */
START_TEST(ops_tables_are_those_of_rdma_core)
{
	static const struct {
		unsigned int release;
		size_t slots;
	} sizes[] = {
		{ 44, 76 }, { 56, 76 }, { 57, 76 }, { 58, 76 }, { 59, 79 },
		{ 61, 79 }, { 62, 81 }, { 63, 81 }, { 64, 83 }, { 65, 93 },
	};
	static const struct {
		unsigned int release;
		const char *op;
		int slot;
	} at[] = {
		{ 44, "advise_mr", 0 },
		{ 44, "alloc_pd", 5 },
		{ 44, "create_cq_ex", 16 },
		{ 44, "dereg_mr", 28 },
		{ 44, "free_context", 39 },
		{ 44, "query_port", 60 },
		{ 44, "reg_dmabuf_mr", 67 },
		{ 44, "reg_mr", 68 },
		{ 44, "unimport_pd", 75 },
		{ 59, "alloc_dm", 1 },
		{ 59, "alloc_dmah", 2 },
		{ 59, "dealloc_dmah", 26 },
		{ 59, "free_context", 41 },
		{ 59, "reg_mr", 70 },
		{ 59, "reg_mr_ex", 71 },
		{ 59, "unimport_pd", 78 },
		{ 62, "dm_export_dmabuf_fd", 41 },
		{ 62, "free_context", 42 },
		{ 62, "query_port", 63 },
		{ 62, "query_port_speed", 64 },
		{ 62, "reg_mr_ex", 73 },
		{ 62, "unimport_pd", 80 },
		{ 64, "alloc_buf", 1 },
		{ 64, "alloc_dm", 2 },
		{ 64, "free_buf", 43 },
		{ 64, "free_context", 44 },
		{ 64, "query_port_speed", 66 },
		{ 64, "unimport_pd", 82 },
		{ 65, "create_comp_cntr", 16 },
		{ 65, "free_context", 46 },
		{ 65, "inc_comp_cntr", 52 },
		{ 65, "query_comp_cntr_caps", 68 },
		{ 65, "query_port_speed", 72 },
		{ 65, "read_err_comp_cntr", 79 },
		{ 65, "set_err_comp_cntr", 89 },
		{ 65, "unimport_pd", 92 },
		/* what a release does not have */
		{ 58, "alloc_dmah", -1 },
		{ 61, "query_port_speed", -1 },
		{ 63, "alloc_buf", -1 },
		{ 64, "create_comp_cntr", -1 },
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ck_assert_msg(pabi_ops_slots(sizes[i].release) == sizes[i].slots,
			      "rdma-core %u: %zu slots, not %zu", sizes[i].release,
			      pabi_ops_slots(sizes[i].release), sizes[i].slots);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		ck_assert_msg(pabi_ops_slot(at[i].release, at[i].op) == at[i].slot,
			      "rdma-core %u: %s in slot %d, not %d", at[i].release,
			      at[i].op, pabi_ops_slot(at[i].release, at[i].op),
			      at[i].slot);
	ck_assert_int_eq(pabi_ops_slot(65, "no_such_op"), -1);
}
END_TEST

/* A provider's table read with its release's layout: a 62 table with a
 * marker in every slot lands each op in the core's slot of that name. */
static int marked_query_port(struct ibv_context *c, uint8_t p,
			     struct ibv_port_attr *a)
{
	(void)c; (void)p; (void)a;
	return 62;
}

static int marked_query_port_speed(struct ibv_context *c, uint32_t p,
				   uint64_t *s)
{
	(void)c; (void)p; (void)s;
	return 64;
}

static void marked_free_context(struct ibv_context *c)
{
	(void)c;
}

START_TEST(ops_are_taken_by_their_release_layout)
{
	void (*table[PABI_OPS_SLOTS_MAX])(void);
	void (*free_context)(struct ibv_context *) = NULL;
	struct sv_context_ops ops;

	for (unsigned int r = 44; r <= 65; r++) {
		unsigned int first = pabi_gen_of_release(r)->first;

		memset(table, 0, sizeof(table));
		memset(&ops, 0, sizeof(ops));
		free_context = NULL;
		table[pabi_ops_slot(first, "query_port")] =
			(void (*)(void))marked_query_port;
		table[pabi_ops_slot(first, "free_context")] =
			(void (*)(void))marked_free_context;
		if (pabi_ops_slot(first, "query_port_speed") >= 0)
			table[pabi_ops_slot(first, "query_port_speed")] =
				(void (*)(void))marked_query_port_speed;
		pabi_ops_take(&ops, &free_context,
			      (const struct verbs_context_ops *)table, first);
		ck_assert_msg(ops.query_port == marked_query_port,
			      "rdma-core %u: query_port not taken", r);
		ck_assert_ptr_eq(free_context, marked_free_context);
		ck_assert_ptr_eq(ops.query_port_speed,
				 r >= 62 ? marked_query_port_speed : NULL);
		/* nothing else was written */
		ck_assert_uint_eq(sv_ops_null_slots(&ops),
				  sizeof(ops) / sizeof(void (*)(void)) -
					  (r >= 62 ? 2 : 1));
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
	ck_assert_uint_eq(pabi_symbol_since("IBVERBS_PRIVATE_99", "x", NULL), 0);
	ck_assert_uint_eq(pabi_symbol_since("IBVERBS_PRIVATE_57", "ibv_cmd_reg_mr",
					    &last), 57);
	ck_assert_uint_eq(last, 58);
	ck_assert_uint_eq(pabi_symbol_since("IBVERBS_PRIVATE_59",
					    "ibv_cmd_query_port_speed", &last), 62);
	ck_assert_uint_eq(last, 63);
	ck_assert_uint_eq(pabi_symbol_since("IBVERBS_PRIVATE_59",
					    "ibv_cmd_reg_mr_ex", NULL), 59);
	ck_assert_uint_eq(pabi_symbol_since("IBVERBS_PRIVATE_65",
					    "ibv_cmd_reg_mr", &last), 65);
	ck_assert_uint_eq(last, 65);
}
END_TEST

START_TEST(release_of_file_names)
{
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1.14.56.1"), 56);
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1.14.44.0"), 44);
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1.18.65.0"), 65);
	ck_assert_uint_eq(pabi_release_of_name("libmlx5.so.1.25.56.1"), 56);
	ck_assert_uint_eq(pabi_release_of_name("libefa.so.1.3.44.0"), 44);
	/* softverbs' own library, and names that say nothing */
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1.14.44"), 0);
	ck_assert_uint_eq(pabi_release_of_name("libibverbs.so.1.18.65"), 0);
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

/* The stand-ins, by the release they pose as: 44 (node _34), 53 (_34 with
 * ibv_cmd_create_cq_ex2), 57, 59, 62 (_59 with ibv_cmd_query_port_speed),
 * 64, 65. */
static const char *const fake_names[] = { "44", "53", "57", "59", "62", "64",
					  "65" };
static char fakes[7][PATH_MAX];
#define fake44 fakes[0]
#define fake53 fakes[1]
#define fake57 fakes[2]
#define fake59 fakes[3]
#define fake62 fakes[4]
#define fake64 fakes[5]
#define fake65 fakes[6]

static void find_fakes(void)
{
	const char *top = getenv("top_builddir");

	for (size_t i = 0; i < 7; i++) {
		snprintf(fakes[i], sizeof(fakes[i]),
			 "%s/tests/unit/.libs/libpabifake%s.so",
			 top && *top ? top : ".", fake_names[i]);
		ck_assert_msg(!access(fakes[i], R_OK),
			      "the stand-in provider %s is not built (make check)",
			      fakes[i]);
	}
}

struct seen {
	int ex2, get_context, reg, other, speed;
};

static void note(const char *symbol, void *arg)
{
	struct seen *s = arg;

	if (!strcmp(symbol, "ibv_cmd_create_cq_ex2"))
		s->ex2++;
	else if (!strcmp(symbol, "ibv_cmd_get_context"))
		s->get_context++;
	else if (!strncmp(symbol, "verbs_register_driver_", 22))
		s->reg++;
	else if (!strcmp(symbol, "ibv_get_device_list"))
		s->other++;
	else if (!strcmp(symbol, "ibv_cmd_query_port_speed"))
		s->speed++;
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

/* A provider of each node imports that node's versions and no other's:
 * the same name (ibv_cmd_get_context) is another function in each. */
START_TEST(imports_are_read_per_node)
{
	static const struct {
		int fake;
		const char *node;
		int speed;
	} cases[] = {
		{ 2, "IBVERBS_PRIVATE_57", 0 }, { 3, "IBVERBS_PRIVATE_59", 0 },
		{ 4, "IBVERBS_PRIVATE_59", 1 }, { 5, "IBVERBS_PRIVATE_64", 0 },
		{ 6, "IBVERBS_PRIVATE_65", 0 },
	};

	find_fakes();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct seen mine = { 0 }, old = { 0 };

		ck_assert_int_eq(pabi_elf_imports(fakes[cases[i].fake],
						  cases[i].node, note, &mine), 0);
		ck_assert_int_eq(mine.reg, 1);
		ck_assert_int_eq(mine.get_context, 1);
		ck_assert_int_eq(mine.speed, cases[i].speed);
		ck_assert_int_eq(pabi_elf_imports(fakes[cases[i].fake], NODE,
						  note, &old), 0);
		ck_assert_int_eq(old.reg + old.get_context + old.speed, 0);
	}
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

static const struct pabi_gen *gen_of_node(const char *rel, const char *node,
					   char *why, size_t len)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	return pabi_gen_of_library(path, node, why, len);
}

static const struct pabi_gen *gen_of(const char *rel, char *why, size_t len)
{
	return gen_of_node(rel, NODE, why, len);
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
	ck_assert_ptr_null(pabi_gen_of_library(fake44, "IBVERBS_PRIVATE_33",
					       why, sizeof(why)));
}
END_TEST

/* rdma-core 57-65: the node and the release in the files agree; the
 * libibverbs file's minor is the newest public node (1.14 to 58, 1.15
 * 59-61, 1.16 62-63, 1.17 64, 1.18 65). */
START_TEST(newer_nodes_take_their_release)
{
	static const struct {
		const char *dir, *libibverbs, *provider, *node;
		int fake;
		unsigned int release;
	} cases[] = {
		{ "r57/lib", "libibverbs.so.1.14.57.0", "librxe-rdmav57.so",
		  "IBVERBS_PRIVATE_57", 2, 57 },
		{ "r58/lib", "libibverbs.so.1.14.58.2", "librxe-rdmav57.so",
		  "IBVERBS_PRIVATE_57", 2, 58 },
		{ "r59/lib", "libibverbs.so.1.15.59.0", "librxe-rdmav59.so",
		  "IBVERBS_PRIVATE_59", 3, 59 },
		{ "r61/lib", "libibverbs.so.1.15.61.1", "librxe-rdmav59.so",
		  "IBVERBS_PRIVATE_59", 3, 61 },
		/* 62's provider may not call 62's helpers: its folder tells */
		{ "r62/lib", "libibverbs.so.1.16.62.0", "librxe-rdmav59.so",
		  "IBVERBS_PRIVATE_59", 3, 62 },
		{ "r63/lib", "libibverbs.so.1.16.63.1", "libmlx5-rdmav59.so",
		  "IBVERBS_PRIVATE_59", 4, 63 },
		{ "r64/lib", "libibverbs.so.1.17.64.0", "librxe-rdmav64.so",
		  "IBVERBS_PRIVATE_64", 5, 64 },
		{ "r65/lib", "libibverbs.so.1.18.65.0", "librxe-rdmav65.so",
		  "IBVERBS_PRIVATE_65", 6, 65 },
	};
	char rel[256], why[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put_libibverbs(cases[i].dir, cases[i].libibverbs);
		snprintf(rel, sizeof(rel), "%s/libibverbs/%s", cases[i].dir,
			 cases[i].provider);
		put(fakes[cases[i].fake], rel);
		ck_assert_msg(gen_of_node(rel, cases[i].node, why, sizeof(why)) ==
				      pabi_gen_of_release(cases[i].release),
			      "%s: %s", rel, why);
		ck_assert_ptr_nonnull(strstr(why, cases[i].libibverbs));
	}
}
END_TEST

START_TEST(newer_nodes_refuse_contradictions)
{
	char why[512];

	/* a provider that calls rdma-core 62's helper in a 61 folder */
	put_libibverbs("r61/lib", "libibverbs.so.1.15.61.0");
	put(fake62, "r61/lib/libibverbs/libnew-rdmav59.so");
	ck_assert_ptr_null(gen_of_node("r61/lib/libibverbs/libnew-rdmav59.so",
				       "IBVERBS_PRIVATE_59", why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "ibv_cmd_query_port_speed"));
	ck_assert_ptr_nonnull(strstr(why, "rdma-core 62"));
	/* a provider of node _34 in a 65 folder, one of _57 in a 56 folder */
	put_libibverbs("r65/lib", "libibverbs.so.1.18.65.0");
	put(fake44, "r65/lib/libibverbs/libold-rdmav34.so");
	ck_assert_ptr_null(gen_of("r65/lib/libibverbs/libold-rdmav34.so", why,
				  sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "rdma-core 65"));
	put_libibverbs("r56/lib", "libibverbs.so.1.14.56.1");
	put(fake57, "r56/lib/libibverbs/libnew-rdmav57.so");
	ck_assert_ptr_null(gen_of_node("r56/lib/libibverbs/libnew-rdmav57.so",
				       "IBVERBS_PRIVATE_57", why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "rdma-core 56"));
}
END_TEST

/* Without a release in the files, the node and the imports decide when
 * every release they allow is of one generation: _57, _64 and _65 have
 * one each; _59 has two, told apart only by a call of 62's helpers. */
START_TEST(newer_nodes_without_a_release)
{
	char why[512];

	put(fake57, "alone/lib57-rdmav57.so");
	ck_assert_ptr_eq(gen_of_node("alone/lib57-rdmav57.so",
				     "IBVERBS_PRIVATE_57", why, sizeof(why)),
			 pabi_gen_of_release(57));
	put(fake59, "alone/lib59-rdmav59.so");
	ck_assert_ptr_null(gen_of_node("alone/lib59-rdmav59.so",
				       "IBVERBS_PRIVATE_59", why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "59-63"));
	put(fake62, "alone/lib62-rdmav59.so");
	ck_assert_ptr_eq(gen_of_node("alone/lib62-rdmav59.so",
				     "IBVERBS_PRIVATE_59", why, sizeof(why)),
			 pabi_gen_of_release(62));
	ck_assert_ptr_nonnull(strstr(why, "from what it imports"));
	put(fake64, "alone/lib64-rdmav64.so");
	ck_assert_ptr_eq(gen_of_node("alone/lib64-rdmav64.so",
				     "IBVERBS_PRIVATE_64", why, sizeof(why)),
			 pabi_gen_of_release(64));
	put(fake65, "alone/lib65-rdmav65.so");
	ck_assert_ptr_eq(gen_of_node("alone/lib65-rdmav65.so",
				     "IBVERBS_PRIVATE_65", why, sizeof(why)),
			 pabi_gen_of_release(65));
}
END_TEST

/* ---- the system's own providers ----------------------------------------- */

static glob_t system_libs;

static void find_system_libs(void)
{
	glob("/usr/lib/x86_64-linux-gnu/libibverbs/*-rdmav*.so", 0, NULL,
	     &system_libs);
	glob("/usr/lib/x86_64-linux-gnu/lib{mlx5,mlx4,efa,mana,hns,ionic}.so.1",
	     GLOB_APPEND | GLOB_BRACE, NULL, &system_libs);
}

/* Every provider Debian ships is taken for the release of the system's
 * libibverbs (44 on Debian 12, 56 on Debian 13, 65 on unstable), under
 * the node of that release. */
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
	ck_assert_msg(pabi_gen_of_release(release), "rdma-core %u is not driven",
		      release);
	g = pabi_gen_of_library(path, pabi_gen_of_release(release)->node, why,
				sizeof(why));
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
	ck_assert_ptr_null(pabi_driver.claim(&s));
	ck_assert_ptr_null(pabi_driver.claim(&s));
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

	tcase_add_test(tc, every_release_44_to_65_has_one_generation);
	tcase_add_test(tc, layouts_are_those_of_rdma_core);
	tcase_add_test(tc, ops_tables_are_those_of_rdma_core);
	tcase_add_test(tc, ops_are_taken_by_their_release_layout);
	tcase_add_test(tc, native_layout_is_this_build);
	tcase_add_test(tc, symbols_know_their_release);
	tcase_add_test(tc, release_of_file_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("imports");
	tcase_add_test(tc, imports_are_read_by_version);
	tcase_add_test(tc, imports_are_read_per_node);
	tcase_add_test(tc, imports_of_bad_files_fail_cleanly);
	suite_add_tcase(s, tc);

	tc = tcase_create("provenance");
	tcase_add_checked_fixture(tc, tree_setup, tree_teardown);
	tcase_add_test(tc, provider_folder_takes_its_libibverbs_release);
	tcase_add_test(tc, direct_verbs_library_says_its_release);
	tcase_add_test(tc, contradicting_evidence_is_refused);
	tcase_add_test(tc, missing_or_unknown_evidence_is_refused);
	tcase_add_test(tc, newer_nodes_take_their_release);
	tcase_add_test(tc, newer_nodes_refuse_contradictions);
	tcase_add_test(tc, newer_nodes_without_a_release);
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
