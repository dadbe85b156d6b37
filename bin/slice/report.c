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
	struct vertex *v;
	int i, k;

	for (i = 0; i < d->npaths; i++) {
		p = &d->paths[i];
		for (k = 0; k < p->n; k++) {
			s = &p->s[k];
			v = vertex_get(g, s->vertex);
			writer_begin(w, "step");
			writer_u64(w, g->last_time);
			writer_u64(w, v ? v->pid : 0);
			writer_u64(w, v ? v->tid : 0);
			writer_u64(w, p->id);
			writer_u64(w, k + 1);
			writer_u64(w, s->vertex);
			writer_u64(w, s->via ? s->via->from : 0);
			writer_str(w, s->via ? str_of(s->via->rule) : "");
			writer_str(w, s->via ? s->via->weak ? "weak" : "strong" : "");
			writer_str(w, s->how);
			writer_end(w);
		}
	}
	for (i = 0, k = 0; i < d->npaths; i++)
		k += d->paths[i].n;
	writer_begin(w, "summary");
	writer_u64(w, g->last_time);
	writer_empty(w);
	writer_empty(w);
	writer_str(w, "argus-slice");
	writer_str(w, "queries");
	writer_u64(w, ask_queries());
	writer_str(w, "path");
	writer_u64(w, k);
	writer_str(w, "automatic_path");
	writer_u64(w, d->auto_steps);
	writer_end(w);
	for (i = 0; i < d->nc; i++) {
		v = vertex_get(g, d->c[i].vertex);
		writer_begin(w, "root");
		writer_u64(w, g->last_time);
		writer_u64(w, v->pid);
		writer_u64(w, v->tid);
		writer_u64(w, d->c[i].vertex);
		writer_str(w, d->c[i].kind);
		writer_u64(w, d->c[i].depth);
		writer_u64(w, v->begin);
		writer_u64(w, v->end);
		writer_str(w, d->c[i].class);
		writer_str(w, d->c[i].why);
		writer_str(w, str_of(v->comm));
		writer_str(w, str_of(v->where));
		writer_end(w);
	}
}

void
report_text(struct graph *g, const struct spin *s, const struct diagnosis *d,
    FILE *fp)
{
	char desc[320];
	const struct path *p;
	int i, k, steps = 0;

	describe_vertex(g, s->vertex, desc, sizeof(desc));
	fprintf(fp, "\nHang: %s\n      %s, %s\n", desc, s->class,
	    strcmp(s->ended, "open") == 0 ? "still going on when the trace ended" :
	    s->ended);
	for (i = 0; i < d->npaths; i++) {
		p = &d->paths[i];
		steps += p->n;
		fprintf(fp, "\nPath %d (slice back from the %s):\n", p->id,
		    i == 0 && strcmp(s->class, "LongWait") == 0 ?
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
		    "", d->c[i].kind, desc, 2 * (d->c[i].depth - 1), "",
		    d->c[i].class, d->c[i].why);
		k++;
	}
	if (k == 0)
		fprintf(fp, "  the %s vertex itself: %s\n",
		    strcmp(s->ended, "chosen") == 0 ? "chosen" : "hung", s->class);
	for (i = 0; i < d->nc; i++)
		if (strcmp(d->c[i].kind, "cycle") == 0)
			break;
	if (i < d->nc) {
		fprintf(fp, "  circular wait:");
		for (k = 0; k < d->nc; k++)
			if (k == 0 || strcmp(d->c[k].kind, "victim") != 0)
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
