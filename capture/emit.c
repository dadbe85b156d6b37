/*
 * From raw pages to records: the hot path.  kbuffer (libtraceevent) walks
 * the ring buffer's page format (event headers, time extends, absolute
 * stamps, padding), which is subtle and versioned; the payloads we read
 * ourselves at the offsets the format files gave, which costs a load per
 * field instead of libtraceevent's by-name field lookups and its printf
 * engine.  Nothing is allocated per event (a user stack aside).
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/kbuffer.h>

#include "event.h"
#include "relate.h"
#include "util.h"
#include "dwstack.h"
#include "emit.h"
#include "events.h"
#include "kallsyms.h"
#include "patched.h"
#include "probes.h"
#include "spill.h"
#include "spillblk.h"
#include "spool.h"
#include "syscalls.h"
#include "tasks.h"
#include "tracefs.h"
#include "ustack.h"

/* From the kernel's trace_entry flags (kernel/trace/trace.h). */
#define TF_HARDIRQ	0x08
#define TF_SOFTIRQ	0x10
#define TF_NMI		0x40

struct cursor {
	struct kbuffer	*kb;
	struct page	*pg;
	void		*ev;		/* NULL: wait for a page */
	unsigned long long ts;
	uint64_t	 lost;		/* before its page's first event, to say */
};

static struct cursor	*cur;
static int		 ncpus;
static uint64_t		 count, last;
static uint64_t		*said;		/* each CPU's losses said, emit_lost() */
static int		 selecting;
static char		**comms;
static int		 ncomms;
static int8_t		 nargs[SYSCALL_MAX];	/* 0: not looked up; n+1 */
static int		 stacking;
static char		**stk_comms;
static int		 nstk_comms;
static uint8_t		 indexed[EV_N];	/* relate_indexed_type() */
static uint8_t		 naming[EV_N];	/* its function gets a ksym record */
/*
 * Columns by name, -1 where the type has none: a timer's or work item's
 * FUNCTION, the thread an event names (TTID) and that thread's name.
 */
static int8_t		 col_func[EV_N], col_ttid[EV_N], col_tcomm[EV_N];
/* And the fields the tid table learns from. */
static int		 fork_flags, exec_file, exec_pid, exec_old, comm_new;

void
emit_init(int ncpu)
{
	int i;

	for (i = 0; i < EV_N; i++) {
		col_func[i] = edef_col(i, "FUNCTION");
		col_ttid[i] = edef_col(i, "TTID");
		if ((col_tcomm[i] = edef_col(i, "TCOMM")) < 0)
			col_tcomm[i] = edef_col(i, "NEWCOMM");
	}
	fork_flags = edef_col(E_FORK, "CLONE_FLAGS");
	exec_file = edef_col(E_EXEC, "FILENAME");
	exec_pid = edef_col(E_EXEC, "pid");
	exec_old = edef_col(E_EXEC, "OLD_TID");
	comm_new = edef_col(E_COMM, "NEWCOMM");
	if (col_ttid[E_FORK] < 0 || col_tcomm[E_FORK] < 0 || fork_flags < 0 ||
	    exec_file < 0 || exec_pid < 0 || col_ttid[E_COMM] < 0 ||
	    comm_new < 0)
		diex(EX_SOFTWARE, "lib/events.def: fork, exec or comm lacks a "
		    "column the tid table needs");
	sockev_check();
	/* Names only for functions that events will carry. */
	for (i = 0; i < EV_N; i++)
		naming[i] = evdefs[i].enabled && col_func[i] >= 0 &&
		    evdefs[i].f[col_func[i]].off >= 0;
	for (i = 0; i < EV_N && !naming[i]; i++)
		;
	if (i < EV_N && kallsyms_load() == 0)
		memset(naming, 0, sizeof(naming));
	ncpus = ncpu;
	cur = xcalloc(ncpu, sizeof(*cur));
	said = xcalloc(ncpu, sizeof(*said));
	for (i = 0; i < EV_N; i++)
		indexed[i] = i < E_NTYPES && relate_indexed_type(i);
	for (i = 0; i < ncpu; i++)
		if ((cur[i].kb = kbuffer_alloc(KBUFFER_LSIZE_8,
		    KBUFFER_ENDIAN_LITTLE)) == NULL)
			diex(EX_SOFTWARE, "kbuffer_alloc failed");
}

