/*
 * The diagnoses for other tools: Graphviz (--dot) and the Chrome trace
 * events (--json) that the Perfetto UI opens.  Both hold every diagnosis
 * of a run: the vertices of its paths and its chain of culprits, the
 * links the paths follow, and the chain itself ("blocks": a culprit to
 * what it held up, so that a circular wait is drawn as a cycle).  Each
 * vertex and each edge is drawn once, however many paths or diagnoses
 * meet it, so that the file is written whole at export_close, and
 * appears under its name, 0600, then (lib/file.h).
 *
 * The JSON is argus-export -f json's (lib/chrome.h): a track per thread,
 * named; the vertices as slices, each link a flow placed where Perfetto
 * binds it; and, for the threads of the diagnosis, their scheduling
 * slices while its vertices last, cut at vertex boundaries so that
 * slices nest.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "show.h"
#include "slice.h"

#define CHAIN_RULE	"blocks"	/* the chain's edges, in both formats */

struct node {			/* a vertex drawn */
	uint64_t	 id;
	unsigned	 roles;		/* 1 << RK_*: what the diagnoses found it */
	int		 hang;		/* the diagnosis that met it first */
	unsigned	 order;		/* in the order met */
	unsigned	 hops;		/* --dot: links from the chain */
	int		 left_out;	/* --dot: too far from it */
	UT_hash_handle	 hh;
};

struct edge_key {
	uint64_t	 from, to;
	uint32_t	 rule;		/* interned */
};

struct edge {
	struct edge_key	 k;
	const struct link *l;		/* NULL: the chain's */
	int		 hang;
	UT_hash_handle	 hh;
};

struct span {			/* a thread's part in a diagnosis */
	uint32_t	 tid;
	uint64_t	 begin, end;
};

struct export {
	FILE		*fp;
	struct outfile	 file;
	enum export_format format;
	struct graph	*g;
	struct node	*nodes;		/* in the order met */
	struct edge	*edges;		/* in the order met */
	char		**hangs;	/* each diagnosis, said */
	int		 nhangs;
	struct span	*spans;
	size_t		 nspans;
};

struct export *
export_open(const char *path, enum export_format format)
{
	struct export *x = xcalloc(1, sizeof(*x));

	x->fp = outfile_fopen(&x->file, path);
	x->format = format;
	return x;
}

static struct node *
node(struct export *x, uint64_t id, unsigned roles)
{
	struct node *n;

	if (HASH_GET(hh, x->nodes, id, &id, n)) {
		n->hang = x->nhangs;
		n->order = HASH_COUNT(x->nodes) - 1;	/* before it */
	}
	n->roles |= roles;
	return n;
}

static void
edge(struct export *x, uint64_t from, uint64_t to, const char *rule,
    const struct link *l)
{
	struct edge_key k;
	struct edge *e;

	memset(&k, 0, sizeof(k));
	k.from = from;
	k.to = to;
	k.rule = str_id(rule);
	HASH_FIND(hh, x->edges, &k, sizeof(k), e);
	if (e != NULL)
		return;
	e = xcalloc(1, sizeof(*e));
	e->k = k;
	e->l = l;
	e->hang = x->nhangs;
	HASH_ADD(hh, x->edges, k, sizeof(e->k), e);
}

/*
 * What a culprit held up: the one it was found for, the nearest before
 * it in the list a level up (diagnose() finds them depth first).
 */
static int
blocked(const struct diagnosis *d, int i)
{
	int j;

	for (j = i - 1; j >= 0; j--)
		if (d->c[j].depth == d->c[i].depth - 1)
			return j;
	return -1;
}

/*
 * Vertex id's thread takes part in the diagnosis whose spans start at
 * first; [*b, *e] grows to the vertex.
 */
static void
span_add(struct export *x, size_t first, uint64_t id, uint64_t *b,
    uint64_t *e)
{
	struct vertex *v = vertex_get(x->g, id);
	size_t i;

	if (v == NULL)
		return;
	*b = v->begin < *b ? v->begin : *b;
	*e = v->end > *e ? v->end : *e;
	for (i = first; i < x->nspans && x->spans[i].tid != v->tid; i++)
		;
	if (i == x->nspans) {
		x->spans = xrealloc(x->spans, (x->nspans + 1) *
		    sizeof(*x->spans));
		x->spans[x->nspans++].tid = v->tid;
	}
}

