/*
 * The graph stages' driver: what surrounds the loop of lib/stage.h.
 */
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
