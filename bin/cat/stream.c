/*
 * argus-cat's pass over its inputs, merged by time: each record read,
 * selected, its thread introduced where -s cut its name off, and put
 * out; before it, for --header, a first reading for the table's width.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat.h"
#include "graph.h"
#include "ksym.h"

/*
 * --header: the table's column names, the kind's own after the four every
 * record has; a repeated last one (ARG...) as many times as the widest
 * selected record needs, which takes a first reading of the files.
 */
static char **
header(struct select *sel, char **paths, int npaths, size_t *width)
{
	const char *cols;
	char **h, *list, *name, *dots;
	const struct record *rec;
	struct source *src;
	size_t n = 0, i, rep;

	if (sel->nkinds != 1 || (cols = kind_columns(sel->kinds[0])) == NULL)
		diex(EX_USAGE, "--header: one -k KIND of those argus-stream(5) "
		    "documents");
	h = xcalloc(4, sizeof(*h));
	h[n++] = "KIND", h[n++] = "TIME", h[n++] = "PID", h[n++] = "TID";
	list = xstrdup(cols);
	for (name = strtok(list, ","); name != NULL; name = strtok(NULL, ",")) {
		h = xrealloc(h, (n + 1) * sizeof(*h));
		h[n++] = name;
	}
	*width = n;
	if ((dots = strstr(h[n - 1], "...")) == NULL)
		return h;
	*dots = '\0';
	for (i = 0; i < (size_t)npaths && strcmp(paths[i], "-") != 0; i++)
		;
	if (npaths == 0 || i < (size_t)npaths)
		diex(EX_USAGE, "--header: a kind with repeated columns (%s...) "
		    "is read twice: name its FILEs", h[n - 1]);
	src = source_open(paths, npaths);
	while ((rec = source_next(src)) != NULL)
		if (selected(sel, rec) && !rec->comment && rec->nf > *width)
			*width = rec->nf;
	source_close(src);
	/* Selecting again from the start: what the first reading learnt goes. */
	sel->first = NO_TIME;
	if (sel->named != NULL)
		memset(sel->named, 0, TID_LIMIT / 8);
	h = xrealloc(h, *width * sizeof(*h));
	name = h[n - 1];
	for (rep = 1, i = n - 1; i < *width; i++, rep++) {
		h[i] = xmalloc(strlen(name) + 24);
		sprintf(h[i], "%s%zu", name, rep);
	}
	return h;
}

/*
 * A selected record: as read, its time as a clock time, its kernel
 * function by name, or a table row.
 */
static void
put(struct writer *out, const struct record *rec, size_t width, int wall,
    int names)
{
	char stamp[48];
	const char *time = NULL;
	size_t fcol = names && !rec->comment ? event_func_column(rec) : 0;

	if (width > 0 && rec->comment)
		return;
	/* The capture's first facts come before its anchor: left as they are. */
	if (wall && rec->time != NO_TIME && !(!wall_set && !rec->comment &&
	    strcmp(rec->f[COL_KIND], KIND_META) == 0)) {
		if (!wall_set)
			diex(EX_DATAERR, "%s:%lu: --wall: no wall-clock anchor "
			    "(meta wallclock) before this record", rec->file,
			    rec->line);
		wall_format(stamp, sizeof(stamp), rec->time);
		time = stamp;
	}
	if (width > 0 || (time != NULL && fcol > 0))
		write_row(out, rec, width > 0 ? width : rec->nf, time, fcol);
	else if (time != NULL)
		writer_splice(out, rec, COL_TIME, time);
	else if (fcol > 0)
		writer_splice(out, rec, fcol, ksym_name(rec->f[fcol]));
	else
		writer_record(out, rec);
}

/*
 * The inputs, PATHS, through the selection SEL into COM's output: SHOW a
 * progress line, WALL clock times, TABLE a table, NAMES kernel functions
 * by name.
 */
void
cat_stream(struct select *sel, char **paths, int npaths,
    const struct common *com, int show, int wall, int table, int names)
{
	const struct record *rec;
	struct source *src;
	struct writer *out;
	uint64_t nrec = 0, last = NO_TIME, from;
	char **head;
	size_t width = 0;

	if (table)
		head = header(sel, paths, npaths, &width);
	/* The inputs first: one that cannot be read leaves no output behind. */
	src = source_open(paths, npaths);
	if (table) {
		out = writer_open_table(com->out, com->z);
		writer_fields(out, head, width);
	} else
		out = writer_open(com->out, com->z);
	while ((rec = source_next(src)) != NULL) {
		/* A name is learnt whether or not its record is selected. */
		if (names && !rec->comment)
			ksym_learn(rec);
		if (selected(sel, rec)) {
			if (early != NULL)
				introduce(out, rec, width, wall);
			put(out, rec, width, wall, names);
		}
		if (rec->time != NO_TIME)
			last = rec->time;
		if (show && (++nrec & (PROGRESS_EVERY - 1)) == 0)
			progress("reading", nrec, last,
			    sel->since.set && !sel->since.relative ?
			    sel->since.ns : sel->first);
	}
	writer_close(out);
	if (show && !interrupted) {
		from = sel->since.set && !sel->since.relative ? sel->since.ns :
		    sel->first;
		progress_end("read", nrec, last, from);
	}
	source_close(src);
}
