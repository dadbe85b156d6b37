/*
 * What a diagnosis found, twice: as records for the stream (step, root,
 * summary) and as text for the person at the terminal.
 */
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "show.h"
#include "slice.h"

/*
 * The length of the slice from the hang: its first path walked from the
 * hung vertex's own wait, where the automatic slice starts too (the
 * paper's Table 2 compares the two); 0 when none was walked (the kernel
 * named the holders).  Not the steps of every path: those walked back
 * from culprits are no part of it.
 */
static int
slice_length(const struct diagnosis *d)
{
	int i;

	for (i = 0; i < d->npaths; i++)
		if (d->paths[i].depth == 0)
			return d->paths[i].n;
	return 0;
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
			sr.next = s->via ? link_from(s->via) : 0;
			sr.rule = s->via ? str_of(link_rule(s->via)) : "";
			sr.strength = s->via == NULL ? "" :
			    link_weak(s->via) ? "weak" : "strong";
			sr.how = s->how;
			step_write(w, &sr);
		}
	}
	summary_begin(w, g->last_time, "argus-slice");
	summary_u64(w, "queries", ask_queries());
	summary_u64(w, "path", slice_length(d));
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
		rr.oncpu = vertex_oncpu(v);
		rr.class = c->class;
		rr.why = c->why;
		rr.comm = str_of(vertex_comm(v));
		rr.function = str_of(vertex_function(v));
		rr.evidence = c->depth > 0 ? c->ev : EV_UNSAID;
		root_write(w, &rr);
	}
}

/* "comm pid/tid" of a vertex's thread. */
static const char *
who(struct graph *g, uint64_t id, char *buf, size_t size)
{
	struct vertex *v = vertex_get(g, id);
	size_t n;

	if (v->pid == v->tid)
		n = snprintf(buf, size, "%s %u", show(str_of(vertex_comm(v))),
		    v->pid);
	else
		n = snprintf(buf, size, "%s %u/%u",
		    show(str_of(vertex_comm(v))), v->pid,
		    v->tid);
	if (host_name(v->pid) != NULL && n < size)
		snprintf(buf + n, size - n, " on host %s",
		    show(host_name(v->pid)));
	return buf;
}

/*
 * The culprits from the victim down to the root or cycle at r, into hop[]
 * from the root up; how many.
 */
static int
chain_of(const struct diagnosis *d, int r, int *hop, int max)
{
	int n = 0, i, depth = d->c[r].depth;

	hop[n++] = r;
	for (i = r - 1; i >= 0 && n < max; i--)
		if (d->c[i].depth == depth - 1) {
			hop[n++] = i;
			depth--;
		}
	return n;
}

static void
print_chain(struct graph *g, const struct diagnosis *d, int r, FILE *fp)
{
	int hop[16], n = chain_of(d, r, hop, ARRAY_LEN(hop));
	char buf[128];

	fprintf(fp, "Wait chain:");
	while (n-- > 0)
		fprintf(fp, " %s%s%s", who(g, d->c[hop[n]].vertex, buf,
		    sizeof(buf)), n > 0 ? " " : "",
		    n > 0 ? charset_arrow() : "\n");
}

static int
is_root(const struct culprit *c)
{
	return c->depth > 0 && (c->kind == RK_ROOT || c->kind == RK_CYCLE);
}

/*
 * The chain is as sure as its least sure hop: that hop, -1 if every one
 * is the kernel's word.  A runtime's is below the kernel's, and the
 * headline names the runtime where the chain goes through it.
 */
static int
weakest_hop(const struct diagnosis *d, int r)
{
	int hop[16], n = chain_of(d, r, hop, ARRAY_LEN(hop)), w = -1;
	enum evidence ev = EV_KERNEL;

	while (n-- > 0)
		if (d->c[hop[n]].depth > 0 && d->c[hop[n]].ev < ev) {
			ev = d->c[hop[n]].ev;
			w = hop[n];
		}
	return w;
}

static enum evidence
chain_evidence(const struct diagnosis *d, int r)
{
	int w = weakest_hop(d, r);

	return w < 0 ? EV_KERNEL : d->c[w].ev;
}

