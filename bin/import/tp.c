/*
 * Tracepoints to records, by field name: the importers' counterpart of
 * capture/emit.c, which reads the same fields at the offsets of the
 * running kernel's formats.  The columns of each type are argus-stream(5)'s;
 * a field the source lacks leaves its column empty, as a field the
 * running kernel lacks does in a capture.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "event.h"
#include "ftwords.h"
#include "util.h"
#include "syscalls.h"
#include "tp.h"

struct thread {
	int		 tid;
	int		 tgid;		/* -1: unknown */
	char		 comm[16];
	int		 named;
	int		 introduced;
	UT_hash_handle	 hh;
};

struct skip {
	char		*name;
	uint64_t	 count;
	UT_hash_handle	 hh;
};

static struct thread	*threads;
static struct skip	*skips;
static const char	*(*sysname)(long) = syscall_name;

/* Tracepoint name to type: lib/events.def's, those tp.c can write. */
static int
lookup(const char *name)
{
	int t;

	for (t = 1; t < E_NTYPES; t++)
		if (edefs[t].tp != NULL && strcmp(edefs[t].tp, name) == 0)
			return edef_plain(t) ? t : -1;
	return -1;
}

void
tp_reset(void)
{
	HASH_FREE(hh, threads);
	sysname = syscall_name;
	HASH_FREE_OWN(hh, skips, s, s->name);
}

void
tp_syscall_names(const char *(*fn)(long nr))
{
	sysname = fn != NULL ? fn : syscall_name;
}

int
tp_known(const char *name)
{
	return lookup(name) >= 0;
}

/* Threads. */

static struct thread *
thread(int tid)
{
	struct thread *t;

	HASH_FIND_INT(threads, &tid, t);
	if (t == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		t->tgid = tid == 0 ? 0 : -1;	/* 0: a CPU's idle task */
		HASH_ADD_INT(threads, tid, t);
	}
	return t;
}

static void
name(struct thread *t, const char *comm, size_t len)
{
	if (len > 15)
		len = 15;
	len = strnlen(comm, len);
	/* Renamed: introduced again at its next event, as the capture does. */
	if (strncmp(t->comm, comm, len) != 0 || t->comm[len] != '\0')
		t->introduced = 0;
	memcpy(t->comm, comm, len);
	t->comm[len] = '\0';
	t->named = 1;
}

void
tp_thread(int tid, int tgid, const char *comm, size_t len, int update)
{
	struct thread *t;

	if (tid < 0)
		return;
	t = thread(tid);
	if (tgid >= 0 && (update || t->tgid < 0))
		t->tgid = tgid;
	if (comm != NULL && (update || !t->named))
		name(t, comm, len);
}

unsigned long
tp_unknown_pids(size_t *n)
{
	struct thread *t;
	unsigned long unknown = 0;

	*n = 0;
	for (t = threads; t != NULL; t = t->hh.next) {
		if (t->tid <= 0)
			continue;
		(*n)++;
		unknown += t->tgid < 0;
	}
	return unknown;
}

/* Fields to columns. */

static void
col_pid(struct writer *w, int tid)
{
	int tgid = thread(tid)->tgid;

	if (tgid < 0)
		writer_empty(w);	/* the source never said */
	else
		writer_u64(w, tgid);
}

static void
col_i(struct writer *w, const struct tp *e, const char *f)
{
	int64_t v;

	if (e->num(e, f, 10, &v))
		writer_i64(w, v);
	else
		writer_empty(w);
}

static void
col_u(struct writer *w, const struct tp *e, const char *f)
{
	int64_t v;

	if (e->num(e, f, 10, &v))
		writer_u64(w, (uint64_t)v);
	else
		writer_empty(w);
}

/*
 * An address or flags.  A text trace may name a kernel function where
 * the capture has its address (%ps): the name is what the source says.
 */
static void
col_x(struct writer *w, const struct tp *e, const char *f)
{
	const char *s;
	size_t n;
	int64_t v;

	if (e->num(e, f, 16, &v))
		writer_hex(w, (uint64_t)v);
	else if (e->str(e, f, &s, &n))
		writer_strn(w, s, n);
	else
		writer_empty(w);
}

static void
col_s(struct writer *w, const struct tp *e, const char *f)
{
	const char *s;
	size_t n;

	if (e->str(e, f, &s, &n))
		writer_strn(w, s, n);
	else
		writer_empty(w);
}

/* The kernel's dev_t: 12 bits of major, 20 of minor, as MAJOR:MINOR. */
static void
col_dev(struct writer *w, const struct tp *e, const char *f)
{
	char dev[24];
	int64_t v;

	if (e->num(e, f, 10, &v)) {
		snprintf(dev, sizeof(dev), "%u:%u", (unsigned)((uint64_t)v >> 20),
		    (unsigned)(v & 0xfffff));
		writer_str(w, dev);
	} else
		writer_empty(w);
}