uint64_t
emit_count(void)
{
	return count;
}

uint64_t
emit_last_time(void)
{
	return last;
}

/*
 * Field access: a tracepoint's field of the event at d, as an unsigned or
 * signed integer of its size, or a string.  A ring buffer event is 4-byte
 * aligned, so its 8-byte fields may not be: loads go through memcpy, which
 * compiles to the same single move on x86 and is defined everywhere.
 */
#define LOAD(type, p)	({ type v_; memcpy(&v_, (p), sizeof(v_)); v_; })

static inline uint64_t
field_u64(const char *d, const struct field *f)
{
	switch (f->size) {
	case 1: return LOAD(uint8_t, d + f->off);
	case 2: return LOAD(uint16_t, d + f->off);
	case 4: return LOAD(uint32_t, d + f->off);
	default: return LOAD(uint64_t, d + f->off);
	}
}

static inline int64_t
field_i64(const char *d, const struct field *f)
{
	switch (f->size) {
	case 1: return LOAD(int8_t, d + f->off);
	case 2: return LOAD(int16_t, d + f->off);
	case 4: return LOAD(int32_t, d + f->off);
	default: return LOAD(int64_t, d + f->off);
	}
}

/* A string field: fixed char[N], or __data_loc / __rel_loc. */
static inline const char *
field_str(const char *d, int size, const struct field *f, size_t *len)
{
	const char *s;
	uint32_t loc;
	size_t off, max;

	if (f->off < 0) {
		*len = 0;
		return "";
	}
	if (!f->dyn) {
		s = d + f->off;
		max = f->size;
		if (max == 0 && f->off < size)
			max = size - f->off;	/* "char buf[]": to the end */
		*len = strnlen(s, max);
		return s;
	}
	loc = LOAD(uint32_t, d + f->off);
	off = loc & 0xffff;
	if (f->rel)
		off += f->off + 4;
	max = loc >> 16;
	if (off >= (size_t)size) {
		*len = 0;
		return "";
	}
	if (off + max > (size_t)size)
		max = size - off;
	s = d + off;
	*len = strnlen(s, max);
	return s;
}

/* Columns. */

static inline void
col_pid(struct writer *w, int tid)
{
	int tgid = task_tgid(tid);

	if (tgid < 0)
		writer_empty(w);	/* gone before we learnt its process */
	else
		writer_u64(w, tgid);
}

static inline void
col_u(struct writer *w, const char *d, const struct field *f)
{
	if (f->off < 0)
		writer_empty(w);
	else
		writer_u64(w, field_u64(d, f));
}

static inline void
col_i(struct writer *w, const char *d, const struct field *f)
{
	if (f->off < 0)
		writer_empty(w);
	else
		writer_i64(w, field_i64(d, f));
}

static inline void
col_x(struct writer *w, const char *d, const struct field *f)
{
	if (f->off < 0)
		writer_empty(w);
	else
		writer_hex(w, field_u64(d, f));
}

static inline void
col_s(struct writer *w, const char *d, int size, const struct field *f)
{
	size_t n;
	const char *s = field_str(d, size, f, &n);

	writer_strn(w, s, n);
}

/* Letters as in ps(1) and the kernel's own sched_switch output. */
static void
col_state(struct writer *w, uint64_t st)
{
	static const char letters[] = "SDTtXZPI";
	char buf[16];
	size_t n = 0, i;

	for (i = 0; i < 8; i++)
		if (st & (1u << i))
			buf[n++] = letters[i];
	if (n == 0)
		buf[n++] = 'R';
	if (st & STATE_PREEMPTED)
		buf[n++] = '+';
	writer_strn(w, buf, n);
}

static int
syscall_nargs(long nr)
{
	char rel[128], buf[4096], *p;
	const char *name;
	int n = 0;

	if (nr < 0 || nr >= SYSCALL_MAX)
		return 6;
	if (nargs[nr] != 0)
		return nargs[nr] - 1;
	name = syscall_name(nr);
	snprintf(rel, sizeof(rel), "events/syscalls/sys_enter_%s/format", name);
	if (*name == '\0' || tfs_read(rel, buf, sizeof(buf)) <= 0)
		n = 6;
	else
		for (p = buf; (p = strstr(p, "field:")) != NULL; p++)
			if (strncmp(p, "field:int __syscall_nr", 22) != 0 &&
			    strncmp(p, "field:unsigned short common_", 28) != 0 &&
			    strncmp(p, "field:unsigned char common_", 27) != 0 &&
			    strncmp(p, "field:int common_", 17) != 0)
				n++;
	if (n > 6)
		n = 6;
	nargs[nr] = n + 1;
	return n;
}

