/*
 * argus-link: causal edges between vertices, the paper's Compute Graph,
 * part 2.  links.c follows each thread's vertices through the stream and
 * writes the link records; every other file is a rule (or two that share
 * what they know), bound by name to its row of lrules[] in lib/graph.c,
 * whose order is the order in which the rules are asked.
 *
 * A rule sees the events it asks for, and may answer three questions
 * about events other rules handle: whom an event in interrupt context
 * works for (attribute), what a wake-up is (classify), and what follows
 * when a wake-up is linked (woken).  A rule keeps its own state per
 * thread and per CPU; no file reads another file's, or calls it by name
 * (two rules of one file, as message and reply, may share).  A rule that
 * learns what a wake-up was only after it (a signal) names it in its
 * wakee's waker while that waits to be linked.  Records that are not
 * events (a snapshot of what the kernel knew when a capture was cut) go
 * to record(), which may ask for the next event whatever its type
 * (link_next), and finish() may link what is left at the end.
 *
 * Events in interrupt context carry vertex 0 (argus-segment culls them from
 * the thread they interrupted), so whatever they cause is attributed by
 * the rules that know the interrupt: the timer's arming vertex, the sender
 * a loopback softirq ran for, the thread that issued a block request.
 */
#ifndef ARGUS_LINK_H
#define ARGUS_LINK_H

#include <stdint.h>

#include "idhash.h"

#include "event.h"
#include "graph.h"
#include "util.h"

/* Where an effect came from, and which rule says so. */
struct cause {
	const struct lrule *rule;	/* NULL: not named yet */
	uint64_t	 vertex;	/* 0: outside any vertex */
	uint32_t	 pid, tid;
	uint64_t	 time;
	int		 weak;
	/*
	 * A wake-up a rule will name when the wakee shows what it was (a
	 * receive): not linked at the wakee's first event but when the rule
	 * lets go of it (link_release), into the same vertex.
	 */
	int		 held;
	char		 label[64];	/* a kernel function and its module fit */
};

struct lthread {
	uint32_t	 tid, pid;
	uint64_t	 vertex;	/* its current (or last) vertex */
	uint64_t	 prev;		/* the vertex before, when fresh */
	int		 fresh;		/* this event began a new vertex */
	/*
	 * The classes of the system call it is in (event_call()), from its
	 * sys_enter to its sys_exit or its exit; 0 out of one.  A send's
	 * exit is not recorded (syscall_exit_read): a send lasts to the
	 * thread's next call.  Out of a call a thread wakes nobody, so only
	 * a call not traced could be taken for it.  The rules that ask
	 * what a waker was doing (message, reply, softirq) read it here.
	 */
	unsigned	 call;
	/*
	 * The names of the two calls it began last, each a word as
	 * field_word() reads it (0: none), and their classes: a thread
	 * makes a few calls over and over (a read, a write), and a word
	 * compared here costs less than event_call()'s memo for all.
	 */
	uint64_t	 call_name[2];
	unsigned	 call_class[2];
	/*
	 * Its calls begun (sys_enter), counted: which call it is in, for a
	 * rule that keeps what a call did (signal) without being given
	 * every one of the millions of calls to forget it at.
	 */
	uint64_t	 calls;

	/* A wake-up while it waits (link_wake), linked at its next event. */
	int		 woken;
	struct cause	 waker;
	uint64_t	 wait_vertex;
	uint64_t	 woke_into;	/* a held wake-up's vertex, once it ran */

	UT_hash_handle	 hh;
	/* Then each rule's own state (link_thread()). */
};

