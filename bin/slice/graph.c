/*
 * The event graph in memory.  Vertex ids are dense (argus-segment numbers
 * them from 1), so vertices live in an array indexed by id; links are an
 * array too, chained per destination.  Strings (names, rules, system
 * calls) are interned: the paper's 2.7 M vertices fit in a few hundred MB.
 */
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "slice.h"

struct str {
	char		*s;
	uint32_t	 id;
	UT_hash_handle	 hh;
};

static struct str	*strs;
static char		**by_id;
static uint32_t		 nstrs = 1;	/* 0 is "" */

uint32_t
str_id(const char *s)
{
	struct str *e;

	if (*s == '\0')
		return 0;
	HASH_FIND_STR(strs, s, e);
	if (e != NULL)
		return e->id;
	e = xcalloc(1, sizeof(*e));
	e->s = xstrdup(s);
	e->id = nstrs++;
	HASH_ADD_KEYPTR(hh, strs, e->s, strlen(e->s), e);
	by_id = xrealloc(by_id, nstrs * sizeof(*by_id));
	by_id[e->id] = e->s;
	return e->id;
}

const char *
str_of(uint32_t id)
{
	return id == 0 || id >= nstrs ? "" : by_id[id];
}

static struct vertex *
vertex_make(struct graph *g, uint64_t id)
{
	uint64_t n;

	if (id == 0 || id > (1ULL << 32))
		return NULL;
	if (id >= g->nv) {
		n = g->nv ? g->nv : 1024;
		while (n <= id)
			n *= 2;
		g->v = xrealloc(g->v, n * sizeof(*g->v));
		memset(g->v + g->nv, 0, (n - g->nv) * sizeof(*g->v));
		for (; g->nv < n; g->nv++)
			g->v[g->nv].in = -1;
	}
	return &g->v[id];
}

struct vertex *
vertex_get(struct graph *g, uint64_t id)
{
	if (id == 0 || id >= g->nv || !g->v[id].seen)
		return NULL;
	return &g->v[id];
}

static void
add_syscall(struct vertex *v, const char *name)
{
	uint32_t id = str_id(name);
	int i;

	for (i = 0; i < VSYSCALLS && v->sys[i] != 0; i++)
		if (v->sys[i] == id)
			return;
	if (i < VSYSCALLS && id < 65536)
		v->sys[i] = id;
}

/* Each thread's latest vertex, for the stack records that follow. */
struct current {
	uint32_t	 tid;
	uint64_t	 vertex;
	UT_hash_handle	 hh;
};

static struct current *currents;

static void
note_current(uint32_t tid, uint64_t vertex)
{
	struct current *c;

	HASH_FIND(hh, currents, &tid, sizeof(tid), c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		c->tid = tid;
		HASH_ADD(hh, currents, tid, sizeof(c->tid), c);
	}
	c->vertex = vertex;
}

/* A stack record names where the thread's current vertex waits. */
static void
read_stack(struct graph *g, const struct record *rec)
{
	struct current *c;
	struct vertex *v;
	uint64_t tid;
	char fn[128];

	if (!record_u64_opt(rec, COL_TID, &tid) ||
	    !stack_function(rec, fn, sizeof(fn)))
		return;
	HASH_FIND(hh, currents, &(uint32_t){ tid }, sizeof(uint32_t), c);
	if (c != NULL && (v = vertex_make(g, c->vertex)) != NULL)
		v->where = str_id(fn);
}

static void
read_vertex(struct graph *g, const struct record *rec)
{
	struct vertex *v = vertex_make(g, record_u64(rec, 4));

	if (v == NULL)
		diex(EX_DATAERR, "%s:%lu: vertex id out of range", rec->file,
		    rec->line);
	v->pid = record_u64(rec, COL_PID);
	v->tid = record_u64(rec, COL_TID);
	v->begin = record_u64(rec, 5);
	v->end = record_u64(rec, 6);
	v->oncpu = record_u64(rec, 7);
	v->nevents = record_u64(rec, 8);
	v->began_by = str_id(record_str(rec, 9));
	v->ended_by = str_id(record_str(rec, 10));
	v->wait = record_str(rec, 11)[0];
	v->comm = str_id(record_str(rec, 12));
	v->seen = 1;
}

static void
read_link(struct graph *g, const struct record *rec)
{
	struct link *l;

	if (g->nl == g->capl) {
		g->capl = g->capl ? 2 * g->capl : 4096;
		g->l = xrealloc(g->l, g->capl * sizeof(*g->l));
	}
	l = &g->l[g->nl];
	l->time = rec->time;
	l->from = record_u64(rec, 4);
	l->to = record_u64(rec, 5);
	l->weak = strcmp(record_str(rec, 6), "weak") == 0;
	l->rule = str_id(record_str(rec, 7));
	l->from_time = record_u64(rec, 8);
	l->label = str_id(record_str(rec, 11));
	l->line = rec->line;
	l->file = str_of(str_id(rec->file));
	g->nl++;
}

static void
read_spin(struct graph *g, const struct record *rec)
{
	struct spin *s;

	g->spins = xrealloc(g->spins, (g->nspins + 1) * sizeof(*g->spins));
	s = &g->spins[g->nspins++];
	memset(s, 0, sizeof(*s));
	s->pid = record_u64(rec, COL_PID);
	s->tid = record_u64(rec, COL_TID);
	s->vertex = record_u64(rec, 4);
	snprintf(s->class, sizeof(s->class), "%s", record_str(rec, 5));
	s->begin = record_u64(rec, 6);
	s->end = record_u64(rec, 7);
	s->oncpu = record_u64(rec, 8);
	snprintf(s->ended, sizeof(s->ended), "%s", record_str(rec, 10));
	record_u64_opt(rec, 11, &s->waker);
	if (!record_u64_opt(rec, 12, &s->last))
		s->last = s->vertex;
}

