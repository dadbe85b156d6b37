/*
 * argus-summary's model of a capture (argus-summary.c says what it
 * shows).  sched.c is the scheduler's state machine, one thread at a
 * time, and the CPUs' lost events; stream.c takes the records (the
 * window, meta, task) and runs the state machine on them; report.c
 * prints the header and the tables; state.c holds the figures all three
 * share, apart so that none of them needs another for its data.
 */
#ifndef ARGUS_SUMMARY_H
#define ARGUS_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include <uthash.h>

#include "event.h"
#include "graph.h"
#include "names.h"
#include "util.h"

#define CALL_LEN	24
#define MS(ns)		((ns) / 1e6)

enum tstate {
	TS_UNKNOWN,	/* no event has said yet */
	TS_NEW,		/* forked, not yet woken */
	TS_RUNNING,
	TS_RUNNABLE,
	TS_BLOCKED,
	TS_DEAD,
};

struct thread {
	uint32_t	 tid, pid;
	char		 comm[NAME_LEN];
	enum tstate	 state;
	int		 woken;		/* woken before its switch-out: no wait */
	uint64_t	 since;		/* blocked or runnable since */
	char		 call[CALL_LEN];	/* the system call it is in */
	char		 blocked_in[CALL_LEN];
	uint64_t	 oncpu, runs;
	uint64_t	 blocked, waits, longest;
	char		 longest_in[CALL_LEN];
	int		 longest_open;	/* still waiting when the trace ended */
	uint64_t	 delay, delays, delay_max, delay_max_at;
	/* Whether it is idle: see idle(). */
	uint64_t	 sleeps, isleeps;	/* blocking switch-outs; in I */
	uint64_t	 closed, by_timer;	/* waits ended; by a timer */
	int		 woke;		/* it woke another thread */
	struct thread	*retired;	/* its tid went to a new thread */
	UT_hash_handle	 hh;
};

struct cpu {
	struct thread	*cur;		/* on it since `since' */
	uint64_t	 since;
	int		 in_timer;	/* in a timer's callback */
	int		 seen;
	uint64_t	 lost;
	uint64_t	 uncounted;	/* losses of no known count */
};

/* Record kinds other than event, as met. */
struct kind {
	char		 name[24];
	uint64_t	 n;
};

extern struct thread	*threads, *retired;
extern struct cpu	*cpus;
extern size_t		 ncpus;	/* seen: the highest CPU + 1 */
extern struct kind	 kinds[32];
extern size_t		 nkinds;
extern uint64_t		 ntype[E_NTYPES], nevents, nlost, nuncounted, nexited;
extern uint64_t		 npending; /* meta records before the window */

/* The window: from its first record, or -s, to its last, or -u. */
extern struct when	 since, until;
extern uint64_t		 wfrom, wto, first, last;

/* What the stream says of itself (meta records), the latest of each. */
extern struct meta {
	char		 source[32], host[64], kernel[64], program[64];
	uint64_t	 cpus, lost;
	int		 has_lost;
} meta;

/* The tables' choice of threads (-a, -p, -t, -c). */
extern int	 all;
extern uint64_t	 only_pid, only_tid;
extern const char *only_comm;

/* sched.c */
void		 copy(char *, size_t, const char *);
uint64_t	 within(uint64_t, uint64_t);
struct thread	*thread(uint32_t, uint32_t);
void		 take_event(const struct event *);
void		 take_lost(const struct record *);
void		 close_all(uint64_t);

/* stream.c */
uint64_t	 summary_read(char **, int, int);

/* report.c */
void		 summary_report(uint64_t, uint64_t);

#endif
