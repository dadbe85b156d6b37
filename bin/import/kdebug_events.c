/*
 * kdebug events as Argus events.  The stock codes map onto the types the
 * graph stages understand (a MACH_SCHED context switch is a switch, a
 * MACH_MAKE_RUNNABLE a waking, a BSC system call a sys_enter and
 * sys_exit, a timer callout an hrtimer expiry, ...); the codes of
 * xnu-diff/argus.diff too where Linux has the same thing, and under types
 * of their own where it does not (Mach messages, wait and wake reasons).
 * Any other code is passed on as a "kdebug" event with its raw arguments:
 * a trace loses nothing on the way in.  argus-import(1) has the table.
 *
 * kdebug records an event's thread but not its context: an event between
 * an interrupt's begin and end on the same CPU ran in that interrupt (CTX
 * 'h'), and its thread is the one it interrupted, as on Linux.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "event.h"
#include "kdebug.h"
#include "kdebug_events.h"
#include "util.h"

#define COMM_LEN	32
#define STR_MAX		256	/* longest string assembled from records */

struct kthread {
	uint64_t	 tid;
	int64_t		 pid;		/* -1: unknown */
	char		 comm[COMM_LEN + 1];
	unsigned	 introduced:1;	/* its task record is out */
	unsigned	 created:1;	/* the trace saw it created */
	unsigned	 started:1;	/* made runnable or seen running since */
	unsigned	 unint:1;	/* its pending wait is uninterruptible */
	unsigned	 exited:1;
	unsigned	 idle:1;	/* a CPU's idle thread */
	uint64_t	 child;		/* the thread it created last */
	/* A string the kernel traces over several records. */
	uint32_t	 str_id;
	size_t		 str_len;
	char		 str[STR_MAX + 32];
	UT_hash_handle	 hh;
};

struct kcpu {
	uint32_t	 cpu;
	int		 intr;		/* interrupt nesting depth */
	uint64_t	 irq;		/* the stock interrupt's number */
	UT_hash_handle	 hh;
};

/* A libdispatch item from push to completion: its function. */
struct item {
	uint64_t	 item;
	uint64_t	 function;
	UT_hash_handle	 hh;
};

static struct writer	*out;
static struct kd_source	 src;
static struct kthread	*threads;
static struct item	*items;
static struct kcpu	*cpus;		/* by number, as met */
static uint64_t		 last_ns, first_ns = NO_TIME;
static uint64_t		 nevents, nraw, nreordered, nlost;
static uint32_t		 maxcpu;

struct syscall {
	int		 mach;
	uint16_t	 nr;
	const char	*name;
	int		 nargs;
};

static const struct syscall syscalls[] = {
#define BSC(nr, name, nargs)	{ 0, nr, name, nargs },
#define MSC(nr, name, nargs)	{ 1, nr, name, nargs },
#include "kdebug_syscalls.def"
#undef BSC
#undef MSC
};

/* By number, BSD and Mach: the code field has 14 bits. */
#define NR_MAX	0x4000
static const struct syscall *by_nr[2][NR_MAX];

static const struct syscall *
syscall_of(int mach, uint32_t nr)
{
	static int ready;
	size_t i;

	if (!ready) {
		for (i = 0; i < ARRAY_LEN(syscalls); i++)
			by_nr[syscalls[i].mach][syscalls[i].nr] = &syscalls[i];
		ready = 1;
	}
	return nr < NR_MAX ? by_nr[mach != 0][nr] : NULL;
}

static struct kthread *
thread_get(uint64_t tid)
{
	struct kthread *t;

	if (HASH_GET(hh, threads, tid, &tid, t))
		t->pid = tid == 0 ? 0 : -1;	/* 0: no thread, as Linux's idle */
	return t;
}

static void
set_comm(struct kthread *t, const char *s, size_t len)
{
	size_t n = strnlen(s, len < COMM_LEN ? len : COMM_LEN);

	/* Renamed: introduced again at its next record, as the capture does. */
	if (strncmp(t->comm, s, n) != 0 || t->comm[n] != '\0')
		t->introduced = 0;
	memcpy(t->comm, s, n);
	t->comm[n] = '\0';
}

void
kdev_thread(uint64_t tid, int64_t pid, const char *comm, size_t len)
{
	struct kthread *t;

	if (tid == 0)
		return;		/* padding the kernel adds to the map */
	t = thread_get(tid);
	set_comm(t, comm, len);
	/* The map says 1 for the kernel's threads; launchd is 1 too. */
	t->pid = pid == 1 && strcmp(t->comm, "kernel_task") == 0 ? 0 : pid;
}

void
kdev_thread_name(uint64_t tid, const char *name, size_t len)
{
	if (tid != 0)
		set_comm(thread_get(tid), name, len);
}

