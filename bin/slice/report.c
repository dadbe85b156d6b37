/*
 * What a diagnosis found, twice: as records for the stream (step, root,
 * summary) and as text for the person at the terminal.
 */
#include <string.h>

#include "slice.h"

void
describe_vertex(struct graph *g, uint64_t id, char *buf, size_t size)
{
	struct vertex *v = vertex_get(g, id);
	size_t n;
	int i;

	if (v == NULL) {
		snprintf(buf, size, "vertex %llu (unknown)", (unsigned long long)id);
		return;
	}
	n = snprintf(buf, size, "%s %u/%u vertex %llu at +%.3fs, %.1f ms "
	    "(%.0f%% on CPU)", str_of(v->comm), v->pid, v->tid,
	    (unsigned long long)id, (double)(int64_t)(v->begin - g->first_time) / 1e9,
	    (v->end - v->begin) / 1e6, v->end > v->begin ?
	    100.0 * v->oncpu / (v->end - v->begin) : 0.0);
	for (i = 0; i < VSYSCALLS && v->sys[i] != 0 && n < size; i++)
		n += snprintf(buf + n, size - n, "%s%s", i ? "," : ", calls ",
		    str_of(v->sys[i]));
	if (v->wait && n < size)
		n += snprintf(buf + n, size - n, ", ends waiting (%c)", v->wait);
	if (v->where && n < size) {
		const char *w = str_of(v->where), *lt = strchr(w, '<');

		/* "recv_msg<ask_browser_for_help": the function, its caller */
		if (lt != NULL)
			snprintf(buf + n, size - n, ", in %.*s from %s",
			    (int)(lt - w), w, lt + 1);
		else
			snprintf(buf + n, size - n, ", in %s", w);
	}
}

void
report_records(struct graph *g, const struct diagnosis *d, struct writer *w)
{
	const struct path *p;
	const struct step *s;
	const struct culprit *c;
	struct step_rec sr;
	struct root_rec rr;
	struct vertex *v;
	int i, k;

	for (i = 0; i < d->npaths; i++) {
		p = &d->paths[i];
		for (k = 0; k < p->n; k++) {
			s = &p->s[k];
			v = vertex_get(g, s->vertex);
			sr.time = g->last_time;
			sr.pid = v ? v->pid : 0;
			sr.tid = v ? v->tid : 0;
			sr.path = p->id;
			sr.n = k + 1;
			sr.vertex = s->vertex;
			sr.next = s->via ? s->via->from : 0;
			sr.rule = s->via ? str_of(s->via->rule) : "";
			sr.strength = s->via ? s->via->weak ? "weak" : "strong" : "";
			sr.how = s->how;
			step_write(w, &sr);
		}
	}
	for (i = 0, k = 0; i < d->npaths; i++)
		k += d->paths[i].n;
	summary_begin(w, g->last_time, "argus-slice");
	summary_u64(w, "queries", ask_queries());
	summary_u64(w, "path", k);
	summary_u64(w, "automatic_path", d->auto_steps);
	summary_end(w);
	for (i = 0; i < d->nc; i++) {
		c = &d->c[i];
		v = vertex_get(g, c->vertex);
		rr.time = g->last_time;
		rr.pid = v->pid;
		rr.tid = v->tid;
		rr.vertex = c->vertex;
		rr.kind = c->kind;
		rr.depth = c->depth;
		rr.begin = v->begin;
		rr.end = v->end;
		rr.class = c->class;
		rr.why = c->why;
		rr.comm = str_of(v->comm);
		rr.function = str_of(v->where);
		root_write(w, &rr);
	}
}

void
report_text(struct graph *g, const struct spin_rec *s,
    const struct diagnosis *d, FILE *fp)
{
	char desc[320];
	const struct path *p;
	int i, k, steps = 0;

	describe_vertex(g, s->vertex, desc, sizeof(desc));
	fprintf(fp, "\nHang: %s\n      %s, %s\n", desc, s->class->name,
	    strcmp(s->ended, VE_OPEN) == 0 ?
	    "still going on when the trace ended" : s->ended);
	for (i = 0; i < d->npaths; i++) {
		p = &d->paths[i];
		steps += p->n;
		fprintf(fp, "\nPath %d (slice back from the %s):\n", p->id,
		    i == 0 && s->class->kind == HK_WAIT ?
		    "baseline's waker" : "culprit");
		for (k = 0; k < p->n; k++) {
			describe_vertex(g, p->s[k].vertex, desc, sizeof(desc));
			fprintf(fp, "  %2d. %s\n", k + 1, desc);
			if (p->s[k].via != NULL)
				fprintf(fp, "      <- %s %s (%s)\n",
				    p->s[k].via->weak ? "weak" : "strong",
				    str_of(p->s[k].via->rule), p->s[k].how);
			else
				fprintf(fp, "      (%s)\n", p->s[k].how);
		}
	}
	fprintf(fp, "\nRoot cause:\n");
	for (i = 0, k = 0; i < d->nc; i++) {
		if (d->c[i].depth == 0)
			continue;
		describe_vertex(g, d->c[i].vertex, desc, sizeof(desc));
		fprintf(fp, "  %*s%s: %s\n  %*s    %s, %s\n", 2 * (d->c[i].depth - 1),
		    "", root_kind_name(d->c[i].kind), desc,
		    2 * (d->c[i].depth - 1), "", d->c[i].class->name,
		    d->c[i].why);
		k++;
	}
	if (k == 0)
		fprintf(fp, "  the %s vertex itself: %s\n",
		    strcmp(s->ended, ENDED_CHOSEN) == 0 ? "chosen" : "hung",
		    s->class->name);
	for (i = 0; i < d->nc; i++)
		if (d->c[i].kind == RK_CYCLE)
			break;
	if (i < d->nc) {
		fprintf(fp, "  circular wait:");
		for (k = 0; k < d->nc; k++)
			if (k == 0 || d->c[k].kind != RK_VICTIM)
				fprintf(fp, " %s %u%s",
				    str_of(vertex_get(g, d->c[k].vertex)->comm),
				    vertex_get(g, d->c[k].vertex)->tid,
				    k + 1 < d->nc ? " ->" : "\n");
	}
	if (d->note[0])
		fprintf(fp, "\nNote: %s\n", d->note);
	fprintf(fp, "\nQueries asked: %d.  Path length: %d interactive, %d "
	    "automatic.  Walked in %.1f ms.\n", ask_queries(), steps,
	    d->auto_steps, walk_time() / 1e6);
}
