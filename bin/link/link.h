/*
 * argus-link: causal edges between vertices, the paper's Compute Graph,
 * part 2.  links.c follows each thread's vertices through the stream and
 * writes link records; every other file is one rule.
 *
 * Events in interrupt context carry vertex 0 (argus-segment culls them from
 * the thread they interrupted), so whatever they cause is attributed by
 * the rules that know the interrupt: the timer's arming vertex, the sender
 * a loopback softirq ran for, the thread that issued a block request.
 */
#ifndef ARGUS_LINK_H
#define ARGUS_LINK_H

#include <stdint.h>

#include <uthash.h>

#include "event.h"
#include "util.h"

struct rule;

/* Where an effect came from. */
struct cause {
	struct rule	*by;		/* the rule that made the link */
	uint64_t	 vertex;	/* 0: outside any vertex */
	uint32_t	 pid, tid;
	uint64_t	 time;
	const char	*rule;
	int		 weak;
	char		 label[32];
};

/* A call between its entry and return probes, and its object. */
struct inside {
	int		 in;
	uint64_t	 object;	/* the mutex or condition, 0 unknown */
};

struct lthread {
	uint32_t	 tid, pid;
	uint64_t	 vertex;	/* its current (or last) vertex */
	uint64_t	 prev;		/* the vertex before, when fresh */
	int		 fresh;		/* this event began a new vertex */

	/* Set by a wake-up while it waits; linked at its next vertex. */
	int		 woken;
	struct cause	 waker;
	uint64_t	 wait_vertex;

	/* What its current system call is, for the rules that care. */
	int		 lock_wait;	/* blocked in a futex as a lock waiter */
	int		 in_send;	/* in a send-like system call */

	/* The pthreads calls it is inside (patchers/pthread.probes). */
	struct inside	 signal;	/* pthread_cond_signal, _broadcast */
	struct inside	 unlock;	/* pthread_mutex_unlock */
	struct inside	 lock;		/* pthread_mutex_lock */

	UT_hash_handle	 hh;
};

/* What the interrupt on one CPU is doing now. */
struct cpu {
	char		 irq[24];	/* hard interrupt handler, "" if none */
	int		 softirq;	/* vector, -1 if none */
	uint64_t	 timer;		/* timer expiring now, 0 if none */
	int		 has_block;	/* a block request just completed */
	struct cause	 block;
};

struct rule {
	const char	*name;		/* --no-NAME switches it off */
	const char	*help;
	void		(*see)(const struct event *, struct lthread *);
	int		 off;
	uint64_t	 strong, weak;	/* links it made */
};

extern struct rule wakeup, message, lock_handoff, cond_signal, timer,
    softirq, block_io, irq, async_task, runloop, fork_child, program_order,
    flag;

/* Follows a call from its entry event to its return event. */
void		 inside_see(struct inside *, const struct event *,
		    enum etype entry, enum etype ret);
void		 inside_label(const struct inside *, struct cause *);

/* links.c */
struct lthread	*lthread_get(uint32_t tid, uint32_t pid);
struct cpu	*cpu_get(uint32_t cpu);
void		 link_emit(uint64_t time, uint32_t pid, uint32_t tid, uint64_t to,
		    const struct cause *);
void		 cause_of(const struct event *, struct cause *);
void		 link_init(struct writer *);
void		 link_event(const struct event *, struct rule **, int);
void		 link_summary(struct writer *, uint64_t end, int to_stderr,
		    struct rule **, int);

/* A wake-up while the wakee waits, linked when it runs again. */
void		 wake(struct lthread *wakee, const struct cause *);

/* Attribution of what an interrupt does, by the rules that know it. */
int		 timer_cause(const struct event *, struct cause *);
int		 softirq_cause(const struct event *, struct cause *);
int		 block_cause(const struct event *, struct cause *);
void		 irq_cause(const struct event *, struct cause *);

#endif
