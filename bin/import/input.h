/*
 * The whole of an input, for the importers that look at it twice (a
 * thread's process is said by its own events, after others named it).
 */
#ifndef IMPORT_INPUT_H
#define IMPORT_INPUT_H

#include <stddef.h>
#include <stdio.h>

struct input {
	const unsigned char	*p;	/* p[len] is a NUL, for the parsers */
	size_t			 len;
	size_t			 maplen;
	int			 mapped;
};

/*
 * A regular file is mapped, a pipe read into memory; either way a NUL
 * follows the last byte, so that strtoul() and the like stop inside.
 * Errors exit 66/74.
 */
void	 input_load(struct input *, FILE *, const char *name);
void	 input_free(struct input *);

#endif
