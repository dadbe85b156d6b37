/*
 * Program order: each vertex follows the one before it in its thread.  Weak,
 * and followed only when nothing else explains a vertex, but it is what
 * lets a slice go back through a thread's own history.
 */
#include "link.h"

static void
see(const struct event *ev, struct lthread *t)
{
	struct cause c = { 0 };

	if (!t->fresh || t->prev == NO_VERTEX)
		return;
	c.by = &program_order;
	c.vertex = t->prev;
	c.pid = t->pid;
	c.tid = t->tid;
	c.time = ev->time;
	c.rule = "order";
	c.weak = 1;
	link_emit(ev->time, t->pid, t->tid, t->vertex, &c);
}

struct rule program_order = {
	"order", "each vertex -> the next of the same thread (weak)",
	see, 0, 0, 0,
};