static const char *
chain_says(const struct diagnosis *d, int r, char *buf, size_t size)
{
	int w = weakest_hop(d, r);

	return w < 0 ? evidence_name(EV_KERNEL) : culprit_evidence(&d->c[w],
	    buf, size);
}

/* Where the subtree of the culprit at i ends: the next at its depth or up. */
static int
subtree_end(const struct diagnosis *d, int i)
{
	int j;

	for (j = i + 1; j < d->nc && d->c[j].depth > d->c[i].depth; j++)
		;
	return j;
}

/*
 * The first root whose chain is as sure as the open root's at f and that
 * is a cause, not only where the known ends; -1 if none.
 */
static int
closed_root(const struct diagnosis *d, int f)
{
	int i;

	for (i = f + 1; i < d->nc; i++)
		if (is_root(&d->c[i]) && !d->c[i].open &&
		    chain_evidence(d, i) >= chain_evidence(d, f))
			return i;
	return -1;
}

void
lead_with_cause(struct diagnosis *d)
{
	int fh[16], ah[16], nf, na, f, a, s1, s2, e2, n;
	struct culprit *tmp;

	for (;;) {
		for (f = 0; f < d->nc && !is_root(&d->c[f]); f++)
			;
		if (f == d->nc || !d->c[f].open || (a = closed_root(d, f)) < 0)
			return;
		/*
		 * Below their last common culprit, the branch that leads to
		 * the cause goes before the one that leads to the open root:
		 * siblings are in the order walked, which says nothing of
		 * which is the cause.
		 */
		nf = chain_of(d, f, fh, ARRAY_LEN(fh));
		na = chain_of(d, a, ah, ARRAY_LEN(ah));
		while (nf > 1 && na > 1 && fh[nf - 2] == ah[na - 2]) {
			nf--;
			na--;
		}
		if (nf < 2 || na < 2)
			return;
		s1 = fh[nf - 2];
		s2 = ah[na - 2];
		e2 = subtree_end(d, s2);
		n = e2 - s2;
		tmp = xmalloc(n * sizeof(*tmp));
		memcpy(tmp, &d->c[s2], n * sizeof(*tmp));
		memmove(&d->c[s1 + n], &d->c[s1], (s2 - s1) * sizeof(*tmp));
		memcpy(&d->c[s1], tmp, n * sizeof(*tmp));
		free(tmp);
	}
}

/* How well founded a report's headline is: its root's chain; -1 none. */
static int
rank(const struct diagnosis *d)
{
	int i;

	for (i = 0; i < d->nc; i++)
		if (is_root(&d->c[i]))
			return chain_evidence(d, i);
	return -1;
}

int *
report_order(const struct spin_rec *s, const struct diagnosis *d, int n)
{
	int *order = xcalloc(n > 0 ? n : 1, sizeof(*order));
	uint8_t *done = xcalloc(n > 0 ? n : 1, 1);
	int i, j, best, k = 0;

	for (i = 0; i < n; i++) {
		if (done[i])
			continue;
		best = i;
		for (j = i + 1; j < n; j++)
			if (s[j].tid == s[i].tid && (rank(&d[j]) > rank(&d[best]) ||
			    (rank(&d[j]) == rank(&d[best]) && s[j].end -
			    s[j].begin > s[best].end - s[best].begin)))
				best = j;
		order[k++] = best;
		done[best] = 1;
		for (j = i; j < n; j++)
			if (s[j].tid == s[i].tid && !done[j]) {
				order[k++] = j;
				done[j] = 1;
			}
	}
	free(done);
	return order;
}

/*
 * "Root cause: WHO (how sure): why": a guess says probably, and names
 * the runner-up, the next root of another thread, if there is one.  So
 * does a chain the trace's wake-ups make sure where the kernel lost
 * events during the hang (lost, their count): the switch or wake-up
 * that would make it another may be among them.  What the kernel or a
 * runtime names at the snapshot is not the trace's, and stays sure.
 */
