/*
 * A timer links the vertex that armed it to what its expiry does: the
 * wake-up runs in an interrupt on whatever CPU, but it is the arming
 * thread's doing.  A wait ended by a timer its own thread armed is a
 * timeout: nobody woke it, which is what a diagnosis needs to know.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

struct armed {
	uint64_t	 timer;		/* the kernel's timer address */
	struct cause	 by;
	UT_hash_handle	 hh;
};

/* The timer a CPU is expiring now, 0 if none. */
struct cpu {
	uint64_t	 expiring;
};

static struct armed *armed;
static struct link_rule rule_timer;

static struct armed *
find(uint64_t ptr)
{
	struct armed *a;

	HASH_FIND(hh, armed, &ptr, sizeof(ptr), a);
	return a;
}

static void
forget(uint64_t ptr)
{
	struct armed *a;

	if ((a = find(ptr)) != NULL) {
		HASH_DEL(armed, a);
		free(a);
	}
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct armed *a;
	uint64_t ptr = event_u64(ev, 0);

	(void)t;
	switch (ev->type) {
	case E_HRT_START:
	case E_TIMER_START:
		if ((a = find(ptr)) == NULL) {
			a = xcalloc(1, sizeof(*a));
			a->timer = ptr;
			HASH_ADD(hh, armed, timer, sizeof(a->timer), a);
		}
		/* Re-armed from an expiry: the first arming's, inherited. */
		if (!link_cause(ev, &a->by)) {
			forget(ptr);
			break;
		}
		cause_name(&a->by, self);
		a->by.weak = 0;
		snprintf(a->by.label, sizeof(a->by.label), "%s",
		    event_str(ev, 1));
		break;
	case E_HRT_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_ENTRY:
		((struct cpu *)link_cpu(self, ev->cpu))->expiring = ptr;
		break;
	case E_HRT_EXPIRE_EXIT:
	case E_TIMER_EXPIRE_EXIT:
		/* To fire again it must be armed again. */
		forget(ptr);
		((struct cpu *)link_cpu(self, ev->cpu))->expiring = 0;
		break;
	default:
		forget(ptr);	/* cancelled */
		break;
	}
}

static int
attribute(struct link_rule *self, const struct event *ev, struct cause *c)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	struct armed *a;

	if (cpu->expiring == 0 || (a = find(cpu->expiring)) == NULL)
		return 0;
	*c = a->by;
	return 1;
}

LINK_RULE(timer) = {
	.name = "timer",
	.types = EV(E_HRT_START) | EV(E_TIMER_START) | EV(E_HRT_EXPIRE_ENTRY) |
	    EV(E_TIMER_EXPIRE_ENTRY) | EV(E_HRT_EXPIRE_EXIT) |
	    EV(E_TIMER_EXPIRE_EXIT) | EV(E_HRT_CANCEL) | EV(E_TIMER_CANCEL),
	.see = see,
	.attribute = attribute,
	.cpu_size = sizeof(struct cpu),
};

/* Its own timer ended the wait: a timeout, not a peer. */
static int
classify(struct link_rule *self, const struct event *ev, struct lthread *waker,
    struct lthread *wakee, struct cause *c)
{
	(void)ev;
	(void)waker;
	if (c->rule != rule_timer.row || c->tid != wakee->tid)
		return 0;
	cause_name(c, self);
	return 1;
}

LINK_RULE(timeout) = {
	.name = "timeout",
	.classify = classify,
};
