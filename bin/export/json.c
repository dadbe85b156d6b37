/*
 * The whole capture as Chrome trace events (JSON), as the Perfetto UI and
 * chrome://tracing open them: a track per thread, named by metadata
 * events; on it the vertices of the event graph (when the stream has
 * them) and, inside those, the thread's scheduling slices ("running on
 * CPU n"); system calls as async slices of the process, since a blocking
 * call outlasts the slice it started in; each link as a flow.
 *
 * Perfetto binds a flow's start to the slice that encloses it on its
 * track and drops a flow whose end comes before its start.  So a flow
 * starts at the link's time clamped into its FROM vertex, and ends at the
 * first moment of its TO vertex not before the start; a link from a
 * vertex that ended before its TO vertex began the other way round (a
 * wait's link to its waker) is drawn reversed, and says so.  Running
 * slices are split at vertex boundaries, so that slices nest.
 *
 * One event per line, so that line tools can read it too.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

struct slice {
	uint32_t	 tid;
	uint64_t	 begin, end;
	uint64_t	 id;		/* a vertex; 0: a running slice */
	uint32_t	 cpu;
	char		*name;
};

struct link {
	uint64_t	 from, to, time;
	char		*rule, *strength, *label;
};

struct run {			/* a thread's open scheduling or syscall slice */
	uint32_t	 tid;
	uint64_t	 since;
	uint32_t	 cpu;
	int64_t		 nr;	/* syscall: its number; -1 none */
	char		*name;
	uint64_t	 call_since;
};

static struct slice	*vtx, *runs, *calls;
static size_t		 nvtx, nruns, ncalls, capvtx, capruns, capcalls;
static struct link	*links;
static size_t		 nlinks, caplinks;
static struct run	*open_;		/* by tid, sparse */
static size_t		 nopen;
static uint64_t		 first = NO_TIME, last;

#define PUSH(arr, n, cap) do {						\
	if ((n) == (cap)) {						\
		(cap) = (cap) ? 2 * (cap) : 1024;			\
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
	}								\
} while (0)

static struct run *
run_of(uint32_t tid)
{
	size_t i;

	for (i = 0; i < nopen; i++)
		if (open_[i].tid == tid)
			return &open_[i];
	open_ = xrealloc(open_, (nopen + 1) * sizeof(*open_));
	open_[nopen] = (struct run){ tid, NO_TIME, 0, -1, NULL, 0 };
	return &open_[nopen++];
}

static void
close_run(struct run *r, uint64_t t)
{
	if (r->since == NO_TIME)
		return;
	PUSH(runs, nruns, capruns);
	runs[nruns++] = (struct slice){ r->tid, r->since, t, 0, r->cpu, NULL };
	r->since = NO_TIME;
}

static void
close_call(struct run *r, uint64_t t)
{
	if (r->nr < 0)
		return;
	PUSH(calls, ncalls, capcalls);
	calls[ncalls++] = (struct slice){ r->tid, r->call_since, t, 0, 0,
	    r->name };
	r->nr = -1;
	r->name = NULL;
}

