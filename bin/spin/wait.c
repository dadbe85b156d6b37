/*
 * LongWait: most of the vertex in blocking waits: blocked for most of the
 * time it was off a CPU (on a CPU for less than half of it), or blocked
 * from before the trace saw it (no switch-out traced, but it ended
 * waiting).  A wait with a timeout that keeps expiring with nothing done
 * between (poll(2) on a socket every second), or only the same request
 * sent again (a UDP client's retries), is one span of them.
 */
#include "spin.h"

static int
claim(const struct tracked *t, size_t i, const struct spin_opts *o,
    size_t *first, size_t *last)
{
	const struct vsum *v = VSUM(t, i);
	uint64_t dur = v->end - v->begin, off;

	*first = *last = i;
	if (dur == 0 || 2 * v->oncpu >= dur)
		return 0;
	off = dur - v->oncpu;
	if (!(2 * v->blocked >= off || (v->blocked == 0 && v->wait[0] != '\0')))
		return 0;
	/* Waits that its own timeout keeps ending: one span, on what it polls. */
	if (!is_nap(v, o))
		chain(t, i, o, 0, first, last);
	return 1;
}

SPIN_CLASS(wait) = {
	.name = "LongWait",
	.claim = claim,
};
