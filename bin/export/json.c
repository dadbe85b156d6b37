/*
 * The whole capture as Chrome trace events (JSON), as the Perfetto UI and
 * chrome://tracing open them (lib/chrome.h): a track per thread, named by
 * metadata events; on it the vertices of the event graph (when the stream
 * has them) and, inside those, the thread's scheduling slices ("running
 * on CPU n", split at vertex boundaries so that slices nest); system
 * calls as async slices of the process, since a blocking call outlasts
 * the slice it started in; each link as a flow, placed where Perfetto
 * binds it (chrome_flow_place), a wait's link to its waker reversed.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "export.h"
#include "records.h"

struct slice {
	uint32_t	 tid;
	uint64_t	 begin, end;
	uint64_t	 id;		/* a vertex */
	char		*name;
};

struct link {
	uint64_t	 from, to, time;
	char		*rule, *strength, *label;
};

struct call {			/* a thread's open system call */
	uint32_t	 tid;
	int64_t		 nr;	/* its number; -1 none */
	char		*name;
	uint64_t	 since;
};

static struct slice	*vtx, *calls;
static size_t		 nvtx, ncalls, capvtx, capcalls;
static struct link	*links;
static size_t		 nlinks, caplinks;
static struct call	*open_;		/* by tid, sparse */
static size_t		 nopen;
static struct chrome_runs runs;
static uint64_t		 first = NO_TIME, last;

#define PUSH(arr, n, cap) do {						\
	if ((n) == (cap)) {						\
		(cap) = (cap) ? 2 * (cap) : 1024;			\
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
	}								\
} while (0)

static struct call *
call_of(uint32_t tid)
{
	size_t i;

	for (i = 0; i < nopen; i++)
		if (open_[i].tid == tid)
			return &open_[i];
	open_ = xrealloc(open_, (nopen + 1) * sizeof(*open_));
	open_[nopen] = (struct call){ tid, -1, NULL, 0 };
	return &open_[nopen++];
}

static void
close_call(struct call *r, uint64_t t)
{
	if (r->nr < 0)
		return;
	PUSH(calls, ncalls, capcalls);
	calls[ncalls++] = (struct slice){ r->tid, r->since, t, 0, r->name };
	r->nr = -1;
	r->name = NULL;
}

static void
on_event(const struct event *e)
{
	struct call *r;

	if (e->type == E_SWITCH) {
		chrome_runs_switch(&runs, e->time, e->cpu, e->tid,
		    event_u64(e, ECOL(E_SWITCH, TTID)));
		return;
	}
	if (e->tid == 0)
		return;			/* the idle task is no thread to show */
	switch (e->type) {
	case E_SYS_ENTER:
		r = call_of(e->tid);
		close_call(r, e->time);		/* a lost exit */
		r->nr = event_i64(e, ECOL(E_SYS_ENTER, NR));
		r->name = xstrdup(*event_str(e, SYSCALL_NAME) ?
		    event_str(e, SYSCALL_NAME) :
		    event_str(e, ECOL(E_SYS_ENTER, NR)));
		r->since = e->time;
		break;
	case E_SYS_EXIT:
		r = call_of(e->tid);
		if (r->nr == event_i64(e, ECOL(E_SYS_EXIT, NR)))
			close_call(r, e->time);
		break;
	default:
		break;
	}
}

static void
record(FILE *o, const struct record *r)
{
	struct event e;

