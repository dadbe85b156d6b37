/*
 * Boundary and cull hints are how a user's own heuristic, a filter placed
 * before this one, shapes the vertices (argus-stream(5)).  A boundary hint
 * marks the thread so that its next event starts a vertex (vertex.c); a
 * cull hint drops the thread's events up to its END.
 */
#include "segment.h"

static enum verdict
judge(struct thread *t, const struct event *ev)
{
	if (t->cull_until == NO_TIME)
		return KEEP;
	if (ev->time <= t->cull_until)
		return CULL;
	t->cull_until = NO_TIME;
	return KEEP;
}

struct heuristic hints = {
	"hints",
	"obey boundary and cull hint records from upstream filters",
	judge, 0, 0,
};
