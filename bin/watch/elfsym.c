/*
 * A symbol's address in a running process: its value in the executable's
 * symbol table, plus where the executable is loaded (a PIE is loaded at a
 * random base: the first mapping of the file, at file offset 0).
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch.h"

static int
find(const unsigned char *m, size_t size, const char *symbol, Elf64_Sym *out)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	const Elf64_Shdr *sh, *strs;
	const Elf64_Sym *sym;
	size_t i, k, n;

	if (size < sizeof(*eh) || eh->e_shoff + (uint64_t)eh->e_shnum *
	    sizeof(*sh) > size)
		return 0;
	sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		if (sh[i].sh_link >= eh->e_shnum ||
		    sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		strs = &sh[sh[i].sh_link];
		if (strs->sh_offset + strs->sh_size > size)
			continue;
		sym = (const Elf64_Sym *)(m + sh[i].sh_offset);
		n = sh[i].sh_size / sizeof(*sym);
		for (k = 0; k < n; k++)
			if (sym[k].st_name < strs->sh_size && sym[k].st_value &&
			    strcmp((const char *)m + strs->sh_offset +
			    sym[k].st_name, symbol) == 0) {
				*out = sym[k];
				return 1;
			}
	}
	return 0;
}

static uint64_t
load_base(pid_t pid, const char *exe)
{
	char path[64], line[PATH_MAX + 128], file[PATH_MAX];
	unsigned long start, off;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		die(EX_NOINPUT, "%s", path);
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095s", &start, &off,
		    file) == 3 && off == 0 && strcmp(file, exe) == 0) {
			fclose(fp);
			return start;
		}
	}
	fclose(fp);
	diex(EX_NOINPUT, "%s: %s is not mapped", path, exe);
}

uint64_t
symbol_address(pid_t pid, const char *symbol, uint64_t *size)
{
	char link[64], exe[PATH_MAX];
	const Elf64_Ehdr *eh;
	struct stat st;
	Elf64_Sym sym;
	ssize_t n;
	void *m;
	int fd, pie;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if ((n = readlink(link, exe, sizeof(exe) - 1)) == -1)
		die(EX_NOINPUT, "%s", link);
	exe[n] = '\0';
	if ((fd = open(link, O_RDONLY)) == -1 || fstat(fd, &st) == -1)
		die(EX_NOINPUT, "%s", exe);
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		die(EX_NOINPUT, "%s", exe);
	eh = m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		diex(EX_DATAERR, "%s: not a 64-bit ELF file", exe);
	if (!find(m, st.st_size, symbol, &sym))
		diex(EX_DATAERR, "%s: no symbol '%s' (stripped? give --address)",
		    exe, symbol);
	*size = sym.st_size;
	pie = eh->e_type == ET_DYN;
	munmap(m, st.st_size);
	return pie ? load_base(pid, exe) + sym.st_value : sym.st_value;
}
