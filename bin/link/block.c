/*
 * Block I/O: a request's completion runs in an interrupt, but whoever it
 * wakes waited for the thread that issued the request.  Requests are
 * matched by device and sector.
 */
#include <stdio.h>
#include <string.h>

#include "link.h"

/* The request a CPU's interrupt is completing, until the interrupt ends. */
struct cpu {
	int		 completing;
	struct cause	 issued;
};

static struct pending *requests;	/* by "dev:sector" */
_Static_assert(ECOL_SAME(E_BLOCK_ISSUE, E_BLOCK_COMPLETE, DEV) &&
    ECOL_SAME(E_BLOCK_ISSUE, E_BLOCK_COMPLETE, SECTOR),
    "issue and completion name the request in the same columns");

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	char key[PENDING_KEY] = "";
	struct cause c;

	(void)t;
	if (ev->type == E_IRQ_EXIT || ev->type == E_SOFTIRQ_EXIT) {
		cpu->completing = 0;
		return;
	}
	snprintf(key, sizeof(key), "%s:%s",
	    event_str(ev, ECOL(E_BLOCK_ISSUE, DEV)),
	    event_str(ev, ECOL(E_BLOCK_ISSUE, SECTOR)));
	if (ev->type == E_BLOCK_COMPLETE) {
		if (pending_take(&requests, key, sizeof(key), &cpu->issued))
			cpu->completing = 1;
		return;
	}
	if (!link_cause(ev, &c)) {
		pending_take(&requests, key, sizeof(key), NULL);
		return;
	}
	cause_name(&c, self);
	cause_label(&c, event_str(ev, ECOL(E_BLOCK_ISSUE, DEV)));
	pending_put(&requests, key, sizeof(key), &c);
}

static int
attribute(struct link_rule *self, const struct event *ev, struct cause *c)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);

	if (!cpu->completing)
		return 0;
	*c = cpu->issued;
	return 1;
}

LINK_RULE(block) = {
	.name = BLOCK_RULE,
	.types = EV(E_BLOCK_ISSUE) | EV(E_BLOCK_COMPLETE) | EV(E_IRQ_EXIT) |
	    EV(E_SOFTIRQ_EXIT),
	.see = see,
	.attribute = attribute,
	.cpu_size = sizeof(struct cpu),
};