/* Restriction. */

void
emit_select_pid(int pid)
{
	task_get(pid)->sel = 1;
	selecting = 1;
}

void
emit_select_comm(const char *comm)
{
	comms = xrealloc(comms, (ncomms + 1) * sizeof(*comms));
	comms[ncomms++] = xstrdup(comm);
	selecting = 1;
}

static int
selected(int tid)
{
	struct task *t, *p;
	int tgid, i;

	if (tid <= 0)
		return 0;
	t = task_get(tid);
	if ((tgid = task_tgid(tid)) <= 0)
		return 0;
	p = task_get(tgid);
	if (p->sel)
		return 1;
	for (i = 0; i < ncomms; i++)
		if (strcmp(t->comm, comms[i]) == 0 ||
		    strcmp(p->comm, comms[i]) == 0)
			return 1;
	return 0;
}

void
emit_stack_pid(int pid)
{
	task_get(pid)->stk = 1;
	stacking = 1;
	ustack_snapshot(pid);
	dwstack_follow(pid);
}

static void
follow_named(int tid, const struct task *t, void *comm)
{
	(void)tid;
	if (!t->dead && t->tgid > 0 && strcmp(t->comm, comm) == 0)
		dwstack_follow(t->tgid);
}

void
emit_stack_comm(const char *comm)
{
	stk_comms = xrealloc(stk_comms, (nstk_comms + 1) * sizeof(*stk_comms));
	stk_comms[nstk_comms++] = xstrdup(comm);
	stacking = 1;
	/* Those running now; those named so later, at their first event. */
	task_foreach(follow_named, (void *)comm);
}

static int
stack_wanted(int tid)
{
	struct task *t, *p;
	int tgid, i;

	if (tid <= 0 || (tgid = task_tgid(tid)) <= 0)
		return 0;
	t = task_get(tid);
	/*
	 * A thread past its exit has no user stack to take: do_exit()
	 * dropped its memory before sched_process_exit and its perf events
	 * before its last switch, so a wait there is no stack missed.
	 */
	if (t->dead)
		return 0;
	p = task_get(tgid);
	if (p->stk)
		return 1;
	for (i = 0; i < nstk_comms; i++)
		if (strcmp(t->comm, stk_comms[i]) == 0 ||
		    strcmp(p->comm, stk_comms[i]) == 0) {
			dwstack_follow(tgid);
			return 1;
		}
	return 0;
}

/*
 * stack,TIME,PID,TID,FRAMES...: innermost first (dwstack.c), of the
 * sample of this very switch or system call (dwstack_unwind()'s key).
 */
static void
stack(struct writer *w, uint64_t ts, int tid, int e, const char *d, int size)
{
	const struct field *f = evdefs[e].f, *f_args;
	uint64_t pcs[DWSTACK_MAXFRAMES];
	int64_t key[DWSTACK_MAXKEY];
	char buf[PATH_MAX];
	int i, n, nkey = 0, tgid = task_tgid(tid);

	if (e == E_SWITCH) {
		key[nkey++] = field_i64(d, &f[ECOL(E_SWITCH, STATE)]);
		if (f[ECOL(E_SWITCH, TPID)].off >= 0)
			key[nkey++] = field_i64(d, &f[ECOL(E_SWITCH, TPID)]);
	} else {		/* the first of ARGS */
		f_args = &f[ECOL(E_SYS_ENTER, ARG)];
		key[nkey++] = field_i64(d, &f[ECOL(E_SYS_ENTER, NR)]);
		if (f_args->off >= 0 && f_args->off + 8 <= size)
			key[nkey++] = LOAD(int64_t, d + f_args->off);
	}
	if ((n = dwstack_unwind(ts, tid, tgid, e == E_SWITCH ? DW_SWITCH :
	    DW_SYSCALL, key, nkey, pcs)) == 0)
		return;
	writer_begin(w, KIND_STACK);
	writer_u64(w, ts);
	col_pid(w, tid);
	writer_u64(w, tid);
	for (i = 0; i < n; i++) {
		ustack_frame(tgid, pcs[i], i > 0, buf, sizeof(buf));
		writer_str(w, buf);
	}
	writer_end(w);
}

