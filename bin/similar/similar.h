/*
 * argus-similar: for each hang argus-spin found, the earlier vertices of
 * the same thread that did the same thing and ended normally: the
 * baseline (paper section 5.5).  history.c keeps a summary of each vertex
 * as the stream goes by (spin records come last); semantics.c says what a
 * vertex does; score.c how alike two vertices are; outcome.c whether one
 * ended normally; rank.c picks the best; report.c writes baseline
 * records.
 */
#ifndef ARGUS_SIMILAR_H
#define ARGUS_SIMILAR_H

#include <stdint.h>

#include <uthash.h>

#include "event.h"
#include "graph.h"
#include "util.h"

#define MAX_SYS		16	/* system calls kept per vertex, repeats folded */

/* One vertex, summarised: fixed size, nothing per event. */
struct vsem {
	uint64_t	 id;		/* first: a vvec element */
	uint64_t	 begin, end;
	uint64_t	 blocked_at;	/* its last blocking switch-out, or 0 */
	uint16_t	 sys[MAX_SYS];	/* interned calls, in order */
	uint16_t	 last;		/* the last call: where it waited */
	uint16_t	 where;		/* interned: its program's function on
					   its last user stack, 0 if none */
	uint8_t		 nsys;
	uint8_t		 more;		/* calls beyond MAX_SYS were dropped */
	uint8_t		 recorded;	/* its vertex record was read */
	uint8_t		 waited;	/* ENDED_BY wait */
	uint8_t		 exited;	/* ENDED_BY exit */
	uint8_t		 exit_own;	/* its exit told its parent "exited",
					   not "killed" */
	char		 sleep;		/* WAIT's state: S, D..., or 0 */
	uint64_t	 in_kinds, out_kinds;	/* rules of links, as bits */
	/* The link that woke the thread into this vertex. */
	uint8_t		 woke, wake_rule;	/* rule_id() */
	uint32_t	 waker_pid, waker_tid;
	uint64_t	 waker, wake_time;
};

struct sthread {
	uint32_t	 tid, pid;
	char		 comm[16];
	struct vvec	 vv;		/* its vertices, struct vsem */
	uint64_t	 cur;		/* the vertex of its latest event */
	uint64_t	 exec_time;	/* its latest exec, 0 if none */
	uint8_t		 vfork;		/* it vforked: its next block waits
					   for the child's exec or exit */
	UT_hash_handle	 hh;
};

#define VSEM(t, i)	VVEC_AT(&(t)->vv, struct vsem, i)

/*
 * The call a thread that vforked waits in, which only its fork event
 * shows: the default capture traces no vfork(2), and glibc's
 * posix_spawn() is a clone(2) with CLONE_VFORK.
 */
#define CALL_VFORK	"vfork"

/* history.c */
void		 history_select(uint64_t pid, uint64_t tid);
struct sthread	*sthread_find(uint32_t tid);
struct sthread	*sthread_all(void);
void		 history_event(const struct event *);
void		 history_link(const struct link_rec *);
void		 history_stack(const struct record *);
void		 history_vertex(const struct vertex_rec *);
extern uint64_t	 nvertex_records, nkept;

/* semantics.c */
uint16_t	 sys_intern(const char *call);
uint16_t	 sys_base(uint16_t);	/* "write:4" -> "write" */
void		 sem_add_syscall(struct vsem *, const char *name, const char *arg0);
/* A link rule as a small number: its row of lrules[] + 1, 0 another. */
int		 rule_id(const char *rule);
const char	*rule_name(int id);
unsigned	 rule_props(int id);		/* LR_* */
double		 sem_stack_similarity(const struct vsem *, const struct vsem *);
size_t		 sem_syscalls(const struct vsem *, char *, size_t);

/* score.c */
struct score {
	double		 total, sys, wait, kinds, stack;	/* stack < 0: none */
	int		 same_sys;
	int		 same_wait;	/* a wait's: the same call, descriptor,
					   sleep */
};
void		 score(const struct vsem *spin, const struct vsem *cand,
		    int running, struct score *);

/* outcome.c */
uint64_t	 work_ns(const struct vsem *, int running);
const struct vsem *normal_outcome(const struct sthread *, size_t i,
		    uint64_t spin_begin, uint64_t spin_dur, uint64_t threshold,
		    int running);

/* report.c */
struct candidate {
	const struct sthread *t;	/* whose vertex: the hung thread's, or
					   another process's of its program */
	size_t		 ix;
	int		 running;	/* the hang is LongRunning */
	const struct vsem *wake;	/* the next vertex, as woken */
	int		 slow;		/* a tenth of the hang or more */
	struct score	 s;
};
void		 report_baseline(struct writer *, const struct spin_rec *,
		    const struct sthread *, const struct candidate *, int rank,
		    int to_stderr);
void		 report_summary(struct writer *, uint64_t time, uint64_t nspins,
		    uint64_t nbaselines);

/* rank.c: the best count baselines of a hang written; how many. */
uint64_t	 rank(struct writer *, const struct spin_rec *, uint64_t count,
		    uint64_t threshold, double min_score, int verbose);

#endif
