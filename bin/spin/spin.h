/*
 * argus-spin: find where a target thread hung and say how.  history.c
 * keeps the target's vertices as the stream goes by (nothing for other
 * threads but their names, while the target is looked for by name);
 * target.c says which thread the target is; moment.c when the user saw
 * the hang; classify.c and yield_chain.c turn vertices into episodes;
 * report.c writes them.
 */
#ifndef ARGUS_SPIN_H
#define ARGUS_SPIN_H

#include <stdint.h>

#include <uthash.h>

#include "event.h"
#include "util.h"

/* What argus-spin needs of one vertex of a tracked thread. */
struct vsum {
	uint64_t	 id, begin, end, oncpu, events;
	uint64_t	 blocked;	/* ns in blocking waits */
	uint32_t	 waits;		/* blocking switch-outs */
	uint32_t	 yields;	/* sched_yield calls */
	char		 began_by[16], ended_by[16], wait[4];
	int		 recorded;	/* its vertex record was read */
	/* The link that woke the thread into it, if any. */
	char		 wake_rule[16];
	uint64_t	 waker;
	int		 woke;
};

struct tracked {
	uint32_t	 tid, pid;
	char		 comm[16];
	uint64_t	 order;		/* when first tracked: the first thread */
	struct vsum	*v;
	size_t		 nv, cap;
	uint64_t	 blocked_since;	/* NO_TIME: not blocked */
	struct vsum	*blocked_in;	/* the vertex that blocked (index) */
	size_t		 blocked_ix;
	UT_hash_handle	 hh;
};

/* target.c: which thread, from the options or the stream. */
struct target {
	uint64_t	 pid, tid;	/* 0: not given */
	const char	*comm;		/* NULL: not given */
	int		 from_meta;	/* pid from meta command_pid */
};
void		 target_meta(struct target *, const struct record *);
int		 target_wants(const struct target *, uint32_t pid, uint32_t tid,
		    const char *comm);
struct tracked	*target_pick(const struct target *);
const char	*target_describe(const struct target *, char *, size_t);

/* history.c */
struct tracked	*tracked_find(uint32_t tid);
struct tracked	*tracked_add(uint32_t tid, uint32_t pid);
struct tracked	*tracked_all(void);
void		 history_name(const struct target *, uint32_t pid, uint32_t tid,
		    const char *comm);
void		 history_event(const struct target *, const struct event *);
void		 history_link(const struct record *);
void		 history_vertex(const struct target *, const struct record *);
void		 history_finish(uint64_t end);
extern uint64_t	 nvertex_records;

/* moment.c: --at, or the last argus-mark annotation. */
struct moment {
	int		 set, relative;
	uint64_t	 ns;
	uint64_t	 first;		/* first time in the input */
	uint64_t	 mark;		/* last argus-mark marker, NO_TIME if none */
};
void		 moment_parse(struct moment *, const char *arg);
void		 moment_see(struct moment *, const struct record *,
		    const struct event *);
uint64_t	 moment_when(const struct moment *);	/* NO_TIME: none */

/* An episode: one vertex, or a chain of them. */
enum sclass { LONG_RUNNING, LONG_WAIT, REPEATED_YIELD, NCLASSES };

struct episode {
	size_t		 first, last;	/* indexes into the thread's vertices */
	enum sclass	 class;
	uint64_t	 begin, end, oncpu;
	uint32_t	 waits;
	const char	*ended;
	uint64_t	 waker;
};

/* classify.c: a single vertex. */
#define YIELD_MIN	10	/* sched_yield calls that make a yield loop */
enum sclass	 classify_vertex(const struct vsum *);
const char	*class_name(enum sclass);
void		 episode_close(const struct tracked *, struct episode *);

/* yield_chain.c: short vertices that poll, chained. */
int		 chain_joined(const struct tracked *, size_t i, uint64_t poll_max);
void		 chain_extend(const struct tracked *, size_t i, uint64_t poll_max,
		    size_t *first, size_t *last);

/* report.c */
void		 report_spin(struct writer *, uint64_t time, const struct tracked *,
		    const struct episode *, int to_stderr);
void		 report_summary(struct writer *, uint64_t time, uint64_t nspins,
		    const uint64_t *byclass, int to_stderr);

#endif
