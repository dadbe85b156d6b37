/*
 * Related threads: the ones whose doing may have kept a target waiting,
 * found without building the event graph, so that the graph of a busy
 * minute is built only for them (argus-relate(1), argus-cat --related).
 *
 * A relation is one thread making another run on: a wake-up, a fork, a
 * signal, work queued for a kernel worker or a run loop, a data flag
 * written for a poller, the holder of what a waiting thread waits on (a
 * wait-for snapshot).  A wake-up in interrupt context is the doing of
 * the thread that armed the timer or sent on the loopback, never of the
 * thread it happened to interrupt.  It is the thread-level shadow of
 * argus-link's rules, and must stay a superset of them.
 *
 * A thread's segment runs from one wake-up of it to the next.  A segment
 * matters if it is the target's, or if it made a segment that matters run
 * on; its relations in turn make their sources' segments matter.  Going
 * back segment by segment, not thread by thread, keeps a busy machine's
 * unrelated threads out: the shell that forked the target matters just
 * before the fork, not for every program it ran before.
 */
#ifndef ARGUS_RELATE_H
#define ARGUS_RELATE_H

#include <stdint.h>
#include <stdio.h>

#include "event.h"

/*
 * The event types a relation index (argus-capture --ring) keeps, with the
 * capture's task records and snapshots: what relate_see() learns from.
 */
int		 relate_indexed_type(enum etype);

struct relate;
struct relate	*relate_new(void);
void		 relate_see(struct relate *, const struct record *);
/* Targets, once the input is read: 0 if no thread matches. */
int		 relate_target_tid(struct relate *, uint32_t tid);
int		 relate_target_pid(struct relate *, uint32_t pid);
int		 relate_target_comm(struct relate *, const char *comm);
/*
 * A related thread: its id, and where the id had more than one life in
 * the input (a busy machine reuses a dead thread's id within seconds),
 * which: from its fork at since (0: from the input's beginning) to the
 * next life's fork at until (UINT64_MAX: to the end).
 */
struct relate_life {
	uint32_t	 tid;
	uint64_t	 since, until;
};
/*
 * The related threads, by id and since, targets included; *n of them.  A
 * chain is followed back at most maxdepth relations (0: all the way).
 */
#define RELATE_DEPTH	16
struct relate_life *relate_closure(struct relate *, unsigned maxdepth,
		    size_t *n);
void		 relate_explain(const struct relate *, FILE *);
uint64_t	 relate_nrelations(const struct relate *);
void		 relate_free(struct relate *);

/*
 * The threads relate_keep() selects, a bit each below limit: the related,
 * and those glimpsed through a record kept for a related one.
 */
struct relset {
	uint8_t		*related;
	uint8_t		*glimpsed;
	uint8_t		*gone;		/* related, and exited since: a
					   snapshot's holder still names them */
	uint64_t	 limit;
	struct lifemark	*marks;	/* where lives of reused ids begin, end */
	size_t		 nmarks, next;
	int		 sorted;
};

struct relset	*relset_new(uint64_t limit);
/* A thread's life from since to until: 0 and UINT64_MAX, all of it. */
void		 relset_add(struct relset *, uint64_t tid, uint64_t since,
		    uint64_t until);
void		 relset_free(struct relset *);
/*
 * Keep a record when selecting related threads: their records, events
 * that name one of them (the switch that gives it the CPU, a wake-up of
 * it), every event in interrupt context (whoever it interrupted, it may
 * work for one of them), and records about no thread, or about a thread's
 * name.  A thread one of them starts in its own process joins the set at
 * its fork: its life is kept.  A life added by its times is in the set
 * from its fork to its death or the next life's fork, whichever is
 * first: the stream must be in time order.  A thread glimpsed by an
 * event that names one of them (it woke it, signalled it) is seen to
 * stop: its switches until it sleeps, and its exit.
 */
int		 relate_keep(const struct record *, struct relset *);

#endif