/* Threads an event concerns besides the one it ran in. */
static int
other_tid(int e, const char *d)
{
	const struct field *f;

	if (col_ttid[e] < 0)
		return -1;
	f = &evdefs[e].f[col_ttid[e]];
	return f->off >= 0 ? (int)field_i64(d, f) : -1;
}

/*
 * The field naming the other thread, for one met first there that the
 * table could not name (gone from /proc): the name the event gives it,
 * as argus-import takes it from the same event.
 */
static void
name_other(int e, const char *d, int size, int other)
{
	struct task *t = task_get(other);
	const char *s;
	size_t n;
	int i;

	if (t->comm[0] != '\0' || t->intro == task_generation ||
	    (i = col_tcomm[e]) < 0)
		return;
	if (evdefs[e].f[i].off < 0 || (s = field_str(d, size, &evdefs[e].f[i],
	    &n)) == NULL)
		return;
	task_set(other, t->tgid, s, n);
}

/* What the tid table learns from an event, before it is written. */
static void
learn(int e, const char *d, int size, int tid)
{
	const struct field *f = evdefs[e].f;
	const char *s, *b;
	size_t n;
	int child, tgid;

	switch (e) {
	case E_FORK:
		child = field_i64(d, &f[col_ttid[e]]);
		s = field_str(d, size, &f[col_tcomm[e]], &n);
		/* A thread of the same process, or a process of its own. */
		if (field_u64(d, &f[fork_flags]) & CLONE_THREAD) {
			tgid = task_tgid(tid);
			task_set(child, tgid > 0 ? tgid : 0, s, n);
		} else {
			task_set(child, child, s, n);
			tgid = task_tgid(tid);
			task_fork(child, tgid);
			task_get(child)->sel = tgid > 0 && task_get(tgid)->sel;
			task_get(child)->stk = tgid > 0 && task_get(tgid)->stk;
			if (stacking)
				dwstack_inherit(tgid, child);
		}
		break;
	case E_EXEC:
		/* A thread that execs takes over its process's leader id. */
		s = field_str(d, size, &f[exec_file], &n);
		b = memrchr(s, '/', n);
		if (b != NULL) {
			n -= b + 1 - s;
			s = b + 1;
		}
		child = f[exec_pid].off >= 0 ? (int)field_i64(d, &f[exec_pid]) :
		    tid;
		task_set(child, child, s, n);
		if (stacking) {
			ustack_forget(child);
			dwstack_forget(child);
		}
		break;
	case E_EXIT:
		task_get(tid)->dead = 1;
		/*
		 * Its leader's exit ends a process (nearly always: a leader
		 * that leaves its threads running loses their stacks).  A
		 * long capture must not keep an event per CPU for every
		 * process it ever followed.
		 */
		if (stacking && task_tgid(tid) == tid) {
			ustack_forget(tid);
			dwstack_exit(tid);
		}
		break;
	case E_COMM:
		child = field_i64(d, &f[col_ttid[e]]);
		s = field_str(d, size, &f[comm_new], &n);
		tgid = task_tgid(child);
		task_set(child, tgid > 0 ? tgid : 0, s, n);
		break;
	}
}

/* The kernel's dev_t: 12 bits of major, 20 of minor. */
static void
col_dev(struct writer *w, uint64_t v)
{
	char dev[24];

	snprintf(dev, sizeof(dev), "%u:%u", (unsigned)(v >> 20),
	    (unsigned)(v & 0xfffff));
	writer_str(w, dev);
}

/* fl_flags by the names of include/linux/filelock.h, without FL_. */
static void
col_lockflags(struct writer *w, uint64_t v)
{
	static const char *const names[] = { "POSIX", "FLOCK", "DELEG",
	    "ACCESS", "EXISTS", "LEASE", "CLOSE", "SLEEP", "DOWNGRADE_PENDING",
	    "UNLOCK_PENDING", "OFD", "", "RECLAIM" };
	char buf[160];
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_LEN(names) && n < sizeof(buf) - 24; i++)
		if ((v & (1u << i)) && names[i][0] != '\0')
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
			    n ? "|" : "", names[i]);
	writer_str(w, buf);
}