/* fl_flags by the names of include/linux/filelock.h, without FL_. */
static void
col_lockflags(struct writer *w, const struct tp *e, const char *f)
{
	char buf[160];
	int64_t v;

	if (e->num(e, f, 10, &v))
		writer_str(w, ftword_record_flags("lockflags", (uint64_t)v, buf,
		    sizeof(buf)));
	else
		writer_empty(w);
}

/* Letters as in ps(1); capture/emit.c writes the same. */
static void
col_state(struct writer *w, const struct tp *e, const char *f)
{
	static const char letters[] = "SDTtXZPI";
	char buf[16];
	size_t n = 0, i;
	int64_t st;

	if (!e->num(e, f, 10, &st)) {
		writer_empty(w);
		return;
	}
	for (i = 0; i < 8; i++)
		if (st & (1u << i))
			buf[n++] = letters[i];
	if (n == 0)
		buf[n++] = 'R';
	if (st & 0x100)
		buf[n++] = '+';
	writer_strn(w, buf, n);
}

static int
field_tid(const struct tp *e, const char *f)
{
	int64_t v;

	return e->num(e, f, 10, &v) ? (int)v : -1;
}

/*
 * The columns of lib/events.def, by the fields' names: what
 * capture/emit.c writes from the same fields at their offsets.
 */
static void
args(struct writer *w, int t, const struct tp *e)
{
	const struct ftword *fw;
	const struct ecol *c;
	char f[32];
	const char *s;
	size_t n;
	int64_t v, nr;
	int i, k;

	for (i = 0; i < E_MAXCOLS && (c = &edefs[t].col[i])->field != NULL;
	    i++) {
		switch (c->kind) {
		case EK_U:
			col_u(w, e, c->field);
			break;
		case EK_UH:		/* printed 0x%lx */
			if (e->num(e, c->field, 16, &v))
				writer_u64(w, (uint64_t)v);
			else
				writer_empty(w);
			break;
		case EK_I:
			col_i(w, e, c->field);
			break;
		case EK_X:
			col_x(w, e, c->field);
			break;
		case EK_S:
			col_s(w, e, c->field);
			break;
		case EK_PID:
			if ((k = field_tid(e, c->field)) < 0)
				writer_empty(w);
			else
				col_pid(w, k);
			break;
		case EK_STATE:
			col_state(w, e, c->field);
			break;
		case EK_DEV:
			col_dev(w, e, c->field);
			break;
		case EK_SYSCALL:
			if (e->num(e, c->field, 10, &nr))
				writer_str(w, sysname(nr));
			else
				writer_empty(w);
			break;
		case EK_ARGS:
			/* All six: the source does not say how many count. */
			for (k = 0; k < 6; k++) {
				snprintf(f, sizeof(f), "%s[%d]", c->field, k);
				if (!e->num(e, f, 16, &v))
					break;
				writer_hex(w, (uint64_t)v);
			}
			break;
		case EK_SOFTIRQ:
			if (e->num(e, c->field, 10, &v))
				writer_str(w, v >= 0 && v <= INT_MAX ?
				    softirq_name(v) : "");
			else
				writer_empty(w);
			break;
		case EK_LOCKTYPE:
			writer_str(w, e->num(e, c->field, 10, &v) &&
			    (fw = ftword_of("locktype", (uint64_t)v)) != NULL ?
			    fw->record : "");
			break;
		case EK_LOCKFLAGS:
			col_lockflags(w, e, c->field);
			break;
		case EK_TEXT:
			/* echo(1) ends it with a newline that is not part of it. */
			if (e->str(e, c->field, &s, &n)) {
				if (n > 0 && s[n - 1] == '\n')
					n--;
				writer_strn(w, s, n);
			} else
				writer_empty(w);
			break;
		default:	/* USE, and what edef_plain() refuses */
			break;
		}
	}
}

/* What the thread table learns from an event: capture/emit.c's learn(). */
static void
learn(int t, const struct tp *e)
{
	const char *s, *b;
	struct thread *parent;
	size_t n;
	int64_t flags;
	int child, tgid;

	switch (t) {
	case E_FORK:
		if ((child = field_tid(e, edef_field(t, "TTID"))) < 0)
			break;
		parent = thread(e->tid);
		/* CLONE_THREAD: same process; otherwise a process of its own. */
		if (e->num(e, edef_field(t, "CLONE_FLAGS"), 16, &flags) &&
		    (flags & 0x00010000))
			tgid = parent->tgid;
		else
			tgid = child;
		if (tgid >= 0)
			thread(child)->tgid = tgid;
		if (e->str(e, edef_field(t, "TCOMM"), &s, &n))
			name(thread(child), s, n);
		break;
	case E_EXEC:
		/* A thread that execs takes over its process's leader id. */
		if (!e->str(e, edef_field(t, "FILENAME"), &s, &n))
			break;
		if ((b = memrchr(s, '/', n)) != NULL) {
			n -= b + 1 - s;
			s = b + 1;
		}
		if ((child = field_tid(e, edef_field(t, "pid"))) < 0)
			child = e->tid;
		thread(child)->tgid = child;
		name(thread(child), s, n);
		break;
	case E_COMM:
		if ((child = field_tid(e, edef_field(t, "TTID"))) < 0)
			child = e->tid;
		if (e->str(e, edef_field(t, "NEWCOMM"), &s, &n))
			name(thread(child), s, n);
		break;
	}
}

