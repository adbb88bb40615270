/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The exported ABI of the built libibverbs.so.1, against the system's.
 *
 * Debian's binaries are linked against rdma-core 44 with immediate
 * binding: one missing (symbol, version) pair and the program does not
 * start. So this test reads both libraries' dynamic symbol tables and
 * version definitions (through `objdump`, which ships with binutils next
 * to every gcc) and checks, as a user of a prebuilt binary would notice:
 *   - every default-version pair the system library exports exists here
 *     (pairs shown in parentheses are compat-only, pre-2006 layouts that
 *     no binary built since can reference: they are not required),
 *   - nothing is exported that the system library does not export,
 *     except softverbs' own SOFTVERBS_1 node and what a newer rdma-core
 *     release (up to 56) added, which one build serves too,
 *   - functions are functions and objects are objects of the same size
 *     (a copy relocation of a different size corrupts memory),
 *   - the version nodes exist and chain (IBVERBS_1.1 depends on 1.0...),
 *   - the SONAME is libibverbs.so.1,
 *   - the dynamic linker really binds every required pair (dlvsym),
 *   - Debian's rdma-core provider libraries, which import the private
 *     node, load with RTLD_NOW and their registration is recorded.
 *
 * It links only the built shared library, exactly like an application. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check_main.h"

#define SYSTEM_LIB_DEFAULT "/usr/lib/x86_64-linux-gnu/libibverbs.so.1"
#define OWN_NODE "SOFTVERBS_1"
#define SKIP 77

struct sym {
	char name[128];
	char ver[64];
	int hidden;       /* version printed in parentheses: compat only */
	char kind;        /* 'F' function, 'O' object, ' ' other */
	unsigned long size;
};

struct verdef {
	char name[72]; /* a node, or "@base:" and the file */
	char parents[4][64];
	int nparents;
};

struct lib_abi {
	char path[4096];
	char soname[128];
	struct sym *syms;
	size_t nsyms;
	struct verdef defs[64];
	size_t ndefs;
};

static struct lib_abi ours, sys;

/* ---- reading objdump ---------------------------------------------------- */

/* A line of `objdump -T`:
 *   0000000000014aa0 g    DF .text	0000000000000098  IBVERBS_1.0 name
 * 16 hex digits, a space, 7 flag characters, a space, then the section,
 * size, version and name separated by white space. */
