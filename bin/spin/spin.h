/*
 * argus-spin: find where a target thread hung and say how.  history.c
 * keeps the target's vertices as the stream goes by (nothing for other
 * threads but their names, while the target is looked for by name);
 * target.c says which thread the target is; moment.c when the user saw
 * the hang; episode.c turns vertices into episodes, asking the spin
 * classes (one a file, bound by name to its row of sclasses[] in
 * lib/graph.c, asked in table order) which vertices make one; report.c
 * takes those of the moment and writes them.
 */
#ifndef ARGUS_SPIN_H
#define ARGUS_SPIN_H

#include <stdint.h>

#include <uthash.h>

#include "event.h"
#include "graph.h"
#include "util.h"

/* What argus-spin needs of one vertex of a tracked thread. */
struct vsum {
	uint64_t	 id;		/* first: a vvec element */
	uint64_t	 begin, end, oncpu, events;
	uint64_t	 blocked;	/* ns in blocking waits */
	uint32_t	 waits;		/* blocking switch-outs */
	uint32_t	 yields;	/* sched_yield calls */
	uint32_t	 io;		/* reads, writes, sends, receives */
	uint32_t	 reads;		/* of them, what it took in */
	uint64_t	 calls;		/* its system calls and their first
					   arguments, hashed: a round's */
	char		 last_sys[24];	/* its last system call: what it waits in */
	uint64_t	 sys_at;	/* when it entered last_sys */
	int		 sleeps;	/* last_sys sleeps: syscall_sleeps() */
	char		 began_by[20], ended_by[20], wait[4];
	int		 recorded;	/* its vertex record was read */
	/* The link that woke the thread into it, if any. */
	char		 wake_rule[20];
	unsigned	 wake_props;	/* LR_* of that rule */
	uint64_t	 waker;
	int		 woke;
	int		 napped_child;	/* its wait ended as a child that only
					   napped exited: a nap of its own */
	int		 vforked;	/* it vforked, and waits next for the
					   child's exec (sh's way to run one) */
};

struct tracked {
	uint32_t	 tid, pid;
	char		 comm[16];
	uint64_t	 order;		/* when first tracked: the first thread */
	struct vvec	 vv;		/* its vertices, struct vsum */
	uint64_t	 blocked_since;	/* NO_TIME: not blocked */
	uint64_t	 blocked_in;	/* the vertex that blocked */
	/*
	 * The vertex that entered a receive not yet seen to fail, or 0: one
	 * that blocks fails in the next, when its timeout ends the wait.
	 */
	uint64_t	 recv_in;
	UT_hash_handle	 hh;
};

#define VSUM(t, i)	VVEC_AT(&(t)->vv, struct vsum, i)

/* target.c: which thread, from the options or the stream. */
struct target {
	uint64_t	 pid, tid;	/* 0: not given */
	const char	*comm;		/* NULL: not given */
	int		 from_meta;	/* pid from meta command_pid */
};
void		 target_meta(struct target *, const struct record *);
int		 target_wants(const struct target *, uint32_t pid, uint32_t tid,
		    const char *comm);
const char	*target_describe(const struct target *, char *, size_t);

/* history.c */
struct tracked	*target_pick(const struct target *);	/* of those tracked */
/* By name: which thread was taken, and the others blocked, on stderr. */
void		 target_said(const struct target *, const struct tracked *);
void		 history_name(const struct target *, uint32_t pid, uint32_t tid,
		    const char *comm);
void		 history_event(const struct target *, const struct event *);
void		 history_link(const struct link_rec *);
void		 history_vertex(const struct target *, const struct vertex_rec *);
void		 history_finish(uint64_t end);
extern uint64_t	 nvertex_records;

/* moment.c: --at, or the last argus-mark annotation. */
enum moment_ask { AT_DEFAULT, AT_TIME, AT_NOW, AT_MARK };
struct moment {
	enum moment_ask	 ask;		/* what --at asked for */
	struct when	 at;		/* --at TIME */
	uint64_t	 first;		/* first time in the input */
	uint64_t	 mark;		/* last argus-mark marker, NO_TIME if none */
};
void		 moment_see(struct moment *, const struct record *,
		    const struct event *);
uint64_t	 moment_when(const struct moment *);	/* NO_TIME: none */
void		 moment_parse(struct moment *, const char *arg);

/*
 * A hang is this long (--threshold); the vertices of a loop that makes no
 * progress are each on a CPU for less than a twentieth of it.
 */
#define POLL_SHARE	20

struct spin_opts {
	uint64_t	 threshold, poll_max;
};

/*
 * A spin class: whether vertex i of t is part of an episode of its class,
 * and if so the episode's first and last vertices (a chain of several, or
 * i alone).  Asked in table order; the first that claims a vertex wins.
 */
struct spin_class {
	const char	*name;		/* its row in sclasses[] */
	int		(*claim)(const struct tracked *, size_t i,
			    const struct spin_opts *, size_t *first,
			    size_t *last);
	const struct sclass *row;	/* set by episode.c */
};

#define SPIN_CLASS(id)							\
	static struct spin_class class_##id;				\
	SET_ENTRY(spin_classes, class_##id);				\
	static struct spin_class class_##id

/* episode.c: one vertex, or a chain of them. */
struct episode {
	size_t		 first, last;	/* indexes into the thread's vertices */
	const struct sclass *class;
	uint64_t	 begin, end, oncpu;
	uint32_t	 waits;
	const char	*ended;
	uint64_t	 waker;
};
void		 episodes_init(void);
/* The episode at the moment, or every one at least threshold long. */
int		 episodes_at(const struct tracked *, uint64_t when,
		    const struct spin_opts *);
/* The episode at the moment, if it is a hang (threshold long). */
int		 episodes_hung_at(const struct tracked *, uint64_t when,
		    const struct spin_opts *);
void		 episodes_long(const struct tracked *, const struct spin_opts *);
struct episode	*episodes(size_t *n);
void		 longest_vertex(const struct tracked *, char *, size_t);

/*
 * A hang is a span without progress, not one vertex: vertex i's wait was
 * ended by the thread's own timer (or it yielded and nothing woke it), and
 * the next one did no work, no input and no output before it waited
 * again.  A
 * nap sleeps or yields rather than waiting on anything: chains of naps
 * are RepeatedYield, chains of other waits (a poll with a timeout that
 * keeps expiring) LongWait, on what it polls.
 */
int		 is_nap(const struct vsum *, const struct spin_opts *);
int		 starved(const struct vsum *, const struct spin_opts *);
void		 chain(const struct tracked *, size_t i, const struct spin_opts *,
		    int naps, size_t *first, size_t *last);

/* report.c */
void		 report_spin(struct writer *, uint64_t time, const struct tracked *,
		    const struct episode *, int to_stderr);
void		 report_summary(struct writer *, uint64_t time, size_t nspins,
		    const struct episode *);
size_t		 report_hang(struct writer *, uint64_t last,
		    const struct target *, const struct moment *,
		    const struct spin_opts *, int quiet);

#endif
