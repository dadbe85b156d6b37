/*
 * The graph stages' driver: what surrounds the loop of lib/stage.h.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "stage.h"

void
stage_open(struct stage *st, const struct stage_ops *ops, char **files,
    int nfiles, const struct common *com, int progress)
{
	void *arg = st->arg;

	*st = (struct stage){ NULL, NULL, NO_TIME, NO_TIME, 0, 0, arg };
	catch_signals();
	/* Without a line of its own, a stage leaves the porcelain's channel be. */
	if (ops->doing != NULL)
		st->show = progress_start(progress);
	st->src = source_open(files, nfiles);
	st->out = writer_open(com->out, com->z);
	/* The loop's records passed on, copied before the reader moves them. */
	source_moving(st->src, writer_unpass, st->out);
}

void
stage_progress(const struct stage_ops *ops, uint64_t nrec, uint64_t last,
    uint64_t first)
{
	progress(ops->doing, nrec, last, first);
}

void
stage_unsegmented(const struct record *rec, const char *needs)
{
	diex(EX_DATAERR, "%s:%lu: event without a vertex: run %s first",
	    rec->file, rec->line, needs != NULL ? needs : "argus-segment");
}

void
stage_end(struct stage *st, const struct stage_ops *ops)
{
	if (st->show && ops->done == NULL)	/* the summary says it */
		progress_end(NULL, st->nrec, st->last, st->first);
	if (ops->finish != NULL)
		ops->finish(st->arg, st->last);
	stop_if_interrupted();
	if (st->show && ops->done != NULL)
		progress_end(ops->done, st->nrec, st->last, st->first);
}

void
stage_close(struct stage *st)
{
	writer_close(st->out);
	source_close(st->src);
}

void
stage_toggle_options(int argc, char *argv[], const char *head,
    const char *tail, const struct toggle *tg, size_t n,
    const struct option *extra, void (*option)(int ch), struct common *com,
    int *quiet, int *progress)
{
	static const struct option own[] = {
		{ "progress",	no_argument, NULL, 'P' },
		{ "quiet",	no_argument, NULL, 'q' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct option *more, *longopts;
	size_t m = 0;
	char *usage;
	int ch;

	while (extra != NULL && extra[m].name != NULL)
		m++;
	more = xcalloc(m + ARRAY_LEN(own), sizeof(*more));
	if (m > 0)
		memcpy(more, extra, m * sizeof(*more));
	memcpy(more + m, own, sizeof(own));
	usage = toggle_usage(head, tg, n, tail);
	longopts = toggle_options(tg, n, more);
	free(more);
	while ((ch = getopt_long(argc, argv, "Pq" COMMON_SHORT, longopts,
	    NULL)) != -1) {
		if (ch == 'q')
			*quiet = 1;
		else if (ch == 'P')
			*progress = 1;
		else if (ch != 0 && !common_option(com, ch, optarg, usage) &&
		    option != NULL)
			option(ch);
	}
}
