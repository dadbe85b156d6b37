/*
 * Program order: each vertex follows the one before it in its thread.  Weak,
 * and followed only when nothing else explains a vertex, but it is what
 * lets a slice go back through a thread's own history.
 */
#include "link.h"

static void
begin(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cause c;

	if (t->prev == NO_VERTEX)
		return;
	cause_clear(&c);
	cause_name(&c, self);
	c.vertex = t->prev;
	c.pid = t->pid;
	c.tid = t->tid;
	c.time = ev->time;
	link_emit(ev->time, t->pid, t->tid, t->vertex, &c);
}

LINK_RULE(order) = {
	.name = ORDER_RULE,
	.begin = begin,
};