static void
headline(struct graph *g, const struct diagnosis *d, int first,
    uint64_t lost, FILE *fp)
{
	enum evidence ev = chain_evidence(d, first);
	char buf[64], alt[64], in[256], says[RUNTIME_NAMELEN + 8];
	char sure[RUNTIME_NAMELEN + 48];
	int i;

	for (i = first + 1; i < d->nc; i++)
		if (is_root(&d->c[i]) && vertex_get(g, d->c[i].vertex)->tid !=
		    vertex_get(g, d->c[first].vertex)->tid)
			break;
	/*
	 * A root only because nothing names whom it waits for: what is
	 * known ends there, which is no more than a guess at the cause.
	 */
	if (d->c[first].open && ev != EV_GUESS) {
		fprintf(fp, "Root cause: probably %s%s (%s, up to it; whom "
		    "it waits for, nothing names): %s\n", who(g,
		    d->c[first].vertex, buf, sizeof(buf)), vertex_where(
		    vertex_get(g, d->c[first].vertex)->pid, in, sizeof(in)),
		    chain_says(d, first, says, sizeof(says)),
		    show(d->c[first].why));
		return;
	}
	snprintf(sure, sizeof(sure), "%s%s", chain_says(d, first, says,
	    sizeof(says)), lost > 0 && ev == EV_WAKEUP ?
	    ", but the kernel lost events in the hang" : "");
	if (lost > 0 && ev == EV_WAKEUP)
		ev = EV_GUESS;
	fprintf(fp, "Root cause: %s%s%s (%s%s%s): %s\n", ev == EV_GUESS ?
	    "probably " : "", who(g, d->c[first].vertex, buf, sizeof(buf)),
	    vertex_where(vertex_get(g, d->c[first].vertex)->pid, in,
	    sizeof(in)), sure, ev == EV_GUESS &&
	    i < d->nc ? "; else " : "",
	    ev == EV_GUESS && i < d->nc ? who(g, d->c[i].vertex, alt,
	    sizeof(alt)) : "", show(d->c[first].why));
}

/*
 * "Root cause: a circular wait (how sure) between A and B for 3.0 s, until
 * K killed B": the threads of the circle, how long the hang lasted, and
 * the kill or timeout that broke it, which is how it ended, not its cause.
 */
static void
cycle_headline(struct graph *g, const struct spin_rec *s,
    const struct diagnosis *d, int r, FILE *fp)
{
	int hop[16], n = chain_of(d, r, hop, ARRAY_LEN(hop)), i, j, m;
	struct vertex *v, *w;
	char buf[64], says[RUNTIME_NAMELEN + 8];

	fprintf(fp, "Root cause: a circular wait (%s) between",
	    chain_says(d, r, says, sizeof(says)));
	/*
	 * hop[n - 1] is the victim; the cycle's thread is one already met,
	 * hop[m]: the victim, or a culprit the chain reached the circle by.
	 */
	for (m = n - 1; m > 1 && vertex_get(g, d->c[hop[m]].vertex)->tid !=
	    vertex_get(g, d->c[r].vertex)->tid; m--)
		;
	if (m <= 1)
		m = n - 1;
	for (i = m; i >= 1; i--) {
		v = vertex_get(g, d->c[hop[i]].vertex);
		for (j = m; j > i; j--) {
			w = vertex_get(g, d->c[hop[j]].vertex);
			if (w->tid == v->tid)
				break;
		}
		if (j > i)
			continue;
		fprintf(fp, "%s %s", i == m ? "" : i == 1 ||
		    (i == 2 && vertex_get(g, d->c[hop[1]].vertex)->tid ==
		    vertex_get(g, d->c[hop[m]].vertex)->tid) ? " and" : ",",
		    who(g, d->c[hop[i]].vertex, buf, sizeof(buf)));
	}
	fprintf(fp, " for %.1f s%s%s%s\n", (s->end - s->begin) / 1e9,
	    strcmp(s->ended, VE_OPEN) == 0 ? " so far" : "",
	    d->until[0] ? ", " : "", show(d->until));
}