/*
 * A CPU's state, by the number its events give: a table of those met, not
 * an array as long as the largest number, which a file chooses (0xffffffff
 * in a 4 KB file).  Each entry was paid for by an event of the input.
 */
static struct kcpu *
cpu_get(uint32_t cpu)
{
	struct kcpu *c;

	HASH_FIND(hh, cpus, &cpu, sizeof(cpu), c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		c->cpu = cpu;
		HASH_ADD(hh, cpus, cpu, sizeof(c->cpu), c);
	}
	return c;
}

/* Ticks to ns, in order: a stream's times never go back. */
static uint64_t
ns_of(uint64_t ticks)
{
	return (uint64_t)((unsigned __int128)ticks * src.numer / src.denom);
}

static uint64_t
event_ns(const struct kd_event *e)
{
	uint64_t ns = ns_of(e->timestamp);

	if (first_ns == NO_TIME)
		first_ns = ns;
	if (ns < last_ns) {
		nreordered++;
		ns = last_ns;
	}
	last_ns = ns;
	return ns;
}

static void
pid_column(const struct kthread *t)
{
	if (t->pid >= 0)
		writer_u64(out, t->pid);
	else
		writer_empty(out);
}

/* A thread's task record, once, before the first record that names it. */
static void
introduce(struct kthread *t, uint64_t ns)
{
	if (t->introduced)
		return;
	t->introduced = 1;
	writer_begin(out, KIND_TASK);
	writer_u64(out, ns);
	pid_column(t);
	writer_u64(out, t->tid);
	writer_str(out, t->comm);
	writer_end(out);
}

/* event,TIME,PID,TID,VERTEX,CPU,TYPE,CTX: the columns every event has. */
static void
event_begin(const struct kd_event *e, uint64_t ns, struct kthread *t,
    enum etype type)
{
	introduce(t, ns);
	writer_begin(out, KIND_EVENT);
	writer_u64(out, ns);
	pid_column(t);
	writer_u64(out, t->tid);
	writer_empty(out);
	writer_u64(out, e->cpu);
	writer_str(out, edefs[type].type);
	writer_str(out, cpu_get(e->cpu)->intr > 0 ? "h" : "-");
	nevents++;
}

/*
 * The columns after CTX of the event begun, set by their names in
 * lib/events.def (ECOL) and written in order by event_end(): up to the
 * last one set, those between empty.  A mapper sets a column empty where
 * kdebug does not say (CLONE_FLAGS, RET): argus-stream(5) has it there.
 */
enum cell_kind { CELL_EMPTY, CELL_U64, CELL_I64, CELL_HEX, CELL_STR };
static struct cell {
	enum cell_kind	 kind;
	uint64_t	 v;
	const char	*s;		/* until event_end() */
} row[E_MAXCOLS];
static int nrow;

static void
put(int col, enum cell_kind kind, uint64_t v, const char *s)
{
	if (col < 0 || col >= E_MAXCOLS)
		diex(EX_SOFTWARE, "event column %d", col);
	row[col] = (struct cell){ kind, v, s };
	if (col >= nrow)
		nrow = col + 1;
}

#define put_empty(col)		put(col, CELL_EMPTY, 0, NULL)
#define put_u64(col, v)		put(col, CELL_U64, v, NULL)
#define put_i64(col, v)		put(col, CELL_I64, (uint64_t)(v), NULL)
#define put_hex(col, v)		put(col, CELL_HEX, v, NULL)
#define put_str(col, s)		put(col, CELL_STR, 0, s)

/* A thread's process, empty if unknown. */
static void
put_pid(int col, const struct kthread *o)
{
	if (o->pid >= 0)
		put_u64(col, o->pid);
	else
		put_empty(col);
}

/* Types of one format, written by the first's names. */
_Static_assert(ECOL_SAME(E_WQ_START, E_WQ_END, WORK) &&
    ECOL_SAME(E_WQ_START, E_WQ_END, FUNCTION), "wq_start, wq_end");
_Static_assert(ECOL_SAME(E_IPC_SEND, E_IPC_RECV, KMSG) &&
    ECOL_SAME(E_IPC_SEND, E_IPC_RECV, BITS) &&
    ECOL_SAME(E_IPC_SEND, E_IPC_RECV, MSGH_ID) &&
    ECOL_SAME(E_IPC_SEND, E_IPC_RECV, VOUCHER), "ipc_send, ipc_recv");