/* The columns of lib/events.def, each as its KIND says. */
static void
args(struct writer *w, int e, const char *d, int size)
{
	const struct evdef *ed = &evdefs[e];
	const struct field *f = ed->f;
	const char *s;
	size_t n;
	static const char *const locks[] = { "read", "write", "unlock" };
	long nr = -1;
	int i, k, na;
	uint64_t v;

	for (i = 0; i < ed->ncols; i++, f++) {
		switch (ed->kind[i]) {
		case EK_U:
		case EK_UH:
			col_u(w, d, f);
			break;
		case EK_I:
			col_i(w, d, f);
			break;
		case EK_X:
			col_x(w, d, f);
			break;
		case EK_S:
			col_s(w, d, size, f);
			break;
		case EK_PID:
			col_pid(w, field_i64(d, f));
			break;
		case EK_STATE:
			col_state(w, field_u64(d, f));
			break;
		case EK_DEV:
			if (f->off >= 0)
				col_dev(w, field_u64(d, f));
			else
				writer_empty(w);
			break;
		case EK_SYSCALL:
			nr = field_i64(d, f);
			writer_str(w, syscall_name(nr));
			break;
		case EK_ARGS:	/* as many as the call before takes */
			na = syscall_nargs(nr);
			/* syscalls:sys_enter_NAME carries only its own. */
			if (f->off >= 0 && na > (size - f->off) / 8)
				na = (size - f->off) / 8;
			for (k = 0; k < na && f->off >= 0; k++)
				writer_hex(w, LOAD(uint64_t, d + f->off + 8 * k));
			break;
		case EK_SOFTIRQ:
			writer_str(w, softirq_name(field_u64(d, f)));
			break;
		case EK_LOCKTYPE:
			v = f->off >= 0 ? field_u64(d, f) : 3;
			writer_str(w, v < ARRAY_LEN(locks) ? locks[v] : "");
			break;
		case EK_LOCKFLAGS:
			if (f->off >= 0)
				col_lockflags(w, field_u64(d, f));
			else
				writer_empty(w);
			break;
		case EK_TCPSTATE:
		case EK_PROTO:
		case EK_ENDPOINT:
			sockev_col(w, ed->kind[i], i, d, ed->f);
			break;
		case EK_TEXT:
			s = field_str(d, size, f, &n);
			/* echo(1) ends it with a newline that is not part of it. */
			if (n > 0 && s[n - 1] == '\n')
				n--;
			writer_strn(w, s, n);
			break;
		case EK_I32:
			writer_i64(w, f->off >= 0 ? (int32_t)field_u64(d, f) :
			    0);
			break;
		case EK_X32:
			writer_hex(w, f->off >= 0 ? (uint32_t)field_u64(d, f) :
			    0);
			break;
		case EK_SK:
			writer_hex(w, f->off >= 0 ? field_u64(d, f) : 0);
			break;
		case EK_USE:
			break;
		}
	}
}

/*
 * A task record just before a thread's first event in this file: a
 * person reading the stream meets each thread where it first acts, and
 * downstream stages learn its name before they need it.
 */
static void
task_record(struct writer *w, uint64_t ts, int tid, const struct task *t)
{
	int tgid;

	writer_begin(w, KIND_TASK);
	writer_u64(w, ts);
	if ((tgid = task_tgid(tid)) > 0)
		writer_u64(w, tgid);
	else
		writer_empty(w);
	writer_u64(w, tid);
	writer_str(w, t->comm);
	writer_str(w, task_cgroup(tid));
	writer_end(w);
}

static void
introduce(struct writer *w, struct writer *idx, uint64_t ts, int tid)
{
	struct task *t;

	if (tid <= 0 || (t = task_get(tid))->intro == task_generation)
		return;
	t->intro = task_generation;
	task_record(w, ts, tid, t);
	if (idx != NULL)
		task_record(idx, ts, tid, t);
}

