/*
 * Threads, their open vertices, and the records that close them.  Events
 * come in time order; each is tagged with its vertex as it passes, so the
 * output stays in time order and memory holds only the live threads.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "segment.h"

static struct thread	*threads;
static struct writer	*out;
static uint64_t		 next_id = 1;
/*
 * next_id in decimal, counted up in place: a vertex's id is copied from
 * it rather than formatted, as each opens.
 */
static char		 next_s[24] = "1";
static size_t		 next_n = 1;
static uint64_t		 nvertices, nevents, nculled;
static char		 culled_s[28];	/* NO_VERTEX, as each culled event has it */
static size_t		 culled_n;
/*
 * The event being segmented: a vertex that opens or closes at its time
 * copies that time's text from it, as the reader read it, rather than
 * putting the number in decimal again.
 */
static const struct record *now_rec;

static struct heuristic	**heuristics;	/* in table order */
static size_t		 state_size;	/* of all heuristics, per thread */
/*
 * Those switched on that judge events of each type, in table order,
 * NULL-ended: a call to one that keeps every event of the type cost as
 * much as its answer.
 */
static struct heuristic	**judges[E_NTYPES];
/* And those told that a vertex closed: a list, as it happens at every one. */
static struct heuristic	**openers;

static void
judges_make(void)
{
	struct heuristic *h;
	size_t i, n;
	int t;

	for (t = 0; t < E_NTYPES; t++) {
		if (judges[t] == NULL)
			judges[t] = xcalloc(nsheuristics + 1,
			    sizeof(*judges[t]));
		for (i = n = 0; i < nsheuristics; i++) {
			h = heuristics[i];
			if (!h->off && h->judge != NULL && !h->after_record &&
			    (h->types == 0 || (h->types & EV(t))))
				judges[t][n++] = h;
		}
		judges[t][n] = NULL;
	}
}

/* After the options. */
void
segment_init(struct writer *w)
{
	size_t i, n = 0;

	out = w;
	culled_n = u64_str(culled_s, NO_VERTEX);
	judges_make();
	openers = xcalloc(nsheuristics + 1, sizeof(*openers));
	for (i = 0; i < nsheuristics; i++)
		if (!heuristics[i]->off && heuristics[i]->opened != NULL)
			openers[n++] = heuristics[i];
}

/* In the order of sheuristics[], each with its state's place. */
struct heuristic **
segment_heuristics(void)
{
	size_t i, a = alignof(max_align_t);

	if (heuristics != NULL)
		return heuristics;
	heuristics = xcalloc(nsheuristics, sizeof(*heuristics));
	set_bind(SET_BEGIN(segment_heuristics), SET_END(segment_heuristics),
	    sheuristics, nsheuristics, sizeof(sheuristics[0]),
	    (void **)heuristics, "segment heuristic");
	for (i = 0; i < nsheuristics; i++) {
		heuristics[i]->row = &sheuristics[i];
		heuristics[i]->thread_off = state_size;
		state_size += (heuristics[i]->thread_size + a - 1) / a * a;
	}
	return heuristics;
}

void *
segment_state(const struct heuristic *h, struct thread *t)
{
	return (char *)t + (sizeof(*t) + alignof(max_align_t) - 1) /
	    alignof(max_align_t) * alignof(max_align_t) + h->thread_off;
}

/*
 * The threads met last, by the low bits of their ids: a thread's events
 * come in runs, and a table's lookup (hashing, a bucket, a compare) was a
 * twentieth of the stage, as it was argus-link's (bin/link/links.c).
 */
#define RECENT	64
static struct thread	*recent[RECENT];