static void
on_event(const struct event *e)
{
	struct run *r;

	if (e->tid == 0)
		return;			/* the idle task is no thread to show */
	switch (e->type) {
	case E_SWITCH:
		close_run(run_of(e->tid), e->time);
		if (event_u64(e, 2) != 0) {
			r = run_of(event_u64(e, 2));
			r->since = e->time;
			r->cpu = e->cpu;
		}
		break;
	case E_SYS_ENTER:
		r = run_of(e->tid);
		close_call(r, e->time);		/* a lost exit */
		r->nr = event_i64(e, 0);
		r->name = xstrdup(*event_str(e, 1) ? event_str(e, 1) :
		    event_str(e, 0));
		r->call_since = e->time;
		break;
	case E_SYS_EXIT:
		r = run_of(e->tid);
		if (r->nr == event_i64(e, 0))
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
	if (strcmp(r->f[0], "vertex") == 0) {
		uint64_t id = record_u64(r, COL_FIRST_OWN);

		PUSH(vtx, nvtx, capvtx);
		vtx[nvtx++] = (struct slice){ record_u64(r, COL_TID),
		    record_u64(r, COL_FIRST_OWN + 1),
		    record_u64(r, COL_FIRST_OWN + 2), id, 0,
		    xstrdup(record_str(r, COL_FIRST_OWN + 7)) };
	} else if (strcmp(r->f[0], "link") == 0) {
		PUSH(links, nlinks, caplinks);
		links[nlinks++] = (struct link){ record_u64(r, COL_FIRST_OWN),
		    record_u64(r, COL_FIRST_OWN + 1),
		    record_u64(r, COL_FIRST_OWN + 4),
		    xstrdup(record_str(r, COL_FIRST_OWN + 3)),
		    xstrdup(record_str(r, COL_FIRST_OWN + 2)),
		    xstrdup(record_str(r, COL_FIRST_OWN + 8)) };
	} else if (strcmp(r->f[0], "task") != 0 &&
	    strcmp(r->f[0], "meta") != 0)
		not_carried(r->f[0]);
}

/* JSON strings: names are the kernel's, any byte but NUL. */
static void
jstr(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(o, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(o, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, o);
	}
	fputc('"', o);
}

/* Microseconds with the nanoseconds kept: a decimal, never a float. */
static void
ts(FILE *o, const char *key, uint64_t ns)
{
	fprintf(o, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

static int	 nout;

static void
begin_event(FILE *o, const char *ph, int pid, uint32_t tid)
{
	fprintf(o, "%s\n{\"ph\":\"%s\",\"pid\":%d,\"tid\":%u", nout++ ? "," : "",
	    ph, pid, tid);
}

/* A thread's track: its process, or its own id if never said. */
static int
track_pid(uint32_t tid)
{
	int pid = thread_pid(tid);

	return pid > 0 ? pid : (int)tid;
}

static void
names(uint32_t tid, int pid, const char *comm, void *arg)
{
	FILE *o = arg;

	if (tid == 0)
		return;
	pid = track_pid(tid);
	if ((int)tid == pid) {
		begin_event(o, "M", pid, tid);
		fputs(",\"name\":\"process_name\",\"args\":{\"name\":", o);
		jstr(o, comm);
		fputs("}}", o);
	}
	begin_event(o, "M", pid, tid);
	fputs(",\"name\":\"thread_name\",\"args\":{\"name\":", o);
	jstr(o, comm);
	fputs("}}", o);
}

static void
slice(FILE *o, const struct slice *s, const char *name, const char *args)
{
	begin_event(o, "X", track_pid(s->tid), s->tid);
	fputs(",\"name\":", o);
	jstr(o, name);
	ts(o, "ts", s->begin);
	ts(o, "dur", s->end - s->begin);
	if (args != NULL)
		fprintf(o, ",\"args\":{%s}", args);
	fputc('}', o);
}

/* One end of a system call's async slice; id i ties the two. */
static void
call(FILE *o, const char *ph, const struct slice *c, size_t i, uint64_t t)
{
	begin_event(o, ph, track_pid(c->tid), c->tid);
	fprintf(o, ",\"cat\":\"syscall\",\"id\":\"%u.%zu\",\"name\":",
	    c->tid, i);
	jstr(o, c->name);
	ts(o, "ts", t);
	fputc('}', o);
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

static const struct slice *
vertex(uint64_t id)
{
	struct slice key = { .id = id };

	return bsearch(&key, vtx, nvtx, sizeof(*vtx), by_id);
}

/*
 * A running slice cut where vertices of its thread begin and end: each
 * piece lies inside one vertex or outside all of them.
 */
static void
running(FILE *o, const struct slice *r, const struct slice *v, size_t nv)
{
	struct slice piece = *r;
	char name[32], args[64];
	uint64_t cut;
	size_t i;

	snprintf(name, sizeof(name), "running on CPU %u", r->cpu);
	snprintf(args, sizeof(args), "\"cpu\":%u", r->cpu);
	while (piece.begin < r->end) {
		piece.end = r->end;
		for (i = 0; i < nv; i++) {
			cut = v[i].begin > piece.begin ? v[i].begin :
			    v[i].end > piece.begin ? v[i].end : 0;
			if (cut > piece.begin && cut < piece.end)
				piece.end = cut;
		}
		if (piece.end > piece.begin)
			slice(o, &piece, name, args);
		piece.begin = piece.end;
	}
}

static void
flows(FILE *o, unsigned long *drawn, unsigned long *reversed,
    unsigned long *outside)
{
	const struct slice *f, *t, *a, *b;
	uint64_t s_ts, f_ts;
	size_t i;
	int rev;

	for (i = 0; i < nlinks; i++) {
		if ((f = vertex(links[i].from)) == NULL ||
		    (t = vertex(links[i].to)) == NULL) {
			(*outside)++;	/* from an idle CPU: no slice to start in */
			continue;
		}
		s_ts = links[i].time < f->begin ? f->begin :
		    links[i].time > f->end ? f->end : links[i].time;
		rev = 0;
		a = f;
		b = t;
		if (t->end < s_ts) {
			if (t->end >= f->begin)
				s_ts = t->end;
			else {
				/* TO is over before FROM begins: reversed. */
				rev = 1;
				a = t;
				b = f;
				s_ts = t->end;
			}
		}
		f_ts = b->begin > s_ts ? b->begin : s_ts;
		begin_event(o, "s", track_pid(a->tid), a->tid);
		fprintf(o, ",\"id\":%zu,\"cat\":\"link\",\"name\":", i + 1);
		jstr(o, links[i].rule);
		ts(o, "ts", s_ts);
		fputs(",\"args\":{\"strength\":", o);
		jstr(o, links[i].strength);
		fputs(",\"label\":", o);
		jstr(o, links[i].label);
		fprintf(o, ",\"from\":%" PRIu64 ",\"to\":%" PRIu64 "%s}}",
		    links[i].from, links[i].to, rev ? ",\"reversed\":true" : "");
		begin_event(o, "f", track_pid(b->tid), b->tid);
		fprintf(o, ",\"bp\":\"e\",\"id\":%zu,\"cat\":\"link\",\"name\":",
		    i + 1);
		jstr(o, links[i].rule);
		ts(o, "ts", f_ts);
		fputc('}', o);
		(*drawn)++;
		*reversed += rev;
	}
}

static void
end(FILE *o)
{
	unsigned long drawn = 0, reversed = 0, outside = 0;
	char name[64], args[160], list[1024];
	size_t i, j, v0;

	/* Threads still running, or in a call, when the trace ends. */
	for (i = 0; i < nopen; i++) {
		close_run(&open_[i], last);
		close_call(&open_[i], last);
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", o);
	thread_foreach(names, o);

	qsort(vtx, nvtx, sizeof(*vtx), by_thread);
	qsort(runs, nruns, sizeof(*runs), by_thread);
	for (i = 0; i < nvtx; i++) {
		snprintf(name, sizeof(name), "v%" PRIu64, vtx[i].id);
		snprintf(args, sizeof(args), "\"vertex\":%" PRIu64, vtx[i].id);
		slice(o, &vtx[i], name, args);
	}
	for (i = 0, v0 = 0; i < nruns; i++) {
		while (v0 < nvtx && vtx[v0].tid < runs[i].tid)
			v0++;
		for (j = v0; j < nvtx && vtx[j].tid == runs[i].tid; j++)
			;
		running(o, &runs[i], vtx + v0, j - v0);
	}
	for (i = 0; i < ncalls; i++) {
		call(o, "b", &calls[i], i, calls[i].begin);
		call(o, "e", &calls[i], i, calls[i].end);
	}
	qsort(vtx, nvtx, sizeof(*vtx), by_id);
	flows(o, &drawn, &reversed, &outside);
	not_carried_list(list, sizeof(list));
	fprintf(o, "\n],\n\"otherData\":{\"source\":\"argus-export "
	    ARGUS_VERSION "\",\"vertices\":%zu,\"links\":%zu,\"flows\":%lu,"
	    "\"flows_reversed\":%lu,\"links_from_outside_vertices\":%lu,"
	    "\"not_carried\":", nvtx, nlinks, drawn, reversed, outside);
	jstr(o, list);
	fputs("}}\n", o);
}

const struct exporter export_json = {
	"json",
	"Chrome trace events: Perfetto UI, chrome://tracing",
	record,
	end,
};
