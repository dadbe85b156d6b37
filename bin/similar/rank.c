/*
 * argus-similar's ranking: for a hang, the earlier vertices of its thread
 * (or, for a thread with none, of other processes of its program) that
 * ended normally and are alike enough, best first.
 */
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "similar.h"

/*
 * A wait's baseline is first the same wait, the same call on the same
 * descriptor, answered: which calls came before it in its vertex is
 * where a vertex began, and a peer-set cut with no wait moves that from
 * one round of a loop to the next (a request sent to a second peer right
 * after the first one's answer).  Then best first; ties (to a
 * thousandth) to the most recent.
 */
static int
by_score(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	long sx = (long)(x->s.total * 1000 + 0.5);
	long sy = (long)(y->s.total * 1000 + 0.5);

	if (x->s.same_wait != y->s.same_wait)
		return x->s.same_wait ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return VSEM(x->t, x->ix)->begin > VSEM(y->t, y->ix)->begin ? -1 : 1;
}

/*
 * The vertices of thread o before the hang that ended normally, alike;
 * none from before o's exec, which were another program's (a shell's
 * subshell, before it ran the command).
 */
static size_t
candidates(const struct sthread *t, size_t si, const struct sthread *o,
    const struct spin_rec *sp, uint64_t threshold, double min_score,
    struct candidate **c, size_t n, size_t *earlier)
{
	const struct vsem *wake;
	int running = sp->class->kind == HK_WORK;
	uint64_t program = o->exec_time < sp->end ? o->exec_time : 0;
	size_t i;

	for (i = 0; i < o->vv.n && VSEM(o, i)->begin < sp->begin; i++) {
		if (o == t && i >= si)
			break;
		if (VSEM(o, i)->end <= program)
			continue;
		(*earlier)++;
		wake = normal_outcome(o, i, sp->begin, sp->end - sp->begin,
		    threshold, running);
		if (wake == NULL)
			continue;
		*c = xrealloc(*c, (n + 1) * sizeof(**c));
		(*c)[n].t = o;
		(*c)[n].ix = i;
		(*c)[n].running = running;
		(*c)[n].wake = wake;
		(*c)[n].slow = work_ns(VSEM(o, i), running) * 10 >=
		    sp->end - sp->begin;
		score(VSEM(t, si), VSEM(o, i), running, &(*c)[n].s);
		if ((*c)[n].s.total >= min_score)
			n++;
	}
	return n;
}

/*
 * A normal outcome is short: under a tenth of the hang.  The same wait
 * answered in up to half of it is one too where no shorter same wait is:
 * a hang cut while it lasts may be only a few times as long as the
 * answered waits before it (a watcher woken every 200 ms, cut 1.2 s in),
 * and another wait, however short, is a weaker baseline than the same.
 */
static size_t
short_first(struct candidate *c, size_t n)
{
	size_t i, k;
	int short_same = 0;

	for (i = 0; i < n; i++)
		if (!c[i].slow && c[i].s.same_wait)
			short_same = 1;
	for (i = k = 0; i < n; i++)
		if (!c[i].slow || (c[i].s.same_wait && !short_same))
			c[k++] = c[i];
	return k;
}

uint64_t
rank(struct writer *out, const struct spin_rec *sp, uint64_t count,
    uint64_t threshold, double min_score, int verbose)
{
	const struct sthread *t = sthread_find(sp->tid), *o;
	struct candidate *c = NULL;
	size_t si, n = 0, earlier = 0;
	uint64_t k;

	if (t == NULL || (si = vvec_find(&t->vv, sp->vertex)) == t->vv.n) {
		warnx_("spin vertex %llu of thread %llu: not in the history "
		    "kept%s", (unsigned long long)sp->vertex,
		    (unsigned long long)sp->tid,
		    t == NULL ? " (see --pid, --tid)" : "");
		return 0;
	}
	n = candidates(t, si, t, sp, threshold, min_score, &c, n, &earlier);
	n = short_first(c, n);
	/*
	 * A thread new to the trace (one process per request: a client, a
	 * curl) has no history; other processes of the same program made
	 * the same requests before it, and were answered.
	 */
	if (n == 0) {
		for (o = sthread_all(); o != NULL; o = o->hh.next)
			if (o != t && o->pid != t->pid && o->comm[0] != '\0' &&
			    strcmp(o->comm, t->comm) == 0)
				n = candidates(t, si, o, sp, threshold,
				    min_score, &c, n, &earlier);
		n = short_first(c, n);
	}
	if (n == 0) {
		warnx_("no baseline for %s %u/%u vertex %llu (%s): none of "
		    "%zu earlier vertices is both alike (score >= %.2f) and "
		    "short and ended by a peer", show(t->comm), sp->pid, sp->tid,
		    (unsigned long long)sp->vertex, sp->class->name, earlier,
		    min_score);
		free(c);
		return 0;
	}
	qsort(c, n, sizeof(*c), by_score);
	for (k = 0; k < count && k < n; k++)
		report_baseline(out, sp, t, &c[k], k + 1, verbose);
	free(c);
	return k;
}
