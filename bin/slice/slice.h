/*
 * argus-slice: the paper's Algorithm 1.  graph.c holds the event graph
 * (every vertex and link of the stream, packed as tables.h says, small
 * enough for the millions of vertices of the paper's cases), ask.c asks
 * the user where the graph is ambiguous (or reads the answers from a
 * file, or decides by rule), walk.c is
 * InteractiveSlicing, diagnose.c is Diagnose (with the files dctx.h
 * names, a concern each), report.c and export.c say what was found.
 */
#ifndef ARGUS_SLICE_H
#define ARGUS_SLICE_H

#include <stdint.h>
#include <stdio.h>

#include "chrome.h"
#include "event.h"
#include "graph.h"
#include "names.h"
#include "stage.h"
#include "util.h"
#include "waits.h"

#include "tables.h"

/* The baseline argus-similar ranked, where its wake-up path starts. */
struct baseline {
	uint64_t	 spin, vertex, waker, rank;
};

/*
 * What the last wait-for snapshot says a blocked thread waits for, over
 * all the objects of its wait: more than its system call's name can say.
 */
struct snapwait {
	uint32_t	 tid;
	uint8_t		 clients;	/* a listener: connections to come */
	uint8_t		 sockets;	/* a socket: a peer's data */
	uint8_t		 timed;		/* a timeout of its own */
	uint8_t		 objects;	/* how many (a poll set's), to 255 */
	uint8_t		 timers;	/* of them, timers (a timerfd) */
	char		 stop;		/* 'T', 't' stopped; 'F' frozen; 0 */
	uint32_t	 freezer;	/* interned "freezer:CGROUP" if frozen */
	uint64_t	 since;		/* when it last ran */
	uint64_t	 deadline;	/* its first timer's, or NO_TIME */
	uint32_t	 sleeps;	/* interned "DETAIL: THROUGH": its
					   runtime says it sleeps; 0 */
	int32_t		 selffd;	/* a lock it waits for, that its own
					   process holds by this fd; NO_FD */
	uint8_t		 ownends;	/* each object's other end held by
					   its own process alone */
	uint32_t	 pid;
	char		 state;		/* its task state: S, D, ... */
	uint32_t	 call;		/* interned: the call it waits in */
	uint32_t	 wchan;		/* interned: where in the kernel */
};

#define STEAL_MANY	UINT32_MAX

struct graph {
	struct vertex	*v;		/* in the order met; v[0] unused */
	uint64_t	 nv, capv, readyv;	/* readyv: faulted in below */
	uint32_t	*at;		/* id -> place in v for ids below nat;
					   0 none */
	uint64_t	 nat, capat;
	uint32_t	*far_at;	/* the others': open addressing on
					   vertex_id(), 0 an empty slot */
	uint64_t	 nfar_at;
	unsigned	 bits;		/* 2^bits slots */
	size_t		 mask;		/* 2^bits - 1, kept for each lookup */
	uint64_t	 nseen;		/* vertices whose record was read */
	int		 to_none;	/* a link's TO named no vertex (0) */
	struct link	*l;
	int32_t		 nl, capl, readyl;
	struct spin_rec	*spins;
	int		 nspins;
	struct baseline	*bases;
	int		 nbases;
	uint32_t	 *by_thread;	/* places in v sorted by (tid, begin) */
	uint64_t	  nby;
	uint64_t	 first_time, last_time;
	uint32_t	*readers;	/* threads the last wait-for snapshot */
	int		 nreaders;	/* saw reading their terminal */
	struct snapwait	*snapw;		/* and what each blocked thread */
	int		 nsnapw;	/* waited for */
	struct snapfd {			/* each object it waited on, by its */
		uint32_t tid;		/* descriptor: a poll set's members */
		int32_t	 fd;
		uint32_t object;	/* interned */
	}		*snapfd;
	int		 nsnapfd;
	struct snapobj {		/* each object a thread waited on */
		uint32_t pid, tid;
		uint32_t object;	/* interned */
		uint8_t	 mode;		/* how: WM_IN, WM_OUT, ... */
		uint8_t	 own, other;	/* its other end held by its own
					   process, by another */
	}		*snapobj;
	int		 nsnapobj;
	struct selfhold {		/* a runtime's holder of a thread's */
		uint64_t time;		/* own wait: it sleeps */
		uint32_t tid, object, label;
	}		*selfh;
	int		 nselfh;
	struct flagwait {		/* memory a poller's process shares */
		uint64_t time;		/* writable (a flag wait), and each */
		uint32_t pid, tid;	/* process that maps it (a mapper: */
		uint32_t object, path;	/* tid 0, its path) */
	}		*flagw, *mappers;
	int		 nflagw, nmappers;
	struct ttystop {		/* a stop the kernel made of a thread's */
		uint64_t time;		/* own use of its terminal: SIGTTOU, */
		uint32_t tid;		/* SIGTTIN from the background */
		int	 sig;
	}		*ttystops;
	int		 nttystops;
	struct execd {			/* a process's exec: a program, and */
		uint64_t time;		/* its memory, new from then on */
		uint32_t pid;
	}		*execs;
	size_t		 nexecs;
	struct steal {			/* a preempted thread's long wait for */
		uint64_t time;		/* its CPU, from time: who ran there, */
		uint64_t ns;		/* how long (taker 0: none, idle; */
		uint32_t tid, taker;	/* STEAL_MANY: others, together) */
	}		*steals;
	size_t		 nsteals, capsteals;
	struct sentfd	*sent;		/* vertex_sent_fd()'s, by vertex */
	struct retry	*retries;	/* vertex_retry()'s, by vertex */
	uint64_t	 snap_time;
	struct chrome_runs runs;	/* scheduling slices, with GR_RUNS */
	struct names	*names;		/* threads' names over time */
	int		 spun;		/* argus-spin ran (its summary) */
	char		*provider_errors[8];	/* what a runtime did not say */
	int		 nprovider_errors;
	/* What the kernel lost (lost records): in all, which CPUs, when said. */
	uint64_t	 lost, lost_cpus;
	struct lost_mark {
		uint64_t time, n;
	}		*lost_marks;	/* each record's, in stream order */
	size_t		 nlost_marks;
};


