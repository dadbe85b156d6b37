/*
 * A thread's name over time: see names.h.  Each thread keeps its names
 * in the order the stream gives them, which is time order; a lookup
 * looks back from the newest, as most lookups are of the present.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "event.h"
#include "names.h"
#include "util.h"

struct name {
	uint64_t	 time;
	char		 comm[NAME_LEN];
};

struct tnames {
	uint32_t	 tid;
	size_t		 n, cap;
	struct name	*v;
	UT_hash_handle	 hh;
};

struct names {
	struct tnames	*threads;
};

struct names *
names_new(void)
{
	return xcalloc(1, sizeof(struct names));
}

void
names_free(struct names *ns)
{
	if (ns == NULL)
		return;
	HASH_FREE_OWN(hh, ns->threads, t, t->v);
	free(ns);
}

static const struct tnames *
find(const struct names *ns, uint32_t tid)
{
	struct tnames *t;

	HASH_FIND(hh, ns->threads, &tid, sizeof(tid), t);
	return t;
}

void
names_set(struct names *ns, uint32_t tid, uint64_t time, const char *comm)
{
	struct tnames *t;
	struct name *p;
	size_t i;

	/* "": a task record that did not know it; unknown till the next. */
	if (comm == NULL)
		return;
	HASH_FIND(hh, ns->threads, &tid, sizeof(tid), t);
	if (t == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		HASH_ADD(hh, ns->threads, tid, sizeof(tid), t);
	}
	/* The same name again (a ring's next file introduces it anew). */
	if (t->n > 0 && strncmp(t->v[t->n - 1].comm, comm, NAME_LEN - 1) ==
	    0 && (time == NO_TIME || time >= t->v[t->n - 1].time))
		return;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 2;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	/* Merged streams may give one a little out of order. */
	for (i = t->n; i > 0 && time != NO_TIME && t->v[i - 1].time != NO_TIME &&
	    t->v[i - 1].time > time; i--)
		;
	memmove(t->v + i + 1, t->v + i, (t->n - i) * sizeof(*t->v));
	p = &t->v[i];
	p->time = time;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	t->n++;
}

int
names_learn(struct names *ns, const struct record *rec)
{
	struct event ev;
	uint64_t tid;

	if (rec->comment || rec->nf <= COL_FIRST_OWN)
		return 0;
	if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0) {
		if (!record_u64_opt(rec, COL_TID, &tid) || tid > UINT32_MAX)
			return 0;
		names_set(ns, tid, rec->time, rec->f[TASK_COMM]);
		return 1;
	}
	if (strcmp(rec->f[COL_KIND], KIND_EVENT) != 0 || rec->nf <= EC_TYPE)
		return 0;
	switch (etype_of(rec->f[EC_TYPE])) {
	case E_FORK:
	case E_COMM:
	case E_EXEC:
		return event_parse(rec, &ev) && names_event(ns, &ev);
	default:
		return 0;
	}
}

void
names_exec(char name[NAME_LEN], const char *path)
{
	const char *slash = strrchr(path, '/');

	snprintf(name, NAME_LEN, "%s", slash != NULL ? slash + 1 : path);
}

int
names_event(struct names *ns, const struct event *ev)
{
	char base[NAME_LEN];

	switch (ev->type) {
	case E_FORK:
		names_set(ns, event_u64(ev, ECOL(E_FORK, TTID)), ev->time,
		    event_str(ev, ECOL(E_FORK, TCOMM)));
		return 1;
	case E_COMM:
		names_set(ns, event_u64(ev, ECOL(E_COMM, TTID)), ev->time,
		    event_str(ev, ECOL(E_COMM, NEWCOMM)));
		return 1;
	case E_EXEC:
		names_exec(base, event_str(ev, ECOL(E_EXEC, FILENAME)));
		names_set(ns, ev->tid, ev->time, base);
		return 1;
	default:
		return 0;
	}
}

const char *
names_at(const struct names *ns, uint32_t tid, uint64_t time)
{
	const struct tnames *t = find(ns, tid);
	const char *s;
	size_t i;

	if (t == NULL || t->n == 0)
		return NULL;
	s = t->v[0].comm;
	for (i = t->n; i > 0; i--)
		if (time == NO_TIME || t->v[i - 1].time == NO_TIME ||
		    t->v[i - 1].time <= time) {
			s = t->v[i - 1].comm;
			break;
		}
	return *s != '\0' ? s : NULL;
}
