/*
 * baseline records, and a line each for the person at the terminal.
 */
#include <stdio.h>

#include "show.h"
#include "similar.h"

static char *
human_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000ULL)
		snprintf(buf, len, "%.1f s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.0f us", ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

void
report_baseline(struct writer *w, const struct spin_rec *sp,
    const struct sthread *t, const struct candidate *c, int rank,
    int to_stderr)
{
	const struct vsem *v = VSEM(c->t, c->ix), *spin;
	char sys[256], ssys[256], reason[768], d1[32], d2[32];
	size_t si = vvec_find(&t->vv, sp->vertex), n = 0;
	struct baseline_rec b;

	spin = si < t->vv.n ? VSEM(t, si) : v;
	sem_syscalls(v, sys, sizeof(sys));
	sem_syscalls(spin, ssys, sizeof(ssys));
	if (c->t != t)
		n = snprintf(reason, sizeof(reason), "another process of "
		    "the same program, %u/%u; ", c->t->pid, c->t->tid);
	n += snprintf(reason + n, sizeof(reason) - n, "%s system calls "
	    "%s%s%s%s; ", c->s.same_sys ? "same" : "similar", sys,
	    c->s.same_sys ? "" : " (hang: ", c->s.same_sys ? "" : ssys,
	    c->s.same_sys ? "" : ")");
	if (c->s.same_wait && !c->s.same_sys)
		n += snprintf(reason + n, sizeof(reason) - n, "the same "
		    "wait; ");
	human_ns(c->running ? work_ns(v, 1) : v->end - v->begin, d1,
	    sizeof(d1));
	human_ns(sp->begin - v->end, d2, sizeof(d2));
	if (n >= sizeof(reason))
		n = sizeof(reason) - 1;
	if (c->running)
		snprintf(reason + n, sizeof(reason) - n, "done in %s, then "
		    "woken by %s from %u/%u; %s before the hang", d1,
		    rule_name(c->wake->wake_rule), c->wake->waker_pid,
		    c->wake->waker_tid, d2);
	else
		snprintf(reason + n, sizeof(reason) - n, "woken by %s from "
		    "%u/%u after %s; %s before the hang",
		    rule_name(c->wake->wake_rule), c->wake->waker_pid,
		    c->wake->waker_tid, d1, d2);
	b = (struct baseline_rec){ .time = sp->time, .pid = sp->pid,
	    .tid = sp->tid, .spin_vertex = sp->vertex, .vertex = v->id,
	    .rank = rank, .score = c->s.total, .waker = c->wake->waker,
	    .reason = reason };
	baseline_write(w, &b);
	if (to_stderr)
		fprintf(stderr, "argus-similar: %s %u/%u vertex %llu: "
		    "baseline %d: vertex %llu, score %.3f: %s\n", show(t->comm),
		    sp->pid, sp->tid, (unsigned long long)sp->vertex, rank,
		    (unsigned long long)v->id, c->s.total, show(reason));
}

void
report_summary(struct writer *w, uint64_t time, uint64_t nspins,
    uint64_t nbaselines)
{
	summary_begin(w, time, "argus-similar");
	summary_u64(w, "spins", nspins);
	summary_u64(w, "baselines", nbaselines);
	summary_u64(w, "vertices_kept", nkept);
	summary_end(w);
}
