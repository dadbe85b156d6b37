/*
 * What each exporter needs of a thread besides its events: its process
 * and its name at the moment, learnt from the stream as capture/emit.c
 * learns them from the kernel; names by time as lib/names.c keeps them.
 */
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "export.h"
#include "names.h"

struct thread {
	uint32_t	 tid;
	int		 pid;
	UT_hash_handle	 hh;
};

struct kind {
	char		*name;
	unsigned long	 n;
	UT_hash_handle	 hh;
};

static struct thread	*threads;
static struct kind	*kinds;
static struct names	*names;

static struct thread *
get(uint32_t tid)
{
	struct thread *t;

	if (HASH_GET(hh, threads, tid, &tid, t))
		t->pid = -1;
	return t;
}

static void
set(uint32_t tid, int pid)
{
	struct thread *t = get(tid);

	if (pid >= 0)
		t->pid = pid;
}

static int
pid_of(const struct record *r, size_t col)
{
	const char *s = record_str(r, col);

	return *s != '\0' ? atoi(s) : -1;
}

void
thread_learn(const struct record *r)
{
	struct event ev;

	if (r->comment)
		return;
	if (names == NULL)
		names = names_new();
	if (strcmp(r->f[COL_KIND], KIND_TASK) == 0) {
		names_learn(names, r);
		if (*record_str(r, COL_TID) != '\0')
			set(record_u64(r, COL_TID), pid_of(r, COL_PID));
		return;
	}
	/* Any record of a thread may say its process: events, vertices... */
	if (*record_str(r, COL_TID) != '\0' && pid_of(r, COL_PID) > 0)
		set(record_u64(r, COL_TID), pid_of(r, COL_PID));
	if (!event_parse(r, &ev))
		return;
	names_event(names, &ev);
	switch (ev.type) {
	case E_FORK:
		set(event_u64(&ev, ECOL(E_FORK, TTID)),
		    pid_of(r, EC_ARG + ECOL(E_FORK, TPID)));
		break;
	case E_EXEC:
		set(ev.tid, ev.tid);
		break;
	case E_COMM:
		(void)get(event_u64(&ev, ECOL(E_COMM, TTID)));
		break;
	default:
		break;
	}
}

const char *
thread_comm(uint32_t tid)
{
	return names != NULL ? names_at(names, tid, NO_TIME) : NULL;
}

const char *
thread_comm_at(uint32_t tid, uint64_t time)
{
	return names != NULL ? names_at(names, tid, time) : NULL;
}

int
thread_pid(uint32_t tid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	return t != NULL ? t->pid : -1;
}

static int
by_tid(struct thread *a, struct thread *b)
{
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

void
thread_foreach(void (*fn)(uint32_t, int, const char *, void *), void *arg)
{
	struct thread *t;

	HASH_SORT(threads, by_tid);
	for (t = threads; t != NULL; t = t->hh.next)
		fn(t->tid, t->pid, thread_comm(t->tid) != NULL ?
		    thread_comm(t->tid) : "", arg);
}

void
not_carried(const char *kind)
{
	struct kind *k;

	HASH_FIND_STR(kinds, kind, k);
	if (k == NULL) {
		k = xcalloc(1, sizeof(*k));
		k->name = xstrdup(kind);
		HASH_ADD_KEYPTR(hh, kinds, k->name, strlen(k->name), k);
	}
	k->n++;
}

static int
by_name(struct kind *a, struct kind *b)
{
	return strcmp(a->name, b->name);
}

void
not_carried_list(char *buf, size_t size)
{
	struct kind *k;
	size_t len = 0;

	buf[0] = '\0';
	HASH_SORT(kinds, by_name);
	for (k = kinds; k != NULL && len < size; k = k->hh.next)
		len += snprintf(buf + len, size - len, "%s%s %lu",
		    len ? ", " : "", k->name, k->n);
}
