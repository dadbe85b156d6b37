/*
 * argus-segment: each thread's events grouped into vertices, the paper's
 * Compute Graph, part 1.  vertex.c keeps the threads and their open
 * vertices; every other file is one heuristic that looks at a thread's
 * events and says where a vertex ends or which events are noise.
 */
#ifndef ARGUS_SEGMENT_H
#define ARGUS_SEGMENT_H

#include <stdint.h>

#include <uthash.h>

#include "event.h"
#include "util.h"

#define MAX_PEERS	8

struct thread {
	uint32_t	 tid;
	uint32_t	 pid;
	char		 comm[16];

	/* The open vertex; vertex == 0 when none is. */
	uint64_t	 vertex;
	uint64_t	 begin, nevents, oncpu;
	const char	*began_by;
	const char	*cut;		/* set: the next event starts a new vertex */

	/* A vertex ended by a wait closes when the thread runs again. */
	int		 waiting;
	char		 wait_state[8];

	uint64_t	 oncpu_since;	/* NO_TIME: off CPU */
	int		 callout_level;
	uint64_t	 cull_until;	/* NO_TIME: no cull hint in force */

	uint32_t	 peers[MAX_PEERS];	/* the vertex's IPC peer set */
	int		 npeers;
	int		 dead;		/* exited; waits for its last switch-out */
	uint64_t	 last_vertex;	/* what a dead thread's last events cite */

	UT_hash_handle	 hh;
};

/* What a heuristic says about one event of its thread. */
enum verdict {
	KEEP,		/* part of the current vertex */
	CUT_BEFORE,	/* starts a new vertex */
	CUT_AFTER,	/* ends the current vertex */
	WAIT_AFTER,	/* ends the current vertex in a wait */
	CULL,		/* noise: part of no vertex */
};

struct heuristic {
	const char	*name;		/* --no-NAME switches it off */
	const char	*help;
	enum verdict	(*judge)(struct thread *, const struct event *);
	int		 off;
	uint64_t	 count;		/* events it cut or culled */
};

extern struct heuristic cull_interrupts, cull_housekeeping, split_at_wait,
    callout, peer_set, hints;

/* vertex.c */
struct thread	*thread_get(uint32_t tid, uint32_t pid);
struct thread	*thread_find(uint32_t tid);
void		 segment_init(struct writer *);
void		 segment_event(struct event *, struct heuristic **, int);
void		 segment_hint(const struct record *);
void		 segment_task(const struct record *);
void		 segment_finish(uint64_t end);
void		 segment_summary(struct writer *, uint64_t end, int to_stderr);

#endif
