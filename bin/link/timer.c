/*
 * A timer links the vertex that armed it to what its expiry does: the
 * wake-up runs in an interrupt on whatever CPU, but it is the arming
 * thread's doing.  A wait ended by a timer its own thread armed is a
 * timeout (wakeup.c names it so): nobody woke it, which is what a
 * diagnosis needs to know.
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

static struct armed *armed;

static struct armed *
find(uint64_t timer)
{
	struct armed *a;

	HASH_FIND(hh, armed, &timer, sizeof(timer), a);
	return a;
}

static void
forget(uint64_t timer)
{
	struct armed *a;

	if ((a = find(timer)) != NULL) {
		HASH_DEL(armed, a);
		free(a);
	}
}

static void
see(const struct event *ev, struct lthread *t)
{
	struct armed *a;
	uint64_t ptr;

	(void)t;
	switch (ev->type) {
	case E_HRT_START:
	case E_TIMER_START:
		ptr = event_u64(ev, 0);
		if ((a = find(ptr)) == NULL) {
			a = xcalloc(1, sizeof(*a));
			a->timer = ptr;
			HASH_ADD(hh, armed, timer, sizeof(a->timer), a);
		}
		cause_of(ev, &a->by);	/* re-armed from an expiry: inherited */
		a->by.by = &timer;
		a->by.rule = "timer";
		a->by.weak = 0;
		snprintf(a->by.label, sizeof(a->by.label), "%s",
		    event_str(ev, 1));
		break;
	case E_HRT_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_ENTRY:
		cpu_get(ev->cpu)->timer = event_u64(ev, 0);
		break;
	case E_HRT_EXPIRE_EXIT:
	case E_TIMER_EXPIRE_EXIT:
		/* To fire again it must be armed again. */
		forget(event_u64(ev, 0));
		cpu_get(ev->cpu)->timer = 0;
		break;
	case E_HRT_CANCEL:
	case E_TIMER_CANCEL:
		forget(event_u64(ev, 0));
		break;
	default:
		break;
	}
}

int
timer_cause(const struct event *ev, struct cause *c)
{
	struct cpu *cpu = cpu_get(ev->cpu);
	struct armed *a;

	if (timer.off || cpu->timer == 0 || (a = find(cpu->timer)) == NULL)
		return 0;
	*c = a->by;
	return 1;
}

struct rule timer = {
	"timer", "arming vertex -> what the expiry wakes; own timer: timeout",
	see, 0, 0, 0,
};
