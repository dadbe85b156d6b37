/*
 * argus-slice: the paper's Algorithm 1.  graph.c holds the event graph
 * (every vertex and link of the stream, small enough for the millions of
 * vertices of the paper's cases), ask.c asks the user where the graph is ambiguous (or reads
 * the answers from a file, or decides by rule), walk.c is
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

#define VSYSCALLS	6	/* distinct system calls kept per vertex */

/*
 * A vertex is kept small, since a graph has millions of them: what few
 * vertices have (a function named by a stack record) and values
 * too big for their field (an id past 2^32, a time on a CPU past 4 s, a
 * 256th BEGAN_BY word, a 65536th name) are in a table by place, which
 * vertex_far() reads; its last call's first argument is itself if under
 * 2^31, else its place among the big ones met, so that two are equal as
 * their arguments are.
 */
#define VX_FAR		UINT32_MAX	/* id, oncpu, runnable: in the table */
#define VX_FAR_WORD	UINT8_MAX	/* began, ended: in the table */
#define VX_FAR_COMM	UINT16_MAX	/* comm_at: in the table */
#define VX_BIG_ARG	0x80000000u	/* arg: a big one's place */
enum { VF_ID, VF_ONCPU, VF_RUNNABLE, VF_BEGAN, VF_ENDED, VF_WHERE, VF_COMM };

struct vertex {
	uint32_t	 id32;		/* the id; VX_FAR: vertex_id() */
	uint64_t	 begin, end;
	uint32_t	 oncpu;		/* ns; VX_FAR: vertex_oncpu() */
	uint32_t	 runnable;	/* preempted: the same */
	uint32_t	 arg;		/* its last call's first argument */
	uint32_t	 pid, tid;
	uint16_t	 comm_at;	/* COMM's place: vertex_comm() */
	int32_t		 in;		/* first incoming link, -1 if none */
	uint16_t	 sys[VSYSCALLS];	/* interned names, 0: none; the
					   first calls, the last one last */
	uint16_t	 last_sys;	/* its last system call, where it waits */
	uint8_t		 began, ended;	/* BEGAN_BY, ENDED_BY: vertex_began() */
	uint8_t		 lock:1;	/* that call waits for a mutex */
	uint8_t		 seen:1;	/* its vertex record was read */
	uint8_t		 more_sys:1;	/* calls between sys[] and its last */
	uint8_t		 has_where:1;	/* a stack record named its function */
	char		 wait;		/* blocked state letter, 0 if none */
} __attribute__((packed, aligned(2)));

/*
 * A link is kept small, since a graph has millions of them: its ends are
 * places in the graph's vertex array, not ids; its rule one of
 * the few rules met, whose LR_* the rules' table holds; its FROM_TIME the
 * distance from a time its block of links shares (a link is written soon
 * after its FROM event, so the links of a block are close in time); its
 * label, which few links have, in a table of its own.  link_from(),
 * link_to(), link_rule(), link_time() and the others read them, once the
 * graph is read.
 */
#define LINK_BLOCK	256		/* links that share a base time */
#define LINK_FAR	INT32_MIN	/* FROM_TIME too far: in a table */
#define LK_RULE		0x3fff		/* rule: its place in the rules met */
#define LK_WEAK		0x4000
#define LK_LABEL	0x8000		/* it has a label */
struct link {
	uint32_t	 from_at, to_at;	/* places in v; 0: none */
	int32_t		 next_in;	/* next link into the same vertex */
	int32_t		 dt;		/* FROM_TIME less the block's base */
	uint16_t	 rule;		/* LK_* */
} __attribute__((packed, aligned(2)));

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
	char		 stop;		/* 'T', 't' stopped; 'F' frozen; 0 */
	uint32_t	 freezer;	/* interned "freezer:CGROUP" if frozen */
	uint64_t	 since;		/* when it last ran */
};

struct graph {
	struct vertex	*v;		/* in the order met; v[0] unused */
	uint64_t	 nv, capv;
	uint32_t	*at;		/* id -> place in v: open addressing on
					   vertex_id(), 0 an empty slot */
	unsigned	 bits;		/* 2^bits slots */
	struct link	*l;
	int32_t		 nl, capl;
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
	struct sentfd	*sent;		/* vertex_sent_fd()'s, by vertex */
	uint64_t	 snap_time;
	struct chrome_runs runs;	/* scheduling slices, with GR_RUNS */
	struct names	*names;		/* threads' names over time */
	int		 spun;		/* argus-spin ran (its summary) */
	char		*provider_errors[8];	/* what a runtime did not say */
	int		 nprovider_errors;
};

/*
 * The one graph read (graph_read() sets it): a link's ends are places in
 * its vertex array, its rule and the rest of it are in its tables.
 */
struct link_far {
	uint32_t	 k;		/* the link's place in l */
	uint32_t	 v32;		/* its label */
	uint64_t	 v64;		/* its FROM_TIME */
};
struct tables {
	struct vertex	*v;
	struct link	*l;
	uint32_t	*rules;		/* the rules met, interned */
	uint8_t		*props;		/* and their LR_* */
	uint32_t	*words;		/* the BEGAN_BY, ENDED_BY words met */
	uint32_t	*comms;		/* the COMMs met */
	uint64_t	*base;		/* each block's base time */
	struct link_far	*far, *labels;	/* by k: far times, labels */
	size_t		 nfar, nlabels;
};
extern struct tables graph_tables;

