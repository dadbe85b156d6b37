/*
 * spin records, and a line per spin for the person at the terminal:
 * spin,TIME,PID,TID,VERTEX,CLASS,BEGIN,END,ONCPU,WAITS,ENDED,WAKER,
 * LAST_VERTEX,COMM
 */
#include <stdio.h>

#include "spin.h"

void
report_spin(struct writer *w, uint64_t time, const struct tracked *t,
    const struct episode *e, int to_stderr)
{
	uint64_t dur = e->end - e->begin;

	writer_begin(w, "spin");
	writer_time(w, time);
	writer_u64(w, t->pid);
	writer_u64(w, t->tid);
	writer_u64(w, t->v[e->first].id);
	writer_str(w, class_name(e->class));
	writer_u64(w, e->begin);
	writer_u64(w, e->end);
	writer_u64(w, e->oncpu);
	writer_u64(w, e->waits);
	writer_str(w, e->ended);
	writer_u64(w, e->waker);
	writer_u64(w, t->v[e->last].id);
	writer_str(w, t->comm);
	writer_end(w);
	if (!to_stderr)
		return;
	fprintf(stderr, "argus-spin: %s %u/%u: %s", t->comm, t->pid, t->tid,
	    class_name(e->class));
	if (e->first != e->last)
		fprintf(stderr, " in vertices %llu..%llu (%zu)",
		    (unsigned long long)t->v[e->first].id,
		    (unsigned long long)t->v[e->last].id,
		    e->last - e->first + 1);
	else
		fprintf(stderr, " in vertex %llu",
		    (unsigned long long)t->v[e->first].id);
	fprintf(stderr, ", %.3f s from %llu, on CPU %.1f%%, %u wait%s, ",
	    dur / 1e9, (unsigned long long)e->begin,
	    dur ? 100.0 * e->oncpu / dur : 100.0, e->waits,
	    e->waits == 1 ? "" : "s");
	if (e->waker != 0)
		fprintf(stderr, "ended by %s from vertex %llu\n", e->ended,
		    (unsigned long long)e->waker);
	else if (e->ended[0] == 'o')
		fprintf(stderr, "still going on when the trace ended\n");
	else
		fprintf(stderr, "ended by %s\n", e->ended);
}

void
report_summary(struct writer *w, uint64_t time, uint64_t nspins,
    const uint64_t *byclass, int to_stderr)
{
	int c;

	writer_begin(w, "summary");
	writer_time(w, time);
	writer_empty(w);
	writer_empty(w);
	writer_str(w, "argus-spin");
	writer_str(w, "spins");
	writer_u64(w, nspins);
	for (c = 0; c < NCLASSES; c++) {
		writer_str(w, class_name(c));
		writer_u64(w, byclass[c]);
	}
	writer_end(w);
	(void)to_stderr;
}