void
export_add(struct export *x, struct graph *g, const struct spin_rec *sp,
    const struct diagnosis *d)
{
	const struct step *s;
	size_t first = x->nspans, n;
	uint64_t b = UINT64_MAX, e = 0;
	char hang[SHOW_SIZE(16) + 96];
	int i, j, k;

	x->g = g;
	snprintf(hang, sizeof(hang), "the hang of %s %u/%u, vertex %llu",
	    show(sp->comm), sp->pid, sp->tid, (unsigned long long)sp->vertex);
	for (i = 0; i < d->nc; i++) {
		if (vertex_get(g, d->c[i].vertex) == NULL)
			continue;
		node(x, d->c[i].vertex, 1u << d->c[i].kind);
		span_add(x, first, d->c[i].vertex, &b, &e);
		if ((j = blocked(d, i)) >= 0 &&
		    vertex_get(g, d->c[j].vertex) != NULL)
			edge(x, d->c[i].vertex, d->c[j].vertex, CHAIN_RULE,
			    NULL);
	}
	for (i = 0; i < d->npaths; i++)
		for (k = 0; k < d->paths[i].n; k++) {
			s = &d->paths[i].s[k];
			if (vertex_get(g, s->vertex) == NULL)
				continue;
			node(x, s->vertex, 0);
			span_add(x, first, s->vertex, &b, &e);
			if (s->via == NULL ||
			    vertex_get(g, link_from(s->via)) == NULL)
				continue;
			node(x, link_from(s->via), 0);
			span_add(x, first, link_from(s->via), &b, &e);
			edge(x, link_from(s->via), s->vertex,
			    str_of(link_rule(s->via)), s->via);
		}
	/* Each thread's part: from the diagnosis's first vertex to its last. */
	for (n = first; n < x->nspans; n++) {
		x->spans[n].begin = b;
		x->spans[n].end = e;
	}
	x->hangs = xrealloc(x->hangs, (x->nhangs + 1) * sizeof(*x->hangs));
	x->hangs[x->nhangs++] = xstrdup(hang);
}

/* "victim, cycle": what the diagnoses found a vertex; "" for none. */
static void
roles(unsigned r, char *buf, size_t size)
{
	static const enum root_kind order[] = { RK_VICTIM, RK_ROOT,
	    RK_CULPRIT, RK_CYCLE };
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_LEN(order); i++)
		if (r & (1u << order[i]))
			n += snprintf(buf + n, n < size ? size - n : 0, "%s%s",
			    n ? ", " : "", root_kind_name(order[i]));
}

static const char *
fill(unsigned r)
{
	return r & (1u << RK_VICTIM) ? "lightblue" :
	    r & (1u << RK_ROOT) ? "salmon" : "khaki";
}

/*
 * A diagnosis's graph of a hundred links, drawn left to right, is wider
 * than cairo draws, its labels unreadable.  So the chain goes top
 * down (causes above what they held up), labels are wrapped, the
 * vertices off the chain are context, smaller and grey, and only the
 * DOT_CONTEXT nearest the chain are drawn; a graph label counts the rest.
 * size bounds whatever is left: dot scales a larger drawing down.
 */
#define DOT_WRAP	40	/* characters to a label's line */
#define DOT_CONTEXT	30	/* vertices off the chain drawn at most */
#define DOT_SIZE	"72,72"	/* inches: 6912 pixels at dot's 96 dpi */

/*
 * Text shown in a DOT string or comment: names are already shown
 * (show.h), so only the quote, the backslash (which Graphviz reads as an
 * escape: \N is the node's name, \l a line break) and the end of a
 * comment remain.  A string is broken into lines (\n) of about wrap
 * characters at its spaces, past its first keep bytes (a name, which
 * may hold one); wrap 0: one line.
 */
static void
dot_put(FILE *fp, const char *s, int comment, size_t wrap, size_t keep)
{
	const char *p, *w;
	size_t col = 0, len;

	for (p = s; *p != '\0'; p++) {
		if (wrap > 0 && *p == ' ' && (size_t)(p - s) >= keep && col > 0) {
			for (w = p + 1, len = 0; *w != '\0' && *w != ' '; w++)
				len += ((unsigned char)*w & 0xc0) != 0x80;
			if (col + 1 + len > wrap) {
				fputs("\\n", fp);
				col = 0;
				continue;
			}
		}
		col += ((unsigned char)*p & 0xc0) != 0x80;
		if (comment && p[0] == '*' && p[1] == '/')
			fputs("*\\/", fp);
		else if (!comment && (*p == '"' || *p == '\\'))
			fprintf(fp, "\\%c", *p);
		else
			fputc(*p, fp);
	}
}

