/*
 * argus-cat's table row (-H): a record's fields, every row as wide.  Apart
 * because both the pass (stream.c) and the threads it introduces
 * (early.c) write rows.
 */
#include "cat.h"
#include "ksym.h"

/*
 * A row of the table: the record's fields (TIME as given, a kernel
 * function in column fcol by name), then empty ones to the width.
 */
void
write_row(struct writer *out, const struct record *rec, size_t width,
    const char *time, size_t fcol)
{
	size_t i;

	if (rec->nf > width)
		diex(EX_DATAERR, "%s:%lu: %zu columns, more than the %zu "
		    "argus-stream(5) names for kind %s", rec->file, rec->line,
		    rec->nf, width, rec->f[0]);
	writer_begin(out, rec->f[0]);
	for (i = 1; i < width; i++)
		if (i == COL_TIME && time != NULL)
			writer_str(out, time);
		else if (i == fcol && fcol > 0)
			writer_str(out, ksym_name(rec->f[i]));
		else if (i < rec->nf)
			writer_str(out, rec->f[i]);
		else
			writer_empty(out);
	writer_end(out);
}
