/*
 * A wake-up made inside pthread_cond_signal or pthread_cond_broadcast is
 * the signaller handing work on: strong, labelled with the condition
 * variable.  A condition variable's futex looks like any other, so
 * without the probes of patchers/pthread.probes such a wake-up is a plain
 * wakeup link; with them it says what it was.  wakeup.c asks when it
 * classifies a wake-up.
 */
#include "link.h"

static void
see(const struct event *ev, struct lthread *t)
{
	inside_see(&t->signal, ev, E_COND_SIGNAL, E_COND_SIGNAL_END);
}

struct rule cond_signal = {
	"cond", "a wake-up inside pthread_cond_signal is strong (with probes)",
	see, 0, 0, 0,
};