struct link_rule {
	const char	*name;		/* its row in lrules[] */
	uint64_t	 types;		/* EV(type) | ...: what see() gets; 0 all */
	/*
	 * Of the sys_enters types gives it, those of calls of these classes
	 * (CALL_*, lthread.call) only; 0 every call.  Most calls are reads
	 * and writes, that the lock rule need not be called for.
	 */
	unsigned	 calls;
	void		(*see)(struct link_rule *, const struct event *,
			    struct lthread *);
	/* The thread began a new vertex (before see()). */
	void		(*begin)(struct link_rule *, const struct event *,
			    struct lthread *);
	/* An event in interrupt context: 1 and *c if it knows whose it is. */
	int		(*attribute)(struct link_rule *, const struct event *,
			    struct cause *);
	/* A wake-up of wakee: 1 if it names it (c->rule, weak, label). */
	int		(*classify)(struct link_rule *, const struct event *,
			    struct lthread *waker, struct lthread *wakee,
			    struct cause *);
	/* A wake-up link into t's vertex was just written: t->waker. */
	void		(*woken)(struct link_rule *, const struct event *,
			    struct lthread *);
	/*
	 * The next event, whatever its type, once the rule asked for it
	 * (link_next): what a record told it, joined where the stream has
	 * moved past it.  Before see(), in the rule's place in the table.
	 */
	void		(*next)(struct link_rule *, const struct event *,
			    struct lthread *);
	/* A record that is not an event, of these KIND_*s (none: any). */
	void		(*record)(struct link_rule *, const struct record *);
	const char	*kinds[4];
	/* The end of the input. */
	void		(*finish)(struct link_rule *, uint64_t end);
	size_t		 thread_size, cpu_size;	/* its state per thread, per CPU */

	/* Set by links.c. */
	const struct lrule *row;
	int		 off;		/* --no-NAME */
	int		 asked;		/* link_next() */
	size_t		 thread_off, cpu_off;
	uint64_t	 strong, weak;	/* links it made */
	/* "STRENGTH,RULE," of its links, strong [0] and weak [1]. */
	char		 block[2][48];
	size_t		 blen[2];
};

