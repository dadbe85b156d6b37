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

static struct request *requests;

static void
see(const struct event *ev, struct lthread *t)
{
	struct request *r;
	struct cpu *cpu;
	char key[48];

	(void)t;
	switch (ev->type) {
	case E_BLOCK_ISSUE:
	case E_BLOCK_COMPLETE:
		snprintf(key, sizeof(key), "%s:%s", event_str(ev, 0),
		    event_str(ev, 1));
		HASH_FIND_STR(requests, key, r);
		if (ev->type == E_BLOCK_COMPLETE) {
			if (r == NULL)
				return;
			cpu = cpu_get(ev->cpu);
			cpu->block = r->issued;
			cpu->has_block = 1;
			HASH_DEL(requests, r);
			free(r);
			return;
		}
		if (r == NULL) {
			r = xcalloc(1, sizeof(*r));
			snprintf(r->key, sizeof(r->key), "%s", key);
			HASH_ADD_STR(requests, key, r);
		}
		cause_of(ev, &r->issued);
		r->issued.by = &block_io;
		r->issued.rule = "block";
		snprintf(r->issued.label, sizeof(r->issued.label), "%s",
		    event_str(ev, 0));
		break;
	case E_IRQ_EXIT:
	case E_SOFTIRQ_EXIT:
		cpu_get(ev->cpu)->has_block = 0;
		break;
	default:
		break;
	}
}

int
block_cause(const struct event *ev, struct cause *c)
{
	struct cpu *cpu = cpu_get(ev->cpu);

	if (block_io.off || !cpu->has_block)
		return 0;
	*c = cpu->block;
	return 1;
}

struct rule block_io = {
	"block", "issuing vertex -> what the request's completion wakes",
	see, 0, 0, 0,
};
