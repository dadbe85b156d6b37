/*
 * The loop of a graph stage, written once: argus-segment, -link, -spin,
 * -similar and -slice run on it, and so can a heuristic of a user's own,
 * a C filter put in the middle of the pipeline (share/examples/).
 *
 * A stage reads its inputs (files, or stdin) record by record and hands
 * each to its callbacks by kind: an event, parsed, to event(); any other
 * record to record().  What it does not consume goes on, unchanged and in
 * order; comments always do.  Around the loop: the progress line (-P),
 * a stop at a record boundary on a signal that keeps what was written,
 * and bad input named by file and line.
 *
 * The loop is inline, so that a stage's callbacks, given in a static
 * const stage_ops, are called directly and may be inlined: the hot path
 * costs what a loop written in the stage itself would.  Nothing is
 * allocated per record, and the records passed on are copied to the
 * output a run at a time (writer_pass()), not one by one.
 */
#ifndef ARGUS_STAGE_H
#define ARGUS_STAGE_H

#include <stdint.h>

#include "event.h"
#include "stream.h"
#include "util.h"

/*
 * Every record goes to the output as read, before its callback, whatever
 * the callback returns: the stage adds records (a link after the event
 * that makes it) and drops none.  Without it, a callback returning 0
 * has the record passed on after it, and one returning 1 has consumed
 * it: written it itself, changed, or dropped it.
 */
#define STAGE_PASS	0x01
/* An event must have its VERTEX column set: argus-segment ran. */
#define STAGE_VERTEX	0x02

/*
 * A callback so marked is compiled into the loop, where the compiler
 * would rather call it (a big one, or one of many branches).
 */
#define STAGE_CALLBACK	static inline __attribute__((always_inline))

struct stage_ops {
	const char	*doing;		/* "segmenting": -P's line; NULL none */
	const char	*done;		/* -P's last line; NULL: the stage's summary */
	const char	*needs;		/* STAGE_VERTEX's advice: "argus-segment" */
	unsigned	 flags;		/* STAGE_* */
	/* Each may be NULL: the record passes. */
	int		(*event)(void *arg, const struct record *,
			    struct event *);
	int		(*record)(void *arg, const struct record *);
	/*
	 * At the end of the input, also one cut short by a signal: what
	 * keeps the output whole (the vertices its events name).  last is
	 * the time of the last record, or NO_TIME.
	 */
	void		(*finish)(void *arg, uint64_t last);
	/*
	 * For stage_main(), each may be NULL: start() once the output is
	 * open, before the first record; summary() after the loop, its
	 * line said on stderr too where say.
	 */
	void		(*start)(struct writer *out);
	void		(*summary)(struct writer *out, uint64_t last, int say);
};

struct stage {
	struct source	*src;
	struct writer	*out;		/* open from stage_open() on */
	uint64_t	 first, last;	/* the times of the records read; NO_TIME */
	uint64_t	 nrec;		/* records read, counted for -P only */
	int		 show;		/* the progress line is on */
	void		*arg;		/* the callbacks' */
};

/*
 * Signals caught; the progress line started (where ops has one and
 * progress was asked, or the porcelain listens); the files opened (none:
 * stdin) and the output (common's -o, -z, -Z).  st->arg, set before,
 * is kept.
 */
void	 stage_open(struct stage *, const struct stage_ops *, char **files,
	    int nfiles, const struct common *, int progress);
/* The input read through the callbacks; then stage_end(). */
static inline void stage_run(struct stage *, const struct stage_ops *);
/*
 * After the loop: the progress line ended, finish(), and if a signal cut
 * the input short, the output finished and exit 128+signal (util.h:
 * stop_if_interrupted()): a stage draws no conclusion from part of it.
 */
void	 stage_end(struct stage *, const struct stage_ops *);
void	 stage_close(struct stage *);	/* the output, then the input */

/*
 * The options of a stage whose heuristics are --no-NAME toggles
 * (argus-segment, argus-link): the toggles, long options of its own
 * (extra, ending with a NULL name; each handed to option()), -P, -q and
 * common's.  --help: head, the toggles' lines, tail.  Files from optind.
 */
struct option;
void	 stage_toggle_options(int argc, char *argv[], const char *head,
	    const char *tail, const struct toggle *, size_t n,
	    const struct option *extra, void (*option)(int ch),
	    struct common *, int *quiet, int *progress);

/* Behind stage_run(), out of the hot path. */
void	 stage_progress(const struct stage_ops *, uint64_t nrec,
	    uint64_t last, uint64_t first);
void	 stage_unsegmented(const struct record *, const char *needs)
	    __attribute__((noreturn));

/*
 * In locals, not in *st: the callbacks could write there, for all the
 * compiler knows, and it would load and store each of them a record.
 */
static inline __attribute__((always_inline)) void
stage_loop(struct stage *st, const struct stage_ops *ops)
{
	struct source *src = st->src;
	struct writer *out = st->out;
	uint64_t first = st->first, last = st->last, nrec = st->nrec;
	const struct record *rec;
	void *arg = st->arg;
	int show = st->show, took;
	struct event ev;

	while ((rec = source_next(src)) != NULL) {
		if (rec->time != NO_TIME) {
			if (first == NO_TIME)
				first = rec->time;
			last = rec->time;
		}
		if (show && (++nrec & (PROGRESS_EVERY - 1)) == 0)
			stage_progress(ops, nrec, last, first);
		if (ops->flags & STAGE_PASS)
			writer_pass(out, rec);
		if (rec->comment) {
			if (!(ops->flags & STAGE_PASS))
				writer_pass(out, rec);
			continue;
		}
		if (event_parse(rec, &ev)) {
			if ((ops->flags & STAGE_VERTEX) &&
			    ev.vertex == UNSEGMENTED)
				stage_unsegmented(rec, ops->needs);
			took = ops->event != NULL && ops->event(arg, rec, &ev);
		} else
			took = ops->record != NULL && ops->record(arg, rec);
		if (!took && !(ops->flags & STAGE_PASS))
			writer_pass(out, rec);
	}
	st->first = first;
	st->last = last;
	st->nrec = nrec;
}

static inline __attribute__((always_inline)) void
stage_run(struct stage *st, const struct stage_ops *ops)
{
	stage_loop(st, ops);
	stage_end(st, ops);
}

/*
 * A stage's main after its options: the files (none: stdin) read through
 * the loop between start() and summary(), the output closed; the exit
 * status.  Inline, as stage_run() is.
 */
static inline __attribute__((always_inline)) int
stage_main(const struct stage_ops *ops, char **files, int nfiles,
    const struct common *com, int progress, int quiet)
{
	struct stage st = { 0 };

	stage_open(&st, ops, files, nfiles, com, progress);
	if (ops->start != NULL)
		ops->start(st.out);
	stage_run(&st, ops);
	if (ops->summary != NULL)
		ops->summary(st.out, st.last, !quiet);
	stage_close(&st);
	return exit_status(1);
}

#endif