	(void)o;
	thread_learn(r);
	if (r->comment)
		return;
	if (r->time != NO_TIME) {
		if (first == NO_TIME)
			first = r->time;
		last = r->time;
	}
	if (event_parse(r, &e)) {
		on_event(&e);
		return;
	}
	if (strcmp(r->f[COL_KIND], KIND_VERTEX) == 0) {
		PUSH(vtx, nvtx, capvtx);
		vtx[nvtx++] = (struct slice){ record_u64(r, COL_TID),
		    record_u64(r, RCOL(vertex, BEGIN)),
		    record_u64(r, RCOL(vertex, END)),
		    record_u64(r, RCOL(vertex, ID)),
		    xstrdup(record_str(r, RCOL(vertex, WAIT))) };
	} else if (strcmp(r->f[COL_KIND], KIND_LINK) == 0) {
		PUSH(links, nlinks, caplinks);
		links[nlinks++] = (struct link){
		    record_u64(r, RCOL(link, FROM)),
		    record_u64(r, RCOL(link, TO)),
		    record_u64(r, RCOL(link, FROM_TIME)),
		    xstrdup(record_str(r, RCOL(link, RULE))),
		    xstrdup(record_str(r, RCOL(link, STRENGTH))),
		    xstrdup(record_str(r, RCOL(link, LABEL))) };
	} else if (strcmp(r->f[COL_KIND], KIND_TASK) != 0 &&
	    strcmp(r->f[COL_KIND], KIND_META) != 0)
		not_carried(r->f[COL_KIND]);
}

/* A thread's track: its process, or its own id if never said. */
static uint32_t
track_pid(uint32_t tid)
{
	int pid = thread_pid(tid);

	return pid > 0 ? (uint32_t)pid : tid;
}

/*
 * A process is named after its main thread; one whose main thread the
 * stream never showed, after the first of its threads met.
 */
static void
names(uint32_t tid, int pid, const char *comm, void *arg)
{
	static uint32_t *orphans;	/* processes named so */
	static size_t norphans;
	struct chrome *c = arg;
	uint32_t p = track_pid(tid);
	const char *process = p == tid ? comm : NULL;
	size_t i;

	(void)pid;
	if (tid == 0)
		return;
	if (p != tid && thread_pid(p) < 0) {
		for (i = 0; i < norphans && orphans[i] != p; i++)
			;
		if (i == norphans) {
			orphans = xrealloc(orphans, (norphans + 1) *
			    sizeof(*orphans));
			orphans[norphans++] = p;
			process = comm;
		}
	}
	chrome_names(c, p, tid, comm, process);
}

/* One end of a system call's async slice; id i ties the two. */
static void
call(struct chrome *c, const char *ph, const struct slice *s, size_t i,
    uint64_t t)
{
	chrome_event(c, ph, track_pid(s->tid), s->tid);
	fprintf(c->fp, ",\"cat\":\"syscall\",\"id\":\"%u.%zu\",\"name\":",
	    s->tid, i);
	chrome_str(c->fp, s->name);
	chrome_time(c->fp, "ts", t);
	fputc('}', c->fp);
}

