/*
 * The whole of an input, for the importers that look at it twice (a
 * thread's process is said by its own events, after others named it).
 */
#ifndef IMPORT_INPUT_H
#define IMPORT_INPUT_H

#include <stddef.h>
#include <stdio.h>

struct input {
	const unsigned char	*p;
	size_t			 len;
	int			 mapped;
};

/* A regular file is mapped, a pipe read into memory; errors exit 66/74. */
void	 input_load(struct input *, FILE *, const char *name);
void	 input_free(struct input *);

#endif
