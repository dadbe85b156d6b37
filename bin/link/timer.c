/*
 * A timer links the vertex that armed it to what its expiry does: the
 * wake-up runs in an interrupt on whatever CPU, but it is the arming
 * thread's doing.  A wait ended by a timer its own thread armed is a
 * timeout: nobody woke it, which is what a diagnosis needs to know.
 */
#include <string.h>

#include "link.h"

struct cpu {
	uint64_t	 expiring;	/* the timer it is expiring now, 0 none */
	/*
	 * The address of the timer its last event named: a CPU arms its own
	 * timers (its tick's), where one memo for all had the two CPUs of
	 * bench/graph's capture read it again at every other event.
	 */
	struct hex_memo	 memo;
};

static struct pending *armed;	/* by the kernel's timer address */
_Static_assert(ECOL_SAME(E_HRT_START, E_HRT_EXPIRE_ENTRY, TIMER) &&
    ECOL_SAME(E_HRT_START, E_HRT_EXPIRE_EXIT, TIMER) &&
    ECOL_SAME(E_HRT_START, E_HRT_CANCEL, TIMER) &&
    ECOL_SAME(E_HRT_START, E_TIMER_START, TIMER) &&
    ECOL_SAME(E_HRT_START, E_TIMER_EXPIRE_ENTRY, TIMER) &&
    ECOL_SAME(E_HRT_START, E_TIMER_EXPIRE_EXIT, TIMER) &&
    ECOL_SAME(E_HRT_START, E_TIMER_CANCEL, TIMER),
    "every timer event names its timer in one column");
static struct link_rule rule_timer;

/*
 * The arming a timer's cause already says, but for its time: a thread
 * arms a timer for one function over and over (the idle task its tick,
 * half a million times a copy of bench/graph's capture), and the cause
 * made anew and put cost more than the rest of the event.
 */
static int
rearmed(const struct link_rule *self, const struct cause *c,
    const struct event *ev)
{
	return ev->ctx == '-' && c->rule == self->row &&
	    c->vertex == ev->vertex && c->pid == ev->pid &&
	    c->tid == ev->tid && !c->weak && !c->held &&
	    cause_func_is(c, ev);
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	uint64_t timer = event_addr(ev, ECOL(E_HRT_START, TIMER), &cpu->memo);
	struct cause c, *armer;

	(void)t;
	switch (ev->type) {
	case E_HRT_START:
	case E_TIMER_START:
		/*
		 * Re-armed from its own expiry (a periodic timer): the arming
		 * before it is the cause, and if that was not seen, nobody.
		 * Re-armed from another's expiry: that one's, inherited.
		 */
		if ((armer = pending_find(&armed, &timer,
		    sizeof(timer))) != NULL && rearmed(self, armer, ev)) {
			armer->time = ev->time;
			break;
		}
		if (ev->ctx != '-' && cpu->expiring == timer) {
			if ((armer = pending_find(&armed, &timer,
			    sizeof(timer))) != NULL)
				c = *armer;
			else {
				memset(&c, 0, sizeof(c));
				c.time = ev->time;
				c.pid = ev->pid;
				c.tid = ev->tid;
			}
		} else if (!link_cause(ev, &c)) {
			pending_take(&armed, &timer, sizeof(timer), NULL);
			break;
		}
		cause_name(&c, self);
		c.weak = 0;
		cause_func(&c, ev);
		pending_put(&armed, &timer, sizeof(timer), &c);
		break;
	case E_HRT_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_ENTRY:
		cpu->expiring = timer;
		break;
	case E_HRT_EXPIRE_EXIT:
	case E_TIMER_EXPIRE_EXIT:
		/* To fire again it must be armed again. */
		pending_take(&armed, &timer, sizeof(timer), NULL);
		cpu->expiring = 0;
		break;
	default:
		pending_take(&armed, &timer, sizeof(timer), NULL);
		break;
	}
}

static int
attribute(struct link_rule *self, const struct event *ev, struct cause *c)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	struct cause *armer;

	if (cpu->expiring == 0 || (armer = pending_find(&armed,
	    &cpu->expiring, sizeof(cpu->expiring))) == NULL)
		return 0;
	*c = *armer;
	return 1;
}

LINK_RULE(timer) = {
	.name = TIMER_RULE,
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
	.name = TIMEOUT_RULE,
	.classify = classify,
};
