/*
 * A /proc stat file's fields after the command name, which may hold
 * spaces and parentheses: the text after its last ')' and the space.
 */
#ifndef PROCSTAT_H
#define PROCSTAT_H

#include <stdio.h>
#include <string.h>

/* NULL if the file cannot be read. */
static const char *
procstat_fields(const char *path, char *buf, size_t len)
{
	FILE *f;
	size_t n;
	char *p;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (p = strrchr(buf, ')')) != NULL && p[1] == ' ' ? p + 2 : NULL;
}

#endif