/* The paths, step by step: for -v, where the walk went and why. */
static void
print_paths(struct graph *g, const struct spin_rec *s,
    const struct diagnosis *d, FILE *fp)
{
	const struct path *p;
	char desc[320];
	int i, k;

	for (i = 0; i < d->npaths; i++) {
		p = &d->paths[i];
		fprintf(fp, "\nPath %d (slice back from the %s):\n", p->id,
		    i > 0 || s->class->kind != HK_WAIT ? "culprit" :
		    p->baseline ? "baseline's waker" : "waker");
		for (k = 0; k < p->n; k++) {
			describe_vertex(g, p->s[k].vertex, desc, sizeof(desc));
			fprintf(fp, "  %2d. %s\n", k + 1, desc);
			if (p->s[k].via != NULL)
				fprintf(fp, "      <- %s %s (%s)\n",
				    link_weak(p->s[k].via) ? "weak" : "strong",
				    show(str_of(link_rule(p->s[k].via))),
				    show(p->s[k].how));
			else
				fprintf(fp, "      (%s)\n", show(p->s[k].how));
		}
	}
}

/*
 * The answer first, on one screen: the root cause, the chain of threads
 * that leads to it, at most MAX_SHOWN roots; -v adds every culprit and
 * the paths walked.  The records hold all of it regardless.
 */
#define MAX_SHOWN	3

/*
 * The events the kernel lost while the hang lasted: the hung vertex's
 * span, to the trace's end where it still went on.
 */
static uint64_t
hang_lost(struct graph *g, const struct spin_rec *s)
{
	struct vertex *v = vertex_get(g, s->vertex);

	if (v == NULL || g->lost == 0)
		return 0;
	return lost_between(g, v->begin, strcmp(s->ended, VE_OPEN) == 0 ?
	    g->last_time : v->end);
}

/*
 * What the kernel lost of the input, and when: argus-capture says a
 * loss at the first event after it, where the kernel marked it; other
 * sources at their next report of it; in_hang of them while the hang
 * lasted.
 */
static void
lost_line(const struct graph *g, uint64_t in_hang, FILE *fp)
{
	uint64_t first = g->lost_marks[0].time,
	    last = g->lost_marks[g->nlost_marks - 1].time;
	char cpus[160] = "";
	size_t n = 0;
	int cpu, k = 0;

	for (cpu = 0; cpu < 64 && n < sizeof(cpus); cpu++)
		if (g->lost_cpus & 1ULL << cpu)
			n += snprintf(cpus + n, sizeof(cpus) - n, "%s%d",
			    k++ ? "," : "", cpu);
	fprintf(fp, "\nLost: the kernel lost %llu events", (unsigned long long)
	    g->lost);
	if (k > 0)
		fprintf(fp, " of CPU%s %s", k > 1 ? "s" : "", cpus);
	fprintf(fp, ", said ");
	if (first == last)
		fprintf(fp, "at +%.3f s", (double)(int64_t)(first -
		    g->first_time) / 1e9);
	else
		fprintf(fp, "between +%.3f and +%.3f s",
		    (double)(int64_t)(first - g->first_time) / 1e9,
		    (double)(int64_t)(last - g->first_time) / 1e9);
	if (in_hang > 0)
		fprintf(fp, ", %llu of them in the hang", (unsigned long long)
		    in_hang);
	fprintf(fp, ": a switch or a wake-up of the chain may be missing\n");
}

