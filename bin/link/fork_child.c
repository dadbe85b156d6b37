/*
 * A new thread or process starts because its parent made it: the parent's
 * vertex links to the child's first.
 */
#include "link.h"

static void
see(const struct event *ev, struct lthread *t)
{
	struct cause c;

	(void)t;
	if (ev->type != E_WAKEUP_NEW)
		return;
	cause_of(ev, &c);
	c.by = &fork_child;
	c.rule = "fork";
	wake(lthread_get(event_u64(ev, 1), event_pid(ev, 0)), &c);
}

struct rule fork_child = {
	"fork", "parent's vertex -> the child's first vertex",
	see, 0, 0, 0,
};