_Static_assert(ECOL_SAME(E_MSG_SEND, E_MSG_RECV, PORT) &&
    ECOL_SAME(E_MSG_SEND, E_MSG_RECV, REPLY_PORT) &&
    ECOL_SAME(E_MSG_SEND, E_MSG_RECV, PORT_NAME) &&
    ECOL_SAME(E_MSG_SEND, E_MSG_RECV, REPLY_NAME) &&
    ECOL_SAME(E_MSG_SEND, E_MSG_RECV, VOUCHER_NAME) &&
    ECOL_SAME(E_MSG_SEND, E_MSG_RECV, MSGH_ID), "msg_send, msg_recv");
_Static_assert(ECOL(E_KDEBUG, ARG4) == ECOL(E_KDEBUG, ARG1) + 3,
    "kdebug's ARG1..ARG4");

/*
 * A thread call's deadline, after wq_queue's columns: only kdebug has it
 * (argus-stream(5), wq_queue's [,DEADLINE]).
 */
#define WQ_DEADLINE	(ECOL(E_WQ_QUEUE, CPU) + 1)

/* TPID,TTID of type: another thread named by an event. */
#define put_target(type, o) \
	(put_pid(ECOL(type, TPID), o), put_u64(ECOL(type, TTID), (o)->tid))

static void
event_end(void)
{
	struct cell *c;

	for (c = row; c < row + nrow; c++)
		switch (c->kind) {
		case CELL_EMPTY:
			writer_empty(out);
			break;
		case CELL_U64:
			writer_u64(out, c->v);
			break;
		case CELL_I64:
			writer_i64(out, (int64_t)c->v);
			break;
		case CELL_HEX:
			writer_hex(out, c->v);
			break;
		case CELL_STR:
			writer_str(out, c->s);
			break;
		}
	writer_end(out);
	memset(row, 0, sizeof(row));
	nrow = 0;
}

static const char *
func_name(uint32_t debugid)
{
	static const char *const f[] = { "", "B", "E", "BE" };

	return f[KD_FUNC(debugid)];
}

/* Any code not mapped: CODE,FUNC,ARG1..ARG4, raw. */
static void
raw(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	char code[16];
	int i;

	snprintf(code, sizeof(code), "0x%08x", KD_ID(e->debugid));
	event_begin(e, ns, t, E_KDEBUG);
	put_str(ECOL(E_KDEBUG, CODE), code);
	put_str(ECOL(E_KDEBUG, FUNC), func_name(e->debugid));
	for (i = 0; i < 4; i++)
		put_hex(ECOL(E_KDEBUG, ARG1) + i, e->arg[i]);
	event_end();
	nraw++;
}

static const char *
result_name(uint64_t r)
{
	static const char *const names[] = {
		[KD_THREAD_AWAKENED] = "awakened",
		[KD_THREAD_TIMED_OUT] = "timed_out",
		[KD_THREAD_INTERRUPTED] = "interrupted",
		[KD_THREAD_RESTART] = "restart",
	};

	return r < ARRAY_LEN(names) ? names[r] : "other";
}

/*
 * Why a thread left its CPU, in ps(1) letters as on Linux: preempted
 * (R+), yielding (R), or waiting: uninterruptibly (D) when the patch's
 * wait reason said so, else S.  The stock event tells only the scheduler's
 * reason, which has no bit for "waits".
 */
static const char *
switch_state(const struct kthread *t, uint64_t reason)
{
	if (reason & KD_AST_PREEMPTION)
		return "R+";
	if ((reason & KD_AST_YIELD) || t->idle)
		return "R";
	if (t->exited)
		return "X";
	return t->unint ? "D" : "S";
}

static void
map_switch(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	struct kthread *next = thread_get(e->arg[1]);

	introduce(next, ns);
	event_begin(e, ns, t, E_SWITCH);
	put_str(ECOL(E_SWITCH, STATE), switch_state(t, e->arg[0]));
	put_target(E_SWITCH, next);
	put_str(ECOL(E_SWITCH, TCOMM), next->comm);
	event_end();
	t->unint = 0;
	next->started = 1;
}

static void
map_runnable(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	struct kthread *w = thread_get(e->arg[0]);
	int first = w->created && !w->started;

	w->started = 1;
	introduce(w, ns);
	event_begin(e, ns, t, first ? E_WAKEUP_NEW : E_WAKING);
	put_target(E_WAKING, w);	/* wakeup_new's too: WAKE_COL */
	put_empty(WAKE_COL(TARGET_CPU));	/* not traced */
	put_str(WAKE_COL(TCOMM), w->comm);
	event_end();
}

