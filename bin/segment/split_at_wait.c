/*
 * A blocking wait ends a vertex: the thread has finished a piece of work
 * and waits for the next.  A switch-out while runnable is preemption, not
 * a wait.
 */
#include "segment.h"

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	(void)h;
	(void)t;
	if (ev->type != E_SWITCH || 
	    !state_is_wait(event_str(ev, ECOL(E_SWITCH, STATE))))
		return KEEP;
	return WAIT_AFTER;
}

SEGMENT_HEURISTIC(split_at_wait) = {
	.name = "split-at-wait",
	.judge = judge,
};