/* The value of field (VF_*) of the vertex in the table; 0 if none. */
uint64_t	 vertex_far(const struct vertex *, int field);

static inline uint64_t
vertex_id(const struct vertex *v)
{
	return v->id32 != VX_FAR ? v->id32 : vertex_far(v, VF_ID);
}

/* Its thread's name, interned. */
static inline uint32_t
vertex_comm(const struct vertex *v)
{
	return v->comm_at != VX_FAR_COMM ? graph_tables.comms[v->comm_at] :
	    (uint32_t)vertex_far(v, VF_COMM);
}

static inline uint64_t
vertex_oncpu(const struct vertex *v)
{
	return v->oncpu != VX_FAR ? v->oncpu : vertex_far(v, VF_ONCPU);
}

static inline uint64_t
vertex_runnable(const struct vertex *v)
{
	return v->runnable != VX_FAR ? v->runnable :
	    vertex_far(v, VF_RUNNABLE);
}

/* BEGAN_BY and ENDED_BY, interned. */
static inline uint32_t
vertex_began(const struct vertex *v)
{
	return v->began != VX_FAR_WORD ? graph_tables.words[v->began] :
	    (uint32_t)vertex_far(v, VF_BEGAN);
}

static inline uint32_t
vertex_ended(const struct vertex *v)
{
	return v->ended != VX_FAR_WORD ? graph_tables.words[v->ended] :
	    (uint32_t)vertex_far(v, VF_ENDED);
}

/* Interned: its program's innermost function on its last user stack. */
static inline uint32_t
vertex_function(const struct vertex *v)
{
	return v->has_where ? (uint32_t)vertex_far(v, VF_WHERE) : 0;
}

/* A table's entry for link k; NULL if none. */
const struct link_far *link_far_find(const struct link_far *, size_t n,
		    uint32_t k);

/* The interned name of a link's rule. */
static inline uint32_t
link_rule(const struct link *l)
{
	return graph_tables.rules[l->rule & LK_RULE];
}

/* The rule's LR_* */
static inline unsigned
link_props(const struct link *l)
{
	return graph_tables.props[l->rule & LK_RULE];
}

static inline int
link_weak(const struct link *l)
{
	return (l->rule & LK_WEAK) != 0;
}

/* Its LABEL, interned. */
static inline uint32_t
link_label(const struct link *l)
{
	if (!(l->rule & LK_LABEL))
		return 0;
	return link_far_find(graph_tables.labels, graph_tables.nlabels,
	    l - graph_tables.l)->v32;
}

/* Its FROM_TIME. */
static inline uint64_t
link_time(const struct link *l)
{
	uint32_t k = l - graph_tables.l;

	if (l->dt == LINK_FAR)
		return link_far_find(graph_tables.far, graph_tables.nfar,
		k)->v64;
	return graph_tables.base[k / LINK_BLOCK] + (int64_t)l->dt;
}

/* The id of a link's source vertex, 0 if it has none. */
static inline uint64_t
link_from(const struct link *l)
{
	return l->from_at != 0 ? vertex_id(&graph_tables.v[l->from_at]) : 0;
}

static inline uint64_t
link_to(const struct link *l)
{
	return l->to_at != 0 ? vertex_id(&graph_tables.v[l->to_at]) : 0;
}

/* graph.c: the graph read from a stage opened with graph_stage; flags: */
#define GR_RUNS		0x2	/* keep the scheduling slices, for --json */
extern const struct stage_ops graph_stage;
void		 graph_read(struct graph *, struct stage *, int flags);
struct vertex	*vertex_get(struct graph *, uint64_t id);	/* NULL if unknown */
uint64_t	 vertex_at(struct graph *, uint32_t tid, uint64_t t);
int		 reads_terminal(const struct graph *, uint32_t tid);
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
const char	*thread_name_at(struct graph *, uint32_t tid, uint64_t t);
const char	*str_of(uint32_t);
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
	char		 says[RUNTIME_NAMELEN];	/* EV_RUNTIME: the runtime */
	int		 multi;		/* one of several it may wait on */
	int		 open;		/* a root only as far as anything says:
					   it waits, for whom nothing names */
	const struct sclass *class;
	char		 why[200];
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
 * rank), 0 if none; relation says which.
 */
uint32_t	 process_parent(struct graph *, uint32_t pid);
uint32_t	 child_before(struct graph *, uint32_t parent, uint32_t then,
		    uint64_t before, uint64_t now);
uint32_t	 counterpart(struct graph *, uint32_t then, uint32_t base,
		    uint32_t now, const char **relation);

/* report.c */
void		 report_records(struct graph *, const struct diagnosis *,
		    struct writer *);
/*
 * The order the reports of n spins are shown in: as they came, but of
 * several spins of one thread (a wait that retries on a timer, as a
 * JVM's monitor entry does), the best-founded first, where it is better
 * founded than the first: the headline is the first report's.  Free it.
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
