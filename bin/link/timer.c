/*
 * A timer links the vertex that armed it to what its expiry does: the
 * wake-up runs in an interrupt on whatever CPU, but it is the arming
 * thread's doing.  A wait ended by a timer its own thread armed is a
 * timeout: nobody woke it, which is what a diagnosis needs to know.
 */
#include <string.h>

#include "ksym.h"
#include "link.h"

/* TIMER,FUNCTION's text, of 8 to 40 bytes, as words (span_word()). */
#define SPAN_WORDS	5

struct cpu {
	uint64_t	 expiring;	/* the timer it is expiring now, 0 none */
	/*
	 * The address of the timer its last event named: a CPU arms its own
	 * timers (its tick's), where one memo for all had the two CPUs of
	 * bench/graph's capture read it again at every other event.
	 */
	struct hex_memo	 memo;
	/*
	 * The arming its last re-arming found (rearmed()), by the text of
	 * the event's TIMER and FUNCTION: the same text again, from the
	 * same vertex, while nothing was put in armed or taken from it and
	 * no name learnt, is that arming re-armed again, without the timer
	 * read, looked up and its function's name compared (the idle task's
	 * tick, half a million times a copy of bench/graph's capture).
	 */
	struct {
		struct cause	*armer;		/* NULL: none */
		uint64_t	 changes;	/* armed_changes then */
		unsigned	 learnt;	/* ksym_learnt then */
		size_t		 len, cut;	/* span()'s */
		uint64_t	 w[SPAN_WORDS];
	} re;
};

static struct pending *armed;	/* by the kernel's timer address */
/* Puts and takes on armed: what a CPU's re.armer holds while none. */
static uint64_t armed_changes;
_Static_assert(ECOL_SAME(E_HRT_START, E_HRT_EXPIRE_ENTRY, TIMER) &&
    ECOL_SAME(E_HRT_START, E_HRT_EXPIRE_EXIT, TIMER) &&
    ECOL_SAME(E_HRT_START, E_HRT_CANCEL, TIMER) &&
    ECOL_SAME(E_HRT_START, E_TIMER_START, TIMER) &&
    ECOL_SAME(E_HRT_START, E_TIMER_EXPIRE_ENTRY, TIMER) &&
    ECOL_SAME(E_HRT_START, E_TIMER_EXPIRE_EXIT, TIMER) &&
    ECOL_SAME(E_HRT_START, E_TIMER_CANCEL, TIMER),
    "every timer event names its timer in one column");
_Static_assert(ECOL(E_HRT_START, FUNCTION) == ECOL(E_HRT_START, TIMER) + 1 &&
    ECOL_SAME(E_HRT_START, E_TIMER_START, FUNCTION),
    "an arming's FUNCTION is next to its TIMER");
static struct link_rule rule_timer;

static void
arm_put(uint64_t timer, const struct cause *c)
{
	armed_changes++;
	pending_put(&armed, &timer, sizeof(timer), c);
}

static void
arm_take(uint64_t timer)
{
	armed_changes++;
	pending_take(&armed, &timer, sizeof(timer), NULL);
}

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

/*
 * An arming's TIMER and FUNCTION, one text in the reader's buffer, *s
 * and *cut the length of its TIMER: its length, 0 if it is not 8 to
 * 8 * SPAN_WORDS bytes long or not the reader's.
 */
static inline size_t
span(const struct event *ev, const char **s, size_t *cut)
{
	const struct record *rec = ev->rec;
	const size_t col = EC_ARG + ECOL(E_HRT_START, TIMER);
	size_t len;

	if (!rec->padded || col + 2 >= rec->nf)
		return 0;
	*s = rec->f[col];
	*cut = rec->f[col + 1] - *s;
	len = rec->f[col + 2] - *s - 1;
	return len >= 8 && len <= 8 * SPAN_WORDS ? len : 0;
}

/*
 * Its word i: at 8 * i, or its last 8 bytes where those come before, so
 * that no byte past the text is read and each of its bytes is in one.
 */
static inline uint64_t
span_word(const char *s, size_t len, size_t i)
{
	uint64_t w;

	memcpy(&w, s + (8 * i < len - 8 ? 8 * i : len - 8), 8);
	return w;
}

_Static_assert(SPAN_WORDS == 5, "rearmed_again() compares five words");

/* ev re-arms what its CPU's re.armer names: the same as rearmed() says. */
static inline int
rearmed_again(const struct cpu *cpu, const struct event *ev)
{
	const struct cause *c = cpu->re.armer;
	const uint64_t *m = cpu->re.w;
	const char *s = NULL;
	size_t len, cut = 0;

	/* re.len is not 0 where re.armer is not NULL (remember()). */
	if (c == NULL || cpu->re.changes != armed_changes ||
	    cpu->re.learnt != ksym_learnt || ev->ctx != '-' ||
	    c->vertex != ev->vertex || c->pid != ev->pid ||
	    c->tid != ev->tid || (len = span(ev, &s, &cut)) != cpu->re.len ||
	    cut != cpu->re.cut)
		return 0;
	return ((span_word(s, len, 0) ^ m[0]) | (span_word(s, len, 1) ^ m[1]) |
	    (span_word(s, len, 2) ^ m[2]) | (span_word(s, len, 3) ^ m[3]) |
	    (span_word(s, len, 4) ^ m[4])) == 0;
}

static void
remember(struct cpu *cpu, const struct event *ev, struct cause *armer)
{
	const char *s;
	size_t i;

	cpu->re.armer = NULL;
	if ((cpu->re.len = span(ev, &s, &cpu->re.cut)) == 0)
		return;
	for (i = 0; i < SPAN_WORDS; i++)
		cpu->re.w[i] = span_word(s, cpu->re.len, i);
	cpu->re.armer = armer;
	cpu->re.changes = armed_changes;
	cpu->re.learnt = ksym_learnt;
}

/*
 * Any other timer event: out of line, its registers and its cause kept
 * out of the re-armings again that are most of what see() is given.
 */
static void __attribute__((noinline))
see_any(struct link_rule *self, const struct event *ev, struct cpu *cpu)
{
	uint64_t timer = event_addr(ev, ECOL(E_HRT_START, TIMER), &cpu->memo);
	struct cause c, *armer;

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
			remember(cpu, ev, armer);
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
			arm_take(timer);
			break;
		}
		cause_name(&c, self);
		c.weak = 0;
		cause_func(&c, ev);
		arm_put(timer, &c);
		break;
	case E_HRT_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_ENTRY:
		cpu->expiring = timer;
		break;
	case E_HRT_EXPIRE_EXIT:
	case E_TIMER_EXPIRE_EXIT:
		/* To fire again it must be armed again. */
		arm_take(timer);
		cpu->expiring = 0;
		break;
	default:
		arm_take(timer);
		break;
	}
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);

	(void)t;
	/*
	 * Its rule, weakness, hold and label are as they were when it was
	 * found re-armed: only a put changes them, and only a take lets
	 * its place in the table go.
	 */
	if ((ev->type == E_HRT_START || ev->type == E_TIMER_START) &&
	    rearmed_again(cpu, ev)) {
		cpu->re.armer->time = ev->time;
		return;
	}
	see_any(self, ev, cpu);
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