/* A mapper that returns int says 0 for an event it leaves raw. */
static int
map_syscall(const struct kd_event *e, uint64_t ns, struct kthread *t, int mach)
{
	const struct syscall *sc = syscall_of(mach, KD_CODE(e->debugid));
	int64_t nr = mach ? -(int64_t)KD_CODE(e->debugid) :
	    KD_CODE(e->debugid), ret;
	const char *name = sc != NULL ? sc->name : "";
	int i, nargs = sc != NULL && sc->nargs < 4 ? sc->nargs : 4;

	if (KD_FUNC(e->debugid) == KD_START) {
		event_begin(e, ns, t, E_SYS_ENTER);
		put_i64(ECOL(E_SYS_ENTER, NR), nr);
		put_str(SYSCALL_NAME, name);
		for (i = 0; i < nargs; i++)
			put_hex(SYSCALL_ARG(i), e->arg[i]);
	} else if (KD_FUNC(e->debugid) == KD_END) {
		/* BSD: errno, then the value; Mach: a kern_return_t. */
		if (mach)
			ret = (int32_t)e->arg[0];
		else
			ret = e->arg[0] != 0 ? (int64_t)(0 - e->arg[0]) :
			    (int64_t)e->arg[1];
		event_begin(e, ns, t, E_SYS_EXIT);
		put_i64(ECOL(E_SYS_EXIT, NR), nr);
		put_str(ECOL(E_SYS_EXIT, NAME), name);
		put_i64(ECOL(E_SYS_EXIT, RET), ret);
	} else {
		return 0;
	}
	event_end();
	return 1;
}

static const char *
intr_kind(uint64_t kind)
{
	static const char *const names[] = { "unknown", "ipi", "timer",
	    "other", "pmi" };

	return kind < ARRAY_LEN(names) ? names[kind] : "unknown";
}

/*
 * Interrupts, stock and the patch's finer ones, as irq_entry and
 * irq_exit: both are in interrupt context, and so is all in between.
 */
static int
map_interrupt(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	struct kcpu *c = cpu_get(e->cpu);
	uint32_t id = KD_ID(e->debugid);
	char name[32];

	if (KD_FUNC(e->debugid) == KD_START) {
		c->intr++;
		event_begin(e, ns, t, E_IRQ_ENTRY);
		if (id == KD_MACH_INTR) {
			c->irq = e->arg[0];
			put_u64(ECOL(E_IRQ_ENTRY, IRQ), e->arg[0]);
			put_str(ECOL(E_IRQ_ENTRY, NAME), intr_kind(e->arg[3]));
		} else if (id == ARGUS_INTR_HANDLER) {
			put_u64(ECOL(E_IRQ_ENTRY, IRQ), e->arg[1]);
			snprintf(name, sizeof(name), "0x%llx",
			    (unsigned long long)e->arg[0]);
			put_str(ECOL(E_IRQ_ENTRY, NAME), name);
		} else {
			put_u64(ECOL(E_IRQ_ENTRY, IRQ), e->arg[0]);
			put_str(ECOL(E_IRQ_ENTRY, NAME), "timers");
		}
	} else if (KD_FUNC(e->debugid) == KD_END && c->intr > 0) {
		event_begin(e, ns, t, E_IRQ_EXIT);
		if (id == KD_MACH_INTR)
			put_u64(ECOL(E_IRQ_EXIT, IRQ), c->irq);
		put_empty(ECOL(E_IRQ_EXIT, RET));	/* not traced */
		c->intr--;
	} else {
		return 0;		/* an end whose begin the trace missed */
	}
	event_end();
	return 1;
}

static int
map_timer(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	uint32_t id = KD_ID(e->debugid);

	if (KD_FUNC(e->debugid) == KD_START && id == KD_DECR_TIMER_ENTER) {
		event_begin(e, ns, t, E_HRT_START);
		put_hex(ECOL(E_HRT_START, TIMER), e->arg[0]);
		put_u64(ECOL(E_HRT_START, EXPIRES), ns_of(e->arg[2]));
		put_empty(ECOL(E_HRT_START, SOFTEXPIRES));
		put_hex(ECOL(E_HRT_START, MODE), e->arg[3]);	/* its flags */
	} else if (KD_FUNC(e->debugid) == KD_START &&
	    id == KD_DECR_TIMER_CALLOUT) {
		event_begin(e, ns, t, E_HRT_EXPIRE_ENTRY);
		put_hex(ECOL(E_HRT_EXPIRE_ENTRY, TIMER), e->arg[0]);
		put_hex(ECOL(E_HRT_EXPIRE_ENTRY, FUNCTION), e->arg[1]);
		put_u64(ECOL(E_HRT_EXPIRE_ENTRY, NOW), ns);
	} else if (KD_FUNC(e->debugid) == KD_END &&
	    id == KD_DECR_TIMER_CALLOUT) {
		event_begin(e, ns, t, E_HRT_EXPIRE_EXIT);
		put_hex(ECOL(E_HRT_EXPIRE_EXIT, TIMER), e->arg[0]);
	} else if (KD_FUNC(e->debugid) == KD_START &&
	    id == KD_DECR_TIMER_CANCEL) {
		event_begin(e, ns, t, E_HRT_CANCEL);
		put_hex(ECOL(E_HRT_CANCEL, TIMER), e->arg[0]);
	} else {
		return 0;
	}
	event_end();
	return 1;
}

