/*
 * The diagnoses for other tools: Graphviz (--dot) for the paths, and the
 * Chrome trace-event format (--json) that the Perfetto UI opens: threads
 * as tracks, the paths' vertices as slices, their links as flow arrows.
 * Every diagnosis of a run goes into the one file of each format, which
 * appears under its name, 0600, when the run ends (lib/file.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slice.h"

struct export {
	FILE		*fp;
	struct outfile	 file;
	const char	*path;
	enum export_format format;
	int		 first;		/* no JSON event written yet */
	int		 flow;		/* JSON flow arrows so far */
};

struct export *
export_open(const char *path, enum export_format format)
{
	struct export *x = xcalloc(1, sizeof(*x));

	x->fp = outfile_fopen(&x->file, path);
	x->path = path;
	x->format = format;
	x->first = 1;
	if (format == EXPORT_DOT)
		fprintf(x->fp, "digraph argus {\n\trankdir=RL;\n"
		    "\tnode [shape=box];\n");
	else
		fprintf(x->fp, "{\"traceEvents\":[");
	return x;
}

static void
add_dot(struct export *x, struct graph *g, const struct spin_rec *sp,
    const struct diagnosis *d)
{
	const struct step *s;
	struct vertex *v;
	char desc[320];
	int i, k;

	fprintf(x->fp, "\t/* the hang of %s %u/%u, vertex %llu */\n",
	    sp->comm, sp->pid, sp->tid, (unsigned long long)sp->vertex);
	for (i = 0; i < d->nc; i++)
		fprintf(x->fp, "\tv%llu [style=filled, fillcolor=%s];\n",
		    (unsigned long long)d->c[i].vertex,
		    d->c[i].kind == RK_VICTIM ? "lightblue" :
		    d->c[i].kind == RK_ROOT ? "salmon" : "khaki");
	for (i = 0; i < d->npaths; i++)
		for (k = 0; k < d->paths[i].n; k++) {
			s = &d->paths[i].s[k];
			v = vertex_get(g, s->vertex);
			describe_vertex(g, s->vertex, desc, sizeof(desc));
			for (char *c = desc; *c; c++)
				if (*c == '"')
					*c = '\'';
			fprintf(x->fp, "\tv%llu [label=\"%s\"];\n",
			    (unsigned long long)s->vertex, desc);
			if (s->via != NULL && v != NULL)
				fprintf(x->fp, "\tv%llu -> v%llu [label=\"%s\"%s];\n",
				    (unsigned long long)s->via->from,
				    (unsigned long long)s->vertex,
				    str_of(s->via->rule),
				    s->via->weak ? ", style=dashed" : "");
		}
}

static void
json_slice(struct export *x, struct graph *g, uint64_t id)
{
	struct vertex *v = vertex_get(g, id);

	if (v == NULL)
		return;
	fprintf(x->fp, "%s\n{\"name\":\"vertex %llu\",\"cat\":\"argus\","
	    "\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
	    "\"args\":{\"oncpu_us\":%.1f}}", x->first ? "" : ",",
	    (unsigned long long)id, v->pid, v->tid, v->begin / 1e3,
	    (v->end - v->begin) / 1e3, v->oncpu / 1e3);
	x->first = 0;
}

static void
add_json(struct export *x, struct graph *g, const struct diagnosis *d)
{
	const struct step *s;
	struct vertex *a, *b;
	int i, k;

	for (i = 0; i < d->nc; i++)
		json_slice(x, g, d->c[i].vertex);
	for (i = 0; i < d->npaths; i++)
		for (k = 0; k < d->paths[i].n; k++) {
			s = &d->paths[i].s[k];
			json_slice(x, g, s->vertex);
			if (s->via == NULL)
				continue;
			json_slice(x, g, s->via->from);
			a = vertex_get(g, s->via->from);
			b = vertex_get(g, s->vertex);
			if (a == NULL || b == NULL)
				continue;
			/* A flow arrow: from the cause's time to the effect. */
			x->flow++;
			fprintf(x->fp, ",\n{\"name\":\"%s\",\"cat\":\"link\","
			    "\"ph\":\"s\",\"id\":%d,\"pid\":%u,\"tid\":%u,"
			    "\"ts\":%.3f}", str_of(s->via->rule), x->flow,
			    a->pid, a->tid, s->via->from_time / 1e3);
			fprintf(x->fp, ",\n{\"name\":\"%s\",\"cat\":\"link\","
			    "\"ph\":\"f\",\"bp\":\"e\",\"id\":%d,\"pid\":%u,"
			    "\"tid\":%u,\"ts\":%.3f}", str_of(s->via->rule),
			    x->flow, b->pid, b->tid, b->begin / 1e3);
		}
}

void
export_add(struct export *x, struct graph *g, const struct spin_rec *sp,
    const struct diagnosis *d)
{
	if (x->format == EXPORT_DOT)
		add_dot(x, g, sp, d);
	else
		add_json(x, g, d);
}

void
export_close(struct export *x)
{
	if (x->format == EXPORT_DOT)
		fprintf(x->fp, "}\n");
	else
		fprintf(x->fp, "\n],\"displayTimeUnit\":\"ms\"}\n");
	outfile_fclose(x->fp, &x->file);
	free(x);
}
