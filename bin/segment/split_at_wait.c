/*
 * A blocking wait ends a vertex: the thread has finished a piece of work
 * and waits for the next.  A switch-out while runnable is preemption, not
 * a wait.
 */
#include "segment.h"

static enum verdict
judge(struct heuristic *h, struct thread *t, const struct event *ev)
{
	const char *state;

	(void)h;
	(void)t;
	if (ev->type != E_SWITCH)
		return KEEP;
	state = event_str(ev, 0);
	if (state[0] == 'R' || state[0] == '\0')
		return KEEP;
	return WAIT_AFTER;
}

SEGMENT_HEURISTIC(split_at_wait) = {
	.name = "split-at-wait",
	.judge = judge,
};
