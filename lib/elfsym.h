/*
 * Just enough ELF for Argus: a symbol's file offset in a shared object or
 * executable, from its .symtab or .dynsym (to place a uprobe), a symbol's
 * address (to place a watchpoint), and the functions that name the frames
 * of a user stack.  A path is opened as a regular file only, without
 * blocking (procopen.h); a file another process named comes open, through
 * /proc/PID/map_files (open_mapped()), to the _fd variants.
 */
#ifndef ARGUS_ELFSYM_H
#define ARGUS_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * The file offset of SYM+OFF in the ELF file at path.  With deref set,
 * SYM+OFF is a pointer in data (a function pointer in a table such as
 * GLib's g_idle_funcs) and the result is the offset of the code it points
 * to, read from its relocation or the file.  0, or -1 with a message.
 */
int	 elf_locate(const char *path, const char *sym, uint64_t off, int deref,
	    uint64_t *fileoff, char *err, size_t errsz);

/* A symbol's value (its link-time address) and size; pie: relocatable. */
int	 elf_symbol(const char *path, const char *name, uint64_t *value,
	    uint64_t *size, int *pie);
int	 elf_symbol_fd(int fd, const char *name, uint64_t *value,
	    uint64_t *size, int *pie);

/*
 * A file's function symbols, for naming the frames of user stacks: the
 * function a file offset falls in, and the offset into it.
 */
struct elf_syms;
struct elf_syms	*elf_syms_load_fd(int fd);		/* NULL: not ELF */
const char	*elf_syms_find(const struct elf_syms *, uint64_t fileoff,
		    uint64_t *off);			/* NULL: none */

#endif
