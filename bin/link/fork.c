/*
 * A new thread or process starts because its parent made it: the parent's
 * vertex links to the child's first.
 */
#include "link.h"

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cause c;

	(void)t;
	if (!link_cause(ev, &c))
		return;
	cause_name(&c, self);
	link_wake(link_wakee(ev), &c);
}

LINK_RULE(fork) = {
	.name = FORK_RULE,
	.types = EV(E_WAKEUP_NEW),
	.see = see,
};
