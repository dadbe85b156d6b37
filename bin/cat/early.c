/*
 * argus-cat -s: each thread's latest task record from before the window,
 * kept and put out just before its first record in the window, so that
 * what is cut still names its threads.  Apart from the selection that
 * keeps them and the pass that puts them out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat.h"

struct early	*early;

static void
early_free(struct early *e)
{
	size_t i;

	HASH_DEL(early, e);
	for (i = 0; i < e->nf; i++)
		free(e->f[i]);
	free(e->f);
	free(e);
}

void
early_keep(const struct record *rec)
{
	struct early *e;
	uint64_t tid;
	size_t i;

	if (!record_u64_opt(rec, COL_TID, &tid))
		return;
	HASH_FIND(hh, early, &tid, sizeof(tid), e);
	if (e != NULL)
		early_free(e);
	e = xcalloc(1, sizeof(*e));
	e->tid = tid;
	e->nf = rec->nf;
	e->f = xcalloc(rec->nf, sizeof(*e->f));
	for (i = 0; i < rec->nf; i++)
		e->f[i] = xstrdup(rec->f[i]);
	HASH_ADD(hh, early, tid, sizeof(e->tid), e);
}

/* The task record kept for thread tid, at rec's time; once. */
static void
introduce_tid(struct writer *out, const struct record *rec, uint64_t tid,
    size_t width, int wall)
{
	struct record r;
	struct early *e;
	char stamp[48];

	HASH_FIND(hh, early, &tid, sizeof(tid), e);
	if (e == NULL)
		return;
	if (strcmp(rec->f[COL_KIND], KIND_TASK) != 0 && rec->time != NO_TIME) {
		memset(&r, 0, sizeof(r));
		r.f = e->f;
		r.nf = e->nf;
		r.time = rec->time;
		r.file = rec->file;
		r.line = rec->line;
		if (wall && wall_set)
			wall_format(stamp, sizeof(stamp), rec->time);
		else
			snprintf(stamp, sizeof(stamp), "%" PRIu64, rec->time);
		write_row(out, &r, width > 0 ? width : e->nf, stamp, 0);
	}
	early_free(e);
}

/* Before rec: its thread's and the other thread's it names, if kept. */
void
introduce(struct writer *out, const struct record *rec, size_t width,
    int wall)
{
	struct event ev;
	uint64_t tid;

	if (rec->comment || !record_u64_opt(rec, COL_TID, &tid))
		return;
	introduce_tid(out, rec, tid, width, wall);
	if (strcmp(rec->f[COL_KIND], KIND_EVENT) == 0 && event_parse(rec, &ev) &&
	    event_other_tid(&ev) != 0)
		introduce_tid(out, rec, event_other_tid(&ev), width, wall);
}
