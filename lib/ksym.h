/*
 * Kernel functions by name.  An event carries a kernel function as the
 * address the kernel gave (a timer's, a work item's); a ksym record names
 * one:
 *
 *	ksym,,,,ADDRESS,NAME
 *
 * argus-capture writes it before the first event of its file that
 * carries the address, so every file of a ring names what it holds and
 * nothing more.  An address no ksym record names is shown as written, and
 * so is a function that a text trace gave by name (argus-import).
 */
#ifndef ARGUS_KSYM_H
#define ARGUS_KSYM_H

#include <stdint.h>

#include "stream.h"

#define KSYM_KIND	"ksym"
enum { KC_ADDRESS = COL_FIRST_OWN, KC_NAME };

void		 ksym_write(struct writer *, uint64_t addr, const char *name);
/* 1 after learning a ksym record's name, 0 for another kind. */
int		 ksym_learn(const struct record *);
/* The name of the address a field holds, or the field as it is. */
const char	*ksym_name(const char *field);
/* The same, field's address read already. */
const char	*ksym_name_at(uint64_t addr, const char *field);
/*
 * How many names were learnt or replaced so far: a memo of what
 * ksym_name() said holds while it stays the same.
 */
extern unsigned	 ksym_learnt;

#endif