/* Thread calls (the patch) and libdispatch items: queued, run, done. */
static void
map_async(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	uint32_t id = KD_ID(e->debugid);
	struct item *it;
	char queue[32];

	switch (id) {
	case ARGUS_TCALL_ARM:
		event_begin(e, ns, t, E_WQ_QUEUE);
		put_hex(ECOL(E_WQ_QUEUE, WORK), e->arg[0]);
		put_hex(ECOL(E_WQ_QUEUE, FUNCTION), e->arg[1]);
		put_str(ECOL(E_WQ_QUEUE, WORKQUEUE), "thread_call");
		put_empty(ECOL(E_WQ_QUEUE, CPU));
		if (e->arg[2] != 0)
			put_u64(WQ_DEADLINE, ns_of(e->arg[2]));
		break;
	case ARGUS_TCALL_INVOKE:
		event_begin(e, ns, t, KD_FUNC(e->debugid) == KD_END ?
		    E_WQ_END : E_WQ_START);
		put_hex(ECOL(E_WQ_START, WORK), e->arg[0]);
		put_hex(ECOL(E_WQ_START, FUNCTION), e->arg[1]);
		break;
	case KD_DISPATCH_PUSH_EB:
	case KD_DISPATCH_PUSH_AB:
	case KD_DISPATCH_PUSH_F:
		HASH_FIND(hh, items, &e->arg[0], sizeof(e->arg[0]), it);
		if (it == NULL) {
			it = xcalloc(1, sizeof(*it));
			it->item = e->arg[0];
			HASH_ADD(hh, items, item, sizeof(it->item), it);
		}
		it->function = e->arg[1];
		snprintf(queue, sizeof(queue), "dispatch:%llu",
		    (unsigned long long)(e->arg[2] >> 32));
		event_begin(e, ns, t, E_WQ_QUEUE);
		put_hex(ECOL(E_WQ_QUEUE, WORK), e->arg[0]);
		put_hex(ECOL(E_WQ_QUEUE, FUNCTION), e->arg[1]);
		put_str(ECOL(E_WQ_QUEUE, WORKQUEUE), queue);
		put_empty(ECOL(E_WQ_QUEUE, CPU));
		break;
	default:	/* KD_DISPATCH_POP, KD_DISPATCH_COMPLETE */
		HASH_FIND(hh, items, &e->arg[0], sizeof(e->arg[0]), it);
		event_begin(e, ns, t, id == KD_DISPATCH_POP ? E_WQ_START :
		    E_WQ_END);
		put_hex(ECOL(E_WQ_START, WORK), e->arg[0]);
		if (it != NULL)
			put_hex(ECOL(E_WQ_START, FUNCTION), it->function);
		else
			put_empty(ECOL(E_WQ_START, FUNCTION));
		if (id == KD_DISPATCH_COMPLETE && it != NULL) {
			HASH_DEL(items, it);
			free(it);
		}
		break;
	}
	event_end();
}

static int
map_runloop(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	if (KD_ID(e->debugid) == ARGUS_RUNLOOP_SUBMIT) {
		event_begin(e, ns, t, E_RUNLOOP_SUBMIT);
		put_hex(ECOL(E_RUNLOOP_SUBMIT, SOURCE), e->arg[0]);
		put_hex(ECOL(E_RUNLOOP_SUBMIT, CONTEXT), e->arg[1]);
	} else if (KD_FUNC(e->debugid) == KD_START) {
		event_begin(e, ns, t, E_RUNLOOP_BEGIN);
		put_hex(ECOL(E_RUNLOOP_BEGIN, SOURCE), e->arg[0]);
	} else if (KD_FUNC(e->debugid) == KD_END) {
		event_begin(e, ns, t, E_RUNLOOP_END);
		put_hex(ECOL(E_RUNLOOP_END, RET), e->arg[0]);
	} else {
		return 0;
	}
	event_end();
	return 1;
}

