/*
 * argus-slice: the paper's Algorithm 1.  graph.c holds the event graph
 * (every vertex and link of the stream, small enough for the paper's 2.7 M
 * vertices), ask.c asks the user where the graph is ambiguous (or reads
 * the answers from a file, or decides by rule), walk.c is
 * InteractiveSlicing, diagnose.c is Diagnose, report.c and export.c say
 * what was found.
 */
#ifndef ARGUS_SLICE_H
#define ARGUS_SLICE_H

#include <stdint.h>
#include <stdio.h>

#include "event.h"
#include "util.h"

#define VSYSCALLS	6	/* distinct system calls kept per vertex */

struct vertex {
	uint64_t	 begin, end, oncpu;
	uint32_t	 pid, tid;
	uint32_t	 comm, began_by, ended_by;	/* interned */
	uint32_t	 nevents;
	int32_t		 in;		/* first incoming link, -1 if none */
	uint16_t	 sys[VSYSCALLS];	/* interned names, 0: none */
	uint16_t	 last_sys;	/* its last system call, where it waits */
	uint64_t	 last_arg;	/* and that call's first argument */
	uint8_t		 lock;		/* that call waits for a mutex */
	uint32_t	 where;		/* interned: its program's innermost
					   function on its last user stack */
	char		 wait;		/* blocked state letter, 0 if none */
	uint8_t		 seen;		/* its vertex record was read */
};

struct link {
	uint64_t	 from, to, from_time, time;
	unsigned long	 line;		/* where it was read, for messages */
	const char	*file;
	uint32_t	 rule, label;	/* interned */
	int32_t		 next_in;	/* next link into the same vertex */
	uint8_t		 weak;
};

struct spin {
	uint64_t	 vertex, last, begin, end, oncpu, waker;
	uint32_t	 pid, tid;
	char		 class[16], ended[16];
};

struct baseline {
	uint64_t	 spin, vertex, waker;
	int		 rank;
	double		 score;
	char		 reason[160];
};

struct graph {
	struct vertex	*v;		/* by id; v[0] unused */
	uint64_t	 nv;
	struct link	*l;
	int32_t		 nl, capl;
	struct spin	*spins;
	int		 nspins;
	struct baseline	*bases;
	int		 nbases;
	uint64_t	 *by_thread;	/* vertex ids sorted by (tid, begin) */
	uint64_t	  nby;
	uint64_t	 first_time, last_time;
};

/* graph.c */
void		 graph_read(struct graph *, struct source *, struct writer *);
struct vertex	*vertex_get(struct graph *, uint64_t id);	/* NULL if unknown */
uint64_t	 vertex_at(struct graph *, uint32_t tid, uint64_t t);
uint64_t	 vertex_next(struct graph *, uint64_t id);	/* same thread */
const char	*str_of(uint32_t);
uint32_t	 str_id(const char *);
int		 link_into_next(struct graph *, uint64_t id, struct link **);

/* ask.c: choose among candidate links; -1 means stop. */
enum ask_mode { ASK_TTY, ASK_FILE, ASK_AUTO };
void		 ask_init(enum ask_mode, const char *answers);
int		 ask_link(struct graph *, uint64_t at, struct link **cand, int n,
		    const char **how);
int		 ask_yes(const char *question, int auto_answer, const char **how);
int		 ask_queries(void);
int		 most_recent_link(struct link **cand, int n);	/* --auto's rule */

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
};
void		 walk(struct graph *, uint64_t from, uint64_t stop_at,
		    int interactive, struct path *);
uint64_t	 walk_time(void);	/* ns spent walking, questions included */

/* diagnose.c */
struct culprit {
	uint64_t	 vertex;
	int		 depth;
	const char	*kind;		/* "culprit", "root", "cycle", "victim" */
	char		 class[16];
	char		 why[200];
};
struct diagnosis {
	struct culprit	*c;
	int		 nc, capc;
	struct path	*paths;
	int		 npaths;
	int		 auto_steps;	/* the automatic slice's length */
	char		 note[300];
};
void		 diagnose(struct graph *, const struct spin *, uint64_t threshold,
		    struct diagnosis *);
void		 diagnose_interactive(int);

/* report.c */
void		 report_records(struct graph *, const struct diagnosis *,
		    struct writer *);
void		 report_text(struct graph *, const struct spin *,
		    const struct diagnosis *, FILE *);
void		 describe_vertex(struct graph *, uint64_t id, char *, size_t);

/* export.c */
void		 export_dot(struct graph *, const struct diagnosis *, const char *);
void		 export_json(struct graph *, const struct diagnosis *, const char *);

#endif