static void
read_baseline(struct graph *g, const struct record *rec)
{
	struct baseline *b;

	g->bases = xrealloc(g->bases, (g->nbases + 1) * sizeof(*g->bases));
	b = &g->bases[g->nbases++];
	b->spin = record_u64(rec, 4);
	b->vertex = record_u64(rec, 5);
	b->rank = record_u64(rec, 6);
	b->score = strtod(record_str(rec, 7), NULL);
	record_u64_opt(rec, 8, &b->waker);
	snprintf(b->reason, sizeof(b->reason), "%s", record_str(rec, 9));
}

static struct graph *sort_graph;

static int
by_thread_cmp(const void *a, const void *b)
{
	const struct vertex *x = &sort_graph->v[*(const uint64_t *)a];
	const struct vertex *y = &sort_graph->v[*(const uint64_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return 0;
}

/* Everything passes on; what the graph needs is kept on the way. */
void
graph_read(struct graph *g, struct source *src, struct writer *out)
{
	const struct record *rec;
	struct vertex *v;
	struct event ev;
	uint64_t i, n;
	int32_t k;

	memset(g, 0, sizeof(*g));
	while ((rec = source_next(src)) != NULL) {
		writer_record(out, rec);
		if (rec->time != NO_TIME) {
			if (g->first_time == 0)
				g->first_time = rec->time;
			g->last_time = rec->time;
		}
		if (rec->comment)
			continue;
		if (event_parse(rec, &ev)) {
			if (ev.ctx == '-' && ev.vertex != NO_VERTEX &&
			    ev.vertex != UNSEGMENTED)
				note_current(ev.tid, ev.vertex);
			if (ev.type == E_SYS_ENTER && ev.vertex != NO_VERTEX &&
			    ev.vertex != UNSEGMENTED &&
			    (v = vertex_make(g, ev.vertex)) != NULL) {
				add_syscall(v, event_str(&ev, 1));
				v->last_sys = str_id(event_str(&ev, 1));
				v->last_arg = strtoull(event_str(&ev, 2), NULL, 0);
				v->lock = syscall_is_lock_wait(&ev);
			}
		} else if (strcmp(rec->f[0], "vertex") == 0)
			read_vertex(g, rec);
		else if (strcmp(rec->f[0], "link") == 0)
			read_link(g, rec);
		else if (strcmp(rec->f[0], "spin") == 0)
			read_spin(g, rec);
		else if (strcmp(rec->f[0], "baseline") == 0)
			read_baseline(g, rec);
		else if (strcmp(rec->f[0], "stack") == 0)
			read_stack(g, rec);
	}
	/* Chain links by destination; a link to a vertex never seen is bad. */
	for (k = 0; k < g->nl; k++) {
		if ((v = vertex_get(g, g->l[k].to)) == NULL ||
		    (g->l[k].from != 0 && vertex_get(g, g->l[k].from) == NULL))
			diex(EX_DATAERR, "%s:%lu: link %llu -> %llu refers to a "
			    "vertex the stream never introduced", g->l[k].file,
			    g->l[k].line, (unsigned long long)g->l[k].from,
			    (unsigned long long)g->l[k].to);
		g->l[k].next_in = v->in;
		v->in = k;
	}
	g->by_thread = xmalloc(g->nv * sizeof(*g->by_thread));
	for (i = 1, n = 0; i < g->nv; i++)
		if (g->v[i].seen)
			g->by_thread[n++] = i;
	g->nby = n;
	sort_graph = g;
	qsort(g->by_thread, n, sizeof(*g->by_thread), by_thread_cmp);
}

/* The first of tid's vertices in by_thread, by binary search. */
static uint64_t
first_of(struct graph *g, uint32_t tid, uint64_t n)
{
	uint64_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (g->v[g->by_thread[mid]].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* tid's vertex that spans t, or the first after it; 0 if none. */
uint64_t
vertex_at(struct graph *g, uint32_t tid, uint64_t t)
{
	uint64_t n = g->nby, i;
	struct vertex *v;

	for (i = first_of(g, tid, n); i < n; i++) {
		v = &g->v[g->by_thread[i]];
		if (v->tid != tid)
			break;
		if (v->end >= t)
			return g->by_thread[i];
	}
	return 0;
}

uint64_t
vertex_next(struct graph *g, uint64_t id)
{
	struct vertex *v = vertex_get(g, id);
	uint64_t n = g->nby, i;

	if (v == NULL)
		return 0;
	for (i = first_of(g, v->tid, n); i < n && g->v[g->by_thread[i]].tid ==
	    v->tid; i++)
		if (g->by_thread[i] == id)
			return i + 1 < n && g->v[g->by_thread[i + 1]].tid ==
			    v->tid ? g->by_thread[i + 1] : 0;
	return 0;
}

/* The link that woke the thread after vertex id: not program order. */
int
link_into_next(struct graph *g, uint64_t id, struct link **out)
{
	uint64_t next = vertex_next(g, id);
	struct vertex *v;
	int32_t k;

	if (next == 0 || (v = vertex_get(g, next)) == NULL)
		return 0;
	for (k = v->in; k >= 0; k = g->l[k].next_in) {
		if (strcmp(str_of(g->l[k].rule), "order") == 0 ||
		    strcmp(str_of(g->l[k].rule), "wait") == 0)
			continue;
		*out = &g->l[k];
		return 1;
	}
	return 0;
}