static void parse_dynsym_line(struct lib_abi *lib, const char *line)
{
	char section[64], size[32], ver[64], name[128];
	const char *flags;
	struct sym *s;
	int n;

	if (strlen(line) < 26 || line[16] != ' ')
		return;
	flags = line + 17;
	n = sscanf(line + 25, "%63s %31s %63s %127s", section, size, ver, name);
	if (n < 3 || !strcmp(section, "*UND*"))
		return;
	if (n == 3) { /* no version column */
		snprintf(name, sizeof(name), "%s", ver);
		ver[0] = '\0';
	}
	if (flags[0] != 'g' && flags[1] != 'w' && flags[0] != 'u')
		return;
	/* The symbol a version node defines for itself, where shown. */
	if (!strcmp(name, ver) || !strcmp(section, "*ABS*"))
		return;

	lib->syms = realloc(lib->syms, (lib->nsyms + 1) * sizeof(*lib->syms));
	if (!lib->syms)
		abort();
	s = &lib->syms[lib->nsyms++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (ver[0] == '(') {
		s->hidden = 1;
		snprintf(s->ver, sizeof(s->ver), "%.*s", (int)strlen(ver) - 2,
			 ver + 1);
	} else {
		snprintf(s->ver, sizeof(s->ver), "%s", ver);
	}
	s->kind = flags[6] == 'F' || flags[6] == 'O' ? flags[6] : ' ';
	s->size = strtoul(size, NULL, 16);
}

/* `objdump -p`: the SONAME line and the "Version definitions:" block,
 *   3 0x00 0x06365ab1 IBVERBS_1.1
 *   	IBVERBS_1.0
 * where the indented lines name the parents of the definition above;
 * flag 0x01 marks the file's own base definition. */
static void parse_private_line(struct lib_abi *lib, const char *line,
			       int *in_defs)
{
	char a[64], b[64], c[64], d[64];

	if (sscanf(line, " SONAME %127s", lib->soname) == 1)
		return;
	if (!strncmp(line, "Version definitions:", 20)) {
		*in_defs = 1;
		return;
	}
	if (!*in_defs)
		return;
	if (line[0] == '\n' || line[0] == '\0') {
		*in_defs = 0;
		return;
	}
	if (line[0] == '\t' || line[0] == ' ') {
		struct verdef *def;

		if (!lib->ndefs || sscanf(line, "%63s", a) != 1)
			return;
		def = &lib->defs[lib->ndefs - 1];
		if (def->nparents < 4)
			snprintf(def->parents[def->nparents++], 64, "%s", a);
		return;
	}
	if (sscanf(line, "%63s %63s %63s %63s", a, b, c, d) != 4 ||
	    lib->ndefs >= 64)
		return;
	memset(&lib->defs[lib->ndefs], 0, sizeof(lib->defs[0]));
	/* The base definition (the file itself) is kept, marked, so that
	 * indented lines after it are not taken for another node's. */
	snprintf(lib->defs[lib->ndefs++].name, 72, "%s%s",
		 strcmp(b, "0x01") ? "" : "@base:", d);
}

/* 0 on success, -1 (with a message) when the library cannot be read. */
static int read_abi(struct lib_abi *lib, const char *path)
{
	char cmd[4200], line[1024];
	int in_defs = 0;
	FILE *p;

	if (access(path, R_OK)) {
		fprintf(stderr, "test_abi: cannot read %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	snprintf(lib->path, sizeof(lib->path), "%s", path);

	snprintf(cmd, sizeof(cmd), "objdump -T '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		parse_dynsym_line(lib, line);
	if (pclose(p) != 0) {
		fprintf(stderr, "test_abi: '%s' failed (is binutils installed?)\n",
			cmd);
		return -1;
	}

	snprintf(cmd, sizeof(cmd), "objdump -p '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		parse_private_line(lib, line, &in_defs);
	if (pclose(p) != 0)
		return -1;
	return 0;
}

static const struct sym *find_sym(const struct lib_abi *lib, const char *name,
				  const char *ver, int hidden)
{
	for (size_t i = 0; i < lib->nsyms; i++)
		if (!strcmp(lib->syms[i].name, name) &&
		    !strcmp(lib->syms[i].ver, ver) &&
		    lib->syms[i].hidden == hidden)
			return &lib->syms[i];
	return NULL;
}

static const struct verdef *find_def(const struct lib_abi *lib,
				     const char *name)
{
	for (size_t i = 0; i < lib->ndefs; i++)
		if (!strcmp(lib->defs[i].name, name))
			return &lib->defs[i];
	return NULL;
}

/* ---- the checks ----------------------------------------------------------- */

START_TEST(soname_is_libibverbs_so_1)
{
	ck_assert_str_eq(sys.soname, "libibverbs.so.1");
	ck_assert_msg(!strcmp(ours.soname, "libibverbs.so.1"),
		      "%s has SONAME '%s'", ours.path, ours.soname);
}
END_TEST

START_TEST(every_system_pair_is_exported)
{
	size_t missing = 0, required = 0;
	char first[512] = "";

	for (size_t i = 0; i < sys.nsyms; i++) {
		const struct sym *s = &sys.syms[i];

		if (s->hidden)
			continue;
		required++;
		if (find_sym(&ours, s->name, s->ver, 0))
			continue;
		fprintf(stderr, "missing: %s@%s\n", s->name, s->ver);
		if (strlen(first) < 300) {
			size_t len = strlen(first);

			snprintf(first + len, sizeof(first) - len, "%s%s@%s",
				 missing ? ", " : "", s->name, s->ver);
		}
		missing++;
	}
	ck_assert_msg(required > 100, "only %zu pairs read from %s", required,
		      sys.path);
	ck_assert_msg(!missing, "%zu of %zu (symbol, version) pairs missing "
		      "(all listed on stderr): %s", missing, required, first);
}
END_TEST

/* softverbs serves every rdma-core release from 44 to 56 with one
 * build: it exports what any of them does. These came after 44; a system
 * library of an older release lacks them (rdma-core's
 * libibverbs.map.in at each tag). */
static const struct {
	const char *name, *ver;
	unsigned int since;
} newer[] = {
	{ "ibv_wr_opcode_str", "IBVERBS_PRIVATE_34", 49 },
	{ "ibv_cmd_create_cq_ex2", "IBVERBS_PRIVATE_34", 53 },
};

/* The rdma-core release of the system library, from its file name
 * (libibverbs.so.1.14.44.0), 0 when it does not say. */
static unsigned int system_release(void)
{
	char real[4096];
	const char *p;
	unsigned int minor, rel, patch;
	char end;

	if (!realpath(sys.path, real))
		return 0;
	p = strrchr(real, '/');
	p = p ? p + 1 : real;
	if (sscanf(p, "libibverbs.so.1.%u.%u.%u%c", &minor, &rel, &patch,
		   &end) != 3)
		return 0;
	return rel;
}

/* An export of a release newer than the system's. */
static int newer_than_system(const struct sym *s, unsigned int release)
{
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++)
		if (!strcmp(newer[i].name, s->name) &&
		    !strcmp(newer[i].ver, s->ver) && !s->hidden)
			return release && release < newer[i].since;
	return 0;
}

START_TEST(nothing_exported_beyond_the_system_set)
{
	unsigned int release = system_release();
	size_t extra = 0;

	for (size_t i = 0; i < ours.nsyms; i++) {
		const struct sym *s = &ours.syms[i];

		if (!strcmp(s->ver, OWN_NODE) && !s->hidden)
			continue;
		if (find_sym(&sys, s->name, s->ver, s->hidden))
			continue;
		if (newer_than_system(s, release))
			continue;
		fprintf(stderr, "exported but not in %s: %s%s%s%s\n", sys.path,
			s->name, s->hidden ? "@(" : "@", s->ver,
			s->hidden ? ")" : "");
		extra++;
	}
	ck_assert_msg(!extra, "%zu exported symbols are not in the system "
		      "library (listed on stderr)", extra);
}
END_TEST

START_TEST(symbol_kinds_and_object_sizes_match)
{
	size_t bad = 0;

	for (size_t i = 0; i < sys.nsyms; i++) {
		const struct sym *s = &sys.syms[i], *o;

		if (s->hidden)
			continue;
		o = find_sym(&ours, s->name, s->ver, 0);
		if (!o)
			continue; /* reported by every_system_pair_is_exported */
		if (o->kind != s->kind ||
		    (s->kind == 'O' && o->size != s->size)) {
			fprintf(stderr, "%s@%s: system has %c size %lu, "
				"softverbs %c size %lu\n", s->name, s->ver,
				s->kind, s->size, o->kind, o->size);
			bad++;
		}
	}
	ck_assert_msg(!bad, "%zu symbols differ in kind or object size", bad);
}
END_TEST

START_TEST(version_nodes_exist_and_chain)
{
	for (size_t i = 0; i < sys.ndefs; i++) {
		const struct verdef *s = &sys.defs[i], *o;

		if (!strncmp(s->name, "@base:", 6))
			continue;
		o = find_def(&ours, s->name);
		ck_assert_msg(o, "version node %s is not defined", s->name);
		ck_assert_msg(o->nparents == s->nparents,
			      "%s has %d parents, system has %d", s->name,
			      o->nparents, s->nparents);
		for (int p = 0; p < s->nparents; p++)
			ck_assert_msg(!strcmp(o->parents[p], s->parents[p]),
				      "%s depends on %s, system's on %s",
				      s->name, o->parents[p], s->parents[p]);
	}
	for (size_t i = 0; i < ours.ndefs; i++) {
		const char *name = ours.defs[i].name;

		if (!strncmp(name, "@base:", 6) || !strcmp(name, OWN_NODE))
			continue;
		ck_assert_msg(find_def(&sys, name),
			      "version node %s is not in the system library",
			      name);
	}
}
END_TEST

/* What the dynamic linker does for an application: look every required
 * pair up by version. */
START_TEST(dynamic_linker_binds_every_pair)
{
	void *h = dlopen(ours.path, RTLD_NOW | RTLD_LOCAL);
	size_t unbound = 0;

	ck_assert_msg(h, "dlopen(%s): %s", ours.path, dlerror());
	for (size_t i = 0; i < sys.nsyms; i++) {
		const struct sym *s = &sys.syms[i];

		if (s->hidden)
			continue;
		if (!dlvsym(h, s->name, s->ver)) {
			fprintf(stderr, "dlvsym(%s, %s) failed\n", s->name,
				s->ver);
			unbound++;
		}
	}
	dlclose(h);
	ck_assert_msg(!unbound, "%zu pairs cannot be bound (listed on stderr)",
		      unbound);
}
END_TEST

/* ---- rdma-core providers loaded into a softverbs process --------------- */

/* Child mode: load one provider library and report. Its constructor
 * calls verbs_register_driver_34, which softverbs records and logs. */
static int load_provider_and_exit(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
		return 1;
	}
	return 0;
}

/* The direct-verbs libraries (perftest links libmlx5 and libefa) and
 * every plugin Debian ships, each bound immediately (LD_BIND_NOW): a
 * symbol or version softverbs lacks fails the load. */
static glob_t providers;

static void find_providers(void)
{
	glob("/usr/lib/x86_64-linux-gnu/libmlx5.so.1", 0, NULL, &providers);
	glob("/usr/lib/x86_64-linux-gnu/libmlx4.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libefa.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libmana.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libhns.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libibverbs/*-rdmav34.so", GLOB_APPEND,
	     NULL, &providers);
}

START_TEST(rdma_core_provider_loads_and_registers)
{
	const char *path = providers.gl_pathv[_i];
	char logfile[] = "/tmp/test_abi_log.XXXXXX";
	char line[1024];
	int fd, status, registered = 0;
	FILE *f;
	pid_t pid;

	fd = mkstemp(logfile);
	ck_assert_int_ge(fd, 0);
	close(fd);

	/* A fresh process: the log settings are read when softverbs loads. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("SOFTVERBS_LOG", "debug", 1);
		setenv("LD_BIND_NOW", "1", 1);
		setenv("SOFTVERBS_LOG_FILE", logfile, 1);
		execl("/proc/self/exe", "test_abi", "--load-provider", path,
		      (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);

	f = fopen(logfile, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "' registered"))
			registered = 1;
	fclose(f);
	unlink(logfile);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "loading %s on softverbs failed (status 0x%x; the "
		      "dlerror is on stderr)", path, (unsigned int)status);
	ck_assert_msg(registered, "%s loaded but no registration was logged",
		      path);
}
END_TEST

static Suite *make_abi_suite(void)
{
	Suite *s = suite_create("abi");
	TCase *tc = tcase_create("exports");

	tcase_add_test(tc, soname_is_libibverbs_so_1);
	tcase_add_test(tc, every_system_pair_is_exported);
	tcase_add_test(tc, nothing_exported_beyond_the_system_set);
	tcase_add_test(tc, symbol_kinds_and_object_sizes_match);
	tcase_add_test(tc, version_nodes_exist_and_chain);
	tcase_add_test(tc, dynamic_linker_binds_every_pair);
	suite_add_tcase(s, tc);

	tc = tcase_create("rdma-core providers");
	if (providers.gl_pathc)
		tcase_add_loop_test(tc, rdma_core_provider_loads_and_registers,
				    0, (int)providers.gl_pathc);
	suite_add_tcase(s, tc);
	return s;
}

static const char *own_library_path(char *buf, size_t len)
{
	const char *dir = getenv("SOFTVERBS_LIBDIR");
	const char *top = getenv("top_builddir");

	if (dir && *dir)
		snprintf(buf, len, "%s/libibverbs.so.1", dir);
	else if (top && *top)
		snprintf(buf, len, "%s/lib/.libs/libibverbs.so.1", top);
	else
		snprintf(buf, len, "lib/.libs/libibverbs.so.1");
	return buf;
}

int main(int argc, char **argv)
{
	const char *system_lib = getenv("SYSTEM_LIBIBVERBS");
	char own_path[4096];
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--load-provider"))
		return load_provider_and_exit(argv[2]);

	if (!system_lib || !*system_lib)
		system_lib = SYSTEM_LIB_DEFAULT;
	if (read_abi(&sys, system_lib)) {
		printf("SKIP: the system libibverbs (%s) cannot be read; "
		       "install libibverbs1 and binutils\n", system_lib);
		return SKIP;
	}
	if (read_abi(&ours, own_library_path(own_path, sizeof(own_path)))) {
		fprintf(stderr, "test_abi: the built library %s cannot be "
			"read\n", own_path);
		return 1;
	}
	find_providers();

	ret = check_run(make_abi_suite());
	globfree(&providers);
	return ret;
}
