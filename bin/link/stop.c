/*
 * A stop signal (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) that finds its target
 * awake: weak, from the sender's vertex into the vertex in which the
 * target takes the signal, the one that ends stopped.  The signal rule
 * links a stop that wakes its target, asleep when it came; this one the
 * stop of a thread that runs, or waits for a CPU (woken by its own
 * timeout a moment before), which no wake-up shows.  Weak: it did not
 * begin that vertex, it ended it.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "link.h"

#define DELIVERED	0	/* signal_generate's RESULT */
#define SIG_DFL_ADDR	0	/* signal_deliver's HANDLER: the default */

/*
 * A stop sent and not yet taken, by the thread it was sent to, or the
 * process of a group signal: the kernel keeps one stop pending, and
 * SIGCONT discards it.
 */
struct stop_key {
	uint32_t	 id;
	uint32_t	 group;
};
static struct pending *sent;

static void
forget(uint32_t id, uint32_t group)
{
	struct stop_key k = { id, group };

	pending_take(&sent, &k, sizeof(k), NULL);
}

static void
generated(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	int64_t sig = event_i64(ev, ECOL(E_SIGNAL_GENERATE, SIG));
	uint32_t group = event_i64(ev, ECOL(E_SIGNAL_GENERATE, GROUP)) != 0;
	struct lthread *w;
	struct stop_key k;
	struct cause c;

	if ((sig != SIGCONT && !signal_stops(sig)) ||
	    event_i64(ev, ECOL(E_SIGNAL_GENERATE, RESULT)) != DELIVERED)
		return;
	w = lthread_get(event_u64(ev, ECOL(E_SIGNAL_GENERATE, TTID)),
	    event_pid(ev, ECOL(E_SIGNAL_GENERATE, TPID)));
	k.id = group ? w->pid : w->tid;
	k.group = group;
	forget(w->tid, 0);
	forget(w->pid, 1);
	/*
	 * A continue, or a stop that woke its target (the signal rule, asked
	 * before this one, has just named that wake-up): nothing of ours to
	 * take.  Sent in an interrupt: whoever a rule says it worked for, or
	 * none.
	 */
	if (sig == SIGCONT || (w->woken && w->waker.rule != NULL &&
	    strcmp(w->waker.rule->name, SIGNAL_RULE) == 0 &&
	    w->waker.tid == t->tid) || !link_cause(ev, &c))
		return;
	cause_name(&c, self);
	c.weak = 1;
	signal_label(c.label, sizeof(c.label), sig);
	pending_put(&sent, &k, sizeof(k), &c);
}

/* Taken with its default action: the thread stops here. */
static void
delivered(const struct event *ev, struct lthread *t)
{
	struct cause c;
	struct stop_key k = { t->tid, 0 };

	if (!signal_stops(event_i64(ev, ECOL(E_SIGNAL_DELIVER, SIG))) ||
	    event_u64(ev, ECOL(E_SIGNAL_DELIVER, HANDLER)) != SIG_DFL_ADDR)
		return;
	if (!pending_take(&sent, &k, sizeof(k), &c)) {
		k.id = t->pid;
		k.group = 1;
		if (!pending_take(&sent, &k, sizeof(k), &c))
			return;
	}
	link_emit(ev->time, t->pid, t->tid, ev->vertex, &c);
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	if (ev->type == E_SIGNAL_GENERATE)
		generated(self, ev, t);
	else if (ev->ctx == '-')
		delivered(ev, t);
}

LINK_RULE(stop) = {
	.name = STOP_RULE,
	.types = EV(E_SIGNAL_GENERATE) | EV(E_SIGNAL_DELIVER),
	.see = see,
};
