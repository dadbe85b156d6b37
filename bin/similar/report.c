/*
 * baseline records, and a line each for the person at the terminal:
 * baseline,TIME,PID,TID,SPIN_VERTEX,VERTEX,RANK,SCORE,WAKER,REASON
 */
#include <stdio.h>

#include "similar.h"

char *
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
report_baseline(struct writer *w, const struct spin *sp,
    const struct sthread *t, const struct candidate *c, int rank,
    int to_stderr)
{
	const struct vsem *v = &t->v[c->ix], *spin;
	char sys[256], ssys[256], reason[768], score[16], d1[32], d2[32];
	size_t si = vsem_find(t, sp->vertex), n;

	spin = si < t->nv ? &t->v[si] : v;
	sem_syscalls(v, sys, sizeof(sys));
	sem_syscalls(spin, ssys, sizeof(ssys));
	snprintf(score, sizeof(score), "%.3f", c->s.total);
	n = snprintf(reason, sizeof(reason), "%s system calls %s%s%s%s; ",
	    c->s.same_sys ? "same" : "similar", sys,
	    c->s.same_sys ? "" : " (hang: ", c->s.same_sys ? "" : ssys,
	    c->s.same_sys ? "" : ")");
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
	writer_begin(w, "baseline");
	writer_time(w, sp->time);
	writer_u64(w, sp->pid);
	writer_u64(w, sp->tid);
	writer_u64(w, sp->vertex);
	writer_u64(w, v->id);
	writer_u64(w, rank);
	writer_str(w, score);
	writer_u64(w, c->wake->waker);
	writer_str(w, reason);
	writer_end(w);
	if (to_stderr)
		fprintf(stderr, "argus-similar: %s %llu/%llu vertex %llu: "
		    "baseline %d: vertex %llu, score %s: %s\n", t->comm,
		    (unsigned long long)sp->pid, (unsigned long long)sp->tid,
		    (unsigned long long)sp->vertex, rank,
		    (unsigned long long)v->id, score, reason);
}

void
report_summary(struct writer *w, uint64_t time, uint64_t nspins,
    uint64_t nbaselines, int to_stderr)
{
	writer_begin(w, "summary");
	writer_time(w, time);
	writer_empty(w);
	writer_empty(w);
	writer_str(w, "argus-similar");
	writer_str(w, "spins");
	writer_u64(w, nspins);
	writer_str(w, "baselines");
	writer_u64(w, nbaselines);
	writer_str(w, "vertices_kept");
	writer_u64(w, nkept);
	writer_end(w);
	(void)to_stderr;
}
