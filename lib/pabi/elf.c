/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The versioned symbols an ELF shared object imports: its undefined
 * dynamic symbols (.dynsym) whose version index (.gnu.version) names an
 * entry of .gnu.version_r with the version wanted. That is the part of
 * the file the dynamic loader binds against libibverbs' version nodes,
 * so it says which provider ABI entry points the library calls.
 *
 * The file is read, never trusted: every offset and count is checked
 * against the mapping before use. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pabi.h"

/* A provider library is well under this; anything larger is not one. */
#define ELF_MAX_BYTES (256u << 20)
/* version indices are 15 bits */
#define VERSYM_INDEX_MASK 0x7fff

struct elf_file {
	const unsigned char *base;
	size_t size;
};

/* p..p+len inside the file */
static int in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static const Elf64_Shdr *section(const struct elf_file *f,
				 const Elf64_Ehdr *eh, unsigned int i)
{
	if (i >= eh->e_shnum)
		return NULL;
	return (const Elf64_Shdr *)(f->base + eh->e_shoff +
				    (uint64_t)i * sizeof(Elf64_Shdr));
}

/* The NUL-terminated string at off in the string table sec, or NULL. */
static const char *string_at(const struct elf_file *f, const Elf64_Shdr *sec,
			     uint64_t off)
{
	const char *s;

	if (!sec || off >= sec->sh_size)
		return NULL;
	s = (const char *)f->base + sec->sh_offset + off;
	if (!memchr(s, 0, sec->sh_size - off))
		return NULL;
	return s;
}

/* Marks in want[] (indexed by version index) the indices .gnu.version_r
 * gives version `node`. 0 or -ENOEXEC. */
static int needed_indices(const struct elf_file *f, const Elf64_Ehdr *eh,
			  const Elf64_Shdr *vr, const char *node,
			  unsigned char *want)
{
	const Elf64_Shdr *strs = section(f, eh, vr->sh_link);
	uint64_t off = 0;

	if (!strs || !in_file(f, strs->sh_offset, strs->sh_size))
		return -ENOEXEC;
	/* sh_info: the number of entries; never follow more than that */
	for (uint64_t n = 0; n < vr->sh_info; n++) {
		const Elf64_Verneed *vn;
		uint64_t aoff;

		if (off > vr->sh_size || vr->sh_size - off < sizeof(*vn))
			return -ENOEXEC;
		vn = (const Elf64_Verneed *)(f->base + vr->sh_offset + off);
		aoff = off + vn->vn_aux;
		for (unsigned int a = 0; a < vn->vn_cnt; a++) {
			const Elf64_Vernaux *va;
			const char *name;

			if (aoff > vr->sh_size || vr->sh_size - aoff < sizeof(*va))
				return -ENOEXEC;
			va = (const Elf64_Vernaux *)(f->base + vr->sh_offset + aoff);
			name = string_at(f, strs, va->vna_name);
			if (name && !strcmp(name, node))
				want[va->vna_other & VERSYM_INDEX_MASK] = 1;
			if (!va->vna_next)
				break;
			aoff += va->vna_next;
		}
		if (!vn->vn_next)
			break;
		off += vn->vn_next;
	}
	return 0;
}

static int scan(const struct elf_file *f, const char *node,
		void (*fn)(const char *symbol, void *arg), void *arg)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->base;
	const Elf64_Shdr *dynsym = NULL, *versym = NULL, *verneed = NULL;
	const Elf64_Shdr *dynstr;
	unsigned char *want;
	uint64_t nsyms;
	int ret;

	if (f->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ?
					     ELFDATA2LSB : ELFDATA2MSB) ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return -ENOEXEC;
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = section(f, eh, i);

		if (s->sh_type != SHT_DYNSYM && s->sh_type != SHT_GNU_versym &&
		    s->sh_type != SHT_GNU_verneed)
			continue;
		if (!in_file(f, s->sh_offset, s->sh_size))
			return -ENOEXEC;
		if (s->sh_type == SHT_DYNSYM)
			dynsym = s;
		else if (s->sh_type == SHT_GNU_versym)
			versym = s;
		else
			verneed = s;
	}
	/* nothing versioned is imported: nothing to report */
	if (!dynsym || !versym || !verneed)
		return 0;
	dynstr = section(f, eh, dynsym->sh_link);
	if (!dynstr || !in_file(f, dynstr->sh_offset, dynstr->sh_size))
		return -ENOEXEC;
	want = calloc(VERSYM_INDEX_MASK + 1, 1);
	if (!want)
		return -ENOMEM;
	ret = needed_indices(f, eh, verneed, node, want);
	nsyms = dynsym->sh_size / sizeof(Elf64_Sym);
	if (!ret && versym->sh_size / sizeof(Elf64_Half) < nsyms)
		ret = -ENOEXEC;
	for (uint64_t i = 1; !ret && i < nsyms; i++) {
		const Elf64_Sym *sym = (const Elf64_Sym *)(f->base +
				dynsym->sh_offset) + i;
		Elf64_Half v;
		const char *name;

		memcpy(&v, f->base + versym->sh_offset + i * sizeof(v), sizeof(v));
		if (sym->st_shndx != SHN_UNDEF || !want[v & VERSYM_INDEX_MASK])
			continue;
		name = string_at(f, dynstr, sym->st_name);
		if (name && *name)
			fn(name, arg);
	}
	free(want);
	return ret;
}

int pabi_elf_imports(const char *path, const char *node,
		     void (*fn)(const char *symbol, void *arg), void *arg)
{
	struct elf_file f;
	struct stat st;
	void *map;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
	    (uint64_t)st.st_size > ELF_MAX_BYTES) {
		close(fd);
		return -ENOEXEC;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	f.base = map;
	f.size = (size_t)st.st_size;
	ret = scan(&f, node, fn, arg);
	munmap(map, f.size);
	return ret;
}
