/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Which rdma-core release built a provider library, and so which
 * generation's layouts it expects (lib/pabi/generations.c). A provider of
 * rdma-core 44 and one of 56 register through the same function and ask
 * for the same version node; nothing they pass at run time tells them
 * apart (the sizes they hand to _verbs_init_and_alloc_context and
 * verbs_set_ops' table are those of structures that did not change). The
 * evidence is in the files:
 *
 *  1. The library's own file name. rdma-core names its shared libraries
 *     lib<name>.so.<soname>.<minor>.<release>.<patch>: the direct-verbs
 *     providers (libmlx5.so.1.25.56.1, libefa.so.1.3.56.1, ...; their
 *     lib<name>-rdmav34.so is a symlink to that file) say their release.
 *  2. The libibverbs installed with it. The providers in one folder come
 *     from one rdma-core build and are installed with that build's
 *     libibverbs.so.1 (-> libibverbs.so.1.14.56.1), in the folder's parent
 *     (lib/libibverbs/librxe-rdmav34.so beside lib/libibverbs.so.1) or in
 *     the library's own folder (lib/libmlx5.so.1). A libibverbs that is
 *     this library (softverbs installed in that folder) says nothing.
 *  3. What it imports. Every symbol of the node it calls must exist in
 *     the release the other evidence names: a provider that imports
 *     ibv_cmd_create_cq_ex2 is of rdma-core 53 or later, whatever its
 *     folder says.
 *
 * 1 and 2 must agree when both are there, and 3 must not contradict
 * them; without 1 and 2 the imports alone decide only if every release
 * they allow is of one generation (with 44-56 that never happens: they
 * can name a lower bound only). Anything else: unknown, and the caller
 * refuses the provider rather than drive it with a guessed layout. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pabi.h"

unsigned int pabi_release_of_name(const char *file_name)
{
	const char *p = strstr(file_name, ".so.");
	unsigned long v[4];
	int n = 0;

	if (strncmp(file_name, "lib", 3) || !p)
		return 0;
	p += 4;
	while (n < 4) {
		char *end;

		if (*p < '0' || *p > '9')
			return 0;
		errno = 0;
		v[n++] = strtoul(p, &end, 10);
		if (errno || v[n - 1] > 100000)
			return 0;
		p = end;
		if (*p == '.' && n < 4) {
			p++;
			continue;
		}
		break;
	}
	return n == 4 && !*p ? (unsigned int)v[2] : 0;
}

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* This library's own file (softverbs' libibverbs.so.1), by inode. */
static int is_this_library(const struct stat *st)
{
	static const int here;
	struct stat own;
	Dl_info info;

	if (!dladdr(&here, &info) || !info.dli_fname ||
	    stat(info.dli_fname, &own))
		return 0;
	return own.st_dev == st->st_dev && own.st_ino == st->st_ino;
}

/* The release of the rdma-core libibverbs installed with the library
 * at path (real: the same, symlinks resolved): 0 when there is none
 * that says. sib gets its resolved path. */
static unsigned int sibling_release(const char *path, const char *real,
				    char *sib, size_t sib_len)
{
	const char *bases[2] = { path, real };
	static const char *const rel[] = { "libibverbs.so.1",
					   "../libibverbs.so.1" };

	for (size_t b = 0; b < 2; b++) {
		const char *slash = strrchr(bases[b], '/');
		int dirlen = slash ? (int)(slash - bases[b]) : 1;
		const char *dir = slash ? bases[b] : ".";

		for (size_t r = 0; r < 2; r++) {
			char cand[PATH_MAX], res[PATH_MAX];
			unsigned int release;
			struct stat st;
			int n;

			n = snprintf(cand, sizeof(cand), "%.*s/%s", dirlen, dir,
				     rel[r]);
			if (n < 0 || (size_t)n >= sizeof(cand) ||
			    !realpath(cand, res) || stat(res, &st) ||
			    is_this_library(&st))
				continue;
			release = pabi_release_of_name(base_name(res));
			if (!release)
				continue;
			snprintf(sib, sib_len, "%s", res);
			return release;
		}
	}
	return 0;
}

struct imports {
	const char *node;
	unsigned int lo;          /* the oldest release that has them all */
	const char *newest;       /* the symbol that sets lo */
	char newest_buf[64];
};

static void import_one(const char *symbol, void *arg)
{
	struct imports *im = arg;
	unsigned int since = pabi_symbol_since(im->node, symbol, NULL);

	if (since > im->lo) {
		im->lo = since;
		snprintf(im->newest_buf, sizeof(im->newest_buf), "%s", symbol);
		im->newest = im->newest_buf;
	}
}

const struct pabi_gen *pabi_gen_of_library(const char *path, const char *node,
					   char *why, size_t why_len)
{
	char real[PATH_MAX], sib[PATH_MAX] = "";
	struct imports im = { .node = node };
	unsigned int own, sibling, release, last = 0;
	const struct pabi_gen *gen, *g_lo, *g_hi;
	int ret;

	im.lo = pabi_symbol_since(node, "", &last);
	if (!im.lo) {
		say(why, why_len, "%s is not a provider ABI this library drives",
		    node);
		return NULL;
	}
	if (!path || !realpath(path, real)) {
		say(why, why_len, "its file cannot be found (%s)",
		    path ? strerror(errno) : "no path");
		return NULL;
	}
	own = pabi_release_of_name(base_name(real));
	sibling = sibling_release(path, real, sib, sizeof(sib));
	ret = pabi_elf_imports(real, node, import_one, &im);
	if (ret) {
		say(why, why_len, "its imports cannot be read (%s)",
		    strerror(-ret));
		return NULL;
	}

	if (own && sibling && own != sibling) {
		say(why, why_len,
		    "its file name says rdma-core %u, the libibverbs installed with it (%s) rdma-core %u",
		    own, sib, sibling);
		return NULL;
	}
	release = own ? own : sibling;
	if (release) {
		gen = pabi_gen_of_release(release);
		if (!gen || strcmp(gen->node, node)) {
			say(why, why_len,
			    "built by rdma-core %u (%s), a release whose %s this library does not drive (it drives %u-%u)",
			    release, own ? base_name(real) : sib, node,
			    pabi_first_release(), pabi_last_release());
			return NULL;
		}
		if (release < im.lo) {
			say(why, why_len,
			    "built by rdma-core %u (%s), yet it calls %s, which came with rdma-core %u",
			    release, own ? base_name(real) : sib, im.newest,
			    im.lo);
			return NULL;
		}
		say(why, why_len, "rdma-core %u (%s)", release,
		    own ? base_name(real) : sib);
		return gen;
	}
	g_lo = pabi_gen_of_release(im.lo);
	g_hi = pabi_gen_of_release(last);
	if (g_lo && g_lo == g_hi) {
		say(why, why_len, "%s (from what it imports)", g_lo->name);
		return g_lo;
	}
	say(why, why_len,
	    "nothing tells which rdma-core release built it (no release in its file name, no rdma-core libibverbs.so.1 beside it; its imports allow rdma-core %u-%u)",
	    im.lo, last);
	return NULL;
}