/* Where a rule's file puts it: LINK_RULE(x) = { ... }; defines rule_x. */
#define LINK_RULE(id)							\
	static struct link_rule rule_##id;				\
	SET_ENTRY(link_rules, rule_##id);				\
	static struct link_rule rule_##id

/* links.c */
struct link_rule **link_rules(void);		/* in table order */
void		 link_init(struct writer *);
void		 link_event(struct event *);
void		 link_record(const struct record *);
void		 link_summary(struct writer *, uint64_t end, int to_stderr);
void		 link_next(struct link_rule *);	/* r->next() at the next event */
/*
 * What r's see() is given from the next event on, for a rule that needs
 * some types only at times (remote, while it holds a wake-up): a call to
 * see() that returns at once costs as much as the little it does.
 */
void		 link_types(struct link_rule *, uint64_t types);

struct lthread	*lthread_get(uint32_t tid, uint32_t pid);
/*
 * The thread a wake-up (waking, wakeup_new) makes runnable, from see():
 * read and looked up once an event, however many rules ask.
 */
struct lthread	*link_wakee(const struct event *);
void		*link_thread(const struct link_rule *, struct lthread *);
void		*link_cpu(const struct link_rule *, uint32_t cpu);

/*
 * Who caused what an event does: in a task, its own vertex (c->rule NULL,
 * for the caller to name); in an interrupt, whoever a rule attributes it
 * to.  0 if none does.
 */
int		 link_cause(const struct event *, struct cause *);
/*
 * *c nobody's, its label empty: where every byte zeroed (memset(), an
 * initializer) cost a cause as much again.  The label's bytes past its
 * NUL are never read.
 */
static inline void
cause_clear(struct cause *c)
{
	c->rule = NULL;
	c->vertex = 0;
	c->pid = c->tid = 0;
	c->time = 0;
	c->weak = c->held = 0;
	c->label[0] = '\0';
}
void		 cause_name(struct cause *, const struct link_rule *);
/* *c = thread t's vertex at time, as rule r names it (cause_name). */
void		 cause_in(struct cause *, const struct lthread *t,
		    uint64_t time, const struct link_rule *r);
/* c->label = s, cut to fit as snprintf() would cut it. */
void		 cause_label(struct cause *, const char *s);
/* c->label = the kernel function ev carries (event_func()). */
void		 cause_func(struct cause *, const struct event *ev);
/*
 * 1 if c's label is what cause_func() would make it, where that is known
 * at the cost of a compare (the function last named); else 0, whatever
 * it is.
 */
int		 cause_func_is(const struct cause *, const struct event *ev);
void		 link_classify(const struct event *, struct lthread *waker,
		    struct lthread *wakee, struct cause *);
/* A wake-up while wakee waits, linked when it runs again. */
void		 link_wake(struct lthread *wakee, const struct cause *);
/* A held wake-up let go: linked as t->waker now says (links.c). */
void		 link_release(const struct event *, struct lthread *t);
void		 link_out(uint64_t time, uint32_t pid, uint32_t tid, uint64_t to,
		    const struct cause *);

/*
 * A link from c into vertex to, unless to is none or c's own: those in
 * line, as a rule often asks for a link within one vertex (a reply
 * answered where its request arrived), where link_out()'s frame, its
 * registers saved and restored, would cost more than the test.
 */
static inline void
link_emit(uint64_t time, uint32_t pid, uint32_t tid, uint64_t to,
    const struct cause *c)
{
	if (to == NO_VERTEX || to == UNSEGMENTED || c->vertex == to)
		return;
	link_out(time, pid, tid, to, c);
}

/*
 * Causes kept until their effect: a work item's queuing until it runs, a
 * timer's arming until it fires.  Keyed by what ties the two (an address;
 * a process and a pointer; a device and a sector), the same length in one
 * table, at most PENDING_KEY bytes.
 */
#define PENDING_KEY	48
struct pending;
void		 pending_put(struct pending **, const void *key, size_t len,
		    const struct cause *);
struct cause	*pending_find(struct pending **, const void *key, size_t len);
int		 pending_take(struct pending **, const void *key, size_t len,
		    struct cause *);	/* 1 and *cause if found; forgets it */
/*
 * The same in place, where a cause made and put, or taken and copied,
 * would be copied whole for a field or two: pending_at() the cause kept
 * for key, made if there was none, for the caller to fill in whole
 * (cause_in()); pending_taken() the cause taken, NULL if none, to be read
 * before the next pending_*() call.
 */
struct cause	*pending_at(struct pending **, const void *key, size_t len);
const struct cause *pending_taken(struct pending **, const void *key,
		    size_t len);
/*
 * The same keyed by a socket address's text ("127.0.0.1:80"); found also
 * where it was put for the port on any address (0.0.0.0:80, [::]:80): a
 * listener's.
 */
void		 pending_put_addr(struct pending **, const char *addr,
		    const struct cause *);
void		 pending_take_addr(struct pending **, const char *addr);
struct cause	*pending_find_addr(struct pending **, const char *addr);

/*
 * A wait-for snapshot (waits.h's wait and holder records of one time),
 * gathered until the stream moves past it and then joined by the rule
 * that keeps it: snap_past() calls join for each wait whose thread is in
 * a vertex, in order, and empties it.  The waitsfor and runtime rules
 * each keep one.
 */
struct snap_wait {
	uint32_t	 pid, tid;
	uint64_t	 since;		/* its thread was forked; 0 before */
	int		 mode;
	char		*object;
};
struct snap_holder {
	uint32_t	 pid, tid;
	int		 rel, fd;
	char		*object;
	char		 label[64];	/* the rule's word for it */
};
struct snapshot {
	void		(*join)(struct link_rule *, struct snap_wait *,
			    struct lthread *waiter);
	uint64_t	 time;		/* NO_TIME: nothing gathered */
	struct snap_wait *waits;
	struct snap_holder *holders;
	size_t		 nwaits, nholders;
};
struct wait_rec;
struct holder_rec;
/* Joins what s gathered unless it is of time t; NO_TIME: at any rate. */
void		 snap_past(struct snapshot *, struct link_rule *, uint64_t t);
/* Gathers a record into s at its time, and asks for the next event. */
struct snap_wait *snap_wait(struct snapshot *, struct link_rule *,
		    const struct wait_rec *);
struct snap_holder *snap_holder(struct snapshot *, struct link_rule *,
		    const struct holder_rec *);

/* A call between its entry and return probes, and its object. */
struct inside {
	int		 in;
	uint64_t	 object;	/* the mutex or condition, 0 unknown */
};
void		 inside_see(struct inside *, const struct event *,
		    enum etype entry, enum etype ret);
void		 inside_label(const struct inside *, struct cause *);

#endif