/* The port a message goes to, its reply port, and both names. */
static void
map_message(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	switch (KD_ID(e->debugid)) {
	case KD_IPC_MSG_SEND:
	case KD_IPC_MSG_RECV:
	case KD_IPC_MSG_RECV_VREF:
		event_begin(e, ns, t, KD_ID(e->debugid) == KD_IPC_MSG_SEND ?
		    E_IPC_SEND : E_IPC_RECV);
		put_hex(ECOL(E_IPC_SEND, KMSG), e->arg[0]);
		put_hex(ECOL(E_IPC_SEND, BITS), e->arg[1]);
		put_u64(ECOL(E_IPC_SEND, MSGH_ID), (uint32_t)e->arg[2]);
		put_hex(ECOL(E_IPC_SEND, VOUCHER), e->arg[3]);
		break;
	default:
		event_begin(e, ns, t, KD_ID(e->debugid) == ARGUS_MSG_SEND ?
		    E_MSG_SEND : E_MSG_RECV);
		put_hex(ECOL(E_MSG_SEND, PORT), e->arg[0]);
		put_hex(ECOL(E_MSG_SEND, REPLY_PORT), e->arg[1]);
		put_u64(ECOL(E_MSG_SEND, PORT_NAME), (uint32_t)e->arg[2]);
		put_u64(ECOL(E_MSG_SEND, REPLY_NAME), e->arg[2] >> 32);
		put_u64(ECOL(E_MSG_SEND, VOUCHER_NAME), (uint32_t)e->arg[3]);
		put_u64(ECOL(E_MSG_SEND, MSGH_ID), e->arg[3] >> 32);
		break;
	}
	event_end();
}

/* The patch's user frames at mach_msg2_trap: a stack record. */
static void
map_backtrace(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	int i;

	introduce(t, ns);
	writer_begin(out, KIND_STACK);
	writer_u64(out, ns);
	pid_column(t);
	writer_u64(out, t->tid);
	for (i = 0; i < 4 && e->arg[i] != 0; i++)
		writer_hex(out, e->arg[i]);
	writer_end(out);
}

static const char *
waitq_kind(uint64_t k)
{
	static const char *const names[] = { "", "queue", "turnstile", "port",
	    "select", "port_set", "select_set" };

	return k < ARRAY_LEN(names) ? names[k] : "";
}

static void
map_wait(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	struct kthread *w;
	char flags[32];

	switch (KD_ID(e->debugid)) {
	case KD_MACH_WAIT:
		event_begin(e, ns, t, E_MACH_WAIT);
		put_hex(ECOL(E_MACH_WAIT, EVENT), e->arg[0]);
		put_u64(ECOL(E_MACH_WAIT, INTERRUPTIBLE), e->arg[1]);
		if (e->arg[2] != 0)
			put_u64(ECOL(E_MACH_WAIT, DEADLINE), ns_of(e->arg[2]));
		else
			put_empty(ECOL(E_MACH_WAIT, DEADLINE));
		break;
	case ARGUS_WAIT:
		t->unint = (uint32_t)e->arg[1] == KD_THREAD_UNINT;
		event_begin(e, ns, t, E_WAIT_REASON);
		put_hex(ECOL(E_WAIT_REASON, EVENT), e->arg[0]);
		put_str(ECOL(E_WAIT_REASON, KIND), waitq_kind(e->arg[1] >> 32));
		put_u64(ECOL(E_WAIT_REASON, INTERRUPTIBLE),
		    (uint32_t)e->arg[1]);
		if (e->arg[2] != 0)
			put_u64(ECOL(E_WAIT_REASON, DEADLINE),
			    ns_of(e->arg[2]));
		put_hex(ECOL(E_WAIT_REASON, CALLER), e->arg[3]);
		break;
	case ARGUS_WAKE:
		w = thread_get(e->arg[0]);
		introduce(w, ns);
		snprintf(flags, sizeof(flags), "%s%s%s",
		    e->arg[2] & ARGUS_WAKE_HANDOFF ? "handoff+" : "",
		    e->arg[2] & ARGUS_WAKE_INTR ? "intr+" : "",
		    e->arg[2] & ARGUS_WAKE_TIMER ? "timer+" : "");
		if (flags[0] != '\0')
			flags[strlen(flags) - 1] = '\0';
		event_begin(e, ns, t, E_WAKE_REASON);
		put_target(E_WAKE_REASON, w);
		put_str(ECOL(E_WAKE_REASON, RESULT), result_name(e->arg[1]));
		put_str(ECOL(E_WAKE_REASON, FLAGS), flags);
		put_hex(ECOL(E_WAKE_REASON, CALLER), e->arg[3]);
		break;
	default:	/* ARGUS_CLEAR_WAIT */
		w = thread_get(e->arg[0]);
		introduce(w, ns);
		event_begin(e, ns, t, E_CLEAR_WAIT);
		put_target(E_CLEAR_WAIT, w);
		put_str(ECOL(E_CLEAR_WAIT, RESULT), result_name(e->arg[1]));
		put_hex(ECOL(E_CLEAR_WAIT, EVENT), e->arg[2]);
		put_hex(ECOL(E_CLEAR_WAIT, CALLER), e->arg[3]);
		break;
	}
	event_end();
}

/*
 * Strings the kernel traces as characters in the arguments of one or more
 * records of the same thread: the first carries DBG_FUNC_START, the last
 * DBG_FUNC_END.  1 when the string is whole.
 */
