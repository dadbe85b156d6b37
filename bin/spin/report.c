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

/*
 * The target's spins: its episode at the moment asked (the hang going on
 * at the end for --at now), else every one as long as the threshold; the
 * moment taken, and the summary.  How many; 0 also where the target or
 * the mark asked for is not in the input, as stderr says.
 */
size_t
report_hang(struct writer *out, uint64_t last, const struct target *tg,
    const struct moment *m, const struct spin_opts *o, int quiet)
{
	const struct tracked *t;
	struct episode *e;
	uint64_t when;
	const char *how;
	char what[128];
	size_t i, n;

	if ((t = target_pick(tg)) == NULL) {
		report_summary(out, last, 0, NULL);
		warnx_("no vertex of %s in the input",
		    target_describe(tg, what, sizeof(what)));
		return 0;
	}
	if (!quiet)
		target_said(tg, t);
	when = moment_when(m);
	how = m->ask == AT_TIME ? "at" : "mark";
	if (m->ask == AT_NOW && episodes_hung_at(t, last, o)) {
		/* The hang going on: a mark before it was of another. */
		when = last;
		how = "now";
	} else if (m->ask == AT_NOW && when != NO_TIME && !quiet)
		warnx_("%s %u/%u does not hang now: taking the last argus-mark",
		    show(t->comm), t->pid, t->tid);
	if (m->ask == AT_MARK && when == NO_TIME) {
		report_summary(out, last, 0, NULL);
		warnx_("no argus-mark in the input");
		return 0;
	}
	if (strcmp(how, "now") == 0)
		;
	else if (when == NO_TIME) {
		how = "every";
		episodes_long(t, o);
	} else if (!episodes_at(t, when, o))
		warnx_("%s %u/%u has no vertex at %llu%s", show(t->comm), t->pid,
		    t->tid, (unsigned long long)when,
		    m->ask == AT_TIME ? "" : " (the last argus-mark)");
	/* Which moment was taken, for the report. */
	if (when == NO_TIME)
		meta_write(out, last, META_MOMENT, "%s", how);
	else
		meta_write(out, last, META_MOMENT, "%s %llu", how,
		    (unsigned long long)when);
	e = episodes(&n);
	for (i = 0; i < n; i++)
		report_spin(out, last, t, &e[i], !quiet);
	report_summary(out, last, n, e);
	if (n == 0 && strcmp(how, "every") == 0) {
		longest_vertex(t, what, sizeof(what));
		warnx_("no episode of %s %u/%u as long as %.3f s: %s",
		    show(t->comm), t->pid, t->tid, o->threshold / 1e9, what);
	}
	return n;
}
