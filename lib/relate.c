/*
 * Related threads (relate.h).  One pass over the records collects each
 * thread's wake-ups (where its segments begin) and the relations into it;
 * the closure then walks back from the target's segments.
 */
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "graph.h"
#include "relate.h"
#include "show.h"
#include "util.h"
#include "waits.h"

#define COMM_LEN	16
#define MAX_RUNS	8	/* earlier runs of a target's program kept */
#define MAX_SIBLINGS	3	/* forks each side of a target kept */
#define MAX_CHILDREN	3	/* a target's last forks kept */
#define MAX_NEAR	8	/* the most of those */
_Static_assert(MAX_RUNS <= MAX_NEAR && MAX_SIBLINGS <= MAX_NEAR &&
    MAX_CHILDREN <= MAX_NEAR, "near[] holds each kind");

struct rel {
	uint64_t	 time;
	uint32_t	 from;		/* a thread, or with FROM_PROCESS its process */
	int		 process;
};

/*
 * One life of a thread id: a busy machine gives a dead thread's id to
 * another within seconds, and what happens to the next thread that has it
 * is not the doing of the last.  A fork begins a life; the hash holds each
 * id's latest, which points to the one before.
 */
struct rthread {
	uint32_t	 tid, pid;
	uint64_t	 since;		/* its fork, 0 if before the input */
	struct rthread	*earlier;	/* the life the id had before */
	uint32_t	 parent;	/* a process's: the process that forked it */
	uint64_t	 born;		/* and when */
	uint64_t	 died;		/* when it exited, 0 if not seen to */
	char		 prog[COMM_LEN];	/* what its last exec ran */
	char		*names;		/* every name it had, "\n"-separated */
	uint64_t	*wakes;		/* times its segments begin, after the first */
	size_t		 nwakes, capwakes;
	struct rel	*in;		/* relations into it */
	size_t		 nin, capin;
	uint8_t		*done;		/* per segment: walked back from */
	int		 acted;		/* an event of its own seen */
	int		 target, related;
	/* What related it first: a relation from it into via at via_time. */
	uint32_t	 via;
	uint64_t	 via_time;
	unsigned	 depth;
	UT_hash_handle	 hh;
};

/* Every life of every thread id. */
#define EACH_LIFE(r, id, t)						\
	for ((id) = (r)->threads; (id) != NULL; (id) = (id)->hh.next)	\
		for ((t) = (id); (t) != NULL; (t) = (t)->earlier)

/* What an interrupt works for, learnt where it was set up. */
enum { K_HRTIMER, K_TIMER, K_WORK, K_SOURCE, K_FLAG, K_BLOCK };
struct armed {
	struct { uint64_t kind, id, sub; } key;
	uint32_t	 tid;
	UT_hash_handle	 hh;
};

/* A file's lock holders, as its lock events say: who a refusal waits on. */
#define LOCK_HOLDERS	8
#define LOCK_SLEEPS	1	/* FILE_LOCK_DEFERRED */
#define LOCK_REFUSED	(-11)	/* -EAGAIN */
struct lockfile {
	struct { uint64_t dev, inode; } key;
	struct { uint64_t owner; uint32_t tid; } h[LOCK_HOLDERS];
	int		 n;
	UT_hash_handle	 hh;
};

/* A snapshot's waits and holders, joined at the end by time and object. */
struct snapwait {
	char		*key;		/* "TIME OBJECT" */
	uint32_t	*tids;
	size_t		 n;
	UT_hash_handle	 hh;
};
struct snapholder {
	uint64_t	 time;
	uint32_t	 pid, tid;
	char		*key;
};

/* A task record, named once the events of its time are seen. */
struct named {
	uint32_t	 tid, pid;
	char		 comm[COMM_LEN + 1];
};

struct relate {
	struct rthread	*threads;
	struct named	*named;
	size_t		 nnamed, capnamed;
	uint64_t	 named_at;
	struct armed	*armed;
	struct lockfile	*locks;
	uint32_t	*irq_for;	/* per CPU: the thread its interrupt works for */
	size_t		 ncpu;
	struct snapwait	*waits;
	struct snapholder *holders;
	size_t		 nholders;
	uint64_t	 nrel;
};

int
relate_indexed_type(enum etype t)
{
	switch (t) {
	case E_WAKING: case E_WAKEUP_NEW: case E_FORK: case E_EXEC:
	case E_COMM: case E_EXIT: case E_SIGNAL_GENERATE:
	case E_SOFTIRQ_ENTRY: case E_SOFTIRQ_EXIT: case E_IRQ_EXIT:
	case E_HRT_START: case E_HRT_EXPIRE_ENTRY: case E_HRT_EXPIRE_EXIT:
	case E_TIMER_START: case E_TIMER_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_EXIT: case E_WQ_QUEUE: case E_WQ_START:
	case E_BLOCK_ISSUE: case E_BLOCK_COMPLETE: case E_FLAG_WRITE:
	case E_FLAG_READ: case E_RUNLOOP_SUBMIT: case E_RUNLOOP_BEGIN:
	case E_FLOCK_LOCK: case E_POSIX_LOCK: case E_FCNTL_SETLK:
	case E_POSIX_REMOVE:
		return 1;
	default:
		return 0;
	}
}

