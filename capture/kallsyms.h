/*
 * The kernel's text symbols, to name the functions that events carry (a
 * timer's, a work item's): /proc/kallsyms read once, and a ksym record
 * (lib/ksym.h) for each address the first time an output file holds it.
 */
#ifndef CAPTURE_KALLSYMS_H
#define CAPTURE_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct writer;

/* How many symbols; 0, said once, when unreadable or hidden. */
size_t	 kallsyms_load(void);
/* A new output file: each names again what its events carry. */
void	 kallsyms_new_file(void);
/* A ksym record for addr, unless this file has one or it has no name. */
void	 kallsyms_name(struct writer *, uint64_t addr);

#endif
