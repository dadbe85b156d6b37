/*
 * How alike two vertices are, in [0, 1]:
 *   0.40  their system calls in order: twice the longest common
 *         subsequence over both lengths, half by name alone, half by
 *         name and descriptor (1 when neither made any);
 *   0.35  the call each made last, where a vertex that ends in a wait
 *         waited: the same call on the same descriptor in the same sleep
 *         1, the same call otherwise 0.5 (a read of a file that waited
 *         for the disk, D, is not the read of a pipe or an inotify
 *         queue, S, that a descriptor's number reused); for a
 *         LongRunning hang, what started each instead (the last call of
 *         a vertex that never waits means nothing): woken by the same
 *         kind of link from the same thread 1, the same kind from
 *         another 0.5;
 *   0.25  the kinds of link into and out of them: shared over all.
 * Where the capture took stacks, the function each waited in takes 0.20
 * (semantics.c), from the calls' 0.10 and the last call's 0.10.
 */
#include <string.h>

#include "similar.h"

/* The sequence by name alone, a run of one name folded. */
static int
by_name(const struct vsem *v, uint16_t *out)
{
	int i, n = 0;

	for (i = 0; i < v->nsys; i++)
		if (n == 0 || out[n - 1] != sys_base(v->sys[i]))
			out[n++] = sys_base(v->sys[i]);
	return n;
}

static double
lcs_ratio(const uint16_t *a, int na, const uint16_t *b, int nb)
{
	uint8_t row[MAX_SYS + 1], prev[MAX_SYS + 1];
	int i, j;

	if (na == 0 && nb == 0)
		return 1;
	if (na == 0 || nb == 0)
		return 0;
	memset(prev, 0, sizeof(prev));
	for (i = 1; i <= na; i++) {
		row[0] = 0;
		for (j = 1; j <= nb; j++) {
			if (a[i - 1] == b[j - 1])
				row[j] = prev[j - 1] + 1;
			else
				row[j] = row[j - 1] > prev[j] ? row[j - 1] :
				    prev[j];
		}
		memcpy(prev, row, sizeof(row));
	}
	return 2.0 * prev[nb] / (na + nb);
}

static double
jaccard(const struct vsem *a, const struct vsem *b)
{
	int both = __builtin_popcountll(a->in_kinds & b->in_kinds) +
	    __builtin_popcountll(a->out_kinds & b->out_kinds);
	int either = __builtin_popcountll(a->in_kinds | b->in_kinds) +
	    __builtin_popcountll(a->out_kinds | b->out_kinds);

	return either == 0 ? 1 : (double)both / either;
}

static double
same_wait(const struct vsem *a, const struct vsem *b)
{
	if (a->nsys == 0 && b->nsys == 0)
		return 1;
	if (a->nsys == 0 || b->nsys == 0)
		return 0;
	if (a->last == b->last && a->sleep == b->sleep)
		return 1;
	return sys_base(a->last) == sys_base(b->last) ? 0.5 : 0;
}

static double
same_start(const struct vsem *a, const struct vsem *b)
{
	if (!a->woke || !b->woke)
		return !a->woke && !b->woke;
	if (a->wake_rule != b->wake_rule)
		return 0;
	return a->waker_tid == b->waker_tid ? 1 : 0.5;
}

void
score(const struct vsem *spin, const struct vsem *cand, int running,
    struct score *s)
{
	uint16_t na[MAX_SYS], nb[MAX_SYS];
	int la = by_name(spin, na), lb = by_name(cand, nb);

	s->sys = (lcs_ratio(na, la, nb, lb) +
	    lcs_ratio(spin->sys, spin->nsys, cand->sys, cand->nsys)) / 2;
	s->same_sys = la == lb && spin->more == cand->more &&
	    memcmp(na, nb, la * sizeof(na[0])) == 0;
	s->wait = running ? same_start(spin, cand) : same_wait(spin, cand);
	s->same_wait = !running && s->wait == 1;
	s->kinds = jaccard(spin, cand);
	s->stack = sem_stack_similarity(spin, cand);
	if (s->stack < 0)
		s->total = 0.40 * s->sys + 0.35 * s->wait + 0.25 * s->kinds;
	else
		s->total = 0.30 * s->sys + 0.25 * s->wait + 0.20 * s->stack +
		    0.25 * s->kinds;
}