static int
string_part(struct kthread *t, const struct kd_event *e, int skip)
{
	char part[32];
	size_t n;
	int i;

	if (KD_FUNC(e->debugid) & KD_START) {
		t->str_id = KD_ID(e->debugid);
		t->str_len = 0;
	} else if (t->str_id != KD_ID(e->debugid)) {
		return 0;	/* its beginning is not in the trace */
	}
	for (i = 0; i < 4; i++)
		memcpy(part + 8 * i, &e->arg[i], 8);	/* little-endian */
	n = strnlen(part + 8 * skip, sizeof(part) - 8 * skip);
	if (t->str_len + n > STR_MAX)
		n = STR_MAX - t->str_len;
	memcpy(t->str + t->str_len, part + 8 * skip, n);
	t->str_len += n;
	t->str[t->str_len] = '\0';
	if (!(KD_FUNC(e->debugid) & KD_END))
		return 0;
	t->str_id = 0;
	return 1;
}

static void
map_lifecycle(const struct kd_event *e, uint64_t ns, struct kthread *t)
{
	struct kthread *c;
	char old[COMM_LEN + 1];

	switch (KD_ID(e->debugid)) {
	case KD_DATA_NEWTHREAD:
		c = thread_get(e->arg[0]);
		c->pid = (int64_t)e->arg[1];
		c->created = 1;
		if (c->comm[0] == '\0' && c->pid == t->pid)
			memcpy(c->comm, t->comm, sizeof(c->comm));
		t->child = c->tid;
		introduce(c, ns);
		event_begin(e, ns, t, E_FORK);
		put_target(E_FORK, c);
		put_empty(ECOL(E_FORK, CLONE_FLAGS));
		put_str(ECOL(E_FORK, TCOMM), c->comm);
		break;
	case KD_DATA_TERMINATE_PID:
		t->exited = 1;
		event_begin(e, ns, t, E_EXIT);
		put_str(ECOL(E_EXIT, COMM), t->comm);
		/* the next record says */
		put_empty(ECOL(E_EXIT, GROUP_DEAD));
		break;
	case KD_STRING_NEWTHREAD:
		if (string_part(t, e, 0) && t->child != 0)
			set_comm(thread_get(t->child), t->str, t->str_len);
		return;
	case KD_STRING_EXEC:
		if (!string_part(t, e, 0))
			return;
		snprintf(old, sizeof(old), "%s", t->comm);
		set_comm(t, t->str, t->str_len);
		event_begin(e, ns, t, E_EXEC);
		put_str(ECOL(E_EXEC, FILENAME), t->str);
		put_u64(ECOL(E_EXEC, OLD_TID), t->tid);
		event_end();
		event_begin(e, ns, t, E_COMM);
		put_target(E_COMM, t);
		put_str(ECOL(E_COMM, OLDCOMM), old);
		put_str(ECOL(E_COMM, NEWCOMM), t->comm);
		break;
	case KD_STRING_THREADNAME:
		if (!string_part(t, e, 0))
			return;
		snprintf(old, sizeof(old), "%s", t->comm);
		set_comm(t, t->str, t->str_len);
		event_begin(e, ns, t, E_COMM);
		put_target(E_COMM, t);
		put_str(ECOL(E_COMM, OLDCOMM), old);
		put_str(ECOL(E_COMM, NEWCOMM), t->comm);
		break;
	case KD_STRING_PROC_EXIT:
		if (!string_part(t, e, 0))
			return;
		event_begin(e, ns, t, E_PROC_EXIT);
		put_str(ECOL(E_PROC_EXIT, COMM), t->str);
		break;
	case KD_STRING_GLOBAL:
		/* kdebug_trace_string(2): debug ID and string ID, then text. */
		if (!string_part(t, e, (KD_FUNC(e->debugid) & KD_START) ? 2 : 0) ||
		    t->str_len == 0)
			return;
		event_begin(e, ns, t, E_MARKER);
		put_str(ECOL(E_MARKER, TEXT), t->str);
		break;
	default:	/* KD_DATA_EXEC: named by the string that follows */
		t->pid = (int64_t)e->arg[0];
		return;
	}
	event_end();
}

/* The tables of an input: at its end, or the next's start if it died. */
static void
forget(void)
{
	HASH_FREE(hh, threads);
	HASH_FREE(hh, items);
	HASH_FREE(hh, cpus);
}

void
kdev_init(struct writer *w)
{
	forget();
	out = w;
	last_ns = 0;
	first_ns = NO_TIME;
	nevents = nraw = nreordered = nlost = 0;
	maxcpu = 0;
}

