/*
 * The words the kernel prints for some fields' values (a file lock's
 * FL_ flags and F_ type, a timer's flags), by lib/ftrace.def's
 * FTRACE_WORD lines: argus-export prints by them, argus-import reads them
 * back, and the record's own word for each (POSIX, write) is there too.
 */
#ifndef ARGUS_FTWORDS_H
#define ARGUS_FTWORDS_H

#include <stddef.h>
#include <stdint.h>

struct ftword {
	const char	*conv;		/* lib/ftrace.def's CONV: "lockflags" */
	uint64_t	 value;		/* a flag's bit, or one value */
	const char	*text;		/* as the kernel prints it: "FL_OFDLCK" */
	const char	*record;	/* the record's word: "OFD"; NULL: none */
};

extern const struct ftword	ftwords[];
extern const size_t		nftwords;

/*
 * A set of flags as the kernel's __print_flags prints them ("FL_POSIX|
 * FL_SLEEP", bits it has no name for as "0x800"): their value.  A word
 * the table does not have adds nothing.
 */
uint64_t	 ftword_flags(const char *conv, const char *s, size_t n);
/* One value's word, exactly: 1 and *v; 0 if the table has none. */
int		 ftword_value(const char *conv, const char *s, size_t n,
		    uint64_t *v);
/* The entry for value v (record: by its record word instead); NULL. */
const struct ftword *ftword_of(const char *conv, uint64_t v);
const struct ftword *ftword_by_record(const char *conv, const char *record);
/*
 * The record's words for the flags set in v, '|'-joined, in the table's
 * order, into buf (at least 64 bytes): what capture/emit.c and tp.c write.
 */
const char	*ftword_record_flags(const char *conv, uint64_t v, char *buf,
		    size_t size);

#endif