/* A thread not among the recent: the table's, or a new one. */
static struct thread * __attribute__((noinline))
thread_look(uint32_t tid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	if (t == NULL) {
		t = xcalloc(1, sizeof(*t) + alignof(max_align_t) + state_size);
		t->tid = tid;
		t->oncpu_since = NO_TIME;
		t->left_at = NO_TIME;
		t->resumed = NO_TIME;
		t->woken = NO_TIME;
		t->began_by = VB_START;
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	recent[tid % RECENT] = t;
	return t;
}

/*
 * The other threads that switches and wake-ups name, by the text of their
 * PID and TID as the event has them: a CPU's few threads are named again
 * and again, and reading the two numbers cost more than the rest of
 * finding the thread.  The two fields, one after the other, are as one
 * text of up to 16 bytes: its length and two words, its first eight and
 * its last eight, which overlap.  Equal text is equal numbers.
 */
#define NAMED	64
static struct named {
	uint64_t	 w0, w1;
	size_t		 n;		/* 0: none */
	struct thread	*t;
	uint32_t	 pid;		/* as thread_of() takes it */
} named[NAMED];

static void
thread_free(struct thread *t)
{
	size_t i;

	for (i = 0; i < NAMED; i++)
		if (named[i].t == t)
			named[i].n = 0;
	if (recent[t->tid % RECENT] == t)
		recent[t->tid % RECENT] = NULL;
	HASH_DEL(threads, t);
	free(t);
}

/* thread_get(), in line where an event asks: two or three times each. */
static inline struct thread *
thread_of(uint32_t tid, uint32_t pid)
{
	struct thread *t = recent[tid % RECENT];

	if (t == NULL || t->tid != tid)
		t = thread_look(tid);
	if (pid != 0)
		t->pid = pid;
	return t;
}

/* Its numbers read, as thread_named() does not know them: e is their slot. */
static struct thread * __attribute__((noinline))
thread_read(const struct event *ev, int pid, struct named *e)
{
	uint32_t p = event_pid(ev, pid);
	struct thread *t = thread_of(event_u64(ev, pid + 1), p);

	if (e != NULL) {
		e->t = t;
		e->pid = p;
	}
	return t;
}

/*
 * The thread an event's arguments pid and pid + 1, its TID, name: in
 * line, with no registers saved for the call that finding it takes.
 */
static inline __attribute__((always_inline)) struct thread *
thread_named(const struct event *ev, int pid)
{
	const struct record *rec = ev->rec;
	size_t col = EC_ARG + pid, n;
	struct named *e;
	uint64_t w0, w1;

	if (!rec->padded || col + 2 >= rec->nf ||
	    (n = rec->f[col + 2] - rec->f[col] - 1) > 16)
		return thread_read(ev, pid, NULL);
	_Static_assert(NAMED == 64, "the hash's 6 bits");
	e = &named[padded_words(rec->f[col], n, &w0, &w1) >> 58];
	if (e->n == n && e->w0 == w0 && e->w1 == w1) {
		if (e->pid != 0)
			e->t->pid = e->pid;
		return e->t;
	}
	e->n = n;
	e->w0 = w0;
	e->w1 = w1;
	return thread_read(ev, pid, e);
}

struct thread *
thread_get(uint32_t tid, uint32_t pid)
{
	return thread_of(tid, pid);
}

static void
set_comm(struct thread *t, const char *comm)
{
	str_fit(t->comm, comm, sizeof(t->comm));
	t->comm_n = strlen(t->comm);
	t->comm_quoted = !writer_plain(t->comm, t->comm_n);
}

/* next_s one up: the nines at its end roll over, as on paper. */
static void
next_up(void)
{
	size_t i = next_n;

	while (i > 0 && next_s[i - 1] == '9')
		next_s[--i] = '0';
	if (i > 0) {
		next_s[i - 1]++;
		return;
	}
	memmove(next_s + 1, next_s, next_n + 1);	/* its NUL too */
	next_s[0] = '1';
	next_n++;
}

/*
 * Time v in decimal at s (32 bytes), its length returned: the text of the
 * event's TIME where v is that time and the text is as u64_str() would
 * put it (no leading zeros); 16 bytes copied, which a field of 7 or more
 * bytes of the reader's has readable.
 */
static uint64_t	 last_v;
static char	 last_s[32];
static size_t	 last_n;

static inline size_t
time_text(char *s, uint64_t v)
{
	const struct record *rec = now_rec;
	const char *f;
	size_t n;

	if (rec != NULL && rec->padded && v == rec->time &&
	    (size_t)COL_TIME + 1 < rec->nf) {
		f = rec->f[COL_TIME];
		n = rec->f[COL_TIME + 1] - f - 1;
		if (n >= 7 && n <= 16 && f[0] != '0') {
			memcpy(s, f, 16);
			return n;
		}
	}
	/*
	 * The last one put: a thread run again after a wait ends one vertex
	 * and begins the next at a time no event of its has.
	 */
	if (v != last_v || last_n == 0) {
		last_v = v;
		last_n = u64_str(last_s, v);
	}
	memcpy(s, last_s, 24);
	return last_n;
}

/* Text of n bytes, s having 24 readable, as a field at p. */
static inline char *
at_text(char *p, const char *s, size_t n)
{
	memcpy(p, s, 24);
	p[n] = ',';
	return p + n + 1;
}

/*
 * A word of the tables (VB_*, VE_*, a heuristic's cut), which never
 * change: a vertex has two, of a handful, each copied from here as a
 * block where it needs no quoting.
 */
struct word {
	const char	*s;
	size_t		 n;
	int		 plain;
	char		 b[16];
};

static inline struct word *
word_of(struct word *memo, const char *s)
{
	struct word *w = &memo[(uintptr_t)s % 8];

	if (w->s != s) {
		w->s = s;
		w->n = strlen(s);
		w->plain = w->n < sizeof(w->b) && writer_plain(s, w->n);
		memset(w->b, 0, sizeof(w->b));
		if (w->plain)
			memcpy(w->b, s, w->n);
	}
	return w;
}

/* Where the first NUL is in a word of bytes; 8 if none is. */
static inline size_t
nul_at(const char *s)
{
	const uint64_t ones = 0x0101010101010101ULL;
	uint64_t w, z;

	memcpy(&w, s, 8);
	w = le64toh(w);
	z = (w - ones) & ~w & ones * 0x80;
	return z == 0 ? 8 : (size_t)__builtin_ctzll(z) >> 3;
}

/* Plain text of n bytes, s having 16 readable, as a field at p. */
static inline char *
at_plain(char *p, const char *s, size_t n)
{
	memcpy(p, s, 16);
	p[n] = ',';
	return p + n + 1;
}

/*
 * A thread's PID,TID, put once and again only where its pid changed: its
 * vertices have them all.  An unknown process is empty, as put_pid()'s
 * (lib/schema.c).
 */
static void
ptid_put(struct thread *t)
{
	char tmp[64];
	size_t n = 0;

	if (t->pid != 0 || t->tid == 0)
		n = u64_str(tmp, t->pid);
	tmp[n++] = ',';
	n += u64_str(tmp + n, t->tid);
	memcpy(t->ptid_s, tmp, sizeof(t->ptid_s));
	t->ptid_n = n;
	t->ptid_pid = t->pid;
}

/*
 * A vertex record, as vertex_write() would put it (lib/records.def), but
 * its times and id copied as text: it is written at every vertex.
 */
static void
vertex_out(struct thread *t, uint64_t end, const char *ended_by)
{
	_Static_assert(RCOL(vertex, ID) == COL_FIRST_OWN &&
	    RCOL(vertex, BEGIN) == COL_FIRST_OWN + 1 &&
	    RCOL(vertex, END) == COL_FIRST_OWN + 2 &&
	    RCOL(vertex, ONCPU) == COL_FIRST_OWN + 3 &&
	    RCOL(vertex, EVENTS) == COL_FIRST_OWN + 4 &&
	    RCOL(vertex, BEGAN_BY) == COL_FIRST_OWN + 5 &&
	    RCOL(vertex, ENDED_BY) == COL_FIRST_OWN + 6 &&
	    RCOL(vertex, WAIT) == COL_FIRST_OWN + 7 &&
	    RCOL(vertex, COMM) == COL_FIRST_OWN + 8 &&
	    RCOLS(vertex) == COL_FIRST_OWN + 9, "vertex_write()'s columns");
	const char *wait = t->waiting ? t->wait_state : "";
	/* a memo each: the one's look-up cannot take the other's place */
	static struct word began[8], ended[8];
	const struct word *b = word_of(began, t->began_by),
	    *e = word_of(ended, ended_by);
	size_t nw = t->waiting ? nul_at(t->wait_state) : 0, end_n;
	char end_s[32], *p;

	end_n = time_text(end_s, end);
	/* and the overrun of the last field's block */
	p = writer_at_begin(out, KIND_VERTEX,
	    8 * WRITER_AT_U64 + b->n + e->n + nw + t->comm_n + 4 + 16);
	p = end == NO_TIME ? writer_at_empty(p) : at_text(p, end_s, end_n);
	if (t->ptid_n == 0 || t->ptid_pid != t->pid)
		ptid_put(t);
	p = at_text(p, t->ptid_s, t->ptid_n);
	p = at_text(p, t->vertex_s, t->vertex_n);
	p = at_text(p, t->begin_s, t->begin_n);
	p = at_text(p, end_s, end_n);
	p = writer_at_u64(out, p, t->oncpu);
	p = writer_at_u64(out, p, t->nevents);
	p = b->plain ? at_plain(p, b->b, b->n) :
	    writer_at_strn(out, p, t->began_by, b->n);
	p = e->plain ? at_plain(p, e->b, e->n) :
	    writer_at_strn(out, p, ended_by, e->n);
	if (nw == 0)
		p = writer_at_empty(p);
	else if (writer_plain(wait, nw)) {
		memcpy(p, t->wait_state, 8);	/* its word, nw < 8 */
		p[nw] = ',';
		p += nw + 1;
	} else
		p = writer_at_strn(out, p, wait, nw);
	_Static_assert(sizeof(t->comm) == 16, "a block");
	p = t->comm_quoted ? writer_at_strn(out, p, t->comm, t->comm_n) :
	    at_plain(p, t->comm, t->comm_n);
	writer_at_end(out, p);
}

/*
 * A woken thread's vertex begins where it ran again, not at its first
 * event after: with argus-capture leaving the wait's return off, that can
 * be milliseconds of computing later, which would be in no vertex.
 */
static void
open_vertex(struct thread *t, uint64_t now)
{
	if (t->resumed != NO_TIME && t->resumed < now)
		now = t->resumed;	/* begin_s, as resume() put it */
	else
		t->begin_n = time_text(t->begin_s, now);
	t->resumed = NO_TIME;
	_Static_assert(sizeof(t->vertex_s) == sizeof(next_s), "a copy");
	t->vertex = next_id++;
	memcpy(t->vertex_s, next_s, sizeof(next_s));
	t->vertex_n = next_n;
	next_up();
	t->begin = now;
	t->nevents = 0;
	t->oncpu = 0;
	if (t->oncpu_since != NO_TIME)
		t->oncpu_since = now;	/* time before belongs to the last one */
}

static void
close_vertex(struct thread *t, uint64_t end, const char *ended_by)
{
	struct heuristic **h;

	if (t->vertex == 0)
		return;
	if (t->oncpu_since != NO_TIME && end > t->oncpu_since) {
		t->oncpu += end - t->oncpu_since;
		t->oncpu_since = end;
	}
	vertex_out(t, end, ended_by);
	nvertices++;
	t->vertex = 0;
	t->waiting = 0;
	/*
	 * The next vertex's first event is judged as its own: a thread
	 * woken where it waited has that event (a receive whose wait's
	 * return argus-capture left off, say) before its vertex opens.
	 */
	for (h = openers; *h != NULL; h++)
		(*h)->opened(*h, t);
}

/*
 * Who each CPU runs, as its events say (the thread an event is in; a
 * switch's next), and the time of its last event: enough to tell a thread
 * switched in from idle from one that waited behind another.
 */
struct cpu_state {
	uint32_t	 tid;		/* 0: the idle task; NOT_SEEN */
	uint64_t	 last;
};
#define NOT_SEEN	UINT32_MAX
static struct cpu_state	*cpus;
static size_t		 ncpus;

/* CPU cpu as it was before event ev, which it then records. */
static struct cpu_state
cpu_saw(const struct event *ev)
{
	struct cpu_state was;
	size_t n;

	if (ev->cpu >= ncpus) {	/* the reader bounds cpu */
		n = (size_t)ev->cpu + 1 > 2 * ncpus ? (size_t)ev->cpu + 1 :
		    2 * ncpus;
		cpus = xrealloc(cpus, n * sizeof(*cpus));
		for (; ncpus < n; ncpus++)
			cpus[ncpus].tid = NOT_SEEN;
	}
	was = cpus[ev->cpu];
	cpus[ev->cpu].tid = ev->tid;	/* a switch's next: other_threads() */
	cpus[ev->cpu].last = ev->time;
	return was;
}

/* A waiting vertex ends when its thread runs again. */
static void
resume(struct thread *t, uint64_t now)
{
	if (!t->waiting)
		return;
	close_vertex(t, now, VE_WAIT);
	t->began_by = VB_WAKEUP;
	t->resumed = now;
	t->begin_n = time_text(t->begin_s, now);
	t->woken = NO_TIME;
}

/*
 * A waiting thread's own event with no switch-in before it: the kernel
 * did not record the switch out of the thread the CPU ran before.  Some
 * record no task-context event of a CPU's idle task, or of threads they
 * hide from tracing (a VM's own agent).  That thread's last event on the
 * CPU is the last time it is known to have run: the woken thread ran from
 * then or from its wake-up, whichever is later, not from this event, which
 * may come after milliseconds of computing that no event marks (an
 * interrupt's event in the other thread, a timer's tick, says if it ran
 * longer).  Where nothing was seen on the CPU yet, from this event.
 */
static void
resume_unseen(struct thread *t, const struct event *ev,
    const struct cpu_state *cpu)
{
	uint64_t ran = ev->time;

	if (!t->waiting)
		return;
	if (cpu->tid != NOT_SEEN && cpu->tid != t->tid &&
	    t->woken != NO_TIME && t->woken < ran)
		ran = t->woken > cpu->last ? t->woken : cpu->last;
	resume(t, ran);
	if (ran < ev->time)
		t->oncpu_since = ran;
}

/*
 * Another thread's event on the CPU that thread u ran last, with no switch
 * out of u between: the kernel may have lost it (a ring that overflowed),
 * or hides the thread that ran between, whose switches it does not record
 * (resume_unseen()).  Which, u's next event says: its own, with no switch
 * in before it, and u ran on; a switch into it, or none till the trace
 * ends, and u left the CPU after its last event there, in a state nobody
 * recorded (left()), so that a thread that blocked unseen is not busy for
 * the rest of the trace.  Not if u ran somewhere since (a switch-in seen
 * after it).
 */
static void
left_unseen(const struct cpu_state *cpu)
{
	struct thread *u;

	HASH_FIND(hh, threads, &cpu->tid, sizeof(cpu->tid), u);
	if (u != NULL && !u->waiting && !u->dead && u->vertex != 0 &&
	    u->oncpu_since != NO_TIME && u->oncpu_since <= cpu->last &&
	    u->left_at == NO_TIME)
		u->left_at = cpu->last;
}

/* As a wait, from its last event on the CPU it left unseen. */
static void
left(struct thread *t)
{
	if (t->left_at == NO_TIME)
		return;
	if (t->left_at > t->oncpu_since)
		t->oncpu += t->left_at - t->oncpu_since;
	t->oncpu_since = NO_TIME;
	t->left_at = NO_TIME;
	t->waiting = 1;
	t->woken = NO_TIME;
	str_fit(t->wait_state, WAIT_UNSEEN, sizeof(t->wait_state));
}

static void
other_threads(const struct event *ev, struct thread *t)
{
	struct thread *o;
	uint32_t tid, pid;

	switch (ev->type) {
	case E_SWITCH:
		if (t->oncpu_since != NO_TIME) {
			t->oncpu += ev->time - t->oncpu_since;
			t->oncpu_since = NO_TIME;
		}
		_Static_assert(ECOL(E_SWITCH, TTID) ==
		    ECOL(E_SWITCH, TPID) + 1, "TPID,TID");
		o = thread_named(ev, ECOL(E_SWITCH, TPID));
		if (o->comm[0] == '\0')
			set_comm(o, event_str(ev, ECOL(E_SWITCH, TCOMM)));
		left(o);
		resume(o, ev->time);
		o->oncpu_since = ev->time;
		cpus[ev->cpu].tid = o->tid;
		break;
	case E_WAKING:
		_Static_assert(ECOL(E_WAKING, TTID) ==
		    ECOL(E_WAKING, TPID) + 1, "TPID,TID");
		o = thread_named(ev, ECOL(E_WAKING, TPID));
		if (o->waiting && o->woken == NO_TIME)
			o->woken = ev->time;
		break;
	case E_FORK:
		tid = event_u64(ev, ECOL(E_FORK, TTID));
		pid = event_pid(ev, ECOL(E_FORK, TPID));
		/* Its number again, its dead owner's last switch not seen. */
		if ((o = thread_of(tid, pid))->dead) {
			thread_free(o);
			o = thread_of(tid, pid);
		}
		set_comm(o, event_str(ev, ECOL(E_FORK, TCOMM)));
		o->began_by = VB_FORK;
		break;
	case E_COMM:
		set_comm(thread_of(event_u64(ev, ECOL(E_COMM, TTID)),
		    event_pid(ev, ECOL(E_COMM, TPID))),
		    event_str(ev, ECOL(E_COMM, NEWCOMM)));
		break;
	default:
		break;
	}
}

static void
tag(const struct event *ev, uint64_t vertex)
{
	writer_splice_u64(out, ev->rec, EC_VERTEX, vertex);
}

/*
 * A wait's STATE, cut to fit: a word of the reader's field, which has 8
 * bytes readable from it, where it has one; the bytes past its NUL are
 * never read.
 */
static void
wait_state(struct thread *t, const struct event *ev)
{
	const struct record *rec = ev->rec;
	size_t col = EC_ARG + ECOL(E_SWITCH, STATE);

	_Static_assert(sizeof(t->wait_state) == 8, "a word");
	if (rec->padded && col < rec->nf) {
		memcpy(t->wait_state, rec->f[col], 8);
		t->wait_state[7] = '\0';
	} else
		str_fit(t->wait_state, event_str(ev, ECOL(E_SWITCH, STATE)),
		    sizeof(t->wait_state));
}

/*
 * The heuristics' verdicts, in table order: the first to cull wins, and
 * so do the first to cut before the event and the first to end the vertex
 * after it, unless one before it holds the vertex together.
 */
static int
judge(struct thread *t, const struct event *ev, const char **cut,
    const char **end, int *wait)
{
	struct heuristic **j, *h;
	enum verdict v;
	int hold = 0;

	*cut = *end = NULL;
	*wait = 0;
	for (j = judges[ev->type]; (h = *j) != NULL; j++) {
		/* Most keep the event: a test, not the switch's table. */
		if ((v = h->judge(h, t, ev)) == KEEP)
			continue;
		switch (v) {
		case KEEP:
			continue;
		case HOLD:
			hold = 1;
			continue;
		case CULL:
			h->count++;
			return 1;
		case CUT_BEFORE:
			if (*cut == NULL)
				*cut = h->row->cut;
			break;
		case CUT_AFTER:
			if (hold)
				continue;
			if (*end == NULL)
				*end = h->row->cut;
			break;
		case WAIT_AFTER:
			if (hold)
				continue;
			*wait = 1;
			if (*end == NULL)
				*end = VE_WAIT;
			break;
		}
		h->count++;
	}
	return 0;
}

void
segment_event(struct event *ev)
{
	struct thread *t = thread_of(ev->tid, ev->pid);
	const char *cut, *end;
	struct cpu_state cpu;
	int wait, waited;

	nevents++;
	now_rec = ev->rec;
	/*
	 * A dead thread makes no system call: its number is a new thread's,
	 * whose fork the trace lost, and whose switches are not its last.
	 */
	if (t->dead && ev->type == E_SYS_ENTER) {
		thread_free(t);
		t = thread_of(ev->tid, ev->pid);
	}
	cpu = cpu_saw(ev);
	t->left_at = NO_TIME;		/* it runs */
	if (cpu.tid != ev->tid && cpu.tid != 0 && cpu.tid != NOT_SEEN)
		left_unseen(&cpu);
	/*
	 * A waiting thread's own event, where no switch-in said it runs
	 * again (resume_unseen()): its wait's vertex ends before the event
	 * is judged, so that the event is the next vertex's, as after a
	 * switch-in.  An interrupt's event in the thread says as much: it
	 * ran when interrupted.  Before other_threads(): a switch-out that
	 * is the thread's first event there ends the time on CPU that
	 * resume_unseen() begins.
	 */
	waited = t->waiting;
	if (ev->tid != 0 && !t->dead)
		resume_unseen(t, ev, &cpu);
	other_threads(ev, t);
	if (t->dead) {
		/*
		 * What an exiting thread still does (wake its parent, its
		 * last switch-out) is its last vertex's doing.  The way out
		 * is preemptible: only the switch that says it is dead is
		 * its last, and a thread freed at a preemption came back
		 * nameless, a vertex of its own after its exit.
		 */
		tag(ev, t->last_vertex);
		if (ev->type == E_SWITCH &&
		    state_is_exit(event_str(ev, ECOL(E_SWITCH, STATE))))
			thread_free(t);
		return;
	}
	if (judge(t, ev, &cut, &end, &wait)) {
		nculled++;
		writer_splice_n(out, ev->rec, EC_VERTEX, culled_s, culled_n);
		return;
	}
	/* A thread first seen running: it is on a CPU now. */
	if (t->oncpu_since == NO_TIME && !waited && ev->type != E_SWITCH)
		t->oncpu_since = ev->time;
	resume(t, ev->time);
	if (cut != NULL && t->vertex != 0) {
		close_vertex(t, ev->time, cut);
		t->began_by = cut;
	} else if (cut != NULL && strcmp(t->began_by, VB_WAKEUP) == 0)
		/* Woken straight into a callout: the callout's, as where the
		 * wait's return came first. */
		t->began_by = cut;
	if (t->vertex == 0)
		open_vertex(t, ev->time);
	t->nevents++;
	writer_splice_n(out, ev->rec, EC_VERTEX, t->vertex_s, t->vertex_n);
	if (ev->type == E_EXIT) {
		t->last_vertex = t->vertex;
		close_vertex(t, ev->time, VE_EXIT);
		t->dead = 1;
		return;
	}
	if (end == NULL)
		return;
	if (wait) {
		t->waiting = 1;
		t->woken = NO_TIME;
		wait_state(t, ev);
		return;
	}
	close_vertex(t, ev->time, end);
	t->began_by = end;
}

/*
 * A record other than an event: a thread's name (the capture introduces
 * each), or something a heuristic takes (a user's hint).  All pass on.
 */
void
segment_record(const struct record *rec)
{
	struct heuristic *h;
	uint64_t tid, pid = 0;
	size_t i;

	if (!rec->comment && strcmp(rec->f[COL_KIND], KIND_TASK) == 0 &&
	    record_u64_opt(rec, COL_TID, &tid)) {
		record_u64_opt(rec, COL_PID, &pid);
		set_comm(thread_of(tid, pid), record_str(rec, TASK_COMM));
	} else if (!rec->comment) {
		for (i = 0; i < nsheuristics; i++) {
			h = heuristics[i];
			if (h->off || h->record == NULL || !h->record(h, rec))
				continue;
			if (h->after_record) {
				h->after_record = 0;
				judges_make();
			}
			break;
		}
	}
	writer_record(out, rec);
}

/* Vertices still open when the trace ends: the hang in progress. */
void
segment_finish(uint64_t end)
{
	struct thread *t, *tmp;

	now_rec = NULL;
	HASH_ITER(hh, threads, t, tmp) {
		left(t);
		if (t->vertex != 0)
			close_vertex(t, end > t->begin ? end : t->begin, VE_OPEN);
		thread_free(t);
	}
}

void
segment_summary(struct writer *w, uint64_t end, int to_stderr)
{
	size_t i;

	summary_begin(w, end, "argus-segment");
	summary_u64(w, "events", nevents);
	summary_u64(w, "vertices", nvertices);
	summary_u64(w, "culled", nculled);
	for (i = 0; i < nsheuristics; i++)
		summary_u64(w, heuristics[i]->name, heuristics[i]->count);
	summary_end(w);
	if (!to_stderr)
		return;
	fprintf(stderr, "argus-segment: %llu events, %llu vertices, %llu "
	    "events culled; by heuristic:", (unsigned long long)nevents,
	    (unsigned long long)nvertices, (unsigned long long)nculled);
	for (i = 0; i < nsheuristics; i++)
		fprintf(stderr, " %s %llu%s", heuristics[i]->name,
		    (unsigned long long)heuristics[i]->count,
		    heuristics[i]->off ? " (off)" : "");
	fputc('\n', stderr);
}