static int
by_hops(const void *a, const void *b)
{
	const struct node *p = *(struct node *const *)a;
	const struct node *q = *(struct node *const *)b;

	if (p->hops != q->hops)
		return p->hops < q->hops ? -1 : 1;
	return p->order < q->order ? -1 : p->order > q->order;
}

/*
 * The vertices off the chain, by how many links away from it they are
 * (either way: a path leads to the chain or away from it), in the order
 * met among equals; those past the first DOT_CONTEXT are left out.
 * Returns how many were.
 */
static size_t
dot_context(struct export *x)
{
	struct node *n, *f, *t, **off;
	struct edge *e;
	size_t noff = 0, i;
	int changed;

	for (n = x->nodes; n != NULL; n = n->hh.next)
		n->hops = n->roles ? 0 : UINT_MAX;
	do {
		changed = 0;
		for (e = x->edges; e != NULL; e = e->hh.next) {
			HASH_FIND(hh, x->nodes, &e->k.from, sizeof(e->k.from), f);
			HASH_FIND(hh, x->nodes, &e->k.to, sizeof(e->k.to), t);
			if (f == NULL || t == NULL)
				continue;
			if (f->hops != UINT_MAX && t->hops > f->hops + 1) {
				t->hops = f->hops + 1;
				changed = 1;
			}
			if (t->hops != UINT_MAX && f->hops > t->hops + 1) {
				f->hops = t->hops + 1;
				changed = 1;
			}
		}
	} while (changed);
	off = xmalloc((HASH_COUNT(x->nodes) + 1) * sizeof(*off));
	for (n = x->nodes; n != NULL; n = n->hh.next)
		if (!n->roles)
			off[noff++] = n;
	qsort(off, noff, sizeof(*off), by_hops);
	for (i = DOT_CONTEXT; i < noff; i++)
		off[i]->left_out = 1;
	free(off);
	return noff > DOT_CONTEXT ? noff - DOT_CONTEXT : 0;
}

/* Context: what the eye may skip. */
#define DOT_GREY	", color=grey60, fontcolor=grey35"

static void
dot_node(struct export *x, const struct node *n)
{
	const struct vertex *v = vertex_get(x->g, n->id);
	char desc[320], role[64];

	describe_vertex(x->g, n->id, desc, sizeof(desc));
	roles(n->roles, role, sizeof(role));
	fprintf(x->fp, "\tv%llu [label=\"%s%s", (unsigned long long)n->id,
	    role, *role ? "\\n" : "");
	dot_put(x->fp, desc, 0, DOT_WRAP, v != NULL ?
	    strlen(show(str_of(vertex_comm(v)))) : 0);
	fputc('"', x->fp);
	if (n->roles)
		fprintf(x->fp, ", style=filled, fillcolor=%s", fill(n->roles));
	else
		fputs(", fontsize=10" DOT_GREY, x->fp);
	fputs("];\n", x->fp);
}

/* A link is context unless both its ends are on the chain. */
static void
dot_edge(struct export *x, const struct edge *e, int context)
{
	fprintf(x->fp, "\tv%llu -> v%llu [label=\"",
	    (unsigned long long)e->k.from, (unsigned long long)e->k.to);
	dot_put(x->fp, show(str_of(e->k.rule)), 0, 0, 0);
	/* weight: the chain is drawn straight, the rest around it */
	fprintf(x->fp, "\"%s%s];\n", e->l == NULL ?
	    ", style=bold, color=red, weight=8" :
	    link_weak(e->l) ? ", style=dashed" : "", context ? DOT_GREY : "");
}