static void
record(struct writer *w, int e, int cpu, uint64_t ts, const char *d,
    int size, int tid, const char *ctx)
{
	static const char ctx_t[] = "-";

	writer_begin(w, KIND_EVENT);
	writer_u64(w, ts);
	col_pid(w, tid);
	writer_u64(w, tid);
	writer_empty(w);	/* VERTEX: argus-segment fills it in */
	writer_u64(w, cpu);
	if (e == EV_UPROBE) {
		const struct uprobe *u = probe_by_id(LOAD(uint16_t, d));
		int i;

		/*
		 * A uprobe fires on the task's own user-mode instruction;
		 * the kernel stamps it hardirq|NMI only because it handles
		 * the breakpoint trap like one.  It is the task's event.
		 */
		writer_str(w, u != NULL ? u->event : "uprobe");
		writer_strn(w, ctx_t, 1);
		for (i = 0; u != NULL && i < u->nf; i++)
			col_x(w, d, &u->f[i]);
	} else {
		writer_str(w, edefs[e].type);
		writer_strn(w, ctx, 1);
		args(w, e, d, size);
	}
	writer_end(w);
}

/* A uprobe's event may be one a relation needs (a run loop's). */
static int
index_it(int e, const char *d)
{
	const struct uprobe *u;

	if (e != EV_UPROBE)
		return indexed[e];
	u = probe_by_id(LOAD(uint16_t, d));
	return u != NULL && relate_indexed_type(etype_of(u->event));
}

static void
event(struct writer *w, struct writer *idx, int cpu, uint64_t ts,
    const char *d, int size)
{
	static const char ctx_h[] = "h", ctx_s[] = "s", ctx_n[] = "n",
	    ctx_t[] = "-";
	const char *ctx;
	unsigned flags;
	int e, tid, other, local;

	if (size < 8)
		return;
	e = ev_by_id[LOAD(uint16_t, d)];
	if (e == EV_NONE)
		return;
	tid = LOAD(int32_t, d + common_pid_off);
	if (selecting) {
		/* Learn first: a selected parent's fork selects the child. */
		learn(e, d, size, tid);
		other = other_tid(e, d);
		if (e == E_SOCK_STATE &&
		    (local = sockev_local(e, d, evdefs[e].f)) >= 0) {
			if (!local)
				return;
		} else if (!selected(tid) && !(other > 0 && selected(other)))
			return;
	} else {
		learn(e, d, size, tid);
		other = other_tid(e, d);
	}
	flags = LOAD(uint8_t, d + common_flags_off);
	ctx = flags & TF_NMI ? ctx_n : flags & TF_HARDIRQ ? ctx_h :
	    flags & TF_SOFTIRQ ? ctx_s : ctx_t;

	introduce(w, idx, ts, tid);
	if (other > 0) {
		name_other(e, d, size, other);
		introduce(w, idx, ts, other);
	}
	if (naming[e])
		kallsyms_name(w, field_u64(d, &evdefs[e].f[col_func[e]]));
	record(w, e, cpu, ts, d, size, tid, ctx);
	if (idx != NULL && index_it(e, d))
		record(idx, e, cpu, ts, d, size, tid, ctx);
	count++;
	last = ts;
	/* A blocking wait (S, D) or a system call: its stack follows. */
	if (stacking && ctx == ctx_t && tid > 0 && (e == E_SYS_ENTER ||
	    (e == E_SWITCH && evdefs[e].f[ECOL(E_SWITCH, STATE)].off >= 0 &&
	    (field_u64(d, &evdefs[e].f[ECOL(E_SWITCH, STATE)]) & STATE_BLOCKED))) &&
	    stack_wanted(tid))
		stack(w, ts, tid, e, d, size);
}

/*
 * A patched process's event (capture/patched.c): the record a uprobe of
 * the same probe set would have made, so that nothing downstream can
 * tell the two paths apart.
 */
static void
user_record(struct writer *w, const struct ubuf_event *e, int pid,
    const char *type)
{
	int i;

	writer_begin(w, KIND_EVENT);
	writer_u64(w, e->ts);
	writer_u64(w, pid);
	writer_u64(w, e->tid);
	writer_empty(w);	/* VERTEX */
	writer_u64(w, e->cpu);
	writer_str(w, type);
	writer_strn(w, "-", 1);
	for (i = 0; i < e->nargs && i < UBUF_MAXARGS; i++)
		writer_hex(w, e->arg[i]);
	writer_end(w);
}