/* graph.c: the graph read from a stage opened with graph_stage; flags: */
#define GR_RUNS		0x2	/* keep the scheduling slices, for --json */
extern const struct stage_ops graph_stage;
void		 graph_read(struct graph *, struct stage *, int flags);
struct vertex	*vertex_get(struct graph *, uint64_t id);	/* NULL if unknown */
uint64_t	 vertex_at(struct graph *, uint32_t tid, uint64_t t);
/* The events the kernel said it lost between from and to, both in. */
uint64_t	 lost_between(const struct graph *, uint64_t from, uint64_t to);
int		 reads_terminal(const struct graph *, uint32_t tid);
/* Whether process pid exec'd between from and to, both in. */
int		 execd_between(const struct graph *, uint32_t pid, uint64_t from,
		    uint64_t to);
/* The snapshot's word on vertex v's wait, if it was taken during it. */
int		 snapshot_wait(const struct graph *, const struct vertex *v,
		    struct snapwait *);
uint64_t	 vertex_next(struct graph *, uint64_t id);	/* same thread */
uint64_t	 vertex_prev(struct graph *, uint64_t id);	/* same thread */
/*
 * The descriptor the vertex's thread sent on just before it began a futex
 * wait in it (a synchronous call's request, then its wait for the
 * answer); -1 if it did not.
 */
int		 vertex_sent_fd(struct graph *, uint64_t id);
/*
 * A send or a receive the vertex's thread tried again and again in it,
 * failing with EAGAIN each time: a busy wait on its descriptor.  The
 * longest run of failures of one call on one descriptor there (calls
 * between that did not fail go on with it), if of RETRY_MIN or more.
 */
#define RETRY_MIN	1000
struct retried {
	uint64_t	 n;		/* failures */
	uint64_t	 first, last;	/* the first's and the last's times */
	uint32_t	 sys;		/* the call, interned */
	uint32_t	 arg;		/* its descriptor, as vertex.arg */
};
const struct retried *vertex_retry(struct graph *, uint64_t id);
const char	*thread_name_at(struct graph *, uint32_t tid, uint64_t t);
const char	*str_of(uint32_t);

/* Its last call is a sleep (syscall_sleeps()): nothing but its timer ends it. */
static inline int
vertex_sleeps(const struct vertex *v)
{
	return v->last_sys != 0 && syscall_sleeps(str_of(v->last_sys), v->arg);
}
uint32_t	 str_id(const char *);
int		 link_into_next(struct graph *, uint64_t id, struct link **);
/* A vertex in words: whose, when, how long, in which calls and function. */
void		 describe_vertex(struct graph *, uint64_t id, char *, size_t);
/* The same, saying where its process runs (vertex_where), for a headline. */
void		 describe_vertex_in(struct graph *, uint64_t id, char *, size_t);
/* " in unit NAME", " in container ID" (lib/cgroup.h), or "". */
const char	*vertex_where(uint32_t pid, char *, size_t);

/* ask.c: choose among candidate links; -1 means stop. */
enum ask_mode { ASK_TTY, ASK_FILE, ASK_AUTO };
void		 ask_init(enum ask_mode, const char *answers);
int		 ask_link(struct graph *, uint64_t at, struct link **cand, int n,
		    const char **how);
int		 ask_queries(void);
int		 most_recent_link(struct graph *, uint64_t at, struct link **cand,
		    int n);	/* --auto's rule; -1: only untouched threads */

/* walk.c: InteractiveSlicing back from a vertex. */
struct step {
	uint64_t	 vertex;
	struct link	*via;		/* the link followed to the next step */
	const char	*how;
};
struct path {
	struct step	*s;
	int		 n, cap;
	int		 id;
	int		 depth;		/* 0: walked from the hang itself */
	int		 baseline;	/* walked to a baseline's vertex */
};
void		 walk(struct graph *, uint64_t from, uint64_t stop_at,
		    int interactive, struct path *);