struct relate *
relate_new(void)
{
	return xcalloc(1, sizeof(struct relate));
}

/* The id's latest life: the one an event in time order is of. */
static struct rthread *
thread(struct relate *r, uint32_t tid, uint32_t pid)
{
	struct rthread *t;

	HASH_GET(hh, r->threads, tid, &tid, t);
	if (pid != 0)
		t->pid = pid;
	return t;
}

/* The life of latest's id at time. */
static struct rthread *
at(struct rthread *latest, uint64_t time)
{
	while (latest->since > time && latest->earlier != NULL)
		latest = latest->earlier;
	return latest;
}

/* When life ends: the next life of its id begins. */
static uint64_t
end_of(struct relate *r, const struct rthread *life)
{
	struct rthread *t;

	HASH_FIND(hh, r->threads, &life->tid, sizeof(life->tid), t);
	while (t != NULL && t->earlier != life)
		t = t->earlier;
	return t != NULL ? t->since : UINT64_MAX;
}

/*
 * A fork of tid at time: its new life, the one it had before kept if it
 * was one (more than a name from a list of the machine's threads).
 */
static struct rthread *
born(struct relate *r, uint32_t tid, uint64_t time)
{
	struct rthread *t, *old;

	HASH_FIND(hh, r->threads, &tid, sizeof(tid), old);
	if (old != NULL && !old->acted && old->died == 0 && old->nin == 0 &&
	    old->nwakes == 0 && old->earlier == NULL) {
		old->since = time;
		return old;
	}
	if (old != NULL)
		HASH_DEL(r->threads, old);
	t = xcalloc(1, sizeof(*t));
	t->tid = tid;
	t->since = time;
	t->earlier = old;
	HASH_ADD(hh, r->threads, tid, sizeof(t->tid), t);
	return t;
}

