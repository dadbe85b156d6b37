/*
 * A small ELF64 reader, written against <elf.h> rather than libelf: all a
 * probe needs is one symbol's address, sometimes one relocation, and the
 * program headers to turn an address into a file offset; a dependency on
 * libelf for that would weigh more than the code.  The file is mapped
 * read-only and every offset is checked against its size.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "elfsym.h"
#include "procopen.h"

struct elf {
	const uint8_t	*base;
	size_t		 size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;		/* NULL: no section headers */
	const Elf64_Phdr *ph;
};

static int
fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -1;
}

static int
inside(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

static const Elf64_Shdr *
section(const struct elf *e, unsigned i)
{
	if (e->sh == NULL || i >= e->eh->e_shnum)
		return NULL;
	return &e->sh[i];
}

/* Virtual address to file offset, through the loadable segments. */
static int
vaddr_off(const struct elf *e, uint64_t va, uint64_t *off)
{
	const Elf64_Phdr *p;
	unsigned i;

	for (i = 0; i < e->eh->e_phnum; i++) {
		p = &e->ph[i];
		if (p->p_type != PT_LOAD)
			continue;
		if (va >= p->p_vaddr && va < p->p_vaddr + p->p_filesz) {
			*off = va - p->p_vaddr + p->p_offset;
			return 0;
		}
	}
	return -1;
}

/*
 * A defined symbol by name, in .symtab first (it has static functions
 * too, when not stripped), then .dynsym.  Of several versions of one
 * dynamic symbol (pthread_cond_signal@GLIBC_2.2.5 and @@GLIBC_2.3.2) the
 * default one wins: its .gnu.version entry lacks the hidden bit.
 */
static int
find_symbol(const struct elf *e, const char *name, uint64_t *value,
    uint64_t *size)
{
	static const unsigned types[] = { SHT_SYMTAB, SHT_DYNSYM };
	const Elf64_Shdr *s, *str, *ver = NULL;
	const Elf64_Sym *sym;
	const Elf64_Half *vs;
	const char *strtab;
	unsigned t, i, found;
	uint64_t n, k;

	for (i = 0; i < e->eh->e_shnum; i++)
		if (e->sh[i].sh_type == SHT_GNU_versym)
			ver = &e->sh[i];
	for (t = 0; t < 2; t++) {
		for (i = 0; i < e->eh->e_shnum; i++) {
			s = &e->sh[i];
			if (s->sh_type != types[t] || s->sh_entsize !=
			    sizeof(Elf64_Sym) || !inside(e, s->sh_offset,
			    s->sh_size))
				continue;
			if ((str = section(e, s->sh_link)) == NULL ||
			    !inside(e, str->sh_offset, str->sh_size))
				continue;
			strtab = (const char *)e->base + str->sh_offset;
			sym = (const Elf64_Sym *)(e->base + s->sh_offset);
			n = s->sh_size / sizeof(*sym);
			vs = NULL;
			if (types[t] == SHT_DYNSYM && ver != NULL &&
			    ver->sh_link == i && inside(e, ver->sh_offset,
			    n * sizeof(*vs)))
				vs = (const Elf64_Half *)(e->base +
				    ver->sh_offset);
			found = 0;
			for (k = 0; k < n; k++) {
				if (sym[k].st_shndx == SHN_UNDEF ||
				    sym[k].st_name >= str->sh_size)
					continue;
				if (strcmp(strtab + sym[k].st_name, name) != 0)
					continue;
				*value = sym[k].st_value;
				if (size != NULL)
					*size = sym[k].st_size;
				found = 1;
				if (vs == NULL || !(vs[k] & 0x8000))
					return 0;	/* the default version */
			}
			if (found)
				return 0;
		}
	}
	return -1;
}

/* What the loader stores at va: a relocation's result, or the file's bytes. */
static int
read_pointer(const struct elf *e, uint64_t va, uint64_t *ptr)
{
	const Elf64_Shdr *s, *symsec;
	const Elf64_Rela *r;
	const Elf64_Sym *syms;
	uint64_t n, k, off, si;
	unsigned i;

	for (i = 0; i < e->eh->e_shnum; i++) {
		s = &e->sh[i];
		if (s->sh_type != SHT_RELA || s->sh_entsize !=
		    sizeof(Elf64_Rela) || !inside(e, s->sh_offset, s->sh_size))
			continue;
		r = (const Elf64_Rela *)(e->base + s->sh_offset);
		n = s->sh_size / sizeof(*r);
		for (k = 0; k < n; k++) {
			if (r[k].r_offset != va)
				continue;
			switch (ELF64_R_TYPE(r[k].r_info)) {
			case R_X86_64_RELATIVE:
				*ptr = r[k].r_addend;
				return 0;
			case R_X86_64_64:
				symsec = section(e, s->sh_link);
				si = ELF64_R_SYM(r[k].r_info);
				if (symsec == NULL || !inside(e,
				    symsec->sh_offset, symsec->sh_size) ||
				    si >= symsec->sh_size / sizeof(Elf64_Sym))
					return -1;
				syms = (const Elf64_Sym *)(e->base +
				    symsec->sh_offset);
				if (syms[si].st_shndx == SHN_UNDEF)
					return -1;	/* in another object */
				*ptr = syms[si].st_value + r[k].r_addend;
				return 0;
			default:
				return -1;
			}
		}
	}
	/* No relocation: a fixed-address executable holds the value itself. */
	if (vaddr_off(e, va, &off) == -1 || !inside(e, off, 8))
		return -1;
	memcpy(ptr, e->base + off, 8);
	return *ptr != 0 ? 0 : -1;
}

int
elf_locate(const char *path, const char *sym, uint64_t off, int deref,
    uint64_t *fileoff, char *err, size_t errsz)
{
	struct elf e = { 0 };
	struct stat st;
	uint64_t va, ptr;
	void *m;
	int fd, r = -1;

	if ((fd = open_regular(path)) == -1)
		return fail(err, errsz, "%s: %s", path, errno == ENOEXEC ?
		    "not a regular file" : strerror(errno));
	if (fstat(fd, &st) == -1 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return fail(err, errsz, "%s: not an ELF file", path);
	}
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return fail(err, errsz, "%s: %s", path, strerror(errno));
	e.base = m;
	e.size = st.st_size;
	e.eh = m;
	if (memcmp(e.eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    e.eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e.eh->e_ident[EI_DATA] != ELFDATA2LSB) {
		fail(err, errsz, "%s: not a 64-bit little-endian ELF file",
		    path);
		goto out;
	}
	if (e.eh->e_shentsize != sizeof(Elf64_Shdr) || !inside(&e,
	    e.eh->e_shoff, (uint64_t)e.eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    e.eh->e_phentsize != sizeof(Elf64_Phdr) || !inside(&e,
	    e.eh->e_phoff, (uint64_t)e.eh->e_phnum * sizeof(Elf64_Phdr))) {
		fail(err, errsz, "%s: malformed ELF headers", path);
		goto out;
	}
	e.sh = (const Elf64_Shdr *)(e.base + e.eh->e_shoff);
	e.ph = (const Elf64_Phdr *)(e.base + e.eh->e_phoff);
	if (find_symbol(&e, sym, &va, NULL) == -1) {
		fail(err, errsz, "%s: no symbol %s", path, sym);
		goto out;
	}
	va += off;
	if (deref) {
		if (read_pointer(&e, va, &ptr) == -1) {
			fail(err, errsz, "%s: no code pointer at %s+%#llx",
			    path, sym, (unsigned long long)off);
			goto out;
		}
		va = ptr;
	}
	if (vaddr_off(&e, va, fileoff) == -1) {
		fail(err, errsz, "%s: %s%s+%#llx is in no loaded segment", path,
		    deref ? "*" : "", sym, (unsigned long long)off);
		goto out;
	}
	r = 0;
out:
	munmap(m, st.st_size);
	return r;
}

/* Function symbols, sorted by address, and the segments to map offsets. */
struct fsym {
	uint64_t	 value, size;
	const char	*name;
};

struct elf_syms {
	struct fsym	*s;
	size_t		 n;
	char		*names;
	struct {
		uint64_t vaddr, off, filesz;
	}		*seg;
	unsigned	 nseg;
};

static int
fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

static int
map_elf(int fd, struct elf *e, struct stat *st)
{
	void *m;

	if (fstat(fd, st) == -1 || !S_ISREG(st->st_mode) ||
	    st->st_size < (off_t)sizeof(Elf64_Ehdr))
		return -1;
	m = mmap(NULL, st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	memset(e, 0, sizeof(*e));
	e->base = m;
	e->size = st->st_size;
	e->eh = m;
	if (memcmp(e->eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    e->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->eh->e_shentsize != sizeof(Elf64_Shdr) || !inside(e,
	    e->eh->e_shoff, (uint64_t)e->eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    e->eh->e_phentsize != sizeof(Elf64_Phdr) || !inside(e,
	    e->eh->e_phoff, (uint64_t)e->eh->e_phnum * sizeof(Elf64_Phdr))) {
		munmap(m, st->st_size);
		return -1;
	}
	e->sh = (const Elf64_Shdr *)(e->base + e->eh->e_shoff);
	e->ph = (const Elf64_Phdr *)(e->base + e->eh->e_phoff);
	return 0;
}

struct elf_syms *
elf_syms_load_fd(int fd)
{
	const Elf64_Shdr *s, *str;
	const Elf64_Sym *sym;
	struct elf_syms *es;
	struct elf e;
	struct stat st;
	size_t cap = 0, ncap = 0, nlen = 0, k, n, len;
	unsigned i;

	if (map_elf(fd, &e, &st) == -1)
		return NULL;
	es = xcalloc(1, sizeof(*es));
	for (i = 0; i < e.eh->e_phnum; i++) {
		if (e.ph[i].p_type != PT_LOAD)
			continue;
		es->seg = xrealloc(es->seg, (es->nseg + 1) * sizeof(*es->seg));
		es->seg[es->nseg].vaddr = e.ph[i].p_vaddr;
		es->seg[es->nseg].off = e.ph[i].p_offset;
		es->seg[es->nseg].filesz = e.ph[i].p_filesz;
		es->nseg++;
	}
	for (i = 0; i < e.eh->e_shnum; i++) {
		s = &e.sh[i];
		if ((s->sh_type != SHT_SYMTAB && s->sh_type != SHT_DYNSYM) ||
		    s->sh_entsize != sizeof(Elf64_Sym) ||
		    !inside(&e, s->sh_offset, s->sh_size))
			continue;
		if ((str = section(&e, s->sh_link)) == NULL ||
		    !inside(&e, str->sh_offset, str->sh_size))
			continue;
		sym = (const Elf64_Sym *)(e.base + s->sh_offset);
		n = s->sh_size / sizeof(*sym);
		for (k = 0; k < n; k++) {
			const char *nm;

			if ((ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC &&
			    ELF64_ST_TYPE(sym[k].st_info) != STT_GNU_IFUNC) ||
			    sym[k].st_shndx == SHN_UNDEF ||
			    sym[k].st_name >= str->sh_size)
				continue;
			nm = (const char *)e.base + str->sh_offset +
			    sym[k].st_name;
			len = strnlen(nm, str->sh_size - sym[k].st_name) + 1;
			if (nlen + len > ncap) {
				ncap = (ncap + len) * 2;
				es->names = xrealloc(es->names, ncap);
			}
			memcpy(es->names + nlen, nm, len);
			es->names[nlen + len - 1] = '\0';
			if (es->n == cap) {
				cap = cap ? cap * 2 : 256;
				es->s = xrealloc(es->s, cap * sizeof(*es->s));
			}
			es->s[es->n].value = sym[k].st_value;
			es->s[es->n].size = sym[k].st_size;
			es->s[es->n].name = (const char *)nlen;	/* fixed below */
			es->n++;
			nlen += len;
		}
	}
	for (k = 0; k < es->n; k++)
		es->s[k].name = es->names + (size_t)es->s[k].name;
	/* qsort(NULL, 0) is undefined: a file without function symbols. */
	if (es->n > 0)
		qsort(es->s, es->n, sizeof(*es->s), fsym_cmp);
	munmap((void *)e.base, e.size);
	return es;
}

const char *
elf_syms_find(const struct elf_syms *es, uint64_t fileoff, uint64_t *off)
{
	uint64_t va = 0;
	size_t lo, hi, mid;
	unsigned i;
	int found = 0;

	if (es == NULL)
		return NULL;
	for (i = 0; i < es->nseg; i++)
		if (fileoff >= es->seg[i].off &&
		    fileoff < es->seg[i].off + es->seg[i].filesz) {
			va = fileoff - es->seg[i].off + es->seg[i].vaddr;
			found = 1;
			break;
		}
	if (!found || es->n == 0 || va < es->s[0].value)
		return NULL;
	/* The last symbol at or below va. */
	lo = 0;
	hi = es->n;
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if (es->s[mid].value <= va)
			lo = mid;
		else
			hi = mid;
	}
	/* Past a sized symbol's end is not in it (a stripped static). */
	if (es->s[lo].size && va >= es->s[lo].value + es->s[lo].size)
		return NULL;
	*off = va - es->s[lo].value;
	return es->s[lo].name;
}

int
elf_symbol(const char *path, const char *name, uint64_t *value,
    uint64_t *size, int *pie)
{
	int fd, r;

	if ((fd = open_regular(path)) == -1)
		return -1;
	r = elf_symbol_fd(fd, name, value, size, pie);
	close(fd);
	return r;
}

int
elf_symbol_fd(int fd, const char *name, uint64_t *value, uint64_t *size,
    int *pie)
{
	struct elf e;
	struct stat st;
	int r;

	if (map_elf(fd, &e, &st) == -1)
		return -1;
	r = find_symbol(&e, name, value, size);
	*pie = e.eh->e_type == ET_DYN;
	munmap((void *)e.base, st.st_size);
	return r;
}
