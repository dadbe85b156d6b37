/*
 * Tracepoints to records, by field name: the importers' counterpart of
 * capture/emit.c, which reads the same fields at the offsets of the
 * running kernel's formats.  The columns of each type are argus-stream(5)'s;
 * a field the source lacks leaves its column empty, as a field the
 * running kernel lacks does in a capture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

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

enum tpid {
	T_SWITCH, T_WAKING, T_WAKEUP_NEW, T_NEWTASK, T_EXEC, T_EXIT, T_RENAME,
	T_SYS_ENTER, T_SYS_EXIT, T_IRQ_ENTRY, T_IRQ_EXIT, T_SOFTIRQ_ENTRY,
	T_SOFTIRQ_EXIT, T_HRT_START, T_HRT_EXPIRE_ENTRY, T_HRT_EXPIRE_EXIT,
	T_HRT_CANCEL, T_TIMER_START, T_TIMER_EXPIRE_ENTRY, T_TIMER_EXPIRE_EXIT,
	T_TIMER_CANCEL, T_WQ_QUEUE, T_WQ_START, T_WQ_END, T_BLOCK_ISSUE,
	T_BLOCK_COMPLETE, T_SIGNAL_GENERATE, T_SIGNAL_DELIVER, T_MARKER,
	T_FLOCK_LOCK, T_POSIX_LOCK, T_FCNTL_SETLK, T_POSIX_REMOVE,
};

/* Tracepoint name to TYPE: capture/events.c's table, by name. */
static const struct {
	const char	*name, *type;
} tps[] = {
	[T_SWITCH] = { "sched_switch", "switch" },
	[T_WAKING] = { "sched_waking", "waking" },
	[T_WAKEUP_NEW] = { "sched_wakeup_new", "wakeup_new" },
	[T_NEWTASK] = { "task_newtask", "fork" },
	[T_EXEC] = { "sched_process_exec", "exec" },
	[T_EXIT] = { "sched_process_exit", "exit" },
	[T_RENAME] = { "task_rename", "comm" },
	[T_SYS_ENTER] = { "sys_enter", "sys_enter" },
	[T_SYS_EXIT] = { "sys_exit", "sys_exit" },
	[T_IRQ_ENTRY] = { "irq_handler_entry", "irq_entry" },
	[T_IRQ_EXIT] = { "irq_handler_exit", "irq_exit" },
	[T_SOFTIRQ_ENTRY] = { "softirq_entry", "softirq_entry" },
	[T_SOFTIRQ_EXIT] = { "softirq_exit", "softirq_exit" },
	[T_HRT_START] = { "hrtimer_start", "hrtimer_start" },
	[T_HRT_EXPIRE_ENTRY] = { "hrtimer_expire_entry", "hrtimer_expire_entry" },
	[T_HRT_EXPIRE_EXIT] = { "hrtimer_expire_exit", "hrtimer_expire_exit" },
	[T_HRT_CANCEL] = { "hrtimer_cancel", "hrtimer_cancel" },
	[T_TIMER_START] = { "timer_start", "timer_start" },
	[T_TIMER_EXPIRE_ENTRY] = { "timer_expire_entry", "timer_expire_entry" },
	[T_TIMER_EXPIRE_EXIT] = { "timer_expire_exit", "timer_expire_exit" },
	[T_TIMER_CANCEL] = { "timer_cancel", "timer_cancel" },
	[T_WQ_QUEUE] = { "workqueue_queue_work", "wq_queue" },
	[T_WQ_START] = { "workqueue_execute_start", "wq_start" },
	[T_WQ_END] = { "workqueue_execute_end", "wq_end" },
	[T_BLOCK_ISSUE] = { "block_rq_issue", "block_issue" },
	[T_BLOCK_COMPLETE] = { "block_rq_complete", "block_complete" },
	[T_SIGNAL_GENERATE] = { "signal_generate", "signal_generate" },
	[T_SIGNAL_DELIVER] = { "signal_deliver", "signal_deliver" },
	[T_MARKER] = { "print", "marker" },
	[T_FLOCK_LOCK] = { "flock_lock_inode", "flock_lock" },
	[T_POSIX_LOCK] = { "posix_lock_inode", "posix_lock" },
	[T_FCNTL_SETLK] = { "fcntl_setlk", "fcntl_setlk" },
	[T_POSIX_REMOVE] = { "locks_remove_posix", "posix_remove" },
};

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

static int
lookup(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(tps); i++)
		if (strcmp(tps[i].name, name) == 0)
			return i;
	return -1;
}

