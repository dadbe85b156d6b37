/*
 * argus-waits' model of the graph (see argus-waits.c for what it shows):
 * read.c takes the vertex, link and event records into the threads'
 * vertices; report.c finds their waits and prints the longest.  Shared
 * here because the report walks what the reading built.
 */
#ifndef ARGUS_WAITS_H
#define ARGUS_WAITS_H

#include <stdint.h>

#include <uthash.h>

#include "graph.h"

#define NAME_LEN	24

/* A vertex as the waits need it: what its events say, its cause. */
struct wv {
	uint64_t	 id;		/* first: struct vvec's key */
	uint64_t	 last;		/* its last event's time */
	uint64_t	 end;
	int		 waited, open;	/* ENDED_BY wait; open and asleep */
	int		 idle_state;	/* it waited in state I: a kernel idler */
	int		 woke;		/* it woke another thread */
	char		 call[NAME_LEN];	/* its last system call */
	int		 cause, weak;	/* the best link into it, if any */
	unsigned	 props;
	uint64_t	 from_time;
	uint32_t	 from_pid, from_tid;
	char		 rule[NAME_LEN];
	char		 label[64];	/* a timer's function, a device, ... */
	char		 comm[NAME_LEN];	/* the thread's name then */
};

struct thread {
	uint32_t	 tid, pid;
	char		 comm[NAME_LEN];
	struct vvec	 vv;		/* of struct wv */
	UT_hash_handle	 hh;
};

struct wait {
	const struct thread *t;
	const struct wv	*v, *next;	/* next: NULL when still waiting */
	uint64_t	 len;
};

extern struct thread *threads;
extern int	 all;		/* -a: idle waits too */

struct thread	*thread_find(uint32_t);
size_t		 waits_read(char **, int);
void		 waits_report(uint64_t, uint64_t, uint64_t, uint64_t,
		    const char *, size_t);

#endif
