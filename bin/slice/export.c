/*
 * The diagnosis for other tools: Graphviz (--dot) for the path, and the
 * Chrome trace-event format (--json) that the Perfetto UI opens: threads
 * as tracks, the path's vertices as slices, its links as flow arrows.
 */
#include <stdio.h>
#include <string.h>

#include "slice.h"

static FILE *
create(const char *path)
{
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL)
		die(EX_CANTCREAT, "%s", path);
	return fp;
}

static void
finish(FILE *fp, const char *path)
{
	if (fclose(fp) == EOF)
		die(EX_IOERR, "%s", path);
}

void
export_dot(struct graph *g, const struct diagnosis *d, const char *path)
{
	FILE *fp = create(path);
	const struct step *s;
	struct vertex *v;
	char desc[320];
	int i, k;

	fprintf(fp, "digraph argus {\n\trankdir=RL;\n\tnode [shape=box];\n");
	for (i = 0; i < d->nc; i++)
		fprintf(fp, "\tv%llu [style=filled, fillcolor=%s];\n",
		    (unsigned long long)d->c[i].vertex,
		    strcmp(d->c[i].kind, "victim") == 0 ? "lightblue" :
		    strcmp(d->c[i].kind, "root") == 0 ? "salmon" : "khaki");
	for (i = 0; i < d->npaths; i++)
		for (k = 0; k < d->paths[i].n; k++) {
			s = &d->paths[i].s[k];
			v = vertex_get(g, s->vertex);
			describe_vertex(g, s->vertex, desc, sizeof(desc));
			for (char *c = desc; *c; c++)
				if (*c == '"')
					*c = '\'';
			fprintf(fp, "\tv%llu [label=\"%s\"];\n",
			    (unsigned long long)s->vertex, desc);
			if (s->via != NULL && v != NULL)
				fprintf(fp, "\tv%llu -> v%llu [label=\"%s\"%s];\n",
				    (unsigned long long)s->via->from,
				    (unsigned long long)s->vertex,
				    str_of(s->via->rule),
				    s->via->weak ? ", style=dashed" : "");
		}
	fprintf(fp, "}\n");
	finish(fp, path);
}

static void
json_slice(FILE *fp, struct graph *g, uint64_t id, int *first)
{
	struct vertex *v = vertex_get(g, id);

	if (v == NULL)
		return;
	fprintf(fp, "%s\n{\"name\":\"vertex %llu\",\"cat\":\"argus\",\"ph\":\"X\","
	    "\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
	    "\"args\":{\"oncpu_us\":%.1f}}", *first ? "" : ",",
	    (unsigned long long)id, v->pid, v->tid, v->begin / 1e3,
	    (v->end - v->begin) / 1e3, v->oncpu / 1e3);
	*first = 0;
}

void
export_json(struct graph *g, const struct diagnosis *d, const char *path)
{
	FILE *fp = create(path);
	const struct step *s;
	struct vertex *a, *b;
	int i, k, first = 1, flow = 0;

	fprintf(fp, "{\"traceEvents\":[");
	for (i = 0; i < d->nc; i++)
		json_slice(fp, g, d->c[i].vertex, &first);
	for (i = 0; i < d->npaths; i++)
		for (k = 0; k < d->paths[i].n; k++) {
			s = &d->paths[i].s[k];
			json_slice(fp, g, s->vertex, &first);
			if (s->via == NULL)
				continue;
			json_slice(fp, g, s->via->from, &first);
			a = vertex_get(g, s->via->from);
			b = vertex_get(g, s->vertex);
			if (a == NULL || b == NULL)
				continue;
			/* A flow arrow: from the cause's time to the effect. */
			flow++;
			fprintf(fp, ",\n{\"name\":\"%s\",\"cat\":\"link\",\"ph\":\"s\","
			    "\"id\":%d,\"pid\":%u,\"tid\":%u,\"ts\":%.3f}",
			    str_of(s->via->rule), flow, a->pid, a->tid,
			    s->via->from_time / 1e3);
			fprintf(fp, ",\n{\"name\":\"%s\",\"cat\":\"link\",\"ph\":\"f\","
			    "\"bp\":\"e\",\"id\":%d,\"pid\":%u,\"tid\":%u,\"ts\":%.3f}",
			    str_of(s->via->rule), flow, b->pid, b->tid,
			    b->begin / 1e3);
		}
	fprintf(fp, "\n],\"displayTimeUnit\":\"ms\"}\n");
	finish(fp, path);
}
