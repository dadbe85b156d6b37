/*
 * argus-import: one importer per foreign trace format, each a table line
 * in bin/import/convert.c.  An importer turns a whole input into records of the
 * Argus stream (argus-stream(5)), mapping what the source records onto
 * the event types the graph stages understand and passing the rest on
 * under types of its own.
 */
#ifndef ARGUS_IMPORT_H
#define ARGUS_IMPORT_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

struct importer {
	const char *name;	/* -f NAME */
	const char *what;	/* one line of --help */
	/* 1 if a file that starts with these bytes is in this format */
	int (*detect)(const unsigned char *head, size_t len);
	/* The whole input to records; bad input: diex(EX_DATAERR, "%s: offset %llu: ...") or file:line for text */
	void (*convert)(FILE *in, const char *name, struct writer *out);
};

extern const struct importer import_ftrace;	/* bin/import/ftrace.c */
extern const struct importer import_perf;	/* bin/import/perf.c */
extern const struct importer import_kdebug;	/* bin/import/kdebug_file.c */

/* convert.c: the formats, in the order an input is recognised by. */
extern const struct importer *const import_formats[];
extern const size_t import_nformats;
const struct importer *import_by_name(const char *);	/* NULL: unknown */
/* An input ("-": stdin) in its format or forced's, into out. */
void	 import_one(const char *path, const struct importer *forced,
	    struct writer *out);
void	 import_many(char **paths, int n, const struct importer *forced,
	    struct writer *out);

#endif
