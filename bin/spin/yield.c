/*
 * RepeatedYield: a thread polling a data flag (while (!flag) { yield or
 * nap; }) makes a chain of short vertices, each begun when its own timer
 * ended the nap (a timeout link into it), or holding sched_yield calls,
 * and no peer's wake-up anywhere in it.  Each vertex is short (under
 * poll_max); the chain, taken as one episode, is long.  A loop of
 * sched_yield calls that nothing made wait is a single vertex with many.
 */
#include "spin.h"

#define YIELD_MIN	10	/* sched_yield calls that make a yield loop */

static int
is_short(const struct vsum *v, uint64_t poll_max)
{
	return v->recorded && v->end - v->begin < poll_max;
}

/* Whether vertex i and the next belong to one polling chain. */
static int
joined(const struct tracked *t, size_t i, uint64_t poll_max)
{
	const struct vsum *a = VSUM(t, i), *b;

	if (i + 1 >= t->vv.n)
		return 0;
	b = VSUM(t, i + 1);
	if (!is_short(a, poll_max) || !is_short(b, poll_max))
		return 0;
	if (b->woke && (b->wake_props & LR_TIMEOUT))
		return 1;
	/* A yield, and nobody woke the thread into the next vertex. */
	return a->yields > 0 && !b->woke;
}

static int
claim(const struct tracked *t, size_t i, const struct spin_opts *o,
    size_t *first, size_t *last)
{
	*first = *last = i;
	while (*first > 0 && joined(t, *first - 1, o->poll_max))
		(*first)--;
	while (joined(t, *last, o->poll_max))
		(*last)++;
	return *first != *last || VSUM(t, i)->yields >= YIELD_MIN;
}

SPIN_CLASS(yield) = {
	.name = "RepeatedYield",
	.claim = claim,
};
