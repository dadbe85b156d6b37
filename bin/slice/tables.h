/*
 * argus-slice's vertices and links, packed, and the tables that hold what
 * does not fit in them: graph.c fills the tables as it reads the graph,
 * and the accessors below read them on every walk of it, inline.
 */
#ifndef ARGUS_SLICE_TABLES_H
#define ARGUS_SLICE_TABLES_H

#include <stddef.h>
#include <stdint.h>

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
enum { VF_ID, VF_ONCPU, VF_RUNNABLE, VF_BEGAN, VF_ENDED, VF_WHERE, VF_COMM,
    VF_REAP };	/* 8 at most: the table's key */

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
	uint8_t		 exits_itself:1;	/* event_exits_itself() in it */
	uint8_t		 private_wait:1;	/* that call waits on a private
						   futex, no timeout */
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
/* Sets it, for the vertex at that place in v. */
void		 vertex_far_set(uint32_t place, int field, uint64_t);

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

/* A BEGAN_BY or ENDED_BY word, interned, by its place in the words met. */
static inline uint32_t
vertex_word(const struct vertex *v, uint8_t at, int field)
{
	return at != VX_FAR_WORD ? graph_tables.words[at] :
	    (uint32_t)vertex_far(v, field);
}

static inline uint32_t
vertex_began(const struct vertex *v)
{
	return vertex_word(v, v->began, VF_BEGAN);
}

static inline uint32_t
vertex_ended(const struct vertex *v)
{
	return vertex_word(v, v->ended, VF_ENDED);
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

#endif