/*
 * The process the kernel's events (up to this event's time) give thread
 * tid, if another than a ring's pid: the ring lies.  0 if none.  A table
 * that a lost fork left stale gives way to /proc.
 */
static int
user_foreign(int pid, uint32_t tid)
{
	char p[64];
	int tgid = task_tgid(tid);

	if (tgid <= 0 || tgid == pid)
		return 0;
	snprintf(p, sizeof(p), "/proc/%d/task/%u", pid, tid);
	return access(p, F_OK) == 0 ? 0 : tgid;
}

static void
user_event(struct writer *w, struct writer *idx, const struct ubuf_event *e,
    int pid, const char *type)
{
	struct task *t;

	if (selecting && !selected(e->tid) && !task_get(pid)->sel)
		return;
	/* A thread we have not seen the kernel name yet: its process's. */
	if ((t = task_get(e->tid))->tgid <= 0)
		t->tgid = pid;
	introduce(w, idx, e->ts, e->tid);
	user_record(w, e, pid, type);
	if (idx != NULL && relate_indexed_type(etype_of(type)))
		user_record(idx, e, pid, type);
	count++;
	if (e->ts > last)
		last = e->ts;
}

/* The next event of one CPU, loading its next page when one ends. */
static void
next(struct cursor *c, int cpu, int first)
{
	if (!first && c->pg != NULL)
		c->ev = kbuffer_next_event(c->kb, &c->ts);
	while (c->ev == NULL) {
		if (c->pg != NULL) {
			spool_give(c->pg);
			c->pg = NULL;
		}
		if ((c->pg = spool_take(cpu)) == NULL)
			return;
		if (kbuffer_load_subbuffer(c->kb, c->pg->data) < 0)
			continue;	/* not a page: skip it */
		c->lost = c->pg->lost;
		c->ev = kbuffer_read_event(c->kb, &c->ts);
	}
}

/* n events of cpu lost just before ts; counted as said. */
static void
lost_record(struct writer *w, uint64_t ts, int cpu, uint64_t n)
{
	said[cpu] += n;
	writer_begin(w, KIND_LOST);
	writer_u64(w, ts);
	writer_empty(w);
	writer_empty(w);
	writer_u64(w, cpu);
	writer_u64(w, n);
	writer_end(w);
}

void
emit_lost(struct writer *w, uint64_t ts, int cpu, uint64_t total)
{
	if (total > said[cpu])
		lost_record(w, ts, cpu, total - said[cpu]);
}

uint64_t
emit_bound(uint64_t upto)
{
	if (patched_active() && upto != UINT64_MAX && upto > patched_horizon())
		return patched_horizon();
	return upto;
}

uint64_t
emit_run(struct writer *w, struct writer *idx, uint64_t upto, uint64_t max)
{
	struct cursor *c, *best;
	const struct ubuf_event *ue;
	const char *utype;
	uint64_t n = 0;
	int cpu, bcpu, upid, foreign;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (cur[cpu].ev == NULL)
			next(&cur[cpu], cpu, 1);
	/* Patched processes' events: kernel ones wait for them a moment. */
	if (patched_active()) {
		if (spool_done())
			patched_stop();
		patched_refresh();
		upto = emit_bound(upto);
	}
	while (n < max) {
		best = NULL;
		bcpu = -1;
		for (cpu = 0; cpu < ncpus; cpu++) {
			c = &cur[cpu];
			/*
			 * An empty queue: pages that come later hold only
			 * events after upto, or the reader would not have
			 * moved the watermark there.
			 */
			if (c->ev == NULL)
				continue;
			if (best == NULL || c->ts < best->ts) {
				best = c;
				bcpu = cpu;
			}
		}
		if (patched_active() && (ue = patched_peek(&upid, &utype)) !=
		    NULL && ue->ts <= upto && (best == NULL ||
		    ue->ts < best->ts)) {
			if ((foreign = user_foreign(upid, ue->tid)) > 0) {
				patched_reject(foreign);
				continue;
			}
			user_event(w, idx, ue, upid, utype);
			patched_consume();
			n++;
			continue;
		}
		if (best == NULL || best->ts > upto)
			break;
		/* The events the kernel lost just before this page's first. */
		if (best->lost != 0) {
			lost_record(w, best->ts, bcpu, best->lost);
			best->lost = 0;
		}
		event(w, idx, bcpu, best->ts, best->ev,
		    kbuffer_event_size(best->kb));
		n++;
		next(best, bcpu, 0);
	}
	/*
	 * The kernel's events ran out while we wrote: the patched rings'
	 * last events may still be the drainer's.  One more, after it.
	 */
	if (n == 0 && patched_active() && spool_done() && patched_stop())
		return emit_run(w, idx, upto, max);
	return n;
}