void
report_text(struct graph *g, const struct spin_rec *s,
    const struct diagnosis *d, int verbose, FILE *fp)
{
	char desc[320], buf[128];
	int hop[16], nhop, i, j, k, first = -1, shown = 0, more = 0, steps = 0;
	uint64_t lost = hang_lost(g, s);

	for (i = 0; i < d->npaths; i++)
		steps += d->paths[i].n;
	for (i = 0; i < d->nc; i++)
		if (is_root(&d->c[i]) && first < 0)
			first = i;
	fputc('\n', fp);
	if (first >= 0 && d->c[first].kind == RK_CYCLE) {
		cycle_headline(g, s, d, first, fp);
		print_chain(g, d, first, fp);
	} else if (first >= 0) {
		headline(g, d, first, lost, fp);
		print_chain(g, d, first, fp);
	} else if (d->found) {
		/*
		 * Busy, or runnable, by the trace's switches alone: a
		 * switch-out lost in the hang would make it a wait.
		 */
		fprintf(fp, "Root cause: %sthe %s vertex itself%s: %s%s%s\n",
		    s->class->kind == HK_WORK && lost > 0 ? "probably " : "",
		    strcmp(s->ended, ENDED_CHOSEN) == 0 ? "chosen" : "hung",
		    s->class->kind == HK_WORK && lost > 0 ?
		    " (but the kernel lost events in the hang)" : "",
		    s->class->name, d->note[0] ? "; " : "", show(d->note));
	} else
		fprintf(fp, "Nothing found beyond the %s thread: %s\n",
		    strcmp(s->ended, ENDED_CHOSEN) == 0 ? "chosen" : "hung",
		    d->note[0] ? show(d->note) : s->class->name);
	describe_vertex_in(g, s->vertex, desc, sizeof(desc));
	fprintf(fp, "\nHang: %s\n      %s, %s%s%s\n", desc, s->class->name,
	    strcmp(s->ended, VE_OPEN) == 0 ?
	    "still going on when the trace ended" : show(s->ended),
	    d->ended[0] ? "; " : "", show(d->ended));
	nhop = first >= 0 ? chain_of(d, first, hop, ARRAY_LEN(hop)) : 0;
	for (i = 0, k = 0; i < d->nc; i++) {
		for (j = 0; j < nhop && hop[j] != i; j++)
			;
		if (d->c[i].depth == 0 || (!verbose && j == nhop &&
		    (!is_root(&d->c[i]) || shown == MAX_SHOWN))) {
			more += is_root(&d->c[i]) && d->c[i].depth > 0;
			continue;
		}
		if (k++ == 0)
			fprintf(fp, "\n%s:\n", verbose ? "Culprits, as walked" :
			    "Found");
		describe_vertex(g, d->c[i].vertex, desc, sizeof(desc));
		fprintf(fp, "  %*s%s: %s\n  %*s    %s, %s\n",
		    2 * (d->c[i].depth - 1), "",
		    root_kind_name(d->c[i].kind), desc,
		    2 * (d->c[i].depth - 1), "",
		    d->c[i].class->name, show(d->c[i].why));
		shown += is_root(&d->c[i]);
	}
	if (more > 0)
		fprintf(fp, "  %d more root%s: -v shows every culprit\n", more,
		    more == 1 ? "" : "s");
	if (verbose) {
		for (i = 0; i < d->nc; i++)
			if (d->c[i].kind == RK_CYCLE)
				break;
		if (i < d->nc) {
			fprintf(fp, "  circular wait:");
			nhop = chain_of(d, i, hop, ARRAY_LEN(hop));
			while (nhop-- > 0)
				fprintf(fp, " %s%s", who(g, d->c[hop[nhop]].vertex,
				    buf, sizeof(buf)), nhop > 0 ? " ->" : "\n");
		}
	}
	if (d->note[0] && first >= 0)
		fprintf(fp, "\nNote: %s\n", show(d->note));
	for (i = 0; i < g->nprovider_errors; i++)
		fprintf(fp, "%sRuntime provider %s\n", i == 0 ? "\n" : "",
		    show(g->provider_errors[i]));
	if (g->lost > 0)
		lost_line(g, lost, fp);
	if (verbose)
		print_paths(g, s, d, fp);
	else if (steps > 0)
		fprintf(fp, "\n%d step%s walked in %d path%s: -v shows them.\n",
		    steps, steps == 1 ? "" : "s", d->npaths,
		    d->npaths == 1 ? "" : "s");
	fprintf(fp, "\nQueries asked: %d.  Path length: %d from the hang, %d "
	    "by the rule alone.  Walked in %.1f ms.\n", ask_queries(),
	    slice_length(d), d->auto_steps, walk_time() / 1e6);
}
