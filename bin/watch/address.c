/*
 * A symbol's address in a running process: its value in the executable's
 * symbol table (lib/elf.c), plus where the executable is loaded (a PIE is
 * loaded at a random base: the first mapping of the file, at offset 0).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "show.h"
#include "watch.h"

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
	diex(EX_NOINPUT, "%s: %s is not mapped", path, show(exe));
}

uint64_t
symbol_address(pid_t pid, const char *symbol, uint64_t *size)
{
	char link[64], exe[PATH_MAX];
	uint64_t value;
	ssize_t n;
	int pie;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if ((n = readlink(link, exe, sizeof(exe) - 1)) == -1)
		die(EX_NOINPUT, "%s", link);
	exe[n] = '\0';
	if (elf_symbol(link, symbol, &value, size, &pie) == -1)
		diex(EX_DATAERR, "%s: no symbol '%s' (not ELF, or stripped? give "
		    "--address)", show(exe), show(symbol));
	return pie ? load_base(pid, exe) + value : value;
}