/* A task record just before a thread's first event, as the capture writes. */
static void
introduce(struct writer *w, uint64_t ts, int tid, const struct tp *e,
    const char *commf)
{
	struct thread *t;
	const char *s;
	size_t n;

	if (tid <= 0 || (t = thread(tid))->introduced)
		return;
	/*
	 * Met first in another's event: that event says its name then, which
	 * its own first line (read ahead) may give after an exec or rename.
	 * That line's may be the kernel's name decorated as /proc shows a
	 * workqueue worker's ("kworker/1:1H-kblockd"): that one stays.
	 */
	if (commf != NULL && e->str(e, commf, &s, &n) && n > 0 &&
	    (!t->named || !(n < sizeof(t->comm) &&
	    strncmp(t->comm, s, n) == 0 && t->comm[n] == '-')))
		name(t, s, n);
	t->introduced = 1;
	writer_begin(w, KIND_TASK);
	writer_u64(w, ts);
	col_pid(w, tid);
	writer_u64(w, tid);
	writer_str(w, t->comm);
	writer_end(w);
}

/* The thread an event names besides its own, and the field of its name. */
static int
other(int t, const struct tp *e, const char **commf)
{
	const char *f = edef_field(t, "TTID");

	if ((*commf = edef_field(t, "TCOMM")) == NULL)
		*commf = edef_field(t, "NEWCOMM");
	return f != NULL ? field_tid(e, f) : -1;
}

void
tp_event(struct writer *w, const struct tp *e)
{
	const char *commf = NULL, *s;
	char f[16];
	size_t n;
	int64_t v;
	int t, i, o = -1;

	if (e->probe)
		t = -1;
	else if ((t = lookup(e->name)) < 0) {
		tp_skip(e->name, strlen(e->name));
		return;
	}
	/* In capture/emit.c's order: learn, then introduce both threads. */
	if (t >= 0) {
		learn(t, e);
		o = other(t, e, &commf);
	}
	introduce(w, e->ts, e->tid, e, NULL);
	if (o > 0)
		introduce(w, e->ts, o, e, commf);
	writer_begin(w, KIND_EVENT);
	writer_u64(w, e->ts);
	col_pid(w, e->tid);
	writer_u64(w, e->tid);
	writer_empty(w);	/* VERTEX: argus-segment fills it in */
	writer_u64(w, e->cpu);
	if (t < 0) {
		/*
		 * A user probe's arguments are registers, in hex.  What
		 * argus-export writes this way (a type the kernel prints no
		 * format for: sock_state) has words and addresses among its
		 * columns: those come back as they were written.
		 */
		writer_str(w, e->name);
		writer_strn(w, &e->ctx, 1);
		for (i = 1; i <= 16; i++) {
			snprintf(f, sizeof(f), "arg%d", i);
			if (e->str != NULL && e->str(e, f, &s, &n))
				writer_strn(w, s, n);
			else if (e->num(e, f, 16, &v))
				writer_hex(w, (uint64_t)v);
			else
				break;
		}
	} else {
		writer_str(w, edefs[t].type);
		writer_strn(w, &e->ctx, 1);
		args(w, t, e);
	}
	writer_end(w);
}

void
tp_lost(struct writer *w, uint64_t ts, int cpu, uint64_t count)
{
	writer_begin(w, KIND_LOST);
	writer_u64(w, ts);
	writer_empty(w);
	writer_empty(w);
	if (cpu < 0)
		writer_empty(w);
	else
		writer_u64(w, cpu);
	if (count == TP_LOST_UNKNOWN)
		writer_empty(w);
	else
		writer_u64(w, count);
	writer_end(w);
}

void
tp_skip(const char *name, size_t len)
{
	struct skip *s;

	HASH_FIND(hh, skips, name, len, s);
	if (s == NULL) {
		s = xcalloc(1, sizeof(*s));
		s->name = xmalloc(len + 1);
		memcpy(s->name, name, len);
		s->name[len] = '\0';
		HASH_ADD_KEYPTR(hh, skips, s->name, len, s);
	}
	s->count++;
}

static int
by_name(struct skip *a, struct skip *b)
{
	return strcmp(a->name, b->name);
}

void
tp_skipped(struct writer *w, uint64_t ts)
{
	struct skip *s;

	HASH_SORT(skips, by_name);
	for (s = skips; s != NULL; s = s->hh.next)
		meta_write(w, ts, "skipped", "%s %llu", s->name,
		    (unsigned long long)s->count);
}