/* A CPU's next spilled page's first event, and the losses before it. */
static void
spill_next(struct cursor *c, int cpu, char *buf, size_t pg)
{
	uint64_t lost;

	/* A page with no event to say them at hands them on. */
	while (c->ev == NULL && spill_tail_read(cpu, buf, &lost) > 0) {
		c->lost += lost;
		if (kbuffer_load_subbuffer(c->kb, buf) >= 0)
			c->ev = spill_page_event(kbuffer_read_event(c->kb,
			    &c->ts), c->kb, buf, pg);
	}
}

/*
 * Deepening: the spilled pages of every CPU from the one that holds t on,
 * merged by time as emit_run() merges the kernel's, into w (a ring file
 * of their own: they are older than what the ring's newest files hold).
 * What the kernel lost before a spilled page is said at its first event,
 * as emit_run() says it.  Under spill_lock().  The read pages leave the
 * spill.
 */
uint64_t
emit_spill(struct writer *w, struct writer *idx, uint64_t t,
    uint64_t *oldest)
{
	struct cursor *sc;
	char **buf;
	uint64_t n = 0, keep = last;
	size_t pg = spill_pagesize();
	int cpu, b;

	*oldest = 0;
	sc = xcalloc(ncpus, sizeof(*sc));
	buf = xcalloc(ncpus, sizeof(*buf));
	for (cpu = 0; cpu < ncpus; cpu++) {
		buf[cpu] = xmalloc(pg + 8);
		if ((sc[cpu].kb = kbuffer_alloc(KBUFFER_LSIZE_8,
		    KBUFFER_ENDIAN_LITTLE)) == NULL)
			diex(EX_SOFTWARE, "kbuffer_alloc failed");
		if (spill_tail(cpu, t))
			spill_next(&sc[cpu], cpu, buf[cpu], pg);
	}
	for (;;) {
		for (b = -1, cpu = 0; cpu < ncpus; cpu++)
			if (sc[cpu].ev != NULL && (b < 0 || sc[cpu].ts < sc[b].ts))
				b = cpu;
		if (b < 0)
			break;
		if (n++ == 0)
			*oldest = sc[b].ts;
		if (sc[b].lost != 0) {
			lost_record(w, sc[b].ts, b, sc[b].lost);
			sc[b].lost = 0;
		}
		event(w, idx, b, sc[b].ts, sc[b].ev,
		    kbuffer_event_size(sc[b].kb));
		sc[b].ev = spill_page_event(kbuffer_next_event(sc[b].kb,
		    &sc[b].ts), sc[b].kb, buf[b], pg);
		spill_next(&sc[b], b, buf[b], pg);
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		spill_tail_cut(cpu);
		kbuffer_free(sc[cpu].kb);
		free(buf[cpu]);
	}
	free(sc);
	free(buf);
	last = keep;	/* the newest event written is still the newest */
	return n;
}

/*
 * The time from which the ring's files hold every event the recorder
 * kept: after the newest event still in the spill (whose page a
 * deepening would read back), or 0 when the spill holds none.
 */
uint64_t
emit_spill_reach(void)
{
	struct kbuffer *kb;
	unsigned long long ts;
	uint64_t reach = 0;
	char *buf;
	int cpu;

	if (spill_pagesize() == 0)
		return 0;
	buf = xmalloc(spill_pagesize() + 8);
	if ((kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE)) ==
	    NULL)
		diex(EX_SOFTWARE, "kbuffer_alloc failed");
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (spill_newest(cpu, buf) <= 0 ||
		    kbuffer_load_subbuffer(kb, buf) < 0)
			continue;
		for (void *ev = kbuffer_read_event(kb, &ts); ev != NULL;
		    ev = kbuffer_next_event(kb, &ts))
			if (ts + 1 > reach)
				reach = ts + 1;
	}
	kbuffer_free(kb);
	free(buf);
	return reach;
}