static void
write_dot(struct export *x)
{
	char said[160];
	struct node *n, *f, *t;
	struct edge *e;
	size_t left, links = 0;
	int h;

	left = dot_context(x);
	for (e = x->edges; e != NULL; e = e->hh.next) {
		HASH_FIND(hh, x->nodes, &e->k.from, sizeof(e->k.from), f);
		HASH_FIND(hh, x->nodes, &e->k.to, sizeof(e->k.to), t);
		links += f == NULL || t == NULL || f->left_out || t->left_out;
	}
	fprintf(x->fp, "digraph argus {\n\trankdir=TB;\n\tsize=\"%s\";\n"
	    "\tnode [shape=box];\n\tedge [fontsize=10];\n", DOT_SIZE);
	if (left > 0) {
		fprintf(x->fp, "\t/* left out: %zu vertices, %zu links */\n",
		    left, links);
		snprintf(said, sizeof(said), "%zu more vertices of the paths "
		    "and %zu links left out, the farthest from the chain: "
		    "--json draws them all", left, links);
		fputs("\tlabelloc=t;\n\tlabel=\"", x->fp);
		dot_put(x->fp, said, 0, DOT_WRAP * 2, 0);
		fputs("\";\n", x->fp);
	}
	for (h = 0; h < x->nhangs; h++) {
		fputs("\t/* ", x->fp);
		dot_put(x->fp, x->hangs[h], 1, 0, 0);
		fputs(" */\n", x->fp);
		for (n = x->nodes; n != NULL; n = n->hh.next)
			if (n->hang == h && !n->left_out)
				dot_node(x, n);
		for (e = x->edges; e != NULL; e = e->hh.next) {
			if (e->hang != h)
				continue;
			HASH_FIND(hh, x->nodes, &e->k.from, sizeof(e->k.from),
			    f);
			HASH_FIND(hh, x->nodes, &e->k.to, sizeof(e->k.to), t);
			if (f != NULL && t != NULL && !f->left_out &&
			    !t->left_out)
				dot_edge(x, e, !f->roles || !t->roles);
		}
	}
	fputs("}\n", x->fp);
}

static int
by_time(const void *a, const void *b)
{
	const uint64_t *p = a, *q = b;

	return *p < *q ? -1 : *p > *q;
}