static void
meta_str(const char *key, const char *value, const char *more)
{
	writer_begin(out, KIND_META);
	writer_empty(out);
	writer_empty(out);
	writer_empty(out);
	writer_str(out, key);
	writer_str(out, value);
	if (more != NULL)
		writer_str(out, more);
	writer_end(out);
}

void
kdev_begin(const struct kd_source *s)
{
	char tb[32];

	src = *s;
	snprintf(tb, sizeof(tb), "%u/%u", s->numer, s->denom);
	meta_str("source", "kdebug", NULL);
	meta_str("file", s->name, NULL);
	meta_str("layout", s->layout, NULL);
	meta_str("timebase", tb, s->timebase_from);
	meta_str("clock", "mach_absolute", NULL);
}

void
kdev_event(const struct kd_event *e)
{
	uint32_t id = KD_ID(e->debugid);
	struct kthread *t = thread_get(e->thread);
	uint64_t ns = event_ns(e);

	if (e->cpu > maxcpu)
		maxcpu = e->cpu;
	if (KD_CSC(id) == KD_CSC(KD_BSC(0)) || KD_CSC(id) == KD_CSC(KD_MSC(0))) {
		if (!map_syscall(e, ns, t, KD_CLASS(id) == KD_MACH))
			raw(e, ns, t);
		return;
	}
	switch (id) {
	case KD_MACH_SCHED:
	case KD_MACH_HANDOFF:
		map_switch(e, ns, t);
		break;
	case KD_MACH_MAKERUNNABLE:
		map_runnable(e, ns, t);
		break;
	case KD_MACH_INTR:
	case ARGUS_INTR_HANDLER:
	case ARGUS_INTR_TIMERS:
		if (!map_interrupt(e, ns, t))
			raw(e, ns, t);
		break;
	case KD_DECR_TIMER_ENTER:
	case KD_DECR_TIMER_CALLOUT:
	case KD_DECR_TIMER_CANCEL:
		if (!map_timer(e, ns, t))
			raw(e, ns, t);
		break;
	case ARGUS_TCALL_ARM:
	case ARGUS_TCALL_INVOKE:
	case KD_DISPATCH_PUSH_EB:
	case KD_DISPATCH_PUSH_AB:
	case KD_DISPATCH_PUSH_F:
	case KD_DISPATCH_POP:
	case KD_DISPATCH_COMPLETE:
		map_async(e, ns, t);
		break;
	case ARGUS_RUNLOOP_SUBMIT:
	case ARGUS_RUNLOOP_CALLOUT:
		if (!map_runloop(e, ns, t))
			raw(e, ns, t);
		break;
	case KD_IPC_MSG_SEND:
	case KD_IPC_MSG_RECV:
	case KD_IPC_MSG_RECV_VREF:
	case ARGUS_MSG_SEND:
	case ARGUS_MSG_RECV:
		map_message(e, ns, t);
		break;
	case ARGUS_MSG_BACKTRACE:
		map_backtrace(e, ns, t);
		break;
	case KD_MACH_WAIT:
	case ARGUS_WAIT:
	case ARGUS_WAKE:
	case ARGUS_CLEAR_WAIT:
		map_wait(e, ns, t);
		break;
	case KD_DATA_NEWTHREAD:
	case KD_DATA_EXEC:
	case KD_DATA_TERMINATE_PID:
	case KD_STRING_NEWTHREAD:
	case KD_STRING_EXEC:
	case KD_STRING_THREADNAME:
	case KD_STRING_PROC_EXIT:
	case KD_STRING_GLOBAL:
		map_lifecycle(e, ns, t);
		break;
	case KD_LOST_EVENTS:
		/* The kernel says events were lost here, not how many. */
		writer_begin(out, KIND_LOST);
		writer_u64(out, ns);
		writer_empty(out);
		writer_empty(out);
		writer_u64(out, e->cpu);
		writer_empty(out);
		writer_end(out);
		nlost++;
		break;
	case KD_MACH_IDLE:
		t->idle = 1;
		raw(e, ns, t);
		break;
	default:
		raw(e, ns, t);
		break;
	}
}

static void
meta_u64(const char *key, uint64_t v)
{
	writer_begin(out, KIND_META);
	writer_time(out, last_ns);
	writer_empty(out);
	writer_empty(out);
	writer_str(out, key);
	writer_u64(out, v);
	writer_end(out);
}

void
kdev_end(void)
{
	meta_u64("start", first_ns == NO_TIME ? 0 : first_ns);
	meta_u64("end", last_ns);
	meta_u64("events", nevents);
	meta_u64("raw", nraw);
	meta_u64("reordered", nreordered);
	meta_u64("lost_marks", nlost);
	meta_u64("cpus", nevents > 0 ? (uint64_t)maxcpu + 1 : 0);
	forget();
}