void
tp_reset(void)
{
	struct thread *t, *tt;
	struct skip *s, *ss;

	HASH_ITER(hh, threads, t, tt) {
		HASH_DEL(threads, t);
		free(t);
	}
	HASH_ITER(hh, skips, s, ss) {
		HASH_DEL(skips, s);
		free(s->name);
		free(s);
	}
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

const char *
tp_comm(int tid)
{
	return thread(tid)->comm;
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

/*
 * A file lock's DEV,INODE,LOCK,FLAGS,START,END,LOCK_PID,OWNER,BLOCKER,
 * RET,FL: capture/emit.c's filelock(), by the fields' names.
 */
static void
filelock(struct writer *w, const struct tp *e)
{
	static const char *const types[] = { "read", "write", "unlock" };
	static const char *const flags[] = { "POSIX", "FLOCK", "DELEG",
	    "ACCESS", "EXISTS", "LEASE", "CLOSE", "SLEEP", "DOWNGRADE_PENDING",
	    "UNLOCK_PENDING", "OFD", "", "RECLAIM" };
	char buf[160];
	size_t n = 0, i;
	int64_t v;

	col_dev(w, e, "s_dev");
	if (e->num(e, "i_ino", 16, &v))		/* printed 0x%lx */
		writer_u64(w, (uint64_t)v);
	else
		writer_empty(w);
	writer_str(w, e->num(e, "type", 10, &v) && v >= 0 && v < 3 ?
	    types[v] : "");
	if (e->num(e, "flags", 10, &v)) {
		buf[0] = '\0';
		for (i = 0; i < ARRAY_LEN(flags) && n < sizeof(buf) - 24; i++)
			if ((v & (1u << i)) && flags[i][0] != '\0')
				n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
				    n ? "|" : "", flags[i]);
		writer_str(w, buf);
	} else
		writer_empty(w);
	col_i(w, e, "fl_start");
	col_i(w, e, "fl_end");
	col_i(w, e, "pid");
	col_x(w, e, "owner");
	col_x(w, e, "blocker");
	col_i(w, e, "ret");
	col_x(w, e, "fl");
}

/* Letters as in ps(1); capture/emit.c writes the same. */
static void
col_state(struct writer *w, const struct tp *e)
{
	static const char letters[] = "SDTtXZPI";
	char buf[16];
	size_t n = 0, i;
	int64_t st;

	if (!e->num(e, "prev_state", 10, &st)) {
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

/* The thread named in field f, as TPID,TTID. */
static void
col_thread(struct writer *w, const struct tp *e, const char *f)
{
	int tid = field_tid(e, f);

	if (tid < 0) {
		writer_empty(w);
		writer_empty(w);
		return;
	}
	col_pid(w, tid);
	writer_u64(w, tid);
}

static void
args(struct writer *w, int t, const struct tp *e)
{
	char f[16];
	const char *s;
	size_t n;
	int64_t v, nr;
	int i;

	switch (t) {
	case T_SWITCH:
		col_state(w, e);
		col_thread(w, e, "next_pid");
		col_s(w, e, "next_comm");
		break;
	case T_WAKING:
	case T_WAKEUP_NEW:
		col_thread(w, e, "pid");
		col_i(w, e, "target_cpu");
		col_s(w, e, "comm");
		break;
	case T_NEWTASK:
		col_thread(w, e, "pid");
		col_x(w, e, "clone_flags");
		col_s(w, e, "comm");
		break;
	case T_EXEC:
		col_s(w, e, "filename");
		col_i(w, e, "old_pid");
		break;
	case T_EXIT:
		col_s(w, e, "comm");
		col_u(w, e, "group_dead");
		break;
	case T_RENAME:
		col_thread(w, e, "pid");
		col_s(w, e, "oldcomm");
		col_s(w, e, "newcomm");
		break;
	case T_SYS_ENTER:
	case T_SYS_EXIT:
		if (!e->num(e, "id", 10, &nr)) {
			writer_empty(w);
			writer_empty(w);
		} else {
			writer_i64(w, nr);
			writer_str(w, syscall_name(nr));
		}
		if (t == T_SYS_EXIT) {
			col_i(w, e, "ret");
			break;
		}
		/* All six registers: the source does not say how many count. */
		for (i = 0; i < 6; i++) {
			snprintf(f, sizeof(f), "args[%d]", i);
			if (!e->num(e, f, 16, &v))
				break;
			writer_hex(w, (uint64_t)v);
		}
		break;
	case T_IRQ_ENTRY:
		col_i(w, e, "irq");
		col_s(w, e, "name");
		break;
	case T_IRQ_EXIT:
		col_i(w, e, "irq");
		col_i(w, e, "ret");
		break;
	case T_SOFTIRQ_ENTRY:
	case T_SOFTIRQ_EXIT:
		if (!e->num(e, "vec", 10, &v)) {
			writer_empty(w);
			writer_empty(w);
			break;
		}
		writer_u64(w, v);
		writer_str(w, v >= 0 && v < (int64_t)ARRAY_LEN(softirq_names) ?
		    softirq_names[v] : "");
		break;
	case T_HRT_START:
		col_x(w, e, "hrtimer");
		col_x(w, e, "function");
		col_i(w, e, "expires");
		col_i(w, e, "softexpires");
		col_u(w, e, "mode");
		break;
	case T_HRT_EXPIRE_ENTRY:
		col_x(w, e, "hrtimer");
		col_x(w, e, "function");
		col_i(w, e, "now");
		break;
	case T_TIMER_EXPIRE_ENTRY:
		col_x(w, e, "timer");
		col_x(w, e, "function");
		col_i(w, e, "now");
		break;
	case T_HRT_EXPIRE_EXIT:
	case T_HRT_CANCEL:
		col_x(w, e, "hrtimer");
		break;
	case T_TIMER_EXPIRE_EXIT:
	case T_TIMER_CANCEL:
		col_x(w, e, "timer");
		break;
	case T_TIMER_START:
		col_x(w, e, "timer");
		col_x(w, e, "function");
		col_u(w, e, "expires");
		col_u(w, e, "now");
		col_x(w, e, "flags");
		break;
	case T_WQ_QUEUE:
		col_x(w, e, "work");
		col_x(w, e, "function");
		col_s(w, e, "workqueue");
		col_i(w, e, "req_cpu");
		col_i(w, e, "cpu");
		break;
	case T_WQ_START:
	case T_WQ_END:
		col_x(w, e, "work");
		col_x(w, e, "function");
		break;
	case T_BLOCK_ISSUE:
	case T_BLOCK_COMPLETE:
		col_dev(w, e, "dev");
		col_u(w, e, "sector");
		col_u(w, e, "nr_sector");
		if (t == T_BLOCK_ISSUE)
			col_u(w, e, "bytes");
		else
			col_i(w, e, "error");
		col_s(w, e, "rwbs");
		break;
	case T_FLOCK_LOCK:
	case T_POSIX_LOCK:
	case T_FCNTL_SETLK:
	case T_POSIX_REMOVE:
		filelock(w, e);
		break;
	case T_SIGNAL_GENERATE:
		col_i(w, e, "sig");
		col_thread(w, e, "pid");
		col_s(w, e, "comm");
		col_i(w, e, "code");
		col_i(w, e, "group");
		col_i(w, e, "result");
		break;
	case T_SIGNAL_DELIVER:
		col_i(w, e, "sig");
		col_i(w, e, "code");
		col_x(w, e, "sa_handler");
		col_x(w, e, "sa_flags");
		break;
	case T_MARKER:
		/* echo(1) ends the text with a newline that is not part of it. */
		if (e->str(e, "buf", &s, &n)) {
			if (n > 0 && s[n - 1] == '\n')
				n--;
			writer_strn(w, s, n);
		} else
			writer_empty(w);
		break;
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
	case T_NEWTASK:
		if ((child = field_tid(e, "pid")) < 0)
			break;
		parent = thread(e->tid);
		/* CLONE_THREAD: same process; otherwise a process of its own. */
		if (e->num(e, "clone_flags", 16, &flags) && (flags & 0x00010000))
			tgid = parent->tgid;
		else
			tgid = child;
		if (tgid >= 0)
			thread(child)->tgid = tgid;
		if (e->str(e, "comm", &s, &n))
			name(thread(child), s, n);
		break;
	case T_EXEC:
		/* A thread that execs takes over its process's leader id. */
		if (!e->str(e, "filename", &s, &n))
			break;
		if ((b = memrchr(s, '/', n)) != NULL) {
			n -= b + 1 - s;
			s = b + 1;
		}
		if ((child = field_tid(e, "pid")) < 0)
			child = e->tid;
		thread(child)->tgid = child;
		name(thread(child), s, n);
		break;
	case T_RENAME:
		if ((child = field_tid(e, "pid")) < 0)
			child = e->tid;
		if (e->str(e, "newcomm", &s, &n))
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
	    (!t->named || !(strncmp(t->comm, s, n) == 0 &&
	    t->comm[n] == '-')))
		name(t, s, n);
	t->introduced = 1;
	writer_begin(w, "task");
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
	*commf = "comm";
	switch (t) {
	case T_SWITCH:
		*commf = "next_comm";
		return field_tid(e, "next_pid");
	case T_WAKING:
	case T_WAKEUP_NEW:
	case T_NEWTASK:
	case T_SIGNAL_GENERATE:
		return field_tid(e, "pid");
	case T_RENAME:
		*commf = "newcomm";
		return field_tid(e, "pid");
	}
	return -1;
}

void
tp_event(struct writer *w, const struct tp *e)
{
	const char *commf = NULL;
	char f[16];
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
	writer_begin(w, "event");
	writer_u64(w, e->ts);
	col_pid(w, e->tid);
	writer_u64(w, e->tid);
	writer_empty(w);	/* VERTEX: argus-segment fills it in */
	writer_u64(w, e->cpu);
	if (t < 0) {
		/* A user probe fires in its task; arguments are registers. */
		writer_str(w, e->name);
		writer_str(w, "-");
		for (i = 1; i <= 16; i++) {
			snprintf(f, sizeof(f), "arg%d", i);
			if (!e->num(e, f, 16, &v))
				break;
			writer_hex(w, (uint64_t)v);
		}
	} else {
		writer_str(w, tps[t].type);
		writer_strn(w, &e->ctx, 1);
		args(w, t, e);
	}
	writer_end(w);
}

void
tp_lost(struct writer *w, uint64_t ts, int cpu, uint64_t count)
{
	writer_begin(w, "lost");
	writer_u64(w, ts);
	writer_empty(w);
	writer_empty(w);
	if (cpu < 0)
		writer_empty(w);
	else
		writer_u64(w, cpu);
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
