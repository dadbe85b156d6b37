/*
 * Block I/O: a request's completion runs in an interrupt, but whoever it
 * wakes waited for the thread that issued the request.  Requests are
 * matched by device and sector.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

struct request {
	char		 key[48];	/* "dev:sector" */
	struct cause	 issued;
	UT_hash_handle	 hh;
};

/* The request a CPU's interrupt is completing, until the interrupt ends. */
struct cpu {
	int		 completing;
	struct cause	 issued;
};

static struct request *requests;

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	struct request *r;
	char key[48];

	(void)t;
	if (ev->type == E_IRQ_EXIT || ev->type == E_SOFTIRQ_EXIT) {
		cpu->completing = 0;
		return;
	}
	snprintf(key, sizeof(key), "%s:%s", event_str(ev, 0), event_str(ev, 1));
	HASH_FIND_STR(requests, key, r);
	if (ev->type == E_BLOCK_COMPLETE) {
		if (r == NULL)
			return;
		cpu->issued = r->issued;
		cpu->completing = 1;
		HASH_DEL(requests, r);
		free(r);
		return;
	}
	if (r == NULL) {
		r = xcalloc(1, sizeof(*r));
		snprintf(r->key, sizeof(r->key), "%s", key);
		HASH_ADD_STR(requests, key, r);
	}
	if (!link_cause(ev, &r->issued)) {
		HASH_DEL(requests, r);
		free(r);
		return;
	}
	cause_name(&r->issued, self);
	snprintf(r->issued.label, sizeof(r->issued.label), "%s",
	    event_str(ev, 0));
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
	.name = "block",
	.types = EV(E_BLOCK_ISSUE) | EV(E_BLOCK_COMPLETE) | EV(E_IRQ_EXIT) |
	    EV(E_SOFTIRQ_EXIT),
	.see = see,
	.attribute = attribute,
	.cpu_size = sizeof(struct cpu),
};
