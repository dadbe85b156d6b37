/*
 * argus-segment: each thread's events grouped into vertices, the paper's
 * Compute Graph, part 1.  vertex.c keeps the threads and their open
 * vertices; every other file is one heuristic that looks at a thread's
 * events and says where a vertex ends or which events are noise.  A
 * heuristic's row in lib/graph.c (sheuristics[]) names it and orders it:
 * the heuristics are asked in that order.
 */
#ifndef ARGUS_SEGMENT_H
#define ARGUS_SEGMENT_H

#include <stdint.h>

#include "idhash.h"

#include "event.h"
#include "graph.h"
#include "util.h"

struct thread {
	uint32_t	 tid;
	uint32_t	 pid;
	char		 comm[16];
	size_t		 comm_n;
	int		 comm_quoted;	/* not writer_plain() */

	/* The open vertex; vertex == 0 when none is. */
	uint64_t	 vertex;
	/*
	 * Its id in decimal, as each of its events is tagged with it: put
	 * once, when it opens, rather than at every event.
	 */
	char		 vertex_s[24];
	size_t		 vertex_n;
	uint64_t	 begin, nevents, oncpu;
	char		 begin_s[32];	/* begin in decimal, as vertex_s */
	size_t		 begin_n;
	/* PID,TID as its vertices have them, for pid ptid_pid; 0: not yet */
	char		 ptid_s[32];
	size_t		 ptid_n;
	uint32_t	 ptid_pid;
	const char	*began_by;

	/* A vertex ended by a wait closes when the thread runs again. */
	int		 waiting;
	char		 wait_state[8];
	uint64_t	 resumed;	/* when it ran again; NO_TIME: not since */
	uint64_t	 woken;		/* its wake-up in this wait, or NO_TIME */

	uint64_t	 oncpu_since;	/* NO_TIME: off CPU */
	/*
	 * Its CPU ran another thread with no switch out of it: its last
	 * event there (left_unseen()), or NO_TIME.
	 */
	uint64_t	 left_at;
	int		 dead;		/* exited; waits for its last switch-out */
	uint64_t	 last_vertex;	/* what a dead thread's last events cite */

	UT_hash_handle	 hh;
	/* Then each heuristic's own state (segment_state()). */
};

/* What a heuristic says about one event of its thread. */
enum verdict {
	KEEP,		/* part of the current vertex */
	HOLD,		/* part of it, and no later heuristic ends it here */
	CUT_BEFORE,	/* starts a new vertex */
	CUT_AFTER,	/* ends the current vertex */
	WAIT_AFTER,	/* ends the current vertex in a wait */
	CULL,		/* noise: part of no vertex */
};

struct heuristic {
	const char	*name;		/* its row in sheuristics[] */
	/*
	 * EV(type) | ...: the events judge() is asked about, 0 all; it
	 * keeps the others.
	 */
	uint64_t	 types;
	enum verdict	(*judge)(struct heuristic *, struct thread *,
			    const struct event *);
	/* A record other than an event (a hint): 1 if it was for it. */
	int		(*record)(struct heuristic *, const struct record *);
	/*
	 * judge() is asked nothing before record() has taken a record:
	 * one that only acts on hints costs nothing on a stream of none.
	 */
	int		 after_record;
	/*
	 * Its thread's vertex closed: what comes next, from the event that
	 * opens the next vertex on, is judged afresh.
	 */
	void		(*opened)(struct heuristic *, struct thread *);
	size_t		 thread_size;	/* its state in each thread */

	/* Set by vertex.c. */
	const struct sheuristic *row;
	int		 off;		/* --no-NAME */
	size_t		 thread_off;
	uint64_t	 count;		/* events it cut or culled */
};

/* Where a heuristic file puts itself: SEGMENT_HEURISTIC(x) = { ... }; */
#define SEGMENT_HEURISTIC(var)						\
	static struct heuristic var;					\
	SET_ENTRY(segment_heuristics, var);				\
	static struct heuristic var

/* vertex.c */
struct heuristic **segment_heuristics(void);	/* in table order */
void		 segment_init(struct writer *);
void		*segment_state(const struct heuristic *, struct thread *);
struct thread	*thread_get(uint32_t tid, uint32_t pid);
void		 segment_event(struct event *);
void		 segment_record(const struct record *);
void		 segment_finish(uint64_t end);
void		 segment_summary(struct writer *, uint64_t end, int to_stderr);

#endif
