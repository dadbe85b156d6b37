/*
 * spin records, and a line per spin for the person at the terminal.
 */
#include <stdio.h>
#include <string.h>

#include "show.h"
#include "spin.h"

void
report_spin(struct writer *w, uint64_t time, const struct tracked *t,
    const struct episode *e, int to_stderr)
{
	uint64_t dur = e->end - e->begin;
	struct spin_rec s;

	s.time = time;
	s.pid = t->pid;
	s.tid = t->tid;
	s.vertex = VSUM(t, e->first)->id;
	s.last = VSUM(t, e->last)->id;
	s.class = e->class;
	s.begin = e->begin;
	s.end = e->end;
	s.oncpu = e->oncpu;
	s.waits = e->waits;
	snprintf(s.ended, sizeof(s.ended), "%s", e->ended);
	s.waker = e->waker;
	snprintf(s.comm, sizeof(s.comm), "%s", t->comm);
	spin_write(w, &s);
	if (!to_stderr)
		return;
	fprintf(stderr, "argus-spin: %s %u/%u: %s", show(t->comm), t->pid,
	    t->tid,
	    e->class->name);
	if (e->first != e->last)
		fprintf(stderr, " in vertices %llu..%llu (%zu)",
		    (unsigned long long)s.vertex, (unsigned long long)s.last,
		    e->last - e->first + 1);
	else
		fprintf(stderr, " in vertex %llu", (unsigned long long)s.vertex);
	fprintf(stderr, ", %.3f s from %llu, on CPU %.1f%%, %u wait%s, ",
	    dur / 1e9, (unsigned long long)e->begin,
	    dur ? 100.0 * e->oncpu / dur : 100.0, e->waits,
	    e->waits == 1 ? "" : "s");
	if (e->waker != 0)
		fprintf(stderr, "ended by %s from vertex %llu\n", show(e->ended),
		    (unsigned long long)e->waker);
	else if (strcmp(e->ended, VE_OPEN) == 0)
		fprintf(stderr, "still going on when the trace ended\n");
	else
		fprintf(stderr, "ended by %s\n", show(e->ended));
}

/* spins, then how many of each class, in table order. */
void
report_summary(struct writer *w, uint64_t time, size_t n,
    const struct episode *e)
{
	uint64_t count;
	size_t c, i;

	summary_begin(w, time, "argus-spin");
	summary_u64(w, "spins", n);
	for (c = 0; c < nsclasses; c++) {
		for (i = count = 0; i < n; i++)
			count += e[i].class == &sclasses[c];
		summary_u64(w, sclasses[c].name, count);
	}
	summary_end(w);
}
