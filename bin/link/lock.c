/*
 * A wake-up that hands a lock to its next waiter is weak: mutual exclusion
 * is not intent, whoever held the lock before did not work for the waiter.
 * glibc's plain mutexes show themselves in the futex protocol
 * (syscall_is_lock_wait).  With patchers/pthread.probes, so does any
 * mutex, priority-inheritance and robust ones included: the waker is
 * inside pthread_mutex_unlock, or the wakee inside pthread_mutex_lock.
 */
#include "link.h"

struct state {
	/*
	 * Its call numbered call (lthread.calls) was a futex wait, as a
	 * lock waiter.  see() is given the futex calls alone: the thread's
	 * count of calls says that a later one began, its call (0) that
	 * this one returned.
	 */
	int		 waiting;
	uint64_t	 call;
	struct inside	 unlock, lock;
};

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct state *s = link_thread(self, t);

	if (ev->type == E_SYS_ENTER) {
		s->waiting = syscall_is_lock_wait(ev);
		s->call = t->calls;
		return;
	}
	inside_see(&s->unlock, ev, E_MUTEX_UNLOCK, E_MUTEX_UNLOCK_END);
	inside_see(&s->lock, ev, E_MUTEX_LOCK, E_MUTEX_LOCK_END);
}

/* In the futex wait it began last, not returned (lthread.call). */
static int
waiting(const struct state *s, const struct lthread *t)
{
	return s->waiting && s->call == t->calls && t->call != 0;
}

static int
classify(struct link_rule *self, const struct event *ev, struct lthread *waker,
    struct lthread *wakee, struct cause *c)
{
	struct state *by = link_thread(self, waker);
	struct state *of = link_thread(self, wakee);
	int unlocking = ev->ctx == '-' && by->unlock.in;

	if (c->rule != NULL || !(waiting(of, wakee) || of->lock.in ||
	    unlocking))
		return 0;
	cause_name(c, self);
	inside_label(unlocking ? &by->unlock : &of->lock, c);
	return 1;
}

LINK_RULE(lock) = {
	.name = LOCK_RULE,
	.types = EV(E_SYS_ENTER) | EV(E_MUTEX_UNLOCK) |
	    EV(E_MUTEX_UNLOCK_END) | EV(E_MUTEX_LOCK) | EV(E_MUTEX_LOCK_END),
	.calls = CALL_FUTEX,
	.see = see,
	.classify = classify,
	.thread_size = sizeof(struct state),
};