static void
name(struct rthread *t, const char *comm)
{
	size_t n, have;
	char *p;

	if (*comm == '\0')
		return;
	n = strnlen(comm, COMM_LEN);
	for (p = t->names; p != NULL; p = strchr(p, '\n')) {
		p += *p == '\n';
		if (strncmp(p, comm, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return;
	}
	have = t->names != NULL ? strlen(t->names) : 0;
	t->names = xrealloc(t->names, have + n + 2);
	if (have > 0)
		t->names[have++] = '\n';
	memcpy(t->names + have, comm, n);
	t->names[have + n] = '\0';
}

/* A segment of t begins at time. */
static void
woken(struct rthread *t, uint64_t time)
{
	if (t->nwakes == t->capwakes) {
		t->capwakes = t->capwakes ? 2 * t->capwakes : 4;
		t->wakes = xrealloc(t->wakes, t->capwakes * sizeof(*t->wakes));
	}
	t->wakes[t->nwakes++] = time;
}

static void
relation(struct relate *r, uint64_t time, uint32_t from, int process,
    uint32_t to, int wake)
{
	struct rthread *t;

	if (to == 0 || from == 0 || (from == to && !process))
		return;
	t = at(thread(r, to, 0), time);
	if (wake)
		woken(t, time);
	if (t->nin == t->capin) {
		t->capin = t->capin ? 2 * t->capin : 4;
		t->in = xrealloc(t->in, t->capin * sizeof(*t->in));
	}
	t->in[t->nin++] = (struct rel){ time, from, process };
	r->nrel++;
}

static void
arm(struct relate *r, uint64_t kind, uint64_t id, uint64_t sub, uint32_t tid)
{
	struct armed k = { .key = { kind, id, sub } }, *a;

	HASH_FIND(hh, r->armed, &k.key, sizeof(k.key), a);
	if (a == NULL) {
		a = xcalloc(1, sizeof(*a));
		a->key = k.key;
		HASH_ADD(hh, r->armed, key, sizeof(a->key), a);
	}
	a->tid = tid;
}

static uint32_t
armer(struct relate *r, uint64_t kind, uint64_t id, uint64_t sub)
{
	struct armed k = { .key = { kind, id, sub } }, *a;

	HASH_FIND(hh, r->armed, &k.key, sizeof(k.key), a);
	return a != NULL ? a->tid : 0;
}

static uint32_t *
irq_for(struct relate *r, uint32_t cpu)
{
	size_t n;

	if (cpu >= r->ncpu) {
		n = cpu + 1;
		r->irq_for = xrealloc(r->irq_for, n * sizeof(*r->irq_for));
		memset(r->irq_for + r->ncpu, 0, (n - r->ncpu) *
		    sizeof(*r->irq_for));
		r->ncpu = n;
	}
	return &r->irq_for[cpu];
}

/* A block device "MAJ:MIN" as one number. */
static uint64_t
dev_id(const char *s)
{
	char *end;
	uint64_t maj, min;

	maj = strtoull(s, &end, 10);
	min = *end == ':' ? strtoull(end + 1, NULL, 10) : 0;
	return maj << 32 | min;
}

/* Identities only: a malformed one is no relation, not an error. */
static uint64_t
arg_u64(const struct event *ev, int arg)
{
	return strtoull(event_str(ev, arg), NULL, 0);
}

/*
 * A lock taken is held until its owner unlocks; a request that must sleep
 * or is refused waits on every other owner's (a superset of the
 * conflicting ones, which is all a relation needs).
 */
static void
see_lock(struct relate *r, const struct event *ev)
{
	struct lockfile k, *f;
	uint64_t owner = arg_u64(ev, FILELOCK_COL(OWNER));
	int64_t ret = strtoll(event_str(ev, FILELOCK_COL(RET)), NULL, 0);
	int i, unlock;

	memset(&k, 0, sizeof(k));
	k.key.dev = dev_id(event_str(ev, FILELOCK_COL(DEV)));
	k.key.inode = arg_u64(ev, FILELOCK_COL(INODE));
	HASH_FIND(hh, r->locks, &k.key, sizeof(k.key), f);
	if (f == NULL) {
		f = xcalloc(1, sizeof(*f));
		f->key = k.key;
		HASH_ADD(hh, r->locks, key, sizeof(f->key), f);
	}
	unlock = ev->type == E_POSIX_REMOVE ||
	    strcmp(event_str(ev, FILELOCK_COL(LOCK)), "unlock") == 0;
	if (ret == 0 || unlock) {
		for (i = 0; i < f->n; i++)
			if (f->h[i].owner == owner)
				f->h[i--] = f->h[--f->n];
		if (!unlock && ret == 0 && f->n < LOCK_HOLDERS) {
			f->h[f->n].owner = owner;
			f->h[f->n++].tid = ev->tid;
		}
		return;
	}
	if ((ret != LOCK_SLEEPS && ret != LOCK_REFUSED) || ev->ctx != '-')
		return;
	for (i = 0; i < f->n; i++)
		if (f->h[i].owner != owner)
			relation(r, ev->time, f->h[i].tid, 0, ev->tid, 0);
}

static void
see_event(struct relate *r, const struct event *ev)
{
	uint32_t *cur = irq_for(r, ev->cpu), other, pid;
	int task = ev->ctx == '-';
	struct rthread *t;

	if (ev->tid != 0)
		thread(r, ev->tid, ev->pid)->acted = 1;
	switch (ev->type) {
	case E_WAKING:
	case E_WAKEUP_NEW:
		other = event_other_tid(ev);
		/*
		 * Woken as bookkeeping, a housekeeper's segment serves who
		 * woke it and whoever asked while it ran (a stopper thread
		 * that moved an exec'ing process, then another): a relation
		 * into it would bring in the one for the other.
		 */
		if (ev->type == E_WAKING && other != 0 &&
		    housekeeper_comm(event_str(ev, WAKE_COL(TCOMM))))
			woken(at(thread(r, other, 0), ev->time), ev->time);
		else
			relation(r, ev->time, task ? ev->tid : *cur, 0, other,
			    1);
		break;
	case E_FORK:
		other = event_other_tid(ev);
		if (other == 0)
			break;
		t = born(r, other, ev->time);
		if ((pid = event_pid(ev, ECOL(E_FORK, TPID))) != 0)
			t->pid = pid;
		if (t->pid == other) {
			t->parent = ev->pid;
			t->born = ev->time;
		}
		name(t, event_str(ev, ECOL(E_FORK, TCOMM)));
		relation(r, ev->time, ev->tid, 0, other, 0);
		break;
	case E_EXIT:
		thread(r, ev->tid, ev->pid)->died = ev->time;
		break;
	case E_SIGNAL_GENERATE:
		relation(r, ev->time, task ? ev->tid : *cur, 0,
		    event_other_tid(ev), 0);
		break;
	case E_EXEC:
		name(thread(r, ev->tid, 0), event_str(ev,
		    ECOL(E_EXEC, FILENAME)));
		break;
	case E_COMM:
		t = thread(r, (uint32_t)arg_u64(ev, ECOL(E_COMM, TTID)), 0);
		name(t, event_str(ev, ECOL(E_COMM, NEWCOMM)));
		snprintf(t->prog, sizeof(t->prog), "%s",
		    event_str(ev, ECOL(E_COMM, NEWCOMM)));
		break;
	/*
	 * An interrupt works for whoever set it up: the timer's armer, the
	 * block request's issuer; a loopback softirq for the sender whose
	 * send raised it, the thread it interrupted.
	 */
	case E_HRT_START:
		if (task)
			arm(r, K_HRTIMER, arg_u64(ev, ECOL(E_HRT_START, TIMER)),
			    0, ev->tid);
		break;
	case E_HRT_EXPIRE_ENTRY:
		*cur = armer(r, K_HRTIMER, arg_u64(ev,
		    ECOL(E_HRT_EXPIRE_ENTRY, TIMER)), 0);
		break;
	case E_TIMER_START:
		if (task)
			arm(r, K_TIMER, arg_u64(ev, ECOL(E_TIMER_START, TIMER)),
			    0, ev->tid);
		break;
	case E_TIMER_EXPIRE_ENTRY:
		*cur = armer(r, K_TIMER, arg_u64(ev,
		    ECOL(E_TIMER_EXPIRE_ENTRY, TIMER)), 0);
		break;
	case E_BLOCK_ISSUE:
		if (task)
			arm(r, K_BLOCK, dev_id(event_str(ev,
			    ECOL(E_BLOCK_ISSUE, DEV))), arg_u64(ev,
			    ECOL(E_BLOCK_ISSUE, SECTOR)), ev->tid);
		break;
	case E_BLOCK_COMPLETE:
		*cur = armer(r, K_BLOCK, dev_id(event_str(ev,
		    ECOL(E_BLOCK_COMPLETE, DEV))), arg_u64(ev,
		    ECOL(E_BLOCK_COMPLETE, SECTOR)));
		break;
	case E_SOFTIRQ_ENTRY:
		*cur = (arg_u64(ev, ECOL(E_SOFTIRQ_ENTRY, VEC)) ==
		    SOFTIRQ_NET_RX || arg_u64(ev, ECOL(E_SOFTIRQ_ENTRY, VEC)) ==
		    SOFTIRQ_NET_TX) ? ev->tid : 0;
		break;
	case E_HRT_EXPIRE_EXIT:
	case E_TIMER_EXPIRE_EXIT:
	case E_SOFTIRQ_EXIT:
	case E_IRQ_EXIT:
		*cur = 0;
		break;
	case E_WQ_QUEUE:
		if (task)
			arm(r, K_WORK, arg_u64(ev, ECOL(E_WQ_QUEUE, WORK)), 0,
			    ev->tid);
		break;
	case E_WQ_START:
		relation(r, ev->time, armer(r, K_WORK, arg_u64(ev,
		    ECOL(E_WQ_START, WORK)), 0), 0, ev->tid, 0);
		break;
	case E_RUNLOOP_SUBMIT:
		arm(r, K_SOURCE, arg_u64(ev, ECOL(E_RUNLOOP_SUBMIT, SOURCE)), 0,
		    ev->tid);
		break;
	case E_RUNLOOP_BEGIN:
		relation(r, ev->time, armer(r, K_SOURCE, arg_u64(ev,
		    ECOL(E_RUNLOOP_BEGIN, SOURCE)), 0), 0, ev->tid, 0);
		break;
	case E_FLAG_WRITE:
		arm(r, K_FLAG, arg_u64(ev, ECOL(E_FLAG_WRITE, ADDRESS)), 0,
		    ev->tid);
		break;
	case E_FLAG_READ:
		relation(r, ev->time, armer(r, K_FLAG, arg_u64(ev,
		    ECOL(E_FLAG_READ, ADDRESS)), 0), 0, ev->tid, 0);
		break;
	case E_FLOCK_LOCK:
	case E_POSIX_LOCK:
	case E_POSIX_REMOVE:
		see_lock(r, ev);
		break;
	default:
		break;
	}
}

static char *
snapkey(uint64_t time, const char *object)
{
	size_t n = strlen(object) + 24;
	char *k = xmalloc(n);

	snprintf(k, n, "%llu %s", (unsigned long long)time, object);
	return k;
}

/*
 * The task records of a time, once its events are seen: the capture
 * writes a new thread's before its fork, at the same time, and the name
 * is the new life's, not the one the id had before.
 */
static void
name_tasks(struct relate *r)
{
	size_t i;

	for (i = 0; i < r->nnamed; i++)
		name(thread(r, r->named[i].tid, r->named[i].pid),
		    r->named[i].comm);
	r->nnamed = 0;
}

void
relate_see(struct relate *r, const struct record *rec)
{
	struct wait_rec w;
	struct holder_rec h;
	struct snapwait *sw;
	struct event ev;
	uint64_t tid;
	char *k;

	if (rec->comment)
		return;
	if (r->nnamed > 0 && rec->time != r->named_at)
		name_tasks(r);
	if (event_parse(rec, &ev)) {
		see_event(r, &ev);
		return;
	}
	if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0) {
		if (record_u64_opt(rec, COL_TID, &tid) && tid <= UINT32_MAX &&
		    tid != 0) {
			if (r->nnamed == r->capnamed) {
				r->capnamed = r->capnamed ? 2 * r->capnamed : 8;
				r->named = xrealloc(r->named, r->capnamed *
				    sizeof(*r->named));
			}
			r->named[r->nnamed] = (struct named){ tid,
			    record_pid(rec, COL_PID), "" };
			snprintf(r->named[r->nnamed++].comm, COMM_LEN + 1,
			    "%s", record_str(rec, TASK_COMM));
			r->named_at = rec->time;
		}
	} else if (wait_parse(rec, &w)) {
		if (w.tid == 0 || w.object[0] == '\0')
			return;
		name(thread(r, w.tid, w.pid), w.comm);
		k = snapkey(w.time, w.object);
		HASH_FIND_STR(r->waits, k, sw);
		if (sw == NULL) {
			sw = xcalloc(1, sizeof(*sw));
			sw->key = k;
			HASH_ADD_KEYPTR(hh, r->waits, sw->key, strlen(sw->key),
			    sw);
		} else
			free(k);
		sw->tids = xrealloc(sw->tids, (sw->n + 1) * sizeof(*sw->tids));
		sw->tids[sw->n++] = w.tid;
	} else if (holder_parse(rec, &h)) {
		r->holders = xrealloc(r->holders, (r->nholders + 1) *
		    sizeof(*r->holders));
		r->holders[r->nholders++] = (struct snapholder){ h.time,
		    h.pid, h.tid, snapkey(h.time, h.object) };
	}
}

int
relate_target_tid(struct relate *r, uint32_t tid)
{
	struct rthread *t;

	name_tasks(r);
	HASH_FIND(hh, r->threads, &tid, sizeof(tid), t);
	if (t == NULL)
		return 0;
	t->target = 1;
	return 1;
}

/*
 * Process pid's leader at time: the life of its id then, unless that was
 * a thread of another process.  A thread whose process the stream never
 * said is its own.
 */
static struct rthread *
leader(struct relate *r, uint32_t pid, uint64_t time)
{
	struct rthread *t;

	HASH_FIND(hh, r->threads, &pid, sizeof(pid), t);
	for (t = t != NULL ? at(t, time) : NULL;
	    t != NULL && t->pid != pid && t->pid != 0; t = t->earlier)
		;
	return t;
}

/*
 * Process pid as its leader's life shows it (lead; NULL if it never
 * showed): the leader and the lives of the process's threads begun
 * while it lived, not those of an earlier process that had the id.
 */
static int
target_process(struct relate *r, uint32_t pid, struct rthread *lead)
{
	struct rthread *id, *t;
	uint64_t from = 0, to = UINT64_MAX;
	int found = 0;

	if (lead != NULL) {
		lead->target = found = 1;
		from = lead->earlier != NULL ? lead->since : 0;
		to = end_of(r, lead);
	}
	EACH_LIFE(r, id, t)
		if (t->pid == pid && t->since >= from && t->since < to)
			t->target = found = 1;
	return found;
}

/* The process that has the id now, or had it last. */
int
relate_target_pid(struct relate *r, uint32_t pid)
{
	name_tasks(r);
	return target_process(r, pid, leader(r, pid, UINT64_MAX));
}

/* Threads that had the name, and the other threads of their processes. */
int
relate_target_comm(struct relate *r, const char *comm)
{
	struct rthread *id, *t;
	size_t n = strnlen(comm, COMM_LEN - 1);
	const char *p;
	uint32_t pid;
	int found = 0;

	name_tasks(r);
	EACH_LIFE(r, id, t)
		for (p = t->names; p != NULL; p = strchr(p, '\n')) {
			p += *p == '\n';
			if (strncmp(p, comm, n) == 0 &&
			    (p[n] == '\n' || p[n] == '\0')) {
				pid = t->pid ? t->pid : t->tid;
				found += target_process(r, pid,
				    leader(r, pid, t->since));
				break;
			}
		}
	return found > 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_rel(const void *a, const void *b)
{
	return cmp_u64(&((const struct rel *)a)->time,
	    &((const struct rel *)b)->time);
}

static int
cmp_life(const void *a, const void *b)
{
	const struct relate_life *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return cmp_u64(&x->since, &y->since);
}

/* The holders of what snapshot waits were on: relations into the waiters. */
static void
join_snapshots(struct relate *r)
{
	struct snapholder *h;
	struct snapwait *sw;
	size_t i, j;

	for (i = 0; i < r->nholders; i++) {
		h = &r->holders[i];
		HASH_FIND_STR(r->waits, h->key, sw);
		for (j = 0; sw != NULL && j < sw->n; j++)
			relation(r, h->time, h->tid ? h->tid : h->pid,
			    h->tid == 0, sw->tids[j], 0);
	}
}

/* Index of the first element of v[0..n) greater than t. */
static size_t
after(const uint64_t *v, size_t n, uint64_t t)
{
	return PARTITION_POINT(n, i, v[i] <= t);
}

static size_t
first_rel(const struct rel *v, size_t n, uint64_t t)
{
	return PARTITION_POINT(n, i, v[i].time < t);
}

struct work {
	struct rthread	*t;
	size_t		 seg;
	unsigned	 depth;
};

/* Breadth first: a segment is reached by its shortest chain. */
struct queue {
	struct work	*v;
	size_t		 head, n, cap;
};

/* A kernel thread, by a name it had (kthread_comm). */
static int
kernel_thread(const struct rthread *t)
{
	const char *p;

	for (p = t->names; p != NULL; p = strchr(p, '\n')) {
		p += *p == '\n';
		if (kthread_comm(p))
			return 1;
	}
	return 0;
}

/*
 * A thread that matters matters now too: its last segment is what it does
 * while the target waits, what a wait-for snapshot shows of it.  Not a
 * kernel thread's: a CPU's migration or softirq thread, a kworker, works
 * for everyone, and now for whoever woke it last; a relation into that
 * segment brings it in, if it is the target's.
 */
static void
push(struct queue *q, struct rthread *t, size_t seg, unsigned depth,
    uint32_t via, uint64_t via_time)
{
	if (!t->related) {
		t->via = via;
		t->via_time = via_time;
		t->depth = depth;
	}
	if (t->done[seg])
		return;
	t->done[seg] = 1;
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 64;
		q->v = xrealloc(q->v, q->cap * sizeof(*q->v));
	}
	q->v[q->n++] = (struct work){ t, seg, depth };
	if (!t->related) {
		t->related = 1;
		if (!kernel_thread(t))
			push(q, t, t->nwakes, depth, via, via_time);
	}
}

/* The source of a relation at time: its segment then. */
static void
push_source(struct relate *r, struct queue *q, uint32_t tid, uint64_t time,
    unsigned depth, uint32_t via)
{
	struct rthread *t;

	HASH_FIND(hh, r->threads, &tid, sizeof(tid), t);
	if (t != NULL) {
		t = at(t, time);
		push(q, t, after(t->wakes, t->nwakes, time), depth, via,
		    time);
	}
}

/* How far apart two forks of one parent are. */
static uint64_t
gap(const struct rthread *t, const struct rthread *u)
{
	return t->born > u->born ? t->born - u->born : u->born - t->born;
}

/*
 * Forked by parent, or, running prog, by a child of parent that ran
 * something else: a wrapper (timeout, nice, sh -c) around the program.
 */
static int
started_by(struct relate *r, const struct rthread *u, uint32_t parent,
    const char *prog)
{
	struct rthread *w;

	if (u->parent == parent)
		return 1;
	if (prog == NULL || u->parent == 0)
		return 0;
	HASH_FIND(hh, r->threads, &u->parent, sizeof(uint32_t), w);
	return w != NULL && w->parent == parent && strcmp(w->prog, prog) != 0;
}

/*
 * u into near[], its *n first ones by rank against t, the least first,
 * at most k of them.
 */
static void
rank_in(struct rthread **near, size_t *n, size_t k, const struct rthread *t,
    struct rthread *u,
    uint64_t (*rank)(const struct rthread *, const struct rthread *))
{
	size_t i;

	for (i = *n < k ? (*n)++ : k;
	    i > 0 && rank(t, near[i - 1]) > rank(t, u); i--)
		if (i < k)
			near[i] = near[i - 1];
	if (i < k)
		near[i] = u;
}

/* The later a fork, the lower its rank. */
static uint64_t
younger(const struct rthread *t, const struct rthread *u)
{
	(void)t;
	return UINT64_MAX - u->born;
}

/*
 * Into near[], at most k of the processes t's parent forked before t
 * (before) or after it, the nearest first; their number.  Running prog,
 * if it is not NULL: earlier runs of it, gone or not; else still there
 * when t was forked: a part of the same task, not a job finished before.
 */
static size_t
nearest(struct relate *r, const struct rthread *t, const char *prog,
    int before, struct rthread **near, size_t k)
{
	struct rthread *id, *u;
	size_t n = 0;

	EACH_LIFE(r, id, u)
		if (u->tid == u->pid && started_by(r, u, t->parent, prog) &&
		    (before ? u->born < t->born : u->born > t->born) &&
		    (prog != NULL || u->died == 0 || u->died >= t->born) &&
		    (prog == NULL || strcmp(u->prog, prog) == 0))
			rank_in(near, &n, k, t, u, gap);
	return n;
}

/*
 * Into last[], at most k of the processes t forked, the last first; their
 * number.  Alive when t was last seen forking or not: t may wait for one
 * that is gone (its exit not seen), or one that has yet to act.
 */
static size_t
youngest(struct relate *r, const struct rthread *t, struct rthread **last,
    size_t k)
{
	struct rthread *id, *u;
	size_t n = 0;

	EACH_LIFE(r, id, u)
		if (u->tid == u->pid && u->parent == t->pid &&
		    (t->earlier == NULL || u->born >= t->born))
			rank_in(last, &n, k, t, u, younger);
	return n;
}

static void
add_targets(struct relate *r, struct rthread **u, size_t n)
{
	while (n-- > 0)
		target_process(r, u[n]->pid, u[n]);
}

/*
 * A program run once per task (a client, a watcher a script starts each
 * time) had its normal waits in other processes: the ones the target's
 * parent forked before it to run the same program.  They are targets too,
 * and so whoever ended their waits: what the hung one waits for, done
 * then.  And the processes forked just before and after the target, its
 * part of the task now (a shell's producer for its consumer): nothing may
 * relate them to it until the hang ends, and the diagnosis maps the
 * episodes' parts onto them.  And the children it forked last: what it
 * waits on may be one (a child it waits for, a lock or a semaphore the
 * child took), which nothing relates to it while the wait lasts.  The
 * nearest only: a shell that has run a thousand programs would bring in
 * the machine.
 */
static void
kin_of_targets(struct relate *r)
{
	struct rthread *id, *t, *near[MAX_NEAR], **targets = NULL;
	size_t nt = 0;

	/* The targets as they are, not those this adds. */
	EACH_LIFE(r, id, t)
		if (t->target && t->tid == t->pid) {
			targets = xrealloc(targets, (nt + 1) * sizeof(*targets));
			targets[nt++] = t;
		}
	while (nt-- > 0) {
		t = targets[nt];
		add_targets(r, near, youngest(r, t, near, MAX_CHILDREN));
		if (t->parent == 0)
			continue;
		if (t->prog[0] != '\0')
			add_targets(r, near, nearest(r, t, t->prog, 1, near,
			    MAX_RUNS));
		add_targets(r, near, nearest(r, t, NULL, 1, near,
		    MAX_SIBLINGS));
		add_targets(r, near, nearest(r, t, NULL, 0, near,
		    MAX_SIBLINGS));
	}
	free(targets);
}

struct relate_life *
relate_closure(struct relate *r, unsigned maxdepth, size_t *np)
{
	struct queue q = { NULL, 0, 0, 0 };
	struct rthread *id, *t, *u;
	struct relate_life *out = NULL;
	struct work w;
	uint64_t from, to, time;
	size_t i, k, n = 0;

	name_tasks(r);
	join_snapshots(r);
	EACH_LIFE(r, id, t) {
		/* qsort(NULL, 0) is undefined: a thread never woken. */
		if (t->nwakes > 0)
			qsort(t->wakes, t->nwakes, sizeof(*t->wakes), cmp_u64);
		if (t->nin > 0)
			qsort(t->in, t->nin, sizeof(*t->in), cmp_rel);
		t->done = xcalloc(t->nwakes + 1, 1);
	}
	kin_of_targets(r);
	EACH_LIFE(r, id, t)
		for (k = 0; t->target && k <= t->nwakes; k++)
			push(&q, t, k, 0, 0, 0);
	while (q.head < q.n) {
		w = q.v[q.head++];
		if (maxdepth != 0 && w.depth >= maxdepth)
			continue;
		t = w.t;
		from = w.seg == 0 ? 0 : t->wakes[w.seg - 1];
		to = w.seg == t->nwakes ? UINT64_MAX : t->wakes[w.seg];
		for (i = first_rel(t->in, t->nin, from); i < t->nin &&
		    t->in[i].time < to; i++) {
			if (!t->in[i].process) {
				push_source(r, &q, t->in[i].from,
				    t->in[i].time, w.depth + 1, t->tid);
				continue;
			}
			time = t->in[i].time;
			EACH_LIFE(r, id, u)
				if (u->pid == t->in[i].from && at(id, time) == u)
					push(&q, u, after(u->wakes, u->nwakes,
					    time), w.depth + 1, t->tid, time);
		}
	}
	free(q.v);
	/* An id of one life is the id alone. */
	EACH_LIFE(r, id, t)
		if (t->related) {
			out = xrealloc(out, (n + 1) * sizeof(*out));
			out[n++] = (struct relate_life){ t->tid,
			    id->earlier != NULL ? t->since : 0,
			    id->earlier != NULL ? end_of(r, t) : UINT64_MAX };
		}
	if (n > 0)
		qsort(out, n, sizeof(*out), cmp_life);
	*np = n;
	return out;
}

/*
 * After relate_closure(): why each related thread is, one line each: a
 * target (or its kin), or the relation from it that first reached it.
 */
void
relate_explain(const struct relate *r, FILE *f)
{
	struct rthread *id, *t;
	const char *first;

	EACH_LIFE(r, id, t) {
		if (!t->related)
			continue;
		/* Its first name, as any name the system gave: escaped. */
		first = t->names != NULL ? t->names : "";
		fprintf(f, "%u/%u %s: ", t->pid, t->tid,
		    show_mem(first, strcspn(first, "\n")));
		if (t->target)
			fprintf(f, "a target\n");
		else
			fprintf(f, "into %u at %llu (%u relation%s from a "
			    "target)\n", t->via, (unsigned long long)t->via_time,
			    t->depth, t->depth == 1 ? "" : "s");
	}
}

uint64_t
relate_nrelations(const struct relate *r)
{
	return r->nrel;
}

void
relate_free(struct relate *r)
{
	struct rthread *id, *tmp, *t, *earlier;
	size_t i;

	HASH_ITER(hh, r->threads, id, tmp) {
		HASH_DEL(r->threads, id);
		for (t = id; t != NULL; t = earlier) {
			earlier = t->earlier;
			free(t->names);
			free(t->wakes);
			free(t->in);
			free(t->done);
			free(t);
		}
	}
	HASH_FREE(hh, r->armed);
	HASH_FREE(hh, r->locks);
	HASH_FREE_OWN(hh, r->waits, w, w->key, w->tids);
	for (i = 0; i < r->nholders; i++)
		free(r->holders[i].key);
	free(r->holders);
	free(r->irq_for);
	free(r->named);
	free(r);
}

#define HAS(set, t)	((set)[(t) / 8] & 1 << (t) % 8)
#define SET(set, t)	((set)[(t) / 8] |= 1 << (t) % 8)
#define CLEAR(set, t)	((set)[(t) / 8] &= ~(1 << (t) % 8))

/* Where a related life of an id of many lives begins or ends. */
struct lifemark {
	uint64_t	 time;
	uint32_t	 tid;
	int		 on;
};

struct relset *
relset_new(uint64_t limit)
{
	struct relset *rs = xcalloc(1, sizeof(*rs));

	rs->related = xcalloc(limit / 8 + 1, 1);
	rs->glimpsed = xcalloc(limit / 8 + 1, 1);
	rs->gone = xcalloc(limit / 8 + 1, 1);
	rs->limit = limit;
	return rs;
}

static void
mark_add(struct relset *rs, uint64_t time, uint32_t tid, int on)
{
	rs->marks = xrealloc(rs->marks, (rs->nmarks + 1) *
	    sizeof(*rs->marks));
	rs->marks[rs->nmarks++] = (struct lifemark){ time, tid, on };
}

void
relset_add(struct relset *rs, uint64_t tid, uint64_t since, uint64_t until)
{
	if (tid >= rs->limit)
		return;
	if (since == 0 && until == UINT64_MAX) {
		SET(rs->related, tid);
		return;
	}
	mark_add(rs, since, tid, 1);
	if (until != UINT64_MAX)
		mark_add(rs, until, tid, 0);
}

/* By time; where one life ends as the next begins, the end first. */
static int
cmp_mark(const void *a, const void *b)
{
	const struct lifemark *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->on - y->on;
}

/* The lives that began or ended by time: in the set or out. */
static void
marks_to(struct relset *rs, uint64_t time)
{
	struct lifemark *g;

	if (!rs->sorted) {
		qsort(rs->marks, rs->nmarks, sizeof(*rs->marks),
		    cmp_mark);
		rs->sorted = 1;
	}
	for (; rs->next < rs->nmarks && rs->marks[rs->next].time <= time;
	    rs->next++) {
		g = &rs->marks[rs->next];
		if (g->on)
			SET(rs->related, g->tid);
		else
			CLEAR(rs->related, g->tid);
	}
}

void
relset_free(struct relset *rs)
{
	if (rs == NULL)
		return;
	free(rs->marks);
	free(rs->related);
	free(rs->glimpsed);
	free(rs->gone);
	free(rs);
}

/*
 * A related thread's fork of a thread of its own process (the same PID):
 * the child is related from its birth.  Its fork is kept; without its
 * life, a later stage would see it begin and never stop: running, for all
 * it knows, through the hang.  Not a process it forks (a shell's
 * commands, a subshell that starts something unrelated).  By the type's
 * name, not its look-up: this is every related record's cost.
 */
static void
adopt(const struct record *rec, struct relset *rs)
{
	struct event ev;
	uint32_t child;

	if (rec->nf <= EC_CTX || rec->f[EC_CTX][0] != '-' ||
	    strcmp(rec->f[EC_TYPE], etype_name(E_FORK)) != 0 ||
	    strcmp(rec->f[COL_KIND], KIND_EVENT) != 0)
		return;
	ev.rec = rec;
	ev.type = E_FORK;
	if ((child = event_other_tid(&ev)) != 0 && child < rs->limit &&
	    event_pid(&ev, ECOL(E_FORK, TPID)) == record_pid(rec, COL_PID))
		SET(rs->related, child);
}

/*
 * The thread's last switch, dead (X, Z): its id is free, and a thread
 * that has it next (a busy machine reuses ids within a minute) is
 * another, related or not on its own.
 */
static int
died(const struct record *rec)
{
	struct event ev;
	const char *state;

	if (rec->nf <= EC_CTX || rec->f[EC_TYPE][0] != 's' ||
	    strcmp(rec->f[EC_TYPE], etype_name(E_SWITCH)) != 0 ||
	    rec->f[EC_CTX][0] != '-' ||
	    strcmp(rec->f[COL_KIND], KIND_EVENT) != 0)
		return 0;
	ev.rec = rec;
	ev.type = E_SWITCH;
	state = event_str(&ev, ECOL(E_SWITCH, STATE));
	return state[0] == 'X' || state[0] == 'Z';
}

/*
 * A glimpsed thread's own event that says it stops: its exit, a switch
 * away from it (the last, once it sleeps or dies).  Without them a later
 * stage would see it run from its glimpse to the end of the stream: on a
 * CPU, for all it knows, through the hang (a shell's subshell that woke a
 * related parent and exited).
 */
static int
stops(const struct record *rec, struct relset *rs, uint32_t tid)
{
	struct event ev;

	if (strcmp(rec->f[EC_TYPE], etype_name(E_EXIT)) == 0)
		return 1;
	if (strcmp(rec->f[EC_TYPE], etype_name(E_SWITCH)) != 0)
		return 0;
	ev.rec = rec;
	ev.type = E_SWITCH;
	if (event_str(&ev, ECOL(E_SWITCH, STATE))[0] != 'R')
		CLEAR(rs->glimpsed, tid);
	return 1;
}

int
relate_keep(const struct record *rec, struct relset *rs)
{
	struct event ev;
	uint64_t tid;
	uint32_t other;

	if (rec->comment || !record_u64_opt(rec, COL_TID, &tid))
		return 1;
	if (rs->next < rs->nmarks && rec->time != NO_TIME)
		marks_to(rs, rec->time);
	if (tid < rs->limit && HAS(rs->related, tid)) {
		adopt(rec, rs);
		if (died(rec)) {
			CLEAR(rs->related, tid);
			SET(rs->gone, tid);
		}
		return 1;
	}
	if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0)
		return 1;
	/* A lock's owner that exited holding it: the snapshot names it. */
	if (strcmp(rec->f[COL_KIND], KIND_HOLDER) == 0)
		return tid < rs->limit && HAS(rs->gone, tid);
	if (strcmp(rec->f[COL_KIND], KIND_EVENT) != 0 || rec->nf <= EC_CTX)
		return 0;
	if (rec->f[EC_CTX][0] != '-')
		return 1;
	if (tid < rs->limit && HAS(rs->glimpsed, tid) && stops(rec, rs, tid))
		return 1;
	ev.rec = rec;
	ev.type = etype_of(rec->f[EC_TYPE]);
	other = event_other_tid(&ev);
	if (other == 0 || other >= rs->limit || !HAS(rs->related, other))
		return 0;
	/* The idle task's switches are a CPU's, not a thread's. */
	if (tid != 0 && tid < rs->limit)
		SET(rs->glimpsed, tid);
	return 1;
}
