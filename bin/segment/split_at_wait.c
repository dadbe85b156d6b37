/*
 * A blocking wait ends a vertex: the thread has finished a piece of work
 * and waits for the next.  Not inside a callout, though: a worker parked
 * in the middle of one work item (a low-priority queue drained slowly) is
 * still doing that item, and splitting it would lose the item's edges.
 * A switch-out while runnable is preemption, not a wait.
 */
#include <string.h>

#include "segment.h"

static enum verdict
judge(struct thread *t, const struct event *ev)
{
	const char *state;

	if (ev->type != E_SWITCH || t->callout_level > 0)
		return KEEP;
	state = event_str(ev, 0);
	if (state[0] == 'R' || state[0] == '\0')
		return KEEP;
	return WAIT_AFTER;
}

struct heuristic split_at_wait = {
	"split-at-wait",
	"end a vertex at a blocking wait, except inside a callout",
	judge, 0, 0,
};