static int
by_tid(const void *a, const void *b)
{
	const struct span *p = a, *q = b;

	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

/*
 * Tracks by the names their threads had at the end of the diagnoses
 * they take part in (an exec renames a process: the client a shell
 * forked is named after what it ran, as argus-export names it); a
 * process by its main thread's, else by its first thread's met, once.
 */
static void
json_names(struct export *x, struct chrome *c)
{
	struct vertex *v;
	const char *comm, *process;
	uint32_t *pids = xmalloc((x->nspans + 1) * sizeof(*pids));
	size_t i, j, k, npids = 0;
	uint64_t end;

	for (i = 0; i < x->nspans; i = j) {
		end = 0;
		for (j = i; j < x->nspans && x->spans[j].tid == x->spans[i].tid;
		    j++)
			end = x->spans[j].end > end ? x->spans[j].end : end;
		if ((v = vertex_get(x->g, vertex_at(x->g, x->spans[i].tid,
		    x->spans[i].begin))) == NULL)
			continue;
		comm = thread_name_at(x->g, v->tid, end);
		if (comm == NULL)
			comm = str_of(vertex_comm(v));
		for (k = 0; k < npids && pids[k] != v->pid; k++)
			;
		process = NULL;
		if (k == npids) {
			pids[npids++] = v->pid;
			if ((process = thread_name_at(x->g, v->pid, end)) == NULL)
				process = comm;
		}
		chrome_names(c, v->pid, v->tid, comm, process);
	}
	free(pids);
}

/* The vertices drawn, as slices. */
static void
json_vertices(struct export *x, struct chrome *c)
{
	char role[64], name[96], desc[320], *args;
	struct vertex *v;
	struct node *n;
	size_t len;
	FILE *m;

	for (n = x->nodes; n != NULL; n = n->hh.next) {
		if ((v = vertex_get(x->g, n->id)) == NULL)
			continue;
		roles(n->roles, role, sizeof(role));
		snprintf(name, sizeof(name), "%s%sv%llu", role, *role ? ": " :
		    "", (unsigned long long)n->id);
		describe_vertex(x->g, n->id, desc, sizeof(desc));
		m = open_memstream(&args, &len);
		fprintf(m, "\"vertex\":%llu,\"oncpu_us\":%.1f,\"role\":",
		    (unsigned long long)n->id, vertex_oncpu(v) / 1e3);
		chrome_str(m, role);
		fputs(",\"what\":", m);
		chrome_str(m, desc);
		fclose(m);
		chrome_slice(c, v->pid, v->tid, v->begin, v->end, name, args);
		free(args);
	}
}

/* The scheduling slices of each thread that meet its spans. */
static void
json_running(struct export *x, struct chrome *c)
{
	const struct chrome_run *r;
	uint64_t *cuts = xmalloc((2 * HASH_COUNT(x->nodes) + 1) *
	    sizeof(*cuts));
	size_t i, j, k, n, ncuts;
	struct vertex *v;
	struct node *nd;
	uint32_t pid;

	for (i = 0; i < x->nspans; i = j) {
		for (j = i; j < x->nspans && x->spans[j].tid == x->spans[i].tid;
		    j++)
			;
		ncuts = 0;
		pid = 0;
		for (nd = x->nodes; nd != NULL; nd = nd->hh.next)
			if ((v = vertex_get(x->g, nd->id)) != NULL &&
			    v->tid == x->spans[i].tid) {
				cuts[ncuts++] = v->begin;
				cuts[ncuts++] = v->end;
				pid = v->pid;
			}
		qsort(cuts, ncuts, sizeof(*cuts), by_time);
		r = chrome_runs_of(&x->g->runs, x->spans[i].tid, &n);
		for (; n > 0; r++, n--)
			for (k = i; k < j; k++)
				if (r->end >= x->spans[k].begin &&
				    r->begin <= x->spans[k].end) {
					chrome_running(c, pid, r->tid, r->begin,
					    r->end, r->cpu, cuts, ncuts);
					break;
				}
	}
	free(cuts);
}

static void
json_flows(struct export *x, struct chrome *c, unsigned long *reversed)
{
	const struct vertex *f, *t, *a, *b;
	unsigned long id = 0;
	uint64_t s_ts, f_ts;
	struct edge *e;
	char *args;
	size_t len;
	FILE *m;
	int rev;

	for (e = x->edges; e != NULL; e = e->hh.next) {
		if ((f = vertex_get(x->g, e->k.from)) == NULL ||
		    (t = vertex_get(x->g, e->k.to)) == NULL)
			continue;
		/* The chain's: while both wait, the culprit holds it up. */
		rev = chrome_flow_place(f->begin, f->end, t->begin, t->end,
		    e->l != NULL ? link_time(e->l) : t->begin, &s_ts, &f_ts);
		a = rev ? t : f;
		b = rev ? f : t;
		m = open_memstream(&args, &len);
		fprintf(m, "\"from\":%llu,\"to\":%llu",
		    (unsigned long long)e->k.from, (unsigned long long)e->k.to);
		if (e->l != NULL) {
			fprintf(m, ",\"strength\":\"%s\",\"label\":",
			    link_weak(e->l) ? "weak" : "strong");
			chrome_str(m, str_of(link_label(e->l)));
		}
		if (rev)
			fputs(",\"reversed\":true", m);
		fclose(m);
		chrome_flow(c, ++id, e->l != NULL ? "link" : "chain",
		    str_of(e->k.rule), a->pid, a->tid, s_ts, b->pid, b->tid,
		    f_ts, args);
		free(args);
		*reversed += rev;
	}
}

static void
write_json(struct export *x)
{
	unsigned long reversed = 0;
	struct chrome c;
	char *other;
	size_t len;
	FILE *m;
	int h;

	if (x->nspans > 1)
		qsort(x->spans, x->nspans, sizeof(*x->spans), by_tid);
	chrome_open(&c, x->fp);
	json_names(x, &c);
	json_vertices(x, &c);
	json_running(x, &c);
	json_flows(x, &c, &reversed);
	m = open_memstream(&other, &len);
	fputs("\"source\":\"argus-slice " ARGUS_VERSION "\",\"hangs\":[", m);
	for (h = 0; h < x->nhangs; h++) {
		fputs(h ? "," : "", m);
		chrome_str(m, x->hangs[h]);
	}
	fprintf(m, "],\"vertices\":%u,\"flows\":%u,\"flows_reversed\":%lu",
	    HASH_COUNT(x->nodes), HASH_COUNT(x->edges), reversed);
	fclose(m);
	chrome_close(&c, other);
	free(other);
}

void
export_close(struct export *x)
{
	int h;

	if (x->format == EXPORT_DOT)
		write_dot(x);
	else
		write_json(x);
	outfile_fclose(x->fp, &x->file);
	HASH_FREE(hh, x->nodes);
	HASH_FREE(hh, x->edges);
	for (h = 0; h < x->nhangs; h++)
		free(x->hangs[h]);
	free(x->hangs);
	free(x->spans);
	free(x);
}