uint64_t	 walk_time(void);	/* ns spent walking, questions included */

/* The ENDED of the spin --from makes up: the user chose the vertex. */
#define ENDED_CHOSEN	"chosen"

/*
 * stopped.c: why a thread that does not run (stopped, frozen) holds up
 * whoever waits on it, and by whom, where the trace or the snapshot
 * says; 0 if it runs.
 */
int		 not_running(struct graph *, const struct vertex *, char *,
		    size_t);
/*
 * Stopped by its tracer (a debugger's breakpoint, strace's stop): the
 * tracer lets it go when it chooses, so it is a hop, not the end.
 */
int		 traced_stop(struct graph *, const struct vertex *);

/* diagnose.c */
/* How sure a hop of the chain is (lib/graph.h), as the report says it. */
const char	*evidence_name(enum evidence);
struct culprit;
/* "the kernel says", "the JVM says": a hop's evidence, in buf if need be. */
const char	*culprit_evidence(const struct culprit *, char *buf, size_t);

struct culprit {
	uint64_t	 vertex;
	int		 depth;
	enum root_kind	 kind;
	enum evidence	 ev;		/* that the culprit above waits on it */
	char		 says[RUNTIME_NAMELEN];	/* EV_RUNTIME: the runtime;
						   EV_GUESS: from what */
	int		 multi;		/* one of several it may wait on */
	int		 open;		/* a root only as far as anything says:
					   it waits, for whom nothing names */
	const struct sclass *class;
	char		 why[320];
};
struct diagnosis {
	struct culprit	*c;
	int		 nc, capc;
	struct path	*paths;
	int		 npaths;
	int		 auto_steps;	/* the automatic slice's length */
	int		 found;		/* a cause beyond waiting: exit 0 */
	char		 note[300];
	char		 ended[160];	/* how the hang ended, from outside */
	char		 until[120];	/* "until K killed C": a kill ended it */
};
void		 diagnose(struct graph *, const struct spin_rec *,
		    uint64_t threshold, int interactive, struct diagnosis *);

/*
 * relation.c: who forked whom.  counterpart: the process that stands to
 * now as then stood to base (itself, parent, child or sibling of the same
 * rank), 0 if none; relation says which.  descendants: the processes
 * pid forked after since, and theirs.
 */
uint32_t	 process_parent(struct graph *, uint32_t pid);
/* The vertex of its parent that forked pid, and when; 0 if none seen. */
uint64_t	 fork_vertex(struct graph *, uint32_t pid, uint64_t *when);
/* The last max processes parent forked, in the order it forked them. */
size_t		 process_children(struct graph *, uint32_t parent, uint32_t *,
		    size_t max);
/* The same, of those it forked before pid (pid 0: all). */
size_t		 children_before(struct graph *, uint32_t parent, uint32_t pid,
		    uint32_t *, size_t max);
/*
 * pid was forked by parent at since or after, or by a process so forked
 * (a child's child: the command a session's shell runs).
 */
int		 forked_since(struct graph *, uint32_t pid, uint32_t parent,
		    uint64_t since);
/* The threads and processes thread maker made, as they came; by whom. */
size_t		 made_since(struct graph *, uint32_t maker, uint64_t since,
		    uint64_t until, uint32_t *out, size_t max);
uint32_t	 made_by(struct graph *, uint32_t tid);
uint32_t	 child_before(struct graph *, uint32_t parent, uint32_t then,
		    uint64_t before, uint64_t now);
uint32_t	 counterpart(struct graph *, uint32_t then, uint32_t base,
		    uint32_t now, const char **relation);
size_t		 descendants(struct graph *, uint32_t pid, uint64_t since,
		    uint32_t *out, size_t max);

/* report.c */
void		 report_records(struct graph *, const struct diagnosis *,
		    struct writer *);
/*
 * The order the reports of n spins are shown in: as they came, but of
 * several spins of one thread (a wait that retries on a timer, as a
 * JVM's monitor entry does), the best-founded first, where it is better
 * founded than the first, and of those founded alike the longest (the
 * hang a person noticed, not a slow start on a loaded machine): the
 * headline is the first report's.  Free it.
 */
int		*report_order(const struct spin_rec *, const struct diagnosis *,
		    int n);
/*
 * The headline is the first root.  Where that is an open one (it waits,
 * for whom nothing names) and another root as sure is a cause, the branch
 * that leads to the cause goes first, in the report and its records.
 */
void		 lead_with_cause(struct diagnosis *);
void		 report_text(struct graph *, const struct spin_rec *,
		    const struct diagnosis *, int verbose, FILE *);

/*
 * export.c: every diagnosis of a run into one file of each format; a
 * file is created by export_open and complete at export_close.
 */
enum export_format { EXPORT_DOT, EXPORT_JSON };
struct export;
struct export	*export_open(const char *path, enum export_format);
void		 export_add(struct export *, struct graph *,
		    const struct spin_rec *, const struct diagnosis *);
void		 export_close(struct export *);

#endif