static int
by_thread(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int
by_id(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int
by_time(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static const struct slice *
vertex(uint64_t id)
{
	struct slice key = { .id = id };

	if (nvtx == 0)
		return NULL;
	return bsearch(&key, vtx, nvtx, sizeof(*vtx), by_id);
}

/* Each thread's scheduling slices, cut at its vertices' boundaries. */
static void
running(struct chrome *c)
{
	const struct chrome_run *r;
	uint64_t *cuts = xmalloc((2 * nvtx + 1) * sizeof(*cuts));
	size_t i, j, n, v0 = 0, v1, ncuts;

	chrome_runs_end(&runs, last);
	chrome_runs_sort(&runs);
	for (i = 0; i < runs.n; i += n) {
		r = chrome_runs_of(&runs, runs.r[i].tid, &n);
		while (v0 < nvtx && vtx[v0].tid < r->tid)
			v0++;
		for (v1 = v0, ncuts = 0; v1 < nvtx && vtx[v1].tid == r->tid;
		    v1++) {
			cuts[ncuts++] = vtx[v1].begin;
			cuts[ncuts++] = vtx[v1].end;
		}
		qsort(cuts, ncuts, sizeof(*cuts), by_time);
		for (j = 0; j < n; j++)
			chrome_running(c, track_pid(r->tid), r->tid, r[j].begin,
			    r[j].end, r[j].cpu, cuts, ncuts);
	}
	free(cuts);
}

static void
flows(struct chrome *c, unsigned long *drawn, unsigned long *reversed,
    unsigned long *outside)
{
	const struct slice *f, *t, *a, *b;
	uint64_t s_ts, f_ts;
	char *args;
	size_t i, len;
	FILE *m;
	int rev;

	for (i = 0; i < nlinks; i++) {
		if ((f = vertex(links[i].from)) == NULL ||
		    (t = vertex(links[i].to)) == NULL) {
			(*outside)++;	/* from an idle CPU: no slice to start in */
			continue;
		}
		rev = chrome_flow_place(f->begin, f->end, t->begin, t->end,
		    links[i].time, &s_ts, &f_ts);
		a = rev ? t : f;
		b = rev ? f : t;
		m = open_memstream(&args, &len);
		fputs("\"strength\":", m);
		chrome_str(m, links[i].strength);
		fputs(",\"label\":", m);
		chrome_str(m, links[i].label);
		fprintf(m, ",\"from\":%" PRIu64 ",\"to\":%" PRIu64 "%s",
		    links[i].from, links[i].to, rev ? ",\"reversed\":true" : "");
		fclose(m);
		chrome_flow(c, i + 1, "link", links[i].rule, track_pid(a->tid),
		    a->tid, s_ts, track_pid(b->tid), b->tid, f_ts, args);
		free(args);
		(*drawn)++;
		*reversed += rev;
	}
}

static void
end(FILE *o)
{
	unsigned long drawn = 0, reversed = 0, outside = 0;
	char name[64], args[320], list[1024], *other;
	struct chrome c;
	size_t i, len;
	FILE *m;

	/* Threads still in a call when the trace ends. */
	for (i = 0; i < nopen; i++)
		close_call(&open_[i], last);
	chrome_open(&c, o);
	thread_foreach(names, &c);

	if (nvtx > 1)		/* none: a capture without its graph */
		qsort(vtx, nvtx, sizeof(*vtx), by_thread);
	for (i = 0; i < nvtx; i++) {
		snprintf(name, sizeof(name), "v%" PRIu64, vtx[i].id);
		m = open_memstream(&other, &len);
		fprintf(m, "\"vertex\":%" PRIu64, vtx[i].id);
		/* Its thread's name then: a track's may be a later one. */
		if (thread_comm_at(vtx[i].tid, vtx[i].begin) != NULL) {
			fputs(",\"comm\":", m);
			chrome_str(m, thread_comm_at(vtx[i].tid, vtx[i].begin));
		}
		fclose(m);
		snprintf(args, sizeof(args), "%s", other);
		free(other);
		chrome_slice(&c, track_pid(vtx[i].tid), vtx[i].tid,
		    vtx[i].begin, vtx[i].end, name, args);
	}
	running(&c);
	for (i = 0; i < ncalls; i++) {
		call(&c, "b", &calls[i], i, calls[i].begin);
		call(&c, "e", &calls[i], i, calls[i].end);
	}
	if (nvtx > 1)
		qsort(vtx, nvtx, sizeof(*vtx), by_id);
	flows(&c, &drawn, &reversed, &outside);
	not_carried_list(list, sizeof(list));
	m = open_memstream(&other, &len);
	fprintf(m, "\"source\":\"argus-export " ARGUS_VERSION "\","
	    "\"vertices\":%zu,\"links\":%zu,\"flows\":%lu,"
	    "\"flows_reversed\":%lu,\"links_from_outside_vertices\":%lu,"
	    "\"not_carried\":", nvtx, nlinks, drawn, reversed, outside);
	chrome_str(m, list);
	fclose(m);
	chrome_close(&c, other);
	free(other);
}

const struct exporter export_json = {
	"json",
	"Chrome trace events: Perfetto UI, chrome://tracing",
	record,
	end,
};
